#!/usr/bin/env bash
# bench/torch_overhead: what `overlapscope record` costs real PyTorch jobs (GPU machine).
# Each job (jobs.py: resnet50, mlp, gpt2; mlp_compiled, mlp_item and gpt2_ddp on request) runs under each variant, interleaved round by round (the
# order rotates every round), REPEATS rounds:
#   plain, profiler  one process times the steps plain and under torch.profiler (CPU+CUDA activities,
#                    Chrome trace exported), alternating which goes first from round to round
#   plain            the job alone (without the profiler run of plain+profiler: a shorter round)
#   floor            a CUPTI injection that enables only kernel/memcpy/memset activity and discards
#                    the records (cupti_floor.c): what any CUDA activity trace must cost
#   record           overlapscope record (the default: the analysis API set, host samples at the
#                    default rate, collector/host_sampler.h)
# and, named in EXTRA_VARIANTS, the diagnostics that say where record's own time goes:
#   record-activity  the analysis API set, synchronizations and event records from CUPTI's activity
#                    kinds (OVERLAPSCOPE_CALLS_FROM=activity) instead of the collector's callbacks
#   record-all       --api all (every API call: the old default)
#   record-noapi     --no-api (no runtime/driver records)
#   record-nolaunch  the launch callback off (OVERLAPSCOPE_LAUNCH_CALLBACKS=0)
#   record-nosources the default without call sources (OVERLAPSCOPE_CALL_SOURCES=0: no Python line
#                    taken at blocking calls)
#   record-nosample  the default without host samples (record --sample-hz 0): the sampler's share
#   record-hz=N      record --sample-hz N
#   record-discard   everything enabled, buffers released unwritten (OVERLAPSCOPE_DISCARD=1): the
#                    writer thread's share
#   record-kinds=LIST  record --kinds LIST (runtime/driver in LIST: the analysis API set)
#   record-probe     kernel/copy/memset/device/context/stream kinds only, plus an empty CUPTI callback
#                    on every call of the analysis API set (OVERLAPSCOPE_LAUNCH_CALLBACKS=probe): what
#                    recording those calls from callbacks would cost at least
# VARIANTS replaces the whole list (e.g. VARIANTS="floor record record-noapi").
# Prints per job and variant: median steps/s, spread (min-max), ratio to plain and to the floor
# (ratios of medians), and for record variants the trace bytes per GPU activity and dropped records.
# Usage: bench/torch_overhead/run.sh OUTDIR [REPEATS [JOB...]]   (after tests/gpu/stage.sh)
set -u
# Every multi-GPU run (gpt2_ddp): NVLink multicast off (../shared/gpu-notes.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
out=${1:?usage: run.sh OUTDIR [REPEATS [JOB...]]}
repeats=${2:-5}
shift 2 2>/dev/null || shift $#
jobs=("$@"); [ ${#jobs[@]} -gt 0 ] || jobs=(mlp resnet50 gpt2)
cd "$(dirname "$0")/../.."
here=bench/torch_overhead
os=${OVERLAPSCOPE:-$PWD/.gpu/build/cli/overlapscope}
floor=${CUPTI_FLOOR:-$PWD/.gpu/build/bench/libcupti_floor.so}
python=${PYTHON:-python3}
variants=(${VARIANTS:-plain+profiler floor record ${EXTRA_VARIANTS:-}})
mkdir -p "$out"
results=$out/results.tsv
: >"$results"
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT

run_one() { # job variant round: appends "job variant round steps_per_s bytes activities dropped"
    local job=$1 variant=$2 round=$3 log=$scratch/log db=$scratch/trace.db line rate bytes=- activities=- dropped=-
    local job_command=("$python" $here/jobs.py "$job")
    # A DDP job: one rank per visible GPU under torchrun (recorded whole: the agent and every rank).
    [ "${job%_ddp}" = "$job" ] || job_command=("$python" -m torch.distributed.run --standalone \
        --nproc_per_node="$(nvidia-smi -L | wc -l)" $here/jobs.py "$job")
    rm -f "$db" "$scratch/trace.json"
    case $variant in
    plain+profiler)
        first=(); [ $((round % 2)) -eq 0 ] && first=(--profiler-first)
        timeout 300 "${job_command[@]}" --torch-profiler "$scratch/trace.json" "${first[@]}" >"$log" 2>&1
        for v in plain profiler; do
            line=$(grep "variant=$v " "$log" | grep -o 'steps_per_s=[0-9.]*' | tail -1)
            rate=${line#steps_per_s=}; [ -n "$rate" ] || { echo "FAILED: $job $v round $round"; tail -5 "$log"; rate=nan; }
            bytes=-; [ $v = profiler ] && [ -f "$scratch/trace.json" ] && bytes=$(stat -c %s "$scratch/trace.json")
            printf '%s\t%s\t%s\t%s\t%s\t-\t-\n' "$job" "$v" "$round" "$rate" "$bytes" >>"$results"
            echo "$job $v round $round: $rate steps/s"
        done
        return ;;
    plain) timeout 300 "${job_command[@]}" >"$log" 2>&1 ;;
    floor) CUDA_INJECTION64_PATH=$floor timeout 300 "${job_command[@]}" >"$log" 2>&1 ;;
    record) timeout 300 "$os" record -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-activity) OVERLAPSCOPE_CALLS_FROM=activity timeout 300 "$os" record -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-all) timeout 300 "$os" record --api all -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-noapi) timeout 300 "$os" record --no-api -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-nolaunch) OVERLAPSCOPE_LAUNCH_CALLBACKS=0 timeout 300 "$os" record -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-nosources) OVERLAPSCOPE_CALL_SOURCES=0 timeout 300 "$os" record -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-nosample) timeout 300 "$os" record --sample-hz 0 -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-hz=*) timeout 300 "$os" record --sample-hz "${variant#record-hz=}" -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-discard) OVERLAPSCOPE_DISCARD=1 timeout 300 "$os" record -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-probe) OVERLAPSCOPE_LAUNCH_CALLBACKS=probe timeout 300 "$os" record \
        --kinds kernel,memcpy,memset,device,context,stream -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    record-kinds=*) timeout 300 "$os" record --kinds "${variant#record-kinds=}" -o "$db" -- "${job_command[@]}" >"$log" 2>&1 ;;
    *) echo "unknown variant $variant"; return ;;
    esac
    line=$(grep -o 'steps_per_s=[0-9.]*' "$log" | tail -1)
    rate=${line#steps_per_s=}
    if [ -z "$rate" ]; then echo "FAILED: $job $variant round $round"; tail -5 "$log"; rate=nan; fi
    if [ -f "$db" ]; then
        bytes=$(stat -c %s "$db")
        read -r activities dropped < <("$python" - "$db" "$out/api-$job-$variant.txt" "$round" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
one = lambda sql: db.execute(sql).fetchone()[0]
print(one("SELECT (SELECT COUNT(*) FROM kernels)+(SELECT COUNT(*) FROM memcpys)+(SELECT COUNT(*) FROM memsets)"),
      one("SELECT COALESCE(SUM(dropped_records),0) FROM processes"))
if sys.argv[3] == "1":  # the API calls recorded, most frequent first, once per job and variant
    with open(sys.argv[2], "w") as f:
        f.write(f"api_calls {one('SELECT COUNT(*) FROM api_calls')}\n")
        for name, count in db.execute("SELECT s.value, COUNT(*) FROM api_calls a JOIN strings s ON s.id = a.name_id"
                                      " GROUP BY 1 ORDER BY 2 DESC LIMIT 15"):
            f.write(f"{count:9} {name}\n")
PY
)
    elif [ "$variant" = floor ]; then
        dropped=$(sed -n 's/^cupti_floor: dropped //p' "$log" | awk '{s+=$1} END {print s+0}')
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$job" "$variant" "$round" "$rate" "$bytes" "$activities" "$dropped" >>"$results"
    echo "$job $variant round $round: $rate steps/s"
}

for round in $(seq 1 "$repeats"); do
    for job in "${jobs[@]}"; do
        # rotate the order each round so that no variant always runs first or after the same one
        n=${#variants[@]}
        for ((i = 0; i < n; i++)); do run_one "$job" "${variants[$(( (i + round) % n ))]}" "$round"; done
    done
done
python3 $here/summarize.py "$results" | tee "$out/summary.txt"
