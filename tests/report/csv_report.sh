#!/usr/bin/env bash
# report --csv (issue 34): the report's tables as RFC 4180 CSV (docs/overlapscope-report.md, "CSV").
# A hand-built trace whose device name and call source hold commas, double quotes, CR and LF reads
# back whole through Python's csv module; on every golden trace (build/test-data) and under --step
# and --rank, every field of every table equals report --json's (csv_report.py); the last of
# --json / --markdown / --csv named wins.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=${OVERLAPSCOPE:?}
data=${OVERLAPSCOPE_TEST_DATA:?}
compare=$(cd "$(dirname "$0")" && pwd)/csv_report.py
cd "$dir" || exit 2
bad() { echo "FAILED: $*"; fail=$((fail+1)); }

# Two streams, a host synchronization with a Python frame as its source (the idle table's label
# and source), names a spreadsheet would split.
cat >h.json <<'JSON'
{"deviceProperties": [{"id": 0, "name": "GPU, \"quoted\"\r\nsecond line", "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
 "traceEvents": [
 {"ph": "X", "cat": "python_function", "name": "tr,ain \"x\"\n.py(12): step", "pid": 7, "tid": 7, "ts": 990, "dur": 600},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000, "dur": 5, "args": {"cbid": 211, "correlation": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 7, "tid": 7, "ts": 1006, "dur": 300, "args": {"cbid": 165, "correlation": 2}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1310, "dur": 4, "args": {"cbid": 211, "correlation": 3}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1315, "dur": 8, "args": {"cbid": 211, "correlation": 4}},
 {"ph": "X", "cat": "kernel", "name": "evil,\"k\"\nline", "pid": 0, "tid": 7, "ts": 1010, "dur": 200, "args": {"device": 0, "stream": 7, "correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "k2,\"a\"", "pid": 0, "tid": 7, "ts": 1320, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 13, "ts": 1330, "dur": 100, "args": {"device": 0, "stream": 13, "correlation": 4}},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 995, "dur": 500}
]}
JSON
"$os" import h.json -o h.db >/dev/null 2>&1 || bad "import of the hand-built trace"
"$os" report --csv h.db >h.csv && "$os" report --json h.db >h.out.json || bad "report of the hand-built trace"
python3 "$compare" --hostile "$(printf 'GPU, "quoted"\r\nsecond line')" h.csv h.out.json && pass=$((pass+1)) ||
    bad "hand-built trace: CSV against JSON"
python3 - h.csv <<'PY' && pass=$((pass+1)) || bad "hostile source read back"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))
idle = [r for r in rows if r and r[0] == "idle"]
header = next(r for r in rows if r and r[0] == "table" and "evidence" in r)
assert len(idle) == 2, idle  # the device's whole span and its step 1
for row in idle:
    r = dict(zip(header, row))
    assert (r["cause"], r["label"], r["source"]) == ("host-sync", "cudaDeviceSynchronize", 'tr,ain "x"\n.py:12 step'), r
assert sorted(r[header.index("step")] for r in idle) == ["", "1"]
PY

# Every golden whole, and its first step (its per-step rows) where it has steps: one Python for all.
checked=0; pairs=()
mapfile -t traces < <(find "$data" -name '*.db' -not -path '*/bad/*' | sort)
# shellcheck source=../common/sample.sh
. "$(dirname "$compare")/../common/sample.sh"
sample_traces
for trace in "${traces[@]}"; do
    for selection in "" "--step 1"; do
        name=g$checked
        # shellcheck disable=SC2086 # the selection is two words or none
        "$os" report --csv $selection "$trace" >$name.csv 2>/dev/null || continue
        # shellcheck disable=SC2086
        "$os" report --json $selection "$trace" >$name.json 2>/dev/null || { bad "$trace $selection: --json failed, --csv did not"; continue; }
        pairs+=("$name.csv" "$name.json")
        checked=$((checked+1))
    done
done
python3 "$compare" "${pairs[@]}" && pass=$((pass+1)) || bad "goldens: CSV against JSON"
[ "$checked" -ge $((200 / ${OVERLAPSCOPE_TEST_SAMPLE:-1})) ] && pass=$((pass+1)) || bad "only $checked golden reports compared"

# The last format named wins.
[ "$("$os" report --json --csv h.db)" = "$(cat h.csv)" ] && pass=$((pass+1)) || bad "--json --csv is not CSV"
"$os" report --csv --json h.db | python3 -c 'import json, sys; json.load(sys.stdin)' && pass=$((pass+1)) ||
    bad "--csv --json is not JSON"
echo "$pass passed, $fail failed ($checked golden reports compared)"
[ $fail -eq 0 ]
