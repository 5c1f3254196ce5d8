#!/usr/bin/env bash
# Issue 7.1 on a GPU machine: a workload that segfaults, aborts, calls _exit, is SIGKILLed or
# SIGTERMed in the middle of a long run. For each: `record` exits with the workload's status and
# names what happened; the database opens and is analyzed; it holds every kernel that had finished
# one flush period (+ margin) before the end. Usage: tests/gpu/faults.sh OUTDIR
set -u
out=${1:?usage: faults.sh OUTDIR}
mkdir -p "$out"; out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
os=${OVERLAPSCOPE:-$root/build/cli/overlapscope}
[ -z "${OVERLAPSCOPE:-}" ] && [ -x "$root/.gpu/build/cli/overlapscope" ] && os=$root/.gpu/build/cli/overlapscope
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
flush_ms=500
margin_ms=$((2 * flush_ms))
failed=0
timeout 120 "$nvcc" -arch="${ARCH:-sm_90}" -O2 -o "$out/fault" "$here/fault.cu" >"$out/nvcc.log" 2>&1 ||
    { echo "FAIL build: $(tail -3 "$out/nvcc.log")"; exit 1; }

# run MODE WANT_STATUS WANT_MESSAGE [external signal]
run() {
    local mode=$1 want=$2 message=$3 external=${4:-}
    local db=$out/fault_$mode.db
    if [ -n "$external" ]; then
        # Signal the workload itself (not record), as a batch system or the OOM killer would.
        "$os" record --force --flush-ms $flush_ms -o "$db" -- "$out/fault" wait >"$out/$mode.out" 2>"$out/$mode.err" &
        local rec=$!
        sleep 5
        pkill "-$external" -x fault # the workload alone, never record
        wait $rec; status=$?
    else
        timeout 60 "$os" record --force --flush-ms $flush_ms -o "$db" -- "$out/fault" "$mode" 3 \
            >"$out/$mode.out" 2>"$out/$mode.err"
        status=$?
    fi
    local verdict
    verdict=$(python3 - "$db" "$out/$mode.out" "$margin_ms" <<'PY'
import sqlite3, sys
db, progress, margin = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = [l.split() for l in open(progress) if l.startswith("completed ")]
if not lines:
    print("no progress lines"); sys.exit()
end_ms = float(lines[-1][3])
must = max([int(l[1]) for l in lines if float(l[3]) <= end_ms - margin] or [0])
launched = int(lines[-1][1]) + 10
try:
    got = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
        "SELECT COUNT(*) FROM kernels k JOIN strings s ON s.id = k.name_id WHERE s.value LIKE '%fault_spin%'").fetchone()[0]
except Exception as e:
    print(f"database unreadable: {e}"); sys.exit()
ok = must <= got <= launched
print(("ok " if ok else "") + f"{got} kernels stored; {must} had finished {margin:.0f} ms before the end; {launched} launched")
PY
)
    local report_ok=yes
    "$os" report "$db" >"$out/$mode.report" 2>&1 || report_ok=no
    local said=no
    grep -q "$message" "$out/$mode.err" && said=yes
    if [ "$status" = "$want" ] && [[ $verdict == ok* ]] && [ $report_ok = yes ] && [ $said = yes ]; then
        printf 'PASS %-6s exit %s, %s, report ok\n' "$mode" "$status" "${verdict#ok }"
    else
        printf 'FAIL %-6s exit %s (want %s), %s, report %s, message %s: %s\n' "$mode" "$status" "$want" \
            "${verdict#ok }" "$report_ok" "$said" "$(tail -1 "$out/$mode.err")"
        failed=1
    fi
}
run segv 139 "signal 11"
run abort 134 "signal 6"
run exit 3 "exited with status 3"
run kill 137 "signal 9"
run term 143 "signal 15"
run sigkill-external 137 "signal 9" KILL
run sigterm-external 143 "signal 15" TERM
# Diagnostic: the same crash with forced periodic flushes (records of running work are skipped).
OVERLAPSCOPE_FLUSH_FORCED=1 timeout 60 "$os" record --force --flush-ms $flush_ms -o "$out/fault_forced.db" -- \
    "$out/fault" segv 3 >"$out/forced.out" 2>"$out/forced.err"
python3 - "$out/fault_forced.db" "$out/forced.out" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
kernels = db.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
note = [m for (m,) in db.execute("SELECT message FROM warnings WHERE code = 'incomplete-records'")]
done = sum(1 for l in open(sys.argv[2]) if l.startswith("completed ")) * 10
print(f"INFO segv with forced flushes: {kernels} kernels stored, {done} completed; {note or 'no incomplete records'}")
PY

# Issue 7.5: eight processes recording at once (a shell starts them), one merged database.
timeout 90 "$os" record --force -o "$out/eight.db" -- bash -c \
    'for i in 1 2 3 4 5 6 7 8; do "$0" ok 2 >/dev/null & done; wait' "$out/fault" >"$out/eight.out" 2>"$out/eight.err"
status=$?
eight=$(python3 - "$out/eight.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT p.pid, COUNT(k.rowid) FROM processes p JOIN kernels k USING (process_id) GROUP BY p.process_id").fetchall()
print(len(rows), min((n for _, n in rows), default=0))
PY
)
read -r procs least <<<"${eight:-0 0}"
if [ "$status" = 0 ] && [ "${procs:-0}" = 8 ] && [ "${least:-0}" -ge 10 ]; then
    echo "PASS eight  8 processes recorded at once, each with >= $least kernels, one database"
else
    echo "FAIL eight  exit $status, $procs processes with kernels (want 8), fewest kernels $least: $(tail -1 "$out/eight.err")"
    failed=1
fi
exit $failed
