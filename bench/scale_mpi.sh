#!/usr/bin/env bash
# The MPI path of the scale benchmark (issue 35 items 2 and 3), weak scaling: P MPI processes
# (1, 2, 4, 8, 16) on a simulated DDP job of P x SCALE_RANKS_PER_PROCESS ranks (bench/gen_ddp_ranks.py,
# imported once per job), `mpirun -np P overlapscope report --mpi`, SCALE_REPEAT rounds interleaved
# (each round runs every P once: a machine's slow minute falls on every P alike), medians; printed
# with the one-process `report --jobs 1` of the same trace and the efficiency
# t(1 process, its job) / t(P processes, P times the job) (1.0: perfect weak scaling), and the CPU
# seconds (user + system) of the busiest MPI process (each process runs under /usr/bin/time): what
# each process's own work costs, which the wall time hides where processes share cores. Every
# output is checked identical to the one process's. The table is also written to OUTDIR/table.txt.
# SCALE_MODE=import: the import is in the time. The MPI runs are given the folder of rank files
# itself (`mpirun -np P overlapscope report --mpi DIR`: each process imports its block of the files
# into a store of its own, docs/scale.md "Many machines"), and the one-process baseline is
# `overlapscope import --jobs P DIR -o X.db` then `overlapscope report --jobs P X.db` (their wall
# times summed; the peak memory the larger); the MPI output is checked identical to the one-process
# `report DIR` (made once per P, untimed), and no cache is left beside the folder, so that every MPI
# run imports. The table then also prints the baseline's time over the MPI run's (what P processes
# gain over one process of P threads on the same job). SCALE_MODE=trace (the default): the MPI runs
# and the one-process `report --jobs 1` read the trace imported once beforehand.
# The default per-process work is the issue's: one rank of 1,000,000 activities a process, and no
# late rank (gen_ddp_ranks.py --late-rank past the last: every rank waits the same 500 us in every
# AllReduce), so that a process's work is the same at every P: with a late rank, the one rank of
# the 1-process job is the late one, which waits for none and walks in about 0.55 of the time of
# a rank that waits for it (SCALE_LATE_RANK=last: the generator's default, the last rank late).
# Open MPI: the mpirun on PATH, or a bundle of tests/gpu/stage_mpi.sh (SCALE_MPI_BUNDLE, default
# .gpu/openmpi where no mpirun is installed: the GPU machine; bench/scale_mpi_device.sh). One
# machine: shared memory, no network transports (OMPI_MCA_* below, unless set); as root,
# --allow-run-as-root.
# Usage: bench/scale_mpi.sh [OUTDIR]; environment: SCALE_PROCESSES (default "1 2 4 8 16", capped at
# the machine's processors unless SCALE_OVERSUBSCRIBE=1), SCALE_RANKS_PER_PROCESS (default 1),
# SCALE_ACTIVITIES per rank (default 1000000), SCALE_REPEAT (default 2), SCALE_LATE_RANK (none or
# last; default none), SCALE_MODE (trace or import; default trace), OVERLAPSCOPE (default
# build/cli/overlapscope).
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
[ "${SCALE_OVERSUBSCRIBE:-0}" = 1 ] && launch+=(--oversubscribe)
cores=$(nproc)
per=${SCALE_RANKS_PER_PROCESS:-1}
activities=${SCALE_ACTIVITIES:-1000000}
counts=()
for processes in ${SCALE_PROCESSES:-1 2 4 8 16}; do
    [ "$processes" -le "$cores" ] || [ "${SCALE_OVERSUBSCRIBE:-0}" = 1 ] && counts+=("$processes")
done
late=${SCALE_LATE_RANK:-none}
case $late in none | last) ;; *) echo "$0: SCALE_LATE_RANK is none or last, not $late" >&2; exit 2 ;; esac
mode=${SCALE_MODE:-trace}
case $mode in trace | import) ;; *) echo "$0: SCALE_MODE is trace or import, not $mode" >&2; exit 2 ;; esac
for processes in "${counts[@]}"; do
    ranks=$((processes * per))
    dir=$out/ranks-$ranks-$activities-late-$late
    late_rank=$ranks # past the last: none
    [ "$late" = none ] || late_rank=$((ranks - 1))
    [ -d "$dir" ] || python3 bench/gen_ddp_ranks.py "$dir" "$ranks" --activities "$activities" \
        --late-rank "$late_rank" >/dev/null || exit 2
    [ "$mode" = import ] || [ -f "$dir.db" ] || "$os" import "$dir" -o "$dir.db" --jobs "$cores" >/dev/null 2>&1 ||
        { echo "import of $dir failed"; exit 1; }
    if [ "$mode" = import ]; then
        # the one process's report of the folder, which every MPI run must print; then no cache
        # beside the folder, so that each MPI run imports (the one-process report wrote one)
        "$os" report --jobs "$cores" "$dir" >"$out/reference-$processes.txt" 2>"$out/reference.err" ||
            { echo "report of $dir failed: $(tail -3 "$out/reference.err")"; exit 1; }
        rm -f "$dir.overlapscope.db"
    fi
done
: >"$out/times"
for round in $(seq "${SCALE_REPEAT:-2}"); do
    for processes in "${counts[@]}"; do
        trace=$out/ranks-$((processes * per))-$activities-late-$late.db
        if [ "$mode" = import ]; then
            trace=${trace%.db}
            rm -f "$out/baseline.db"
            /usr/bin/time -f "%e %M" -o "$out/time" "$os" import --jobs "$processes" "$trace" -o "$out/baseline.db" \
                >"$out/one.txt" 2>&1 || { echo "import failed: $(tail -3 "$out/one.txt")"; exit 1; }
            /usr/bin/time -f "%e %M" -a -o "$out/time" "$os" report --jobs "$processes" "$out/baseline.db" \
                >"$out/one.txt" 2>&1 || { echo "report failed: $(tail -3 "$out/one.txt")"; exit 1; }
            # one row: the sum of the wall times, the larger peak, then the import's and the report's
            awk -v p="$processes" '{ s += $1; if ($2 > m) m = $2; t[NR] = $1 }
                END { printf "one %d %.2f %d %.2f %.2f\n", p, s, m, t[1], t[2] }' "$out/time" >>"$out/times"
            rm -f "$out/baseline.db" "$trace.overlapscope.db"
            cp "$out/reference-$processes.txt" "$out/one.txt"
        else
            /usr/bin/time -f "one $processes %e %M" -o "$out/time" "$os" report --jobs 1 "$trace" \
                >"$out/one.txt" 2>&1 || { echo "report failed: $(tail -3 "$out/one.txt")"; exit 1; }
            cat "$out/time" >>"$out/times"
        fi
        # each MPI process under /usr/bin/time: its CPU seconds, appended one line a process
        : >"$out/cpu"
        [ "$mode" = trace ] || rm -f "$trace.overlapscope.db" # a cache a run left: the next imports too
        /usr/bin/time -f "mpi $processes %e %M" -o "$out/time" "${launch[@]}" -np "$processes" \
            /usr/bin/time -a -o "$out/cpu" -f "%U %S" "$os" report --mpi "$trace" >"$out/mpi.txt" 2>"$out/mpi.err" ||
            { echo "mpirun failed: $(tail -3 "$out/mpi.err")"; exit 1; }
        [ "$(wc -l <"$out/cpu")" = "$processes" ] || { echo "not every MPI process said its CPU time"; exit 1; }
        echo "$(cat "$out/time") $(awk '{ cpu = $1 + $2; if (cpu > max) max = cpu } END { printf "%.2f", max }' \
            "$out/cpu")" >>"$out/times"
        cmp -s "$out/one.txt" "$out/mpi.txt" ||
            { echo "report --mpi with $processes processes differs from one process (round $round)"; exit 1; }
    done
done
python3 - "$out/times" "$per" "$activities" "$cores" "$(uname -n)" "$(mpirun --version 2>&1 | head -1)" "$late" \
    "$mode" <<'PY' | tee "$out/table.txt"
import statistics, sys, time
times, per, activities, cores, host, mpi, late, mode = sys.argv[1:9]
rows = [line.split() for line in open(times)]
def runs(kind, processes):
    return [(float(row[2]), int(row[3]), float(row[4]) if len(row) > 4 else 0.0)
            for row in rows if row[0] == kind and int(row[1]) == processes]
counts = sorted({int(row[1]) for row in rows})
what = ("trace: report --mpi on the trace imported beforehand" if mode == "trace" else
        "import: report --mpi on the folder of rank files, each process importing its block, the import in the time")
print(f"MPI weak scaling on {cores} processors ({host}, {mpi}), {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}: "
      f"mode {what}; "
      f"{per} ranks x {activities} activities a process, late rank: {late}, "
      f"medians of {len(runs('mpi', counts[0]))} interleaved rounds")
if mode == "import":
    # one row per baseline run: the sum, the larger peak, the import's time, the report's
    def parts(processes):
        chosen = [row for row in rows if row[0] == "one" and int(row[1]) == processes]
        return (statistics.median(float(row[4]) for row in chosen), statistics.median(float(row[5]) for row in chosen))
    print("| processes | ranks | import --jobs P + report --jobs P s | (import s + report s) | mpirun report --mpi DIR s "
          "| runs s | efficiency | one process / MPI | peak MB (largest process) | CPU s (busiest process) "
          "| CPU efficiency |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
else:
    print("| processes | ranks | report --jobs 1 s | mpirun report --mpi s | runs s | efficiency | peak MB (largest process) "
          "| CPU s (busiest process) | CPU efficiency |")
    print("|---|---|---|---|---|---|---|---|---|")
base = statistics.median(s for s, _, _ in runs("mpi", counts[0]))
base_cpu = statistics.median(c for _, _, c in runs("mpi", counts[0]))
for processes in counts:
    one = statistics.median(s for s, _, _ in runs("one", processes))
    mpi_runs = runs("mpi", processes)
    mpi_s = statistics.median(s for s, _, _ in mpi_runs)
    cpu = statistics.median(c for _, _, c in mpi_runs)
    peak = max(k for _, k, _ in mpi_runs) // 1024
    listed = ", ".join(f"{s:.2f}" for s, _, _ in mpi_runs)
    if mode == "import":
        imported, reported = parts(processes)
        print(f"| {processes} | {processes * int(per)} | {one:.2f} | ({imported:.2f} + {reported:.2f}) | {mpi_s:.2f} "
              f"| {listed} | {base / max(mpi_s, 0.001):.2f} | {one / max(mpi_s, 0.001):.2f} | {peak} | {cpu:.2f} "
              f"| {base_cpu / max(cpu, 0.001):.2f} |")
    else:
        print(f"| {processes} | {processes * int(per)} | {one:.2f} | {mpi_s:.2f} | {listed} | "
              f"{base / max(mpi_s, 0.001):.2f} | {peak} | {cpu:.2f} | {base_cpu / max(cpu, 0.001):.2f} |")
PY
