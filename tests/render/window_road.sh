#!/usr/bin/env bash
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

same() { # trace flags...: the picture's window and figure are the report's
    local trace=$1; shift
    local expected actual
    expected=$("$os" report --json "$@" "$data/$trace.db" 2>"$dir/err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["summary"]
figure = "communication overlapped %.1f%%" % (100 * s["comm_overlap"]) if s["comm_ms"] > 0 else "no NCCL communication"
print("window: %d ns to %d ns after the first GPU activity" % (d["window"]["start_ns"], d["window"]["end_ns"]))
print(figure)') || { echo "FAILED: report $* $trace: $(cat "$dir/err")"; fail=$((fail+1)); return; }
    actual=$("$os" render --verbose --force -o "$dir/p.png" "$@" "$data/$trace.db" 2>"$dir/err") ||
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
same ddp_fill_eighth --rank 1 --device 1
same pipeline_pipelined --step 5
same streams_saturate --window 2ms:
same copy_pinned --stream 14

# report and render read a bare number alike: nanoseconds, with one warning.
for command in report render; do
    if [ "$command" = render ]; then "$os" render -o "$dir/b.png" --window 0:2000000 "$data/ddp.db" >/dev/null 2>"$dir/err"
    else "$os" report --window 0:2000000 "$data/ddp.db" >/dev/null 2>"$dir/err"; fi
    if [ $? -eq 0 ] && [ "$(grep -c 'a number without a unit is read as nanoseconds' "$dir/err")" = 1 ]; then pass=$((pass+1))
    else echo "FAILED: $command --window 0:2000000 did not take nanoseconds with one warning: $(cat "$dir/err")"; fail=$((fail+1)); fi
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
