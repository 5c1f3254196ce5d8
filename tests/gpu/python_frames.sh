#!/usr/bin/env bash
# GPU check of the collector's call sources (issue 16 Must 3; collector/call_site.h), run by the
# lead on a GPU machine with PyTorch. Usage: tests/gpu/python_frames.sh OUTDIR
#   OVERLAPSCOPE  the CLI (default .gpu/build/cli/overlapscope as tests/gpu/stage.sh stages it, else
#                 build/cli/overlapscope)     PYTHON  python3 with torch (default /opt/torch/.venv/bin/python3)
#   RUNS          interleaved runs per variant for the cost comparison (default 5)
# tests/gpu/torch_python_frames.py trains with a DataLoader (2 worker processes, pin-memory thread),
# autograd, a side Python thread reading a value back every 5 ms, and torch.cuda.synchronize() and
# loss.item() at known lines. Asserts:
#   1. every recorded run finishes within its timeout (no deadlock between the capture, the GIL and CUDA);
#   2. `report --json` names "FILE:SYNC_LINE main" as the source of the cudaDeviceSynchronize host-sync
#      idle cause, and the text report says "at FILE:SYNC_LINE main";
#   3. call_sources holds Python rows for the .item() line (main thread) and the side thread's line
#      (side_worker), and no call-sources warning (CPython of the GPU image has a known layout);
#   4. the median step time with sources and with OVERLAPSCOPE_CALL_SOURCES=0 (median over RUNS
#      interleaved recorded runs of each) differ by less than 5%;
#   5. a C program (workloads/host_sync --op device-sync, cudaDeviceSynchronize in main) gets native
#      sources: the most frequent "main+0xOFF (host_sync)", every one a function of host_sync.
# Prints PASS/FAIL lines; exits 1 if anything failed. Budget: about 3 minutes.
set -u
out=${1:?usage: python_frames.sh OUTDIR}
mkdir -p "$out"; out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
os=${OVERLAPSCOPE:-$root/build/cli/overlapscope}
[ -z "${OVERLAPSCOPE:-}" ] && [ -x "$root/.gpu/build/cli/overlapscope" ] && os=$root/.gpu/build/cli/overlapscope
py=${PYTHON:-/opt/torch/.venv/bin/python3}
runs=${RUNS:-5}
job=$here/torch_python_frames.py
fail=0
"$py" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)' | tee "$out/versions.txt"

# run VARIANT INDEX: one recorded run; sources on (with) or off (without)
run() {
    local variant=$1 index=$2 setting=1
    [ "$variant" = without ] && setting=0
    local name=$out/${variant}_$index
    OVERLAPSCOPE_CALL_SOURCES=$setting timeout 180 "$os" record --force -o "$name.db" -- "$py" "$job" --steps 200 \
        >"$name.log" 2>&1
    local status=$?
    if [ $status -ne 0 ]; then
        echo "FAIL $variant run $index: exit $status$([ $status -eq 124 ] && echo ' (timeout: deadlock?)'): $(tail -1 "$name.log")"
        fail=1
    fi
}
for i in $(seq 1 "$runs"); do
    run with "$i"
    run without "$i"
done

workloads=$(cd "$(dirname "$os")/../workloads" 2>/dev/null && pwd)
timeout 60 "$os" record --force -o "$out/native.db" -- "$workloads/host_sync" --op device-sync >"$out/native.log" 2>&1 ||
    { echo "FAIL native: $(tail -1 "$out/native.log")"; fail=1; }

first=$out/with_1.db
"$os" report --json "$first" >"$out/report.json" 2>"$out/report.err" || { echo "FAIL report --json: $(tail -1 "$out/report.err")"; fail=1; }
"$os" report "$first" >"$out/report.txt" 2>&1 || fail=1
line_of() { grep -n "# LINE: $1\$" "$job" | cut -d: -f1; }
python3 - "$out" "$runs" "$job" "$(line_of sync)" "$(line_of item)" "$(line_of side)" <<'PY' || fail=1
import glob, json, os, re, sqlite3, statistics, sys
out, runs, job, sync_line, item_line, side_line = sys.argv[1], int(sys.argv[2]), sys.argv[3], *map(int, sys.argv[4:])
failed = []
def result(ok, name, detail):
    print(("PASS" if ok else "FAIL"), name, detail)
    if not ok:
        failed.append(name)

def step_ms(variant):
    values = []
    for i in range(1, runs + 1):
        for line in open(os.path.join(out, f"{variant}_{i}.log"), errors="replace"):
            if line.startswith("{") and "median_step_ms" in line:
                values.append(json.loads(line)["median_step_ms"])
    return values

# the file name as the job itself printed it (the path CPython compiled)
job_file = None
for line in open(os.path.join(out, "with_1.log"), errors="replace"):
    if line.startswith("{") and '"file"' in line:
        job_file = json.loads(line)["file"]
sync_source = f"{job_file}:{sync_line} main"
report = json.load(open(os.path.join(out, "report.json")))
sync = [(c.get("label"), c.get("source"), c.get("count"), c.get("ns")) for d in report["devices"]
        for c in d["idle"]["causes"] if c["cause"] == "host-sync"]
result(any(label == "cudaDeviceSynchronize" and source == sync_source for label, source, _, _ in sync),
       "report --json host-sync source", f"want cudaDeviceSynchronize at {sync_source}; host-sync causes: {sync}")
text = open(os.path.join(out, "report.txt"), errors="replace").read()
# (a source longer than its line wraps: compared without the line breaks and indents)
result(re.sub(r"\s", "", f"at {sync_source}") in re.sub(r"\s", "", text), "report text", f"'at {sync_source}'")

db = sqlite3.connect(os.path.join(out, "with_1.db"))
rows = dict(db.execute("SELECT s.value, COUNT(*) FROM call_sources c JOIN strings s ON s.id = c.source_id"
                       " WHERE c.kind = 1 GROUP BY s.value").fetchall())
kinds = dict(db.execute("SELECT kind, COUNT(*) FROM call_sources GROUP BY kind").fetchall())
warnings = [m for (m,) in db.execute("SELECT message FROM warnings WHERE code = 'call-sources'")]
for name, wanted in (("sync", sync_source), ("item", f"{job_file}:{item_line} main"),
                     ("side thread", f"{job_file}:{side_line} side_worker")):
    result(rows.get(wanted, 0) > 0, f"call_sources {name}", f"{rows.get(wanted, 0)} rows at {wanted}")
result(not warnings, "no call-sources warning", "; ".join(warnings) or "none")
print(f"     call_sources by kind (1 Python, 3 native): {kinds}; top Python sources:",
      sorted(rows.items(), key=lambda kv: -kv[1])[:5])
db_off = sqlite3.connect(os.path.join(out, "without_1.db"))
off_rows = db_off.execute("SELECT COUNT(*) FROM call_sources").fetchone()[0]
result(off_rows == 0, "OVERLAPSCOPE_CALL_SOURCES=0", f"{off_rows} call_sources rows")

try:
    native = sqlite3.connect(os.path.join(out, "native.db")).execute(
        "SELECT s.value, COUNT(*) FROM call_sources c JOIN strings s ON s.id = c.source_id WHERE c.kind = 3"
        " GROUP BY s.value ORDER BY 2 DESC").fetchall()
except sqlite3.Error as error:
    native = [(str(error), 0)]
# the most frequent source is main's loop; every source is a function of the program
result(bool(native) and re.fullmatch(r"main\+0x[0-9a-f]+ \(host_sync\)", native[0][0]) is not None
       and native[0][1] >= 3 and all(v.endswith(" (host_sync)") for v, _ in native), "native sources", f"{native[:4]}")

with_ms, without_ms = step_ms("with"), step_ms("without")
if len(with_ms) == runs and len(without_ms) == runs:
    a, b = statistics.median(with_ms), statistics.median(without_ms)
    ratio = a / b
    result(abs(ratio - 1) < 0.05, "step time with/without sources",
           f"median {a:.3f} ms vs {b:.3f} ms (x{ratio:.3f}); runs with {['%.3f' % v for v in with_ms]}"
           f" without {['%.3f' % v for v in without_ms]}")
else:
    result(False, "step time with/without sources", f"runs that printed a step time: {len(with_ms)} and {len(without_ms)} of {runs}")
sys.exit(1 if failed else 0)
PY
exit $fail
