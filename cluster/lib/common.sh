# shellcheck shell=bash
# Sourced by every script in cluster/: where the repo and the state directory are, the ports
# and pids `up` recorded, and the helpers that start, probe and stop processes. Nothing here
# listens anywhere but 127.0.0.1.

CLUSTER_HOME=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_ROOT=$(cd -P "$CLUSTER_HOME/.." && pwd)
# shellcheck disable=SC2034  # used by the scripts that source this file
HELPER="$CLUSTER_HOME/lib/helper.py"
PROG=${0##*/}

# Made absolute once, so the scripts agree on it from any working directory.
STATE_DIR=${HERALD_CLUSTER_DIR:-$CLUSTER_HOME/run}
case $STATE_DIR in
    /*) ;;
    *) STATE_DIR="$PWD/$STATE_DIR" ;;
esac
STATE_FILE="$STATE_DIR/cluster.env"

die() {
    printf '%s: %s\n' "$PROG" "$*" >&2
    exit 1
}

warn() {
    printf '%s: %s\n' "$PROG" "$*" >&2
}

# Reads what `up` recorded: NODE_COUNT, NODE_PORTS, ETCD_CLIENT_PORTS, ETCD_PEER_PORTS,
# ETCD_TOKEN, HERALD_BIN_PATH.
load_state() {
    [ -f "$STATE_FILE" ] || die "no cluster in $STATE_DIR (run cluster/up first, or set HERALD_CLUSTER_DIR)"
    # shellcheck source=/dev/null
    source "$STATE_FILE"
}

# wait_until LIMIT COMMAND…: runs COMMAND every 0.2 s until it succeeds or LIMIT seconds have
# passed; every wait in these scripts goes through here so none can hang.
wait_until() {
    local limit=$1 start=$SECONDS
    shift
    until "$@"; do
        ((SECONDS - start < limit)) || return 1
        sleep 0.2
    done
}

pid_in() {
    if [ -s "$1" ]; then cat "$1"; fi
}

# alive PID TEXT: a pid file outlives its process and the kernel reuses pids, so a pid counts
# only while it is not a zombie and its command line still contains TEXT, which names this
# cluster's own member or node.
alive() {
    local pid=$1 expect=$2 state
    [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
    [ "$state" != Z ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$expect"
}

any_alive() {
    local entry
    for entry in "$@"; do
        alive "${entry%%:*}" "${entry#*:}" && return 0
    done
    return 1
}

none_alive() {
    ! any_alive "$@"
}

# Starts "$@" in DIR, output appended to LOG, in a session of its own so that it outlives this
# script and ignores the terminal's Ctrl-C and hang-up. The inner shell writes its own pid
# before exec'ing, because setsid forks when it cannot start a session in place.
start_detached() {
    local log=$1 pidfile=$2 dir=$3
    shift 3
    rm -f "$pidfile"
    # Logs are appended across restarts; the marker shows where each run begins.
    printf '=== %s %s: %s\n' "$(date -Is)" "$PROG" "$*" >>"$log"
    # shellcheck disable=SC2016  # $$ and $@ belong to the inner shell
    (cd "$dir" && exec setsid bash -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec "$@"' "$pidfile" "$@" \
        </dev/null >>"$log" 2>&1) &
    wait_until 5 test -s "$pidfile" || die "could not start $1 (see $log)"
}

# stop_processes GRACE PID:TEXT…: SIGTERM, then SIGKILL whatever is still there after GRACE
# seconds; a whole group shares one grace period rather than one each.
stop_processes() {
    local grace=$1 entry pid expect left
    shift
    for entry in "$@"; do
        pid=${entry%%:*} expect=${entry#*:}
        if alive "$pid" "$expect"; then kill -TERM "$pid" 2>/dev/null || true; fi
    done
    wait_until "$grace" none_alive "$@" && return 0
    left=()
    for entry in "$@"; do
        pid=${entry%%:*} expect=${entry#*:}
        if alive "$pid" "$expect"; then
            kill -KILL "$pid" 2>/dev/null || true
            left+=("$pid")
        fi
    done
    warn "SIGKILLed ${left[*]} after ${grace}s"
    wait_until 5 none_alive "$@" || warn "still running after SIGKILL: ${left[*]}"
}

# http_code URL [BODY] [SECONDS]: the HTTP status of GET URL; `refused` when nothing listens,
# `timeout` when no answer came within SECONDS (default 2), `000` for other failures. BODY
# receives the body; it is emptied first, as curl leaves it alone when nothing answers.
http_code() {
    local code rc=0
    if [ -n "${2:-}" ]; then : >"$2"; fi
    code=$(curl -s -o "${2:-/dev/null}" -w '%{http_code}' --max-time "${3:-2}" "$1") || rc=$?
    case $rc in
        0) echo "$code" ;;
        7) echo refused ;;
        28) echo timeout ;;
        *) echo 000 ;;
    esac
}

# resolve_bin NAME VARIABLE: the value of VARIABLE when set (relative to the working directory,
# else to the repo root), otherwise .build/release/NAME when built, else .build/debug/NAME.
resolve_bin() {
    local name=$1 given=${!2:-}
    if [ -n "$given" ]; then
        case $given in
            /*) echo "$given" ;;
            *) if [ -e "$given" ]; then echo "$PWD/$given"; else echo "$REPO_ROOT/$given"; fi ;;
        esac
    elif [ -x "$REPO_ROOT/.build/release/$name" ]; then
        echo "$REPO_ROOT/.build/release/$name"
    else
        echo "$REPO_ROOT/.build/debug/$name"
    fi
}

python_ok() {
    command -v python3 >/dev/null || die "python3 is required"
    python3 -c 'import yaml' 2>/dev/null || die "PyYAML is required (apt-get install python3-yaml, or pip install pyyaml)"
}

etcd_bin() {
    local bin=${ETCD_BIN:-etcd}
    command -v "$bin" >/dev/null || die "etcd not found (apt-get install etcd-server etcd-client, or set ETCD_BIN)"
    command -v "$bin"
}

etcd_endpoints() {
    local port list=()
    for port in "${ETCD_CLIENT_PORTS[@]}"; do list+=("http://127.0.0.1:$port"); done
    local IFS=,
    echo "${list[*]}"
}

etcd_initial_cluster() {
    local i list=()
    for i in 1 2 3; do list+=("m$i=http://127.0.0.1:${ETCD_PEER_PORTS[i - 1]}"); done
    local IFS=,
    echo "${list[*]}"
}

etcd_gone() {
    ! etcd_alive "$1"
}

etcd_healthy() {
    local body
    body=$(curl -s --max-time 2 "http://127.0.0.1:$1/health" || true)
    [[ $body == *'"health":"true"'* ]]
}

# Member M (1-3) with --initial-cluster-state STATE: `new` for a fresh cluster, `existing` to
# rejoin after a kill. etcd ignores both once its data directory holds a member.
etcd_start() {
    local m=$1 state=$2 dir="$STATE_DIR/etcd/m$1" cport=${ETCD_CLIENT_PORTS[$1 - 1]} pport=${ETCD_PEER_PORTS[$1 - 1]}
    mkdir -p "$dir"
    start_detached "$dir/etcd.log" "$dir/etcd.pid" "$dir" "$(etcd_bin)" \
        --name "m$m" --data-dir "$dir/data" \
        --listen-client-urls "http://127.0.0.1:$cport" --advertise-client-urls "http://127.0.0.1:$cport" \
        --listen-peer-urls "http://127.0.0.1:$pport" --initial-advertise-peer-urls "http://127.0.0.1:$pport" \
        --initial-cluster "$(etcd_initial_cluster)" --initial-cluster-state "$state" \
        --initial-cluster-token "$ETCD_TOKEN" \
        --auto-compaction-mode=periodic --auto-compaction-retention=1h \
        --experimental-watch-progress-notify-interval=2s --logger=zap
}

etcd_pid() {
    pid_in "$STATE_DIR/etcd/m$1/etcd.pid"
}

etcd_match() {
    echo "--name m$1 --data-dir $STATE_DIR/etcd/m$1/data"
}

etcd_alive() {
    alive "$(etcd_pid "$1")" "$(etcd_match "$1")"
}

node_dir() {
    echo "$STATE_DIR/node$1"
}

node_pid() {
    pid_in "$(node_dir "$1")/herald.pid"
}

node_match() {
    echo "serve --config $(node_dir "$1")/herald.yaml"
}

node_alive() {
    alive "$(node_pid "$1")" "$(node_match "$1")"
}

node_gone() {
    ! node_alive "$1"
}

node_url() {
    echo "http://127.0.0.1:${NODE_PORTS[$1 - 1]}"
}

# without_herald_env COMMAND…: COMMAND without any HERALD_* variable. Herald refuses HERALD_*
# names it does not know (these scripts' own HERALD_CLUSTER_DIR and HERALD_BIN among them), and
# one it does know would beat the node's file, e.g. one HERALD_SERVER_PORT for every node; so
# each node's herald.yaml is its whole configuration. A plain function cannot cross
# start_detached's exec, so this prints nothing and runs nothing: it fills CLEAN_COMMAND.
without_herald_env() {
    local name
    CLEAN_COMMAND=(env)
    while IFS= read -r name; do
        CLEAN_COMMAND+=(-u "$name")
    done < <(compgen -e | grep '^HERALD_' || true)
    CLEAN_COMMAND+=("$@")
}

# Herald runs from the repo root so that relative paths in an extra YAML mean what they would
# for `herald serve` started there.
node_start() {
    local dir
    dir=$(node_dir "$1")
    wait_for_binary "$HERALD_BIN_PATH"
    without_herald_env "$HERALD_BIN_PATH" serve --config "$dir/herald.yaml"
    start_detached "$dir/herald.log" "$dir/herald.pid" "$REPO_ROOT" "${CLEAN_COMMAND[@]}"
}

# A rebuild replaces the binary, so a missing one gets a little time to come back.
wait_for_binary() {
    [ -x "$1" ] && return 0
    warn "waiting for $1 (being rebuilt?)"
    wait_until 60 test -x "$1" || die "$1 not found: build it (swift build -c release --product herald) or set HERALD_BIN"
}

node_port_quiet() {
    [ "$(http_code "$(node_url "$1")/healthz")" = refused ]
}

node_healthy() {
    [ "$(http_code "$(node_url "$1")/healthz")" = 200 ]
}

# Waits for /healthz on node I until DEADLINE (a $SECONDS value); fails early, with the end of
# its log, when the process dies first.
wait_node() {
    local i=$1 deadline=$2 log last
    log="$(node_dir "$i")/herald.log"
    while ! node_healthy "$i"; do
        if ! node_alive "$i"; then
            # Only this start's lines, from start_detached's marker on.
            last=$(tac "$log" | sed '/^=== /q' | tac | tail -n 15)
            warn "node$i exited during start-up; from $log:"
            printf '    %s\n' "${last//$'\n'/$'\n'    }" >&2
            if grep -q -E 'node-id|advertise-url' <<<"$last"; then
                warn "this herald does not know cluster.node-id/cluster.advertise-url yet:" \
                    "rebuild it, or run with HERALD_CLUSTER_SKIP_NODE_KEYS=1"
            fi
            return 1
        fi
        if ((SECONDS >= deadline)); then
            warn "node$i did not answer /healthz in time (see $log)"
            return 1
        fi
        sleep 0.2
    done
}

mock_pid() {
    pid_in "$STATE_DIR/mock-apns/mock.pid"
}

mock_match() {
    echo "--certificate-out $STATE_DIR/mock-apns/ca.pem"
}

mock_alive() {
    alive "$(mock_pid)" "$(mock_match)"
}

# Accepts node2, n2 or 2.
parse_node() {
    local n
    [[ ${1:-} =~ ^(node|n)?([0-9]+)$ ]] || die "usage: $PROG NODE (node1 … node$NODE_COUNT, or 1 … $NODE_COUNT)"
    n=$((10#${BASH_REMATCH[2]}))
    ((n >= 1 && n <= NODE_COUNT)) || die "no node$n: this cluster has node1 … node$NODE_COUNT"
    echo "$n"
}

# Accepts m2, etcd2 or 2.
parse_member() {
    [[ ${1:-} =~ ^(m|etcd)?([1-3])$ ]] || die "usage: $PROG M (m1, m2, m3, or 1, 2, 3)"
    echo "${BASH_REMATCH[2]}"
}
