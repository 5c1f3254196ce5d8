#!/usr/bin/env bash
# A hostile pair for merge (issue 33 M4): one rank's kernels shifted by 5e17 ns, its collectives
# not. The offset is estimated on collective ends (+0 here) and applied to every row: merge said
# "offset +0 ns" and the merged report spanned 500,000,000 s. Now an input whose collectives end
# outside its kernels' times by more than a minute is refused with one line.
. "$(dirname "$0")/lib.sh"
K="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto"
cd "$work" || exit 2
"$os" import "$K/nccl_data.json.gz" -o job.db >/dev/null 2>&1
cp job.db shifted.db
sqlite3 shifted.db "UPDATE kernel_runs SET start_ns = start_ns + 500000000000000000"
cp job.db late-collectives.db
sqlite3 late-collectives.db "UPDATE collectives SET start_ns = start_ns + 3600000000000, end_ns = end_ns + 3600000000000"
for pair in "job.db shifted.db" "shifted.db job.db" "job.db late-collectives.db"; do
    # shellcheck disable=SC2086
    "$os" merge $pair -o out.db >out.txt 2>err.txt; rc=$?
    bad=${pair#job.db }; bad=${bad% job.db}
    expect "merge $pair: exit 2" '[ $rc -eq 2 ]'
    expect "merge $pair: one line naming $bad and the disagreement" \
        '[ $(wc -l <err.txt) -eq 1 ] && grep -q "^overlapscope: merge: $bad: its collectives end up to [0-9]* ns outside its kernels. times: collective and kernel clocks disagree" err.txt'
    expect "merge $pair: nothing written" '[ ! -e out.db ]'
done
# a copy of the trace (same clocks) still merges, offset 0
cp job.db copy.db
"$os" merge job.db copy.db -o out.db >out.txt 2>err.txt; rc=$?
expect "an honest pair merges at offset +0" '[ $rc -eq 0 ] && grep -q "offset +0 ns" out.txt'
finish
