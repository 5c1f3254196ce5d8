#!/usr/bin/env bash
# The store answers the questions the CLI, the painter and the analyzer ask (issues 14 and 30,
# STYLE.md): no file of cli/, render/ or analyzer/ prepares SQL against the trace's tables; they
# call store/ (describe.h, gpu_devices.h, queries_*.h). render/overview.c is the one exception left
# in render/: it owns the render_overview table it writes (to move into the store's schema with the
# writers' finishing step). The analyzer's files below still hold their queries (issue 30, step 5):
# each leaves the list when its SQL moves into store/queries_*.c, and the check fails when a listed
# file holds none, so the list only shrinks.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
pattern='sqlite3_prepare\|sqlite3_exec\|sqlite3_step'
analyzer_pending=(analysis.c steps.c kernel_names.c thread_calls.c thread_names.c op_source.c launches.c
    accounting/accounting.c accounting/idle.c accounting/exposed_comm.c whatif.c)
failed=0
found=$(grep -ln "$pattern" "$root"/cli/*.c "$root"/render/*.c | grep -v '/render/overview\.c$')
if [ -n "$found" ]; then
    echo "FAILED: SQL outside store/ in:"; echo "$found"; failed=1
fi
exempt='^$'
for file in "${analyzer_pending[@]}"; do
    exempt="$exempt\|^$root/analyzer/$file\$"
    if [ -f "$root/analyzer/$file" ] && ! grep -q "$pattern" "$root/analyzer/$file"; then
        echo "FAILED: analyzer/$file holds no SQL any more: take it off the pending list"; failed=1
    fi
done
found=$(grep -rln "$pattern" --include='*.c' --include='*.h' "$root"/analyzer | grep -v "$exempt")
if [ -n "$found" ]; then
    echo "FAILED: SQL in the analyzer outside the pending list (ask store/queries_*.h):"; echo "$found"; failed=1
fi
[ "$failed" -eq 0 ] || exit 1
echo "1 passed, 0 failed"
