#!/usr/bin/env bash
# The store answers the questions the CLI and the painter ask (issue 14, STYLE.md): no file of
# cli/ or render/ prepares SQL against the trace's tables; they call store/ (describe.h,
# gpu_devices.h). render/overview.c is the one exception left: it owns the render_overview
# table it writes (to move into the store's schema with the writers' finishing step).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
found=$(grep -ln 'sqlite3_prepare\|sqlite3_exec\|sqlite3_step' "$root"/cli/*.c "$root"/render/*.c | grep -v '/render/overview\.c$')
if [ -n "$found" ]; then
    echo "FAILED: SQL outside store/ in:"; echo "$found"; exit 1
fi
echo "1 passed, 0 failed"
