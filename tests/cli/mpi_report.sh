#!/usr/bin/env bash
# `mpirun -np N overlapscope report --mpi TRACE`: each MPI process walks its block of the devices
# and sends their fragments to process 0, which writes the report: byte for byte the single
# process's (issue 35 Must 2). Checked with -np 2 and -np 4 --oversubscribe (more processes than
# devices on the two-rank traces: some processes walk nothing) on the multi-rank goldens (two ranks
# of DDP merged from its rank files, and with a late rank), an 8-device trace merged from goldens of
# different shapes, a folder of Kineto rank files that the MPI run imports itself, and a folder of
# bench/gen_ddp_ranks.py's rank files: report as text and JSON and check's verdict (JSON, and its
# exit status); Markdown and --rank 0 on the 8-device trace and the generated job. Also what --mpi says on a trace it cannot open. Skipped (77) where mpirun is missing; a build without MPI must
# refuse --mpi in one line with exit 2.
# shellcheck source=mpi_env.sh
. "$(dirname "$0")/mpi_env.sh"

"$os" merge "$data"/gpu-h200x2/ddp.db "$data"/gpu/ddp.db "$data"/gpu-h200x2/ddp_skew.db \
    "$data"/gpu/many_streams_8.db "$data"/gpu-h200x2/copy_pageable.db -o "$dir/eight.db" >/dev/null 2>&1 ||
    bad "merging the 8-device trace"
"$os" merge "$data"/gpu-h200x2/ddp_rank0.db "$data"/gpu-h200x2/ddp_rank1.db -o "$dir/ranks.db" >/dev/null 2>&1 ||
    bad "merging the rank files"

# outputs OUT LAUNCH...: report and check of $trace by LAUNCH (the command, or mpirun ... with --mpi);
# with $all, Markdown and --rank 0 too (each MPI start costs 0.4 s here: the test stays under 30 s).
outputs() {
    local out=$1; shift
    mkdir -p "$out"
    "$@" report "${mpi[@]}" "$trace" >"$out/report.txt" 2>"$out/err"; echo $? >>"$out/status"
    "$@" report "${mpi[@]}" --json "$trace" >"$out/report.json" 2>>"$out/err"; echo $? >>"$out/status"
    "$@" check "${mpi[@]}" --json --max idle_ms=1 --max exposed_comm_skew_ms=1 "$trace" >"$out/check.json" \
        2>>"$out/err"
    echo $? >>"$out/status"
    if [ "$all" = 1 ]; then
        "$@" report "${mpi[@]}" --markdown "$trace" >"$out/report.md" 2>>"$out/err"; echo $? >>"$out/status"
        "$@" report "${mpi[@]}" --json --rank 0 "$trace" >"$out/rank0.json" 2>>"$out/err"
        echo $? >>"$out/status"
    fi
    rm "$out/err" # what stderr says differs: each process names the trace it reads
}

# The folder of Kineto rank files: the MPI run comes first, so that it imports them itself.
mkdir -p "$dir/kineto"
cp "$data"/kineto-h200/two_batch_ddp_rank0.json.gz "$data"/kineto-h200/two_batch_ddp_rank1.json.gz "$dir/kineto/"

# A simulated 4-rank DDP job of bench/gen_ddp_ranks.py (steps, NCCL collectives, one late rank):
# with 4 processes each reads the steps and the GPU span of its own rank alone, and the report
# must still be the one process's (the steady window, the steps, the straggler).
traces=("$dir/kineto" "$dir/eight.db" "$dir/ranks.db" "$data"/gpu-h200x2/ddp_skew.db)
if ! command -v python3 >/dev/null; then
    echo "no python3: the generated 4-rank job is left out"
elif python3 "$here/../../bench/gen_ddp_ranks.py" "$dir/ddp4" 4 --activities 3000 >/dev/null 2>&1; then
    traces+=("$dir/ddp4")
else
    bad "bench/gen_ddp_ranks.py could not write the 4-rank job"
fi
for trace in "${traces[@]}"; do
    [ -e "$trace" ] || { bad "$trace is missing"; continue; }
    name=${trace#"$data"/}; name=${name#"$dir"/}
    all=0; [ "$trace" = "$dir/eight.db" ] || [ "$trace" = "$dir/ddp4" ] && all=1
    mpi=(--mpi)
    outputs "$dir/mpi2" "${launch_env[@]}" mpirun -np 2 "$os"
    outputs "$dir/mpi4" "${launch_env[@]}" mpirun -np 4 --oversubscribe "$os"
    mpi=()
    outputs "$dir/one" "$os"
    [ "$(head -1 "$dir/one/status")" = 0 ] || bad "$name: report failed: $(head -3 "$dir/one/report.txt")"
    for np in 2 4; do
        if diff -r "$dir/one" "$dir/mpi$np" >"$dir/diff"; then
            pass=$((pass+1))
        else
            bad "$name: mpirun -np $np report --mpi differs from one process: $(head -5 "$dir/diff")"
        fi
    done
    rm -rf "$dir/one" "$dir/mpi2" "$dir/mpi4"
done

# Each process reads its share of the set-up alone: with 4 processes on the 4-rank job, each maps
# a quarter of the steps to their GPU work and reads the GPU span of one device (before, every
# process read the whole trace's steps and span: 4 of 4). With OVERLAPSCOPE_TIMING=1 every process
# writes its phases: process 0's table as one process's, each other's led by "process R: ".
if [ -d "$dir/ddp4" ]; then
    "${launch_env[@]}" OVERLAPSCOPE_MPI_SHARES=1 OVERLAPSCOPE_TIMING=1 mpirun -np 4 --oversubscribe "$os" report \
        --mpi "$dir/ddp4" >/dev/null 2>"$dir/err"
    tables=$(grep -E '^(process [1-3]: )?timing \(jobs [0-9]+\): phase ' "$dir/err" | sed 's/timing.*//' | sort | uniq -c |
        awk '$1 == 1 {n++} END {print n + 0}')
    if [ "$tables" = 4 ] && grep -q '^process 2: timing (jobs [0-9]*): devices: walks and merge ' "$dir/err"; then
        pass=$((pass+1))
    else
        bad "OVERLAPSCOPE_TIMING=1: not one table of phases from each of the 4 processes: $(grep -c timing "$dir/err") lines"
    fi
    shares=$(sed -n 's/^overlapscope: --mpi process \([0-3]\) of 4: mapped \([0-9]*\) of \([0-9]*\) steps, read the GPU span of \([0-9]*\) of \([0-9]*\) devices$/\1 \2 \3 \4 \5/p' "$dir/err" |
        awk '$3 > 0 && 4 * $2 == $3 && $4 == 1 && $5 == 4 {n++} END {print n + 0}')
    if [ "$shares" = 4 ]; then
        pass=$((pass+1))
    else
        bad "4 processes on 4 ranks did not each read a quarter of the set-up: $(grep -- '--mpi process' "$dir/err")"
    fi
fi

# A trace process 0 cannot open: one line naming it, exit 2, no MPI process left waiting.
"${launch_env[@]}" mpirun -np 2 "$os" report --mpi "$dir/absent.db" >"$dir/out" 2>"$dir/err"; status=$?
if [ "$status" = 2 ] && grep -q "report: cannot open '$dir/absent.db'" "$dir/err" && [ ! -s "$dir/out" ]; then
    pass=$((pass+1))
else
    bad "an absent trace under mpirun: status $status, said: $(head -3 "$dir/err")"
fi

echo "mpi_report: $pass passed, $fail failed"
[ "$fail" = 0 ]
