#!/usr/bin/env bash
# Golden GPU traces: every trace recorded on 2x H200 in tests/data/gpu/ (collector of 2026-11-22)
# and tests/data/gpu-h200x2/ (collector of 2026-11-28), on 1x H100 in tests/data/gpu-h100/ and on
# 1x H200 in tests/data/gpu-h200/ (READMEs there), checked
# against the outcome workloads/README.md documents for its workload (tests/gpu/*.cu|py for the
# collector's own programs), through `overlapscope check` bounds and assertions on `report --json`.
# A trace in a folder without a verdict here fails, as does a verdict without its trace in a
# multi-GPU folder (gpu/, gpu-h200x2/; gpu-h100/ and gpu-h200/ hold the single-GPU workloads only:
# a trace missing there is skipped);
# the test is skipped (77) only when tests/data/gpu/ is absent.
#
#   bounds TRACE CHECK-OPTIONS...   overlapscope check must pass
#   verdict TRACE 'WHY' 'PYTHON'    the expression must be true over the JSON report, with
#       s: summary, lost(tag)/count(tag): ms lost / waits of a cause, evidence(tag): the kept waits'
#       evidence lines of a cause, top(): the cause losing most, devices, streams, pairs(a, b):
#       achieved / possible overlap of two streams summed over devices, comm_with_comm: time two
#       NCCL kernels ran at once / NCCL time, readable(): no negative figure in any evidence and no
#       "rank -1" label, pairs_sane(): every stream pair's 0 <= overlap <= possible, accounted():
#       every device's idle and exposed-communication parts sum to its idle_ns /
#       exposed_communication_ns (all three checked on every trace); idle_top(rank) /
#       exposed_top(rank): (cause, label) of the largest idle / exposed-communication part of that
#       rank's device (rank -1: the first device); step_skew(rank): per step, ms of that rank's
#       exposed communication given to arrival skew; straggler: the JSON's.
#   pending TRACE 'HOW'              0 when TRACE.db is there; else says how to record it and
#       returns 1, so `pending T ... && verdict T ...` keeps CI green until the trace exists.
set -u
# One run per folder: the same verdicts hold on every machine kind the workloads were recorded on.
if [ -z "${GOLDEN_SET:-}" ]; then
    [ -d "${OVERLAPSCOPE_TEST_DATA:?}/gpu" ] || { echo "skipped: no $OVERLAPSCOPE_TEST_DATA/gpu"; exit 77; }
    status=0
    for set in gpu gpu-h200x2 gpu-h100 gpu-h200 gpu-h200-v3; do
        [ -d "$OVERLAPSCOPE_TEST_DATA/$set" ] || continue
        echo "== tests/data/$set"
        GOLDEN_SET=$set bash "$0" || status=1
    done
    exit $status
fi
data=${OVERLAPSCOPE_TEST_DATA:?}/$GOLDEN_SET
os=${OVERLAPSCOPE:?}
fail=0; pass=0
covered=" "
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT

present() { # trace: 0 when its file is there, else a failure
    covered="$covered$1 "
    if [ -f "$data/$1.db" ]; then return 0; fi
    # gpu/ holds every trace named here; a later multi-GPU folder (gpu-h200x2/) the multi-GPU
    # ones; a one-GPU folder none for sure (not recorded on that kind: skipped).
    case $GOLDEN_SET/$1 in gpu/*|gpu-*x[0-9]/ddp*|gpu-*x[0-9]/two_batch*|gpu-*x[0-9]/torch_*ddp*) ;; *) return 1 ;; esac
    echo "FAILED: $1.db is listed here but missing from $data"; fail=$((fail+1)); return 1
}

bounds() {
    local trace=$1; shift
    present "$trace" || return 0
    if out=$("$os" check "$data/$trace.db" "$@" 2>&1); then pass=$((pass+1)); else
        echo "FAILED: $trace: overlapscope check $*"; echo "$out"; fail=$((fail+1)); fi
}

# better GOOD BAD METRIC...: on each metric (a ratio of what was possible), the fixed schedule GOOD
# reads higher than BAD, per device in the JSON and in the summary (a better schedule never reads
# worse; the "2+ streams" and "copy overlap" figures they replace read the other way round).
better() {
    local good=$1 bad=$2; shift 2
    present "$good" && present "$bad" || return 0
    "$os" report --json "$data/$good.db" >"$scratch/better-good.json" &&
        "$os" report --json "$data/$bad.db" >"$scratch/better-bad.json" || {
        echo "FAILED: $good / $bad: report --json"; fail=$((fail+1)); return 0; }
    if out=$(python3 - "$scratch/better-good.json" "$scratch/better-bad.json" "$@" <<'EOF' 2>&1
import json, sys
good, bad = (json.load(open(path)) for path in sys.argv[1:3])
for metric in sys.argv[3:]:
    g, b = good["summary"][metric], bad["summary"][metric]
    gd, bd = good["devices"][0][metric], bad["devices"][0][metric]
    print(metric, "summary", g, b, "device 0", gd, bd)
    if not (g > b and gd is not None and bd is not None and gd > bd and abs(gd - g) < 1e-9):
        sys.exit(1)
EOF
    ); then pass=$((pass+1)); else
        echo "FAILED: $good should read better than $bad: $*"; echo "$out"; fail=$((fail+1)); fi
}

verdict() {
    local trace=$1 why=$2 expression=$3
    present "$trace" || return 0
    # VERDICT_SELECT="--range NAME" (or another option and its value): the report of that selection
    # (or --all: the whole run, set-up included; by default the report's steady state)
    local select=(); [ -n "${VERDICT_SELECT:-}" ] && select=("${VERDICT_SELECT%% *}" "${VERDICT_SELECT#* }")
    [ "${VERDICT_SELECT:-}" = --all ] && select=(--all)
    local json=$scratch/$trace${VERDICT_SELECT:+-selected-$(echo "$VERDICT_SELECT" | tr -c 'a-zA-Z0-9' _)}.json
    [ -s "$json" ] || "$os" report --json "${select[@]}" "$data/$trace.db" >"$json" 2>"$scratch/err" || {
        echo "FAILED: $trace: report --json ${select[*]}: $(cat "$scratch/err")"; fail=$((fail+1)); return 0; }
    if out=$(python3 - "$json" "$expression" <<'EOF' 2>&1
import json, re, statistics, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
causes = {c["cause"]: c for c in r["causes"]}
devices, streams = r["devices"], r["streams"]
def lost(tag): return causes[tag]["lost_ns"] / 1e6 if tag in causes else 0.0
def count(tag): return causes[tag]["count"] if tag in causes else 0
def evidence(tag): return [w["evidence"] for w in r["waits"] if w["cause"] == tag]
def top(): return r["causes"][0]["cause"] if r["causes"] else None
def pairs(a, b):
    chosen = [p for p in r["stream_pairs"] if {p["stream_a"], p["stream_b"]} == {a, b}]
    possible = sum(p["possible_ns"] for p in chosen)
    return sum(p["overlap_ns"] for p in chosen) / possible if possible else 0.0
comm = sum(d["communication_ns"] for d in devices)
comm_with_comm = sum(d["category_overlap_ns"]["communication"]["communication"] for d in devices) / comm if comm else 0.0
def parts(d, what): return d[what]["causes"] if what in d else []
def readable():  # no negative figure ("-66.5 us") in any evidence, no "rank -1" label anywhere,
    texts = [w["evidence"] for w in r["waits"]] + [x["process"] for x in devices + streams + r["waits"]]
    texts += [c["evidence"] for d in devices for w in ("idle", "exposed_communication") for c in parts(d, w)]
    # nor a sentence naming one kernel twice as if two ("spin could have run beside spin")
    garbled = r"(?<![\w:])([\w:]+) (?:could have run beside|went first although) \1(?![\w:])"
    return not any(re.search(r"(?<![\w.])-\d", t) or re.search(garbled, t) for t in texts)
def pairs_sane():  # every stream pair: 0 <= achieved <= possible
    return all(0 <= p["overlap_ns"] <= p["possible_ns"] for p in r["stream_pairs"])
def accounted():
    return all(sum(c["ns"] for c in d[w]["causes"]) == d[w]["ns"] == d[k]
               for d in devices for w, k in (("idle", "idle_ns"), ("exposed_communication", "exposed_communication_ns"),
                                             ("exposed_copy", "exposed_copy_ns")))
def copy_top(rank=-1):
    c = parts(device_of(rank), "exposed_copy")
    return (c[0]["cause"], c[0]["label"]) if c else None
def device_of(rank): return next(d for d in devices if rank < 0 or d["rank"] == rank)
def idle_top(rank=-1):
    c = parts(device_of(rank), "idle")
    return (c[0]["cause"], c[0]["label"]) if c else None
def exposed_top(rank=-1):
    c = parts(device_of(rank), "exposed_communication")
    return (c[0]["cause"], c[0]["label"]) if c else None
def step_skew(rank):  # ms of that rank's exposed communication given to arrival skew, per step
    return [sum(c["ns"] for c in st["exposed_communication"]["causes"] if c["cause"] == "skew") / 1e6
            for st in r["step_accounting"] if st["rank"] == rank]
straggler = r.get("straggler") or {}
ok = eval(sys.argv[2])
if not ok:
    print("false; causes:", {t: (round(lost(t), 3), count(t)) for t in causes}, "summary:",
          {k: round(v, 3) for k, v in s.items() if not k.endswith("_ms") or v})
    sys.exit(1)
EOF
    ); then pass=$((pass+1)); else
        echo "FAILED: $trace ($why): $expression"; echo "$out"; fail=$((fail+1)); fi
}

# predicts TRACE 'OPTION VALUE' FIX TIMINGS SLOW FAST: the what-if FIX on TRACE selected by one
# report option ('--range epoch 1', '--window 67.6ms:121ms'; "" for the whole trace) predicts a saving, as a share of the devices' spans, within 15% of the one measured without
# tracing (timings/TIMINGS of the set, a JSON of {variant: [ms, ...]}: (slow - fast) / slow of the
# medians of SLOW and FAST); prints predicted against measured either way.
predicts() {
    local trace=$1 option=$2 fix=$3 timings=$4 slow=$5 fast=$6
    present "$trace" || return 0
    local json=$scratch/$trace-$fix.json
    local select=(); [ -n "$option" ] && select=("${option%% *}" "${option#* }")
    "$os" report --json "${select[@]}" "$data/$trace.db" >"$json" 2>"$scratch/err" || {
        echo "FAILED: $trace: report --json ${select[*]}: $(cat "$scratch/err")"; fail=$((fail+1)); return 0; }
    if out=$(python3 - "$json" "$fix" "$data/timings/$timings" "$slow" "$fast" <<'EOF' 2>&1
import json, statistics, sys
r = json.load(open(sys.argv[1]))
fix, timings, slow, fast = sys.argv[2], json.load(open(sys.argv[3])), sys.argv[4], sys.argv[5]
measured = 1 - statistics.median(timings[fast]) / statistics.median(timings[slow])
saving = next((w["predicted_saving_ns"] for w in r["what_if"] if w["fix"] == fix), 0) / 1e6
# The saving is summed over the devices (each replayed alone), so it is a share of their spans' sum.
span = sum(d["span_ns"] for d in r["devices"]) / 1e6
predicted = saving / span
print(f"{fix}: predicted -{predicted:.1%} ({saving:.1f} ms of {span:.1f}), measured -{measured:.1%}")
sys.exit(0 if abs(predicted - measured) <= 0.15 * measured else 1)
EOF
    ); then pass=$((pass+1)); echo "$trace: $out"; else
        echo "FAILED: $trace: $out"; fail=$((fail+1)); fi
}

pending() {
    if [ -f "$data/$1.db" ]; then return 0; fi
    echo "pending: $1.db is not recorded yet ($2)"; return 1
}

# --- streams_fit / streams_saturate (occupancy) ---
bounds streams_fit --min stream_overlap=0.9 --max lost_ms=0.01
verdict streams_fit 'near-full overlap, nothing to fix' 's["waits"] == 0 and s["multi_stream_ratio"] >= 0.9'
bounds streams_saturate --max stream_overlap=0.25 --min sm_saturation_ms=0.5 --max unexplained_ms=0
verdict streams_saturate 'SM saturation dominates, in the last wave' \
    'top() == "sm-saturation" and any("held all 132 SMs" in e and "last wave" in e for e in evidence("sm-saturation"))'
bounds streams_saturate_fraction --min stream_overlap=0.9 --max lost_ms=0.01

# --- legacy default stream ---
bounds default_stream --max stream_overlap=0.05 --min legacy_default_stream_ms=2
verdict default_stream 'the legacy default stream, naming it' \
    'top() == "legacy-default-stream" and lost("legacy-default-stream") >= 0.9 * s["lost_ms"] and any("stream 7 is the legacy default stream" in e for e in evidence("legacy-default-stream"))'
# The fix leaves nothing to the stream semantics; what the host does may still lose a little (the
# H200 run of the non-blocking twin: one launch 39 us late, after the host's cudaDeviceSynchronize).
for fixed in default_stream_nonblocking default_stream_ptds; do
    bounds $fixed --min stream_overlap=0.8 --max legacy_default_stream_ms=0 --max unexplained_ms=0
    verdict $fixed 'nothing lost but late launches' 's["lost_ms"] - s["late_launch_ms"] <= 0.01'
done

# --- copies ---
bounds copy_pageable --min pageable_copy_ms=0.5 --max unexplained_ms=0
verdict copy_pageable 'pageable source holds the host; kernel after the copy' \
    'pairs(14, 15) <= 0.2 and any("pageable" in e for e in evidence("pageable-copy"))'
bounds copy_pinned --min stream_overlap=0.8 --max lost_ms=0.01
# The 1.5 ms kernel ran entirely under the 29 ms pinned copy: 100% of the possible copy/compute
# overlap (copy time under compute / copy time reads 5.2%); the pageable copy held the kernel back.
bounds copy_pinned --min copy_overlap_of_possible=0.99
better copy_pinned copy_pageable stream_overlap copy_overlap_of_possible
bounds copy_same_direction --min copy_engine_ms=1 --max unexplained_ms=0
verdict copy_same_direction 'one copy engine per direction' \
    'top() == "copy-engine" and all(re.search(r"HtoD copies on streams (\d+) and (?!\1\b)\d+", e) for e in evidence("copy-engine"))'
bounds copy_opposite --min stream_overlap=0.8 --max copy_engine_ms=0 --max lost_ms=0.01

# --- dependencies ---
bounds event_chain --max stream_overlap=0.05 --min event_dependency_ms=2 --max unexplained_ms=0
# A dependency asked for is no headroom: none within a rep (between the reps the host synchronizes,
# which the idle accounting proves and the what-if's remove-host-sync gives back: docs/metrics.md).
bounds event_chain --range "rep 0" --max headroom_ms=0
verdict event_chain 'explicit event dependency' 'top() == "event-dependency" and count("event-dependency") >= 6'
bounds event_chain_nodeps --min stream_overlap=0.9 --max lost_ms=0.01

# --- host synchronization: the host call, named; none: clean ---
bounds host_sync_stream-sync --max stream_overlap=0.05 --min host_sync_ms=2 --max unexplained_ms=0
verdict host_sync_stream-sync 'cudaStreamSynchronize named' \
    'top() == "host-sync" and sum("blocked in cudaStreamSynchronize" in e for e in evidence("host-sync")) >= 3'
bounds host_sync_device-sync --max stream_overlap=0.05 --min host_sync_ms=2 --max unexplained_ms=0
verdict host_sync_device-sync 'cudaDeviceSynchronize named' \
    'top() == "host-sync" and sum("blocked in cudaDeviceSynchronize" in e for e in evidence("host-sync")) >= 3'
bounds host_sync_free --max stream_overlap=0.05 --min host_sync_ms=2 --max unexplained_ms=0
# The GPU idles little here (0.5 ms of 6.6 on the H100): the sync is one idle cause among the
# launch gaps, named by its call, and nothing is unexplained.
verdict host_sync_device-sync 'idle: the host blocked in cudaDeviceSynchronize (seed 004 pattern)' \
    'any((c["cause"], c["label"]) == ("host-sync", "cudaDeviceSynchronize") for c in parts(device_of(-1), "idle")) and s["idle_unexplained_ms"] == 0'
verdict host_sync_free 'cudaFree named' \
    'top() == "host-sync" and sum("blocked in cudaFree" in e for e in evidence("host-sync")) >= 3'
# cudaMalloc is driver-dependent (workloads/README.md): on this H200 it returned in 85 us while
# kernel A ran, so B overlapped A and nothing was held back: no host-sync, full overlap.
bounds host_sync_malloc --min stream_overlap=0.8 --max host_sync_ms=0 --max lost_ms=0.01
bounds host_sync_none --min stream_overlap=0.9 --max lost_ms=0.01
# Their first kernels start within a millisecond of the set-up's last work: no warm-up is claimed.
for trace in host_sync_stream-sync host_sync_device-sync host_sync_free host_sync_malloc host_sync_none; do
    bounds $trace --max idle_warmup_ms=0
done

# --- launch rate ---
bounds launch_bound --max busy_ratio=0.5 --min late_launch_ms=0.1 --max unexplained_ms=0
# How many of the 2,000 launches come too late to overlap the other stream's kernel depends on the
# host and the GPU's speed: 1,999 (2x H200, 2026-11-22), 1,773 (H100), 480 (1x H200, 2026-11-24).
verdict launch_bound 'late launches, host-bound' \
    'top() == "late-launch" and abs(lost("late-launch") - s["lost_ms"]) < 0.001 and count("late-launch") >= 200'
# The waits see 1.6-1.9 ms; the idle accounting gives the idle GPU (21-24 ms from run to run) to the
# launch rate.
bounds launch_bound --max idle_unexplained_ms=0
verdict launch_bound 'idle: launch-bound' 'idle_top()[0] == "launch-bound" and s["idle_launch_bound_ms"] >= 0.9 * s["idle_ms"]'

# --- host-bound loops (workloads/host_bound.cu, workloads/torch/): idle time by cause ---
if pending host_bound_sync 'tests/gpu/workloads.sh: host_bound --mode sync'; then
    bounds host_bound_sync --max idle_unexplained_ms=0.1
    # The rest is the launch after each sync returns (launch-bound): 2 us a gap on the one-GPU
    # machines, 19 us on the 2x H200 host of 2026-11-28 (5.8 ms of 12.9 over 300 iterations).
    verdict host_bound_sync 'idle: host blocked in cudaDeviceSynchronize' \
        'idle_top() == ("host-sync", "cudaDeviceSynchronize") and s["idle_host_sync_ms"] >= 0.5 * s["idle_ms"]'
fi
if pending host_bound_item 'tests/gpu/workloads.sh: host_bound --mode item'; then
    bounds host_bound_item --max idle_unexplained_ms=0.1
    verdict host_bound_item 'idle: a scalar readback every iteration' \
        'idle_top()[0] == "host-sync" and ".item()-style" in idle_top()[1] and s["idle_host_sync_ms"] >= 0.8 * s["idle_ms"]'
fi
if pending host_bound_cpu 'tests/gpu/workloads.sh: host_bound --mode cpu'; then
    bounds host_bound_cpu --max idle_unexplained_ms=0.1
    verdict host_bound_cpu 'idle: host work between launches' \
        'idle_top()[0] == "host-cpu" and s["idle_host_cpu_ms"] >= 0.8 * s["idle_ms"]'
fi
if pending host_bound_launch 'tests/gpu/workloads.sh: host_bound --mode launch'; then
    bounds host_bound_launch --max idle_unexplained_ms=0.1
    verdict host_bound_launch 'idle: tiny kernels faster than the host issues them' \
        'idle_top()[0] == "launch-bound" and s["idle_launch_bound_ms"] >= 0.8 * s["idle_ms"]'
fi
# The what-if pairs' fixed twins (tests/gpu/whatif_pairs.sh; tests/report/whatif_pairs.py checks
# the predictions): the fix removes the cause the unfixed twin is judged on above.
if pending host_bound_none 'tests/gpu/whatif_pairs.sh: host_bound --mode none'; then
    verdict host_bound_none 'nothing between the launches: the GPU stays busy' \
        's["busy_ratio"] >= 0.5 and s["idle_host_sync_ms"] < 0.2 * s["idle_ms"] + 0.1 and not causes'
fi
if pending host_bound_launch-graph 'tests/gpu/whatif_pairs.sh: host_bound --mode launch-graph'; then
    verdict host_bound_launch-graph 'one graph launch: the launch rate no longer starves the GPU' \
        'idle_top()[0] != "launch-bound" and s["idle_launch_bound_ms"] < 0.5 * s["idle_ms"]'
fi
if pending torch_two_gemms_2 'tests/gpu/whatif_pairs.sh: torch/two_gemms.py --streams 2'; then
    verdict torch_two_gemms_2 'seed 000: two GEMMs that each fill the GPU' 'top() == "sm-saturation"'
fi
if pending torch_two_gemms_1 'tests/gpu/whatif_pairs.sh: torch/two_gemms.py --streams 1'; then
    verdict torch_two_gemms_1 'one stream: nothing to overlap' 'count("sm-saturation") == 0'
fi
if pending torch_loader_pageable 'tests/gpu/whatif_pairs.sh: torch/loader_copy.py --pageable'; then
    verdict torch_loader_pageable 'a pageable batch copy beside a GEMM' 'count("pageable-copy") >= 1'
fi
if pending torch_loader_pinned 'tests/gpu/whatif_pairs.sh: torch/loader_copy.py --pinned'; then
    verdict torch_loader_pinned 'the pinned copy overlaps the GEMM' \
        'count("pageable-copy") == 0 and s["stream_overlap"] >= 0.8'
fi
if pending torch_sync_loop 'tests/gpu/workloads.sh: torch/sync_loop.py --iterations 300'; then
    # Recorded on the H100 (PyTorch 2.11): the whole run's idle is mostly Python and CUDA set-up
    # (host-cpu, 246 ms in 15 stretches, the longest 81 ms) and, in the loop, the host issuing the
    # next mm after each sync (launch-bound, 618 gaps); the sync itself is named once per iteration.
    verdict torch_sync_loop 'seed 004: torch.mm then torch.cuda.synchronize()' \
        'any(c["cause"] == "host-sync" and c["label"] == "cudaDeviceSynchronize" and c["count"] >= 300 for c in parts(device_of(-1), "idle")) and s["idle_unexplained_ms"] == 0'
    # The set-up's long gaps that end with the first run of a kernel the loop runs again (cuBLAS
    # initialization and lazy module loading before the first mm, 4 gaps: 236 ms on the H100, 111
    # on the H200, 180 on the 2x H200) are warm-up, the largest idle cause, kept apart from the
    # steady state: the loop's 300 syncs and its launch gaps keep their causes.
    # The run whole (--all): the first-call warm-up named warm-up, apart from the loop. By default
    # (the steady state) the warm-up is left out and the loop's own sync is the headline.
    VERDICT_SELECT=--all verdict torch_sync_loop 'the first-call warm-up is named warm-up, apart from the loop' \
        'idle_top() == ("warmup", "first run of a kernel") and s["idle_warmup_ms"] >= 0.3 * s["idle_ms"] and any(c["cause"] == "warmup" and c["count"] <= 6 for c in parts(device_of(-1), "idle")) and any(c["cause"] == "launch-bound" and c["count"] >= 100 for c in parts(device_of(-1), "idle"))'
    verdict torch_sync_loop 'the steady state: the warm-up left out, the loop of 300 syncs is the headline' \
        'r["window"]["steady_state"]["set_up_ns"] > 0 and idle_top() == ("host-sync", "cudaDeviceSynchronize") and s.get("idle_warmup_ms", 0) < 0.1 * s["idle_ms"] and any(c["cause"] == "host-sync" and c["count"] >= 299 for c in parts(device_of(-1), "idle"))'
fi
if pending torch_starved_loader 'tests/gpu/workloads.sh: torch/starved_loader.py --steps 20'; then
    verdict torch_starved_loader 'the GPU waits for the data loader' \
        's["idle_host_cpu_ms"] + s["idle_step_boundary_ms"] >= 0.7 * s["idle_ms"] and s["busy_ratio"] < 0.5'
fi

# The host-work fix's pair (tests/report/whatif_pairs.py): the whole run's idle is the interpreter's
# start-up and the loader's CPU work, host-cpu, and the fix that removes it says it is an upper bound.
host_work_bound='idle_top()[0] == "host-cpu" and any(w["fix"] == "hide-host-work" and w["upper_bound"] and w["host_work_ns"] == w["predicted_saving_ns"] > 0 for w in r["what_if"])'
if pending torch_loader_inline 'whatif_pairs.sh: torch/starved_loader.py --load-ms 8 --batch 8'; then
    # The first step's gaps that end with a kernel's first run (lazy loading, cuDNN selection: 738 ms
    # in 18 gaps on the H100) are warm-up, apart from the loader's host-cpu time.
    verdict torch_loader_inline 'a loader working in the training loop' "$host_work_bound"' and s["idle_host_cpu_ms"] + s.get("idle_warmup_ms", 0) >= 0.9 * s["idle_ms"]'
fi
if pending torch_loader_workers 'whatif_pairs.sh: torch/starved_loader.py --load-ms 8 --batch 8 --workers 8'; then
    verdict torch_loader_workers 'the loader in 8 workers: the loop still host-bound' "$host_work_bound"
fi

# --- real PyTorch training loops (workloads/torch/train_modes.py, tests/gpu/torch_jobs.sh; H100) ---
# 60 steps each, after 5 untimed ones (compilation and set-up: most of each run's idle, outside
# every step). What each step's idle is made of is the verdict.
steps60='len(r["step_accounting"]) == 60 and s["idle_unexplained_ms"] == 0'
# A host sync in every one of the 60 steps, and 60 or more of them at the place that follows.
sync_each_step="$steps60"' and all(any(c["cause"] == "host-sync" for c in st["idle"]["causes"]) for st in r["step_accounting"]) and any(c["cause"] == "host-sync" and c["count"] >= 60 and '
if pending torch_compile 'tests/gpu/torch_jobs.sh: torch/train_modes.py --mode compile'; then
    # 3,770 Triton kernels among 6,960, every kernel matched to its launch call; the host issues
    # each step's ~100 launches slower than the GPU runs them.
    verdict torch_compile 'torch.compile: the steps are launch-bound' \
        "$steps60"' and all(st["idle"]["causes"][0]["cause"] in ("launch-bound", "host-cpu") for st in r["step_accounting"]) and s["idle_launch_bound_ms"] > s["idle_host_cpu_ms"] and any(w["fix"] == "cuda-graph" for w in r["what_if"]) and count("late-launch") == 0'
fi
if pending torch_compile_graphs 'tests/gpu/torch_jobs.sh: torch/train_modes.py --mode compile-graphs'; then
    # The graphs' nodes have no launch of their own: no late launch between them, no gap left
    # unexplained; what stays launch-bound is the eager optimizer (27.7 ms against the eager
    # model's 125 ms in torch_compile).
    verdict torch_compile_graphs 'reduce-overhead: CUDA graphs, the optimizer still launch-bound' \
        "$steps60"' and count("late-launch") == 0 and 5 < s["idle_launch_bound_ms"] < 60'
fi
if pending torch_amp_scaler 'tests/gpu/torch_jobs.sh: torch/train_modes.py --mode amp-scaler'; then
    verdict torch_amp_scaler "GradScaler's found-inf read: a host sync in every step, named where" \
        "$sync_each_step"'(c["source_demangled"] or "").startswith("torch/amp/grad_scaler.py:") for c in parts(device_of(-1), "idle"))'
fi
if pending torch_item_log 'tests/gpu/torch_jobs.sh: torch/train_modes.py --mode item-log'; then
    verdict torch_item_log 'loss.item() every step: a host sync in every step, at its line' \
        "$sync_each_step"'(c["source"] or "").endswith("train_modes.py:90 step") for c in parts(device_of(-1), "idle"))'
fi
if pending torch_prefetch 'tests/gpu/torch_jobs.sh: torch/train_modes.py --mode prefetch'; then
    # 128 MiB per step from page-locked memory on stream 13 behind 250 ms of compute on stream 7.
    verdict torch_prefetch 'the prefetch copies hide behind compute' \
        "$steps60"' and device_of(-1)["copy_overlap_of_possible"] >= 0.9 and count("pageable-copy") == 0 and sum(1 for x in streams if x["role"] == "copy") == 1'
fi

# --- hardware queues ---
bounds many_streams_2 --min shared_queue_ms=1 --max unexplained_ms=0
verdict many_streams_2 'streams sharing a channel serialize' \
    'top() == "shared-queue" and count("shared-queue") >= 4 and all("share hardware channel" in e for e in evidence("shared-queue"))'
bounds many_streams_8 --min stream_overlap=0.9 --max shared_queue_ms=0 --max lost_ms=0.01
bounds many_streams_2_breadth --min stream_overlap=0.9 --max shared_queue_ms=0 --max lost_ms=0.05
# 8 connections (or breadth-first launches) read better than 2 connections: overlap of possible
# 96% and 99% against 66% (time with 2+ streams busy read 96.1% and 98.2% against 97.6%).
better many_streams_8 many_streams_2 stream_overlap
better many_streams_2_breadth many_streams_2 stream_overlap

# --- pipelining (seed 003) ---
bounds pipeline_pipelined --min stream_overlap=0.3 --max lost_ms=0.5
bounds pipeline_serial --max stream_overlap=0 --max lost_ms=0.01
verdict pipeline_serial 'one stream: nothing overlaps' 'len([x for x in streams if x["role"] == "compute"]) == 1'
# "All of the above" replays only the fixes the report lists: the launch-bound idle proves the CUDA
# graph (14 us alone), no host-sync idle is proved in the steps, yet "all" used to remove the
# set-up's cudaDeviceSynchronize and copies too and promised 50.7 ms (66%) against the pipelined
# fix's 19.6 ms (the pipelined twin: 26.2 ms against fixes of 49 us).
verdict pipeline_serial '"all" is the listed fixes together' \
    'not any(w["fix"] == "remove-host-sync" for w in r["what_if"]) and r["what_if"][-1]["predicted_saving_ns"] <= 1.1 * sum(w["predicted_saving_ns"] for w in r["what_if"][:-1])'
verdict pipeline_pipelined '"all" is the listed fixes together' \
    'r["what_if"][-1]["predicted_saving_ns"] <= 1.1 * sum(w["predicted_saving_ns"] for w in r["what_if"][:-1])'

# --- NCCL ---
# The whole run: its two steady steps hold a fraction of the communicator's waits.
bounds two_batch --all --min shared_communicator_ms=0.05 --max busy_ratio=0.1 --max unexplained_ms=0
verdict two_batch 'the all_gathers of one communicator never overlap; the GPU waits for the host' \
    'comm_with_comm <= 0.05 and any("are collectives of communicator" in e for e in evidence("shared-communicator")) and count("late-launch") >= 10'
# ddp (--fill 1/16: half the SMs free of GEMM blocks): NCCL never waits for SMs. Its comm_overlap
# counts the step-0 and final f64 verification all-reduces too (exposed, and long when one rank
# starts late): 0.43 here, 0.72 for the bucket (f32) all-reduces alone (tests/gpu/workloads.sh).
bounds ddp --min comm_overlap=0.4 --max unexplained_ms=0 --max comm_behind_compute_ms=0
# Two ranks: rank 1's pair overlaps once read rank 0's leftovers (-234 ms; stream_overlap -5.19).
bounds ddp --min stream_overlap=0 --max stream_overlap=1
verdict ddp 'every stream pair of both ranks overlaps 0 to its possible' \
    'len({p["rank"] for p in r["stream_pairs"]}) == 2 and pairs_sane()'
# The what-if's figures are the devices' own savings added up, each listed (the text's "per device").
verdict ddp 'each fix: the sum of the two devices own savings' \
    'r["what_if"] and all(len(w["device_saving_ns"]) == 2 and w["predicted_saving_ns"] == sum(w["device_saving_ns"]) for w in r["what_if"] if w["predicted_saving_ns"])'
# Rank 1's exposed communication: mostly waiting for rank 0, which arrived last at step 0's
# collectives (its host between launches, workloads/ddp.cu's rank-0 verification work): 7.4 ms
# (gpu/, 2026-11-22), 3.7 ms (gpu-h200x2/); the later steps run in lockstep (skew_series.py).
bounds ddp --all --min exposed_comm_skew_ms=2 --max exposed_comm_unmatched_ms=0
bounds ddp --min exposed_comm_skew_ms=1 --max exposed_comm_unmatched_ms=0
verdict ddp 'rank 1 waits for rank 0, the straggler' \
    'exposed_top(1) == ("skew", "rank 0") and straggler.get("rank") == 0'
if pending ddp_skew 'tests/gpu/workloads.sh: ddp --steps 8 --overlap --skew-us 2000'; then
    bounds ddp_skew --min exposed_comm_skew_ms=5 --max exposed_comm_unmatched_ms=0
    verdict ddp_skew 'rank 1, delayed 2 ms before backward, is the straggler' \
        'straggler.get("rank") == 1 and exposed_top(0) == ("skew", "rank 1")'
fi
# The skew series (N = 0, 500, 2000 us; tests/report/skew_series.py checks each collective).
if pending ddp_skew_500 'tests/gpu/multi_gpu.sh: ddp --steps 8 --overlap --skew-us 500'; then
    bounds ddp_skew_500 --min exposed_comm_skew_ms=2 --max exposed_comm_unmatched_ms=0
    verdict ddp_skew_500 'rank 1, delayed 0.5 ms before backward, is the straggler' \
        'straggler.get("rank") == 1 and exposed_top(0) == ("skew", "rank 1")'
fi
# ddp recorded as two separate record runs, one per rank (tests/report/merge_ranks.sh merges them):
# each alone is one rank's device with its collectives' NCCL details, nothing to match them with.
for rank in 0 1; do
    if pending ddp_rank$rank 'tests/gpu/multi_gpu.sh: RANK=R ddp --id-file F under its own record'; then
        bounds ddp_rank$rank --min comm_ms=1 --max unexplained_ms=0
        verdict ddp_rank$rank "rank $rank alone" \
            "[d['rank'] for d in devices] == [$rank] and s.get('exposed_comm_unmatched_ms', 0) == s['exposed_comm_ms'] > 0"
    fi
done
bounds ddp_no_overlap --max comm_overlap=0.01 --max unexplained_ms=0
verdict ddp_no_overlap 'all communication exposed' 's["exposed_comm_ms"] >= 0.99 * s["comm_ms"]'
# --fill 1/8: one GEMM block on every SM; NCCL's 17-warp block of 96 registers fits beside none.
bounds ddp_fill_eighth --min comm_behind_compute_ms=1 --max unexplained_ms=0
verdict ddp_fill_eighth 'NCCL waits for registers held by one GEMM block per SM' \
    'top() == "comm-behind-compute" and any("for lack of registers" in e and "a block needs 17" in e for e in evidence("comm-behind-compute"))'
bounds ddp_saturate --min comm_behind_compute_ms=1 --max unexplained_ms=0
verdict ddp_saturate 'NCCL kernels wait for SMs held by the backward GEMMs' \
    'lost("comm-behind-compute") >= 0.5 * (s["lost_ms"] - lost("event-dependency")) and any("NCCL kernel waited for SMs" in e for e in evidence("comm-behind-compute"))'
# High priority: NCCL's blocks go first once an SM has room, but still wait for a GEMM block to
# retire (seen: median bucket-ready -> NCCL start 64 us vs 233 us at normal priority; the time
# lost per wait is capped at the NCCL kernel's length, so both lose about the same).
bounds ddp_saturate_priority --max unexplained_ms=0
# Which cause loses more, this one or the bucket events' dependency, is the scheduler's race
# (gpu/: comm-behind-compute first; gpu-h200x2/: 1.48 ms against the dependency's 1.72).
verdict ddp_saturate_priority 'NCCL still waits for a GEMM block to retire' \
    'lost("comm-behind-compute") >= 0.5 * lost("event-dependency") and any("as a block of it retired" in e for e in evidence("comm-behind-compute"))'

# --- tests/gpu/host_pairs.sh (2x H200; plain timings of each set in gpu-h200x2/timings) ---
# Recorded on the 2x H200 kind only (one call), so only that folder holds them.
if [ "$GOLDEN_SET" = gpu-h200x2 ]; then
    # Seed 002 on ResNet-18 (workloads/torch/copy_feed.py): 12 batches of 73.5 MiB a epoch copied on
    # the compute stream from pageable memory (390 ms of copies in the trace, none under a kernel),
    # from pinned memory (56 ms), and pinned one batch ahead on a side stream (under compute).
    # (390 ms: the copies of the whole run, as measured)
    VERDICT_SELECT=--all verdict torch_copy_pageable 'pageable batch copies run with the SMs idle' \
        's["copy_ms"] >= 300 and devices[0]["copy_compute_overlap_ns"] == 0 and s["exposed_copy_ms"] >= 300 and s["kernel_busy_ratio"] <= 0.5 * s["busy_ratio"] and copy_top() == ("pageable", "HtoD") and s["exposed_copy_pageable_ms"] >= 0.95 * 390'
    verdict torch_copy_pinned 'the same copies from pinned memory, 7x faster, still on the compute stream' \
        '20 <= s["copy_ms"] <= 100 and devices[0]["copy_compute_overlap_ns"] == 0 and copy_top() == ("same-stream", "HtoD on stream 7")'
    verdict torch_copy_prefetch 'copied a batch ahead on a side stream: under the previous step' \
        's["copy_overlap_of_possible"] >= 0.7 and 20 <= s["copy_ms"] <= 100 and s["exposed_copy_ms"] <= 0.3 * s["copy_ms"]'
    verdict torch_copy_d2h_pageable 'a batch-sized result read back into pageable memory each step' \
        'devices[0]["category_busy_ns"]["copy-dtoh"] >= 1e9 and copy_top() == ("pageable", "DtoH")'
    verdict torch_copy_d2h_pinned 'the same read back into a pinned buffer' \
        'devices[0]["category_busy_ns"]["copy-dtoh"] <= 1e8 and s["exposed_copy_pageable_ms"] <= 10 and any(c["cause"] == "same-stream" and c["label"] == "DtoH on stream 7" for c in parts(device_of(-1), "exposed_copy"))'
    # Issue 36's what-ifs against the fixed programs, timed without tracing in the same call.
    predicts torch_copy_pageable '--range epoch 1' pin-host-buffer copy_timings.json pageable pinned
    predicts torch_copy_pinned '--range epoch 1' copy-ahead copy_timings.json pinned prefetch
    predicts torch_copy_d2h_pageable '--range epoch 1' pin-host-buffer copy_d2h_timings.json d2h-pageable d2h-pinned
    # Seed 004's loop (sync_loop.py --randn): synchronizing cuda:0, the idle cuda:1, nothing.
    verdict torch_sync_dev0 'the loop waits in cudaDeviceSynchronize of its own device' \
        'any(c["cause"] == "host-sync" and c["label"] == "cudaDeviceSynchronize" and c["count"] >= 900 for c in parts(device_of(-1), "idle"))'
    # cudaDeviceSynchronize of cuda:1 (context 2), which ran nothing: not this device's host-sync
    # (the two of cuda:0 itself, the warm-up's and the loop's last, stay host-sync).
    # (1,000 calls: the whole run; the steady state starts after the first)
    VERDICT_SELECT=--all verdict torch_sync_dev1 'the loop syncs the idle other device: host time, not a wait for this one' \
        'any(c["cause"] == "sync-elsewhere" and c["label"] == "cudaDeviceSynchronize" and c["count"] == 1000 for c in parts(device_of(-1), "idle")) and all(c["count"] <= 2 for c in parts(device_of(-1), "idle") if c["cause"] == "host-sync" and c["label"] == "cudaDeviceSynchronize")'
    # What the removed syncs were made of: the loop's 100x100 mm ends before the sync begins (the
    # Python between them takes longer), so even the working device's sync waited for nothing: its
    # 10.3 us a call are host time (the driver's return and the recorder's capture of its source).
    verdict torch_sync_dev0 "the working device's syncs waited for no GPU work: their time is the host's" \
        'any(w["fix"] == "remove-host-sync" and w["sync_calls"] >= 900 and w["sync_wait_ns"] <= 0.05 * w["sync_host_ns"] for w in r["what_if"])'
    verdict torch_sync_dev1 "the idle device's syncs: host time" \
        'any(w["fix"] == "remove-host-sync" and w["sync_calls"] >= 900 and w["sync_wait_ns"] <= 0.05 * w["sync_host_ns"] for w in r["what_if"])'
    verdict torch_sync_dev0 'syncing its own device is never sync-elsewhere' \
        's.get("idle_sync_elsewhere_ms", 0) == 0'
    verdict torch_sync_dev0 'a launch-bound loop stays far from busy without its syncs: no sustained-load bound' \
        'all(w["sustained_ns"] == 0 for w in r["what_if"])'
    # Issue 32 item 2, the loop of the other device's sync alone (its first call, at +66 ms, creates
    # cuda:1's context for 130 ms, a set-up the untimed first round also paid): removing the sync
    # predicted -20.0%, measured -20.9%. (The loop syncing its own device, 67.6 to 121 ms, predicts
    # -19.5% for -24.6% measured: outside 15%, not asserted yet.)
    predicts torch_sync_dev1 '--window 193ms:237ms' remove-host-sync sync_timings.json sync-1 none
    verdict torch_sync_none 'no synchronization in the loop' \
        'not any(c["cause"] == "host-sync" and c["count"] >= 100 for c in parts(device_of(-1), "idle"))'
    # DDP, rank 1 with twice rank 0's batch (its GPU computes 1.5x rank 0's), and both the mean batch.
    VERDICT_SELECT=--all verdict torch_ddp_heavy 'rank 1, with the larger batch, is the straggler' \
        'straggler.get("rank") == 1 and straggler["late_count"] >= 300 and s["exposed_comm_skew_ms"] + s["exposed_comm_imbalance_ms"] >= 80'
    # Issue 32 item 3: the straggler's cause is its work (1.5x rank 0's compute per step), and
    # balancing the batches predicts the step at the ranks' mean compute: -14.9% in the 40 steps,
    # measured -14.6% (ddp_timings.json, rank 0's step time, 5 alternating runs).
    verdict torch_ddp_heavy 'rank 1 is late because its GPU computes more: load imbalance, with the ratio' \
        'straggler["load_imbalance"] and 1.4 <= straggler["compute_ns"] / straggler["peer_compute_ns"] <= 1.6 and "computed 1.50x rank 0" in straggler["evidence"] and any(c["cause"] == "imbalance" and c["label"] == "rank 1" for c in parts(device_of(-1), "exposed_communication"))'
    predicts torch_ddp_heavy '--window 5676.441ms:6124.958ms' balance-ranks ddp_timings.json heavy balanced
    verdict torch_ddp_balanced 'balanced: no load imbalance is named, and no balancing is offered' \
        'not (straggler or {}).get("load_imbalance") and not any(w["fix"] == "balance-ranks" for w in r["what_if"])'
    verdict torch_ddp_balanced 'balanced: the ranks compute alike and wait less' \
        'abs(devices[0]["category_busy_ns"]["compute"] - devices[1]["category_busy_ns"]["compute"]) <= 0.02 * devices[0]["category_busy_ns"]["compute"] and s["exposed_comm_skew_ms"] <= 60'
    # CUDA_LAUNCH_BLOCKING=1 on two streams of 100 us kernels: each launch returns when its kernel
    # ends (100 of 100 launch calls), so the cause is launch blocking, and unsetting it saves what
    # the pair measured: 10.9 ms, the median wall times' difference (launch_blocking_timings.txt,
    # 616.8 ms on, 605.9 ms off, 5 alternating runs; their spread is +-15 ms, so the pair's trace
    # spans, 18.8 and 8.75 ms, say it too: 10.05 ms). The replay predicts 11.2 ms.
    # (the measured time is the whole program's: --all)
    VERDICT_SELECT=--all verdict launch_blocking 'launch blocking is the cause: nothing overlaps, and unsetting it saves the measured time' \
        'top() == "launch-blocking" and count("launch-blocking") >= 80 and count("late-launch") == 0 and s["stream_overlap"] <= 0.1 and any(w["fix"] == "unset-launch-blocking" and abs(w["predicted_saving_ns"] - 10.9e6) <= 0.15 * 10.9e6 and abs(w["predicted_saving_ns"] - 10.05e6) <= 0.15 * 10.05e6 for w in r["what_if"])'
    verdict launch_blocking_off 'without the variable the two streams overlap, and no launch blocks' \
        'count("late-launch") == 0 and count("launch-blocking") == 0 and s["stream_overlap"] >= 0.9 and not any(w["fix"] == "unset-launch-blocking" for w in r["what_if"])'
fi

# --- the collector's own programs (tests/gpu/) ---
# collector_smoke.cu: a pinned then a pageable 64 MiB HtoD on two streams (one copy engine per
# direction), then spin kernels alternating on both streams, and a forked child.
bounds collector_smoke --min copy_engine_ms=1 --max unexplained_ms=0
# The forked child's one kernel runs during the parent's set-up copies: the steady state leaves its
# device out, and says so; the whole run has both.
verdict collector_smoke 'the steady state says it left the child device out' \
    'r["window"]["steady_state"]["devices_left_out"] == 1 and len(devices) == 1'
VERDICT_SELECT=--all verdict collector_smoke 'two processes, named by pid (no rank)' \
    'len(devices) == 2 and {d["process"] for d in devices} == {"pid 632", "pid 633"}'
# collector_sigterm: killed by SIGTERM after one kernel: the trace still reads, one interval.
verdict collector_sigterm 'one kernel recorded before the kill' 'r["interval_count"] >= 1 and s["waits"] == 0'
# torch_two_streams.py: matmuls on two side streams overlap.
bounds torch_two_streams --min stream_overlap=0.5 --max unexplained_ms=0
# torch_ddp_spawn.py: DDP over 2 ranks; NCCL time, nothing to overlap it with.
bounds torch_ddp_spawn --min comm_ms=1 --max comm_overlap=0.1 --max unexplained_ms=0
verdict torch_ddp_spawn 'two ranks, named by rank' '{d["process"] for d in devices} == {"rank 0", "rank 1"}'

# workloads/torch/two_batch_ddp.py (seed 000) with 2 ranks, under torch.multiprocessing.spawn (no
# RANK in the ranks' environment: their rank is NCCL's, store_fill_ranks_from_nccl) and under
# torchrun: one communicator, its all_gathers never overlap, the ranks named by rank.
for trace in torch_two_batch_ddp torch_two_batch_ddp_torchrun; do
    if pending $trace 'tests/gpu/multi_gpu.sh: torch/two_batch_ddp.py (mp.spawn, torchrun)'; then
        bounds $trace --min comm_ms=1 --min shared_communicator_ms=0.05
        verdict $trace 'two ranks named by rank; one communicator' \
            '{d["process"] for d in devices} == {"rank 0", "rank 1"} and comm_with_comm <= 0.05'
    fi
done
# Issue 32 item 5: with no options, a torchrun job without steps gives its steady state's figures:
# its 3.5+ s of set-up (imports, NCCL initialisation, first calls) is left out and named host-cpu,
# and no what-if claims more than the steady state it replays (the whole run's read "up to -9.4 s").
if pending torch_two_batch_ddp_torchrun 'tests/gpu/multi_gpu.sh: torch/two_batch_ddp.py (torchrun)'; then
    verdict torch_two_batch_ddp_torchrun 'the steady state by default: set-up left out, named, not headroom' \
        'r["window"]["steady_state"]["set_up_ns"] >= 3.5e9 and r["window"]["steady_state"]["set_up_idle_causes"][0]["cause"] == "host-cpu" and all(w["predicted_saving_ns"] <= sum(d["span_ns"] for d in devices) for w in r["what_if"]) and s["busy_ratio"] >= 0.03'
fi

# workloads/torch/ddp_straggler.py: real PyTorch DDP (autograd hooks all-reduce the buckets), a
# loss.item() per step, under torchrun; rank 1's host spends 5 ms on the CPU before each step's
# forward (_5) or nothing (_0). _5: rank 1 is the straggler at every collective, rank 0's exposed
# communication in every step is mostly waiting for it (3.5-6.5 ms a step: the ranks' own host
# time jitters), and the straggler's own cause is the host work at its steps' start, not the
# seconds of set-up outside every step. _0: no step waits for a rank by much (medians 0.13 ms).
if pending torch_ddp_straggler_5 'tests/gpu/multi_gpu.sh: torch/ddp_straggler.py --slow-ms 5'; then
    verdict torch_ddp_straggler_5 'rank 1, 5 ms late a step, the straggler; rank 0 waits for it every step' \
        "straggler.get('rank') == 1 and straggler['late_count'] == straggler['instance_count'] and 'before its first GPU activity (host-cpu)' in straggler['evidence'] and all(3.0 <= x <= 7.5 for x in step_skew(0)) and exposed_top(0) == ('skew', 'rank 1')"
fi
if pending torch_ddp_straggler_0 'tests/gpu/multi_gpu.sh: torch/ddp_straggler.py --slow-ms 0'; then
    verdict torch_ddp_straggler_0 'no rank made late: the steps barely wait' \
        "statistics.median(step_skew(0)) < 0.5 and statistics.median(step_skew(1)) < 0.5"
fi

# workloads/torch/pipeline_aug.py (1 GPU, pipelined augmentation, batch 16): a GPU starved by the
# host (seed 003): busy well under 10%, the idle time mostly outside CUDA calls. Recorded on the
# one-GPU machines (the 2x H200 session kept its Kineto traces, tests/data/kineto-h200/).
if [ "$GOLDEN_SET" != gpu ]; then
    bounds torch_pipeline_aug --all --max busy_ratio=0.1
    bounds torch_pipeline_aug --max busy_ratio=0.3
    verdict torch_pipeline_aug 'a starved GPU: idle on the host side' 'idle_top()[0] == "host-cpu"'
fi

# workloads/torch/graph_step.py (H100, 2026-11-24): a launch-bound training step, eager (each
# step's idle GPU mostly launch-bound: a CUDA graph is the fix the report must offer) and captured
# in a CUDA graph (replayed as one launch: no launch-bound idle left, nothing to fix).
if [ "$GOLDEN_SET" != gpu ]; then
    verdict torch_graph_eager 'launch-bound steps, a CUDA graph offered' \
        'sum(st["idle"]["causes"][0]["cause"] == "launch-bound" for st in r["step_accounting"]) >= 0.8 * len(r["step_accounting"]) and any(w["fix"] == "cuda-graph" and w["predicted_saving_ns"] > 0 for w in r["what_if"])'
    verdict torch_graph_graph 'a graph replayed: nothing launch-bound' \
        's["idle_launch_bound_ms"] == 0 and not any(w["fix"] == "cuda-graph" for w in r["what_if"])'
fi

# tests/data/gpu-h200-v3 (one H200, 2026-11-28, schema 3: host samples at 100 Hz and the
# environment kept): tests/gpu/host_samples.sh, capture_range.sh and sync_pairs.sh.
if [ "$GOLDEN_SET" = gpu-h200-v3 ]; then
    # A loop starved by two DataLoader workers burning CPU (issue 31's "done when"): in the training
    # range the largest idle cause is data loading, CPU-bound, with the loader line and the workers'
    # busy share.
    VERDICT_SELECT="--range train" verdict host_starved_loader 'starved by its DataLoader: data loading, CPU-bound' \
        'idle_top() == ("data-loading", "CPU-bound") and any("2 worker processes busy" in c["evidence"] and "dataloader.py" in c["evidence"] for c in parts(device_of(-1), "idle"))'
    verdict host_io_loader 'starved by DataLoader workers that wait on reads: data loading, I/O-bound' \
        'idle_top() == ("data-loading", "I/O-bound") and any("worker processes busy" in c["evidence"] and "dataloader.py" in c["evidence"] for c in parts(device_of(-1), "idle"))'
    verdict host_gc_loop 'the collections named garbage collection, at the line that runs gc.collect()' \
        'idle_top()[0] == "garbage-collection" and "collect_garbage" in idle_top()[1] and s["idle_garbage_collection_ms"] >= 0.8 * s["idle_ms"]'
    # The launching thread asleep in `with lock:` (C: no threading.py frame) while the holder, a side
    # thread that never calls CUDA, spins in Python; and asleep taking the GIL back after each
    # synchronize: the process's CPU beyond its sampled threads' says another thread ran.
    verdict host_lock_wait 'waiting for a lock or the GIL while an unsampled side thread computes' \
        'idle_top() == ("lock-wait", "lock or GIL") and s["idle_lock_wait_ms"] >= 0.5 * s["idle_ms"] and any("wait_for_lock" in c["label"] for c in parts(device_of(-1), "idle"))'
    VERDICT_SELECT=--all verdict host_warmup 'a first-call warm-up named warm-up, the largest idle cause' 'idle_top()[0] == "warmup"'
    verdict host_warmup 'the steady state leaves the warm-up out of the headline' \
        'r["window"]["steady_state"]["set_up_ns"] > 0 and idle_top()[0] != "warmup"'
    verdict host_launch_blocking 'CUDA_LAUNCH_BLOCKING=1: launch blocking, from the recorded variable; unset it, no graph advice' \
        'top() == "launch-blocking" and "recorded environment sets CUDA_LAUNCH_BLOCKING=1" in evidence("launch-blocking")[0] and r["what_if"][0]["fix"] == "unset-launch-blocking" and not any(w["fix"] == "cuda-graph" for w in r["what_if"])'
    verdict host_launch_blocking_off 'the same loop without the variable: no launch blocking' \
        'count("launch-blocking") == 0 and not any(w["fix"] == "unset-launch-blocking" for w in r["what_if"])'
    # torch.cuda.empty_cache() each step (cudaFree synchronizes the device, behind a side-stream GEMM)
    # vs without; boolean-mask indexing vs torch.where (issue 32 item 7). Timings:
    # hidden_syncs_timings.json. The empty_cache loop's syncs are step-end time: its what-if is
    # remove-host-sync; without it, none.
    verdict torch_empty_cache 'empty_cache each step: remove the host synchronization offered' \
        'any(w["fix"] == "remove-host-sync" and w["predicted_saving_ns"] > 0 for w in r["what_if"])'
    # Without the syncs the GEMM ran back to back and slowed from 1.25 to 1.40 ms (clocks under
    # sustained load): -11.4% untraced against the replay's -23%, so the prediction is an upper bound.
    verdict torch_empty_cache 'removing the syncs keeps the GPU busy without a break: an upper bound, said so' \
        'any(w["fix"] == "remove-host-sync" and w["upper_bound"] and w["sustained_ns"] == w["predicted_saving_ns"] for w in r["what_if"])'
    # The syncs it removes (cudaFree behind the GEMM) waited for the GPU: 220 ms waiting, 50 ms their own.
    verdict torch_empty_cache 'the syncs removed mostly waited for the GEMM' \
        'any(w["fix"] == "remove-host-sync" and w["sync_calls"] >= 100 and w["sync_wait_ns"] >= 2 * w["sync_host_ns"] for w in r["what_if"])'
    verdict torch_no_empty_cache 'without empty_cache: no synchronization to remove worth 1 ms' \
        'sum(w["predicted_saving_ns"] for w in r["what_if"] if w["fix"] == "remove-host-sync") < 2e6'
    # Seed 004's loop on one GPU (sync_loop.py --randn; tests/gpu/sync_prediction.sh, 2026-11-29 08:14
    # UTC), recorded with torch.cuda.synchronize timed (framework_calls, collector/python_calls.h):
    # removing the syncs removes that function's own Python too (4.04 ms beyond the CUDA calls' 5.10).
    # Untimed, the prediction was -12% where -22.6% was measured; now -22.8% for -26.4%.
    predicts torch_sync_wrapped_dev0 '' remove-host-sync sync_wrapped_timings.json sync-0 none
    verdict torch_sync_wrapped_dev0 "torch.cuda.synchronize's own Python is removed with the syncs" \
        'any(w["fix"] == "remove-host-sync" and w["sync_calls"] >= 900 and w["sync_wrapper_ns"] >= 0.5 * w["sync_host_ns"] for w in r["what_if"])'
    verdict torch_sync_wrapped_none 'no synchronization in the loop' \
        'not any(c["cause"] == "host-sync" and c["count"] >= 100 for c in parts(device_of(-1), "idle"))'
    verdict torch_mask 'the mask loop reads right' 'readable()'
    verdict torch_where 'torch.where: no host sync to remove' \
        'sum(w["predicted_saving_ns"] for w in r["what_if"] if w["fix"] == "remove-host-sync") < 2e6'
    # record --capture-range / --delay / --duration (issue 34 item 2): info and report say what was
    # captured; the whole run says nothing.
    for trace in capture_whole capture_profiler_api capture_nvtx capture_delay_duration; do
        present "$trace" || continue
        line=$("$os" info "$data/$trace.db" 2>&1 | grep '^captured:')
        report_line=$("$os" report "$data/$trace.db" 2>&1 | grep 'captured:')
        case $trace in
            capture_whole) ok=$([ -z "$line" ] && echo 1) ;;
            capture_profiler_api) ok=$([[ $line == *"cudaProfilerStart..Stop, 1 range"* && -n $report_line ]] && echo 1) ;;
            capture_nvtx) ok=$([[ $line == *"capture_me"*"2 ranges"* && -n $report_line ]] && echo 1) ;;
            capture_delay_duration) ok=$([[ $line == *"1 range"* && -n $report_line ]] && echo 1) ;;
        esac
        if [ -n "$ok" ]; then pass=$((pass+1)); else
            echo "FAILED: $trace: info says '${line}', report says '${report_line}'"; fail=$((fail+1)); fi
    done
fi

# Every trace in the folder must have a verdict above, and every report must read right.
for file in "$data"/*.db; do
    name=$(basename "$file" .db)
    case "$covered" in *" $name "*) ;; *) echo "FAILED: $name.db has no verdict in golden_gpu.sh"; fail=$((fail+1));; esac
    verdict "$name" 'evidence reads right, pair overlaps within [0, possible], idle and exposed time accounted exactly' \
        'readable() and pairs_sane() and accounted()'
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
