#!/usr/bin/env bash
# Issue 35's headline target through `--mpi` on rank files: a simulated DDP job of RANKS ranks
# (bench/gen_ddp_ranks.py: about ACTIVITIES activities a rank, NCCL collectives, the last rank
# late) imported and analysed by `mpirun -np P overlapscope report --mpi DIR`, each of the P
# processes importing its block of the files into a trace of its own ($TMPDIR) and analysing its
# devices; the wall time, the peak memory of each process (/usr/bin/time: their sum bounds the
# machine's peak, every process running at once) and each process's phases (OVERLAPSCOPE_TIMING).
# Then the same on a smaller job (CHECK_RANKS) against the one-process road, `report --jobs P DIR`
# (the folder imported into its cache on every processor, then analysed), in the same call: its
# time, and the two reports compared byte for byte.
#   bash bench/scale_rank_files.sh OUTDIR       (on the 16-core machine: after tests/gpu/stage.sh, carry .gpu)
# Environment: SCALE_RANKS (256), SCALE_ACTIVITIES (1000000), SCALE_PROCESSES (16, at most the
# processors), SCALE_CHECK_RANKS (32; 0: none), OVERLAPSCOPE (the staged build, else build/cli/overlapscope).
# Writes OUTDIR/rank_files.txt (the table) and OUTDIR/timing-*.txt.
set -u
out=${1:?usage: bash bench/scale_rank_files.sh OUTDIR}
out=$(mkdir -p "$out" && cd "$out" && pwd) || exit 2
cd "$(dirname "$0")/.." || exit 2
os=${OVERLAPSCOPE:-}
[ -n "$os" ] || { os=$PWD/.gpu/build/cli/overlapscope; [ -x "$os" ] || os=$PWD/build/cli/overlapscope; }
[ -x "$os" ] || { echo "$0: no $os: build first" >&2; exit 2; }
ranks=${SCALE_RANKS:-256} activities=${SCALE_ACTIVITIES:-1000000} check=${SCALE_CHECK_RANKS:-32}
p=${SCALE_PROCESSES:-16}
[ "$p" -le "$(nproc)" ] || p=$(nproc)
command -v mpirun >/dev/null || { echo "$0: no mpirun" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "$0: no /usr/bin/time" >&2; exit 2; }
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader} OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} \
    OMPI_MCA_plm=${OMPI_MCA_plm:-isolated}
mpi=(mpirun); [ "$(id -u)" != 0 ] || mpi+=(--allow-run-as-root)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

# run NAME RANKS: generate, then the MPI run (wall time, each process's peak and phases).
run() {
    local name=$1 count=$2 dir=$work/$1 start
    start=$(now)
    python3 bench/gen_ddp_ranks.py "$dir" "$count" --activities "$activities" --jobs "$(nproc)" >/dev/null ||
        { echo "$0: generating $count ranks failed" >&2; exit 2; }
    echo "$name: generated $count ranks x $activities activities in $(since "$start") s ($(du -sh "$dir" | cut -f1))"
    start=$(now)
    OVERLAPSCOPE_TIMING=1 "${mpi[@]}" -np "$p" /usr/bin/time -f "peak %M kB, %e s, %U user s, %S system s" \
        "$os" report --mpi "$dir" >"$out/report-$name.txt" 2>"$out/timing-$name.txt"
    local status=$?
    echo "$name: mpirun -np $p report --mpi: $(since "$start") s, status $status"
    grep -E '^peak ' "$out/timing-$name.txt" | sort -t' ' -k2 -n | python3 -c '
import sys
peaks = [int(line.split()[1]) for line in sys.stdin]
if peaks:
    print(f"  {len(peaks)} processes: peak {max(peaks)/1024:.0f} MB the largest, {sum(peaks)/1024**2:.2f} GB together")'
    grep -E "read files|chain|append parts|finalize|walks and merge|accountant: cross" "$out/timing-$name.txt" | head -16 | sed 's/^/  /'
}

{
    echo "machine: $(nproc) processors; $p MPI processes; $(date -u +%Y-%m-%dT%H:%MZ)"
    run big "$ranks"
    rm -rf "$work/big"
    if [ "$check" -gt 0 ]; then
        run small "$check"
        start=$(now)
        "$os" report --jobs "$p" "$work/small" >"$work/one.txt" 2>"$work/one.err"
        echo "small: report --jobs $p DIR (one process: the folder imported on every processor, then analysed): $(since "$start") s"
        if cmp -s "$work/one.txt" "$out/report-small.txt"; then
            echo "small: the MPI report is the one process's, byte for byte"
        else
            echo "small: DIFFERENT from the one process's report"
            diff "$work/one.txt" "$out/report-small.txt" | head -10
        fi
    fi
} 2>&1 | tee "$out/rank_files.txt"
