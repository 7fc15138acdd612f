# Sourced by the benchmark scripts: starts `herald-dev mock-apns` and a node with one app pointed at
# it and the Status front door (a fresh `herald keygen` key), both on 127.0.0.1, in a temporary
# directory ($work) removed on exit. Expects $bin, $mock_port and $herald_port; sets $mock_pid
# and $herald_pid. $BENCH_EXTRA_YAML is appended to the node's configuration.
work=$(mktemp -d)
cleanup() {
    kill "${herald_pid:-}" "${mock_pid:-}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Absolute, for the mock started from the work directory ($dev_bin may be either).
dev_bin_path=$(realpath -m "$dev_bin")
(cd "$work" && exec "$dev_bin_path" mock-apns --port "$mock_port" --key-out key.p8 --certificate-out ca.pem --key-id BENCHKEY01 --team-id BENCHTEAM1 > mock.log 2>&1) &
mock_pid=$!
for _ in $(seq 1 100); do [ -s "$work/ca.pem" ] && break; sleep 0.1; done

"$bin" keygen --out "$work/status.key" > /dev/null
cat > "$work/herald.yaml" <<YAML
server:
  port: $herald_port
store:
  path: $work/data
log:
  level: ${BENCH_LOG_LEVEL:-warning}
apps:
  bench:
    apns:
      key-file: $work/key.p8
      key-id: BENCHKEY01
      team-id: BENCHTEAM1
      topic: im.herald.bench
      host: 127.0.0.1
      port: $mock_port
      ca-file: $work/ca.pem
status:
  identity-key-file: $work/status.key
${BENCH_EXTRA_YAML:-}
YAML
"$bin" serve --config "$work/herald.yaml" > "$work/herald.log" 2>&1 &
herald_pid=$!
for _ in $(seq 1 100); do curl -sf "127.0.0.1:$herald_port/healthz" >/dev/null && break; sleep 0.1; done
