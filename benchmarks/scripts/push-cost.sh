#!/usr/bin/env bash
# Herald's CPU per request for one kind of request at a time, for A/B comparisons of two builds
# (run them alternately: BENCH_BIN=/tmp/herald-a …, BENCH_BIN=/tmp/herald-b …, and again).
# A fresh node delivers to nghttpd (TLS, one file per device token); h2load --h1 drives it with
# 64 connections; each row gives requests/s and the CPU per request of Herald and of the sink
# (utime + stime from /proc/PID/stat over the run).
#
#   MODES="get none one ten" benchmarks/scripts/push-cost.sh [requests]
#
#   get     GET /healthz: Hummingbird's floor
#   nginx   C's HTTP/1 floor: nginx (2 workers, no logs) answering the same empty POST and a GET
#           with a fixed body, its CPU per request summed over its processes
#   none    POST /api/push with an empty list: the floor of a gorush request
#   one     POST /api/push, 1 token; ten: 10 tokens (CPU per request: divide by 10); fcmten:
#           10 FCM tokens
#   lat     closed loops of 4 and 16 connections with h2load's per-request log: p50/p90/p99
#   perf    perf record -g of Herald during a 1-token run (perf.data in $BENCH_PERF_DIR;
#           PERF_BODY=ten for 10 tokens; PERF_CALL_GRAPH=dwarf for whole stacks through code
#           built without frame pointers, PERF_SECONDS for a shorter record; PERF_EVENT, e.g.
#           probe_libswiftCore:swift_allocObject after a counts run, records every PERF_PERIOD-th
#           call of that probe instead of a clock: where allocations come from)
#   counts  runtime calls per request (perf uprobes: the Swift concurrency runtime's task
#           switches, global enqueues, jobs run and task allocations; object allocations,
#           retains and releases; libc's malloc) for COUNT_BODY (get, none, one or ten; one by
#           default). The probes stay until `perf probe -d 'probe_libswift*:*' -d 'probe_libc:*'`.
#   gentime herald-dev bench gorush-push against the node: the generator's CPU per request
#   open    herald-dev bench open loop at $RATE requests/s ($GEN_ARGS are added)
#
# SINK_ARGS are nghttpd's (e.g. "-m 1000" for APNs' usual stream limit). Herald's own settings
# come from its environment: HERALD_GORUSH_SYNC=false for async mode (then BENCH_SETTLE=2 lets
# the pushes queued at the end go out before the CPU is read), HERALD_DELIVERY_JOURNAL=false to
# keep its queue in memory only.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
perf_dir=${BENCH_PERF_DIR:-.}
count=${1:-100000}
work=$(mktemp -d)
sink_port=${BENCH_SINK_PORT:-19501}; api_port=${BENCH_API_PORT:-19581}
cleanup() { kill "${herald_pid:-}" "${sink_pid:-}" $(cat "$work/nginx.pid" 2>/dev/null) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
hz=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
per() { awk -v a="$1" -v b="$2" -v n="$3" -v hz="$hz" 'BEGIN { printf "%.1f", (b - a) / hz * 1e6 / n }'; }
# shellcheck source=benchmarks/scripts/sink-node.sh
source benchmarks/scripts/sink-node.sh
# shellcheck disable=SC2086 # nghttpd's options, split as given
start_sink ${SINK_ARGS:-}
start_sink_node
token=${tokens[0]}
list=$(printf '"%s",' "${tokens[@]}")
printf '{"notifications":[{"platform":1,"tokens":["%s"],"message":"benchmark","topic":"im.herald.bench"}]}' "$token" > "$work/one.json"
printf '{"notifications":[]}' > "$work/none.json"
printf '{"notifications":[{"platform":1,"tokens":[%s],"message":"benchmark","topic":"im.herald.bench"}]}' "${list%,}" > "$work/ten.json"
printf '{"notifications":[{"platform":2,"tokens":[%s],"message":"benchmark","data":{"k":"v"}}]}' "${list%,}" > "$work/fcmten.json"
row() { # name method-args...
  local name=$1; shift
  h2load --h1 -n 2000 -c 64 "$@" >/dev/null 2>&1
  local b=$(cpu $herald_pid) bs=$(cpu $sink_pid)
  local out=$(h2load --h1 -n "$count" -c 64 "$@" 2>&1)
  sleep "${BENCH_SETTLE:-0}"
  local a=$(cpu $herald_pid) as=$(cpu $sink_pid)
  echo "$name: $(echo "$out" | grep -o '[0-9.,]* req/s') herald $(per $b $a $count) µs/req sink $(per $bs $as $count)"
}
# nginx's CPU: the master's and its workers'.
nginx_cpu() { local t=0; for p in $(pgrep -f "nginx: .*$work/nginx.conf" ; pgrep -P "$(cat "$work/nginx.pid" 2>/dev/null || echo 0)"); do t=$((t + $(cpu "$p"))); done; echo $t; }
nginx_row() { # name h2load-args...
  local name=$1; shift
  h2load --h1 -n 2000 -c 64 "$@" >/dev/null 2>&1
  local b=$(nginx_cpu)
  local out=$(h2load --h1 -n "$count" -c 64 "$@" 2>&1)
  local a=$(nginx_cpu)
  echo "$name: $(echo "$out" | grep -o '[0-9.,]* req/s') nginx $(per $b $a $count) µs/req"
}
for m in ${MODES:-get none one}; do
case $m in
nginx)
  command -v nginx >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light >/dev/null
  nginx_port=${BENCH_NGINX_PORT:-19599}
  mkdir -p "$work/nginx-temp"
  cat > "$work/nginx.conf" <<NGINX
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $work/nginx-temp/body;
    proxy_temp_path $work/nginx-temp/proxy;
    fastcgi_temp_path $work/nginx-temp/fastcgi;
    uwsgi_temp_path $work/nginx-temp/uwsgi;
    scgi_temp_path $work/nginx-temp/scgi;
    server {
        listen 127.0.0.1:$nginx_port;
        location = /api/push { default_type application/json; return 200 '{"counts":0,"logs":[],"success":"ok"}'; }
        location = /healthz { return 200 'ok'; }
    }
}
NGINX
  nginx -c "$work/nginx.conf" -p "$work" 2>/dev/null
  for _ in $(seq 1 50); do [ -s "$work/nginx.pid" ] && break; sleep 0.1; done
  nginx_row "nginx GET /healthz" "http://127.0.0.1:$nginx_port/healthz"
  nginx_row "nginx POST empty" -d "$work/none.json" -H "content-type: application/json" "http://127.0.0.1:$nginx_port/api/push"
  kill "$(cat "$work/nginx.pid")" 2>/dev/null || true;;
get) row "GET /healthz" "http://127.0.0.1:$api_port/healthz";;
stat) row "GET /api/stat/app" "http://127.0.0.1:$api_port/api/stat/app";;
none) row "POST empty" -d "$work/none.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push";;
ten) row "POST 10 tokens (per request)" -d "$work/ten.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push";;
fcmten) row "POST 10 FCM tokens (per request)" -d "$work/fcmten.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push";;
one) row "POST 1 token" -d "$work/one.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push";;
lat) for c in ${LAT_CONNS:-4 16}; do h2load --h1 -n 2000 -c $c -d "$work/one.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push" >/dev/null 2>&1; out=$(h2load --h1 -n 40000 -c $c --log-file=$work/lat.log -d "$work/one.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push" 2>&1); echo "lat c=$c $(echo "$out" | grep -o '[0-9.,]* req/s') $(sort -n -k3 $work/lat.log | awk '{a[NR]=$3} END {printf "p50 %d p90 %d p99 %d max %d us", a[int(NR*0.5)], a[int(NR*0.9)], a[int(NR*0.99)], a[NR]}')"; done;;
gentime) /usr/bin/time -f 'cpu %U %S' -o $work/gen.time "$dev_bin" bench gorush-push --url "http://127.0.0.1:$api_port" --concurrency 64 --duration 8 --warmup 0 --devices 10 --topic im.herald.bench ${GEN_ARGS:-} > $work/gen.out 2>&1; n=$(awk '/requests in/ { print $(NF-4) }' $work/gen.out); awk -v n=$n '/^cpu/ { printf "generator %d requests, %.1f us CPU/request\n", n, ($2+$3)*1e6/n }' $work/gen.time;;
h2time) /usr/bin/time -f 'cpu %U %S %e' -o $work/h.time h2load --h1 -n $count -c 64 -d "$work/one.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push" > $work/h.out 2>&1; grep -E "finished in" $work/h.out; cat $work/h.time;;
open) "$dev_bin" bench gorush-push --url "http://127.0.0.1:$api_port" --concurrency ${CONC:-256} --rate ${RATE:-10000} --duration 10 --warmup 1 --devices 10 --topic im.herald.bench ${GEN_ARGS:-} 2>&1 | tail -4;;
counts)
  lib=$(ldd "$bin" | awk '/libswift_Concurrency/ { print $3 }')
  core=$(ldd "$bin" | awk '/libswiftCore/ { print $3 }')
  libc=$(ldd "$bin" | awk '/libc.so/ { print $3 }')
  [ -n "$lib" ] && [ -n "$core" ] || { echo "counts: $bin does not link libswift_Concurrency.so and libswiftCore.so (a static build?)" >&2; exit 1; }
  probes=$(perf probe -l 2>/dev/null || true)
  for f in "$lib swift_task_switch" "$lib swift_task_enqueueGlobal" "$lib swift_job_run" "$lib swift_job_run_on_task_executor" "$lib swift_task_alloc" \
      "$core swift_allocObject" "$core swift_retain" "$core swift_release" "$libc malloc"; do
    set -- $f
    case $probes in *":$2 "*) ;; *) perf probe -q -x "$1" -a "$2" >/dev/null 2>&1 || true;; esac
  done
  events=$( (perf probe -l 2>/dev/null || true) | awk '/probe_(libswift_Concurrency|libswiftCore|libc):(swift_|malloc)/ { print $1 }' | paste -sd, -)
  [ -n "$events" ] || { echo "counts: no uprobes on $lib (needs root and perf probe)" >&2; exit 1; }
  case ${COUNT_BODY:-one} in
    get) args=("http://127.0.0.1:$api_port/healthz");;
    *) args=(-d "$work/${COUNT_BODY:-one}.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push");;
  esac
  h2load --h1 -n 2000 -c 64 "${args[@]}" >/dev/null 2>&1
  perf stat -x, -e "$events" -p "$herald_pid" -o "$work/stat.txt" & stat_pid=$!
  sleep 0.5
  h2load --h1 -n "$count" -c 64 "${args[@]}" >/dev/null 2>&1
  sleep 0.3
  kill -INT "$stat_pid" 2>/dev/null || true; wait "$stat_pid" || true
  echo "runtime calls per request (${COUNT_BODY:-one}):"
  awk -F, -v n="$count" '/probe_/ { sub(/.*:/, "", $3); printf "  %-34s %.2f\n", $3, $1 / n }' "$work/stat.txt";;
perf) (h2load --h1 -n $((count*3)) -c 64 -d "$work/${PERF_BODY:-one}.json" -H "content-type: application/json" "http://127.0.0.1:$api_port/api/push" >/dev/null 2>&1 &) ; sleep 2; if [ -n "${PERF_EVENT:-}" ]; then sampling=(-e "$PERF_EVENT" -c "${PERF_PERIOD:-50}"); else sampling=(-F 999); fi; perf record "${sampling[@]}" --call-graph "${PERF_CALL_GRAPH:-fp}" -o "$perf_dir/perf.data" -p $herald_pid -- sleep "${PERF_SECONDS:-8}" 2>/dev/null >/dev/null; sleep 5;;
esac
done
