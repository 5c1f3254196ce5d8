#!/usr/bin/env bash
# The store answers the questions every other module asks (issues 14 and 30, STYLE.md): no C file
# outside store/ prepares SQL against the trace's tables; it calls store/ (describe.h,
# gpu_devices.h, queries_*.h). Checked: every product folder but store/ (which owns the SQL).
# The writers (import/, record/) include no analyzer header either: the vocabulary they share with
# it lives in store/ or common/.
# Tests, benchmarks and fuzz targets build and damage traces on purpose: not checked.
#
# Exceptions, each named with its reason:
# - import/nsys*.c: the Nsight Systems readers query nsys's own SQLite export, not our tables
#   (its schema is nsys's, changing with the nsys version; see import/nsys_parts.h).
# - render/overview.c: owns the render_overview cache table it writes and reads; to move into the
#   store's schema and finishing step (not done yet).
# - the analyzer files still holding their queries (issue 30): each leaves the pending list when
#   its SQL moves into store/queries_*.c, and the check fails when a listed file holds none, so
#   the list only shrinks.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
pattern='sqlite3_prepare\|sqlite3_exec\|sqlite3_step'
exceptions='/import/nsys[a-z_]*\.c$|/render/overview\.c$'
analyzer_pending=()
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
# The writers (import/, record/) share the analyzer's vocabulary through store/ and common/
# (store/op_category.h: categories, copy categories, stream roles), never its headers (issue 30).
analyzer_headers=$(cd "$root/analyzer" && find . -name '*.h' -printf '%f\n' | sed 's/\./\\./g' | paste -sd'|')
writers_found=$(grep -lE "#include \"($analyzer_headers)\"" "$root"/import/*.[ch] "$root"/record/*.[ch] 2>/dev/null)
if [ -z "$analyzer_headers" ]; then
    echo "FAILED: no analyzer header found to check the writers against"; failed=1
elif [ -n "$writers_found" ]; then
    echo "FAILED: writers including analyzer headers (use store/ or common/):"; echo "$writers_found"
    failed=1
fi
[ "$failed" -eq 0 ] || exit 1
echo "1 passed, 0 failed ($checked files of 8 folders and analyzer/ checked)"
