#!/usr/bin/env bash
# Measures POST /api/push -> Herald -> strict mock APNs, all on 127.0.0.1, with h2load (HTTP/1.1
# to Herald; Herald speaks HTTP/2 over TLS to the mock). A first probe until `herald-dev bench`
# exists: h2load reports throughput and mean/max request time, not percentiles.
#
#   benchmarks/scripts/gorush-push-h2load.sh [requests] [clients] [tokens-per-request]
#
# Needs a release build (swift build -c release --scratch-path .build-release)
# and h2load (Debian nghttp2-client). BENCH_BIN overrides the binary.
set -euo pipefail
cd "$(dirname "$0")/../.."

requests=${1:-20000}
clients=${2:-64}
tokens=${3:-1}
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
mock_port=${BENCH_MOCK_PORT:-19443}
herald_port=${BENCH_HERALD_PORT:-18088}
command -v h2load >/dev/null || { echo "needs h2load (apt-get install nghttp2-client)" >&2; exit 1; }
[ -x "$bin" ] && [ -x "$dev_bin" ] || { echo "needs $bin and $dev_bin (swift build -c release --scratch-path .build-release)" >&2; exit 1; }

# shellcheck source=benchmarks/scripts/start-node.sh
source benchmarks/scripts/start-node.sh

token_list=$(for i in $(seq 1 "$tokens"); do
    printf '"%064x"' "$i"
    if [ "$i" -lt "$tokens" ]; then printf ','; fi
done)
printf '{"notifications":[{"tokens":[%s],"platform":1,"message":"benchmark","topic":"im.herald.bench"}]}' "$token_list" > "$work/body.json"

# Warm up connections and the provider token, then measure.
h2load --h1 -n 200 -c 4 -d "$work/body.json" -H 'content-type: application/json' "http://127.0.0.1:$herald_port/api/push" > /dev/null
echo "h2load: $requests requests, $clients clients, $tokens token(s) per request"
h2load --h1 -n "$requests" -c "$clients" -d "$work/body.json" -H 'content-type: application/json' \
    "http://127.0.0.1:$herald_port/api/push" | grep -E "finished in|requests:|status codes|time for request"
curl -s "127.0.0.1:$herald_port/api/stat/app"; echo
