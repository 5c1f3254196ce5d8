#!/usr/bin/env bash
# CI gates that analyze a trace once: check --json / --markdown carry the report and the verdicts;
# diff --fail-on METRIC=DELTA exits 1 when B is worse than A by more than DELTA, in the metric's
# direction. Expected values come from report --json of the same golden traces.
set -u
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
os=$OVERLAPSCOPE
gpu=$OVERLAPSCOPE_TEST_DATA/gpu
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
summary() { python3 -c 'import json,sys; print("%.6g" % json.load(open(sys.argv[1]))["summary"][sys.argv[2]])' "$1" "$2"; }

# copy_pinned: no communication, busy 28.96 ms
"$os" report --json "$gpu/copy_pinned.db" >"$scratch/report.json"
busy=$(summary "$scratch/report.json" busy_ms)
"$os" check "$gpu/copy_pinned.db" --min comm_overlap=0.5 --max busy_ms=1 --json >"$scratch/check.json"; rc=$?
expect "check --json exits 1 when a bound fails" '[ $rc -eq 1 ]'
expect "check --json holds the report (same summary) and the verdicts" 'python3 - "$scratch/check.json" "$scratch/report.json" <<"PY"
import json, sys
check, report = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert check["summary"] == report["summary"] and check["devices"] == report["devices"]
c = check["check"]
assert c["passed"] is False and c["strict"] is False
comm, busy = c["bounds"]
assert comm == {"metric": "comm_overlap", "bound": "min", "limit": 0.5, "value": None, "unmeasured": "no communication", "holds": True}, comm
assert busy == {"metric": "busy_ms", "bound": "max", "limit": 1, "value": report["summary"]["busy_ms"], "unmeasured": None, "holds": False}, busy
PY'
"$os" check "$gpu/copy_pinned.db" --max busy_ms=100 --json >"$scratch/pass.json"; rc=$?
expect "check --json exits 0 and says passed when the bounds hold" '[ $rc -eq 0 ] && python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[\"check\"][\"passed\"] is True" "$scratch/pass.json"'
out=$("$os" check "$gpu/copy_pinned.db" --min comm_overlap=0.5 --max busy_ms=1 --strict --markdown); rc=$?
expect "check --markdown exits 1" '[ $rc -eq 1 ]'
expect "check --markdown opens with the verdict" '[ "$(head -1 <<<"$out")" = "## overlapscope check: FAILED" ]'
expect "check --markdown: one row per bound" 'grep -qxF "| **FAIL** | \`comm_overlap\` | not measured: no communication (--strict) | min 0.5 |" <<<"$out" && grep -qxF "| **FAIL** | \`busy_ms\` | $busy | max 1 |" <<<"$out"'
expect "check --markdown then holds the report" 'grep -q "^## overlapscope report: " <<<"$out"'
expect "check without --json prints the bound lines as before" '[ "$("$os" check "$gpu/copy_pinned.db" --max busy_ms=1)" = "FAIL busy_ms = $busy (max 1)" ]'

# ddp (comm overlapped) -> ddp_no_overlap: comm_overlap falls from 0.43 to 0
"$os" report --json "$gpu/ddp.db" >"$scratch/a.json"; "$os" report --json "$gpu/ddp_no_overlap.db" >"$scratch/b.json"
a=$(summary "$scratch/a.json" comm_overlap); b=$(summary "$scratch/b.json" comm_overlap)
expect "the golden pair differs as expected ($a -> $b)" 'python3 -c "import sys; assert float(sys.argv[1]) - float(sys.argv[2]) > 0.3" $a $b'
out=$("$os" diff "$gpu/ddp.db" "$gpu/ddp_no_overlap.db" --fail-on comm_overlap=-0.05); rc=$?
expect "diff --fail-on: B worse by more than DELTA exits 1" '[ $rc -eq 1 ]'
expect "diff --fail-on names the metric and both values" 'grep -qF "FAIL comm_overlap $a -> $b" <<<"$out"'
"$os" diff "$gpu/ddp.db" "$gpu/ddp_no_overlap.db" --fail-on comm_overlap=0.9 >/dev/null; rc=$?
expect "diff --fail-on: worse by less than DELTA exits 0" '[ $rc -eq 0 ]'
"$os" diff "$gpu/ddp_no_overlap.db" "$gpu/ddp.db" --fail-on comm_overlap=-0.05 >/dev/null; rc=$?
expect "diff --fail-on: B better exits 0" '[ $rc -eq 0 ]'
# a time: lower is better, so B worse means B higher
ea=$(summary "$scratch/a.json" exposed_comm_ms); eb=$(summary "$scratch/b.json" exposed_comm_ms)
python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) > float(sys.argv[1]) else 1)" $ea $eb && worse=1 || worse=0
"$os" diff "$gpu/ddp.db" "$gpu/ddp_no_overlap.db" --fail-on exposed_comm_ms=0 >/dev/null; rc=$?
expect "diff --fail-on a time fails only when B is higher ($ea -> $eb)" '[ $rc -eq $worse ]'
"$os" diff --json "$gpu/ddp.db" "$gpu/ddp_no_overlap.db" --fail-on comm_overlap=-0.05 >"$scratch/diff.json" 2>"$scratch/diff.err"; rc=$?
expect "diff --json --fail-on keeps stdout JSON, verdict on stderr" '[ $rc -eq 1 ] && python3 -m json.tool "$scratch/diff.json" >/dev/null && grep -q "^FAIL comm_overlap" "$scratch/diff.err"'
err=$("$os" diff "$gpu/ddp.db" "$gpu/ddp.db" --fail-on exposed_comm_ms=-1 2>&1); rc=$?
expect "diff --fail-on: a sign against the metric's direction is a usage error" '[ $rc -eq 2 ] && grep -q "exposed_comm_ms is better lower" <<<"$err"'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
