#!/usr/bin/env bash
# A run whose steps are a small part of it reads "busy 0.5%" over the whole span (torch.compile's
# compilation: 97% of the compiled MLP's 12.4 s is GPU idle before its first step). The report
# says so under the device table, with the share computed from the JSON's own figures and the
# window of the steps (their first start to last end), which, given back to --window, analyzes the
# steps alone (and says nothing more). A run whose steps fill it (ddp) says nothing.
set -u
os=$OVERLAPSCOPE
data="$OVERLAPSCOPE_TEST_DATA/gpu-h100"
[ -f "$data/torch_compile.db" ] || { echo "skipped: no $data/torch_compile.db"; exit 77; }
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
fail=0
"$os" report --json "$data/torch_compile.db" >"$scratch/r.json" &&
    COLUMNS=200 "$os" report "$data/torch_compile.db" >"$scratch/r.txt" &&
    "$os" report --markdown "$data/torch_compile.db" >"$scratch/r.md" || { echo "FAILED: report"; exit 1; }
expected=$(python3 - "$scratch/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
span = sum(d["span_ns"] for d in r["devices"])
share = 100 * r["summary"]["idle_step_boundary_ms"] * 1e6 / span
first = min(s["start_ns"] for s in r["steps"])  # relative to origin_ns, as every time in the JSON
last = max(s["end_ns"] for s in r["steps"])
print(f"{share:.0f}% of the span is GPU idle outside every step (set-up, compilation, warm-up): "
      f"--window {first / 1e6:.3f}ms:{last / 1e6:.3f}ms looks at the steps alone")
PY
)
grep -qxF "$expected" "$scratch/r.txt" || { echo "FAILED: text lacks: $expected"; fail=1; }
grep -qxF "$expected" "$scratch/r.md" || { echo "FAILED: Markdown lacks: $expected"; fail=1; }
case "$expected" in 9[0-9]%*) ;; *) echo "FAILED: expected a share of 90-99%: $expected"; fail=1 ;; esac
window=$(sed 's/.*--window \([^ ]*\) .*/\1/' <<<"$expected")
steps=$("$os" report "$data/torch_compile.db" --window "$window") || { echo "FAILED: report --window $window"; fail=1; }
grep -q "of the span is GPU idle outside every step" <<<"$steps" && { echo "FAILED: the steps' window repeats the note"; fail=1; }
grep -q "from +12.04" <<<"$steps" || { echo "FAILED: the window is not the steps': $(sed -n 2p <<<"$steps")"; fail=1; }
"$os" report "$OVERLAPSCOPE_TEST_DATA/gpu/ddp.db" | grep -q "of the span is GPU idle outside every step" && { echo "FAILED: ddp (its steps fill its run) has the note"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $expected"
exit $fail
