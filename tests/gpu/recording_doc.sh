#!/usr/bin/env bash
# docs/recording-with-torch-profiler.md's script on a GPU: run as the page says (python3, one
# process), it must leave one gzipped trace per rank in traces/ with cuda_sync events (the
# importer then has synchronizations and no import-no-cuda-sync warning), ProfilerStep ranges for
# the 3 active steps, and `overlapscope report traces/` must read the folder directly.
# Usage: tests/gpu/recording_doc.sh OUTDIR
#   OVERLAPSCOPE (default .gpu/build/cli/overlapscope, else build/cli/overlapscope), PYTHON (torch)
set -u
out=${1:?usage: recording_doc.sh OUTDIR}
mkdir -p "$out"; out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
os=${OVERLAPSCOPE:-$root/build/cli/overlapscope}
[ -z "${OVERLAPSCOPE:-}" ] && [ -x "$root/.gpu/build/cli/overlapscope" ] && os=$root/.gpu/build/cli/overlapscope
py=${PYTHON:-/opt/torch/.venv/bin/python3}
fail=0
cd "$out" && rm -rf traces traces.overlapscope.db
sed -n '/^```python$/,/^```$/p' "$root/docs/recording-with-torch-profiler.md" | sed '1d;$d' >record_for_overlapscope.py
timeout 120 "$py" record_for_overlapscope.py >script.log 2>&1 || { echo "FAIL script: $(tail -3 script.log)"; fail=1; }
ls traces/rank0.*.pt.trace.json.gz >/dev/null 2>&1 || { echo "FAIL no traces/rank0.*.pt.trace.json.gz: $(ls traces)"; fail=1; }
"$os" info traces >info.txt 2>info.err || { echo "FAIL info: $(cat info.err)"; fail=1; }
grep -q "imported 'traces' into 'traces.overlapscope.db'" info.err || { echo "FAIL info said: $(cat info.err)"; fail=1; }
syncs=$(awk '$1 == "synchronizations" {print $2}' info.txt)
[ "${syncs:-0}" -gt 0 ] || { echo "FAIL no synchronizations imported (cuda_sync events missing)"; fail=1; }
! grep -q import-no-cuda-sync info.txt || { echo "FAIL import-no-cuda-sync: $(grep import-no-cuda-sync info.txt)"; fail=1; }
"$os" report --json traces >report.json 2>report.err || { echo "FAIL report: $(cat report.err)"; fail=1; }
python3 - report.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
steps = d.get("steps") or []
print("devices", len(d["devices"]), "steps", len(steps))
if len(d["devices"]) != 1:
    sys.exit("FAIL expected one device")
PY
[ $fail -eq 0 ] && echo "PASS recording_doc ($syncs synchronizations)"
exit $fail
