#!/usr/bin/env bash
# The folder import at scale (issue 35: 256 ranks x 1M activities imported and analysed in <= 5 min
# on 16 cores): a simulated N-rank DDP job (bench/gen_ddp_ranks.py) imported with 1, 4, 16 workers
# (`import --jobs N`), rounds interleaved, medians of the wall time and of the CPU time (user +
# system), the peak memory; then one run per worker count with OVERLAPSCOPE_TIMING=1 (the phases:
# the workers' CPU reading files into parts, the one writer's CPU appending them, the finalize and
# the overview), and from those phases the rows/s the writer sustains, the workers' CPU per
# activity and what 256 ranks x 1M activities would take here (the writer's serial bound against
# the parse spread over the processors, plus the serial finish; linear extrapolation).
# Usage: bench/import_scale.sh [OUTDIR] (default $OUT when set, else import-scale-out); environment:
# IMPORT_RANKS (default 64), IMPORT_ACTIVITIES per rank (default 50000), IMPORT_JOBS (default
# "1 4 16", capped at the machine's processors), IMPORT_REPEAT rounds (default 3), OVERLAPSCOPE
# (default build/cli/overlapscope). On the 16-core GPU machine, from the lead's checkout:
#   cmake --build build -j16 && bench/import_scale.sh "$OUT"
# OUTDIR/import_scale.txt holds what is printed; OUTDIR/timing-J.txt each worker count's phases.
set -u
out=${1:-${OUT:-import-scale-out}}
cd "$(dirname "$0")/.."
os=${OVERLAPSCOPE:-build/cli/overlapscope}
[ -x "$os" ] || { echo "$0: no $os: build first" >&2; exit 2; }
mkdir -p "$out"
cores=$(nproc)
ranks=${IMPORT_RANKS:-64}
activities=${IMPORT_ACTIVITIES:-50000}
data=$out/ranks-$ranks-$activities
[ -d "$data" ] || python3 bench/gen_ddp_ranks.py "$data" "$ranks" --activities "$activities" || exit 2
jobs_list=""
for jobs in ${IMPORT_JOBS:-1 4 16}; do
    [ "$jobs" -le "$cores" ] && jobs_list="$jobs_list $jobs"
done
{
    echo "import scale on $cores processors ($(uname -n)), $(date -u +%FT%TZ), $ranks ranks x $activities activities"
    : >"$out/times"
    for round in $(seq "${IMPORT_REPEAT:-3}"); do
        for jobs in $jobs_list; do
            /usr/bin/time -f "%e %M %U %S" -o "$out/time" "$os" import "$data" -o "$out/trace.db" --force \
                --jobs "$jobs" >"$out/import.log" 2>&1 || { echo "import --jobs $jobs failed: $(tail -1 "$out/import.log")"; exit 1; }
            echo "$jobs $(cat "$out/time")" >>"$out/times"
        done
    done
    cp "$out/import.log" "$out/summary.txt" # the rows the trace holds (the same for every worker count)
    for jobs in $jobs_list; do
        OVERLAPSCOPE_TIMING=1 "$os" import "$data" -o "$out/trace.db" --force --jobs "$jobs" \
            >/dev/null 2>"$out/timing-$jobs.txt"
        cat "$out/timing-$jobs.txt"
    done
    python3 - "$out" "$ranks" "$activities" "$cores" $jobs_list <<'PY'
import re, statistics, sys
out, ranks, activities, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
jobs_list = [int(j) for j in sys.argv[5:]]
by = {}
for line in open(f"{out}/times"):
    jobs, wall, peak, user, system = line.split()
    by.setdefault(int(jobs), []).append((float(wall), float(user) + float(system), int(peak)))
summary = open(f"{out}/summary.txt").read()
rows = sum(int(n.replace(",", "")) for n, what in re.findall(
    r"([\d,]+) (kernels?|memcpys?|memsets?|API calls?|NVTX ranges?|collectives?)\b", summary))
print(f"{ranks} ranks x {activities} activities: {rows} rows of activity")
print(f"{'jobs':>4} {'wall s':>8} {'CPU s':>8} {'us CPU/row':>10} {'peak MB':>8}   (medians of {len(by[jobs_list[0]])})")
for jobs in jobs_list:
    wall = statistics.median(w for w, _, _ in by[jobs])
    cpu = statistics.median(c for _, c, _ in by[jobs])
    peak = max(p for _, _, p in by[jobs]) // 1024
    print(f"{jobs:>4} {wall:>8.2f} {cpu:>8.2f} {cpu / rows * 1e6:>10.2f} {peak:>8}")

def phases(jobs):
    found = {}
    for line in open(f"{out}/timing-{jobs}.txt"):
        m = re.match(r"timing \(jobs \d+\): (.+?)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)(  \(parallel\))?$", line)
        if m:
            found[m.group(1).strip()] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))
    return found

target = 256 * 1_000_000 / activities * rows / ranks  # rows of 256 ranks x 1M activities
for jobs in jobs_list:
    p = phases(jobs)
    finish = sum(p[k][0] for k in p if k.startswith(("finalize", "finish", "warnings", "close")))
    if "append parts" in p:
        writer_cpu, workers_cpu = p["append parts"][1], p["read files (workers)"][2]
        print(f"jobs {jobs}: the writer appends {rows / writer_cpu:,.0f} rows/s of its CPU "
              f"({writer_cpu:.2f} s), the workers read {workers_cpu / rows * 1e6:.2f} us CPU per row "
              f"({workers_cpu:.2f} s), finish {finish:.2f} s")
        writer_s, parse_s = writer_cpu * target / rows, workers_cpu * target / rows / jobs
        print(f"  256 ranks x 1M here with {jobs} workers: writer {writer_s:.0f} s, parse {parse_s:.0f} s on "
              f"{jobs} workers, then finish {finish * target / rows:.0f} s: about "
              f"{max(writer_s, parse_s) + finish * target / rows:.0f} s")
    else:
        read = p.get("read files (parse, insert)", (0, 0, 0))[1] + p.get("check rows (plausible)", (0, 0, 0))[1]
        print(f"jobs {jobs}: one thread reads and writes {read / rows * 1e6:.2f} us CPU per row ({read:.2f} s), "
              f"finish {finish:.2f} s")
PY
} 2>&1 | tee "$out/import_scale.txt"
