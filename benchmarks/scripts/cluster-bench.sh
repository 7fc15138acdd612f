#!/usr/bin/env bash
# Registrations and gorush pushes through node1 of a local cluster (cluster/up: three etcd
# members, N nodes, the strict mock APNs), for each node count given (default 1 2 3), and the
# same against a node alone for comparison. Reports throughput and latency from `herald-dev
# bench` and CPU per request: utime + stime of every Herald node over the run (no warm-up, so
# the window is the run's), divided by the requests that succeeded.
#
#   benchmarks/scripts/cluster-bench.sh [NODES...]
#
# Needs a release build (swift build -c release --scratch-path .build-release).
set -euo pipefail
cd "$(dirname "$0")/../.."

duration=${BENCH_DURATION:-10}
export HERALD_BIN=${HERALD_BIN:-$PWD/.build-release/release/herald}
export HERALD_DEV_BIN=${HERALD_DEV_BIN:-$PWD/.build-release/release/herald-dev}
export HERALD_CLUSTER_DIR=${HERALD_CLUSTER_DIR:-/tmp/herald-cluster-bench}
results=${BENCH_RESULTS:-benchmarks/results}
[ -x "$HERALD_BIN" ] && [ -x "$HERALD_DEV_BIN" ] || { echo "needs $HERALD_BIN and $HERALD_DEV_BIN" >&2; exit 1; }
mkdir -p "$results"
ticks=$(getconf CLK_TCK)

# Sum of utime + stime, in clock ticks, of the processes whose pid files match the pattern.
cpu_of() {
    local total=0 pidfile pid
    for pidfile in $1; do
        pid=$(cat "$pidfile" 2>/dev/null) || continue
        [ -r "/proc/$pid/stat" ] || continue
        total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
    done
    echo "$total"
}

# metric NAME JSON: a field of the bench's JSON output.
metric() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }

run() {
    local label=$1 scenario=$2 output=$3
    shift 3
    local nodes_before etcd_before nodes_after etcd_after
    nodes_before=$(cpu_of "$HERALD_CLUSTER_DIR/node*/herald.pid")
    etcd_before=$(cpu_of "$HERALD_CLUSTER_DIR/etcd/m*/etcd.pid")
    "$HERALD_DEV_BIN" bench "$scenario" --url http://127.0.0.1:8081 --duration "$duration" --warmup 0 "$@" --output "$output" >/dev/null
    nodes_after=$(cpu_of "$HERALD_CLUSTER_DIR/node*/herald.pid")
    etcd_after=$(cpu_of "$HERALD_CLUSTER_DIR/etcd/m*/etcd.pid")
    python3 - "$output" "$label" $((nodes_after - nodes_before)) $((etcd_after - etcd_before)) "$ticks" <<'PY'
import json, sys
path, label, nodes, etcd, ticks = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
r = json.load(open(path))
l = r["latencyMilliseconds"]
n = r["succeeded"] or float("nan")
errors = sum(r["errors"].values())
print(f"{label:28s} {r['requestsPerSecond']:8.0f} req/s  p50 {l['p50']:.1f} ms  p99 {l['p99']:.1f} ms  errors {errors}  "
      f"CPU per request: nodes {nodes * 1000.0 / ticks / n:.3f} ms, etcd {etcd * 1000.0 / ticks / n:.3f} ms")
PY
}

for nodes in "${@:-1 2 3}"; do
    cluster/down >/dev/null 2>&1 || true
    rm -rf "$HERALD_CLUSTER_DIR"
    cluster/mock-apns >/dev/null
    cluster/up "$nodes" examples/apps.yaml >/dev/null
    for port in $(seq 8081 $((8080 + nodes))); do
        for _ in $(seq 100); do curl -sf "127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
    done
    run "register, $nodes node(s)" status-register "$results/cluster-register-n$nodes.json" --concurrency 32 --registrations $(((duration + 2) * 4000))
    run "gorush push, $nodes node(s)" gorush-push "$results/cluster-push-n$nodes.json" --concurrency 64 --topic im.herald.demo
    cluster/down >/dev/null 2>&1 || true
done
