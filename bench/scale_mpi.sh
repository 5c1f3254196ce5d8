#!/usr/bin/env bash
# The MPI path of the scale benchmark (issue 35 items 2 and 3), weak scaling: P MPI processes
# (1, 2, 4, 8, 16) on a simulated DDP job of P x SCALE_RANKS_PER_PROCESS ranks (bench/gen_ddp_ranks.py,
# imported once per job), `mpirun -np P overlapscope report --mpi`, SCALE_REPEAT rounds interleaved
# (each round runs every P once: a machine's slow minute falls on every P alike), medians; printed
# with the one-process `report --jobs 1` of the same trace and the efficiency
# t(1 process, its job) / t(P processes, P times the job) (1.0: perfect weak scaling). Every output
# is checked identical to the one process's. The table is also written to OUTDIR/table.txt.
# Open MPI: the mpirun on PATH, or a bundle of tests/gpu/stage_mpi.sh (SCALE_MPI_BUNDLE, default
# .gpu/openmpi where no mpirun is installed: the GPU machine; bench/scale_mpi_device.sh). One
# machine: shared memory, no network transports (OMPI_MCA_* below, unless set); as root,
# --allow-run-as-root.
# Usage: bench/scale_mpi.sh [OUTDIR]; environment: SCALE_PROCESSES (default "1 2 4 8 16", capped at
# the machine's processors), SCALE_RANKS_PER_PROCESS (default 2), SCALE_ACTIVITIES per rank (default
# 250000), SCALE_REPEAT (default 3), OVERLAPSCOPE (default build/cli/overlapscope).
set -u
out=${1:-scale-mpi-out}
out=$(mkdir -p "$out" && cd "$out" && pwd) || exit 2
cd "$(dirname "$0")/.." || exit 2
os=${OVERLAPSCOPE:-build/cli/overlapscope}
[ -x "$os" ] || { echo "$0: no $os: build first" >&2; exit 2; }
bundle=${SCALE_MPI_BUNDLE:-}
if [ -z "$bundle" ] && ! command -v mpirun >/dev/null && [ -f .gpu/openmpi/env.sh ]; then
    bundle=.gpu/openmpi
fi
if [ -n "$bundle" ]; then
    [ -f "$bundle/env.sh" ] || { echo "$0: $bundle/env.sh missing (tests/gpu/stage_mpi.sh makes it)" >&2; exit 2; }
    # shellcheck source=/dev/null
    . "$bundle/env.sh"
fi
command -v mpirun >/dev/null ||
    { echo "$0: no mpirun (apt-get install openmpi-bin, or a bundle: tests/gpu/stage_mpi.sh)" >&2; exit 2; }
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader} OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} \
    OMPI_MCA_plm=${OMPI_MCA_plm:-isolated}
launch=(mpirun)
[ "$(id -u)" != 0 ] || launch+=(--allow-run-as-root)
cores=$(nproc)
per=${SCALE_RANKS_PER_PROCESS:-2}
activities=${SCALE_ACTIVITIES:-250000}
counts=()
for processes in ${SCALE_PROCESSES:-1 2 4 8 16}; do
    [ "$processes" -le "$cores" ] && counts+=("$processes")
done
for processes in "${counts[@]}"; do
    dir=$out/ranks-$((processes * per))-$activities
    [ -d "$dir" ] || python3 bench/gen_ddp_ranks.py "$dir" $((processes * per)) --activities "$activities" \
        >/dev/null || exit 2
    [ -f "$dir.db" ] || "$os" import "$dir" -o "$dir.db" --jobs "$cores" >/dev/null 2>&1 ||
        { echo "import of $dir failed"; exit 1; }
done
: >"$out/times"
for round in $(seq "${SCALE_REPEAT:-3}"); do
    for processes in "${counts[@]}"; do
        trace=$out/ranks-$((processes * per))-$activities.db
        /usr/bin/time -f "one $processes %e %M" -o "$out/time" "$os" report --jobs 1 "$trace" \
            >"$out/one.txt" 2>&1 || { echo "report failed: $(tail -3 "$out/one.txt")"; exit 1; }
        cat "$out/time" >>"$out/times"
        /usr/bin/time -f "mpi $processes %e %M" -o "$out/time" "${launch[@]}" -np "$processes" "$os" report --mpi \
            "$trace" >"$out/mpi.txt" 2>"$out/mpi.err" || { echo "mpirun failed: $(tail -3 "$out/mpi.err")"; exit 1; }
        cat "$out/time" >>"$out/times"
        cmp -s "$out/one.txt" "$out/mpi.txt" ||
            { echo "report --mpi with $processes processes differs from one process (round $round)"; exit 1; }
    done
done
python3 - "$out/times" "$per" "$activities" "$cores" "$(uname -n)" "$(mpirun --version 2>&1 | head -1)" \
    <<'PY' | tee "$out/table.txt"
import statistics, sys, time
times, per, activities, cores, host, mpi = sys.argv[1:7]
rows = [line.split() for line in open(times)]
def runs(kind, processes):
    return [(float(s), int(k)) for what, p, s, k in rows if what == kind and int(p) == processes]
counts = sorted({int(p) for _, p, _, _ in rows})
print(f"MPI weak scaling on {cores} processors ({host}, {mpi}), {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}: "
      f"{per} ranks x {activities} activities a process, medians of {len(runs('mpi', counts[0]))} interleaved rounds")
print("| processes | ranks | report --jobs 1 s | mpirun report --mpi s | runs s | efficiency | peak MB (largest process) |")
print("|---|---|---|---|---|---|---|")
base = statistics.median(s for s, _ in runs("mpi", counts[0]))
for processes in counts:
    one = statistics.median(s for s, _ in runs("one", processes))
    mpi_runs = runs("mpi", processes)
    mpi_s = statistics.median(s for s, _ in mpi_runs)
    peak = max(k for _, k in mpi_runs) // 1024
    listed = ", ".join(f"{s:.2f}" for s, _ in mpi_runs)
    print(f"| {processes} | {processes * int(per)} | {one:.2f} | {mpi_s:.2f} | {listed} | "
          f"{base / max(mpi_s, 0.001):.2f} | {peak} |")
PY
