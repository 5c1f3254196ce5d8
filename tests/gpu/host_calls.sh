#!/usr/bin/env bash
# tests/gpu/host_calls.sh OUTDIR: the collector's host call records from its own callbacks (the
# default, collector/host_calls.h) against CUPTI's activity kinds (OVERLAPSCOPE_CALLS_FROM=activity),
# on workloads whose causes need them (stream waits on events, host syncs, the legacy default
# stream, pageable copies) and on a PyTorch MLP. Per workload and source it prints the rows
# (api_calls by domain, synchronizations by type, cuda_events), how many kernels and copies find
# their launching call by correlation id, and the report's waits by cause; then asserts that the
# callbacks give every kernel and copy its launch call whenever the activity kinds do, the same
# synchronization types and counts, and the same waits verdicts. Exit 0 when all hold.
set -u
OUT=${1:?usage: host_calls.sh OUTDIR}
cd "$(dirname "$0")/../.."
BUILD=.gpu/build; [ -x build/cli/overlapscope ] && BUILD=build
OS=$BUILD/cli/overlapscope
WL=$BUILD/workloads
PY=${TORCH_PY:-python3}
mkdir -p "$OUT"
failures=0
summary() { # DB -> one JSON line of counts
  python3 - "$1" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
one = lambda sql: db.execute(sql).fetchone()[0]
out = {
  "api_runtime": one("SELECT COUNT(*) FROM api_calls WHERE api_domain=1"),
  "api_driver": one("SELECT COUNT(*) FROM api_calls WHERE api_domain=2"),
  "syncs": dict(db.execute("SELECT sync_type, COUNT(*) FROM synchronizations GROUP BY 1").fetchall()),
  "sync_stream_null": one("SELECT COUNT(*) FROM synchronizations WHERE sync_type IN (2,3) AND stream_id IS NULL"),
  "sync_event_null": one("SELECT COUNT(*) FROM synchronizations WHERE sync_type IN (1,2) AND event_id IS NULL"),
  "events": one("SELECT COUNT(*) FROM cuda_events"),
  "events_stream_null": one("SELECT COUNT(*) FROM cuda_events WHERE stream_id IS NULL"),
  "kernels": one("SELECT COUNT(*) FROM kernels"),
  "kernels_matched": one("SELECT COUNT(*) FROM kernels k WHERE EXISTS (SELECT 1 FROM api_calls a WHERE"
                         " a.process_id=k.process_id AND a.correlation_id=k.correlation_id)"),
  "copies": one("SELECT COUNT(*) FROM memcpys"),
  "copies_matched": one("SELECT COUNT(*) FROM memcpys k WHERE EXISTS (SELECT 1 FROM api_calls a WHERE"
                        " a.process_id=k.process_id AND a.correlation_id=k.correlation_id)"),
  "waits_with_event": one("SELECT COUNT(*) FROM synchronizations s WHERE sync_type=2 AND EXISTS (SELECT 1 FROM"
                          " cuda_events e WHERE e.process_id=s.process_id AND e.event_id=s.event_id)"),
  "bytes": __import__("os").path.getsize(sys.argv[1]),
}
print(json.dumps(out, sort_keys=True))
PY
}
verdict() { # DB -> the wait causes proved (tags, sorted) and the idle causes with their time
  "$OS" report --json "$1" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
waits = set(); idle = {}
def walk(x, key=""):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "causes" and isinstance(v, list):
                for c in v:
                    if isinstance(c, dict) and "cause" in c:
                        if key == "idle":
                            idle[c["cause"]] = idle.get(c["cause"], 0) + c.get("ns", 0) // 1000
                        elif key in ("", "device") and "lost_ns" in c:
                            waits.add(c["cause"])
            else:
                walk(v, k if k in ("idle", "exposed_communication") else ("device" if k == "devices" else key))
    elif isinstance(x, list):
        for v in x: walk(v, key)
walk(r)
print(json.dumps({"waits": sorted(waits), "idle_us": dict(sorted(idle.items()))}))'
}
compare() { # NAME ENV... -- COMMAND...
  local name=$1; shift
  local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  for source in callbacks activity; do
    env "${envs[@]}" OVERLAPSCOPE_CALLS_FROM=$source timeout 120 "$OS" record -o "$OUT/$name-$source.db" --force -- "$@" \
      >"$OUT/$name-$source.log" 2>&1 || echo "record failed: $name $source (see $OUT/$name-$source.log)"
    echo "$name $source $(summary "$OUT/$name-$source.db")"
    echo "$name $source verdict $(verdict "$OUT/$name-$source.db")"
  done
  python3 - "$name" "$(summary "$OUT/$name-callbacks.db")" "$(summary "$OUT/$name-activity.db")" \
    "$(verdict "$OUT/$name-callbacks.db")" "$(verdict "$OUT/$name-activity.db")" <<'PY' || failures=$((failures + 1))
import json, sys
name, cb, act, vcb, vact = sys.argv[1], *map(json.loads, sys.argv[2:])
problems = []
for what in ("kernels", "copies"):
    if cb[what + "_matched"] < min(act[what + "_matched"], cb[what]):
        problems.append(f"{what} with their launch call: callbacks {cb[what+'_matched']}/{cb[what]},"
                        f" activity {act[what+'_matched']}/{act[what]}")
if cb["syncs"] != act["syncs"]:
    problems.append(f"synchronizations by type differ: callbacks {cb['syncs']}, activity {act['syncs']}")
if cb["waits_with_event"] < act["waits_with_event"]:
    problems.append(f"stream waits with their event record: {cb['waits_with_event']} < {act['waits_with_event']}")
# Some waits depend on the run's timing, not on the recorded rows: pipeline's 60 us SM-saturation
# wait and a late launch of a few us (seen once on default_stream_ptds, whose rows were identical)
# come and go from run to run. Those are printed, not compared.
timing = {"late-launch"}
if name == "pipeline_pipelined":
    timing.add("sm-saturation")
if set(vcb["waits"]) - timing != set(vact["waits"]) - timing:
    problems.append(f"wait causes differ: callbacks {vcb['waits']}, activity {vact['waits']}")
print(f"{'PASS' if not problems else 'FAIL'} {name}" + "".join("\n    " + p for p in problems))
sys.exit(1 if problems else 0)
PY
}
compare event_chain -- "$WL/event_chain"
compare event_chain_nodeps -- "$WL/event_chain" --no-deps
compare default_stream -- "$WL/default_stream"
compare default_stream_ptds -- "$WL/default_stream_ptds"
compare copy_pageable -- "$WL/copy_compute" --pageable
compare host_sync_stream -- "$WL/host_sync" --op stream-sync
compare host_sync_device -- "$WL/host_sync" --op device-sync
compare host_bound_item -- "$WL/host_bound" --mode item
compare pipeline_pipelined -- "$WL/pipeline" --pipelined --steps 40
compare many_streams_2 CUDA_DEVICE_MAX_CONNECTIONS=2 -- "$WL/many_streams" --streams 4
compare torch_mlp -- "$PY" bench/torch_overhead/jobs.py mlp --steps 200 --warmup 20
compare torch_sync_loop -- "$PY" workloads/torch/sync_loop.py
echo "host_calls: $failures failure(s)"
exit $((failures > 0))
