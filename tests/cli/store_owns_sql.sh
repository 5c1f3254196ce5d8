#!/usr/bin/env bash
# The store answers the questions every other module asks (issues 14 and 30, STYLE.md): no C file
# (.c or .h, subfolders included) outside store/ prepares, executes or steps SQL; it calls store/
# (describe.h, gpu_devices.h, queries_*.h). Checked: every product folder but store/ (which owns
# the SQL).
# The writers (import/, record/) include no analyzer header either: the vocabulary they share with
# it lives in store/ or common/.
# Tests, benchmarks and fuzz targets build and damage traces on purpose: not checked.
#
# The one exception, with its reason:
# - import/nsys*.c: the Nsight Systems readers query nsys's own SQLite export, not our tables
#   (its schema is nsys's, changing with the nsys version; see import/nsys_parts.h).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
pattern='sqlite3_prepare\|sqlite3_exec\|sqlite3_step'
exceptions='^import/nsys[a-z_]*\.c$'
folders=(analyzer cli common collector export import record render report)
checked=0
found=""
for file in $(cd "$root" && find "${folders[@]}" -name '*.[ch]' | sort); do
    checked=$((checked + 1))
    if grep -q "$pattern" "$root/$file" && ! [[ $file =~ $exceptions ]]; then
        found+="$file"$'\n'
    fi
done
failed=0
if [ "$checked" -lt 200 ]; then
    echo "FAILED: only $checked files checked: the folder list is out of date"; failed=1
fi
if [ -n "$found" ]; then
    echo "FAILED: SQL outside store/ in (ask store/queries_*.h):"; printf '%s' "$found"; failed=1
fi
if ! (cd "$root" && find import -name 'nsys*.c' | xargs grep -l "$pattern" >/dev/null); then
    echo "FAILED: no nsys reader holds SQL any more: take import/nsys*.c off the exceptions"; failed=1
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
echo "1 passed, 0 failed ($checked files of ${#folders[@]} folders checked)"
