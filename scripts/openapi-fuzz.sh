#!/usr/bin/env bash
# Fuzzes a live Herald node against docs/openapi.yaml with schemathesis (issue 29). Never builds:
# it runs `herald` and `herald-dev` from OPENAPI_FUZZ_BIN_DIR (absolute, or relative to the
# repository; default the newer of .build/debug and .build/release).
#
# Phase 1, one node alone: the strict mock APNs and mock FCM of herald-dev, and a node on free
# 127.0.0.1 ports with every front door that can be enabled alone (gorush, the Web Push relay
# with a second relay and the FCM variant, silent sync with a second service, Aries with its
# DIDComm endpoint, Status, the Matrix push gateway with `app_id`s mapped to the APNs and the FCM
# side of one app and to an APNs-only app), its APNs apps' channel management at the mock APNs too, an API
# bearer token and a metrics token. Every operation of the spec but the internal ones is fuzzed.
# Phase 2, when etcd is installed: a one-member etcd and the same node in a cluster of one, whose
# internal API (`/internal/*`, behind the cluster secret) is fuzzed. Skipped, and said so,
# without etcd (OPENAPI_FUZZ_CLUSTER=0 skips it too).
#
# Every check of schemathesis runs, its default (not_a_server_error, status_code_conformance,
# content_type_conformance, response_headers_conformance, response_schema_conformance,
# positive_data_acceptance, negative_data_rejection, unsupported_method, ignored_auth,
# use_after_free, ...), with the per-operation allowances of scripts/openapi-fuzz.toml and
# scripts/openapi-fuzz-hooks.py, each with its reason. Bounded by OPENAPI_FUZZ_EXAMPLES examples
# an operation (default 50) and OPENAPI_FUZZ_MAX_TIME seconds a phase (default 300; schemathesis
# keeps fuzzing until it is spent). Exits non-zero when the spec is invalid or any check failed;
# prints each phase's summary.
# Reports (JUnit, NDJSON) and the node's logs are left in OPENAPI_FUZZ_OUT (default
# .fuzz/openapi/, ignored by git).
#
#   scripts/openapi-fuzz.sh            both phases
#   scripts/openapi-fuzz.sh --serve    phase 1's node only, until Ctrl-C (for curl)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

spec="$root/docs/openapi.yaml"
bin_dir=${OPENAPI_FUZZ_BIN_DIR:-}
if [[ -z $bin_dir ]]; then
    # The newer build of the two (`make build` makes debug ones).
    bin_dir=.build/debug
    [[ .build/release/herald -nt .build/debug/herald ]] && bin_dir=.build/release
fi
herald="$bin_dir/herald"
herald_dev="$bin_dir/herald-dev"
examples=${OPENAPI_FUZZ_EXAMPLES:-50}
max_time=${OPENAPI_FUZZ_MAX_TIME:-300}
out=${OPENAPI_FUZZ_OUT:-$root/.fuzz/openapi}
serve_only=0
[[ ${1:-} == --serve ]] && serve_only=1

die() { echo "openapi-fuzz: $*" >&2; exit 2; }
[[ -x $herald && -x $herald_dev ]] || die "no herald and herald-dev in $bin_dir (set OPENAPI_FUZZ_BIN_DIR; this script never builds)"
command -v st >/dev/null || die "schemathesis is not installed (pip install schemathesis)"
command -v openapi-spec-validator >/dev/null || die "openapi-spec-validator is not installed (pip install openapi-spec-validator)"
command -v curl >/dev/null || die "curl is required"

work=$(mktemp -d /tmp/herald-openapi-fuzz.XXXXXX)
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Waits up to 30 s for 127.0.0.1:$1 to take connections.
wait_for_port() {
    python3 - "$1" <<'PY' || { echo "openapi-fuzz: nothing listens on 127.0.0.1:$1 after 30 s" >&2; return 1; }
import socket, sys, time
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
PY
}

wait_for_url() {
    local url=$1 i
    for i in $(seq 300); do
        curl -fsS --max-time 1 -o /dev/null "$url" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "openapi-fuzz: $url did not answer within 30 s" >&2
    return 1
}

if ((!serve_only)); then
    echo "== spec: openapi-spec-validator docs/openapi.yaml"
    openapi-spec-validator "$spec" || exit 1
fi

mkdir -p "$out"
api_token="api-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
metrics_token="metrics-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
cluster_secret="cluster-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"

# The peers: mock APNs (both environments of the node reach it) and mock FCM.
apns_port=$(free_port)
fcm_port=$(free_port)
"$herald_dev" mock-apns --port "$apns_port" --key-out "$work/apns-key.p8" --certificate-out "$work/apns-ca.pem" \
    --key-id FUZZKEY001 --team-id FUZZTEAM01 >"$out/mock-apns.log" 2>&1 &
pids+=($!)
"$herald_dev" mock-fcm --port "$fcm_port" --service-account-out "$work/fcm-service-account.json" \
    --certificate-out "$work/fcm-ca.pem" >"$out/mock-fcm.log" 2>&1 &
pids+=($!)
wait_for_port "$apns_port" || exit 1
wait_for_port "$fcm_port" || exit 1

"$herald" keygen --out "$work/status.key" >/dev/null || exit 1
"$herald" keygen --kind didcomm --out "$work/didcomm.key" >/dev/null || exit 1

# Prints $2 when the node knows configuration key $1 (older builds lack some limits).
keys=$("$herald" config reference 2>/dev/null)
known() { [[ $keys == *"\`$1\`"* ]] && echo "$2"; }

# Writes a node's configuration: $1 the file, $2 the store directory, $3 the port; $4, when
# given, the etcd endpoint of a cluster of one.
write_config() {
    local file=$1 store=$2 port=$3 etcd=${4:-} store_key=""
    # A cluster needs the store's key ring given, the same on every node (one here).
    [[ -n $etcd ]] && store_key="  encryption-key: $(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
    cat >"$file" <<EOF
server:
  host: 127.0.0.1
  port: $port
  shutdown-timeout: 2s
store:
  path: $store
  durable: false
$store_key
log:
  level: warning
api:
  bearer-token: $api_token
metrics:
  bearer-token: $metrics_token
delivery:
  default-app: demo
apps:
  demo:
    apns:
      key-file: $work/apns-key.p8
      key-id: FUZZKEY001
      team-id: FUZZTEAM01
      topic: im.herald.fuzz
      environment: production
      host: 127.0.0.1
      port: $apns_port
      ca-file: $work/apns-ca.pem
$(known "apps.<app>.apns.channel-host" "      channel-host: 127.0.0.1")
$(known "apps.<app>.apns.channel-port" "      channel-port: $apns_port")
    fcm:
      service-account-file: $work/fcm-service-account.json
      host: localhost
      port: $fcm_port
      ca-file: $work/fcm-ca.pem
  sandbox:
    apns:
      key-file: $work/apns-key.p8
      key-id: FUZZKEY001
      team-id: FUZZTEAM01
      topic: im.herald.fuzz
      environment: sandbox
      host: 127.0.0.1
      port: $apns_port
      ca-file: $work/apns-ca.pem
$(known "apps.<app>.apns.channel-host" "      channel-host: 127.0.0.1")
$(known "apps.<app>.apns.channel-port" "      channel-port: $apns_port")
gorush:
  sync: true
status:
  identity-key-file: $work/status.key
  rate-limit: 0
webpush:
  production-app: demo
  sandbox-app: sandbox
  relays: second=demo/sandbox
  fcm-apps: demo
  rate-limit: 0
silent:
  app: demo
  sandbox-app: sandbox
  services: second=demo/sandbox
  rate-limit: 0
$(known silent.client-rate-limit "  client-rate-limit: 0")
aries:
  apns-app: demo
  fcm-app: demo
  identity-key-file: $work/didcomm.key
$(known aries.client-rate-limit "  client-rate-limit: 0")
$(known matrix.apps "matrix:
  apps: im.example.ios=demo:apns, im.example.ios.dev=sandbox, im.example.android=demo:fcm")
EOF
    if [[ -n $etcd ]]; then
        cat >>"$file" <<EOF
cluster:
  etcd-endpoints: $etcd
  node-id: fuzz-1
  secret: $cluster_secret
  lease-ttl: 2
EOF
    fi
}

# Starts a node from config $1, logging to $2; waits until /readyz answers 200 at $3.
start_node() {
    local config=$1 log=$2 url=$3
    "$herald" serve --config "$config" >"$log" 2>&1 &
    pids+=($!)
    if ! wait_for_url "$url/readyz"; then
        tail -30 "$log" >&2
        return 1
    fi
}

# Runs schemathesis: $1 the phase's name, $2 the base URL, then st's filter options.
run_schemathesis() {
    local phase=$1 url=$2
    shift 2
    echo "== schemathesis, $phase: $url ($examples examples an operation, at most $max_time s)"
    OPENAPI_FUZZ_API_TOKEN=$api_token OPENAPI_FUZZ_METRICS_TOKEN=$metrics_token OPENAPI_FUZZ_CLUSTER_SECRET=$cluster_secret \
        OPENAPI_FUZZ_HOOKS="$root/scripts/openapi-fuzz-hooks.py" OPENAPI_FUZZ_URL=$url \
        st --config-file "$root/scripts/openapi-fuzz.toml" run "$spec" \
        --url "$url" \
        `# no --checks: every check runs by default, and the per-operation settings of the toml hold` \
        --max-examples "$examples" \
        --max-time "$max_time" \
        --request-timeout 20 \
        --workers 1 \
        `# one worker: hypothesis describing strategies in threads trips CPython 3.11 ast.parse` \
        --seed "${OPENAPI_FUZZ_SEED:-29}" \
        --generation-database none \
        --suppress-health-check too_slow,filter_too_much \
        --report junit,ndjson --report-dir "$out/$phase" \
        --no-color \
        "$@"
}

status=0

# Phase 1: alone.
port=$(free_port)
url="http://127.0.0.1:$port"
write_config "$work/alone.yaml" "$work/alone-store" "$port"
# `herald config check` names a bad key better than a node that does not start (newer builds).
if "$herald" config --help 2>/dev/null | grep -qE "^ +check"; then
    "$herald" config check "$work/alone.yaml" >"$work/config-check.log" 2>&1 || { cat "$work/config-check.log" >&2; exit 1; }
fi
start_node "$work/alone.yaml" "$out/node-alone.log" "$url" || exit 1

if ((serve_only)); then
    cat <<EOF
node:            $url   (log $out/node-alone.log)
api token:       $api_token
metrics token:   $metrics_token
mock APNs:       127.0.0.1:$apns_port, mock FCM: localhost:$fcm_port
Ctrl-C stops everything.
EOF
    wait "${pids[-1]}"
    exit 0
fi

run_schemathesis alone "$url" --exclude-tag internal || status=1

# Phase 2: a cluster of one, for the internal API.
if [[ ${OPENAPI_FUZZ_CLUSTER:-1} == 0 ]]; then
    echo "== phase 2 (internal API) skipped: OPENAPI_FUZZ_CLUSTER=0"
elif ! command -v etcd >/dev/null; then
    echo "== phase 2 (internal API) skipped: etcd is not installed (apt-get install etcd-server)"
else
    etcd_client=$(free_port)
    etcd_peer=$(free_port)
    etcd --name fuzz --data-dir "$work/etcd" \
        --listen-client-urls "http://127.0.0.1:$etcd_client" --advertise-client-urls "http://127.0.0.1:$etcd_client" \
        --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
        --initial-cluster "fuzz=http://127.0.0.1:$etcd_peer" --logger=zap --log-level=error >"$out/etcd.log" 2>&1 &
    pids+=($!)
    if wait_for_url "http://127.0.0.1:$etcd_client/health"; then
        port=$(free_port)
        url="http://127.0.0.1:$port"
        write_config "$work/cluster.yaml" "$work/cluster-store" "$port" "http://127.0.0.1:$etcd_client"
        if start_node "$work/cluster.yaml" "$out/node-cluster.log" "$url"; then
            run_schemathesis cluster "$url" --include-tag internal --phases examples,coverage,fuzzing || status=1
        else
            status=1
        fi
    else
        status=1
    fi
fi

if ((status == 0)); then echo "openapi-fuzz: passed"; else echo "openapi-fuzz: FAILED (reports in $out)"; fi
exit $status
