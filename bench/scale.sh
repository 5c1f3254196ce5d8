#!/usr/bin/env bash
# The scale benchmark (issue 35 item 3): a simulated N-rank DDP job (bench/gen_ddp_ranks.py, one
# Kineto file per rank, one late rank) imported with 1, 2, 4, ... workers (`import --jobs`) and
# reported, printing per N and worker count the wall time, the speed-up over one worker in the same
# run and the peak memory (from /usr/bin/time); then `report --jobs N` on the same trace, rounds
# interleaved, medians (the output checked identical for every N). Run it on a quiet machine with many cores (the GPU
# machine's CPU through the device tool); a shared 2-core VM moves figures by +-25%.
# The import line also gives the CPU seconds (user + system) the import took: on a shared machine
# the wall time moves with the neighbours' load, the CPU time much less.
# Usage: bench/scale.sh [OUTDIR]; environment: SCALE_RANKS (default "8 64"), SCALE_ACTIVITIES per
# rank (default 250000), SCALE_JOBS (default "1 2 4 8 16", capped at the machine's processors),
# SCALE_REPORT (default 1; 0: the imports only), OVERLAPSCOPE (default build/cli/overlapscope),
# SCALE_TIMING_JOBS (default "1 16": the report's phase timing, OUTDIR/timing-RANKS.txt, the largest
# also as OUTDIR/timing-largest.txt and printed at the end).
set -u
out=${1:-scale-out}
cd "$(dirname "$0")/.."
os=${OVERLAPSCOPE:-build/cli/overlapscope}
[ -x "$os" ] || { echo "$0: no $os: build first" >&2; exit 2; }
mkdir -p "$out"
cores=$(nproc)
echo "scale benchmark on $cores processors ($(uname -n)), $(date -u +%FT%TZ)"
printf '%-6s %-11s %-5s %10s %8s %10s %10s %8s\n' ranks activities jobs import_s speedup peak_MB report_s cpu_s
for ranks in ${SCALE_RANKS:-8 64}; do
    activities=${SCALE_ACTIVITIES:-250000}
    dir=$out/ranks-$ranks-$activities
    [ -d "$dir" ] || python3 bench/gen_ddp_ranks.py "$dir" "$ranks" --activities "$activities" || exit 2
    base=""
    for jobs in ${SCALE_JOBS:-1 2 4 8 16}; do
        [ "$jobs" -le "$cores" ] || continue
        /usr/bin/time -f "%e %M %U %S" -o "$out/time" "$os" import "$dir" -o "$out/trace.db" --force --jobs "$jobs" \
            >"$out/import.log" 2>&1 || { echo "import failed: $(tail -1 "$out/import.log")"; exit 1; }
        read -r seconds peak_kb user_s system_s <"$out/time"
        [ -n "$base" ] || base=$seconds
        report_s=-
        if [ "$jobs" = 1 ] && [ "${SCALE_REPORT:-1}" != 0 ]; then
            /usr/bin/time -f "%e %M" -o "$out/time" "$os" report "$out/trace.db" >"$out/report.txt" 2>&1
            read -r report_s _ <"$out/time"
        fi
        printf '%-6s %-11s %-5s %10s %8.2f %10d %10s %8.2f\n' "$ranks" "$activities" "$jobs" "$seconds" \
            "$(python3 -c "print($base / max($seconds, 0.001))")" $((peak_kb / 1024)) "$report_s" \
            "$(python3 -c "print($user_s + $system_s)")"
    done
    [ "${SCALE_REPORT:-1}" != 0 ] || continue
    # The analysis on a worker pool (`report --jobs N`, one device per worker at a time): the same
    # trace reported with each worker count, SCALE_REPEAT rounds interleaved, medians.
    : >"$out/report_times"
    for round in $(seq "${SCALE_REPEAT:-3}"); do
        for jobs in ${SCALE_JOBS:-1 2 4 8 16}; do
            [ "$jobs" -le "$cores" ] || continue
            /usr/bin/time -f "%e %M" -o "$out/time" "$os" report --jobs "$jobs" "$out/trace.db" \
                >"$out/report-$jobs.txt" 2>&1 || { echo "report --jobs $jobs failed"; exit 1; }
            echo "$jobs $(cat "$out/time")" >>"$out/report_times"
            cmp -s "$out/report-$jobs.txt" "$out/report-1.txt" 2>/dev/null ||
                [ ! -f "$out/report-1.txt" ] || { echo "report --jobs $jobs differs from --jobs 1"; exit 1; }
        done
    done
    # Where the time goes (OVERLAPSCOPE_TIMING=1, common/phase_timing.h): each phase's wall time and
    # the CPU time of the run's thread and of the workers, for one worker and the most; the table of
    # the last (largest) SCALE_RANKS is the one to read.
    : >"$out/timing-$ranks.txt"
    for jobs in ${SCALE_TIMING_JOBS:-1 16}; do
        [ "$jobs" -le "$cores" ] || jobs=$cores
        OVERLAPSCOPE_TIMING=1 "$os" report --jobs "$jobs" "$out/trace.db" >/dev/null 2>>"$out/timing-$ranks.txt"
    done
    cp "$out/timing-$ranks.txt" "$out/timing-largest.txt"
    python3 - "$out/report_times" "$ranks" "$activities" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
by = {}
for jobs, seconds, peak in rows:
    by.setdefault(int(jobs), []).append((float(seconds), int(peak)))
base = statistics.median(s for s, _ in by[1])
for jobs in sorted(by):
    median = statistics.median(s for s, _ in by[jobs])
    peak = max(p for _, p in by[jobs]) // 1024
    print(f"report --jobs {jobs:<3} ranks {sys.argv[2]} x {sys.argv[3]}: {median:.2f} s (median of "
          f"{len(by[jobs])}), speed-up {base / median:.2f}, peak {peak} MB")
PY
done
[ ! -f "$out/timing-largest.txt" ] || { echo "phase timing of the largest run ($out/timing-largest.txt):"; cat "$out/timing-largest.txt"; }
