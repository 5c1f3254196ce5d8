#!/usr/bin/env bash
# import --jobs (issue 35 item 1): several files read at once, each by a worker into a part of its
# own, the parts appended in file order, give the trace one worker gives: every output a user sees
# (info, report as text, JSON and Markdown, check, export) is the same byte for byte with 1, 2 and
# 4 workers, on a folder of real PyTorch profiler traces (two ranks of a DDP job, two sampled
# ranks, a two-stream trace, a one-GPU loop). A bad file among them fails the import with its
# name, and no part is left behind; --jobs takes 1 to 1024, once.
set -u
os=${OVERLAPSCOPE:?}; data=${OVERLAPSCOPE_TEST_DATA:?}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
mkdir "$work/ranks" "$work/out"
cp "$data"/kineto-h200/two_batch_ddp_rank*.json.gz "$data"/kineto/sampled_rank-*.json.gz \
   "$data"/kineto/simple_add_two_streams.json.gz "$data"/kineto-h100/sync_loop_rank0.json.gz "$work/ranks/"
outputs() { # JOBS: every output of the trace imported with that many workers, into $work/out/JOBS.*
    local j=$1 db=$work/out/trace.db
    "$os" import "$work/ranks" -o "$db" --force --jobs "$j" >"$work/out/$j.import" 2>&1 || {
        echo "FAILED: import --jobs $j: $(cat "$work/out/$j.import")"; fail=1; return; }
    "$os" info "$db" >"$work/out/$j.info" 2>&1
    "$os" report "$db" >"$work/out/$j.report" 2>&1
    "$os" report --json "$db" >"$work/out/$j.json" 2>&1
    "$os" report --markdown "$db" >"$work/out/$j.md" 2>&1
    "$os" check --json --max idle_ms=1 "$db" >"$work/out/$j.check" 2>&1
    "$os" export "$db" --chrome "$work/out/$j.chrome.json" --force >/dev/null 2>&1
}
for j in 1 2 4; do outputs $j; done
for j in 2 4; do
    for kind in import info report json md check chrome.json; do
        cmp -s "$work/out/1.$kind" "$work/out/$j.$kind" || {
            echo "FAILED: --jobs $j: $kind differs from --jobs 1"; diff "$work/out/1.$kind" "$work/out/$j.$kind" | head -5; fail=1; }
    done
done
grep -q '6 files, 6 processes' "$work/out/1.import" || { echo "FAILED: not 6 files: $(cat "$work/out/1.import")"; fail=1; }

# A bad file among good ones: exit 2, one line naming it; nothing beside the output is left.
printf '{"traceEvents": [' >"$work/ranks/zz_truncated.json"
"$os" import "$work/ranks" -o "$work/bad.db" --jobs 4 >"$work/bad.out" 2>"$work/bad.err"; rc=$?
if [ $rc -ne 2 ] || [ "$(wc -l <"$work/bad.err")" -ne 1 ] || ! grep -q zz_truncated "$work/bad.err"; then
    echo "FAILED: a truncated file among six: exit $rc, stderr: $(cat "$work/bad.err")"; fail=1
fi
leftover=$(ls -a "$work" | grep -v -x -e . -e .. -e ranks -e out -e bad.out -e bad.err)
[ -z "$leftover" ] || { echo "FAILED: left behind: $leftover"; fail=1; }

# A device that runs longer than any recording in the second file of a folder: refused, the file
# named, by one worker as by two (each file's check reads the rows since that file began, not the
# whole trace again: a folder read one file after the other no longer rescans the earlier files).
mkdir "$work/span"
cp "$data"/kineto/sampled_rank-0.json.gz "$work/span/a.json.gz"
cat >"$work/span/b.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "early", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "late", "pid": 0, "tid": 7, "ts": 5000000000000, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 2}}
]}
JSON
for j in 1 2; do
    "$os" import "$work/span" -o "$work/span.db" --jobs "$j" >/dev/null 2>"$work/span.err"; rc=$?
    if [ $rc -ne 2 ] || ! grep -q "span/b.json: not imported.*device 0 of process [12] has GPU activity from 1000 ns to 5000000000000000 ns, longer than any recording" "$work/span.err"; then
        echo "FAILED: --jobs $j: a second file's device span: exit $rc: $(cat "$work/span.err")"; fail=1
    fi
done
rm -rf "$work/span"

# The analyses and the tables (stats) of a folder imported with 2 and 8 workers are those of one
# worker, byte for byte, and so are the tables' rows (ids included: the parts' strings, processes,
# kernel shapes and API functions are numbered in the order a sequential import numbers them), the
# schema and indexes, and SQLite's statistics: on
# the multi-rank goldens (two DDP ranks, two sampled ranks), on a simulated 4-rank DDP job
# (bench/gen_ddp_ranks.py, one late rank) and, where ../shared/traces holds them, on the real
# Nsight Systems exports (several processes, copies, memsets, OS runtime waits).
mkdir "$work/goldens" "$work/nsys"
cp "$data"/kineto-h200/two_batch_ddp_rank*.json.gz "$data"/kineto/sampled_rank-*.json.gz "$work/goldens/"
python3 "$(dirname "$0")/../../bench/gen_ddp_ranks.py" "$work/ddp" 4 --activities 4000 >/dev/null ||
    { echo "FAILED: bench/gen_ddp_ranks.py"; fail=1; }
shared_nsys="$(dirname "$0")/../../../shared/traces/nsys"
folders="goldens ddp"
if ls "$shared_nsys"/*.sqlite >/dev/null 2>&1; then cp "$shared_nsys"/*.sqlite "$work/nsys/"; folders="$folders nsys"; fi
rows() { # DB: every table's rows in rowid order and SQLite's statistics (the readers' query plans), the meta table (times, paths) left out
    python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'meta' ORDER BY name")]
for table in tables:
    for row in db.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid"):
        print(table, repr(row))
for row in db.execute("SELECT * FROM sqlite_stat1 ORDER BY tbl, idx"):
    print("sqlite_stat1", repr(row))
for row in db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name"):
    print("sqlite_master", repr(row))
PY
}
for folder in $folders; do
    for j in 1 2 8; do
        "$os" import "$work/$folder" -o "$work/jobs.db" --force --jobs "$j" >"$work/out/$folder.$j.import" 2>&1 ||
            { echo "FAILED: $folder: import --jobs $j: $(cat "$work/out/$folder.$j.import")"; fail=1; }
        "$os" report --json "$work/jobs.db" >"$work/out/$folder.$j.json" 2>&1
        "$os" stats --format json "$work/jobs.db" >"$work/out/$folder.$j.stats" 2>&1
        rows "$work/jobs.db" >"$work/out/$folder.$j.rows"
    done
    grep -q '"devices"' "$work/out/$folder.1.json" && [ -s "$work/out/$folder.1.stats" ] &&
        [ "$(wc -l <"$work/out/$folder.1.rows")" -gt 1000 ] ||
        { echo "FAILED: $folder: no report, stats or rows with one worker"; fail=1; }
    for j in 2 8; do
        for kind in import json stats rows; do
            cmp -s "$work/out/$folder.1.$kind" "$work/out/$folder.$j.$kind" || {
                echo "FAILED: $folder: --jobs $j: $kind differs from --jobs 1"
                diff "$work/out/$folder.1.$kind" "$work/out/$folder.$j.$kind" | head -5; fail=1; }
        done
    done
done

# Workers faster than the one writer wait: no more than 2 x workers parts are on disk at once
# (before, 4 workers left 21 parts of 64 waiting on this VM).
python3 "$(dirname "$0")/../../bench/gen_ddp_ranks.py" "$work/many" 32 --activities 5000 >/dev/null
mkdir "$work/ahead"
"$os" import "$work/many" -o "$work/ahead/trace.db" --jobs 4 >/dev/null 2>&1 &
pid=$!; most=0
while kill -0 "$pid" 2>/dev/null; do
    parts=$(ls -a "$work/ahead" | grep -c '\.part[0-9]*$')
    [ "$parts" -gt "$most" ] && most=$parts
    sleep 0.01
done
wait "$pid" || { echo "FAILED: import --jobs 4 of 32 files"; fail=1; }
[ "$most" -le 8 ] || { echo "FAILED: $most parts on disk at once with 4 workers (at most 8)"; fail=1; }
rm -rf "$work/ahead" "$work/many"

# An import interrupted (SIGTERM, SIGHUP; a background job ignores SIGINT) while its workers write
# parts leaves nothing: no output, no temporary file, no part.
python3 "$(dirname "$0")/../../bench/gen_ddp_ranks.py" "$work/big" 4 --activities 60000 >/dev/null
for signal in TERM HUP; do
    mkdir "$work/cut"
    "$os" import "$work/big" -o "$work/cut/trace.db" --jobs 2 >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 200); do ls -a "$work/cut" | grep -q '\.part[0-9]' && break; sleep 0.05; done
    ls -a "$work/cut" | grep -q '\.part[0-9]' || { echo "FAILED: SIG$signal: no part seen while importing"; fail=1; }
    kill -"$signal" "$pid"; { wait "$pid"; } 2>/dev/null
    left=$(ls -A "$work/cut")
    [ -z "$left" ] || { echo "FAILED: SIG$signal during a parallel import left: $left"; fail=1; }
    rm -rf "$work/cut"
done

for bad in 0 -1 x 1025 2.5; do
    "$os" import "$work/ranks/sampled_rank-0.json.gz" -o "$work/x.db" --jobs "$bad" >/dev/null 2>"$work/err"; rc=$?
    [ $rc -eq 2 ] && grep -q -- "--jobs wants" "$work/err" || { echo "FAILED: --jobs $bad: exit $rc: $(cat "$work/err")"; fail=1; }
done
"$os" import "$work/ranks/sampled_rank-0.json.gz" -o "$work/x.db" --jobs 2 --jobs 3 >/dev/null 2>"$work/err"
grep -q "given twice" "$work/err" || { echo "FAILED: --jobs twice: $(cat "$work/err")"; fail=1; }
[ $fail -eq 0 ] && echo "ok: 1, 2 and 4 workers give the same trace; 2 and 8 the same reports, stats and rows on $folders; a bad file is named; an interrupted import leaves nothing; --jobs checked"
exit $fail
