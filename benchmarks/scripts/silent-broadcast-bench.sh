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
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
apns_port=${BENCH_MOCK_PORT:-19443}
fcm_port=${BENCH_FCM_PORT:-19444}
herald_port=${BENCH_HERALD_PORT:-18088}
[ -x "$bin" ] && [ -x "$dev_bin" ] || { echo "needs $bin and $dev_bin (swift build -c release --scratch-path .build-release)" >&2; exit 1; }

work=$(mktemp -d)
cleanup() {
    kill "${herald_pid:-}" "${apns_pid:-}" "${fcm_pid:-}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

(cd "$work" && exec "$OLDPWD/$dev_bin" mock-apns --port "$apns_port" --threads 2 --key-out key.p8 --certificate-out apns-ca.pem --key-id BENCHKEY01 --team-id BENCHTEAM1 > apns.log 2>&1) &
apns_pid=$!
(cd "$work" && exec "$OLDPWD/$dev_bin" mock-fcm --port "$fcm_port" --project-id herald-bench --service-account-out sa.json --certificate-out fcm-ca.pem > fcm.log 2>&1) &
fcm_pid=$!
for _ in $(seq 1 100); do [ -s "$work/apns-ca.pem" ] && [ -s "$work/fcm-ca.pem" ] && break; sleep 0.1; done

echo "== filling the store with $devices silent registrations"
fill_start=$(date +%s.%N)
"$dev_bin" store fill --path "$work/data" --count "$devices" --batch 10000 --no-sync --silent-service default --app bench --fcm-every 2 | tail -1
echo "   filled in $(python3 -c "print(round($(date +%s.%N) - $fill_start, 1))") s"

cat > "$work/herald.yaml" <<YAML
server:
  port: $herald_port
store:
  path: $work/data
log:
  level: warning
apps:
  bench:
    apns:
      key-file: $work/key.p8
      key-id: BENCHKEY01
      team-id: BENCHTEAM1
      topic: im.herald.bench
      host: 127.0.0.1
      port: $apns_port
      ca-file: $work/apns-ca.pem
    fcm:
      service-account-file: $work/sa.json
      host: 127.0.0.1
      port: $fcm_port
      ca-file: $work/fcm-ca.pem
silent:
  app: bench
  rate-limit: 0
  broadcast-rate: $rate
YAML
"$bin" serve --config "$work/herald.yaml" > "$work/herald.log" 2>&1 &
herald_pid=$!
for _ in $(seq 1 300); do curl -sf "127.0.0.1:$herald_port/readyz" >/dev/null && break; sleep 0.1; done

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
