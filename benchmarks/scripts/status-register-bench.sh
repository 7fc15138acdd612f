#!/usr/bin/env bash
# Status registrations through POST /waku/v1/messages, one node, full crypto on the server
# (ECIES open, Waku and AMM signature recovery, ECDH + AES-GCM, grant recovery, LMDB command
# log append and view apply, signed and ECIES-encrypted answer). Every registration comes from a
# different client key and is built before the run. Results go to benchmarks/results/*.json.
# Herald's CPU per registration is its utime + stime (/proc/PID/stat) over the generator's run
# and warm-up, divided by the registrations it stored.
#
#   benchmarks/scripts/status-register-bench.sh [duration-s] [concurrency] [open-rate]
#
# Needs a release build (swift build -c release --scratch-path .build-release).
set -euo pipefail
cd "$(dirname "$0")/../.."

duration=${1:-10}
concurrency=${2:-32}
rate=${3:-}
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
mock_port=${BENCH_MOCK_PORT:-19443}
herald_port=${BENCH_HERALD_PORT:-18088}
results=${BENCH_RESULTS:-benchmarks/results}
[ -x "$bin" ] && [ -x "$dev_bin" ] || { echo "needs $bin and $dev_bin (swift build -c release --scratch-path .build-release)" >&2; exit 1; }
mkdir -p "$results"

# shellcheck source=benchmarks/scripts/start-node.sh
source benchmarks/scripts/start-node.sh

# Enough distinct registrations for the warm-up and the run at up to 6,000/s.
count=$(( (duration + 2) * 6000 ))
# Open loop: room for four times the closed loop's requests in flight, so arrivals are sent on
# schedule while the node queues them (only a generator out of connections counts as saturated).
open_cap=$((concurrency * 4))
cpu() { awk '{ print $14 + $15 }' "/proc/$herald_pid/stat"; }
ticks=$(getconf CLK_TCK)
cpu_before=$(cpu)
common=(status-register --url "http://127.0.0.1:$herald_port" --duration "$duration" --concurrency "$concurrency" --registrations "$count")
if [ -z "$rate" ]; then
    echo "== closed loop, $concurrency in flight"
    "$dev_bin" bench "${common[@]}" --output "$results/status-register-closed.json"
else
    echo "== open loop, $rate registrations/s"
    "$dev_bin" bench "${common[@]}" --concurrency "$open_cap" --rate "$rate" --output "$results/status-register-open-r$rate.json"
fi
# awk reads to the end: an early exit would fail curl (and the script) with a broken pipe.
records=$(curl -sf "127.0.0.1:$herald_port/metrics" | awk '/^herald_registry_records/ { value = $2 } END { print value }')
cpu_after=$(cpu)
echo "registrations stored by the node: ${records:-unknown}"
if [ -n "${records:-}" ] && awk -v r="$records" 'BEGIN { exit !(r > 0) }'; then
    awk -v t="$((cpu_after - cpu_before))" -v hz="$ticks" -v r="$records" \
        'BEGIN { printf "Herald CPU: %.2f s, %.0f µs a registration\n", t / hz, t / hz * 1e6 / r }'
fi
