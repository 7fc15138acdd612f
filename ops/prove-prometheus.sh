#!/usr/bin/env bash
# ops/prove-prometheus.sh [--single | --cluster | --all]: proves the operator's kit on a real
# Prometheus (docs/observability.md). Everything listens on 127.0.0.1 and lives in a temporary
# directory that the exit trap removes with every process started here.
#
#   --single (default)  the strict mock APNs and one node with app "demo" pointed at it
#   --cluster           cluster/mock-apns and cluster/up 3 (three etcd members, three nodes) in a
#                       temporary HERALD_CLUSTER_DIR, cluster/down --purge afterwards
#   --all               both, one after the other, then checks that every dashboard query and
#                       recording rule returned data in at least one of them
#
# Each mode starts Debian's prometheus (scrape and rule evaluation every second, rule_files =
# ops/prometheus/herald-rules.yaml), drives load with `herald-dev bench gorush-push` and
# `status-register` plus a few pushes that end in dead tokens and device rate limits, then
# queries Prometheus's HTTP API for every target of every panel of ops/grafana/herald.json (its
# $job/$instance/$app resolved through the dashboard's own variable queries, as Grafana would)
# and every recording rule, and fails if one returns no series, unless it is cluster-only in
# single mode. Last it SIGKILLs a node and waits until HeraldNodeDown fires.
#
#   HERALD_BIN, HERALD_DEV_BIN  binaries (default .build/release/<name> if built, else .build/debug)
#   PROMETHEUS_BIN              default: prometheus on PATH
#   PROVE_KEEP=1                keep the temporary directory (logs, TSDB) instead of removing it
set -euo pipefail

REPO=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG=ops/prove-prometheus.sh
DASHBOARD="$REPO/ops/grafana/herald.json"
RULES="$REPO/ops/prometheus/herald-rules.yaml"

mode=single
results_out=""
while [ $# -gt 0 ]; do
    case $1 in
        --single) mode=single ;;
        --cluster) mode=cluster ;;
        --all) mode=all ;;
        --results) results_out=$2; shift ;;   # internal: where --all collects each mode's table
        *) echo "usage: $PROG [--single | --cluster | --all]" >&2; exit 2 ;;
    esac
    shift
done

die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
say() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "$mode" "$*"; }

resolve_bin() {   # NAME VARIABLE
    local given=${!2:-}
    if [ -n "$given" ]; then
        case $given in /*) echo "$given" ;; *) echo "$PWD/$given" ;; esac
    elif [ -x "$REPO/.build/release/$1" ]; then
        echo "$REPO/.build/release/$1"
    else
        echo "$REPO/.build/debug/$1"
    fi
}

# --all: each mode in its own run of this script, then the union.
if [ "$mode" = all ]; then
    all_dir=$(mktemp -d /tmp/herald-prove-all.XXXXXX)
    trap 'rm -rf "$all_dir"' EXIT
    "$0" --single --results "$all_dir/single.json"
    "$0" --cluster --results "$all_dir/cluster.json"
    python3 - "$all_dir/single.json" "$all_dir/cluster.json" <<'PY'
import json, sys
modes = {"single": json.load(open(sys.argv[1])), "cluster": json.load(open(sys.argv[2]))}
keys = list(dict.fromkeys(k for m in modes.values() for k in m))
missing = []
print("\n== coverage over both modes: series per mode (- = not run there)")
print(f"{'single':>7} {'cluster':>7}  query")
for k in keys:
    counts = [modes[m].get(k) for m in ("single", "cluster")]
    print(f"{'-' if counts[0] is None else counts[0]:>7} {'-' if counts[1] is None else counts[1]:>7}  {k}")
    if not any(c for c in counts if c):
        missing.append(k)
if missing:
    print(f"\nFAILED: {len(missing)} queries returned no data in either mode:", *missing, sep="\n  ")
    sys.exit(1)
print(f"\nOK: all {len(keys)} dashboard queries and recording rules returned data in at least one mode")
PY
    exit 0
fi

HERALD=$(resolve_bin herald HERALD_BIN)
HERALD_DEV=$(resolve_bin herald-dev HERALD_DEV_BIN)
PROMETHEUS=${PROMETHEUS_BIN:-prometheus}
[ -x "$HERALD" ] || die "$HERALD not found: build it (swift build -c release --product herald) or set HERALD_BIN"
[ -x "$HERALD_DEV" ] || die "$HERALD_DEV not found: build it (swift build -c release --product herald-dev) or set HERALD_DEV_BIN"
command -v "$PROMETHEUS" >/dev/null || die "prometheus not found (apt-get install prometheus, or set PROMETHEUS_BIN)"
command -v curl >/dev/null || die "curl is required"
python3 -c 'import yaml' 2>/dev/null || die "python3 with PyYAML is required (apt-get install python3-yaml)"

# Herald refuses HERALD_* variables it does not know (HERALD_BIN among them): start it without.
clean_env=(env -u HERALD_CLUSTER_DIR -u HERALD_BIN -u HERALD_DEV_BIN)
while IFS= read -r name; do clean_env+=(-u "$name"); done < <(compgen -e | grep '^HERALD_' || true)

work=$(mktemp -d /tmp/herald-prove.XXXXXX)
pids=()
cluster_started=0
status=1
cleanup() {
    local pid
    set +e
    if ((status != 0)); then
        say "FAILED; the end of each log in $work:"
        for log in "$work"/*.log "$work"/cluster/node*/herald.log; do
            [ -f "$log" ] || continue
            echo "--- $log"
            tail -n 8 "$log" | sed 's/^/    /'
        done
    fi
    if ((cluster_started)); then
        HERALD_CLUSTER_DIR="$work/cluster" "$REPO/cluster/down" --purge >/dev/null 2>&1 ||
            echo "$PROG: cluster/down failed; see $work/cluster" >&2
    fi
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for _ in $(seq 1 50); do
        local left=0
        for pid in "${pids[@]}"; do if kill -0 "$pid" 2>/dev/null; then left=1; fi; done
        ((left)) || break
        sleep 0.2
    done
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    wait 2>/dev/null
    if [ "${PROVE_KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_until SECONDS WHAT COMMAND…: every 0.25 s until COMMAND succeeds; dies after SECONDS.
wait_until() {
    local limit=$1 what=$2 start=$SECONDS
    shift 2
    until "$@"; do
        ((SECONDS - start < limit)) || die "gave up after ${limit}s waiting for $what"
        sleep 0.25
    done
}

http_ok() { curl -sf --max-time 2 -o /dev/null "$1"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---------------------------------------------------------------------------------------------
# Herald: one node, or a cluster of three.
extra_yaml="$work/extra.yaml"
# delivery.device-rate-limit: 30 lets the proof see device refusals (one token, 40 pushes).
if [ "$mode" = single ]; then
    mock_port=$(free_port)
    node_port=$(free_port)
    mkdir -p "$work/mock"
    say "mock APNs on 127.0.0.1:$mock_port"
    "${clean_env[@]}" "$HERALD_DEV" mock-apns --port "$mock_port" --key-out "$work/mock/key.p8" \
        --certificate-out "$work/mock/ca.pem" --key-id PROVEKEY01 --team-id PROVETEAM1 \
        >"$work/mock.log" 2>&1 </dev/null &
    pids+=($!)
    wait_until 15 "the mock APNs" eval '[ -s "$work/mock/ca.pem" ] && port_open "$mock_port"'
    "${clean_env[@]}" "$HERALD" keygen --out "$work/status.key" >/dev/null
    cat >"$work/herald.yaml" <<YAML
server:
  host: 127.0.0.1
  port: $node_port
store:
  path: $work/data
log:
  level: warning
apps:
  demo:
    apns:
      key-file: $work/mock/key.p8
      key-id: PROVEKEY01
      team-id: PROVETEAM1
      topic: im.herald.demo
      host: 127.0.0.1
      port: $mock_port
      ca-file: $work/mock/ca.pem
status:
  identity-key-file: $work/status.key
delivery:
  device-rate-limit: 30
YAML
    say "Herald node on 127.0.0.1:$node_port ($HERALD)"
    "${clean_env[@]}" "$HERALD" serve --config "$work/herald.yaml" >"$work/herald.log" 2>&1 </dev/null &
    node_pid=$!
    pids+=("$node_pid")
    wait_until 30 "the node's /healthz" http_ok "http://127.0.0.1:$node_port/healthz"
    node_urls=("http://127.0.0.1:$node_port")
else
    export HERALD_CLUSTER_DIR="$work/cluster" HERALD_BIN="$HERALD" HERALD_DEV_BIN="$HERALD_DEV"
    { cat "$REPO/cluster/examples/apps.yaml"; printf 'delivery:\n  device-rate-limit: 30\n'; } >"$extra_yaml"
    cluster_started=1
    say "cluster/mock-apns, cluster/up 3 in $HERALD_CLUSTER_DIR"
    "$REPO/cluster/mock-apns" | sed 's/^/    /'
    "$REPO/cluster/up" 3 "$extra_yaml" | sed 's/^/    /'
    # shellcheck source=/dev/null
    source "$HERALD_CLUSTER_DIR/cluster.env"
    node_urls=()
    for port in "${NODE_PORTS[@]}"; do node_urls+=("http://127.0.0.1:$port"); done
    members_all_three() {
        local url
        for url in "${node_urls[@]}"; do
            curl -s --max-time 2 "$url/metrics" | grep -q '^herald_cluster_members 3' || return 1
        done
    }
    wait_until 60 "every node to see 3 members" members_all_three
fi

# ---------------------------------------------------------------------------------------------
# Prometheus.
prom_port=$(free_port)
prom="http://127.0.0.1:$prom_port"
targets=$(printf '"%s", ' "${node_urls[@]#http://}")
cat >"$work/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $RULES
scrape_configs:
  - job_name: herald
    static_configs:
      - targets: [${targets%, }]
YAML
say "prometheus on $prom ($("$PROMETHEUS" --version 2>&1 | head -n 1))"
"$PROMETHEUS" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --storage.tsdb.retention.time=1h --web.listen-address="127.0.0.1:$prom_port" --log.level=warn \
    >"$work/prometheus.log" 2>&1 </dev/null &
pids+=($!)
wait_until 30 "prometheus to be ready" http_ok "$prom/-/ready"
targets_up() {
    [ "$(curl -s --max-time 2 "$prom/api/v1/query" --data-urlencode 'query=count(up{job="herald"} == 1)' |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')" \
        = "${#node_urls[@]}" ]
}
wait_until 30 "every target to be scraped" targets_up

# ---------------------------------------------------------------------------------------------
# Load.
say "load: herald-dev bench gorush-push on ${#node_urls[@]} node(s), status-register, dead tokens, device limit"
bench_pids=()
i=0
for url in "${node_urls[@]}"; do
    i=$((i + 1))
    # --devices large enough that no token comes twice, so only the burst below meets the limit.
    "${clean_env[@]}" "$HERALD_DEV" bench gorush-push --url "$url" --rate 150 --duration 10 --warmup 0 \
        --devices 100000 --topic im.herald.demo >"$work/bench-gorush-$i.log" 2>&1 &
    bench_pids+=($!)
done
"${clean_env[@]}" "$HERALD_DEV" bench status-register --url "${node_urls[0]}" --rate 20 --duration 3 --warmup 0 \
    --registrations 60 >"$work/bench-status.log" 2>&1 &
bench_pids+=($!)
for pid in "${bench_pids[@]}"; do wait "$pid" || die "a bench run failed (see $work/bench-*.log)"; done
for log in "$work"/bench-*.log; do
    printf '    %s: %s; %s\n' "${log##*/bench-}" "$(grep -m1 -E 'requests/s' "$log" | sed 's/^ *//')" \
        "$(grep -m1 -E 'succeeded' "$log" | sed 's/^ *//')"
done
push() {   # URL TOKENS-JSON
    curl -sf --max-time 10 -o /dev/null -X POST "$1/api/push" -H 'Content-Type: application/json' \
        -d "{\"notifications\":[{\"platform\":1,\"topic\":\"im.herald.demo\",\"message\":\"prove\",\"tokens\":$2}]}"
}
dead=$(python3 -c 'import json; print(json.dumps([f"not-a-token-{i}" for i in range(20)]))')
same=$(python3 -c 'import json; print(json.dumps(["d" * 64] * 40))')
for url in "${node_urls[@]}"; do
    push "$url" "$dead"   # the mock answers BadDeviceToken: 20 dead tokens
    push "$url" "$same"   # one token 40 times: 30 delivered, 10 refused by the device limit
done
load_end=$(date +%s)

# Every rule evaluated on data scraped after the load.
rules_fresh() {
    curl -s --max-time 2 "$prom/api/v1/rules" | python3 -c '
import datetime, json, re, sys
def seconds(stamp):   # RFC 3339 with up to 9 fractional digits; year 1 = never evaluated
    stamp = re.sub(r"(\.\d{6})\d+", r"\1", stamp).replace("Z", "+00:00")
    return datetime.datetime.fromisoformat(stamp).timestamp() if not stamp.startswith("0001") else 0
rules = [r for g in json.load(sys.stdin)["data"]["groups"] for r in g["rules"]]
sys.exit(0 if rules and all(seconds(r["lastEvaluation"]) > int(sys.argv[1]) + 2 for r in rules) else 1)' "$load_end"
}
wait_until 30 "the rules to be evaluated after the load" rules_fresh

# ---------------------------------------------------------------------------------------------
# Every panel target and recording rule.
say "querying every dashboard target and recording rule"
python3 - "$prom" "$DASHBOARD" "$RULES" "$mode" "${results_out:-}" <<'PY'
import json, re, sys, time, urllib.parse, urllib.request
import yaml

prom, dashboard_path, rules_path, mode, results_out = sys.argv[1:6]
# Panels and rules that read only what a cluster exports: exempt when the node runs alone.
CLUSTER_ONLY = re.compile(r"herald_cluster_|herald_log_transactions_total|herald_log_appended_commands_total")
# What Grafana substitutes for its built-in variables (a 15 s data source interval).
BUILTINS = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "15m"}

def api(path, **params):
    url = f"{prom}/api/v1/{path}?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url, timeout=10) as answer:
        body = json.load(answer)
    if body.get("status") != "success":
        raise RuntimeError(body)
    return body["data"]

def regex_value(values):
    # Grafana's multi-value interpolation for =~: metacharacters escaped, (a|b) for several.
    escaped = [re.sub(r"([\\^$*+?.()|{}\[\]])", r"\\\\\1", v) for v in values]
    return escaped[0] if len(escaped) == 1 else "(" + "|".join(escaped) + ")"

def substitute(expr, variables):
    for name, value in BUILTINS.items():
        expr = expr.replace(name, value)
    for name in sorted(variables, key=len, reverse=True):
        expr = expr.replace("${" + name + "}", variables[name]).replace("$" + name, variables[name])
    return expr

def one_line(expr):
    return re.sub(r"\s+", " ", expr).strip()

failures = []
rows = []            # (key, series or None, status, query)
now = time.time()

dashboard = json.load(open(dashboard_path))
variables = {}
print("\n== dashboard variables (label_values queries, as Grafana runs them)")
for var in dashboard["templating"]["list"]:
    if var["type"] == "datasource":
        continue
    query = var["query"]["query"] if isinstance(var["query"], dict) else var["query"]
    match = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", query)
    if not match:
        failures.append(f"variable {var['name']}: cannot read {query!r}")
        continue
    selector = substitute(match.group(1), variables)
    values = api(f"label/{match.group(2)}/values", **{"match[]": selector, "start": now - 900, "end": now})
    print(f"  ${var['name']:9} = {', '.join(values) or '(none)'}")
    if not values:
        failures.append(f"variable {var['name']} has no values")
        values = ["no-value"]
    variables[var["name"]] = regex_value(values)

def panels(items):
    for panel in items:
        yield panel
        yield from panels(panel.get("panels", []))

def check(key, query, exempt):
    try:
        data = api("query", query=query)
        count = len(data["result"]) if data["resultType"] in ("vector", "matrix") else 1
    except Exception as error:   # a query Prometheus refuses is a failure in any mode
        rows.append((key, None, "ERROR", query))
        failures.append(f"{key}: {error}")
        return
    status = "ok" if count else ("exempt (cluster only)" if exempt else "NO DATA")
    if not count and not exempt:
        failures.append(f"{key}: no data")
    rows.append((key, count, status, query))

for panel in panels(dashboard["panels"]):
    for target in panel.get("targets", []):
        expr = target["expr"]
        check(f"panel {panel['title']!r} {target['refId']}", one_line(substitute(expr, variables)),
              mode == "single" and bool(CLUSTER_ONLY.search(expr)))

rules = yaml.safe_load(open(rules_path))
for group in rules["groups"]:
    for rule in group["rules"]:
        if "record" not in rule:
            continue
        labels = ",".join(f'{k}="{v}"' for k, v in sorted(rule.get("labels", {}).items()))
        query = rule["record"] + (f"{{{labels}}}" if labels else "")
        check(f"rule {query}", query, mode == "single" and bool(CLUSTER_ONLY.search(rule["record"] + rule["expr"])
                                                                and "herald_ready" not in rule["record"]))

print(f"\n== {len(rows)} queries ({mode} mode): series returned")
print(f"{'series':>6}  {'status':22} what / query")
for key, count, status, query in rows:
    print(f"{'-' if count is None else count:>6}  {status:22} {key}")
    print(f"{'':30} {query}")

# Alerting rules: loaded and evaluating without errors.
print("\n== alerting rules")
for group in api("rules")["groups"]:
    for rule in group["rules"]:
        if rule["type"] != "alerting":
            continue
        print(f"  {rule['name']:32} health={rule['health']:3} state={rule['state']}")
        if rule["health"] != "ok":
            failures.append(f"alert {rule['name']}: {rule.get('lastError')}")

if results_out:
    json.dump({key: (count or 0) for key, count, status, query in rows if not status.startswith("exempt")},
              open(results_out, "w"))
if failures:
    print(f"\nFAILED ({len(failures)}):", *failures, sep="\n  ")
    sys.exit(1)
exempt = sum(1 for row in rows if row[2].startswith("exempt"))
print(f"\nOK: {len(rows) - exempt} of {len(rows)} queries returned data" +
      (f", {exempt} cluster-only exempt in single mode" if exempt else ""))
PY

# ---------------------------------------------------------------------------------------------
# Kill a node; HeraldNodeDown must fire (for: 1m).
if [ "$mode" = single ]; then
    victim=${node_urls[0]#http://}
    kill -KILL "$node_pid"
    { wait "$node_pid"; } 2>/dev/null || true   # reaped quietly, no "Killed" line
else
    victim=${node_urls[1]#http://}
    "$REPO/cluster/kill" node2 | sed 's/^/    /'
fi
killed_at=$SECONDS
say "SIGKILLed the node at $victim; waiting (at most 150 s) for HeraldNodeDown"
node_down_firing() {
    curl -s --max-time 2 "$prom/api/v1/alerts" | python3 -c '
import json, sys
for alert in json.load(sys.stdin)["data"]["alerts"]:
    labels, state = alert["labels"], alert["state"]
    if labels.get("alertname") == "HeraldNodeDown" and labels.get("instance") == sys.argv[1] and state == "firing":
        summary = alert["annotations"].get("summary", "")
        print("FIRING:", labels["alertname"], "instance=" + labels["instance"], "severity=" + labels["severity"],
              "activeAt=" + alert["activeAt"], "-", summary)
        sys.exit(0)
sys.exit(1)' "$victim"
}
wait_until 150 "HeraldNodeDown to fire" node_down_firing >/dev/null
say "$(node_down_firing) ($((SECONDS - killed_at)) s after the kill)"
status=0
say "OK"
