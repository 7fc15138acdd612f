#!/usr/bin/env bash
# The ceiling: h2load sending APNs requests straight to the strict mock APNs (TLS, HTTP/2, the
# same validation Herald's requests get), with no Herald in between. What this machine and the
# mock can absorb; Herald's /api/push numbers are reported as a share of it.
#
#   benchmarks/scripts/apns-ceiling-h2load.sh [requests] [connections] [streams-per-connection]
#
# Needs a release build and h2load (Debian nghttp2-client).
set -euo pipefail
cd "$(dirname "$0")/../.."

requests=${1:-100000}
connections=${2:-2}
streams=${3:-100}
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
# Absolute, for the mocks started from the work directory (BENCH_DEV_BIN may be either).
dev_bin_path=$(realpath -m "$dev_bin")
mock_port=${BENCH_MOCK_PORT:-19443}
command -v h2load >/dev/null || { echo "needs h2load (apt-get install nghttp2-client)" >&2; exit 1; }
[ -x "$bin" ] && [ -x "$dev_bin" ] || { echo "needs $bin and $dev_bin (swift build -c release --scratch-path .build-release)" >&2; exit 1; }

work=$(mktemp -d)
cleanup() {
    kill "${mock_pid:-}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

(cd "$work" && exec "$dev_bin_path" mock-apns --port "$mock_port" --key-out key.p8 --certificate-out ca.pem \
    --key-id BENCHKEY01 --team-id BENCHTEAM1 --token-out token.jwt > mock.log 2>&1) &
mock_pid=$!
for _ in $(seq 1 100); do [ -s "$work/token.jwt" ] && break; sleep 0.1; done

# The same payload /api/push builds for gorush-push-bench.sh's default request.
printf '{"aps":{"alert":"benchmark"}}' > "$work/payload.json"
echo "h2load: $requests requests, $connections connections, $streams streams each"
h2load -n "$requests" -c "$connections" -m "$streams" -d "$work/payload.json" \
    -H "authorization: bearer $(cat "$work/token.jwt")" -H "apns-topic: im.herald.bench" \
    -H "apns-push-type: alert" -H "content-type: application/json" \
    "https://127.0.0.1:$mock_port/3/device/$(printf '%064x' 1)" | grep -E "finished in|requests:|status codes|time for request"
