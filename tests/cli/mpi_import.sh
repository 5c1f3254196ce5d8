#!/usr/bin/env bash
# `mpirun -np N overlapscope report --mpi INPUTS` where INPUTS are foreign rank files (a folder of
# Kineto files, or several files): each MPI process imports only its block of the files (files
# p*F/N to (p+1)*F/N - 1 of the sorted list) into a store of its own under $TMPDIR, and process 0's
# report must still be byte for byte the one process's `overlapscope report INPUTS`, whose import
# of every file numbers the processes and strings (the MPI processes chain the strings dictionary).
# Checked with -np 2 and -np 4 --oversubscribe on: a folder of 4 ranks of bench/gen_ddp_ranks.py
# --distinct-names (each rank its own kernel names, met in its own order: a split import that
# numbered each block's strings alone would name the wrong kernels); the same 4 files given as a
# list; a folder of 3 ranks (with 4 processes, process 0 imports none); the two real Kineto rank
# files of tests/data/kineto-h200; a folder of 4 ranks with rank 2 late. Each: report as text and
# JSON and check's verdict (JSON, and its exit status); Markdown and --rank 0 on the first. Also:
# with OVERLAPSCOPE_MPI_SHARES=1 each process says how many of the files it imported (1 of 4
# each; 0, 1, 1, 1 of 3); a folder with one damaged rank file ends the job with exit 2 and one line
# naming that file, no process left running; and nothing is left in $TMPDIR (a fresh folder for the
# whole test) after any of it; what every process finds wrong alike (a device no rank has, a
# rank file on no machine, a rank file beside a trace) is one line from process 0, exit 2. Every MPI run is made to import: a cache beside the inputs (which
# the one-process report writes) is removed first. Skipped (77) where mpirun is missing; a build
# without MPI must refuse --mpi in one line with exit 2.
# shellcheck source=mpi_env.sh
. "$(dirname "$0")/mpi_env.sh"
command -v python3 >/dev/null || { echo "no python3 for bench/gen_ddp_ranks.py: skipped"; exit 77; }
# A job that hangs (a process waiting for one that failed) fails the test instead of hanging it.
mpi_run=("${launch_env[@]}" timeout 60 mpirun)

# Every process of the test (the MPI processes' local stores, a one-process import into a
# temporary folder, Open MPI's session folder) writes its temporary files here: empty after each run.
export TMPDIR=$dir/tmp
mkdir "$TMPDIR"
tmp_is_empty() {
    local left
    left=$(cd "$TMPDIR" && find . -mindepth 1 -maxdepth 3 | head -5)
    if [ -n "$left" ]; then
        bad "$1: left behind in TMPDIR: $(echo "$left" | tr '\n' ' ')"
        rm -rf "${TMPDIR:?}"/* "${TMPDIR:?}"/.[!.]* 2>/dev/null
    fi
}

gen() { python3 "$here/../../bench/gen_ddp_ranks.py" "$@" --jobs 1 >/dev/null 2>&1 || bad "gen_ddp_ranks.py $*"; }
gen "$dir/distinct" 4 --activities 3000 --distinct-names
mkdir "$dir/list"
cp "$dir"/distinct/*.json.gz "$dir/list/" || bad "copying the 4 rank files"
gen "$dir/three" 3 --activities 3000 --distinct-names
mkdir "$dir/kineto"
cp "$data"/kineto-h200/two_batch_ddp_rank0.json.gz "$data"/kineto-h200/two_batch_ddp_rank1.json.gz "$dir/kineto/" ||
    bad "copying the Kineto rank files"
gen "$dir/late" 4 --activities 3000 --late-rank 2

# outputs OUT LAUNCH...: report and check of inputs (an array) by LAUNCH (the command, or mpirun
# ... with mpi=(--mpi)); with all=1, Markdown and --rank 0 too (each MPI start costs about 0.4 s
# here: the test stays under 60 s). Before each MPI run the caches beside the inputs go: it imports.
outputs() {
    local out=$1 run name words; shift
    mkdir -p "$out"
    local runs=("report.txt report" "report.json report --json"
        "check.json check --json --max idle_ms=1 --max exposed_comm_skew_ms=1")
    [ "$all" = 1 ] && runs+=("report.md report --markdown" "rank0.json report --json --rank 0")
    for run in "${runs[@]}"; do
        read -ra words <<<"$run"
        [ "${#mpi[@]}" = 0 ] || rm -f "$dir"/*.overlapscope.db "$dir"/*/*.overlapscope.db
        "$@" "${words[1]}" "${mpi[@]}" "${words[@]:2}" "${inputs[@]}" >"$out/${words[0]}" 2>>"$out.err"
        echo $? >>"$out/status"
    done
}

# case NAME "NPS" INPUTS...: the MPI runs with each count of processes, then the one process.
case_of() {
    local name=$1 nps=$2 np; shift 2
    inputs=("$@")
    all=0; [ "$name" = distinct ] && all=1
    rm -rf "$dir/one" "$dir"/mpi* "$dir"/*.err
    for np in $nps; do
        mpi=(--mpi)
        outputs "$dir/mpi$np" "${mpi_run[@]}" -np "$np" --oversubscribe "$os"
    done
    mpi=()
    outputs "$dir/one" "$os"
    if [ "$(head -1 "$dir/one/status")" != 0 ]; then
        bad "$name: the one-process report failed (nothing to compare with): $(head -3 "$dir/one.err")"
        tmp_is_empty "$name"
        return
    fi
    # The distinct names reach the report (a kernel of one rank, one of some ranks): a split import
    # that numbered them wrongly would name other kernels.
    [ "$name" != distinct ] || { grep -q '"rank1_only_kernel_0"' "$dir/one/report.json" &&
        grep -q '"odd_ranks_kernel"' "$dir/one/report.json"; } ||
        bad "$name: the report names no kernel of one rank or of some ranks: gen_ddp_ranks.py --distinct-names?"
    for np in $nps; do
        if diff -r "$dir/one" "$dir/mpi$np" >"$dir/diff"; then
            pass=$((pass+1))
        else
            bad "$name: mpirun -np $np report --mpi differs from one process: $(head -5 "$dir/diff")
  mpirun said: $(grep -v '^overlapscope: report: \(imported\|reading\)' "$dir/mpi$np.err" | head -5)"
        fi
    done
    tmp_is_empty "$name"
}

case_of distinct "2 4" "$dir/distinct"
case_of list "2 4" "$dir"/list/rank0000.json.gz "$dir"/list/rank0001.json.gz "$dir"/list/rank0002.json.gz \
    "$dir"/list/rank0003.json.gz
case_of three "2 4" "$dir/three"
case_of kineto "2 4" "$dir/kineto"
case_of late "2 4" "$dir/late"

# Each process imports its block alone: process P of N says how many of the F files it imported,
# (P+1)*F/N - P*F/N (4 files, 4 processes: 1 each; 3 files: none for process 0, then 1 each).
shares() { # NAME FILES: the lines of $dir/err against the blocks
    local got want
    got=$(sed -n 's/^overlapscope: --mpi process \([0-9]*\) of 4: imported \([0-9]*\) of \([0-9]*\) files$/\1 \2 \3/p' \
        "$dir/err" | sort)
    want=$(for p in 0 1 2 3; do echo "$p $(((p + 1) * $2 / 4 - p * $2 / 4)) $2"; done)
    if [ "$got" = "$want" ]; then
        pass=$((pass+1))
    else
        bad "$1: 4 processes did not each import their block of the $2 files: $(grep -- '--mpi process\|rror' \
            "$dir/err" | head -8)"
    fi
}
for folder in distinct:4 three:3; do
    rm -f "$dir"/*.overlapscope.db
    OVERLAPSCOPE_MPI_SHARES=1 "${mpi_run[@]}" -np 4 --oversubscribe "$os" report --mpi "$dir/${folder%:*}" \
        >/dev/null 2>"$dir/err"
    shares "${folder%:*}" "${folder#*:}"
    tmp_is_empty "shares of ${folder%:*}"
done

# A damaged rank file (a gzip stream cut in half) in the block of a process other than 0: the
# job ends with exit 2 and one line naming the file (as the one process's import says), within
# the timeout, and no process of it keeps running.
gen "$dir/damaged" 4 --activities 3000
cut=$dir/damaged/rank0002.json.gz
head -c $(($(stat -c %s "$cut") / 2)) "$cut" >"$dir/half" && mv "$dir/half" "$cut"
"$os" report "$dir/damaged" >"$dir/out" 2>"$dir/err"; status=$?
{ [ "$status" = 2 ] && grep -qF -- "$cut" "$dir/err"; } ||
    bad "the damaged folder, one process: status $status, said: $(head -3 "$dir/err")"
for np in 2 4; do
    rm -f "$dir"/*.overlapscope.db
    "${mpi_run[@]}" -np "$np" --oversubscribe "$os" report --mpi "$dir/damaged" >"$dir/out" 2>"$dir/err"; status=$?
    sleep 0.2
    left=$(pgrep -f -- "$dir/damaged" 2>/dev/null)
    if [ "$status" = 2 ] && [ "$(grep -cF -- "$cut" "$dir/err")" = 1 ] && [ ! -s "$dir/out" ] && [ -z "$left" ]; then
        pass=$((pass+1))
    else
        [ "$status" = 124 ] && status="124 (hung: killed after 60 s)"
        bad "the damaged folder, -np $np: status $status, ${left:+processes left: $left, }said: $(head -4 "$dir/err")"
    fi
    tmp_is_empty "the damaged folder, -np $np"
done

# What every process finds wrong alike is said once, by process 0, naming what the user gave (not
# a process's own trace): a device no rank has; a list of rank files one of which is on no
# machine (named like a rank file, so it may lie on another node: its process says it cannot
# open it); a list mixing a rank file with an overlapscope trace.
one_line() { # NAME EXPECTED-TEXT ARGS...: exit 2, one line holding the text, nothing on stdout
    local name=$1 text=$2; shift 2
    "${mpi_run[@]}" -np 3 --oversubscribe "$os" report --mpi "$@" >"$dir/out" 2>"$dir/err"; status=$?
    if [ "$status" = 2 ] && [ "$(grep -c '^overlapscope: ' "$dir/err")" = 1 ] && grep -qF -- "$text" "$dir/err" &&
        [ ! -s "$dir/out" ]; then
        pass=$((pass+1))
    else
        bad "$name: status $status, said: $(grep '^overlapscope' "$dir/err" | head -4)"
    fi
    tmp_is_empty "$name"
}
one_line "no such device" "report: $dir/distinct: no device 9 (the trace has device 0)" --device 9 "$dir/distinct"
one_line "a rank file on no machine" "report: cannot open '$dir/absent/rank0009.json.gz'" \
    "$dir/distinct/rank0000.json.gz" "$dir/absent/rank0009.json.gz"
"$os" import "$dir/distinct/rank0001.json.gz" -o "$dir/one_rank.db" >/dev/null 2>&1
one_line "a rank file and a trace" "report: expected one trace file, or rank files" \
    "$dir/distinct/rank0000.json.gz" "$dir/one_rank.db"

echo "mpi_import: $pass passed, $fail failed"
[ "$fail" = 0 ]
