#!/usr/bin/env bash
# Many broadcasts asked for at once (issue 28): N devices registered, REQUESTS concurrent
# `POST /silent/v1/broadcasts`; prints how many were taken (202) and refused (429), the node's
# RSS before, at its peak while they run (sampled every 0.2 s) and after the last one ends, and
# whether /healthz kept answering.
#
#   benchmarks/scripts/silent-broadcast-flood.sh [devices] [requests] [broadcast-rate]
#
# silent_extra: YAML lines added under `silent:` (e.g. "  max-running-broadcasts-per-service: 1000").
# BENCH_BIN / BENCH_DEV_BIN: the binaries (a release build by default).
set -euo pipefail
cd "$(dirname "$0")/../.."

devices=${1:-10000}
requests=${2:-200}
rate=${3:-20000}
# shellcheck source=lib/silent-node.sh
source benchmarks/scripts/lib/silent-node.sh

rss() { awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$herald_pid/status"; }
running() { curl -sf "127.0.0.1:$herald_port/metrics" | awk '/^herald_silent_broadcasts_running / {print int($2)}'; }
before=$(rss)
peak=$before
seq 1 "$requests" | xargs -P "$requests" -I{} curl -s -o /dev/null -w '%{http_code}\n' -X POST \
    "127.0.0.1:$herald_port/silent/v1/broadcasts" > "$work/codes" &
posts=$!
slow=0; probes=0
# Bounded: at most 10 minutes.
for _ in $(seq 1 3000); do
    r=$(rss); ((r > peak)) && peak=$r
    if ((probes % 5 == 0)); then
        curl -sf -m 1 "127.0.0.1:$herald_port/healthz" >/dev/null || slow=$((slow + 1))
    fi
    probes=$((probes + 1))
    if ! kill -0 $posts 2>/dev/null && [ "$(running)" = 0 ]; then break; fi
    sleep 0.2
done
wait $posts || true
sleep 1
after=$(rss)
echo "broadcasts asked: $requests; answers: $(sort "$work/codes" | uniq -c | awk '{printf "%s×%s ", $1, $2}')"
echo "RSS MB: before $before, peak $peak, after the last ended $after; /healthz over 1 s or failed: $slow of $(((probes + 4) / 5))"
