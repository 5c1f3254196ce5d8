#!/usr/bin/env bash
# Upper bounds said alike everywhere (one rule, analysis_what_if_bound): a prediction that rests on
# kernels newly side by side (pipeline_serial's pipelined fix) or on all the host's own work gone
# (torch_loader_inline's hide-host-work fix) reads "up to" in the text report, is upper_bound in the
# JSON, and reads "up to" in diff's text and a_upper_bound in its JSON; a prediction that is no bound
# reads a plain figure in all four.
set -u
os=$OVERLAPSCOPE
data=$OVERLAPSCOPE_TEST_DATA
fail=0
check_pair() { # A B [selection...]
    local a=$1 b=$2; shift 2
    [ -f "$a" ] && [ -f "$b" ] || { echo "skipped: no $a or $b"; return 77; }
    "$os" report --json "$a" "$@" >/tmp/wb.$$.report.json &&
        COLUMNS=200 "$os" report "$a" "$@" >/tmp/wb.$$.report.txt &&
        "$os" diff --json "$a" "$b" "$@" >/tmp/wb.$$.diff.json &&
        COLUMNS=200 "$os" diff "$a" "$b" "$@" >/tmp/wb.$$.diff.txt || { echo "FAILED: report/diff $a"; return 1; }
    python3 - /tmp/wb.$$ "$a" <<'PY'
import json, re, sys
stem, name = sys.argv[1], sys.argv[2]
report = json.load(open(stem + ".report.json"))
diff = json.load(open(stem + ".diff.json"))
text, diff_text = open(stem + ".report.txt").read(), open(stem + ".diff.txt").read()
by_fix = {w["fix"]: w for w in diff["what_if"]}
ok, bounds = True, 0
for w in report["what_if"]:
    if w["predicted_saving_ns"] <= 0:
        continue
    bound = w["upper_bound"]
    bounds += bound
    d = by_fix.get(w["fix"])
    if d is None or d["a_upper_bound"] is not bound or d["a_predicted_saving_ns"] != w["predicted_saving_ns"]:
        print(f"FAILED: {name}: {w['fix']}: diff's A side {d} against the report's {bound}"); ok = False
# One line per prediction at 200 columns: as many say "up to" as the JSON has bounds.
said = sum("up to -" in l for l in text.splitlines() if l.startswith("  if "))
if said != bounds:
    print(f"FAILED: {name}: the text says 'up to' {said} times, the JSON has {bounds} bounds"); ok = False
if bounds == 0:
    print(f"FAILED: {name}: no upper bound predicted"); ok = False
if ("up to -" in diff_text) != (bounds > 0):
    print(f"FAILED: {name}: diff's text says 'up to' {'never' if bounds else 'for no bound'}"); ok = False
sys.exit(0 if ok else 1)
PY
}
check_pair "$data/gpu/pipeline_serial.db" "$data/gpu/pipeline_pipelined.db" || fail=1
check_pair "$data/gpu-h100/torch_loader_inline.db" "$data/gpu-h100/torch_loader_workers.db" --range train || fail=1
rm -f /tmp/wb.$$.*
[ $fail -eq 0 ] && echo "ok: upper bounds said alike in report and diff, text and JSON"
exit $fail
