#!/usr/bin/env bash
# `--jobs N` analyses the devices on N threads, each with its own connection to the trace, and
# merges them in device order: every output is byte for byte that of one thread (issue 35 Must 1).
# Checked on the multi-device goldens (two ranks of DDP, recorded and merged) and on an 8-device
# trace merged from goldens of different shapes (collectives, streams, copies), with N = 1, 2 and
# 8: report as text, JSON and Markdown, report --rank 0, check, render (PNG) and export --chrome.
# Also the option's own errors: out of range, not a number, given twice.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
data="${OVERLAPSCOPE_TEST_DATA:-$(cd "$(dirname "$0")" && pwd)/../data}"
bad() { echo "FAILED: $*"; fail=$((fail+1)); }

"$os" merge "$data"/gpu-h200x2/ddp.db "$data"/gpu/ddp.db "$data"/gpu-h200x2/ddp_skew.db \
    "$data"/gpu/many_streams_8.db "$data"/gpu-h200x2/copy_pageable.db -o "$dir/eight.db" >/dev/null 2>&1 ||
    bad "merging the 8-device trace"
devices=$("$os" report --json "$dir/eight.db" 2>/dev/null |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["devices"]))')
[ "$devices" = 8 ] || bad "the merged trace has ${devices:-no} devices, not 8"

# outputs TRACE JOBS OUT: every output of TRACE analysed with --jobs JOBS, into folder OUT.
outputs() {
    local trace=$1 jobs=$2 out=$3
    mkdir -p "$out"
    "$os" report --jobs "$jobs" "$trace" >"$out/report.txt" 2>&1; echo $? >>"$out/status"
    "$os" report --jobs "$jobs" --json "$trace" >"$out/report.json" 2>&1; echo $? >>"$out/status"
    "$os" report --jobs "$jobs" --markdown "$trace" >"$out/report.md" 2>&1; echo $? >>"$out/status"
    "$os" report --jobs "$jobs" --json --rank 0 "$trace" >"$out/rank0.json" 2>&1; echo $? >>"$out/status"
    "$os" check --jobs "$jobs" --json --max idle_ms=1 --max exposed_comm_skew_ms=1 "$trace" >"$out/check.json" 2>&1
    echo $? >>"$out/status"
    "$os" render --jobs "$jobs" "$trace" -o "$out/picture.png" --force >/dev/null 2>&1; echo $? >>"$out/status"
    "$os" export --jobs "$jobs" "$trace" --chrome "$out/chrome.json" --force >/dev/null 2>&1; echo $? >>"$out/status"
}

traces=("$data"/gpu/ddp*.db "$data"/gpu-h200x2/ddp*.db "$data"/gpu/torch_ddp_spawn.db)
# shellcheck source=../common/sample.sh
. "$(dirname "$0")/../common/sample.sh"
sample_traces
traces=("$dir/eight.db" "${traces[@]}")
for trace in "${traces[@]}"; do
    [ -f "$trace" ] || continue
    name=${trace#"$data"/}
    outputs "$trace" 1 "$dir/one"
    [ "$(head -1 "$dir/one/status")" = 0 ] || bad "$name: report failed: $(head -3 "$dir/one/report.txt")"
    for jobs in 2 8; do
        outputs "$trace" "$jobs" "$dir/many"
        if diff -r "$dir/one" "$dir/many" >"$dir/diff"; then
            pass=$((pass+1))
        else
            bad "$name: --jobs $jobs differs from --jobs 1: $(head -5 "$dir/diff")"
        fi
        rm -rf "$dir/many"
    done
    rm -rf "$dir/one"
done

# OVERLAPSCOPE_TIMING=1 says each phase's time on stderr (docs/scale.md), the workers' phases marked
# parallel, and leaves the report as it is.
"$os" report --jobs 2 "$dir/eight.db" >"$dir/plain.txt" 2>/dev/null
OVERLAPSCOPE_TIMING=1 "$os" report --jobs 2 "$dir/eight.db" >"$dir/timed.txt" 2>"$dir/timing"
if cmp -s "$dir/plain.txt" "$dir/timed.txt" &&
    grep -qE '^timing \(jobs 2\): devices: walks and merge +[0-9.]+ +[0-9.]+ +[0-9.]+  \(parallel\)$' "$dir/timing" &&
    grep -qE '^timing \(jobs 2\): output ' "$dir/timing" &&
    grep -qE '^timing \(jobs 2\): serial: the run.s thread.s CPU [0-9.]+ s of [0-9.]+ s in all \([0-9.]+%\)$' "$dir/timing"; then
    pass=$((pass+1))
else
    bad "OVERLAPSCOPE_TIMING=1: $(head -20 "$dir/timing")"
fi
OVERLAPSCOPE_TIMING=1 "$os" report --jobs 1 "$dir/eight.db" >/dev/null 2>"$dir/timing"
if grep -qE '^timing \(jobs 1\): steps ' "$dir/timing" && ! grep -q parallel "$dir/timing"; then
    pass=$((pass+1))
else
    bad "OVERLAPSCOPE_TIMING=1 --jobs 1: $(head -20 "$dir/timing")"
fi

expect_usage() { # ARGS... : exit 2 and the message given in $message
    "$os" "$@" >"$dir/out" 2>"$dir/err"; status=$?
    if [ "$status" = 2 ] && grep -qF "$message" "$dir/err"; then pass=$((pass+1)); else
        bad "$*: status $status, said: $(cat "$dir/err")"; fi
}
message="report: --jobs wants a number of devices analysed at once, 1 to 1024, not '0'"
expect_usage report --jobs 0 "$dir/eight.db"
message="render: --jobs wants a number of devices analysed at once, 1 to 1024, not '1025'"
expect_usage render --jobs 1025 "$dir/eight.db" -o "$dir/x.png"
message="export: --jobs wants a number of devices analysed at once, 1 to 1024, not 'two'"
expect_usage export --jobs two "$dir/eight.db" --chrome "$dir/x.json"
message="diff: --jobs given twice: give it once"
expect_usage diff --jobs 2 --jobs 2 "$dir/eight.db" "$dir/eight.db"

echo "analysis --jobs: $pass passed, $fail failed"
[ "$fail" = 0 ]
