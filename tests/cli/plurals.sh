#!/usr/bin/env bash
# One of a thing is said in the singular (issue 19 Must 7: "1 processes", "1 warnings"): a
# hand-built trace of one kernel launched by one runtime call, one event of an unknown category
# and one odd field, through import, report, render, export and merge.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
cd "$dir" || exit 2
bad() { echo "FAILED: $*"; fail=$((fail+1)); }
has() { grep -qF -- "$2" <<<"$3" && pass=$((pass+1)) || bad "$1: no '$2' in: $3"; }

cat >one.json <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000, "dur": 5,
  "args": {"cbid": 211, "correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1010, "dur": 20,
  "args": {"device": 0, "stream": 7, "correlation": 1, "registers per thread": [32]}},
 {"ph": "X", "cat": "mystery", "name": "m", "pid": 7, "tid": 7, "ts": 1000, "dur": 1}
]}
JSON
out=$("$os" import one.json -o one.db 2>&1)
has import "one.db: 1 file, 1 process, 1 kernel, 0 memcpys, 0 memsets, 1 API call, 0 NVTX ranges, 0 collectives" "$out"
info=$("$os" info one.db)
has "unknown category" "skipped 1 event of unknown categories: mystery (1)" "$info"
has "odd field" "1 optional field missing or of an unexpected type, left unknown" "$info"
out=$("$os" report one.db)
has report "analyzed 1 device, 1 GPU interval, from" "$out"
# (the streams table: 1 under "intervals")
grep -qE '^  pid 7 +0 +7 +compute +20.0 us +1$' <<<"$out" && pass=$((pass+1)) || bad "report stream: no row with 1 interval in: $out"
out=$("$os" render one.db -o one.png)
has render "1 stream lane, 0 explained waits marked" "$out"
out=$("$os" export one.db --chrome one.trace.json)
has export "one.trace.json: 1 slice, " "$out"
out=$("$os" merge one.db -o merged.db 2>&1)
has merge "merged.db: 1 trace merged" "$out"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
