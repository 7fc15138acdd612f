#!/usr/bin/env bash
# Churn against a running `cluster/up` (HERALD_CLUSTER_DIR): SUBJECTS Status clients re-register
# their one installation in turn through node1 until the nodes have committed WRITES registration
# writes. Every 10 s it prints the writes so far, the log keys etcd holds (the window) and the log
# head; at the first 100,000 writes and at the end (after the window has had RETENTION_WAIT
# seconds to trim) it runs cluster/defrag and prints etcd's database size per member.
#
#   benchmarks/scripts/churn-window.sh 100000 1000000 [concurrency]
#
# HERALD_DEV_BIN: the load generator (default .build-release/release/herald-dev).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=cluster/lib/common.sh
source cluster/lib/common.sh
load_state
subjects=${1:?subjects}; writes=${2:?writes}; concurrency=${3:-32}
dev_bin=${HERALD_DEV_BIN:-.build-release/release/herald-dev}
wait_after=${RETENTION_WAIT:-90}
etcd=http://127.0.0.1:${ETCD_CLIENT_PORTS[0]}
log_keys() {
    local from to
    from=$(printf 'herald/log/' | base64); to=$(printf 'herald/log0' | base64)
    curl -fsS -X POST "$etcd/v3/kv/range" -d "{\"key\":\"$from\",\"range_end\":\"$to\",\"count_only\":true}" |
        python3 -c 'import json,sys; print(json.load(sys.stdin).get("count", 0))'
}
committed() {
    local total=0 i n
    for ((i = 1; i <= NODE_COUNT; i++)); do
        n=$(curl -fsS "$(node_url "$i")/metrics" 2>/dev/null | awk '/^herald_log_appended_commands_total\{result="committed"\}/ { print int($2) }')
        total=$((total + ${n:-0}))
    done
    echo "$total"
}
head_position() { curl -fsS "$(node_url 1)/readyz" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("logHead", "?"))'; }
out=$(mktemp)
start=$(date +%s)
base=$(committed)
"$dev_bin" bench status-register --url "$(node_url 1)" --re-register-subjects "$subjects" --concurrency "$concurrency" --duration 100000 --warmup 0 > "$out" 2>&1 &
bench=$!
trap 'kill $bench 2>/dev/null || true' EXIT
checked=0; most=0
# Bounded: at most 6 hours of load.
for _ in $(seq 1 2160); do
    sleep 10
    done_writes=$(( $(committed) - base )); keys=$(log_keys)
    ((keys > most)) && most=$keys
    echo "t=$(( $(date +%s) - start ))s writes=$done_writes log-keys=$keys head=$(head_position)"
    if ((checked == 0 && done_writes >= 100000)); then
        checked=1; echo "--- after the first 100,000 writes ($done_writes):"; cluster/defrag
    fi
    ((done_writes < writes)) || break
    kill -0 $bench 2>/dev/null || { echo "the load generator stopped:"; cat "$out"; exit 1; }
done
kill $bench 2>/dev/null || true; wait $bench 2>/dev/null || true
echo "--- load stopped after $(( $(date +%s) - start ))s, $(( $(committed) - base )) writes; most log keys seen $most; waiting ${wait_after}s for the window to trim"
sleep "$wait_after"
echo "log keys now $(log_keys), head $(head_position)"
cluster/defrag
