#!/usr/bin/env bash
# tests/gpu/capture_range.sh OUTDIR: record --capture-range, --delay and --duration on a real GPU
# (run after tests/gpu/stage.sh, like host_calls.sh). workloads/capture_range runs six phases a
# second apart, each with its own grid (11..16 blocks) and kernel count (3, 5, 7, 4, 2, 1): phase B
# between cudaProfilerStart/Stop, D and E inside NVTX ranges "capture_me" (E nested in "outer").
# Each recording's kernels by grid say which phases the collector captured; the trace's meta must
# say what was asked and how many windows, and info, report and render print the one "captured:"
# line. Writes each trace, its info and a results.txt under OUTDIR (the traces are golden
# candidates); exits 1 when any outcome differs.
set -u
OUT=${1:?usage: capture_range.sh OUTDIR}
cd "$(dirname "$0")/../.."
BUILD=.gpu/build; [ -x build/cli/overlapscope ] && BUILD=build
OS=$BUILD/cli/overlapscope
WL=$BUILD/workloads/capture_range
mkdir -p "$OUT"
failures=0
results=$OUT/results.txt
: >"$results"

# case NAME "GRID:COUNT ..." WINDOWS RANGE_META -- RECORD_OPTIONS...
case_() {
    local name=$1 want=$2 windows=$3 range=$4; shift 5
    local db=$OUT/$name.db
    if ! timeout 120 "$OS" record -o "$db" --force "$@" -- "$WL" >"$OUT/$name.log" 2>&1; then
        echo "FAIL $name: record failed (see $OUT/$name.log)" | tee -a "$results"
        failures=$((failures + 1)); return
    fi
    "$OS" info "$db" >"$OUT/$name.info" 2>&1
    "$OS" report "$db" >"$OUT/$name.report" 2>&1
    "$OS" render "$db" -o "$OUT/$name.png" >"$OUT/$name.render" 2>&1
    python3 - "$db" "$want" "$windows" "$range" "$OUT/$name" <<'PY' | tee -a "$results"
import sqlite3, sys
db_path, want, windows, range_meta, stem = sys.argv[1:]
db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
got = dict(db.execute("SELECT grid_x, COUNT(*) FROM kernels WHERE grid_x BETWEEN 11 AND 16 GROUP BY 1"))
expected = {int(g): int(c) for g, c in (pair.split(":") for pair in want.split())}
meta = dict(db.execute("SELECT key, value FROM meta"))
problems = []
if got != expected:
    problems.append(f"kernels by grid {got}, expected {expected}")
if range_meta == "-":
    if any(k.startswith("capture_") for k in meta):
        problems.append(f"a recording in full has capture meta: {meta}")
else:
    if meta.get("capture_range") != range_meta:
        problems.append(f"meta capture_range {meta.get('capture_range')!r}, expected {range_meta!r}")
    count = len([w for w in meta.get("capture_windows", "").split(",") if w])
    if count != int(windows):
        problems.append(f"{count} capture windows ({meta.get('capture_windows')!r}), expected {windows}")
    # every captured kernel starts inside a window (the collector's claim), within 1 ms
    spans = [tuple(map(int, w.split(":"))) for w in meta.get("capture_windows", "").split(",") if w]
    outside = db.execute("SELECT COUNT(*) FROM kernels").fetchone()[0] - sum(
        db.execute("SELECT COUNT(*) FROM kernels WHERE start_ns >= ? AND start_ns <= ?",
                   (a - 1000000, b + 1000000)).fetchone()[0] for a, b in spans)
    if outside > 0:
        problems.append(f"{outside} kernels start outside every capture window")
    for suffix in ("info", "report", "render"):
        text = open(f"{stem}.{suffix}").read()
        if "captured:" not in text:
            problems.append(f"{suffix} does not say what was captured")
name = stem.rsplit("/", 1)[-1]
print(("PASS " if not problems else "FAIL ") + name + "".join("\n    " + p for p in problems))
sys.exit(1 if problems else 0)
PY
    [ "${PIPESTATUS[0]}" -eq 0 ] || failures=$((failures + 1))
}

all="11:3 12:5 13:7 14:4 15:2 16:1"
case_ whole "$all" 0 - --
case_ profiler_api "12:5" 1 "cudaProfilerApi" -- --capture-range=cudaProfilerApi
case_ nvtx "14:4 15:2" 2 "nvtx:capture_me" -- --capture-range=nvtx:capture_me
case_ nvtx_first "14:4" 1 "nvtx:capture_me@1" -- --capture-range=nvtx:capture_me@1
# phases start at about 0, 1, 2, 3, 4, 5 s after the device opened (cuInit is a little earlier)
case_ delay "13:7 14:4 15:2 16:1" 1 "all, delay 1.5 s" -- --delay 1.5
case_ delay_duration "13:7" 1 "all, delay 1.5 s, duration 1 s" -- --delay 1.5 --duration 1
case_ nvtx_delay "15:2" 1 "nvtx:capture_me, delay 3.5 s" -- --capture-range=nvtx:capture_me --delay 3.5
echo "capture_range: $failures failure(s)" | tee -a "$results"
exit $((failures > 0))
