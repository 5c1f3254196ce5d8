#!/usr/bin/env bash
# Pictures and reports of the golden traces (recorded on the H200s) agree on what they cover.
#
# One window road (issue 14): the same --window/--range/--step/--rank/--device flags give the
# picture the window `report --json` reports, and the picture's title the report's communication
# figure, on traces recorded on the H200s. Before, render drew the host NVTX range (ddp_saturate
# "allreduce bucket 1" rank 0: 168.5-207.4 ms, titled 25.3%) where report measured GPU time (97.4%),
# took --step N as the N-th range, and refused --window 0:2000000.
set -u
data=${OVERLAPSCOPE_TEST_DATA:?}/gpu
os=${OVERLAPSCOPE:?}
if [ ! -d "$data" ]; then echo "skipped: no $data"; exit 77; fi
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT

drawn() { # trace render-flags...: "START END" (ns after the first GPU activity), then the title lines
    local trace=$1; shift
    "$os" render --verbose --force -o "$dir/p.png" "$@" "$data/$trace.db" 2>"$dir/err" |
        sed -n 's/^window: \([0-9]*\) ns to \([0-9]*\) ns.*/\1 \2/p; s/^title: //p'
}
expect() { # what condition
    if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi
}
gpu_times() { # trace sql: the query's answer, in ns after the first GPU activity
    python3 - "$data/$1.db" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
origin = min(v for (v,) in db.execute("SELECT MIN(start_ns) FROM kernels UNION ALL SELECT MIN(start_ns) FROM memcpys"
                                      " UNION ALL SELECT MIN(start_ns) FROM memsets") if v is not None)
print(*[v - origin for v in db.execute(sys.argv[2]).fetchone()])
PY
}

same() { # trace flags...: the picture's window and figure are the report's (render also gets $ALL)
    local trace=$1; shift
    local expected actual
    expected=$("$os" report --json "$@" "$data/$trace.db" 2>"$dir/err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["summary"]
figure = "communication overlapped %.1f%%" % (100 * s["comm_overlap"]) if s["comm_ms"] > 0 else "no NCCL communication"
print("window: %d ns to %d ns after the first GPU activity" % (d["window"]["start_ns"], d["window"]["end_ns"]))
print(figure)') || { echo "FAILED: report $* $trace: $(cat "$dir/err")"; fail=$((fail+1)); return; }
    actual=$("$os" render --verbose --force ${ALL:-} -o "$dir/p.png" "$@" "$data/$trace.db" 2>"$dir/err") ||
        { echo "FAILED: render $* $trace: $(cat "$dir/err")"; fail=$((fail+1)); return; }
    local window figure
    window=$(grep '^window: ' <<<"$actual")
    figure=$(sed -n 's/^title: \(communication overlapped [0-9.]*%\|no NCCL communication\).*/\1/p' <<<"$actual" | head -1)
    if [ "$window"$'\n'"$figure" = "$expected" ]; then pass=$((pass+1))
    else echo "FAILED: $trace $*: report says"$'\n'"$expected"$'\n'"render drew"$'\n'"$window"$'\n'"$figure"; fail=$((fail+1)); fi
}

same ddp_saturate --range "allreduce bucket 1" --rank 0
same ddp_saturate --step 3
same ddp_saturate --step 3 --rank 1
same ddp --range "allreduce bucket 1" --step 4 --rank 1
same ddp_saturate --window 100ms:150ms
same ddp_saturate --window "1 ms:2ms"
same ddp_saturate --window 0:120000000
# Without a time filter both take the steady state; with --all both the whole run.
same ddp_fill_eighth --rank 1 --device 1
same ddp_fill_eighth --rank 1 --device 1 --all
same pipeline_pipelined --step 5
same streams_saturate --window 2ms:
same copy_pinned --stream 14
same copy_pinned --stream 14 --all

# report and render read a bare number alike: nanoseconds, with one warning.
for command in report render; do
    if [ "$command" = render ]; then "$os" render -o "$dir/b.png" --window 0:2000000 "$data/ddp.db" >/dev/null 2>"$dir/err"
    else "$os" report --window 0:2000000 "$data/ddp.db" >/dev/null 2>"$dir/err"; fi
    if [ $? -eq 0 ] && [ "$(grep -c 'a number without a unit is read as nanoseconds' "$dir/err")" = 1 ]; then pass=$((pass+1))
    else echo "FAILED: $command --window 0:2000000 did not take nanoseconds with one warning: $(cat "$dir/err")"; fail=$((fail+1)); fi
done

# Between a range's occurrences the picture shows everything; its title says what the figures count.
expect "ddp_saturate --range: the title says the figures are the range's" \
    'drawn ddp_saturate --range "allreduce bucket 1" --rank 0 | grep -qF "figures inside NVTX ranges '"'allreduce bucket 1'"'"'
expect "ddp --range --step: the title names both" \
    'drawn ddp --range "allreduce bucket 1" --step 4 | grep -qF "figures inside NVTX ranges '"'allreduce bucket 1'"' of step 4"'

# --- What a whole-trace picture shows by default (issue 14 Must 5, analyzer/steady_state.h): the steady
# state, with a note of what it leaves out, and everything with --all. Before, torch_ddp_spawn's
# training filled the last 2% of its 6.36 s axis and streams_saturate's picture was 85% one
# verification copy.
# Steps found (ddp's NVTX "step N" ranges, in GPU time): from the first steady step's start to the
# last step's end. Step 0 (buckets built, NCCL's first all-reduce: 204 ms against 23 ms for the
# others) is warm-up: leading steps longer than twice the median step are left out with the set-up.
read -r start end < <(drawn ddp | head -1)
steps=$("$os" report --json "$data/ddp.db" | python3 -c '
import json, sys
s = json.load(sys.stdin)["steps"]
length = lambda x: int(x["end_ns"]) - int(x["start_ns"])
median = sorted(length(x) for x in s)[len(s) // 2]
steady = [x for x in s if length(x) <= 2 * median]
assert len(steady) == 18 and {x["number"] for x in s if x not in steady} == {0}, s
print(min(int(x["start_ns"]) for x in steady), max(int(x["end_ns"]) for x in s))')
expect "ddp: the picture spans the steady steps ($steps), drew $start $end" '[ "$start $end" = "$steps" ]'
expect "ddp: the title says what was left out" \
    'drawn ddp | grep -qF "set-up and 1 warm-up step 0 – 218 ms, after them 428 ms – 445 ms not shown; --all draws everything"'
# pipeline_pipelined's steps are alike (no warm-up step): from the first step on.
expect "pipeline_pipelined: no warm-up step" 'drawn pipeline_pipelined | grep -qF "before the steps 0 – 1.10 ms"'

# No steps, seconds of NCCL set-up: the picture starts after the set-up, at or before the first kernel.
read -r start end < <(drawn torch_ddp_spawn | head -1)
read -r first_kernel < <(gpu_times torch_ddp_spawn "SELECT MIN(start_ns) FROM kernels")
read -r last_setup_copy < <(gpu_times torch_ddp_spawn "SELECT MAX(start_ns) FROM memcpys WHERE start_ns < (SELECT MIN(start_ns) FROM kernels) - 100000000")
# (then the warm-up: the first iteration's first runs of the kernels it repeats, analyzer/steady_state.h)
expect "torch_ddp_spawn: starts after the set-up copies ($last_setup_copy) and the first kernel ($first_kernel): $start" \
    '[ "$start" -gt "$last_setup_copy" ] && [ "$start" -ge "$first_kernel" ]'
expect "torch_ddp_spawn: set-up named" 'drawn torch_ddp_spawn | grep -qF "set-up 0 – 6.319 s not shown; --all draws everything"'

# One long trailing copy alone at the end (the workload's verification copy): left out, to its start.
read -r start end < <(drawn streams_saturate | head -1)
read -r copy_start < <(gpu_times streams_saturate "SELECT start_ns FROM memcpys ORDER BY end_ns - start_ns DESC LIMIT 1")
column=$(( 19000000 / 1000 + 1 )) # a bucket of the span (analyzer/steady_state.h)
expect "streams_saturate: ends at the verification copy's start ($copy_start), drew $end" \
    '[ $(( end - copy_start )) -le $column ] && [ $(( copy_start - end )) -le $column ] && [ "$start" = 0 ]'

# Idle set-up first, then the long copy alone in what is left (copy_pinned: 3 copies beside 3
# kernels at 44-46 ms, then a 27 ms verification copy).
read -r start end < <(drawn copy_pinned | head -1)
read -r copy_start < <(gpu_times copy_pinned "SELECT start_ns FROM memcpys ORDER BY end_ns - start_ns DESC LIMIT 1")
read -r first_kernel < <(gpu_times copy_pinned "SELECT MIN(start_ns) FROM kernels")
column=$(( 74000000 / 1000 + 1 ))
# (the window starts where the set-up's 44 ms gap ends: at the memset before the copies and kernels)
read -r first_copy < <(gpu_times copy_pinned "SELECT MIN(start_ns) FROM memsets WHERE start_ns > 1000000 + (SELECT MIN(start_ns) FROM memsets)")
expect "copy_pinned: from the memset before the first kernel ($first_copy, $first_kernel) to the verification copy ($copy_start), drew $start $end" \
    '[ $(( end - copy_start )) -le $column ] && [ $(( copy_start - end )) -le $column ] && [ "$start" -le "$first_kernel" ] && [ $(( start - first_copy )) -le $column ] && [ $(( first_copy - start )) -le $column ]'

# --all, and a trace whose work fills its span: everything, nothing said.
read -r start end < <(drawn streams_saturate --all | head -1)
read -r whole < <("$os" report --all --json "$data/streams_saturate.db" | python3 -c 'import json,sys; print(json.load(sys.stdin)["window"]["end_ns"])')
expect "streams_saturate --all: 0 to $whole, drew $start $end" '[ "$start $end" = "0 $whole" ]'
expect "streams_saturate --all: nothing said left out" '! drawn streams_saturate --all | grep -q "not shown"'
expect "many_streams_8: nothing left out" '! drawn many_streams_8 | grep -q "not shown"'

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
