#!/bin/sh
# Regenerates Thresholds/ from fresh release runs of every benchmark, in the form that
# `swift package benchmark thresholds check` reads. Run it on an otherwise idle machine; it takes
# RUNS (default 3) full runs, about 3 minutes each.
#
# Each stored value is the largest p90 of the RUNS runs: on a shared VM the same code's p90 moves
# between a fast and a slow regime, and a threshold at the slow end lets `check` fail only on a
# real slowdown (beyond the tolerance in HeraldMicro.swift) instead of on the regime.
#
# package-benchmark 1.38.1's own `thresholds update` cannot be used alone; this script works
# around two of its bugs (see README.md, "Thresholds"):
#
# 1. `update` writes `HeraldMicro.<name>.p90.json` with spaces and slashes in <name> turned into
#    underscores, but `check` looks for the name as it is (a "/" becomes a directory). The files
#    are stored under the names `check` reads.
# 2. `update` stores the 90th percentile of the throughput samples (the fast end), while `check`
#    compares the 10th (the slow end, which it labels p90 because more throughput is better): the
#    stored throughput would fail every check by the run's own spread. Throughput per iteration is
#    exactly 1e9 / wall clock ns, so the stored throughput is 1e9 / the stored p90 wall clock,
#    the value `check` compares with.
set -eu
cd "$(dirname "$0")"

target=HeraldMicro
runs=${RUNS:-3}

names=$(swift package benchmark list --no-progress 2>/dev/null \
    | sed -n "/^Target '$target' available benchmarks:\$/,/^\$/p" | sed '1d;/^$/d')
if [ -z "$names" ]; then
    echo "update-thresholds: no benchmarks listed for $target" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run=1
while [ "$run" -le "$runs" ]; do
    echo "update-thresholds: run $run of $runs"
    rm -rf Thresholds
    swift package --allow-writing-to-package-directory benchmark thresholds update --no-progress
    mv Thresholds "$work/$run"
    run=$((run + 1))
done

mkdir Thresholds
printf '%s\n' "$names" | while IFS= read -r name; do
    safe=$(printf '%s' "$name" | tr '/ ' '__')
    file="$target.$safe.p90.json"
    for written in "$work"/*/"$file"; do
        if [ ! -f "$written" ]; then
            echo "update-thresholds: no thresholds written for '$name' ($file)" >&2
            exit 1
        fi
    done
    # The largest value of each metric over the runs (lines `  "metric" : value,`).
    largest=$(cat "$work"/*/"$file" \
        | sed -n 's/^ *"\([A-Za-z]*\)" : \([0-9][0-9]*\).*/\1 \2/p' \
        | awk '{ if (!($1 in max) || $2 > max[$1]) max[$1] = $2 } END { for (m in max) print m, max[m] }')
    wall=$(printf '%s\n' "$largest" | awk '$1 == "wallClock" { print $2 }')
    throughput=$(( (1000000000 + wall / 2) / wall ))
    wanted="Thresholds/$target.$name.p90.json"
    mkdir -p "$(dirname "$wanted")"
    # The same layout as package-benchmark writes: sorted keys, two-space indent.
    printf '%s\n' "$largest" | LC_ALL=C sort | awk -v throughput="$throughput" '
        { line[NR] = sprintf("  \"%s\" : %s", $1, ($1 == "throughput" ? throughput : $2)) }
        END { print "{"; for (i = 1; i <= NR; i++) print line[i] (i < NR ? "," : ""); print "}" }
    ' > "$wanted"
    echo "$wanted: wallClock p90 $wall, throughput $throughput"
done
