#!/usr/bin/env bash
# tests/gpu/sync_prediction.sh OUTDIR: issue 32's remove-host-sync check on seed 004's loop
# (sync_loop.py --randn: randn, mm, torch.cuda.synchronize(0), 1,000 iterations), on this GPU:
#  1. tests/gpu/sync_cost.sh (VARIANTS, default "plain record no_sources"; PASSES, default 3): the
#     loop's cost untraced and recorded, the pair torch_sync_dev0 / torch_sync_none recorded, and
#     the plain loops timed interleaved in one process (--compare --rounds 7, medians);
#  2. the same loop under torch.profiler with stacks (Kineto), imported;
#  3. per trace, remove-host-sync's predicted saving (share of the span; the library wrappers'
#     part: framework_calls, sync_wrapper_ns) against the saving measured untraced in step 1.
# Writes OUTDIR/sync_prediction.txt and one tarball of the traces (the device tool returns few files).
set -u
out=${1:?usage: sync_prediction.sh OUTDIR}
mkdir -p "$out/cost" "$out/kineto"
here=$(cd "$(dirname "$0")" && pwd)
VARIANTS=${VARIANTS:-"plain record no_sources"} PASSES=${PASSES:-3} bash "$here/sync_cost.sh" "$out/cost"
. "$here/recording_env.sh" "$out/kineto"
"$TORCH_PY" workloads/torch/sync_loop.py --randn --iterations 1000 --profile "$out/kineto" >"$out/kineto/run.log" 2>&1
"$OVERLAPSCOPE" import "$out/kineto/rank0.json" -o "$out/kineto/sync_kineto.db" >>"$out/kineto/run.log" 2>&1
(cd "$out/cost" && tar xzf sync_cost_traces.tar.gz --wildcards 'torch_sync_*.db')
for trace in "$out"/cost/torch_sync_dev*.db "$out/kineto/sync_kineto.db"; do
  "$OVERLAPSCOPE" report --json "$trace" >"${trace%.db}.report.json"
  "$OVERLAPSCOPE" report "$trace" >"${trace%.db}.report.txt"
done
"$TORCH_PY" - "$out" <<'PY' | tee "$out/sync_prediction.txt"
import json, sqlite3, statistics, sys
out = sys.argv[1]
timings = json.loads(open(f"{out}/cost/sync_timings.json").read().strip().splitlines()[-1])
none = statistics.median(timings["none"])
measured_of = {}
for variant in ("sync-0", "sync-1"):
    if variant not in timings:
        continue
    slow = statistics.median(timings[variant])
    measured_of[variant] = (slow - none) / slow
    print(f"measured untraced (medians of {len(timings[variant])} interleaved rounds): {variant} {slow:.2f} ms, "
          f"none {none:.2f} ms, saving {100 * measured_of[variant]:.1f}% ({variant} {min(timings[variant]):.1f}-"
          f"{max(timings[variant]):.1f}, none {min(timings['none']):.1f}-{max(timings['none']):.1f})")
import os
traces = [("record dev0", f"{out}/cost/torch_sync_dev0", "sync-0"), ("kineto dev0", f"{out}/kineto/sync_kineto", "sync-0")]
if os.path.exists(f"{out}/cost/torch_sync_dev1.db"):
    traces.append(("record dev1", f"{out}/cost/torch_sync_dev1", "sync-1"))
for name, trace, variant in traces:
    measured = measured_of[variant]
    report = json.load(open(trace + ".report.json"))
    span = sum(d["span_ns"] for d in report["devices"])
    fix = [w for w in report["what_if"] if w["fix"] == "remove-host-sync"]
    db = sqlite3.connect(trace + ".db")
    try:
        wrappers = db.execute("SELECT s.value, COUNT(*), AVG(end_ns - start_ns) FROM framework_calls f"
                              " JOIN strings s ON s.id = f.function_id GROUP BY 1").fetchall()
    except sqlite3.Error as error:
        wrappers = [str(error)]
    if not fix:
        print(f"{name}: no remove-host-sync what-if; wrappers {wrappers}")
        continue
    w = fix[0]
    predicted = w["predicted_saving_ns"] / span
    error = (predicted - measured) / measured
    print(f"{name}: predicted {100 * predicted:.1f}% ({w['predicted_saving_ns'] / 1e6:.2f} of {span / 1e6:.2f} ms),"
          f" measured {100 * measured:.1f}%, error {100 * error:+.0f}% of the saving;"
          f" {w['sync_calls']} calls: wait {w['sync_wait_ns'] / 1e6:.2f} ms, host {w['sync_host_ns'] / 1e6:.2f} ms,"
          f" wrappers {w['sync_wrapper_ns'] / 1e6:.2f} ms; framework_calls {wrappers}")
PY
grep -A3 "remove the host" "$out/cost/torch_sync_dev0.report.txt" "$out/kineto/sync_kineto.report.txt"
cd "$out" && tar czf sync_prediction.tar.gz cost/torch_sync_*.db cost/*.json cost/*.txt kineto/*.db kineto/*.json kineto/*.txt \
  kineto/*.log cost/sync_cost_traces.tar.gz 2>/dev/null && rm -rf cost kineto
