#!/usr/bin/env bash
# tests/gpu/host_pairs.sh OUTDIR: the what-if pairs of the exposed-copy and sync issues (36, 32),
# each recorded once with `overlapscope record` into OUTDIR/NAME.db (+ sidecar), and each timed
# plain (unrecorded), the variants interleaved in one call, >= 5 rounds, into OUTDIR/*_timings.json:
#   - seed 002 on ResNet-18 (workloads/torch/copy_feed.py): pageable / pinned / prefetch, and the
#     device-to-host pair d2h-pageable / d2h-pinned (timed interleaved in one process);
#   - seed 004's loop (workloads/torch/sync_loop.py --randn, 1,000 iterations): sync of the working
#     device cuda:0, of the idle cuda:1, none (two GPUs; timed interleaved in one process);
#   - CUDA_LAUNCH_BLOCKING=1 on two streams of 100 us kernels, and the same unset (process wall
#     time in us, alternating runs: launch_blocking_timings.txt);
#   - load imbalance under DDP (workloads/torch/ddp_straggler.py, torchrun, 2 ranks): rank 1 with
#     twice the batch vs every rank the mean batch (timed as alternating runs, rank 0's steps/s).
# Needs the tree staged by tests/gpu/stage.sh and PyTorch at $TORCH_PY.
set -u
. "$(dirname "$0")/recording_env.sh" "$@"
[ -x "$OVERLAPSCOPE" ] || { echo "$0: build or stage first" >&2; exit 2; }
[ -x "$TORCH_PY" ] || { echo "$0: no PyTorch at $TORCH_PY" >&2; exit 2; }
echo "== host pairs on $GPUS x $GPU_NAME, driver $DRIVER, CUDA $CUDA_VERSION"
failed=0
record() {
  record_into "$@" || { echo "FAILED to record $1:"; grep -v 'NCCL INFO' "$OUT/$1.log" | tail -5; failed=1; }
}
T=workloads/torch

echo "== seed 002: copies on ResNet-18"
for mode in pageable pinned prefetch d2h-pageable d2h-pinned; do
  record "torch_copy_${mode//-/_}" -- "$TORCH_PY" $T/copy_feed.py --mode "$mode" --epochs 2
  grep copy_feed "$OUT/torch_copy_${mode//-/_}.log"
done
"$TORCH_PY" $T/copy_feed.py --compare pageable,pinned,prefetch --rounds 7 >"$OUT/copy_timings.json" || failed=1
"$TORCH_PY" $T/copy_feed.py --compare d2h-pageable,d2h-pinned --rounds 7 >"$OUT/copy_d2h_timings.json" || failed=1
cat "$OUT/copy_timings.json" "$OUT/copy_d2h_timings.json"

echo "== CUDA_LAUNCH_BLOCKING=1: two streams of 100 us kernels serialized by the launch calls"
record launch_blocking CUDA_LAUNCH_BLOCKING=1 -- "$WL/streams_fit" --streams 2 --spin-us 100 --reps 50
record launch_blocking_off -- "$WL/streams_fit" --streams 2 --spin-us 100 --reps 50
: >"$OUT/launch_blocking_timings.txt"
for round in 1 2 3 4 5; do
  for variant in on off; do
    envs=(); [ $variant = on ] && envs=(CUDA_LAUNCH_BLOCKING=1)
    start=$(date +%s%N); env "${envs[@]}" "$WL/streams_fit" --streams 2 --spin-us 100 --reps 50 >/dev/null
    echo "$variant $round $(( ($(date +%s%N) - start) / 1000 ))" >>"$OUT/launch_blocking_timings.txt"
  done
done

if [ "$GPUS" -ge 2 ]; then
  echo "== seed 004: sync of the working device, of the idle one, none"
  record torch_sync_dev0 -- "$TORCH_PY" $T/sync_loop.py --randn --iterations 1000 --sync-device 0
  record torch_sync_dev1 -- "$TORCH_PY" $T/sync_loop.py --randn --iterations 1000 --sync-device 1
  record torch_sync_none -- "$TORCH_PY" $T/sync_loop.py --randn --iterations 1000 --no-sync
  "$TORCH_PY" $T/sync_loop.py --randn --iterations 1000 --compare --rounds 7 >"$OUT/sync_timings.json" || failed=1
  cat "$OUT/sync_timings.json"

  echo "== DDP load imbalance: rank 1 with twice the batch, vs balanced"
  run=("$TORCH_PY" -m torch.distributed.run --standalone --nproc_per_node=2 $T/ddp_straggler.py --slow-ms 0
       --heavy-rank 1 --heavy-factor 2 --steps 40 --width 4096)
  record torch_ddp_heavy -- "${run[@]}"
  record torch_ddp_balanced -- "${run[@]}" --balanced
  : >"$OUT/ddp_timings.txt"
  for round in 1 2 3 4 5; do
    for variant in heavy balanced; do
      extra=(); [ $variant = balanced ] && extra=(--balanced)
      rate=$("${run[@]}" "${extra[@]}" 2>/dev/null | sed -n 's/.*: \([0-9.]*\) steps\/s.*/\1/p')
      echo "$variant $round $rate" | tee -a "$OUT/ddp_timings.txt"
    done
  done
else
  echo "(one GPU: the sync triple and the DDP pair are skipped)"
fi
exit $failed
