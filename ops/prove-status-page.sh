#!/usr/bin/env bash
# ops/prove-status-page.sh [--cluster] [--screenshot FILE]
#
# Loads the status page (`GET /`) of a running node in headless Chromium (Debian's `chromium`),
# checks that the DOM the page's script rendered shows what the node's `GET /status` reports, and
# saves a screenshot. Alone: the strict mock APNs and one node on 127.0.0.1 (no operations port,
# so the page is on the API port), with pushes from `herald-dev bench` and two that fail. With
# --cluster: cluster/mock-apns and cluster/up 3 in a temporary state directory, pushes through
# node1, the page of node2 (its operations port when cluster/up gives one).
#
#   HERALD_BIN, HERALD_DEV_BIN   binaries (default .build/release/…, else .build/debug/…)
#   CHROMIUM                     the browser (default: chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

cluster=false
screenshot=""
while [ $# -gt 0 ]; do
    case "$1" in
        --cluster) cluster=true ;;
        --screenshot) screenshot="$2"; shift ;;
        *) echo "usage: $0 [--cluster] [--screenshot FILE]" >&2; exit 64 ;;
    esac
    shift
done

pick() {
    for candidate in "$@"; do [ -x "$candidate" ] && { echo "$candidate"; return; }; done
    echo "prove-status-page: none of $* is built (swift build --product herald / herald-dev)" >&2
    exit 1
}
herald=${HERALD_BIN:-$(pick .build/release/herald .build/debug/herald)}
dev=${HERALD_DEV_BIN:-$(pick .build/release/herald-dev .build/debug/herald-dev)}
chromium=${CHROMIUM:-chromium}
command -v "$chromium" >/dev/null || { echo "prove-status-page: $chromium is missing (apt-get install chromium)" >&2; exit 1; }
herald=$(readlink -f "$herald")
dev=$(readlink -f "$dev")

work=$(mktemp -d /tmp/herald-status-page.XXXXXX)
pids=()
cleanup() {
    status=$?
    if [ $status -ne 0 ]; then
        for log in "$work"/*.log; do [ -s "$log" ] && { echo "--- $log" >&2; tail -n 15 "$log" >&2; }; done
    fi
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    if $cluster; then HERALD_CLUSTER_DIR="$work/cluster" cluster/down >/dev/null 2>&1 || true; fi
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() {  # URL SECONDS
    local deadline=$((SECONDS + $2))
    until curl -fsS -o /dev/null "$1" 2>/dev/null; do
        [ $SECONDS -lt $deadline ] || { echo "prove-status-page: $1 did not answer in $2 s" >&2; return 1; }
        sleep 0.2
    done
}
gorush() {  # BASE TOKEN
    curl -sS -o /dev/null -w '%{http_code}' -X POST "$1/api/push" -H 'content-type: application/json' \
        -d "{\"notifications\":[{\"platform\":1,\"tokens\":[\"$2\"],\"message\":\"status page\",\"topic\":\"im.herald.demo\"}]}"
}

if $cluster; then
    export HERALD_CLUSTER_DIR="$work/cluster" HERALD_BIN="$herald" HERALD_DEV_BIN="$dev"
    cluster/mock-apns "$(free_port)" >"$work/mock.out"
    cluster/up 3 examples/apps.yaml >"$work/up.out"
    # The page of node2, which also takes the pushes: a node shows the deliveries it made.
    # Registrations go through node1, so every node's log and view move.
    api_url() {
        python3 -c 'import sys, yaml; c = yaml.safe_load(open(sys.argv[1])); print("http://127.0.0.1:%d" % c["server"]["port"])' \
            "$HERALD_CLUSTER_DIR/$1/herald.yaml"
    }
    register_url=$(api_url node1)
    push_url=$(api_url node2)
    page_url=$(python3 - "$HERALD_CLUSTER_DIR" <<'EOF'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1] + "/node2/herald.yaml"))
server = c.get("server", {})
print("http://127.0.0.1:%d" % server.get("operations-port", server["port"]))
EOF
)
else
    port=$(free_port)
    mock_port=$(free_port)
    (cd "$work" && exec "$dev" mock-apns --port "$mock_port" --key-out "$work/key.p8" --certificate-out "$work/ca.pem" \
        --key-id STATUSK001 --team-id STATUST001) >"$work/mock.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do [ -s "$work/ca.pem" ] && break; sleep 0.1; done
    cat >"$work/herald.yaml" <<EOF
server:
  host: 127.0.0.1
  port: $port
store:
  path: $work/data
apps:
  demo:
    apns:
      key-file: $work/key.p8
      key-id: STATUSK001
      team-id: STATUST001
      topic: im.herald.demo
      host: 127.0.0.1
      port: $mock_port
      ca-file: $work/ca.pem
EOF
    # herald refuses HERALD_* variables it does not know, such as this script's own.
    env -u HERALD_BIN -u HERALD_DEV_BIN "$herald" serve --config "$work/herald.yaml" >"$work/herald.log" 2>&1 &
    pids+=($!)
    push_url="http://127.0.0.1:$port"
    page_url="$push_url"
fi
wait_http "$push_url/healthz" 60
wait_http "$page_url/healthz" 60

# Pushes that deliver, then two the strict mock refuses (a token that is not 64 hex digits is
# BadDeviceToken), so the page has a last failure to show.
"$dev" bench gorush-push --url "$push_url" --rate 200 --duration 4 --warmup 1 --topic im.herald.demo >"$work/bench.out"
sed -n '/requests/p;/throughput/p' "$work/bench.out" | head -3
echo "refused pushes: $(gorush "$push_url" zz) $(gorush "$push_url" 00)"
if $cluster; then
    "$dev" bench status-register --url "$register_url" --rate 20 --duration 2 --warmup 0 --registrations 40 >"$work/register.out"
    sed -n '/requests in/p' "$work/register.out"
fi
sleep 1

profile="$work/chromium"
browse() { "$chromium" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$profile" --virtual-time-budget=6000 "$@" 2>>"$work/chromium.log"; }
browse --dump-dom "$page_url/" >"$work/dom.html"
curl -fsS "$page_url/status" >"$work/status.json"

python3 - "$work/dom.html" "$work/status.json" <<'EOF'
import json, sys
from html.parser import HTMLParser

class Fields(HTMLParser):
    """Text of every element with data-field, and the rows of the providers and members tables."""
    def __init__(self):
        super().__init__()
        self.stack, self.fields, self.rows, self.row = [], {}, [], None
        self.loaded = False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body" and a.get("data-loaded") == "true": self.loaded = True
        if tag == "tr" and ("data-app" in a or "data-member" in a):
            self.row = dict(a); self.rows.append(self.row)
        if tag in ("br", "meta", "link", "img", "input"): return
        self.stack.append((tag, a.get("data-field")))
        if a.get("data-field"):
            self.fields.setdefault(a["data-field"], "")
    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag: break
        if tag == "tr": self.row = None
    def handle_data(self, data):
        for _, name in self.stack:
            if name:
                self.fields[name] = self.fields.get(name, "") + data
                if self.row is not None: self.row[name] = self.row.get(name, "") + data

dom = Fields(); dom.feed(open(sys.argv[1]).read())
status = json.load(open(sys.argv[2]))
checks = []
def check(what, shown, expected):
    checks.append((what, str(shown).strip(), str(expected), str(shown).strip() == str(expected)))

check("the page rendered from /status", dom.loaded, True)
check("node", dom.fields.get("node"), status["node"])
check("mode", dom.fields.get("mode"), status["mode"])
check("version", dom.fields.get("version"), status["version"])
check("commit", dom.fields.get("commit"), status["commit"])
check("health", dom.fields.get("health"), status["health"])
check("readiness", dom.fields.get("readiness"), status["readiness"]["status"])
check("accepted queue", dom.fields.get("queue-accepted"), status["queue"]["accepted"])
check("in flight", dom.fields.get("queue-inflight"), status["queue"]["inFlight"])
check("log head", dom.fields.get("log-head"), status["readiness"]["logHead"])
rows = {(r.get("data-app"), r.get("data-provider")): r for r in dom.rows if "data-app" in r}
for app in status["apps"]:
    for p in app["providers"]:
        row = rows.get((app["id"], p["name"]), {})
        check(f"{app['id']}/{p['name']} endpoint", row.get("endpoint"), p["endpoint"])
        check(f"{app['id']}/{p['name']} connections", row.get("connections"), p["connections"])
        check(f"{app['id']}/{p['name']} connect failures", row.get("connect-failures"), p["connectFailures"])
        failure = p.get("lastFailure")
        check(f"{app['id']}/{p['name']} last failure shown", failure is not None and failure["result"] in row.get("last-failure", ""), True)
delivered = sum(m["delivered"] for m in status["pushes"]["minutes"])
check("pushes delivered in the window (> 0)", delivered > 0, True)
if status.get("cluster"):
    c = status["cluster"]
    check("cluster members", dom.fields.get("cluster-members"), len(c["members"]))
    check("cluster partitions", dom.fields.get("cluster-partitions"), c["partitions"])
    check("partitions here", dom.fields.get("cluster-owned"), c["ownedHere"])
    check("etcd", dom.fields.get("cluster-etcd"), c["etcd"])
    members = {r.get("data-member"): r for r in dom.rows if "data-member" in r}
    for m in c["members"]:
        check(f"member {m['id']} partitions", members.get(m["id"], {}).get("partitions"), m["partitions"])
width = max(len(c[0]) for c in checks)
for what, shown, expected, ok in checks:
    print(f"  {'ok  ' if ok else 'FAIL'} {what.ljust(width)}  page: {shown!r:<28} /status: {expected!r}")
failed = [c for c in checks if not c[3]]
print(f"prove-status-page: {len(checks) - len(failed)} of {len(checks)} checks hold")
sys.exit(1 if failed else 0)
EOF

if [ -n "$screenshot" ]; then
    mkdir -p "$(dirname "$screenshot")"
    browse --window-size=1280,1250 --screenshot="$(readlink -f "$(dirname "$screenshot")")/$(basename "$screenshot")" "$page_url/" >/dev/null
    echo "prove-status-page: screenshot $screenshot"
fi
