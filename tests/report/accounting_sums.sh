#!/usr/bin/env bash
# Every imported golden trace (tests/data/kineto*/: the PyTorch profiler's own files; the two-rank
# jobs imported together, as a user would) accounts for every idle and exposed nanosecond
# (docs/metrics.md, "Idle time" and "Exposed communication"): in report --json, on every device,
# the idle parts sum exactly to idle.ns, which is the device's idle_ns, and the same for exposed
# communication; every step's parts sum to its total; and a device whose process has steps splits
# its idle time exactly into its steps' idle (their step-start and step-end included) plus the
# idle time in no step (step-boundary); the text and Markdown reports list every step. The recorded goldens (tests/data/gpu*, .db) are checked the same way
# by tests/analyzer/test_accounting.c.
set -u
os=${OVERLAPSCOPE:?}
data=${OVERLAPSCOPE_TEST_DATA:?}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
checked=0
with_steps=0

check_json() { # name json
    python3 - "$1" "$2" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
problems = []
between = ("step-start", "step-end", "step-boundary")  # idle outside every step's GPU activity
def parts(b): return sum(c["ns"] for c in b["causes"])
for d in r["devices"]:
    who = f'{name} rank {d["rank"]} pid {d["pid"]} device {d["device_id"]}'
    for key, total in (("idle", "idle_ns"), ("exposed_communication", "exposed_communication_ns")):
        b = d[key]
        if b["ns"] != d[total] or parts(b) != b["ns"]:
            problems.append(f'{who}: {key} {b["ns"]} parts {parts(b)} against {total} {d[total]}')
    steps = [s for s in r["step_accounting"]
             if (s["rank"], s["pid"], s["device_id"]) == (d["rank"], d["pid"], d["device_id"])]
    for s in steps:
        for key in ("idle", "exposed_communication"):
            if parts(s[key]) != s[key]["ns"]:
                problems.append(f'{who} step {s["step"]}: {key} parts {parts(s[key])} != {s[key]["ns"]}')
    # step-start and step-end belong to their steps too; step-boundary to none.
    outside = sum(c["ns"] for c in d["idle"]["causes"] if c["cause"] == "step-boundary")
    if steps or any(c["cause"] in between for c in d["idle"]["causes"]):
        inside = sum(s["idle"]["ns"] for s in steps)
        if inside + outside != d["idle_ns"]:
            problems.append(f'{who}: steps {inside} + between steps {outside} != idle {d["idle_ns"]}')
# Collective instances matched across ranks: each names a rank of the trace as the last, and no
# rank's exposed skew exceeds the skew of the instances it waited at.
ranks = {d["rank"] for d in r["devices"]}
for i in r["collective_instances"]:
    if i["ranks"] < 2 or i["last"]["rank"] not in ranks or i["skew_ns"] < 0 or i["transfer_ns"] < 0:
        problems.append(f'{name}: instance {i}')
skew = sum(c["ns"] for d in r["devices"] for c in d["exposed_communication"]["causes"] if c["cause"] == "skew")
if skew > sum(i["skew_ns"] for i in r["collective_instances"]) * max(1, len(ranks) - 1):
    problems.append(f'{name}: exposed skew {skew} beyond the instances\' skew')
for p in problems:
    print("FAILED:", p)
sys.exit(1 if problems else 0)
PY
}

run_one() { # name files...
    local name=$1; shift
    if ! "$os" import "$@" -o "$work/$name.db" >"$work/import.log" 2>&1; then
        echo "FAILED: import $name: $(cat "$work/import.log")"; fail=1; return; fi
    if ! "$os" report --json "$work/$name.db" >"$work/$name.json" 2>"$work/report.log"; then
        grep -q "no GPU intervals" "$work/report.log" && return # cpu_only: nothing to account for
        echo "FAILED: report $name: $(cat "$work/report.log")"; fail=1; return; fi
    check_json "$name" "$work/$name.json" || fail=1
    local steps
    steps=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["step_accounting"]))' "$work/$name.json")
    if [ "$steps" -gt 0 ]; then
        with_steps=$((with_steps + 1))
        # The text and Markdown reports list each step's accounting (up to --top, 10: these have fewer).
        local text markdown
        text=$("$os" report "$work/$name.db" | grep -cE '^      step [0-9]+ +idle ')
        markdown=$("$os" report --markdown "$work/$name.db" | grep -cE '^\| [0-9]+ \| [0-9.]+ [mun]?s \|')
        [ "$text" = "$steps" ] && [ "$markdown" = "$steps" ] ||
            { echo "FAILED: $name: $steps step accountings, text lists $text, Markdown $markdown"; fail=1; }
    fi
    checked=$((checked + 1))
}

for file in "$data"/kineto*/*.json "$data"/kineto*/*.json.gz; do
    [ -e "$file" ] || continue
    base=$(basename "$file")
    case "$base" in
    *rank-1.json.gz | *rank1.json.gz) continue ;; # imported with its rank 0
    *rank-0.json.gz) run_one "${base%.json.gz}" "$file" "${file%rank-0.json.gz}rank-1.json.gz" ;;
    *rank0.json.gz)
        if [ -e "${file%rank0.json.gz}rank1.json.gz" ]; then
            run_one "${base%.json.gz}" "$file" "${file%rank0.json.gz}rank1.json.gz"
        else
            run_one "${base%.json.gz}" "$file"
        fi ;;
    *) run_one "${base%%.json*}" "$file" ;;
    esac
done
# The folders hold at least 10 traces (8 imports); fewer means a folder went missing.
[ "$checked" -ge 8 ] || { echo "FAILED: only $checked traces checked"; fail=1; }
[ "$with_steps" -ge 2 ] || { echo "FAILED: only $with_steps traces with steps"; fail=1; }
[ $fail -eq 0 ] && echo "passed ($checked traces, $with_steps with steps)"
exit $fail
