#!/usr/bin/env bash
# The store answers the questions every other module asks (issues 14 and 30, STYLE.md): no C file
# outside store/ prepares SQL against the trace's tables; it calls store/ (describe.h,
# gpu_devices.h, queries_export.h, queries_merge.h, ...). Checked: every product folder but store/
# (which owns the SQL) and analyzer/ (its queries move into the store in a later step of issue 30).
# Tests, benchmarks and fuzz targets build and damage traces on purpose: not checked.
#
# Exceptions, each named with its reason:
# - import/nsys*.c: the Nsight Systems readers query nsys's own SQLite export, not our tables
#   (its schema is nsys's, changing with the nsys version; see import/nsys_parts.h).
# - render/overview.c: owns the render_overview cache table it writes and reads; to move into the
#   store's schema and finishing step (not done yet).
# - record/record_merge.c: salvages a damaged per-process file row by row before the merge; to
#   move into store/ (not done yet).
# - collector/nccl_profiler.c: the NCCL profiler plugin's lookups of rows it wrote; to move into
#   store/ (not done yet).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
exceptions='/import/nsys[a-z_]*\.c$|/render/overview\.c$|/record/record_merge\.c$|/collector/nccl_profiler\.c$'
checked=0
found=""
for folder in cli common collector export import record render report; do
    for file in "$root/$folder"/*.c; do
        [ -e "$file" ] || continue
        checked=$((checked + 1))
        if grep -q 'sqlite3_prepare\|sqlite3_exec\|sqlite3_step' "$file" && ! [[ $file =~ $exceptions ]]; then
            found+="${file#"$root"/}"$'\n'
        fi
    done
done
if [ "$checked" -lt 50 ]; then
    echo "FAILED: only $checked files checked: the folder list is out of date"; exit 1
fi
if [ -n "$found" ]; then
    echo "FAILED: SQL outside store/ in:"; printf '%s' "$found"; exit 1
fi
echo "1 passed, 0 failed ($checked files of 8 folders checked)"
