#!/usr/bin/env bash
# tests/gpu/workloads.sh OUTDIR: records every reference workload (workloads/README.md) with
# `overlapscope record`, asserts each documented outcome from the recorded intervals
# (tests/gpu/check_workload.py), prints the analyzer's verdict when `overlapscope report --json`
# works, runs the PyTorch versions, and prints a summary table. Needs a GPU machine with the tree
# built at ./build or staged at ./.gpu/build (CLI, collector, workloads); any directory. Exit 0 when every
# assertion passed. Each recording gets a sidecar OUTDIR/NAME.json (machine, versions, command).
set -u
. "$(dirname "$0")/recording_env.sh" "$@"
mkdir -p "$OUT/torch" || exit 2
CHECK=(python3 tests/gpu/check_workload.py)
started=$(date +%s)

for f in "$OVERLAPSCOPE" "$WL/streams_fit"; do
  [ -x "$f" ] || { echo "$0: $f is missing: build first (cmake --build build)" >&2; exit 2; }
done
echo "== $GPUS x $GPU_NAME, driver $DRIVER, CUDA $CUDA_VERSION, NCCL ${NCCL_VERSION:-?}"

rows=()      # "workload|expectation|measured|verdict"
failures=0
row() { rows+=("$1|$2|$3|$4"); [ "$4" = FAIL ] && failures=$((failures + 1)); echo "  $4 $1: $3"; }

# record NAME [VAR=VALUE ...] -- PROGRAM ARGS...: records into OUTDIR/NAME.db; a row on failure.
record() {
  local name=$1
  echo "== $*"
  RECORD_TIMEOUT=60 record_into "$@"
  local rc=$?
  sed 's/^/    /' "$OUT/$name.log" | grep -v '^    NCCL INFO' | tail -4
  if [ $rc -ne 0 ]; then row "$name" "program and recording succeed" "exit status $rc" FAIL; return 1; fi
  # Golden traces (tests/data/gpu) must stay <= 2 MB each: the workloads' recordings are the
  # candidates. The PyTorch ones carry torch's ~29k start-up API calls and are not committed.
  local bytes; bytes=$(stat -c %s "$OUT/$name.db" 2>/dev/null || echo 0)
  if [ "${name#torch_}" = "$name" ] && [ "$bytes" -gt $((2 * 1024 * 1024)) ]; then
    row "$name" "recording <= 2 MB (golden trace limit)" "$bytes bytes" FAIL
  fi
  if "$OVERLAPSCOPE" report --json "$OUT/$name.db" >"$OUT/$name.report.json" 2>/dev/null; then
    echo "    report: $(head -c 300 "$OUT/$name.report.json" | tr -s ' \n' ' ')"
  fi
  return 0
}

# check NAME EXPECTATION CHECK-ARGS...: one assertion on OUTDIR/NAME.db.
check() {
  local name=$1 expectation=$2; shift 2
  [ -f "$OUT/$name.db" ] || { row "$name" "$expectation" "no recording" FAIL; return; }
  local line; line=$("${CHECK[@]}" "$OUT/$name.db" "$@" 2>/dev/null | tail -1)
  row "$name" "$expectation" "${line#* }" "${line%% *}"
}

# info NAME WHAT CHECK-ARGS...: a figure reported without a verdict (outcome not fixed by CUDA).
info() {
  local name=$1 what=$2; shift 2
  [ -f "$OUT/$name.db" ] || return
  local line; line=$("${CHECK[@]}" "$OUT/$name.db" "$@" 2>/dev/null | tail -1)
  row "$name" "$what" "${line#* }" INFO
}

# output_field NAME REGEX: the first capture of REGEX in the program's output.
output_field() { sed -n "s/.*$2.*/\1/p" "$OUT/$1.log" | head -1; }

SPIN='wl_spin_kernel'
record streams_fit -- "$WL/streams_fit" --streams 4 --spin-us 2000 --reps 3 &&
  check streams_fit "kernels that fit overlap fully" overlap --kernel "$SPIN" --min 0.9
record streams_saturate -- "$WL/streams_saturate" --waves 8 --block-us 50 --reps 2 &&
  check streams_saturate "8-wave grids overlap only in tails" overlap --kernel "$SPIN" --max 0.25
record streams_saturate_fraction -- "$WL/streams_saturate" --fraction 0.45 --block-us 1000 --reps 2 &&
  check streams_saturate_fraction "two 0.45-capacity grids overlap" overlap --kernel "$SPIN" --min 0.9

record default_stream -- "$WL/default_stream" &&
  check default_stream "legacy default stream serializes" overlap --kernel "$SPIN" --max 0.05 &&
  check default_stream "a kernel on the legacy stream" stream-kind --kernel "$SPIN" --kind legacy
record default_stream_ptds -- "$WL/default_stream_ptds" &&
  check default_stream_ptds "per-thread default stream overlaps" overlap --kernel "$SPIN" --min 0.8 &&
  check default_stream_ptds "a kernel on a per-thread stream" stream-kind --kernel "$SPIN" --kind per-thread
record default_stream_nonblocking -- "$WL/default_stream" --non-blocking &&
  check default_stream_nonblocking "non-blocking streams overlap" overlap --kernel "$SPIN" --min 0.8

record copy_pageable -- "$WL/copy_compute" --pageable &&
  check copy_pageable "pageable H2D holds the kernel back" copy-kernel --kernel "$SPIN" --max 0.2 \
        --src-kind 1 --min-host-held 0.5
record copy_pinned -- "$WL/copy_compute" --pinned &&
  check copy_pinned "pinned H2D overlaps the kernel" copy-kernel --kernel "$SPIN" --min 0.8 --src-kind 2
record copy_same_direction -- "$WL/copy_compute" --same-direction &&
  check copy_same_direction "two H2D copies: no gain" copy-pair --min 1.6
record copy_opposite -- "$WL/copy_compute" --opposite-directions &&
  check copy_opposite "H2D + D2H run side by side" copy-pair --max 1.4

record event_chain -- "$WL/event_chain" &&
  check event_chain "event waits serialize" overlap --kernel "$SPIN" --max 0.05 &&
  check event_chain "stream-wait-event records" sync --type 2 --min-count 6
record event_chain_nodeps -- "$WL/event_chain" --no-deps &&
  check event_chain_nodeps "without waits: overlap" overlap --kernel "$SPIN" --min 0.9

for op in stream-sync device-sync free; do
  record "host_sync_$op" -- "$WL/host_sync" --op "$op" &&
    check "host_sync_$op" "host $op serializes" overlap --kernel "$SPIN" --max 0.05
done
[ -f "$OUT/host_sync_stream-sync.db" ] &&
  check host_sync_stream-sync "cudaStreamSynchronize calls" sync --api cudaStreamSynchronize --min-count 3
record host_sync_malloc -- "$WL/host_sync" --op malloc &&
  info host_sync_malloc "cudaMalloc between launches (driver-dependent)" overlap --kernel "$SPIN"
record host_sync_none -- "$WL/host_sync" --op none &&
  check host_sync_none "nothing between: overlap" overlap --kernel "$SPIN" --min 0.9

record launch_bound -- "$WL/launch_bound" --launches 1000 --host-us 5 &&
  check launch_bound "GPU idles between tiny launches" busy --kernel tiny_add --max 0.5

# Idle time by cause (issue 16): verdicts in tests/report/golden_gpu.sh once committed.
for mode in sync item cpu launch; do
  record "host_bound_$mode" -- "$WL/host_bound" --mode "$mode" &&
    "$OVERLAPSCOPE" check "$OUT/host_bound_$mode.db" --max idle_unexplained_ms=0.1 >/dev/null &&
    row "host_bound_$mode" "idle time accounted" "$("$OVERLAPSCOPE" report "$OUT/host_bound_$mode.db" | grep -A1 'GPU idle' | tail -1)" PASS
done

record many_streams_2 CUDA_DEVICE_MAX_CONNECTIONS=2 -- "$WL/many_streams" --streams 4 &&
  check many_streams_2 "4 streams on 2 queues: false serialization" makespan --kernel "$SPIN" \
        --min 1.4 --channels 2
record many_streams_8 -- "$WL/many_streams" --streams 4 &&
  check many_streams_8 "4 streams on 8 queues: no serialization" makespan --kernel "$SPIN" \
        --max 1.2 --channels 4
record many_streams_2_breadth CUDA_DEVICE_MAX_CONNECTIONS=2 -- "$WL/many_streams" --streams 4 --breadth-first &&
  check many_streams_2_breadth "breadth-first launch order avoids it" makespan --kernel "$SPIN" --max 1.3

record pipeline_pipelined -- "$WL/pipeline" --pipelined --steps 40 &&
  check pipeline_pipelined "encoder and decoder streams overlap" overlap --kernel gemm --min 0.3
record pipeline_serial -- "$WL/pipeline" --serial --steps 40
if [ -f "$OUT/pipeline_serial.log" ] && [ -f "$OUT/pipeline_pipelined.log" ]; then
  fast=$(output_field pipeline_pipelined ' \([0-9.]*\) steps\/s'); slow=$(output_field pipeline_serial ' \([0-9.]*\) steps\/s')
  same_a=$(output_field pipeline_pipelined 'checksum=\([^ ]*\)'); same_b=$(output_field pipeline_serial 'checksum=\([^ ]*\)')
  verdict=$(python3 -c "import sys; print('PASS' if float(sys.argv[1]) >= 1.05 * float(sys.argv[2]) else 'FAIL')" "${fast:-0}" "${slow:-1}" 2>/dev/null || echo FAIL)
  row pipeline "pipelined >= 1.05 x serial steps/s" "${fast:-?} vs ${slow:-?} steps/s" "$verdict"
  [ -n "$same_a" ] && [ "$same_a" = "$same_b" ] && v=PASS || v=FAIL
  row pipeline "same weights both ways" "checksums ${same_a:-?} / ${same_b:-?}" "$v"
fi

# 40 steps keep the recording under the 2 MB golden limit (50 made 2.1 MB once the store gained
# its covering launch index).
record two_batch -- "$WL/two_batch" --steps 40
if [ "$GPUS" -ge 2 ]; then
  check two_batch "one communicator: all_gathers never overlap" nccl --op AllGather --min-count 160 --max 0.05
  info two_batch "tiny compute on the two streams" overlap --exclude nccl
else
  info two_batch "1 rank: NCCL kernels" nccl --op AllGather
fi

record ddp -- "$WL/ddp" --steps 8 --overlap
record ddp_no_overlap -- "$WL/ddp" --steps 8 --no-overlap
record ddp_saturate -- "$WL/ddp" --steps 8 --overlap --saturate
record ddp_fill_eighth -- "$WL/ddp" --steps 8 --overlap --fill 0.125
record ddp_saturate_priority -- "$WL/ddp" --steps 8 --overlap --saturate --comm-priority high
record ddp_skew -- "$WL/ddp" --steps 8 --overlap --skew-us 2000
if [ "$GPUS" -ge 2 ]; then
  check ddp "bucket all-reduces hide behind backward" comm-overlap --comm 'AllReduce.*f32' --min 0.5
  check ddp "each bucket all-reduce carries the bucket's bytes (NCCL plugin)" nccl-bytes --layers 8 --size 1024 --buckets 4
  check ddp_no_overlap "all-reduce after backward is exposed" comm-overlap --max 0.1
  # When a bucket's sum ends, the NCCL kernel (comm stream) and the next GEMM (compute stream)
  # become ready at once and the block scheduler picks which is placed first: NCCL waits for SMs
  # only when the GEMM wins. Sessions on the same 2xH200 kind saw both (workloads/README.md), so
  # the delay is a figure here; the analyzer's explanation of such waits is asserted in CI on the
  # golden traces where the GEMM won (tests/report).
  info ddp_saturate "full SMs: NCCL delay (scheduler race)" nccl-delay --comm 'AllReduce.*f32' \
        --baseline "$OUT/ddp.db"
  info ddp_fill_eighth "a GEMM block per SM: NCCL delay (race)" nccl-delay --comm 'AllReduce.*f32' \
        --baseline "$OUT/ddp.db"
  # The analyzer's own account of the fill-1/8 run, for the log: which resource kept NCCL out.
  "$OVERLAPSCOPE" report "$OUT/ddp_fill_eighth.db" 2>&1 | sed -n '/^missed overlaps/,/^largest/p' | head -12
  info ddp_saturate_priority "high-priority comm stream" nccl-delay --comm 'AllReduce.*f32' \
        --baseline "$OUT/ddp_saturate.db"
else
  info ddp "1 rank: NCCL kernels" nccl --op AllReduce
fi

# PyTorch versions: plain, recorded, and with torch.profiler traces for the importer fixtures.
if [ -x "$TORCH_PY" ]; then
  # Idle-time loops (issue 16): recorded, and profiled with stacks for the importer's sources.
  record torch_sync_loop -- "$TORCH_PY" workloads/torch/sync_loop.py --iterations 300
  record torch_starved_loader -- "$TORCH_PY" workloads/torch/starved_loader.py --steps 20
  timeout 60 "$TORCH_PY" workloads/torch/sync_loop.py --profile "$OUT/torch/sync_loop" >/dev/null 2>&1
  timeout 60 "$TORCH_PY" workloads/torch/starved_loader.py --profile "$OUT/torch/starved_loader" >/dev/null 2>&1
  for script in two_batch_ddp pipeline_aug; do
    echo "== torch/$script"
    if timeout 60 "$TORCH_PY" "workloads/torch/$script.py" --steps 20 >"$OUT/torch/$script.log" 2>&1; then
      row "torch/$script" "runs" "$(tail -1 "$OUT/torch/$script.log")" PASS
    else
      row "torch/$script" "runs" "exit status $? ($(tail -1 "$OUT/torch/$script.log"))" FAIL
    fi
    # Fewer steps under record keep the golden traces small (20 steps of two_batch_ddp: 5.4 MB; with 6,
    # 2.8 MB, mostly the ~29k API calls of torch and NCCL start-up).
    recorded_steps=6; [ "$script" = pipeline_aug ] && recorded_steps=8
    if record "torch_$script" -- "$TORCH_PY" "workloads/torch/$script.py" --steps $recorded_steps; then
      count=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from kernels').fetchone()[0])" "$OUT/torch_$script.db" 2>/dev/null)
      [ "${count:-0}" -gt 0 ] && v=PASS || v=FAIL
      row "torch_$script" "recorded under overlapscope" "${count:-0} kernels" "$v"
    fi
    rm -rf "$OUT/torch/$script"
    if timeout 60 "$TORCH_PY" "workloads/torch/$script.py" --steps 10 --profile "$OUT/torch/$script" \
         >"$OUT/torch/$script.profile.log" 2>&1; then
      traces=$(find "$OUT/torch/$script" -name '*.json*' | wc -l)
      [ "$traces" -gt 0 ] && v=PASS || v=FAIL
      row "torch/$script --profile" "a Chrome trace per rank" "$traces trace files" "$v"
    else
      row "torch/$script --profile" "a Chrome trace per rank" "exit status $?" FAIL
    fi
  done
else
  row torch "PyTorch at $TORCH_PY" "not found" FAIL
fi

golden=()
for db in "$OUT"/*.db; do case ${db##*/} in torch_*) ;; *) golden+=("$db") ;; esac; done
total=$(du -cb "${golden[@]}" 2>/dev/null | tail -1 | cut -f1)
[ "${total:-0}" -le $((25 * 1024 * 1024)) ] && v=PASS || v=FAIL
row "workload recordings" "<= 25 MB together (golden traces)" "${total:-0} bytes in ${#golden[@]} files" "$v"

echo
printf '%-28s %-46s %-8s %s\n' WORKLOAD EXPECTATION VERDICT MEASURED
for r in "${rows[@]}"; do
  IFS='|' read -r name expectation measured verdict <<<"$r"
  printf '%-28s %-46s %-8s %s\n' "$name" "$expectation" "$verdict" "$measured"
done
echo "$(( ${#rows[@]} - failures )) rows passed or informational, $failures failed, $(( $(date +%s) - started )) s"
[ "$failures" -eq 0 ]
