#!/usr/bin/env bash
# tests/gpu/whatif_pairs.sh OUTDIR: records every what-if pair of issue 17 (the cause and the
# program with the fix made, the same work) on this GPU into OUTDIR/NAME.db, each with a sidecar
# OUTDIR/NAME.json (machine, versions, command), then prints per pair the saving predicted from
# the unfixed trace, the saving measured (span of unfixed minus fixed, same work) and the error,
# through tests/report/whatif_pairs.py, the check CI runs on the committed goldens. Exit 1 when a
# pair misses the target (within 15% of the measured saving or 50 us, the larger; a saturated
# trace predicts less than 10% of its span), 2 when a recording failed. Needs the tree staged by
# tests/gpu/stage.sh (./.gpu/build) or built at ./build; the 2-GPU ddp pairs run when two GPUs
# are visible, the PyTorch pairs when $TORCH_PY (default /opt/torch/.venv/bin/python3) exists.
set -u
. "$(dirname "$0")/recording_env.sh" "$@"
[ -x "$OVERLAPSCOPE" ] && [ -x "$WL/host_bound" ] || { echo "$0: build or stage first" >&2; exit 2; }
echo "== what-if pairs on $GPUS x $GPU_NAME, driver $DRIVER, CUDA $CUDA_VERSION, NCCL ${NCCL_VERSION:-?}"
failed=0

# record NAME [VAR=VALUE ...] -- PROGRAM ARGS... (recording_env.sh's record_into), noting a failure.
record() {
  record_into "$@" || { echo "FAILED to record $1:"; tail -5 "$OUT/$1.log"; failed=1; }
}

record copy_pageable -- "$WL/copy_compute" --pageable
record copy_pinned -- "$WL/copy_compute" --pinned
record copy_same_direction -- "$WL/copy_compute" --same-direction
record default_stream -- "$WL/default_stream"
record default_stream_nonblocking -- "$WL/default_stream" --non-blocking
record default_stream_ptds -- "$WL/default_stream_ptds"
record event_chain -- "$WL/event_chain"
record event_chain_nodeps -- "$WL/event_chain" --no-deps
for op in device-sync stream-sync free none; do record "host_sync_$op" -- "$WL/host_sync" --op "$op"; done
record many_streams_2 CUDA_DEVICE_MAX_CONNECTIONS=2 -- "$WL/many_streams" --streams 4
record many_streams_8 -- "$WL/many_streams" --streams 4
record pipeline_serial -- "$WL/pipeline" --serial --steps 40
record pipeline_pipelined -- "$WL/pipeline" --pipelined --steps 40
record streams_saturate -- "$WL/streams_saturate" --waves 8 --block-us 50 --reps 2
for mode in sync item cpu launch none launch-graph; do record "host_bound_$mode" -- "$WL/host_bound" --mode "$mode"; done
if [ "$GPUS" -ge 2 ]; then
  record ddp_no_overlap -- "$WL/ddp" --steps 8 --no-overlap
  record ddp -- "$WL/ddp" --steps 8 --overlap
  record ddp_saturate -- "$WL/ddp" --steps 8 --overlap --saturate
  record ddp_saturate_priority -- "$WL/ddp" --steps 8 --overlap --saturate --comm-priority high
else
  echo "(one GPU: the ddp pairs are skipped)"
fi
if [ -x "$TORCH_PY" ]; then
  record torch_two_gemms_2 -- "$TORCH_PY" workloads/torch/two_gemms.py --streams 2
  record torch_two_gemms_1 -- "$TORCH_PY" workloads/torch/two_gemms.py --streams 1
  record torch_loader_pageable -- "$TORCH_PY" workloads/torch/loader_copy.py --pageable
  record torch_loader_pinned -- "$TORCH_PY" workloads/torch/loader_copy.py --pinned
  # A loader doing its CPU work in the training loop, and the same in 8 worker processes
  record torch_loader_inline -- "$TORCH_PY" workloads/torch/starved_loader.py --steps 60 --load-ms 8 --batch 8
  record torch_loader_workers -- "$TORCH_PY" workloads/torch/starved_loader.py --steps 60 --load-ms 8 --batch 8 --workers 8
  # A launch-bound training step, eager and captured in a CUDA graph (the cuda-graph fix)
  record torch_graph_eager -- "$TORCH_PY" workloads/torch/graph_step.py --mode eager
  record torch_graph_graph -- "$TORCH_PY" workloads/torch/graph_step.py --mode graph
else
  echo "(no PyTorch at $TORCH_PY: the PyTorch pairs are skipped)"; failed=1
fi

python3 tests/report/whatif_pairs.py "$OVERLAPSCOPE" "$OUT"
rc=$?
[ $failed -eq 0 ] || exit 2
exit $rc
