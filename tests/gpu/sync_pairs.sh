#!/usr/bin/env bash
# tests/gpu/sync_pairs.sh OUTDIR: the hidden-synchronization pairs of issue 32 item 7 and the
# imported-trace copies of issue 36 item 4, recorded on this GPU into OUTDIR:
#   - workloads/torch/hidden_syncs.py: torch.cuda.empty_cache() each iteration beside a
#     side-stream GEMM vs without (torch_empty_cache, torch_no_empty_cache), and boolean-mask
#     indexing (nonzero + a D2H the host waits for) vs torch.where (torch_mask, torch_where), each
#     recorded with `overlapscope record` (+ sidecar), and the four timed plain, interleaved in
#     one process, 7 rounds (hidden_syncs_timings.json: ms per 200 iterations);
#   - workloads/torch/copy_feed.py under torch.profiler (no overlapscope: Kineto takes CUPTI):
#     Chrome traces kineto_copy_{pageable,pinned,prefetch,d2h_pageable,d2h_pinned}.json.gz, for
#     `overlapscope import` to give the verdicts the recorded goldens give.
# Needs the tree staged by tests/gpu/stage.sh and PyTorch at $TORCH_PY.
set -u
. "$(dirname "$0")/recording_env.sh" "$@"
[ -x "$OVERLAPSCOPE" ] || { echo "$0: build or stage first" >&2; exit 2; }
[ -x "$TORCH_PY" ] || { echo "$0: no PyTorch at $TORCH_PY" >&2; exit 2; }
echo "== sync pairs on $GPUS x $GPU_NAME, driver $DRIVER, CUDA $CUDA_VERSION"
failed=0
record() {
  record_into "$@" || { echo "FAILED to record $1:"; tail -5 "$OUT/$1.log"; failed=1; }
}
T=workloads/torch

echo "== hidden synchronizations: empty_cache and boolean masks"
for mode in empty-cache no-empty-cache mask where; do
  record "torch_${mode//-/_}" -- "$TORCH_PY" $T/hidden_syncs.py --mode "$mode"
  grep hidden_syncs "$OUT/torch_${mode//-/_}.log"
done
"$TORCH_PY" $T/hidden_syncs.py --compare empty-cache,no-empty-cache,mask,where --rounds 7 \
  >"$OUT/hidden_syncs_timings.json" || failed=1
cat "$OUT/hidden_syncs_timings.json"

if [ "${SYNC_PAIRS_KINETO:-1}" = 0 ]; then ls -la "$OUT"; exit $failed; fi  # the hidden syncs alone

echo "== seed 002's copies as Chrome traces (torch.profiler)"
for mode in pageable pinned prefetch d2h-pageable d2h-pinned; do
  dir=$(mktemp -d)
  if timeout 180 "$TORCH_PY" $T/copy_feed.py --mode "$mode" --epochs 2 --profile "$dir" >"$OUT/kineto_copy_${mode//-/_}.log" 2>&1; then
    gzip -c "$dir/rank0.json" >"$OUT/kineto_copy_${mode//-/_}.json.gz"
  else
    echo "FAILED: copy_feed --mode $mode --profile"; tail -5 "$OUT/kineto_copy_${mode//-/_}.log"; failed=1
  fi
  rm -rf "$dir"
done
echo "== Chrome traces with Python stacks (with_stack=True): host-side verdicts of imported traces"
kineto() { # kineto NAME PROGRAM ARGS...: the program's --profile trace as OUT/NAME.json.gz
  local name=$1 dir; shift; dir=$(mktemp -d)
  if timeout 180 "$@" --profile "$dir" >"$OUT/$name.log" 2>&1; then gzip -c "$dir/rank0.json" >"$OUT/$name.json.gz"
  else echo "FAILED: $name"; tail -5 "$OUT/$name.log"; failed=1; fi
  rm -rf "$dir"
}
kineto kineto_starved_loader "$TORCH_PY" $T/starved_loader.py --workers 2 --load-ms 20 --steps 30
kineto kineto_sync_loop "$TORCH_PY" $T/sync_loop.py --iterations 300
kineto kineto_mask "$TORCH_PY" $T/hidden_syncs.py --mode mask --iterations 100
ls -la "$OUT"
exit $failed
