#!/usr/bin/env bash
# check and diff have one metric per idle and exposed-communication cause (docs/metrics.md,
# "Metric names"): `diff --json A B` lists exactly one per cause tag, each A and B the cause's time
# summed over the devices of that trace's `report --json` (in ms) and the delta B - A; `check`
# bounds it (a max just under the value fails, at the value passes); every name is documented in
# the check manual and docs/metrics.md. A and B: the 2-rank ddp golden (skew, transfer, idle
# causes) and the H100 host_bound_sync golden (host-sync).
set -u
os=${OVERLAPSCOPE:?}
data=${OVERLAPSCOPE_TEST_DATA:?}
docs=$(cd "$(dirname "$0")/../../docs" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
a=$data/gpu/ddp.db b=$data/gpu-h100/host_bound_sync.db
[ -e "$a" ] && [ -e "$b" ] || { echo "skipped: goldens absent"; exit 77; }
"$os" report --json "$a" >"$work/a.json" && "$os" report --json "$b" >"$work/b.json" &&
    "$os" diff --json "$a" "$b" >"$work/diff.json" || { echo "FAILED: report or diff"; exit 1; }
python3 - "$work" "$docs" "$os" "$a" <<'PY'
import json, subprocess, sys
work, docs, os_, a_path = sys.argv[1:5]
idle = ["host-sync", "launch-bound", "host-cpu", "other-device", "peer-wait", "step-start", "step-end",
        "step-boundary", "dispatch", "unexplained", "sync-elsewhere", "warmup", "data-loading", "python-work",
        "garbage-collection", "lock-wait"]
exposed = ["skew", "transfer", "behind-compute", "unmatched", "imbalance"]
names = {("idle_" if t in idle else "exposed_comm_") + t.replace("-", "_") + "_ms": (t, t in idle)
         for t in idle + exposed}
def per_cause(report, tag, is_idle):
    key = "idle" if is_idle else "exposed_communication"
    return sum(c["ns"] for d in report["devices"] for c in d[key]["causes"] if c["cause"] == tag) / 1e6
ra, rb = (json.load(open(f"{work}/{x}.json")) for x in "ab")
diff = {m["name"]: m for m in json.load(open(f"{work}/diff.json"))["metrics"]}
listed = {n for n in diff if n.startswith(("idle_", "exposed_comm_")) and n not in ("idle_ms", "exposed_comm_ms")}
problems = []
if listed != set(names):
    problems.append(f"diff lists {sorted(listed ^ set(names))} beyond or short of one metric per cause")
manual = open(f"{docs}/overlapscope-check.md").read() + open(f"{docs}/metrics.md").read()
seen = 0
for name, (tag, is_idle) in sorted(names.items()):
    if name not in manual:
        problems.append(f"{name} is not documented")
    m = diff.get(name)
    if not m:
        continue
    want_a, want_b = per_cause(ra, tag, is_idle), per_cause(rb, tag, is_idle)
    if abs(m["a"] - want_a) > 1e-6 or abs(m["b"] - want_b) > 1e-6 or abs(m["delta"] - (want_b - want_a)) > 1e-6:
        problems.append(f"{name}: diff says {m['a']}, {m['b']}, {m['delta']}; the reports {want_a}, {want_b}")
    seen += want_a > 0 or want_b > 0
    if want_a > 0.001:  # check bounds it: just under fails (exit 1), at the value passes
        under = subprocess.run([os_, "check", a_path, "--max", f"{name}={want_a - 0.001:.6f}"], capture_output=True)
        at = subprocess.run([os_, "check", a_path, "--max", f"{name}={want_a + 0.000001:.6f}"], capture_output=True)
        if under.returncode != 1 or at.returncode != 0:
            problems.append(f"check {name}: {under.returncode} under, {at.returncode} at the value")
if seen < 5:
    problems.append(f"only {seen} causes had time in either trace")
for p in problems:
    print("FAILED:", p)
print("passed" if not problems else "")
sys.exit(1 if problems else 0)
PY
