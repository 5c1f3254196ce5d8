#!/usr/bin/env bash
# Where report's CPU goes, phase by phase, for each worker count (issue 35: the workers of
# `report --jobs N` spent several times the CPU one thread spends on the same phases). Runs
# `OVERLAPSCOPE_TIMING=1 overlapscope report --jobs J TRACE` for every J and every binary, rounds
# interleaved, and prints per phase the medians of the wall time, the run's thread's CPU and the
# workers' CPU, then the CPU of all threads (main + workers) as a multiple of one thread's (--jobs 1
# of the same binary). CPU seconds are steadier than wall seconds on a shared machine.
# Usage: bench/phase_cpu.sh TRACE [OUTDIR]; environment: PHASE_JOBS (default "1 2"), PHASE_ROUNDS
# (default 5), PHASE_BINARIES (default build/cli/overlapscope; several, space-separated, to compare
# a baseline and a change on the same trace; commas in an entry become spaces, so that
# "env,GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456,build/cli/overlapscope" runs that binary
# under that setting). Each binary's output must be the same for every J.
# On the 16-core machine: a trace of bench/gen_ddp_ranks.py (64 ranks x 50,000 activities, imported
# with `overlapscope import --jobs 16`), PHASE_JOBS="1 16"; OUTDIR/phase-cpu.txt holds the table.
set -u
trace=${1:?usage: bench/phase_cpu.sh TRACE [OUTDIR]}
out=${2:-phase-cpu-out}
cd "$(dirname "$0")/.." || exit 2
mkdir -p "$out"
binaries=${PHASE_BINARIES:-build/cli/overlapscope}
for os in $binaries; do
    binary=${os##*,}
    [ -x "$binary" ] || { echo "$0: no $binary: build first" >&2; exit 2; }
done
: >"$out/timings"
for round in $(seq "${PHASE_ROUNDS:-5}"); do
    b=0
    for os in $binaries; do
        b=$((b + 1))
        for jobs in ${PHASE_JOBS:-1 2}; do
            # shellcheck disable=SC2086 # an entry's commas: its words
            OVERLAPSCOPE_TIMING=1 ${os//,/ } report --jobs "$jobs" "$trace" >"$out/report-$b-$jobs.txt" \
                2>"$out/timing.txt" || { echo "$os report --jobs $jobs failed" >&2; exit 1; }
            cmp -s "$out/report-$b-$jobs.txt" "$out/report-$b-1.txt" || [ ! -f "$out/report-$b-1.txt" ] ||
                { echo "$os: report --jobs $jobs differs from --jobs 1" >&2; exit 1; }
            sed "s|^|$b $round |" "$out/timing.txt" >>"$out/timings"
        done
    done
done
python3 - "$out/timings" "$binaries" <<'PY' | tee "$out/phase-cpu.txt"
import re, statistics, sys
binaries = sys.argv[2].split()
rows = {}  # (binary, jobs) -> phase -> [(wall, main, workers)]
order = []
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) \d+ timing \(jobs (\d+)\): (.*?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)(\s+\(parallel\))?$",
                 line.rstrip("\n"))
    if not m:
        continue
    b, jobs, phase = int(m[1]), int(m[2]), m[3]
    if phase not in order:
        order.append(phase)
    rows.setdefault((b, jobs), {}).setdefault(phase, []).append(tuple(float(m[i]) for i in (4, 5, 6)))
med = lambda xs, i: statistics.median(x[i] for x in xs)
for (b, jobs) in sorted(rows):
    phases = rows[(b, jobs)]
    one = rows.get((b, 1), {})
    n = len(next(iter(phases.values())))
    print(f"{binaries[b - 1]} --jobs {jobs} (medians of {n}): phase, wall s, main CPU, workers CPU,"
          " CPU / one thread's")
    for phase in order:
        if phase not in phases:
            continue
        wall, main, workers = (med(phases[phase], i) for i in range(3))
        ratio = ""
        if phase in one and jobs != 1:
            base = med(one[phase], 1) + med(one[phase], 2)
            ratio = f"{(main + workers) / base:8.2f}x" if base > 0.005 else ""
        print(f"  {phase:40s} {wall:7.3f} {main:7.3f} {workers:7.3f} {ratio}")
PY
