#!/usr/bin/env bash
# GPU check of the collector and `overlapscope record` (run by the lead on a GPU machine).
# Usage: tests/gpu/collector.sh OUTDIR
#   OVERLAPSCOPE  the CLI (default .gpu/build/cli/overlapscope as tests/gpu/stage.sh stages it, else
#                 build/cli/overlapscope; the collector is found beside it)
#   PYTHON        python3 with torch (default /opt/torch/.venv/bin/python3)
#   NVCC          (default /usr/local/cuda/bin/nvcc), ARCH (default sm_90)
# Writes logs and .db files under OUTDIR, prints a PASS/FAIL table, exits 1 if anything failed.
# Budget: well under 5 minutes (each step has a timeout).
set -u
out=${1:?usage: collector.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
default_os=$root/build/cli/overlapscope
[ -x "$root/.gpu/build/cli/overlapscope" ] && default_os=$root/.gpu/build/cli/overlapscope # tests/gpu/stage.sh
os=${OVERLAPSCOPE:-$default_os}
py=${PYTHON:-/opt/torch/.venv/bin/python3}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
arch=${ARCH:-sm_90}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
results=()
record_result() { results+=("$(printf '%-4s %-28s %s' "$1" "$2" "$3")"); }

# check NAME DB PYTHON-EXPRESSIONS: each line "label: SQL => python condition on v".
check() {
    local name=$1 db=$2
    if [ ! -f "$db" ]; then record_result FAIL "$name" "no trace $db"; return; fi
    local verdict
    verdict=$("$py" - "$db" <<PY 2>&1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
failed = []
for line in """$3""".strip().splitlines():
    label, rest = line.split(":", 1)
    sql, condition = rest.split("=>")
    v = db.execute(sql).fetchone()[0]
    if not eval(condition, {"v": v}):
        failed.append(f"{label.strip()}={v!r}")
print("ok" if not failed else "failed: " + ", ".join(failed))
PY
)
    if [ "$verdict" = ok ]; then record_result PASS "$name" "every check held"; else record_result FAIL "$name" "$verdict"; fi
}

started=$(date +%s)
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "== $(nvidia-smi -L 2>/dev/null | head -2 | tr '\n' ' ') ($gpus GPUs); overlapscope $os"
"$os" --version >"$out/version.txt" 2>&1

echo "== build the CUDA test programs"
cuda_root=$(cd "$(dirname "$nvcc")/.." && pwd)
cupti_flags=(-I"$cuda_root/include" -I"$cuda_root/extras/CUPTI/include" -L"$cuda_root/lib64" -L"$cuda_root/extras/CUPTI/lib64" -lcupti
             -Xlinker -rpath -Xlinker "$cuda_root/lib64" -Xlinker -rpath -Xlinker "$cuda_root/extras/CUPTI/lib64")
if timeout 120 "$nvcc" -arch="$arch" -O2 -o "$out/collector_smoke" "$here/collector_smoke.cu" "${cupti_flags[@]}" -ldl >"$out/nvcc.log" 2>&1 &&
   timeout 120 "$nvcc" -arch="$arch" -O2 -o "$out/overhead_kernels" "$here/overhead_kernels.cu" >>"$out/nvcc.log" 2>&1; then
    record_result PASS build "nvcc -arch=$arch"
else
    record_result FAIL build "see nvcc.log"
fi

echo "== 1. smoke: every kind, two processes (fork)"
timeout 60 "$os" record --force -o "$out/smoke.db" -- "$out/collector_smoke" >"$out/smoke.log" 2>&1
echo "exit $?" >>"$out/smoke.log"
check smoke "$out/smoke.db" "
processes: SELECT COUNT(*) FROM processes => v == 2
child kernels: SELECT COUNT(*) FROM kernels k JOIN processes p USING (process_id) WHERE p.parent_pid IN (SELECT pid FROM processes) => v == 1
kernels: SELECT COUNT(*) FROM kernels => v == 11
kernel times: SELECT COUNT(*) FROM kernels WHERE end_ns <= start_ns OR start_ns < 1e15 => v == 0
two streams: SELECT COUNT(DISTINCT stream_id) FROM kernels WHERE grid_x = 4096 => v == 2
legacy stream: SELECT COUNT(*) FROM kernels k JOIN streams s USING (process_id, context_id, stream_id) WHERE s.is_legacy_default = 1 => v >= 1
pinned copy: SELECT COUNT(*) FROM memcpys WHERE src_kind = 2 AND bytes = 67108864 AND copy_kind = 1 => v == 1
pageable copy: SELECT COUNT(*) FROM memcpys WHERE src_kind = 1 AND bytes = 67108864 => v == 1
memset: SELECT COUNT(*) FROM memsets WHERE bytes = 67108864 => v == 1
stream wait event: SELECT COUNT(*) FROM synchronizations WHERE sync_type = 2 => v >= 1
event synchronize: SELECT COUNT(*) FROM synchronizations WHERE sync_type = 1 => v >= 1
cuda events: SELECT COUNT(*) FROM cuda_events => v >= 1
devices: SELECT COUNT(*) FROM devices WHERE sm_count > 0 AND max_warps_per_sm > 0 => v >= 2
streams: SELECT COUNT(*) FROM streams WHERE device_id IS NOT NULL => v >= 3
api launch: SELECT COUNT(*) FROM api_calls a JOIN strings s ON s.id = a.name_id WHERE s.value = 'cudaLaunchKernel' => v >= 10
api correlation: SELECT COUNT(*) FROM kernels k JOIN api_calls a USING (process_id, correlation_id) => v >= 10
nvtx work: SELECT COUNT(*) FROM nvtx n JOIN strings s ON s.id = n.message_id WHERE s.value = 'work' AND n.kind = 1 => v == 1
nvtx mark: SELECT COUNT(*) FROM nvtx WHERE kind = 3 => v == 1
dropped: SELECT SUM(dropped_records) FROM processes => v == 0
no warnings: SELECT COUNT(*) FROM warnings => v == 0
exit status: SELECT value FROM meta WHERE key = 'exit_status' => v == '0'
"

echo "== 1b. per-thread default stream (workloads default_stream_ptds and default_stream, 3 reps each)"
workloads=$(dirname "$(dirname "$os")")/workloads
if [ -x "$workloads/default_stream_ptds" ]; then
    timeout 60 "$os" record --force -o "$out/ptds.db" -- "$workloads/default_stream_ptds" --spin-us 200 >"$out/ptds.log" 2>&1
    check ptds "$out/ptds.db" "
per-thread stream row: SELECT COUNT(*) FROM streams WHERE is_per_thread_default = 1 => v == 1
not also legacy: SELECT COUNT(*) FROM streams WHERE is_per_thread_default = 1 AND is_legacy_default = 1 => v == 0
handle-0 kernels on it: SELECT COUNT(*) FROM kernels k JOIN streams s USING (process_id, context_id, stream_id) WHERE s.is_per_thread_default = 1 => v == 3
created-stream kernels not on it: SELECT COUNT(*) FROM kernels k JOIN streams s USING (process_id, context_id, stream_id) WHERE s.is_per_thread_default = 0 => v == 6
"
    timeout 60 "$os" record --force -o "$out/legacy.db" -- "$workloads/default_stream" --spin-us 200 >"$out/legacy.log" 2>&1
    check legacy-default "$out/legacy.db" "
no per-thread stream: SELECT COUNT(*) FROM streams WHERE is_per_thread_default = 1 => v == 0
handle-0 kernels on the legacy stream: SELECT COUNT(*) FROM kernels k JOIN streams s USING (process_id, context_id, stream_id) WHERE s.is_legacy_default = 1 => v == 3
"
else
    record_result FAIL ptds "no $workloads/default_stream_ptds (stage with tests/gpu/stage.sh)"
fi

echo "== 2. PyTorch, two streams, NVTX ranges step0..step4 from torch.cuda.nvtx"
timeout 90 "$os" record --force -o "$out/torch_streams.db" -- "$py" "$here/torch_two_streams.py" >"$out/torch_streams.log" 2>&1
check torch-two-streams "$out/torch_streams.db" "
kernels: SELECT COUNT(*) FROM kernels => v >= 10
streams: SELECT COUNT(DISTINCT stream_id) FROM kernels => v >= 2
nvtx steps: SELECT COUNT(*) FROM nvtx n JOIN strings s ON s.id = n.message_id WHERE s.value IN ('step0','step1','step2','step3','step4') AND n.kind = 1 => v == 5
nvtx forwarded: SELECT COUNT(*) FROM warnings WHERE code = 'nvtx-unavailable' => v == 0
dropped: SELECT SUM(dropped_records) FROM processes => v == 0
"

echo "== 3. DDP, 2 ranks by mp.spawn"
if [ "$gpus" -ge 2 ]; then
    timeout 120 "$os" record --force -o "$out/ddp.db" -- "$py" "$here/torch_ddp_spawn.py" >"$out/ddp.log" 2>&1
    check ddp-2-ranks "$out/ddp.db" "
ranks: SELECT COUNT(DISTINCT rank) FROM processes WHERE rank IS NOT NULL => v == 2
world size: SELECT MIN(world_size) FROM processes WHERE rank IS NOT NULL => v == 2
collectives: SELECT COUNT(*) FROM collectives => v >= 4
both ranks collectives: SELECT COUNT(DISTINCT p.rank) FROM collectives c JOIN processes p USING (process_id) => v == 2
allreduce: SELECT COUNT(*) FROM collectives WHERE op = 'AllReduce' => v >= 2
allgather: SELECT COUNT(*) FROM collectives WHERE op = 'AllGather' => v >= 2
kernel link: SELECT COUNT(*) FROM collectives c JOIN kernels k ON k.rowid = c.kernel_rowid => v >= 4
plugin rows: SELECT COUNT(*) FROM collectives WHERE detail_source = 2 AND bytes > 0 => v >= 4
plugin both ranks: SELECT COUNT(DISTINCT process_id) FROM collectives WHERE detail_source = 2 => v == 2
dtype and algorithm: SELECT COUNT(*) FROM collectives WHERE detail_source = 2 AND op NOT IN ('Send', 'Recv') AND (dtype IS NULL OR algorithm IS NULL OR protocol IS NULL) => v == 0
plugin linked: SELECT COUNT(*) FROM collectives WHERE detail_source = 2 AND kernel_rowid IS NULL => v == 0
plugin kernel is nccl: SELECT COUNT(*) FROM collectives c JOIN kernels k ON k.rowid = c.kernel_rowid JOIN strings s ON s.id = k.name_id WHERE c.detail_source = 2 AND s.value NOT LIKE '%nccl%' => v == 0
no name-only left: SELECT COUNT(*) FROM collectives WHERE detail_source = 1 => v == 0
nranks: SELECT COUNT(*) FROM collectives WHERE detail_source = 2 AND (nranks IS NOT 2 OR communicator IS NULL) => v == 0
rank is the process rank: SELECT COUNT(*) FROM collectives c JOIN processes p USING (process_id) WHERE c.detail_source = 2 AND c.rank IS NOT p.rank => v == 0
seq never decreases per communicator and op: SELECT COUNT(*) FROM (SELECT sequence_number - LAG(sequence_number) OVER (PARTITION BY process_id, communicator, op ORDER BY start_ns, sequence_number) AS d FROM collectives WHERE detail_source = 2 AND sequence_number IS NOT NULL) WHERE d < 0 => v == 0
seq increases per communicator and op: SELECT COUNT(*) FROM (SELECT process_id, communicator, op, MAX(sequence_number) - MIN(sequence_number) AS span FROM collectives WHERE detail_source = 2 GROUP BY 1, 2, 3) WHERE span > 0 => v >= 1
same calls on both ranks: SELECT COUNT(*) FROM (SELECT communicator, op, sequence_number, bytes FROM collectives WHERE detail_source = 2 GROUP BY 1, 2, 3, 4 HAVING COUNT(DISTINCT process_id) != 2) => v == 0
final all_reduce 4 MiB: SELECT COUNT(*) FROM collectives WHERE detail_source = 2 AND op = 'AllReduce' AND dtype = 'f32' AND bytes = 4194304 => v >= 2
all_gather 4 MiB per rank: SELECT COUNT(*) FROM collectives WHERE detail_source = 2 AND op = 'AllGather' AND bytes = 4194304 => v == 2
dropped: SELECT SUM(dropped_records) FROM processes => v == 0
"
    "$py" - "$out/ddp.db" >"$out/ddp_collectives.txt" 2>&1 <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("op, dtype, algorithm, protocol, bytes, detail_source, count")
for row in db.execute("SELECT op, dtype, algorithm, protocol, bytes, detail_source, COUNT(*) FROM collectives GROUP BY 1,2,3,4,5,6"):
    print(row)
print("sample: rank, op, bytes, element_count, dtype, root, algorithm, protocol, communicator, nranks, seq, kernel")
for row in db.execute("SELECT c.rank, c.op, c.bytes, c.element_count, c.dtype, c.root, c.algorithm, c.protocol,"
                      " c.communicator, c.nranks, c.sequence_number, substr(s.value, 1, 50) FROM collectives c"
                      " LEFT JOIN kernels k ON k.rowid = c.kernel_rowid LEFT JOIN strings s ON s.id = k.name_id"
                      " ORDER BY c.process_id, c.start_ns LIMIT 40"):
    print(row)
for row in db.execute("SELECT code, message FROM warnings WHERE code LIKE 'nccl%'"):
    print("warning:", row)
PY
    sed -n '1,80p' "$out/ddp_collectives.txt"
else
    record_result SKIP ddp-2-ranks "needs 2 GPUs ($gpus here)"
fi

echo "== 4a. torch.profiler active inside the recorded process (41 kernels: randn, 20 x matmul+tanh)"
# What is true depends on who holds CUPTI (docs/collector.md): the collector subscribes first, so on
# CUDA 13 Kineto's cuptiSubscribe is refused and OUR trace is complete while the profiler's is not;
# if Kineto takes the activity buffers instead, our trace misses kernels and must say so.
timeout 90 "$os" record --force -o "$out/profiler.db" -- "$py" "$here/torch_profiler_active.py" >"$out/profiler.log" 2>&1
verdict=$("$py" - "$out/profiler.db" "$out/profiler.log" <<'PY' 2>&1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
log = open(sys.argv[2]).read()
kernels = db.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
codes = [r[0] for r in db.execute("SELECT code FROM warnings")]
competing = codes.count("competing-profiler")
refused = codes.count("profiler-refused")
meta = db.execute("SELECT value FROM meta WHERE key = 'competing_profiler'").fetchone()
if kernels >= 41:
    if competing:
        print(f"FAIL complete trace ({kernels} kernels) but a competing-profiler warning: a false alarm")
    elif refused:
        print(f"PASS our trace complete ({kernels} kernels); the refused profiler was detected and reported")
    else:
        print(f"PASS our trace complete ({kernels} kernels); CUPTI sent no notice of the refused profiler (not detectable, as documented)")
else:
    ok = competing and meta and meta[0] == "1" and "overlapscope import" in log
    print(("PASS" if ok else "FAIL") + f" our trace lacks kernels ({kernels} of 41); warning {competing}, meta {meta}, import suggested: {'overlapscope import' in log}")
PY
)
case $verdict in PASS*|FAIL*) ;; *) verdict="FAIL no verdict: $verdict" ;; esac
record_result "${verdict%% *}" competing-profiler "${verdict#* }"

echo "== 4b. another client takes CUPTI's activity callbacks after the collector (CUDA 12 Kineto's way)"
timeout 60 "$os" record --force -o "$out/stolen.db" -- "$out/collector_smoke" --steal-activity-callbacks >"$out/stolen.log" 2>&1
check stolen-callbacks "$out/stolen.db" "
warning: SELECT COUNT(*) FROM warnings WHERE code = 'competing-profiler' => v == 1
meta: SELECT value FROM meta WHERE key = 'competing_profiler' => v == '1'
kernels missing: SELECT COUNT(*) FROM kernels => v < 200
"
grep -q "warning: another profiler.*overlapscope import" "$out/stolen.log" && record_result PASS stolen-message "record named the cause and suggested 'overlapscope import'" \
    || record_result FAIL stolen-message "no one-line warning with 'overlapscope import' in stolen.log"

echo "== 5. signal: SIGTERM to record mid-run, trace still written"
timeout 60 "$os" record --force -o "$out/term.db" -- "$py" -c "import torch,time; a=torch.ones(1,device='cuda'); torch.cuda.synchronize(); time.sleep(30)" >"$out/term.log" 2>&1 &
rec=$!; sleep 12; kill -TERM $rec; wait $rec; echo "exit $?" >>"$out/term.log"
check sigterm "$out/term.db" "
processes: SELECT COUNT(*) FROM processes => v == 1
kernel: SELECT COUNT(*) FROM kernels => v >= 1
status: SELECT value FROM meta WHERE key = 'exit_status' => v == '143'
"

# Wall time of the program's own launch loop (after warm-up), best of N; prints seconds.
loop_time() { # N COMMAND...
    local n=$1; shift
    for _ in $(seq "$n"); do timeout 120 "$@" 2>>"$out/overhead.log" | awk '/loop_seconds/ {print $2}'; done | sort -n | head -1
}
ratio() { "$py" -c "print(f'{$1/$2:.3f}')" 2>/dev/null || echo "?"; }

echo "== 6. overhead, launch-bound: 100k tiny kernels (~2 us each), plain vs recorded, best of 3"
plain=$(loop_time 3 "$out/overhead_kernels" 100000 launch)
recorded=$(loop_time 3 "$os" record --force -o "$out/overhead.db" -- "$out/overhead_kernels" 100000 launch)
recorded_noapi=$(loop_time 3 "$os" record --force --no-api -o "$out/overhead_noapi.db" -- "$out/overhead_kernels" 100000 launch)
# What the collector's own launch callback costs: the same without it (diagnostic setting).
recorded_nocb=$(OVERLAPSCOPE_LAUNCH_CALLBACKS=0 loop_time 3 "$os" record --force -o "$out/overhead_nocb.db" -- "$out/overhead_kernels" 100000 launch)
launch_ratio=$(ratio "$recorded" "$plain"); launch_ratio_noapi=$(ratio "$recorded_noapi" "$plain")
launch_ratio_nocb=$(ratio "$recorded_nocb" "$plain")
echo "launch-bound: plain $plain s, recorded $recorded s (ratio $launch_ratio), --no-api $recorded_noapi s (ratio $launch_ratio_noapi), launch callbacks off $recorded_nocb s (ratio $launch_ratio_nocb)" | tee "$out/overhead.txt"
check overhead-trace "$out/overhead.db" "
kernels: SELECT COUNT(*) FROM kernels => v == 101000
dropped: SELECT SUM(dropped_records) FROM processes => v == 0
"

echo "== 7. overhead, GPU-bound: 100k kernels of 25 us each, plain vs recorded, best of 2"
gpu_plain=$(loop_time 2 "$out/overhead_kernels" 100000 gpu 25)
gpu_recorded=$(loop_time 2 "$os" record --force -o "$out/overhead_gpu.db" -- "$out/overhead_kernels" 100000 gpu 25)
gpu_ratio=$(ratio "$gpu_recorded" "$gpu_plain")
echo "GPU-bound: plain $gpu_plain s, recorded $gpu_recorded s (ratio $gpu_ratio)" | tee -a "$out/overhead.txt"
check overhead-gpu-trace "$out/overhead_gpu.db" "
kernels: SELECT COUNT(*) FROM kernels => v == 101000
dropped: SELECT SUM(dropped_records) FROM processes => v == 0
"
# Issue 2.8's target (<= 1.03) is for what a training job looks like: GPU-bound. The launch-bound
# ratio is the worst case, reported as measured: CUPTI's own per-kernel cost dominates it.
if "$py" -c "import sys; sys.exit(0 if $gpu_ratio <= 1.03 else 1)" 2>/dev/null; then
    record_result PASS overhead-gpu-bound "ratio $gpu_ratio (target <= 1.03)"
else
    record_result FAIL overhead-gpu-bound "ratio $gpu_ratio (target <= 1.03)"
fi
record_result INFO overhead-launch-bound "ratio $launch_ratio, --no-api $launch_ratio_noapi, callbacks off $launch_ratio_nocb (worst case; no target)"

echo "== 8. burst: 1M tiny kernels as fast as they launch, default buffers (then bigger ones if that dropped)"
timeout 120 "$os" record --force -o "$out/burst.db" -- "$out/overhead_kernels" 1000000 launch >"$out/burst.log" 2>&1
burst_rate=$(awk '/loop_seconds/ {printf "%.0f", $4/$2}' "$out/burst.log")
echo "burst: ${burst_rate:-?} kernels/s launched while recorded" | tee -a "$out/overhead.txt"
check burst-default "$out/burst.db" "
kernels: SELECT COUNT(*) FROM kernels => v == 1001000
dropped: SELECT SUM(dropped_records) FROM processes => v == 0
"
if [[ ${results[-1]} == FAIL* ]]; then
    timeout 120 "$os" record --force --buffer-mb 32 --buffers 64 --device-buffer-mb 32 -o "$out/burst_big.db" -- \
        "$out/overhead_kernels" 1000000 launch >"$out/burst_big.log" 2>&1
    check burst-bigger-buffers "$out/burst_big.db" "
kernels: SELECT COUNT(*) FROM kernels => v == 1001000
dropped: SELECT SUM(dropped_records) FROM processes => v == 0
"
fi

for db in "$out"/*.db; do "$os" info "$db" >"${db%.db}.info.txt" 2>&1; done
echo
echo "== summary"
failed=0
for line in "${results[@]}"; do echo "$line"; [[ $line == FAIL* ]] && failed=1; done
echo "took $(( $(date +%s) - started )) s"
[ $failed -eq 0 ] && echo "ALL PASS" || echo "SOME FAILED (logs and traces in $out)"
exit $failed
