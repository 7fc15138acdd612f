#!/usr/bin/env bash
# POST /api/push -> Herald -> strict mock APNs, all on 127.0.0.1, measured with `herald-dev bench`:
# a closed-loop run for the most notifications/s, then an open-loop run at a fixed rate for
# latency percentiles without coordinated omission (one run per rate in a comma-separated list,
# for latency against offered load). Results go to benchmarks/results/*.json.
#
#   benchmarks/scripts/gorush-push-bench.sh [open-rates] [duration-s] [tokens-per-request] [concurrency]
#
# Needs a release build (swift build -c release --scratch-path .build-release).
# BENCH_BIN overrides the binary. The load generator, Herald and the mock share the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

rates=${1:-1000}
duration=${2:-10}
tokens=${3:-1}
concurrency=${4:-64}
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
mock_port=${BENCH_MOCK_PORT:-19443}
herald_port=${BENCH_HERALD_PORT:-18088}
results=${BENCH_RESULTS:-benchmarks/results}
[ -x "$bin" ] && [ -x "$dev_bin" ] || { echo "needs $bin and $dev_bin (swift build -c release --scratch-path .build-release)" >&2; exit 1; }
mkdir -p "$results"

# shellcheck source=benchmarks/scripts/start-node.sh
source benchmarks/scripts/start-node.sh

# Open loop: room for four times the closed loop's requests in flight, so arrivals are sent on
# schedule while the node queues them (only a generator out of connections counts as saturated).
open_cap=$((concurrency * 4))
common=(gorush-push --url "http://127.0.0.1:$herald_port" --duration "$duration" --tokens-per-request "$tokens" --concurrency "$concurrency")
echo "== closed loop, $concurrency in flight"
"$dev_bin" bench "${common[@]}" --output "$results/gorush-push-closed-t$tokens.json"
for rate in ${rates//,/ }; do
    echo "== open loop, $rate requests/s"
    "$dev_bin" bench "${common[@]}" --concurrency "$open_cap" --rate "$rate" --output "$results/gorush-push-open-r$rate-t$tokens.json"
done
