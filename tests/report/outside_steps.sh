#!/usr/bin/env bash
# A run whose steps are a small part of it reads "busy 0.5%" over the whole span (torch.compile's
# compilation: 97% of the compiled MLP's 12.4 s is GPU idle before its first step). By default the
# report analyses the steady state (the steps) and says what it left out; with --all it analyses
# the whole run and says so under the device table, with the share computed from the JSON's own
# figures. A run whose steps fill it (ddp) says nothing.
set -u
os=$OVERLAPSCOPE
data="$OVERLAPSCOPE_TEST_DATA/gpu-h100"
[ -f "$data/torch_compile.db" ] || { echo "skipped: no $data/torch_compile.db"; exit 77; }
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
fail=0
"$os" report --all --json "$data/torch_compile.db" >"$scratch/r.json" &&
    COLUMNS=200 "$os" report --all "$data/torch_compile.db" >"$scratch/r.txt" &&
    "$os" report --all --markdown "$data/torch_compile.db" >"$scratch/r.md" || { echo "FAILED: report"; exit 1; }
expected=$(python3 - "$scratch/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
span = sum(d["span_ns"] for d in r["devices"])
share = 100 * r["summary"]["idle_step_boundary_ms"] * 1e6 / span
print(f"{share:.0f}% of the span is GPU idle outside every step (set-up, compilation, warm-up): "
      f"without --all the report looks at the steps alone")
PY
)
grep -qxF "$expected" "$scratch/r.txt" || { echo "FAILED: text lacks: $expected"; fail=1; }
grep -qxF "$expected" "$scratch/r.md" || { echo "FAILED: Markdown lacks: $expected"; fail=1; }
case "$expected" in 9[0-9]%*) ;; *) echo "FAILED: expected a share of 90-99%: $expected"; fail=1 ;; esac
steps=$(COLUMNS=200 "$os" report "$data/torch_compile.db") || { echo "FAILED: report"; fail=1; }
grep -q "of the span is GPU idle outside every step" <<<"$steps" && { echo "FAILED: the steady state repeats the note"; fail=1; }
grep -q "^the steady state: .* left out.* (--all analyses everything)" <<<"$steps" || { echo "FAILED: no steady-state line: $(sed -n 3p <<<"$steps")"; fail=1; }
grep -q "from +12.04" <<<"$steps" || { echo "FAILED: the window is not the steps': $(sed -n 2p <<<"$steps")"; fail=1; }
"$os" report --all "$OVERLAPSCOPE_TEST_DATA/gpu/ddp.db" | grep -q "of the span is GPU idle outside every step" && { echo "FAILED: ddp (its steps fill its run) has the note"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $expected"
exit $fail
