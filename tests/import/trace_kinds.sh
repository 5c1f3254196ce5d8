#!/usr/bin/env bash
# Every trace named right (issue 34 item 5), on small inputs made here: an AMD device shows no
# CUDA compute capability in info; an MTIA trace, a PyTorch memory timeline (.json.gz, .raw.gz)
# and a memory snapshot (pickle) are each refused in one line that names what they are; a
# cuda_profiler_range event is kept as an NVTX-like range; a key given twice in an event means its
# last value (as Python's json module and Perfetto read it); a NUL in a name is escaped, not cut.
set -u
os=${OVERLAPSCOPE:?}
data=${OVERLAPSCOPE_TEST_DATA:?}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
cd "$work" || exit 1

cp "$data/kineto/amd_mi250_rocm.json.gz" amd.json.gz
$os info amd.json.gz >amd.txt 2>/dev/null
expect "AMD: info names compute units, no compute capability" \
    'grep -qF "device 0: AMD Radeon Graphics, 104 compute units, 64.0 GiB" amd.txt && ! grep -q " cc " amd.txt'

python3 - <<'PY'
import gzip, json, pickle
json.dump([[1.0, 2.0], [[0, 10], [5, 20]]], gzip.open("timeline.json.gz", "wt"))
json.dump([[1000, 0, 512, 1], [1010, 1, 512, 1]], gzip.open("memory.raw.gz", "wt"))
pickle.dump({"segments": [], "device_traces": []}, open("snapshot.pickle", "wb"), protocol=4)
mtia = [{"ph": "X", "cat": "mtia_runtime", "name": "launch", "pid": 1, "tid": 1, "ts": 1, "dur": 2},
        {"ph": "X", "cat": "mtia_ccp_events", "name": "k", "pid": 1, "tid": 2, "ts": 2, "dur": 3}]
json.dump({"traceEvents": mtia}, open("mtia.json", "w"))
PY
refused() { # file, words the one line must hold
    local out rc
    out=$($os info "$1" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -qF "$2"
}
expect "memory timeline (.json.gz) named in one line" 'refused timeline.json.gz "a PyTorch memory timeline (export_memory_timeline), not a trace: not supported"'
expect "memory timeline (.raw.gz) named in one line" 'refused memory.raw.gz "a PyTorch memory timeline (export_memory_timeline), not a trace: not supported"'
expect "memory snapshot (pickle) named in one line" 'refused snapshot.pickle "a PyTorch memory snapshot"'
expect "MTIA trace named in one line" 'refused mtia.json "an MTIA trace (2 events of Meta'"'"'s accelerator, no GPU activity): not supported"'

# One kernel; a profiler range around it; a kernel whose "name" is given twice; a NUL in a name.
# (The JSON is written by hand: Python's json module cannot write a key twice.)
cat >kinds.json <<'JSON'
{"deviceProperties": [{"id": 0, "name": "NVIDIA H200", "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
 "traceEvents": [
  {"ph": "X", "cat": "cuda_profiler_range", "name": "CUDA Profiler Range", "pid": 5, "tid": 5, "ts": 990, "dur": 100},
  {"ph": "X", "cat": "kernel", "name": "first_name", "pid": 0, "tid": 7, "ts": 1000, "dur": 5, "name": "last_name",
   "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "before\u0000after", "pid": 0, "tid": 7, "ts": 1010, "dur": 5,
   "args": {"device": 0, "stream": 7, "correlation": 2}}]}
JSON
$os import kinds.json -o kinds.db >/dev/null 2>&1
python3 - kinds.db >names.txt <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for (value,) in db.execute("SELECT value FROM strings"):
    print(value)
PY
expect "duplicate key: the last 'name' wins" 'grep -qx last_name names.txt && ! grep -q first_name names.txt'
expect "NUL in a name: escaped, the name whole" "grep -qxF 'before\\x00after' names.txt"
$os info kinds.db >kinds.txt
expect "cuda_profiler_range kept as a range" 'grep -qE "^  NVTX ranges and marks +1$" kinds.txt'
expect "cuda_profiler_range: no unknown-category warning" '! grep -q "import-unknown-category" kinds.txt'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
