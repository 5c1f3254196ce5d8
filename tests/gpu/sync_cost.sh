#!/usr/bin/env bash
# tests/gpu/sync_cost.sh OUTDIR: what recording costs seed 004's loop (sync_loop.py --randn --compare:
# the working device's sync vs none, and the idle device's where there are two), timed inside the
# process, untraced and under `overlapscope record` with parts of the recorder switched off, in
# PASSES interleaved passes (default 2). Each variant's JSON goes to OUTDIR/VARIANT.PASS.json and
# one table (median ms per 1,000 iterations, the sync's share) to OUTDIR/sync_cost.txt.
set -u
. "$(dirname "$0")/recording_env.sh" "$@"
[ -x "$TORCH_PY" ] || { echo "$0: no PyTorch at $TORCH_PY" >&2; exit 2; }
T=workloads/torch
loop=("$TORCH_PY" $T/sync_loop.py --randn --iterations 1000 --compare --rounds 7)
variant() { # variant NAME [record options | -] [VAR=VALUE...]
  local name=$1 pass=$2; shift 2
  if [ "$1" = plain ]; then "${loop[@]}" >"$OUT/$name.$pass.out" 2>&1; return; fi
  shift
  local opts=() envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do case $1 in *=*) envs+=("$1");; *) opts+=("$1");; esac; shift; done
  env "${envs[@]}" "$OVERLAPSCOPE" record -o "$OUT/$name.$pass.db" --force "${opts[@]}" -- "${loop[@]}" \
    >"$OUT/$name.$pass.out" 2>&1
}
# VARIANTS (default: all) names the variants to run, e.g. "plain record no_sources".
want() { [ -z "${VARIANTS:-}" ] || [[ " $VARIANTS " == *" $1 "* ]]; }
for pass in $(seq "${PASSES:-2}"); do
  want plain && variant plain "$pass" plain
  want record && variant record "$pass" rec
  want no_samples && variant no_samples "$pass" rec --sample-hz 0
  want no_sources && variant no_sources "$pass" rec OVERLAPSCOPE_CALL_SOURCES=0
  want no_api && variant no_api "$pass" rec --no-api
  want kernels_only && variant kernels_only "$pass" rec --kinds kernel
  want no_kernels && variant no_kernels "$pass" rec --kinds memcpy,memset,sync,device,context,stream,event,runtime,driver,nvtx
  want activity_calls && variant activity_calls "$pass" rec OVERLAPSCOPE_CALLS_FROM=activity
done
python3 - "$OUT" <<'PY' | tee "$OUT/sync_cost.txt"
import glob, json, os, statistics, sys
out = sys.argv[1]
rows = {}
for path in sorted(glob.glob(os.path.join(out, "*.out"))):
    name = os.path.basename(path).split(".")[0]
    for line in open(path, errors="replace"):
        if line.startswith("{"):
            for k, v in json.loads(line).items():
                rows.setdefault(name, {}).setdefault(k, []).extend(v[1:])  # the first round warms up
print(f"{'variant':16} {'sync-0':>8} {'sync-1':>8} {'none':>8} {'save0%':>7} {'save1%':>7}  (median ms per 1,000; sync-0 range)")
for name, t in rows.items():
    m = {k: statistics.median(v) for k, v in t.items()}
    s0 = 100 * (m["sync-0"] - m["none"]) / m["sync-0"]
    s1 = 100 * (m["sync-1"] - m["none"]) / m["sync-1"] if "sync-1" in m else float("nan")
    print(f"{name:16} {m['sync-0']:8.2f} {m.get('sync-1', float('nan')):8.2f} {m['none']:8.2f} {s0:7.1f} {s1:7.1f}  {min(t['sync-0']):.1f}-{max(t['sync-0']):.1f}")
PY
# The pair itself, as host_pairs.sh records it on two GPUs: the loop syncing its own device, and none.
pair=(dev0 none); [ "${GPUS:-1}" -ge 2 ] && pair=(dev0 dev1 none) # the idle device's sync: the triple
for name in "${pair[@]}"; do
  arg=(--sync-device "${name#dev}"); [ $name = none ] && arg=(--no-sync)
  record_into "torch_sync_$name" -- "$TORCH_PY" $T/sync_loop.py --randn --iterations 1000 "${arg[@]}" ||
    { echo "FAILED to record torch_sync_$name"; tail -5 "$OUT/torch_sync_$name.log"; }
done
"$TORCH_PY" $T/sync_loop.py --randn --iterations 1000 --compare --rounds 7 >"$OUT/sync_timings.json"
cat "$OUT/sync_timings.json"
# few files back (the device tool returns at most 8): the first pass's traces, the pair and the logs
cd "$OUT" && tar czf sync_cost_traces.tar.gz ./*.1.db torch_sync_*.db ./*.out ./*.log torch_sync_*.json &&
  rm -f ./*.db ./*.out ./*.log torch_sync_*.json
