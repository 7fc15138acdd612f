#!/usr/bin/env bash
# Builds and runs Herald's libFuzzer targets (docs/security.md, "Fuzzing"). Each target runs for
# FUZZ_SECONDS (default 60) or FUZZ_RUNS executions (default unbounded), whichever ends first,
# seeded from Fuzz/corpus/<Target>/. What it finds stays in .fuzz/<Target>/ (corpus/ for new
# inputs, artifacts/ for crashes), never in the seeds. Prints one line a target: name,
# executions, crashes, executions a second. Exits 1 when any target crashed or did not build.
#
#   scripts/fuzz.sh                 every target
#   scripts/fuzz.sh gorush FuzzWaku some of them, by target name or its part after "Fuzz"
set -uo pipefail
cd "$(dirname "$0")/.."

all=(FuzzGorush FuzzWaku FuzzECIES FuzzStatusProtobuf FuzzWebPush FuzzAries FuzzSilent FuzzProviderAnswers FuzzHTTP2)
seconds=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:--1}

targets=()
for wanted in "${@:-${all[@]}}"; do
    match=""
    for target in "${all[@]}"; do
        if [[ "${target,,}" == "${wanted,,}" || "${target,,}" == "fuzz${wanted,,}" ]]; then match=$target; fi
    done
    if [[ -z "$match" ]]; then
        echo "no fuzz target '$wanted'; the targets are: ${all[*]}" >&2
        exit 2
    fi
    targets+=("$match")
done

# One build at a time, one product a build: building every product at once would also link the
# normal executables, which cannot link with the instrumented code.
failed=0
for target in "${targets[@]}"; do
    mkdir -p ".fuzz/$target"
    if ! HERALD_FUZZ=1 swift build -c release --scratch-path .build-fuzz --product "$target" >".fuzz/$target/build.log" 2>&1; then
        echo "$target: build failed; see .fuzz/$target/build.log" >&2
        tail -n 20 ".fuzz/$target/build.log" >&2
        failed=1
    fi
done
[[ $failed == 0 ]] || exit 1

for target in "${targets[@]}"; do
    work=".fuzz/$target"
    mkdir -p "$work/corpus" "$work/artifacts"
    # Without SWIFT_BACKTRACE=enable=no, Swift's backtracer takes the crash signal first and
    # libFuzzer neither reports the trap nor writes the input.
    started=$(date +%s.%N)
    SWIFT_BACKTRACE=enable=no ".build-fuzz/release/$target" "$work/corpus" "Fuzz/corpus/$target" \
        -runs="$runs" -max_total_time="$seconds" -use_value_profile=1 -timeout=10 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/" >"$work/fuzz.log" 2>&1
    status=$?
    elapsed=$(echo "$(date +%s.%N) $started" | awk '{ print $1 - $2 }')
    executions=$(awk '/stat::number_of_executed_units/ { print $2 }' "$work/fuzz.log")
    # libFuzzer's own average rounds a run under a second down to 0.
    speed=$(echo "${executions:-0} $elapsed" | awk '{ printf "%d", ($2 > 0) ? $1 / $2 : 0 }')
    crashes=0
    if [[ $status != 0 ]]; then
        crashes=1
        failed=1
    fi
    printf '%-20s executions %10s  crashes %d  exec/s %6s\n' "$target" "${executions:-?}" "$crashes" "${speed:-?}"
    if [[ $status != 0 ]]; then
        grep -E 'Test unit written to|invariant broken|Fatal error|ERROR: libFuzzer' "$work/fuzz.log" | head -n 5 | sed 's/^/    /'
    fi
done
exit $failed
