#!/usr/bin/env bash
# Status push requests through POST /waku/v1/messages → Herald → strict mock APNs, one node:
# `herald-dev bench status-push` registers --devices clients first, then sends push requests (one
# notification each, built before the run): ECIES open, two signature recoveries, dedup marker
# (LMDB, fsync), registration lookup and filters, a signed ECIES answer, and the APNs push after
# the answer. Results go to benchmarks/results/*.json.
#
#   benchmarks/scripts/status-push-bench.sh [duration-s] [concurrency] [open-rate] [devices]
#
# Needs a release build (swift build -c release --scratch-path .build-release).
set -euo pipefail
cd "$(dirname "$0")/../.."

duration=${1:-10}
concurrency=${2:-32}
rate=${3:-}
devices=${4:-1000}
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
common=(status-push --url "http://127.0.0.1:$herald_port" --duration "$duration" --concurrency "$concurrency" --devices "$devices")
if [ -z "$rate" ]; then
    echo "== closed loop, $concurrency in flight"
    "$dev_bin" bench "${common[@]}" --output "$results/status-push-closed.json"
else
    echo "== open loop, $rate requests/s"
    "$dev_bin" bench "${common[@]}" --concurrency "$open_cap" --rate "$rate" --output "$results/status-push-open-r$rate.json"
fi
sleep 1
curl -sf "127.0.0.1:$herald_port/metrics" | grep -E '^herald_delivery_pushes_total|^herald_status_' || true
