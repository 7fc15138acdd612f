#!/usr/bin/env bash
# Web Push relay: real Web Push requests (encrypted as Mastodon sends them) -> POST
# /relay-to/production/<token> -> Herald -> strict mock APNs, all on 127.0.0.1, measured with
# `herald-dev bench webpush-relay`: a closed-loop run for the most pushes/s, then an open-loop run
# at half of it for latency percentiles. Herald's CPU per push is its utime + stime from
# /proc/PID/stat over each run, divided by the pushes relayed. Prints one summary line.
#
#   benchmarks/scripts/webpush-relay-bench.sh [duration-s] [concurrency] [encoding] [payload-bytes]
#
# Needs a release build (swift build -c release --scratch-path .build-release).
set -euo pipefail
cd "$(dirname "$0")/../.."

duration=${1:-10}
concurrency=${2:-64}
encoding=${3:-aes128gcm}
payload=${4:-400}
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
mock_port=${BENCH_MOCK_PORT:-19443}
herald_port=${BENCH_HERALD_PORT:-18088}
results=${BENCH_RESULTS:-benchmarks/results}
[ -x "$bin" ] && [ -x "$dev_bin" ] || { echo "needs $bin and $dev_bin (swift build -c release --scratch-path .build-release)" >&2; exit 1; }
mkdir -p "$results"

# Every push of the run goes to one of --devices subscriptions; the per-subscription limit is
# for abusive senders, not for a benchmark.
BENCH_EXTRA_YAML=$'webpush:\n  production-app: bench\n  rate-limit: 0'
# shellcheck source=benchmarks/scripts/start-node.sh
source benchmarks/scripts/start-node.sh

ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$herald_pid/stat"; }
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

common=(webpush-relay --url "http://127.0.0.1:$herald_port" --encoding "$encoding" --payload-size "$payload" --warmup 0)
closed="$results/webpush-relay-closed-$encoding.json"
echo "== closed loop, $concurrency in flight, $encoding, $payload-byte plaintext"
# Warm-up (connections to the mock, token signing), not measured.
"$dev_bin" bench "${common[@]}" --duration 2 --concurrency "$concurrency" > /dev/null
before=$(cpu)
"$dev_bin" bench "${common[@]}" --duration "$duration" --concurrency "$concurrency" --output "$closed"
after=$(cpu)
rate=$(field "$closed" "r['notificationsPerSecond']")
succeeded=$(field "$closed" "r['succeeded']")
cpu_closed=$(python3 -c "print(round(($after - $before) / $ticks / max($succeeded, 1) * 1e6, 1))")

half=$(python3 -c "print(max(int($rate / 2), 1))")
open="$results/webpush-relay-open-$encoding.json"
echo "== open loop, $half pushes/s (half the closed loop)"
before=$(cpu)
"$dev_bin" bench "${common[@]}" --duration "$duration" --concurrency $((concurrency * 4)) --rate "$half" --output "$open"
after=$(cpu)
succeeded_open=$(field "$open" "r['succeeded']")
cpu_open=$(python3 -c "print(round(($after - $before) / $ticks / max($succeeded_open, 1) * 1e6, 1))")
p50=$(field "$open" "round(r['latencyMilliseconds']['p50'], 2)")
p99=$(field "$open" "round(r['latencyMilliseconds']['p99'], 2)")
errors=$(field "$open" "sum(r['errors'].values())")
echo "webpush-relay $encoding: closed ${rate%.*} pushes/s (Herald ${cpu_closed} µs CPU/push); open at $half/s: p50 ${p50} ms, p99 ${p99} ms, errors $errors (Herald ${cpu_open} µs CPU/push)"
