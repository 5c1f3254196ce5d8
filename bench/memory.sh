#!/usr/bin/env bash
# The memory benchmark (issue 33 item 2): peak memory of import, report, render, export and check
# on a generated one-rank, one-device trace (bench/gen_ddp_ranks.py: compute kernels and an NCCL
# kernel per step, every one on the same GPU, the case where the analysis holds the most per
# operation) at two sizes. For each command it prints the peak RSS (/usr/bin/time's maximum
# resident set of the child), the bytes per GPU operation at each size and the slope between them:
# (peak_large - peak_small) / (ops_large - ops_small), the memory each further operation costs,
# free of the fixed costs (the binary, SQLite's page cache, the picture) that an absolute figure
# per operation would mix in and that vary across machines.
# Usage: bench/memory.sh [OUTDIR]; environment: MEMORY_OPS (default "1000000 5000000", two GPU
# operation counts, small first), OVERLAPSCOPE (default build/cli/overlapscope), MEMORY_MAX_SLOPE
# (bytes per operation: exit 1 when a command's slope is above it; unset: only print),
# MEMORY_MAX_SLOPE_EXPORT (export's, when it differs: its kept waits grow with the first 500,000
# operations of this trace, docs/security.md).
# docs/security.md states the figure; the ctest bench_memory_smoke runs this at small sizes with it.
set -u
out=${1:-memory-out}
cd "$(dirname "$0")/.."
os=${OVERLAPSCOPE:-build/cli/overlapscope}
[ -x "$os" ] || { echo "$0: no $os: build first" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "$0: no /usr/bin/time" >&2; exit 2; }
read -r small large <<<"${MEMORY_OPS:-1000000 5000000}"
[ -n "${large:-}" ] && [ "$large" -gt "$small" ] || { echo "$0: MEMORY_OPS: two counts, small first" >&2; exit 2; }
mkdir -p "$out"
commands="import report render export check"

# Runs "$@" under /usr/bin/time; prints its peak RSS in bytes, or fails naming the command.
peak_of() {
    /usr/bin/time -f "%M" -o "$out/time" "$@" >"$out/command.log" 2>&1 ||
        { echo "$0: failed: $* ($(tail -1 "$out/command.log"))" >&2; return 1; }
    echo $(($(tail -1 "$out/time") * 1024))
}

declare -A peak ops
for size in "$small" "$large"; do
    # gen_ddp_ranks.py: 2 * 48 + 3 events per step, of them 49 GPU operations (48 kernels, 1 NCCL).
    activities=$(((size + 48) / 49 * 99))
    dir=$out/ops-$size
    [ -d "$dir" ] || python3 bench/gen_ddp_ranks.py "$dir" 1 --activities "$activities" --jobs 1 >/dev/null ||
        exit 2
    db=$out/ops-$size.db
    peak[import,$size]=$(peak_of "$os" import "$dir" -o "$db" --force) || exit 1
    ops[$size]=$(python3 -c "import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(sum(db.execute('SELECT count(*) FROM ' + t).fetchone()[0] for t in ('kernels', 'memcpys', 'memsets')))" "$db") ||
        exit 2
    peak[report,$size]=$(peak_of "$os" report "$db") || exit 1
    peak[render,$size]=$(peak_of "$os" render "$db" -o "$out/picture.png" --force) || exit 1
    peak[export,$size]=$(peak_of "$os" export "$db" --chrome "$out/export.json" --force) || exit 1
    peak[check,$size]=$(peak_of "$os" check "$db" --min comm_overlap=0) || exit 1
done

echo "memory benchmark ($(uname -n), $(date -u +%FT%TZ)): one device, ${ops[$small]} and ${ops[$large]} GPU operations"
printf '%-8s %10s %9s %10s %9s %12s\n' command small_MB B/op large_MB B/op slope_B/op
status=0
for command in $commands; do
    a=${peak[$command,$small]} b=${peak[$command,$large]}
    slope=$(((b - a) / (ops[$large] - ops[$small])))
    printf '%-8s %10d %9d %10d %9d %12d\n' "$command" $((a / 1048576)) $((a / ops[$small])) \
        $((b / 1048576)) $((b / ops[$large])) "$slope"
    limit=${MEMORY_MAX_SLOPE:-}
    [ "$command" = export ] && limit=${MEMORY_MAX_SLOPE_EXPORT:-$limit}
    if [ -n "$limit" ] && [ "$slope" -gt "$limit" ]; then
        echo "$command: $slope bytes per further operation, above the documented $limit (docs/security.md)"
        status=1
    fi
done
exit $status
