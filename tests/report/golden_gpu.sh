#!/usr/bin/env bash
# Golden GPU traces: traces recorded by the lead on a GPU machine (tests/data/gpu/), each with the
# verdict `overlapscope check` must give. Adding a trace is one line: `golden FILE BOUNDS...`.
# Skipped (exit 77) while no golden trace is present.
set -u
fail=0; pass=0; seen=0
os=$OVERLAPSCOPE
data=$OVERLAPSCOPE_TEST_DATA/gpu
golden() { # trace bounds...
    local trace=$data/$1; shift
    [ -f "$trace" ] || return 0
    seen=$((seen+1))
    if out=$($os check "$trace" "$@" 2>&1); then pass=$((pass+1)); else echo "FAILED: check $trace $*"; echo "$out"; fail=$((fail+1)); fi
}
# Two 8448x1024-thread kernels on two streams of an H100 (gpu-notes): serialized by SM saturation.
golden sm_saturation.db --min sm_saturation_ms=0.001 --max unexplained_ms=0.1
# A 64 MiB pageable cudaMemcpyAsync and a kernel launched after it on another stream.
golden pageable_copy.db --min pageable_copy_ms=1
# 4 streams with CUDA_DEVICE_MAX_CONNECTIONS=1: one hardware channel.
golden shared_queue.db --min shared_queue_ms=0.001
# Two ranks of DDP with NCCL all-reduce on 2 H200s.
golden ddp_2rank.db --min comm_ms=0.001
if [ $seen -eq 0 ]; then echo "skipped: no golden GPU traces in $data yet"; exit 77; fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
