#!/usr/bin/env bash
# Herald's memory over a long open-loop run: a node delivering to nghttpd (as push-cost.sh),
# herald-dev bench's open loop at $RATE requests/s of 1 token for $DURATION seconds, and
# Herald's RSS (VmRSS) every 15 s, then the run's latency percentiles. RSS that keeps growing
# under a steady load is a leak; flat after warm-up is what the issue asks.
#
#   RATE=8000 DURATION=300 benchmarks/scripts/rss-soak.sh
#
# Needs a release build (swift build -c release --scratch-path .build-release).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
rate=${RATE:-8000}
duration=${DURATION:-300}
work=$(mktemp -d)
sink_port=${BENCH_SINK_PORT:-19901}; api_port=${BENCH_API_PORT:-19981}
cleanup() { kill "${herald_pid:-}" "${sink_pid:-}" "${gen_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# shellcheck source=benchmarks/scripts/sink-node.sh
source benchmarks/scripts/sink-node.sh
start_sink -m 1000
start_sink_node
rss() { awk '/VmRSS/ { print $2 }' "/proc/$herald_pid/status"; }
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; $("$bin" --version)"
echo "start: RSS $(rss) kB"
"$dev_bin" bench gorush-push --url "http://127.0.0.1:$api_port" --concurrency 256 --rate "$rate" --duration "$duration" --warmup 5 \
    --devices 10 --topic im.herald.bench > "$work/gen.out" 2>&1 &
gen_pid=$!
for i in $(seq 1 $(((duration + 10) / 15))); do
    sleep 15
    echo "t=$((i * 15)) s: RSS $(rss) kB"
done
wait "$gen_pid" || true
tail -4 "$work/gen.out"
echo "end: RSS $(rss) kB"
