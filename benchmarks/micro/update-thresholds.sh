#!/bin/sh
# Regenerates Thresholds/ from a fresh release run of every benchmark, in the form that
# `swift package benchmark thresholds check` reads. Run it on an otherwise idle machine.
#
# package-benchmark 1.38.1's own `thresholds update` is not enough on its own; this script works
# around two of its bugs (see README.md, "Thresholds"):
#
# 1. `update` writes `HeraldMicro.<name>.p90.json` with spaces and slashes in <name> turned into
#    underscores, but `check` looks for the name as it is (a "/" becomes a directory). The files
#    are renamed to what `check` reads.
# 2. `update` stores the 90th percentile of the throughput samples (the fast end), while `check`
#    compares the 10th (the slow end, which it labels p90 because more throughput is better): the
#    stored throughput would fail every check by the run's own spread. Throughput per iteration is
#    exactly 1e9 / wall clock ns, so the stored value is replaced by 1e9 / the stored p90 wall
#    clock, the value `check` compares with.
set -eu
cd "$(dirname "$0")"

target=HeraldMicro

names=$(swift package benchmark list --no-progress 2>/dev/null \
    | sed -n "/^Target '$target' available benchmarks:\$/,/^\$/p" | sed '1d;/^$/d')
if [ -z "$names" ]; then
    echo "update-thresholds: no benchmarks listed for $target" >&2
    exit 1
fi

rm -rf Thresholds
swift package --allow-writing-to-package-directory benchmark thresholds update --no-progress

printf '%s\n' "$names" | while IFS= read -r name; do
    safe=$(printf '%s' "$name" | tr '/ ' '__')
    written="Thresholds/$target.$safe.p90.json"
    wanted="Thresholds/$target.$name.p90.json"
    if [ ! -f "$written" ]; then
        echo "update-thresholds: no thresholds written for '$name' ($written)" >&2
        exit 1
    fi
    wall=$(sed -n 's/.*"wallClock" : \([0-9][0-9]*\).*/\1/p' "$written")
    throughput=$(( (1000000000 + wall / 2) / wall ))
    mkdir -p "$(dirname "$wanted")"
    sed "s/\"throughput\" : [0-9][0-9]*/\"throughput\" : $throughput/" "$written" > "$written.tmp"
    rm "$written"
    mv "$written.tmp" "$wanted"
    chmod 644 "$wanted"
    echo "$wanted: wallClock p90 $wall, throughput $throughput"
done
