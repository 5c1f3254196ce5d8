#!/usr/bin/env bash
# The MPI path of the scale benchmark (issue 35 items 2 and 3), weak scaling: P MPI processes
# (1, 2, 4, ...) on a simulated DDP job of P x SCALE_RANKS_PER_PROCESS ranks (bench/gen_ddp_ranks.py,
# imported once per job), `mpirun -np P overlapscope report --mpi`, SCALE_REPEAT rounds, medians;
# printed with the one-process `report --jobs 1` of the same trace and the efficiency
# t(1 process, its job) / t(P processes, P times the job) (1.0: perfect weak scaling). The output is
# checked identical to the one process's. Run it where mpirun is (Debian: openmpi-bin); as root
# set OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.
# Usage: bench/scale_mpi.sh [OUTDIR]; environment: SCALE_PROCESSES (default "1 2 4 8 16", capped at
# the machine's processors), SCALE_RANKS_PER_PROCESS (default 2), SCALE_ACTIVITIES per rank (default
# 250000), SCALE_REPEAT (default 3), OVERLAPSCOPE (default build/cli/overlapscope).
set -u
out=${1:-scale-mpi-out}
cd "$(dirname "$0")/.."
os=${OVERLAPSCOPE:-build/cli/overlapscope}
[ -x "$os" ] || { echo "$0: no $os: build first" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "$0: no mpirun (apt-get install openmpi-bin)" >&2; exit 2; }
mkdir -p "$out"
cores=$(nproc)
per=${SCALE_RANKS_PER_PROCESS:-2}
activities=${SCALE_ACTIVITIES:-250000}
echo "MPI weak scaling on $cores processors ($(uname -n)), $(date -u +%FT%TZ): $per ranks x $activities activities a process"
printf '%-9s %-6s %12s %12s %10s %10s\n' processes ranks one_proc_s mpi_s efficiency peak_MB
base=""
for processes in ${SCALE_PROCESSES:-1 2 4 8 16}; do
    [ "$processes" -le "$cores" ] || continue
    ranks=$((processes * per))
    dir=$out/ranks-$ranks-$activities
    [ -d "$dir" ] || python3 bench/gen_ddp_ranks.py "$dir" "$ranks" --activities "$activities" >/dev/null || exit 2
    [ -f "$dir.db" ] || "$os" import "$dir" -o "$dir.db" --jobs "$cores" >/dev/null 2>&1 || { echo "import failed"; exit 1; }
    : >"$out/times"
    for round in $(seq "${SCALE_REPEAT:-3}"); do
        /usr/bin/time -f "one %e %M" -o "$out/time" "$os" report --jobs 1 "$dir.db" >"$out/one.txt" 2>&1 ||
            { echo "report failed"; exit 1; }
        cat "$out/time" >>"$out/times"
        /usr/bin/time -f "mpi %e %M" -o "$out/time" mpirun -np "$processes" "$os" report --mpi "$dir.db" \
            >"$out/mpi.txt" 2>"$out/mpi.err" || { echo "mpirun failed: $(tail -3 "$out/mpi.err")"; exit 1; }
        cat "$out/time" >>"$out/times"
        cmp -s "$out/one.txt" "$out/mpi.txt" || { echo "report --mpi on $processes differs from one process"; exit 1; }
    done
    read -r one mpi peak < <(python3 - "$out/times" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
one = statistics.median(float(s) for k, s, _ in rows if k == "one")
mpi = statistics.median(float(s) for k, s, _ in rows if k == "mpi")
print(one, mpi, max(int(p) for k, _, p in rows if k == "mpi") // 1024)
PY
)
    [ -n "$base" ] || base=$mpi
    printf '%-9s %-6s %12.2f %12.2f %10.2f %10s\n' "$processes" "$ranks" "$one" "$mpi" \
        "$(python3 -c "print($base / max($mpi, 0.001))")" "$peak"
done
