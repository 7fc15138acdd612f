#!/usr/bin/env bash
# One run, three numbers, the same notification count to the same strict mock APNs:
#   ceiling  h2load straight to the mock (what the mock and the machine absorb),
#   peer     aioapns (benchmarks/peers/aioapns_send.py) straight to the mock,
#   Herald   h2load → POST /api/push (one token per request) → Herald → the mock,
# then Herald as a share of the ceiling and as a multiple of aioapns.
#
#   benchmarks/scripts/side-by-side.sh [notifications]
#
# Needs a release build, h2load (nghttp2-client) and `pip install aioapns`.
set -euo pipefail
cd "$(dirname "$0")/../.."

count=${1:-50000}
bin=${BENCH_BIN:-.build-release/release/herald}
dev_bin=${BENCH_DEV_BIN:-.build-release/release/herald-dev}
# Absolute, for the mocks started from the work directory (BENCH_DEV_BIN may be either).
dev_bin_path=$(realpath -m "$dev_bin")
mock_port=${BENCH_MOCK_PORT:-19443}
python3 -c "import aioapns" 2>/dev/null || { echo "needs aioapns (pip install aioapns)" >&2; exit 1; }

rate() { awk '/finished in/ { for (i = 1; i <= NF; i++) if ($i ~ /req\/s/) { v = $(i - 1); gsub(",", "", v); print v } }'; }

echo "== ceiling: h2load → mock APNs, $count requests"
ceiling_out=$(benchmarks/scripts/apns-ceiling-h2load.sh "$count" 2 100)
echo "$ceiling_out"
ceiling=$(echo "$ceiling_out" | rate)

echo "== peer: aioapns → mock APNs, $count notifications"
work=$(mktemp -d)
(cd "$work" && exec "$dev_bin_path" mock-apns --port "$mock_port" --key-out key.p8 --certificate-out ca.pem \
    --key-id BENCHKEY01 --team-id BENCHTEAM1 > mock.log 2>&1) &
mock_pid=$!
for _ in $(seq 1 100); do [ -s "$work/ca.pem" ] && break; sleep 0.1; done
peer_out=$(python3 benchmarks/peers/aioapns_send.py --port "$mock_port" --ca "$work/ca.pem" --key "$work/key.p8" \
    --key-id BENCHKEY01 --team-id BENCHTEAM1 --count "$count" || true)
kill "$mock_pid" 2>/dev/null || true
wait "$mock_pid" 2>/dev/null || true
rm -rf "$work"
echo "$peer_out"
peer=$(echo "$peer_out" | sed -n 's/.*= \([0-9.]*\)\/s.*/\1/p')

echo "== Herald: h2load → /api/push → Herald → mock APNs, $count notifications"
herald_out=$(benchmarks/scripts/gorush-push-h2load.sh "$count" 64 1)
echo "$herald_out"
herald=$(echo "$herald_out" | rate)

echo
echo "notifications/s: ceiling ${ceiling:-?}, aioapns ${peer:-?}, Herald ${herald:-?}"
if [ -n "${ceiling:-}" ] && [ -n "${herald:-}" ]; then
    awk -v h="$herald" -v c="$ceiling" 'BEGIN { printf "Herald / ceiling = %.1f %%\n", 100 * h / c }'
fi
if [ -n "${peer:-}" ] && [ -n "${herald:-}" ]; then
    awk -v h="$herald" -v p="$peer" 'BEGIN { printf "Herald / aioapns = %.2f×\n", h / p }'
fi
