#!/usr/bin/env bash
# tests/gpu/torch_jobs.sh OUTDIR: records real PyTorch training loops of the shapes users record
# (workloads/torch/train_modes.py: torch.compile, CUDA graphs through reduce-overhead, AMP with
# GradScaler, a side-stream prefetch, loss.item() logging), each plain first (steps/s) and then
# under `overlapscope record`, and runs report (text at 100 columns, JSON), render and export
# (through tests/import/check_trace_events.py) on each recording. Everything goes to OUTDIR: the
# recordings NAME.db with sidecars, NAME.txt / NAME.report.json / NAME.png / NAME.trace.json,
# and summary.txt. Exit 1 when a recording, a report, a render or an export failed.
set -u
. "$(dirname "$0")/recording_env.sh" "$@"
[ -x "$OVERLAPSCOPE" ] && [ -x "$TORCH_PY" ] || { echo "$0: build or stage first, and PyTorch at $TORCH_PY" >&2; exit 2; }
failed=0
for mode in ${TORCH_JOBS_MODES:-compile compile-graphs amp-scaler prefetch item-log}; do
  name=torch_${mode//-/_}
  job=("$TORCH_PY" workloads/torch/train_modes.py --mode "$mode")
  echo "== $name"
  timeout 300 "${job[@]}" 2>&1 | tail -2 | sed 's/^/plain:  /'
  sidecar "$name" "" "$OVERLAPSCOPE" record -o "$OUT/$name.db" --force -- "${job[@]}"
  if ! timeout 300 "$OVERLAPSCOPE" record -o "$OUT/$name.db" --force -- "${job[@]}" >"$OUT/$name.log" 2>&1; then
    echo "FAILED to record $name:"; tail -5 "$OUT/$name.log"; failed=1; continue
  fi
  grep -E "train_modes|overlapscope" "$OUT/$name.log" | tail -4 | sed 's/^/record: /'
  COLUMNS=100 "$OVERLAPSCOPE" report "$OUT/$name.db" >"$OUT/$name.txt" 2>&1 || { echo "report failed"; failed=1; }
  "$OVERLAPSCOPE" report --json "$OUT/$name.db" >"$OUT/$name.report.json" 2>&1 || { echo "report --json failed"; failed=1; }
  "$OVERLAPSCOPE" render "$OUT/$name.db" -o "$OUT/$name.png" 2>&1 | tail -1 || failed=1
  [ -s "$OUT/$name.png" ] || { echo "render failed"; failed=1; }
  if "$OVERLAPSCOPE" export "$OUT/$name.db" --chrome "$OUT/$name.trace.json" >/dev/null 2>&1; then
    python3 tests/import/check_trace_events.py "$OUT/$name.trace.json" 2>&1 | tail -1 || failed=1
  else
    echo "export failed"; failed=1
  fi
  "$OVERLAPSCOPE" info "$OUT/$name.db" 2>&1 | head -12
done
exit $failed
