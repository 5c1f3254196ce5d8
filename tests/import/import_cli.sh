#!/usr/bin/env bash
# import, export and merge from the command line: summaries on success; on bad input one line
# naming the file (and the byte offset or event index), exit 2, and no output file left behind.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE; data=$OVERLAPSCOPE_TEST_DATA/kineto
ok() { pass=$((pass+1)); }
bad() { echo "FAILED: $*"; fail=$((fail+1)); }

# A directory of ranks imports as one trace, one process per rank.
mkdir "$dir/ranks"; cp "$data/sampled_rank-0.json.gz" "$data/sampled_rank-1.json.gz" "$dir/ranks/"
out=$($os import "$dir/ranks" -o "$dir/job.db" 2>&1) && grep -q "2 files, 2 processes, 2258 kernels" <<<"$out" && ok || bad "import DIR: $out"
# one of a thing is singular: "1 file, 1 process", never "1 processes" (the summary counts each table)
one=$(ls "$dir/ranks" | head -1)
out=$($os import "$dir/ranks/$one" -o "$dir/one.db" 2>&1) && grep -q ": 1 file, 1 process, " <<<"$out" && ! grep -qE "(^|[^0-9])1 (files|processes|kernels|memcpys|memsets|API calls|NVTX ranges|collectives|warnings)\b" <<<"${out#*: }" && ok || bad "import one file: $out"
$os import "$data/nccl_data.json.gz" -o "$dir/job.db" >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "import over an existing file without --force"
$os import "$data/nccl_data.json.gz" -o "$dir/job.db" --force >/dev/null 2>&1 && ok || bad "import --force"
out=$($os export "$dir/job.db" --chrome "$dir/job.json" 2>&1) && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/job.json" && ok || bad "export: $out"
# a trace merged with a copy of itself: its clock offset is 0 (the same file twice is refused:
# tests/security/duplicate_inputs.sh)
cp "$dir/job.db" "$dir/job-copy.db"
out=$($os merge "$dir/job.db" "$dir/job-copy.db" -o "$dir/merged.db" 2>&1) && grep -q "offset +0 ns, bound 0 ns, 21 collectives" <<<"$out" && ok || bad "merge: $out"
# Progress is printed only on a terminal: nothing on stderr here.
err=$($os import "$data/nccl_data.json.gz" -o "$dir/quiet.db" 2>&1 >/dev/null); [ -z "$err" ] && ok || bad "stderr not silent: $err"

check_bad() { # name expected-fragment file...
    local name=$1 fragment=$2; shift 2
    local out rc
    out=$($os import "$@" -o "$dir/out.db" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -qF -- "$fragment" <<<"$out" &&
       [ ! -e "$dir/out.db" ] && ! ls -a "$dir" | grep -q partial; then ok; else bad "$name: rc=$rc: $out"; fi
}
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 12' >"$dir/truncated.json"
check_bad truncated "truncated.json: byte 54: unexpected end of input" "$dir/truncated.json"
gzip -c "$data/nccl_data.json.gz" | head -c 0 >/dev/null
zcat "$data/nccl_data.json.gz" | head -c 300000 | gzip >"$dir/cut.json.gz"
check_bad "truncated gzip content" "cut.json.gz: byte 300000" "$dir/cut.json.gz"
head -c 20000 "$data/nccl_data.json.gz" >"$dir/cut-stream.json.gz"
check_bad "truncated gzip stream" "gzip stream is truncated" "$dir/cut-stream.json.gz"
printf '\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03not deflate data at all' >"$dir/garbage.json.gz"
check_bad "gzip garbage" "corrupt gzip data" "$dir/garbage.json.gz"
: >"$dir/empty.json"
check_bad empty "empty.json: empty file" "$dir/empty.json"
printf '{"traceEvents": [{"ph": "X", "cat": "gpu_memset", "name": "m", "ts": 1, "dur": "long"}]}' >"$dir/types.json"
check_bad "wrong type" "types.json: traceEvents[0] (gpu_memset): 'dur' is not a number" "$dir/types.json"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "dur": 1}]}' >"$dir/missing.json"
check_bad "missing field" "missing.json: traceEvents[0] (kernel): missing 'ts'" "$dir/missing.json"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE t(x)"); c.commit()' "$dir/foreign.sqlite"
check_bad "foreign SQLite" "foreign.sqlite: an SQLite database but not an Nsight Systems export" "$dir/foreign.sqlite"
check_bad "overlapscope trace" "already an overlapscope trace" "$dir/job.db"
printf 'hello' >"$dir/text.txt"
check_bad "not a trace" "text.txt: not a Kineto JSON trace" "$dir/text.txt"
check_bad "missing file" "No such file or directory" "$dir/nope.json"
# The second file fails: nothing of the first is kept either.
check_bad "second of two" "truncated.json" "$data/nccl_data.json.gz" "$dir/truncated.json"
# Seed 004 on an H100 (tests/data/kineto-h100/README.md): a with_stack torch.profiler trace of
# torch.mm + torch.cuda.synchronize() imports with the blocking call and its Python line named.
h100=$OVERLAPSCOPE_TEST_DATA/kineto-h100/sync_loop_rank0.json.gz
if $os import "$h100" -o "$dir/sync_loop.db" >/dev/null 2>&1 &&
   $os report --json "$dir/sync_loop.db" >"$dir/sync_loop.json" 2>&1 &&
   python3 - "$dir/sync_loop.json" <<'PY'
import json, sys
idle = json.load(open(sys.argv[1]))["devices"][0]["idle"]["causes"]
top = idle[0]
assert (top["cause"], top["label"]) == ("host-sync", "cudaDeviceSynchronize"), top
assert top["count"] >= 290 and "sync_loop.py:34" in json.dumps(top.get("source")), top
PY
then ok; else bad "seed 004 trace: top idle cause or its source: $(head -c 400 "$dir/sync_loop.json")"; fi
# Its library frames around the syncs (torch.cuda.synchronize) are the syncs' wrappers
# (framework_calls), and remove-host-sync removes each wrapper's time beyond its sync: the sum over
# the wrappers of the syncs it removes (those between the first and the last launch: all but the
# set-up's and the last), computed here from the trace's own rows.
if python3 - "$dir/sync_loop.db" "$dir/sync_loop.json" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT s.value, COUNT(*) FROM framework_calls f JOIN strings s ON s.id = f.function_id"
                  " GROUP BY 1").fetchall()
assert rows == [("torch/cuda/__init__.py:1152 synchronize", 302)], rows
first, last = db.execute("SELECT MIN(start_ns), MAX(start_ns) FROM api_calls a JOIN strings n ON n.id = a.name_id"
                         " WHERE n.value IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel')").fetchone()
beyond = db.execute("SELECT SUM((f.end_ns - f.start_ns) - (a.end_ns - a.start_ns)) FROM framework_calls f"
                    " JOIN api_calls a ON a.thread_id = f.thread_id AND a.start_ns >= f.start_ns"
                    " AND a.end_ns <= f.end_ns JOIN strings n ON n.id = a.name_id"
                    " WHERE n.value = 'cudaDeviceSynchronize' AND a.end_ns > ? AND a.start_ns <= ?",
                    (first, last)).fetchone()[0]
fix = [w for w in json.load(open(sys.argv[2]))["what_if"] if w["fix"] == "remove-host-sync"][0]
assert fix["sync_wrapper_ns"] == beyond > 0, (fix["sync_wrapper_ns"], beyond)
PY
then ok; else bad "seed 004 trace: the syncs' wrappers"; fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
