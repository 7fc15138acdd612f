#!/usr/bin/env bash
# Herald's delivery path side by side with C, against a C HTTP/2 sink: nghttpd (Debian's
# nghttp2-server) over TLS answers 200 to POST /3/device/<token> when a file of that name exists
# under its document root, so it stands in for APNs at almost no cost of its own.
#
#   ceiling   h2load → nghttpd, 1 and 4 connections (what C to C does here)
#   peer      aioapns → nghttpd (Python's APNs client)
#   generator herald-dev bench (Herald's lean HTTP/1.1 load generator) and h2load --h1, each
#             driving Herald at 1 token a request: the generators' own CPU per request; then
#             herald-dev bench open loop at half issue 17's throughput targets (10,000 requests/s
#             at 1 token, 2,000 requests/s at 10 tokens) for the latency percentiles
#   Herald    h2load --h1 → POST /api/push → Herald → nghttpd, 1 and 10 tokens a request, to
#             APNs and to FCM (nghttpd answers FCM's send path and, for the OAuth token, the
#             service account's token_uri, from files)
#
# Each line gives notifications a second and CPU per notification of Herald and of the sink:
# utime + stime from /proc/PID/stat over the run, divided by the notifications, which moves far
# less than throughput on a shared machine. At the end a summary line, and the ratio line: Herald's
# CPU per notification divided by nghttpd's per request in the 1-connection ceiling run of the same
# sitting, with lscpu's model, since absolute figures move between machines and ratios much less.
#
#   benchmarks/scripts/c-sink-side-by-side.sh [notifications] [api-connections]
#
# Installs what it needs: nghttp2-server and nghttp2-client (apt), aioapns in .bench-venv (pip).
# Needs a release build (swift build -c release --scratch-path .build-release).
set -euo pipefail
cd "$(dirname "$0")/../.."

count=${1:-200000}
api_connections=${2:-64}
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
sink_port=${BENCH_SINK_PORT:-19500}
api_port=${BENCH_API_PORT:-19580}
[ -x "$bin" ] && [ -x "$dev_bin" ] || { echo "needs $bin and $dev_bin (swift build -c release --scratch-path .build-release)" >&2; exit 1; }
if ! command -v nghttpd >/dev/null || ! command -v h2load >/dev/null || [ ! -x /usr/bin/time ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q nghttp2-server nghttp2-client time >/dev/null
fi
if [ ! -x .bench-venv/bin/python ] || ! .bench-venv/bin/python -c "import aioapns" 2>/dev/null; then
    python3 -m venv .bench-venv
    .bench-venv/bin/pip install -q "aioapns==4.0"
fi

# "AMD EPYC" names several kinds of machine here (family 25 model 1 and model 17 differ ~2.5×
# in speed): the family, model and clock tell them apart.
model="$(lscpu | sed -n 's/^Model name: *//p' | head -1) (family $(lscpu | sed -n 's/^CPU family: *//p' | head -1), model $(lscpu | sed -n 's/^Model: *//p' | head -1), $(awk -F': ' '/^cpu MHz/ { printf "%.0f MHz", $2; exit }' /proc/cpuinfo))"
echo "machine: $model, $(nproc) CPUs; Herald $("$bin" --version 2>/dev/null || echo "$bin")"

work=$(mktemp -d)
cleanup() {
    kill "${herald_pid:-}" "${sink_pid:-}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
# What a reference-count operation and an allocation cost here (lever 1 of issue 30): Herald
# does hundreds a push where the C peers do none, so these figures say how its cost moves with
# the machine.
if gcc -O2 -o "$work/machine-probe" benchmarks/scripts/lib/machine-probe.c 2>/dev/null; then
    echo "machine probe: $("$work/machine-probe")"
fi

ticks_per_second=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# µs of CPU per notification from two tick readings.
per_notification() { awk -v a="$1" -v b="$2" -v n="$3" -v hz="$ticks_per_second" 'BEGIN { printf "%.1f", (b - a) / hz * 1e6 / n }'; }
rate() { awk '/finished in/ { for (i = 1; i <= NF; i++) if ($i ~ /req\/s/) { v = $(i - 1); gsub(",", "", v); print v } }'; }
succeeded() { awk '/^requests:/ { for (i = 1; i <= NF; i++) if ($i == "succeeded,") print $(i - 1) }'; }

# shellcheck source=benchmarks/scripts/sink-node.sh
source benchmarks/scripts/sink-node.sh
# 1,000 concurrent streams a connection, what APNs typically allows once a connection has
# authenticated (apns.md §5); nghttpd's default of 100 would queue most of the 10-token run's
# 640 pushes in Herald.
start_sink -m 1000
echo '{"aps":{"alert":"benchmark"}}' > "$work/apns.json"

run_ceiling() {
    local connections=$1
    local before after out
    before=$(cpu "$sink_pid")
    out=$(h2load -n "$count" -c "$connections" -m 100 -d "$work/apns.json" -H "apns-topic: im.herald.bench" \
        "https://127.0.0.1:$sink_port/3/device/${tokens[0]}" 2>&1)
    after=$(cpu "$sink_pid")
    echo "h2load → nghttpd, $connections connection(s): $(echo "$out" | rate) notifications/s, $(echo "$out" | succeeded) succeeded; nghttpd $(per_notification "$before" "$after" "$count") µs CPU/notification"
}
ceiling1=$(run_ceiling 1); echo "$ceiling1"
ceiling4=$(run_ceiling 4); echo "$ceiling4"

peer_count=$((count / 10))
before=$(cpu "$sink_pid")
peer_out=$(.bench-venv/bin/python benchmarks/peers/aioapns_send.py --plain-sink --port "$sink_port" --ca "$work/sink.pem" --key "$work/provider.p8" \
    --key-id BENCHKEY01 --team-id BENCHTEAM1 --count "$peer_count" --connections 4 --concurrency 400 || true)
after=$(cpu "$sink_pid")
peer_rate=$(echo "$peer_out" | sed -n 's/.*= \([0-9.]*\)\/s.*/\1/p')
echo "aioapns → nghttpd, 4 connections, 400 in flight: ${peer_rate:-?} notifications/s ($peer_out); nghttpd $(per_notification "$before" "$after" "$peer_count") µs CPU/notification"

start_sink_node

field() { echo "$1" | sed -n "s/.*: \([0-9.]*\) notifications\/s.*/\1/p"; }
herald_cpu() { echo "$1" | sed -n 's/.*Herald \([0-9.]*\) µs.*/\1/p'; }
sink_cpu() { echo "$1" | sed -n 's/.*nghttpd \([0-9.]*\) µs.*/\1/p'; }
run_herald() {
    local per_request=$1 platform=${2:-1}
    local list requests before_h after_h before_s after_s out seconds notifications
    list=$(printf '"%s",' "${tokens[@]:0:$per_request}")
    if [ "$platform" = 1 ]; then
        printf '{"notifications":[{"platform":1,"tokens":[%s],"message":"benchmark","topic":"im.herald.bench"}]}' "${list%,}" > "$work/push-$per_request.json"
    else
        printf '{"notifications":[{"platform":2,"tokens":[%s],"message":"benchmark","data":{"k":"v"}}]}' "${list%,}" > "$work/push-$per_request.json"
    fi
    requests=$((count / per_request))
    # Warm-up: connections to the sink, the provider token, the code paths.
    h2load --h1 -n 2000 -c "$api_connections" -d "$work/push-$per_request.json" -H "content-type: application/json" \
        "http://127.0.0.1:$api_port/api/push" > /dev/null 2>&1
    before_h=$(cpu "$herald_pid"); before_s=$(cpu "$sink_pid")
    out=$(h2load --h1 -n "$requests" -c "$api_connections" -d "$work/push-$per_request.json" -H "content-type: application/json" \
        "http://127.0.0.1:$api_port/api/push" 2>&1)
    after_h=$(cpu "$herald_pid"); after_s=$(cpu "$sink_pid")
    notifications=$((requests * per_request))
    local request_rate
    request_rate=$(echo "$out" | rate)
    echo "h2load --h1 → Herald → nghttpd, $([ "$platform" = 1 ] && echo APNs || echo FCM), $per_request token(s) a request: $(awk -v r="$request_rate" -v t="$per_request" 'BEGIN { printf "%.0f", r * t }') notifications/s ($request_rate requests/s, $(echo "$out" | succeeded) of $requests succeeded); Herald $(per_notification "$before_h" "$after_h" "$notifications") µs CPU/notification, nghttpd $(per_notification "$before_s" "$after_s" "$notifications") µs"
}
herald1=$(run_herald 1); echo "$herald1"
herald10=$(run_herald 10); echo "$herald10"
# A delivery that failed would be a gorush failed-push entry; the sink must have seen them all.
grep -q '"logs":\[\]' <(curl -s -d @"$work/push-1.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push") ||
    echo "warning: a push through Herald did not come back clean" >&2
# The generators' own CPU per request (user + system from /usr/bin/time), each driving Herald
# with 64 connections at 1 token a request, and Herald's while each drives it.
seconds_of() { awk '/^cpu / { print $2 + $3 }' "$1"; }
requests=$count
/usr/bin/time -f 'cpu %U %S' -o "$work/h2load.time" h2load --h1 -n "$requests" -c 64 -d "$work/push-1.json" -H "content-type: application/json" \
    "http://127.0.0.1:$api_port/api/push" > "$work/h2load.out" 2>&1
h2load_us=$(awk -v s="$(seconds_of "$work/h2load.time")" -v n="$requests" 'BEGIN { printf "%.1f", s * 1e6 / n }')
before_h=$(cpu "$herald_pid")
/usr/bin/time -f 'cpu %U %S' -o "$work/bench.time" "$dev_bin" bench gorush-push --url "http://127.0.0.1:$api_port" --concurrency 64 \
    --duration 8 --warmup 0 --devices 10 --topic im.herald.bench > "$work/bench.out" 2>&1
after_h=$(cpu "$herald_pid")
bench_requests=$(awk '/requests in/ { print $(NF-4) }' "$work/bench.out")
bench_rate=$(awk '/requests\/s,/ { print $1 }' "$work/bench.out")
# Without a warm-up the process's CPU is the run's (and its start, a few milliseconds).
bench_us=$(awk -v s="$(seconds_of "$work/bench.time")" -v n="$bench_requests" 'BEGIN { printf "%.1f", s * 1e6 / n }')
generator="generators, 64 connections, 1 token a request: h2load $h2load_us µs CPU/request; herald-dev bench $bench_us µs CPU/request ($bench_rate requests/s, Herald $(per_notification "$before_h" "$after_h" "$bench_requests") µs)"
echo "$generator"
open_loop() {
    local rate=$1 per_request=$2
    "$dev_bin" bench gorush-push --url "http://127.0.0.1:$api_port" --concurrency 256 --rate "$rate" --duration 10 --warmup 1 --devices 10 \
        --tokens-per-request "$per_request" --topic im.herald.bench > "$work/open-$per_request.out" 2>&1
    echo "herald-dev bench open loop, $rate requests/s of $per_request token(s): $(grep -o 'p50.*' "$work/open-$per_request.out" | head -1); $(grep -o 'succeeded.*' "$work/open-$per_request.out")"
}
open_loop 10000 1
open_loop 2000 10
fcm1=$(run_herald 1 2); echo "$fcm1"
fcm10=$(run_herald 10 2); echo "$fcm10"
grep -q '"logs":\[\]' <(curl -s -d @"$work/push-10.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push") ||
    echo "warning: an FCM push through Herald did not come back clean" >&2

echo "summary: ceiling $(field "$ceiling1")/$(field "$ceiling4")/s (nghttpd $(sink_cpu "$ceiling1") µs); aioapns ${peer_rate:-?}/s;" \
    "Herald 1 token $(field "$herald1")/s at $(herald_cpu "$herald1") µs (nghttpd $(sink_cpu "$herald1") µs);" \
    "10 tokens $(field "$herald10")/s at $(herald_cpu "$herald10") µs (nghttpd $(sink_cpu "$herald10") µs);" \
    "FCM 1 token $(field "$fcm1")/s at $(herald_cpu "$fcm1") µs, 10 tokens $(field "$fcm10")/s at $(herald_cpu "$fcm10") µs;" \
    "generators h2load $h2load_us µs, herald-dev bench $bench_us µs a request;" \
    "p99 $(grep -o 'p99 [0-9.]*' "$work/open-1.out" | head -1 | cut -d' ' -f2) ms at 10,000/s of 1 token, $(grep -o 'p99 [0-9.]*' "$work/open-10.out" | head -1 | cut -d' ' -f2) ms at 2,000/s of 10"
ratio() { awk -v h="$1" -v c="$2" 'BEGIN { if (c > 0) printf "%.1f", h / c; else print "?" }'; }
ceiling_us=$(sink_cpu "$ceiling1")
echo "ratio to nghttpd's ceiling CPU per request ($ceiling_us µs; lscpu: $model; delivery.http2-codec: ${HTTP2_CODEC:-default}): APNs 1 token $(ratio "$(herald_cpu "$herald1")" "$ceiling_us")×," \
    "10 tokens $(ratio "$(herald_cpu "$herald10")" "$ceiling_us")×; FCM 1 token $(ratio "$(herald_cpu "$fcm1")" "$ceiling_us")×," \
    "10 tokens $(ratio "$(herald_cpu "$fcm10")" "$ceiling_us")× (goals: 10 tokens ≤ 5×, 1 token ≤ 10×)"
