#!/usr/bin/env bash
# docs/scale.md's 16-core figures in one device call (the GPU machine's CPU; the device tool returns
# few files, so everything lands in OUTDIR/*.txt):
#   bash bench/scale_device_all.sh $OUT      (after tests/gpu/stage.sh here; carry .gpu)
# 1. the machine: lscpu's processors, cores, threads per core (OUTDIR/machine.txt);
# 2. bench/scale.sh: 64 ranks x 50,000 activities imported with 1, 4 and 16 workers and reported
#    with --jobs 1, 4 and 16, 3 rounds interleaved, the phase timing of --jobs 1 and 16
#    (OUTDIR/scale.txt, OUTDIR/timing-64.txt);
# 3. P (SCALE_DEVICE_PROCESSES, default 16) ranks x SCALE_DEVICE_ACTIVITIES (default 1,000,000): report --jobs 1 and --jobs 16, 3 rounds interleaved, and
#    `mpirun -np 16 report --mpi` against one rank of 1,000,000 under `mpirun -np 1` (weak scaling at
#    the issue's rank size), 2 rounds, each output compared with the one process's
#    (OUTDIR/ranks16.txt, the phase tables in OUTDIR/timing-16x1M.txt).
# The machine's own mpirun (Open MPI 4.1) serves; SCALE_* pass through to bench/scale.sh.
set -u
out=${1:?usage: bash bench/scale_device_all.sh OUTDIR}
out=$(mkdir -p "$out" && cd "$out" && pwd) || exit 2
cd "$(dirname "$0")/.." || exit 2
os=${OVERLAPSCOPE:-$PWD/.gpu/build/cli/overlapscope}
p=${SCALE_DEVICE_PROCESSES:-16} activities=${SCALE_DEVICE_ACTIVITIES:-1000000}
[ -x "$os" ] || { echo "$0: no $os: run tests/gpu/stage.sh first" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
lscpu | grep -E '^(CPU\(s\)|Model name|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)|L3 cache)' \
    >"$out/machine.txt"
cat "$out/machine.txt"
SCALE_RANKS=${SCALE_RANKS:-64} SCALE_ACTIVITIES=${SCALE_ACTIVITIES:-50000} SCALE_JOBS=${SCALE_JOBS:-1 4 16} \
    OVERLAPSCOPE=$os bash bench/scale.sh "$work/scale" >"$out/scale.txt" 2>&1
cp "$work"/scale/timing-*.txt "$out/" 2>/dev/null
tail -8 "$out/scale.txt"
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_plm=isolated
mpi=(mpirun); [ "$(id -u)" != 0 ] || mpi+=(--allow-run-as-root)
python3 bench/gen_ddp_ranks.py "$work/r16" "$p" --activities "$activities" --late-rank "$p" --jobs "$p" >/dev/null &&
    python3 bench/gen_ddp_ranks.py "$work/r1" 1 --activities "$activities" --late-rank 1 >/dev/null &&
    "$os" import "$work/r16" -o "$work/r16.db" --jobs "$p" >/dev/null 2>&1 &&
    "$os" import "$work/r1" -o "$work/r1.db" --jobs 1 >/dev/null 2>&1 || { echo "$0: generating failed" >&2; exit 2; }
seconds() { local start end; start=$(date +%s.%N); "$@" >"$work/last.out" 2>>"$work/stderr"; end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.2f}')"; }
{
    for round in 1 2 3; do
        echo "jobs1 $(seconds "$os" report --jobs 1 "$work/r16.db")"; cp "$work/last.out" "$work/one.txt"
        echo "jobs16 $(seconds "$os" report --jobs "$p" "$work/r16.db")"
        cmp -s "$work/last.out" "$work/one.txt" || echo "DIFFERENT: --jobs 16"
        if [ "$round" -le 2 ]; then
            echo "mpi1 $(seconds "${mpi[@]}" -np 1 "$os" report --mpi "$work/r1.db")"
            echo "mpi16 $(seconds "${mpi[@]}" -np "$p" "$os" report --mpi "$work/r16.db")"
            cmp -s "$work/last.out" "$work/one.txt" || echo "DIFFERENT: --mpi 16"
        fi
    done
} >"$work/runs.txt"
OVERLAPSCOPE_TIMING=1 "$os" report --jobs "$p" "$work/r16.db" >/dev/null 2>"$out/timing-16x1M.txt"
OVERLAPSCOPE_TIMING=1 "${mpi[@]}" -np "$p" "$os" report --mpi "$work/r16.db" >/dev/null 2>>"$out/timing-16x1M.txt"
python3 - "$work/runs.txt" "$p" "$activities" <<'PY' | tee "$out/ranks16.txt"
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, value = line.split()[:2]
    if name == "DIFFERENT:":
        print(line.strip())
        continue
    runs.setdefault(name, []).append(float(value))
m = {k: statistics.median(v) for k, v in runs.items()}
p, activities = sys.argv[2], int(sys.argv[3])
print(f"{p} ranks x {activities:,} activities (medians; runs):", {k: v for k, v in runs.items()})
print(f"report --jobs 1 {m['jobs1']:.2f} s, --jobs {p} {m['jobs16']:.2f} s: {m['jobs1'] / m['jobs16']:.2f}x")
print(f"mpirun -np 1 (1 rank) {m['mpi1']:.2f} s, -np {p} ({p} ranks) {m['mpi16']:.2f} s: weak-scaling efficiency"
      f" {m['mpi1'] / m['mpi16']:.2f}")
PY
