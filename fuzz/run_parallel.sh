#!/usr/bin/env bash
# A long fuzzing run spread over the machine's cores (libFuzzer -jobs): TARGET's seed corpus
# (tests/fuzz-corpus/TARGET plus any CORPUS dirs given) grown in OUTDIR/corpus, each job's log in
# OUTDIR, crashes as OUTDIR/crash-*. Prints the executions of every job and their total.
# Usage: fuzz/run_parallel.sh BINARY OUTDIR TOTAL_RUNS [SECONDS] [CORPUS...]
set -u
binary=${1:?usage: run_parallel.sh BINARY OUTDIR TOTAL_RUNS [SECONDS] [CORPUS...]}
out=${2:?}; total=${3:?}; seconds=${4:-500}
shift 4 2>/dev/null || shift $#
here=$(cd "$(dirname "$0")/.." && pwd)
target=$(basename "$binary")
jobs=$(nproc)
mkdir -p "$out/corpus"
cp "$here/tests/fuzz-corpus/$target"/* "$out/corpus/" 2>/dev/null
for extra in "$@"; do cp "$extra"/* "$out/corpus/" 2>/dev/null; done
dict=(); [ "$target" = fuzz_kineto ] && dict=(-dict="$here/fuzz/kineto.dict")
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
cd "$out"
# Each job stops at its share of the runs or at the time limit, whichever comes first.
"$binary" -jobs="$jobs" -workers="$jobs" -runs=$(( (total + jobs - 1) / jobs )) -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=4096 -max_len=65536 -artifact_prefix="$PWD/" -print_final_stats=1 "${dict[@]}" \
    corpus >/dev/null 2>&1
executed=0
for log in fuzz-*.log; do
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    executed=$(( executed + ${n:-0} ))
    grep -q "ERROR\|runtime error\|Timeout\|crash-\|leak-\|timeout-" "$log" && { echo "== $log"; grep -m3 "ERROR\|runtime error\|SUMMARY\|Test unit written" "$log"; }
done
crashes=$(ls crash-* leak-* timeout-* oom-* 2>/dev/null | wc -l)
echo "$target: $executed executions in $jobs jobs, $(ls corpus | wc -l) corpus units, $crashes crashes/leaks/timeouts"
[ "$crashes" -eq 0 ]
