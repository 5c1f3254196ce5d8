#!/usr/bin/env bash
# Two ranks of one ddp run recorded as two separate `overlapscope record` runs, one per rank, as
# two nodes would be (tests/data/gpu-h200x2/ddp_rank0.db, ddp_rank1.db): `merge` joins them. Both
# ran on one host, so the true clock offset is 0: the estimated offset must lie within the bound it
# states, the bound within docs/clock-alignment.md's 100 us warning threshold, the collectives
# matched by sequence number (NCCL's profiler plugin details survived the analysis API set), and
# the merged trace must read as one 2-rank job: both ranks, every collective instance matched
# across them (nothing unmatched), rank 1 waiting for rank 0 as in the job recorded whole.
set -u
data=${OVERLAPSCOPE_TEST_DATA:?}/gpu-h200x2
[ -f "$data/ddp_rank0.db" ] || { echo "skipped: no $data/ddp_rank0.db"; exit 77; }
os=${OVERLAPSCOPE:?}
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
"$os" merge "$data/ddp_rank0.db" "$data/ddp_rank1.db" -o "$scratch/job.db" || { echo "FAILED: merge"; exit 1; }
"$os" report --json "$scratch/job.db" >"$scratch/job.json" || { echo "FAILED: report of the merged trace"; exit 1; }
python3 - "$scratch/job.db" "$scratch/job.json" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
meta = dict(db.execute("SELECT key, value FROM meta"))
offset, bound = int(meta["clock_offset_ns.1"]), int(meta["clock_bound_ns.1"])
matches, method = int(meta["clock_matches.1"]), meta["clock_method.1"]
details = db.execute("SELECT COUNT(*), COUNT(algorithm), COUNT(communicator), COUNT(sequence_number),"
                     " COUNT(kernel_rowid) FROM collectives").fetchone()
r = json.load(open(sys.argv[2]))
ranks = sorted(d["rank"] for d in r["devices"])
s = r["summary"]
checks = [
    (abs(offset) <= bound, f"offset {offset} ns within the bound {bound} ns (one host: the truth is 0)"),
    (bound <= 100_000, f"bound {bound} ns <= 100 us"),
    (method == "sequence" and matches >= 30, f"{matches} collectives matched by {method}"),
    (details[0] > 0 and len(set(details)) == 1, f"collectives with algorithm/communicator/sequence/kernel: {details}"),
    (ranks == [0, 1], f"ranks {ranks}"),
    (s.get("exposed_comm_unmatched_ms", 0) == 0, f"unmatched exposed communication {s.get('exposed_comm_unmatched_ms', 0)} ms"),
]
failed = 0
for ok, what in checks:
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok
sys.exit(1 if failed else 0)
PY
