# Sourced by the silent-broadcast scripts: strict mock APNs and FCM, a store filled with
# $devices silent registrations (every second one on FCM), and a node on 127.0.0.1 that
# broadcasts at $rate pushes a second, with $silent_extra (YAML lines of `silent:`) added.
# Leaves herald_pid, apns_pid, fcm_pid, herald_port and work set; cleans up on exit.
# HTTP2_CODEC sets the node's delivery.http2-codec (nghttp2 or nio; unset, the build's default).
silent_extra=${silent_extra:-}
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
# Absolute, for the mocks started from the work directory (BENCH_DEV_BIN may be either).
dev_bin_path=$(realpath -m "$dev_bin")
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

(cd "$work" && exec "$dev_bin_path" mock-apns --port "$apns_port" --threads 2 --key-out key.p8 --certificate-out apns-ca.pem --key-id BENCHKEY01 --team-id BENCHTEAM1 > apns.log 2>&1) &
apns_pid=$!
(cd "$work" && exec "$dev_bin_path" mock-fcm --port "$fcm_port" --project-id herald-bench --service-account-out sa.json --certificate-out fcm-ca.pem > fcm.log 2>&1) &
fcm_pid=$!
for _ in $(seq 1 100); do [ -s "$work/apns-ca.pem" ] && [ -s "$work/fcm-ca.pem" ] && break; sleep 0.1; done

echo "== filling the store with $devices silent registrations"
fill_start=$(date +%s.%N)
"$dev_bin" store fill --path "$work/data" --count "$devices" --batch 10000 --no-sync --silent-service default --app bench --fcm-every 2 | tail -1
echo "   filled in $(python3 -c "print(round($(date +%s.%N) - $fill_start, 1))") s"

codec=""
[ -n "${HTTP2_CODEC:-}" ] && codec=$'delivery:\n  http2-codec: '"$HTTP2_CODEC"
cat > "$work/herald.yaml" <<YAML
server:
  port: $herald_port
store:
  path: $work/data
log:
  level: warning
$codec
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
$silent_extra
YAML
"$bin" serve --config "$work/herald.yaml" > "$work/herald.log" 2>&1 &
herald_pid=$!
for _ in $(seq 1 300); do curl -sf "127.0.0.1:$herald_port/readyz" >/dev/null && break; sleep 0.1; done

