# Sourced by the benchmark scripts that deliver to a C sink instead of the strict mock:
# start_sink makes nghttpd (Debian's nghttp2-server, TLS) answer APNs' `POST /3/device/<token>`
# for 11 tokens (0 to 10; $tokens holds 1 to 10), FCM's send path and the service account's
# token_uri from files, and start_sink_node starts a node whose app `bench` delivers to it
# through APNs and FCM. Expects $work, $bin, $sink_port and $api_port; sets $sink_pid and
# $herald_pid. Arguments to start_sink are nghttpd's (`-m 1000`: APNs' usual stream limit).
# HTTP2_CODEC sets the node's delivery.http2-codec (nghttp2 or nio; unset, the build's default).

start_sink() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/sink.key" -out "$work/sink.pem" \
        -days 2 -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
    openssl ecparam -genkey -name prime256v1 2>/dev/null | openssl pkcs8 -topk8 -nocrypt > "$work/provider.p8"
    mkdir -p "$work/htdocs/3/device"
    tokens=()
    # Token 0 too: herald-dev bench --devices 10 sends tokens 0 to 9.
    : > "$work/htdocs/3/device/$(printf '%064x' 0)"
    local i token
    for i in $(seq 1 10); do
        token=$(printf '%064x' "$i")
        tokens+=("$token")
        : > "$work/htdocs/3/device/$token"
    done
    # FCM: the send path answers 200 with a message name; the token endpoint (AsyncHTTPClient,
    # HTTP/2 over TLS) answers an access token to the service account's assertion.
    mkdir -p "$work/htdocs/v1/projects/bench"
    echo '{"name":"projects/bench/messages/0:1"}' > "$work/htdocs/v1/projects/bench/messages:send"
    echo '{"access_token":"ya29.bench","expires_in":3600,"token_type":"Bearer"}' > "$work/htdocs/token"
    openssl genrsa 2048 2>/dev/null | openssl pkcs8 -topk8 -nocrypt > "$work/fcm.key"
    python3 - "$work/fcm.key" "$sink_port" > "$work/service-account.json" <<'PY'
import json, sys
print(json.dumps({"type": "service_account", "project_id": "bench", "private_key_id": "bench1",
    "private_key": open(sys.argv[1]).read(), "client_email": "bench@bench.iam.gserviceaccount.com",
    "token_uri": "https://127.0.0.1:%s/token" % sys.argv[2]}))
PY
    nghttpd "$@" -d "$work/htdocs" "$sink_port" "$work/sink.key" "$work/sink.pem" > "$work/sink.log" 2>&1 &
    sink_pid=$!
    sleep 0.5
}

start_sink_node() {
    # Unset, the key is left out, so builds from before it existed start too.
    local codec=""
    [ -n "${HTTP2_CODEC:-}" ] && codec=$'delivery:\n  http2-codec: '"$HTTP2_CODEC"
    cat > "$work/herald.yaml" <<YAML
server:
  host: 127.0.0.1
  port: $api_port
store:
  path: $work/data
log:
  level: warning
$codec
apps:
  bench:
    apns:
      key-file: $work/provider.p8
      key-id: BENCHKEY01
      team-id: BENCHTEAM1
      topic: im.herald.bench
      host: 127.0.0.1
      port: $sink_port
      ca-file: $work/sink.pem
    fcm:
      service-account-file: $work/service-account.json
      host: 127.0.0.1
      port: $sink_port
      ca-file: $work/sink.pem
YAML
    "$bin" serve --config "$work/herald.yaml" > "$work/herald.log" 2>&1 &
    herald_pid=$!
    local _
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$api_port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
}
