#!/usr/bin/env bash
# A silent-sync broadcast to N registered devices (default 1,000,000; every second one on FCM),
# Herald -> strict mock APNs and strict mock FCM, all on 127.0.0.1. The store is filled with
# `herald-dev store fill --silent-service` before the node starts; the node is asked for a
# broadcast (`POST /silent/v1/broadcasts`) and polled until it is done. Prints the wall time,
# pushes/s and Herald's CPU per push (utime + stime from /proc/PID/stat over the broadcast).
#
#   benchmarks/scripts/silent-broadcast-bench.sh [devices] [broadcast-rate]
#
# Needs a release build (swift build -c release --scratch-path .build-release).
set -euo pipefail
cd "$(dirname "$0")/../.."

devices=${1:-1000000}
rate=${2:-1000000}
# shellcheck source=lib/silent-node.sh
source benchmarks/scripts/lib/silent-node.sh

ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/${1:-$herald_pid}/stat"; }
before=$(cpu)
apns_before=$(cpu "$apns_pid")
fcm_before=$(cpu "$fcm_pid")
start=$(date +%s.%N)
location=$(curl -sf -D - -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"service":"default"}' "127.0.0.1:$herald_port/silent/v1/broadcasts" | tr -d '\r' | awk 'tolower($1) == "location:" {print $2}')
[ -n "$location" ] || { echo "the broadcast did not start" >&2; tail -20 "$work/herald.log" >&2; exit 1; }
state=""
for _ in $(seq 1 6000); do
    state=$(curl -sf "127.0.0.1:$herald_port$location")
    echo "$state" | grep -q '"status":"running"' || break
    sleep 0.1
done
end=$(date +%s.%N)
after=$(cpu)
apns_after=$(cpu "$apns_pid")
fcm_after=$(cpu "$fcm_pid")
echo "$state"
python3 - "$state" "$start" "$end" "$before" "$after" "$ticks" "$apns_before" "$apns_after" "$fcm_before" "$fcm_after" <<'PY'
import json, sys
state = json.loads(sys.argv[1])
start, end, before, after, ticks, apns_before, apns_after, fcm_before, fcm_after = map(float, sys.argv[2:11])
seconds = end - start
pushes = state["delivered"] + state["failed"] + state["dead_tokens"]
cpu_us = (after - before) / ticks / max(pushes, 1) * 1e6
print(f"silent broadcast: {state['visited']} devices, {state['delivered']} delivered, {state['failed']} failed in {seconds:.1f} s "
      f"= {pushes / seconds:,.0f} pushes/s; Herald {cpu_us:.1f} µs CPU/push; "
      f"mock APNs {(apns_after - apns_before) / ticks:.1f} s CPU, mock FCM {(fcm_after - fcm_before) / ticks:.1f} s CPU")
PY
