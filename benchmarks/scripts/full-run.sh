#!/usr/bin/env bash
# The fresh full run behind docs/benchmarks.md: every scenario, then the side-by-side script, then
# the report (tables printed to $results/report.md, plots written to docs/benchmarks/).
#
#   benchmarks/scripts/full-run.sh
#
# Run it on an otherwise idle machine; it takes about ten minutes. Needs a release build
# (swift build -c release --scratch-path .build-release), h2load, aioapns and
# matplotlib (pip install aioapns matplotlib). The rates below suit the 2-core development
# machine; GORUSH_RATES, STATUS_REGISTER_RATES and STATUS_PUSH_RATES override them.
set -euo pipefail
cd "$(dirname "$0")/../.."

results=${BENCH_RESULTS:-benchmarks/results}
export BENCH_RESULTS=$results
rm -rf "$results"
mkdir -p "$results"
log() { echo "== $* ($(date -u +%H:%M:%S))"; }

log "gorush-push: closed loop, then open loop at ${GORUSH_RATES:=1000,2000,3000,4000}/s"
benchmarks/scripts/gorush-push-bench.sh "$GORUSH_RATES" 10 1 64 | tee "$results/gorush-push.txt"

log "status-register: closed loop, then open loop at ${STATUS_REGISTER_RATES:=400,800}/s"
benchmarks/scripts/status-register-bench.sh 10 32 | tee "$results/status-register.txt"
for rate in ${STATUS_REGISTER_RATES//,/ }; do
    benchmarks/scripts/status-register-bench.sh 10 32 "$rate" | tee -a "$results/status-register.txt"
done

log "status-push: closed loop, then open loop at ${STATUS_PUSH_RATES:=200,400}/s"
benchmarks/scripts/status-push-bench.sh 10 32 | tee "$results/status-push.txt"
for rate in ${STATUS_PUSH_RATES//,/ }; do
    benchmarks/scripts/status-push-bench.sh 10 32 "$rate" | tee -a "$results/status-push.txt"
done

log "side by side, 50000 notifications"
benchmarks/scripts/side-by-side.sh 50000 | tee "$results/side-by-side.txt"

log "report"
python3 benchmarks/report/report.py "$results" docs/benchmarks | tee "$results/report.md"
