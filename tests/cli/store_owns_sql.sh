#!/usr/bin/env bash
# The store answers the questions every other module asks (issues 14 and 30, STYLE.md): no C file
# outside store/ prepares SQL against the trace's tables; it calls store/ (describe.h,
# gpu_devices.h, queries_*.h). Checked: every product folder but store/ (which owns the SQL).
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
# - the analyzer files still holding their queries (issue 30): each leaves the pending list when
#   its SQL moves into store/queries_*.c, and the check fails when a listed file holds none, so
#   the list only shrinks.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
pattern='sqlite3_prepare\|sqlite3_exec\|sqlite3_step'
exceptions='/import/nsys[a-z_]*\.c$|/render/overview\.c$|/record/record_merge\.c$|/collector/nccl_profiler\.c$'
analyzer_pending=(steps.c kernel_names.c thread_calls.c thread_names.c op_source.c launches.c
    accounting/accounting.c accounting/idle.c accounting/exposed_comm.c)
checked=0
found=""
for folder in cli common collector export import record render report; do
    for file in "$root/$folder"/*.c; do
        [ -e "$file" ] || continue
        checked=$((checked + 1))
        if grep -q "$pattern" "$file" && ! [[ $file =~ $exceptions ]]; then
            found+="${file#"$root"/}"$'\n'
        fi
    done
done
failed=0
if [ "$checked" -lt 50 ]; then
    echo "FAILED: only $checked files checked: the folder list is out of date"; failed=1
fi
if [ -n "$found" ]; then
    echo "FAILED: SQL outside store/ in:"; printf '%s' "$found"; failed=1
fi
exempt='^$'
for file in "${analyzer_pending[@]}"; do
    exempt="$exempt\|^$root/analyzer/$file\$"
    if [ -f "$root/analyzer/$file" ] && ! grep -q "$pattern" "$root/analyzer/$file"; then
        echo "FAILED: analyzer/$file holds no SQL any more: take it off the pending list"; failed=1
    fi
done
analyzer_found=$(grep -rln "$pattern" --include='*.c' --include='*.h' "$root"/analyzer | grep -v "$exempt")
if [ -n "$analyzer_found" ]; then
    echo "FAILED: SQL in the analyzer outside the pending list (ask store/queries_*.h):"; echo "$analyzer_found"
    failed=1
fi
[ "$failed" -eq 0 ] || exit 1
echo "1 passed, 0 failed ($checked files of 8 folders and analyzer/ checked)"
