#!/usr/bin/env bash
# The Chrome/Perfetto export checked against the Trace Event Format's rules
# (check_trace_events.py): every golden trace of tests/data/gpu; hand-built traces with known waits,
# whose slices and arrows must match `report --json` of the same trace (check_export_waits.py);
# traces that must go to extra tracks; and issue 20 item 16's bombs (repeated correlation ids, huge
# names) whose output must stay within the documented bound. Then the checker itself must catch a
# partial overlap and a dangling flow (test_check_trace_events.py).
set -u
os=${OVERLAPSCOPE:?}
here=$(cd "$(dirname "$0")" && pwd)
writer=${OVERLAPSCOPE_BUILD_DIR:?}/tests/import/write_export_scenarios
data=${OVERLAPSCOPE_TEST_DATA:?}/gpu
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAILED: $*"; fail=$((fail+1)); }
check() { python3 "$here/check_trace_events.py" "$@" >"$scratch/check.out" || { cat "$scratch/check.out"; return 1; }; }

# Every golden trace (H200 and H100 recordings): valid, nested, flows paired, tracks named.
exports=()
for trace in "$data"/*.db "$data"-h100/*.db; do
    [ -f "$trace" ] || continue
    out=$scratch/$(basename "$(dirname "$trace")")-$(basename "$trace" .db).json
    "$os" export "$trace" --chrome "$out" >/dev/null 2>"$scratch/err" || bad "export $trace: $(cat "$scratch/err")"
    exports+=("$out")
done
if [ ${#exports[@]} -ge 33 ] && check "${exports[@]}"; then ok; else bad "golden exports (${#exports[@]} traces)"; fi
# OUT.json.gz: gzip (issue 34), the same JSON as OUT.json byte for byte once decompressed.
"$os" export "$data/ddp.db" --chrome "$scratch/ddp.json.gz" >/dev/null 2>"$scratch/err" || bad "export .gz: $(cat "$scratch/err")"
if gzip -t "$scratch/ddp.json.gz" 2>/dev/null && gzip -dc "$scratch/ddp.json.gz" | cmp -s - "$scratch/gpu-ddp.json"; then
    ok
else
    bad "export --chrome x.json.gz is not the gzip of the JSON"
fi
# ddp_fill_eighth: every kernel name readable (none mangled), the demangled full name and the
# mangled one in args; the waits all there.
python3 - "$scratch/gpu-ddp_fill_eighth.json" <<'PY' && ok || bad "ddp_fill_eighth names and waits"
import json, sys
d = json.load(open(sys.argv[1]))
kernels = [e for e in d["traceEvents"] if e.get("cat") == "kernel"]
assert len(kernels) == 1034, len(kernels)
mangled = [e["name"] for e in kernels if e["name"].startswith("_Z")]
assert not mangled, mangled[:3]
assert all(e["args"]["mangled name"].startswith("_Z") for e in kernels)
full = {e["args"]["full name"] for e in kernels}
assert not any(name.startswith("_Z") for name in full), sorted(full)[:3]
assert "void wl_gemm_kernel<0, 1>(int, int, int, float const*, float const*, float*, int)" in full, sorted(full)
assert {e["name"] for e in kernels} >= {"wl_gemm_kernel", "NCCL AllReduce Sum f32 RING LL"}, {e["name"] for e in kernels}
# The steady state's waits (the steps; 10 more in the set-up before them, which --all exports).
assert d["otherData"]["waits_found"] == d["otherData"]["waits_exported"] == 90, d["otherData"]
assert sum(e.get("cat") == "wait" and e["ph"] == "X" for e in d["traceEvents"]) == 90
PY
# Copies and processes are named as the report names them (analyzer/naming.h): every copy a wait of
# copy_pageable's report names is a memcpy slice of that name, and each device's process is named
# by the report's process label first.
"$os" report --json "$data/copy_pageable.db" >"$scratch/copy_pageable.names.json" 2>/dev/null
python3 - "$scratch/copy_pageable.names.json" "$scratch/gpu-copy_pageable.json" <<'PY' && ok || bad "copy and process names"
import json, sys
report, export = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
copies = {e["name"] for e in export["traceEvents"] if e.get("cat") == "gpu_memcpy"}
named = {op["name"] for w in report["waits"] for op in (w["waiting"], w["blocking"]) if op["category"].startswith("copy")}
assert named and named <= copies, (named, copies)
assert any(name.endswith("(pageable)") for name in named), named
processes = {e["pid"]: e["args"]["name"] for e in export["traceEvents"] if e.get("name") == "process_name"}
for device in report["devices"]:
    assert processes[device["process_id"]].startswith(device["process"] + " "), (processes, device["process"])
PY
# ... and every golden trace's waits are in its export, at the report's times (its origin is the
# report's: the wait the report puts "at +166 ms" in ddp_fill_eighth ends at 166 ms here).
pairs=()
for trace in "$data"/*.db; do
    name=$(basename "$trace" .db)
    "$os" report --json "$trace" >"$scratch/$name.report.json" 2>/dev/null || continue
    pairs+=("$scratch/$name.report.json" "$scratch/gpu-$name.json")
done
python3 "$here/check_export_waits.py" --pairs "${pairs[@]}" >"$scratch/waits.out" &&
    [ "$(grep -c ': ok (' "$scratch/waits.out")" -ge 30 ] && grep -q "gpu-ddp_fill_eighth.json: ok (90 waits" "$scratch/waits.out" &&
    ok || { grep -v ": ok" "$scratch/waits.out"; bad "golden traces' waits"; }

# The time accounting (issue 16): per device, the idle slices (on its "idle causes" track) add up to
# the report's idle_ns and the exposed-communication slices (on its "exposed communication" track)
# to its exposed_communication_ns, and per cause and label to that cause's ns in the report; each
# slice is named by its cause and label as the picture names it ("idle: host blocked in
# cudaMemcpy", "exposed comm: waiting for rank 0") and carries the report's evidence for them.
# ddp: rank 1's exposed communication is mostly waiting for rank 0 at its all-reduces.
for name in ddp_fill_eighth ddp; do
python3 - "$scratch/$name.report.json" "$scratch/gpu-$name.json" <<'PY' && ok || bad "accounting slices of $name"
import collections, json, sys
report, export = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in export["traceEvents"] if e.get("name") == "thread_name"}
by_name = collections.Counter()
for device in report["devices"]:
    causes, want = {}, collections.Counter()
    for part in ("idle", "exposed_communication"):
        for c in device[part]["causes"]:
            causes.setdefault((c["cause"], c["label"]), c)  # largest first
            want[(c["cause"], c["label"])] += c["ns"]
    tracks = {"idle": "GPU %d idle causes (analysis)" % device["device_id"],
              "exposed communication": "GPU %d exposed communication (analysis)" % device["device_id"]}
    sums, got = collections.Counter(), collections.Counter()
    for e in export["traceEvents"]:
        if e.get("cat") not in tracks or e["pid"] != device["process_id"]:
            continue
        assert names[(e["pid"], e["tid"])] == tracks[e["cat"]], (names[(e["pid"], e["tid"])], e)
        assert e["name"].startswith("idle: " if e["cat"] == "idle" else "exposed comm: "), e["name"]
        key = (e["args"]["cause"], e["args"]["label"])
        assert e["args"]["evidence"] == causes[key]["evidence"], (e, causes[key])
        sums[e["cat"]] += round(e["dur"] * 1000)
        got[key] += round(e["dur"] * 1000)
        by_name[(device["rank"], e["name"])] += round(e["dur"] * 1000)
    assert sums["idle"] == device["idle_ns"] > 0, (sums, device["idle_ns"])
    assert sums["exposed communication"] == device["exposed_communication_ns"] > 0, sums
    assert got == want, (got, want)
if sys.argv[1].endswith("/ddp.report.json"):
    skew = next(c for c in report["devices"][1]["exposed_communication"]["causes"] if c["cause"] == "skew")
    assert skew["label"] == "rank 0" and skew["ns"] * 2 > report["devices"][1]["exposed_communication_ns"], skew
    assert by_name[(1, "exposed comm: waiting for rank 0")] == skew["ns"], by_name
PY
done

# --origin trace keeps the set-up before the first GPU activity: every API call is there, and the
# report's +0 (where the "report +0" instant sits) is where the waits moved to.
"$os" export "$data/ddp_fill_eighth.db" --origin trace --chrome "$scratch/trace_origin.json" >/dev/null &&
check "$scratch/trace_origin.json" && python3 - "$scratch/gpu-ddp_fill_eighth.json" "$scratch/trace_origin.json" "$data/ddp_fill_eighth.db" <<'PY' && ok || bad "--origin trace"
import decimal, json, sqlite3, sys
load = lambda path: json.load(open(path), parse_float=decimal.Decimal)
report, trace = load(sys.argv[1]), load(sys.argv[2])
shift = trace["otherData"]["report_origin_us"]
assert int(trace["otherData"]["report_origin_ns"]) - int(trace["otherData"]["origin_ns"]) == shift * 1000 > 0, shift
assert report["otherData"]["left_out_before_origin"] > 0 and trace["otherData"]["left_out_before_origin"] == 0
calls = sqlite3.connect(sys.argv[3]).execute("SELECT COUNT(*) FROM api_calls").fetchone()[0]
assert sum(e.get("cat") in ("cuda_runtime", "cuda_driver") for e in trace["traceEvents"]) == calls
mark = next(e for e in trace["traceEvents"] if e["name"] == "report +0")
assert mark["ts"] == shift, (mark, shift)
waits = lambda d: sorted((e["ts"], e["dur"], e["name"]) for e in d["traceEvents"] if e.get("cat") == "wait" and e["ph"] == "X")
assert [(ts + shift, dur, name) for ts, dur, name in waits(report)] == waits(trace)
PY

# Hand-built traces with known waits.
"$writer" "$scratch" || bad "write_export_scenarios"
waits() { # trace cause...
    local trace=$1; shift
    "$os" report --json "$scratch/$trace.db" >"$scratch/$trace.report.json" 2>"$scratch/err" &&
    "$os" export "$scratch/$trace.db" --chrome "$scratch/$trace.json" >/dev/null 2>>"$scratch/err" &&
    python3 "$here/check_export_waits.py" "$scratch/$trace.report.json" "$scratch/$trace.json" "$@" >"$scratch/waits.out" &&
    ok || { cat "$scratch/err" "$scratch/waits.out"; bad "waits of $trace"; }
}
waits saturation sm-saturation
waits event event-dependency
waits late late-launch
waits hostsync host-sync

# Overlaps that must not share a track: each goes to an extra track, named so, and nothing else does.
"$os" export "$scratch/skew.db" --chrome "$scratch/skew.json" >/dev/null 2>"$scratch/err"
grep -q "warning: 2 extra tracks" "$scratch/err" && ok || bad "skew warning: $(cat "$scratch/err")"
check "$scratch/skew.json" && python3 - "$scratch/skew.json" <<'PY' && ok || bad "skew tracks"
import json, sys
d = json.load(open(sys.argv[1]))
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in d["traceEvents"] if e.get("name") == "thread_name"}
where = {e["name"]: names[(e["pid"], e["tid"])] for e in d["traceEvents"] if e["ph"] == "X"}
assert where["first"] == "stream 1, GPU 0", where
assert where["second_skewed"] == "stream 1, GPU 0 (overlapping slices, 2)", where
assert where["cudaMemcpy"] == where["cudaLaunchKernel"] == where["cuLaunchKernel"] == "thread 8 CUDA API", where
assert where["cudaMemcpyAsync"] == "thread 8 CUDA API (overlapping slices, 2)", where
assert where["stream synchronize"] == "CUDA synchronizations", where
assert d["otherData"]["overflow_tracks"] == 2, d["otherData"]
PY
# The old export put this synchronization on its stream's track, across a kernel: the checker says so.
python3 - "$scratch/skew.json" "$scratch/moved.json" <<'PY' || bad "moving the sync"
import json, sys
d = json.load(open(sys.argv[1]))
events = d["traceEvents"]
kernel = next(e for e in events if e["name"] == "second_skewed")
sync = next(e for e in events if e["name"] == "stream synchronize")
sync["tid"] = kernel["tid"]
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$here/check_trace_events.py" "$scratch/moved.json" | grep -q "partial overlap" && ok || bad "moved sync not caught"

# Issue 20 item 16: repeated correlation ids give one launch arrow per kernel and a warning.
bound() { # json rows: the size is within the documented bound for that many rows
    local size; size=$(stat -c %s "$1")
    [ "$size" -le $(( 8192 * $2 + 65536 )) ] || { echo "$1: $size bytes for $2 rows"; return 1; }
}
"$os" export "$scratch/repeated_ids.db" --chrome "$scratch/repeated_ids.json" >"$scratch/out" 2>"$scratch/err"
grep -q "warning: 1 correlation id shared by several API calls" "$scratch/err" && ok || bad "repeated ids warning: $(cat "$scratch/err")"
grep -q "300 launch arrows" "$scratch/out" && check "$scratch/repeated_ids.json" && bound "$scratch/repeated_ids.json" 602 &&
    ok || bad "repeated ids: $(cat "$scratch/out")"
# Huge names: cut, valid UTF-8 JSON, within the bound (the old export wrote 200 MiB here).
"$os" export "$scratch/huge_names.db" --chrome "$scratch/huge_names.json" >"$scratch/out" 2>"$scratch/err" &&
check "$scratch/huge_names.json" && bound "$scratch/huge_names.json" 205 && python3 - "$scratch/huge_names.json" <<'PY' && ok || bad "huge names: $(cat "$scratch/err")"
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e["ph"] == "X":
        assert len(e["name"].encode()) <= 256, len(e["name"])
        for value in e["args"].values():
            assert not isinstance(value, str) or len(value.encode()) <= 4096, len(value)
odd = next(e for e in d["traceEvents"] if e["ph"] == "X" and e["args"].get("full name", "").startswith("bad"))
assert odd["args"]["full name"] == "bad\ufffd(utf8\"and\\quotes\n", odd["args"]["full name"]
assert d["otherData"]["texts_cut"] >= 200
PY

# The shared filter options: --window cuts every slice to the window report analyzes (ddp.db,
# 100-200 ms after the report's +0), and the file still passes the checker.
if "$os" export "$data/ddp.db" --window 100ms:200ms --chrome "$scratch/window.json" >/dev/null 2>&1 &&
   python3 "$here/check_trace_events.py" "$scratch/window.json" >/dev/null &&
   python3 - "$scratch/window.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
slices = [e for e in (d["traceEvents"] if isinstance(d, dict) else d) if e.get("ph") == "X"]
assert slices and min(e["ts"] for e in slices) >= 100000 and max(e["ts"] + e["dur"] for e in slices) <= 200000
PY
then ok; else bad "export --window 100ms:200ms: slices outside the window"; fi

# The checker catches what it must.
python3 "$here/test_check_trace_events.py" >"$scratch/out" 2>&1 && ok || { cat "$scratch/out"; bad "checker self-test"; }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
