#!/usr/bin/env bash
# An imported trace labels each stream with the role the report gives it (one rule,
# analyzer/naming.h): a stream that ran one NCCL kernel among much compute is "mixed" in both,
# not "nccl" in the trace (and the export, which shows the stored label) and "mixed" in the report.
# Real PyTorch profiler traces: two_batch_ddp rank 1 (streams 21 and 25: mostly compute, some NCCL),
# simple_add_two_streams (stream 7: kernels and copies), sampled_rank-0 (a copy stream).
set -u
os=${OVERLAPSCOPE:?}; data=${OVERLAPSCOPE_TEST_DATA:?}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
for trace in kineto-h200/two_batch_ddp_rank1 kineto/simple_add_two_streams kineto/sampled_rank-0; do
    db=$work/$(basename "$trace").db
    "$os" import "$data/$trace.json.gz" -o "$db" >/dev/null 2>&1 || { echo "FAILED: import $trace"; fail=1; continue; }
    "$os" report --all --json "$db" >"$db.json" 2>/dev/null || { echo "FAILED: report $trace"; fail=1; continue; }
    python3 - "$db" "$db.json" "$trace" <<'PY' || fail=1
import json, sqlite3, sys
stored = {(p, s): label for p, s, label in sqlite3.connect(sys.argv[1]).execute(
    "SELECT process_id, stream_id, label FROM streams")}
streams = json.load(open(sys.argv[2]))["streams"]
wrong = [(s["stream_id"], s["role"], stored.get((s["process_id"], s["stream_id"]))) for s in streams
         if not s["legacy_default"] and stored.get((s["process_id"], s["stream_id"])) != s["role"]]
if wrong or len(streams) < 2:
    sys.exit(f"FAILED: {sys.argv[3]}: stream, report role, stored label: {wrong}")
PY
done
# the mixed streams of two_batch_ddp rank 1 are what the old rule labelled "nccl"
python3 -c '
import sqlite3, sys
labels = dict(sqlite3.connect(sys.argv[1]).execute("SELECT stream_id, label FROM streams"))
sys.exit(0 if labels.get(21) == "mixed" and labels.get(25) == "mixed" and labels.get(17) == "nccl" else f"FAILED: two_batch_ddp_rank1 labels {labels}")
' "$work/two_batch_ddp_rank1.db" || fail=1
[ $fail -eq 0 ] && echo "stream roles: stored labels agree with the report" 
exit $fail
