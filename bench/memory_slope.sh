#!/usr/bin/env bash
# The memory slope at scale (issue 33 item 2): writes bench/memory_trace.c's trace (one device,
# every operation on it) at two sizes, runs `report` once on each under /usr/bin/time, and fails
# when the peak resident memory grows faster than MEMORY_MAX_SLOPE bytes per further GPU operation,
# the figure docs/security.md states: (peak_large - peak_small) / (ops_large - ops_small), free of
# the fixed costs (the binary, SQLite's page cache) that vary across machines. bench/memory.sh
# measures every command on an imported trace; this one the analysis at millions of operations,
# in CI's time (the ctest memory_slope).
# Usage: bench/memory_slope.sh OUTDIR; environment: MEMORY_OPS (default "1000000 5000000"),
# MEMORY_MAX_SLOPE (required), OVERLAPSCOPE and MEMORY_TRACE (the two binaries, default under build/).
set -u
out=${1:?usage: $0 OUTDIR}
cd "$(dirname "$0")/.."
os=${OVERLAPSCOPE:-build/cli/overlapscope}
generate=${MEMORY_TRACE:-build/bench/bench_memory_trace}
limit=${MEMORY_MAX_SLOPE:?MEMORY_MAX_SLOPE: the documented bytes per operation}
for tool in "$os" "$generate"; do
    [ -x "$tool" ] || { echo "$0: no $tool: build first" >&2; exit 2; }
done
command -v /usr/bin/time >/dev/null || { echo "$0: no /usr/bin/time" >&2; exit 2; }
read -r small large <<<"${MEMORY_OPS:-1000000 5000000}"
[ -n "${large:-}" ] && [ "$large" -gt "$small" ] || { echo "$0: MEMORY_OPS: two counts, small first" >&2; exit 2; }
mkdir -p "$out"

declare -A peak ops
# The large trace is written while the small one is analysed (two cores: about half the wall time);
# each peak is its own process's.
"$generate" "$out/ops-$large.db" "$large" >"$out/ops-$large.count" 2>&1 &
writer=$!
for size in "$small" "$large"; do
    db=$out/ops-$size.db
    if [ "$size" = "$large" ]; then
        wait "$writer" || { echo "$0: could not write $db: $(tail -1 "$out/ops-$large.count")" >&2; exit 2; }
        ops[$size]=$(tail -1 "$out/ops-$large.count")
    else
        ops[$size]=$("$generate" "$db" "$size") || { echo "$0: could not write $db" >&2; wait; exit 2; }
    fi
    /usr/bin/time -f "%M" -o "$out/time" "$os" report "$db" >"$out/report.log" 2>&1 ||
        { echo "$0: report $db failed: $(tail -1 "$out/report.log")" >&2; wait; exit 1; }
    peak[$size]=$(($(tail -1 "$out/time") * 1024))
    rm -f "$db" "$db-wal" "$db-shm" "$db.lock"
done
slope=$(((peak[$large] - peak[$small]) / (ops[$large] - ops[$small])))
printf 'report: %d MB at %d GPU operations, %d MB at %d: %d bytes per further operation (limit %d)\n' \
    $((peak[$small] / 1048576)) "${ops[$small]}" $((peak[$large] / 1048576)) "${ops[$large]}" "$slope" "$limit"
if [ "$slope" -gt "$limit" ]; then
    echo "report: $slope bytes per further operation, above the documented $limit (docs/security.md)"
    exit 1
fi
