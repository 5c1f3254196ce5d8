#!/usr/bin/env bash
# tests/gpu/multi_gpu.sh OUTDIR: the runs that need two GPUs in one host (issue 18), in one call:
#   1. tests/gpu/workloads.sh OUTDIR: every reference workload, the NCCL ones (ddp and its flags,
#      ddp_skew, two_batch) with two ranks, and the PyTorch ones (two_batch_ddp by mp.spawn);
#   2. the arrival-skew series: ddp --skew-us 500 (ddp_skew_500) beside workloads.sh's 0 (ddp)
#      and 2000 (ddp_skew);
#   3. workloads/torch/two_batch_ddp.py under torchrun (torch_two_batch_ddp_torchrun) and
#      tests/gpu/torch_ddp_spawn.py (torch_ddp_spawn) under mp.spawn;
#   3b. workloads/torch/ddp_straggler.py under torchrun, rank 1 late by 0 and 5 ms of host work a
#      step (torch_ddp_straggler_0, torch_ddp_straggler_5): a late rank in real PyTorch DDP;
#   4. ddp as two separate `record` runs, one per rank (as two nodes would record it), then
#      `overlapscope merge` (ddp_rank0, ddp_rank1 -> ddp_merged);
# and prints the report of the skew series and of the merged trace. Each recording gets a sidecar.
# MULTI_GPU_STEPS names the steps to run (default "workloads skew torch straggler apart"); the skew step
# records ddp (N = 0) again too, so that a series always comes from one machine.
# Exit 0 when every step ran; the verdicts are asserted by tests/report/golden_gpu.sh on the
# committed goldens (CI, no GPU). Needs the tree staged by tests/gpu/stage.sh.
set -u
. "$(dirname "$0")/recording_env.sh" "$@"
[ "$GPUS" -ge 2 ] || { echo "$0: needs 2 GPUs, $GPUS visible" >&2; exit 2; }
status=0
started=$(date +%s)

# record NAME [VAR=VALUE ...] -- PROGRAM ARGS... (recording_env.sh's record_into), noting a failure.
record() {
  echo "== $*"
  record_into "$@" || { echo "FAILED to record $1:"; grep -v 'NCCL INFO' "$OUT/$1.log" | tail -5; status=1; return 1; }
}

# wanted STEP: whether MULTI_GPU_STEPS names it.
wanted() { [[ " ${MULTI_GPU_STEPS:-workloads skew torch straggler apart} " == *" $1 "* ]]; }

if wanted workloads; then
  echo "== 1. tests/gpu/workloads.sh"
  bash tests/gpu/workloads.sh "$OUT" >"$OUT/workloads.log" 2>&1 || status=1
  sed -n '/^WORKLOAD /,$p' "$OUT/workloads.log"
fi

if wanted skew; then
  echo "== 2. arrival skew: ddp --skew-us 0, 500, 2000"
  record ddp -- "$WL/ddp" --steps 8 --overlap
  record ddp_skew_500 -- "$WL/ddp" --steps 8 --overlap --skew-us 500
  record ddp_skew -- "$WL/ddp" --steps 8 --overlap --skew-us 2000
  python3 tests/report/skew_series.py "$OVERLAPSCOPE" "$OUT" || status=1
fi

if wanted torch; then
  echo "== 3. PyTorch DDP: torchrun and mp.spawn"
  record torch_two_batch_ddp -- "$TORCH_PY" workloads/torch/two_batch_ddp.py --steps 6
  record torch_two_batch_ddp_torchrun -- "$TORCH_PY" -m torch.distributed.run --standalone --nproc_per_node=2 \
    workloads/torch/two_batch_ddp.py --steps 6
  record torch_ddp_spawn -- "$TORCH_PY" tests/gpu/torch_ddp_spawn.py
fi

if wanted straggler; then
  echo "== 3b. a late rank in real PyTorch DDP: workloads/torch/ddp_straggler.py, rank 1 +0 / +5 ms a step"
  for ms in 0 5; do
    record torch_ddp_straggler_$ms -- "$TORCH_PY" -m torch.distributed.run --standalone --nproc_per_node=2 \
      workloads/torch/ddp_straggler.py --slow-ms $ms
    grep -h 'ddp_straggler:' "$OUT/torch_ddp_straggler_$ms.log"
  done
fi

wanted apart || { echo "multi_gpu.sh: status $status"; exit $status; }
echo "== 4. two ranks recorded apart, then merged"
id_file=$(mktemp -u /tmp/ddp-id.XXXXXX)
pids=()
for rank in 0 1; do
  record "ddp_rank$rank" RANK=$rank WORLD_SIZE=2 LOCAL_RANK=$rank -- "$WL/ddp" --steps 8 --overlap \
    --id-file "$id_file" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
"$OVERLAPSCOPE" merge "$OUT/ddp_rank0.db" "$OUT/ddp_rank1.db" -o "$OUT/ddp_merged.db" --force \
  >"$OUT/ddp_merged.log" 2>&1 || { echo "FAILED: merge"; status=1; }
cat "$OUT/ddp_merged.log"

for name in ddp ddp_skew_500 ddp_skew ddp_merged; do
  [ -f "$OUT/$name.db" ] || continue
  echo "== report $name"
  "$OVERLAPSCOPE" report "$OUT/$name.db" 2>&1 | sed -n '/exposed communication/,/^$/p' | head -12
done
echo "multi_gpu.sh: status $status, $(( $(date +%s) - started )) s"
exit $status
