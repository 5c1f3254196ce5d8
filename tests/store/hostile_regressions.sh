#!/usr/bin/env bash
# Issue 20's reproductions against readers (9-13, 21), each with the verdict a user must see: a
# hostile copy of a golden trace makes every reading command exit 2 with one line on stderr that
# names the file and says what is wrong, or (where the value is harmless) exit 0; never a signal
# (128+N), never the time limit (124).
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'chmod -R u+w "$dir"; rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
gpu="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/gpu"

# $1: label, $2: expected exit, $3: fragment stderr must hold on exit 2, rest: argv.
check_case() {
    local label=$1 want=$2 fragment=$3 out rc
    shift 3
    out=$(timeout 60 "$os" "$@" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq "$want" ] && { [ "$want" -ne 2 ] || { [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
        grep -qF -- "$fragment" <<<"$out"; }; }; then
        pass=$((pass+1))
    else
        echo "FAILED: $label: overlapscope $*: rc=$rc (want $want), said: $out"; fail=$((fail+1))
    fi
}
# Every reading command on one file: $1 label, $2 file, $3 expected fragment (exit 2 expected).
refused_by_all() {
    local label=$1 f=$2 fragment=$3
    check_case "$label" 2 "$fragment" info "$f"
    check_case "$label" 2 "$fragment" report "$f"
    check_case "$label" 2 "$fragment" report --json "$f"
    check_case "$label" 2 "$fragment" check --min comm_overlap=0 "$f"
    check_case "$label" 2 "$fragment" diff "$f" "$gpu/copy_pinned.db"
    check_case "$label" 2 "$fragment" render "$f" -o "$dir/out.png"
    check_case "$label" 2 "$fragment" export "$f" --chrome "$dir/out.json"
    check_case "$label" 2 "$fragment" merge "$f" "$gpu/copy_pinned.db" -o "$dir/merged.db"
}

# mutate NAME SOURCE SQL...: a copy of SOURCE under $dir/NAME.db with the statements applied
# (NOT NULL dropped first: a hostile file need not keep constraints).
mutate() {
    local name=$1 source=$2
    shift 2
    python3 "$here/hostile_mutate.py" "$dir/$name.db" "$source" "$@"
}

# 9: a warp size no GPU has divided the occupancy arithmetic by zero (SIGFPE).
mutate warp "$gpu/streams_saturate.db" "UPDATE devices SET warp_size = 9223372036854775807"
check_case "9 warp_size" 2 "has warp_size 9223372036854775807, beyond any GPU" report "$dir/warp.db"
check_case "9 warp_size" 2 "has warp_size 9223372036854775807, beyond any GPU" check --min comm_overlap=0 "$dir/warp.db"
mutate sm_count "$gpu/streams_saturate.db" "UPDATE devices SET sm_count = -5"
check_case "9 sm_count" 2 "has sm_count -5, beyond any GPU" report "$dir/sm_count.db"
mutate grid "$gpu/streams_saturate.db" "UPDATE kernels SET grid_x = 4611686018427387904, grid_y = 4"
check_case "9 grid" 2 "a launch size or byte count beyond any GPU" report "$dir/grid.db"

# 10: an NVTX message whose string is NULL (SIGSEGV in the step finder): no step, no crash.
mutate nvtx_null "$gpu/copy_pinned.db" "UPDATE strings SET value = NULL WHERE id IN (SELECT message_id FROM nvtx)"
check_case "10 NULL NVTX message" 0 "" report "$dir/nvtx_null.db"
check_case "10 NULL NVTX message" 0 "" render "$dir/nvtx_null.db" -o "$dir/nvtx_null.png"
mutate nvtx_time "$gpu/copy_pinned.db" "UPDATE nvtx SET end_ns = 9223372036854775807"
check_case "13 NVTX time" 2 "an NVTX range of process 1 runs from" report --range "rep 1" "$dir/nvtx_time.db"
mutate nvtx_step "$gpu/pipeline_serial.db" "UPDATE nvtx SET start_ns = -9223372036854775807"
check_case "13 NVTX step time" 2 "an NVTX range of process 1 runs from -9223372036854775807" report "$dir/nvtx_step.db"

# 11: a window under a microsecond once divided by a zero width (SIGSEGV in the canvas).
check_case "11 1 ns window" 0 "" render "$gpu/ddp.db" -o "$dir/window.png" --window 0ns:1ns

# 12: a view that never ends, in place of a table, hung every command; a FIFO hung the open.
mutate view "$gpu/copy_pinned.db" "ALTER TABLE memsets RENAME TO m0" \
    "CREATE VIEW memsets AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT m0.* FROM r, m0"
refused_by_all "12 recursive view" "$dir/view.db" "'memsets' is a view, not a table"
mutate meta_view "$gpu/copy_pinned.db" "ALTER TABLE meta RENAME TO m0" "CREATE VIEW meta AS SELECT * FROM m0"
check_case "12 meta view" 2 "'meta' is a view, not a table" report "$dir/meta_view.db"
mutate trigger "$gpu/copy_pinned.db" "CREATE TRIGGER t AFTER INSERT ON kernels BEGIN SELECT 1; END"
check_case "12 trigger" 2 "a trigger on table 'kernels'" report "$dir/trigger.db"
mutate shape "$gpu/copy_pinned.db" "ALTER TABLE kernels ADD COLUMN extra INTEGER"
check_case "12 other columns" 2 "table kernels has other columns" info "$dir/shape.db"
mkfifo "$dir/fifo.db"
check_case "12 FIFO" 2 "$dir/fifo.db': not a regular file" report "$dir/fifo.db"
check_case "12 FIFO" 2 "$dir/fifo.db': not a regular file" info "$dir/fifo.db"
check_case "12 device" 2 "/dev/zero': not a regular file" report /dev/zero

# 13: an impossible GPU span printed as "GPU span: -7427980757.667 s" (signed overflow).
mutate span "$gpu/copy_pinned.db" "UPDATE kernels SET start_ns = -9223372036854775807 WHERE rowid = 1"
check_case "13 info span" 2 "the trace is damaged: GPU activity from -9223372036854775807 ns" info "$dir/span.db"
# API times no recording holds are passed over by the explanations, not summed.
mutate api "$gpu/copy_pinned.db" "UPDATE api_calls SET end_ns = -9223372036854775807, start_ns = 9223372036854775807"
check_case "13 API times" 0 "" report "$dir/api.db"
mutate api_end "$gpu/copy_pinned.db" "UPDATE api_calls SET end_ns = -9223372036854775808"
check_case "13 API end INT64_MIN" 0 "" report "$dir/api_end.db"

# Schema-3 host tables (second red-team pass, issue 33): NULLs, sums past INT64_MAX, invalid UTF-8
# and 100 KB frames are read without a crash or a sanitizer report, by every reader of them.
v3="$here/../data/gpu-h200-v3/host_starved_loader.db.gz"
gzip -dc "$v3" > "$dir/v3.db"
mutate host_nulls "$dir/v3.db" "UPDATE host_samples SET time_ns = NULL WHERE rowid % 3 = 0" \
    "UPDATE host_samples SET cpu_ns = NULL, state = NULL WHERE rowid % 3 = 1" \
    "UPDATE host_stacks SET frames = NULL WHERE id % 2 = 0" \
    "UPDATE process_cpu_samples SET pid = NULL, cpu_ns = NULL, name = NULL WHERE rowid % 2 = 0" \
    "UPDATE process_environment SET name = NULL, value = NULL"
mutate host_hostile "$dir/v3.db" "UPDATE process_cpu_samples SET cpu_ns = 9223372036854775807" \
    "UPDATE host_stacks SET frames = CAST(x'fffe80c00a41e282' AS TEXT) || hex(randomblob(50000)) || id" \
    "UPDATE host_samples SET stack_id = stack_id + 100000 WHERE rowid % 2 = 0"
for name in host_nulls host_hostile; do
    check_case "33 $name report" 0 "" report "$dir/$name.db"
    check_case "33 $name info" 0 "" info "$dir/$name.db"
    check_case "33 $name export" 0 "" export "$dir/$name.db" --force --chrome "$dir/$name.json"
done

# 21: --top 100000000 once said "not an error" (the waits kept grew with it): refused, naming the bound.
out=$(timeout 60 "$os" report --top 100000000 "$gpu/copy_pinned.db" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -qF -- "--top is at most 10000, not '100000000'" <<<"$out" && pass=$((pass+1)) ||
    { echo "FAILED: 21 --top: rc=$rc: $out"; fail=$((fail+1)); }

# Ids no recording holds: export's sort indexes once overflowed on them (UBSan).
mutate ids "$gpu/collector_smoke.db" "UPDATE synchronizations SET process_id = 9223372036854775807"
check_case "13 export ids" 0 "" export "$dir/ids.db" --chrome "$dir/ids.json"

# 21: the schema version is a number, all of it; application and user version agree.
mutate version_wrap "$gpu/copy_pinned.db" "UPDATE meta SET value = '4294967297' WHERE key = 'schema_version'"
check_case "21 version 4294967297" 2 "schema version '4294967297' is not a number" report "$dir/version_wrap.db"
mutate version_beta "$gpu/copy_pinned.db" "UPDATE meta SET value = '1.9 beta' WHERE key = 'schema_version'"
check_case "21 version 1.9 beta" 2 "schema version '1.9 beta' is not a number" info "$dir/version_beta.db"
mutate application "$gpu/copy_pinned.db" "PRAGMA application_id = 1234"
check_case "21 application id" 2 "not an overlapscope trace (application id 0x000004d2)" report "$dir/application.db"
mutate user_version "$gpu/copy_pinned.db" "PRAGMA user_version = 7"
check_case "21 user_version" 2 "schema version 1 but user_version 7" report "$dir/user_version.db"
# A missing table is said to be missing, not counted as 0 rows.
mutate missing "$gpu/copy_pinned.db" "DROP TABLE memsets"
check_case "21 missing table" 2 "damaged overlapscope trace (no memsets table)" info "$dir/missing.db"
# A hot journal on a read-only input: one line naming the file, not "attempt to write a readonly database".
mkdir "$dir/hot"
python3 - "$gpu/copy_pinned.db" "$dir/hot" <<'PY'
import shutil, sqlite3, sys
source, folder = sys.argv[1], sys.argv[2]
shutil.copy(source, folder + "/work.db")
db = sqlite3.connect(folder + "/work.db", isolation_level=None)
db.execute("PRAGMA cache_size = 1")  # pages spill into the file before the commit
db.execute("BEGIN")
db.execute("UPDATE api_calls SET start_ns = start_ns + 1")
shutil.copy(folder + "/work.db", folder + "/hot.db")
shutil.copy(folder + "/work.db-journal", folder + "/hot.db-journal")
db.execute("ROLLBACK")
PY
rm -f "$dir/hot/work.db"; chmod a-w "$dir/hot/hot.db" "$dir/hot"
check_case "21 hot journal" 2 "$dir/hot/hot.db': it holds an unfinished write" report "$dir/hot/hot.db"
chmod u+w "$dir/hot"
# What imports must read (13): the importers apply the readers' bounds, and refuse a view.
nsys="$here/../fuzz-corpus/fuzz_nsys/report.sqlite"
import_refused() { # label fragment file: import exits 2 with one line naming the file, and leaves no output
    check_case "$1" 2 "$2" import "$3" -o "$dir/imported.db"
    [ ! -e "$dir/imported.db" ] || { echo "FAILED: $1 left an output"; fail=$((fail+1)); rm -f "$dir/imported.db"; }
}
cat >"$dir/warp.json" <<'JSON'
{"deviceProperties": [{"id": 0, "name": "X", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
  "warpSize": 9223372036854775807}],
 "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1000, "dur": 10,
  "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [1, 1, 1], "block": [128, 1, 1]}}]}
JSON
import_refused "9 Kineto warpSize" "warp.json: not imported, no reader would accept it: a device" "$dir/warp.json"
sed 's/9223372036854775807/32/' "$dir/warp.json" >"$dir/warp32.json"
check_case "9 Kineto warpSize 32" 0 "" import "$dir/warp32.json" -o "$dir/warp32.db"
sed 's/"computeMajor": 9/"computeMajor": 922337203685477580/' "$dir/warp32.json" >"$dir/major.json"
import_refused "13 Kineto computeMajor" "major.json: not imported" "$dir/major.json"
sed 's/"ts": 1000/"ts": 4000000000000000/' "$dir/warp32.json" >"$dir/late.json"
import_refused "13 Kineto time" "late.json: traceEvents[0] (kernel): timestamp out of range" "$dir/late.json"
mutate nsys_warp "$nsys" "UPDATE TARGET_INFO_GPU SET threadsPerWarp = 9223372036854775807"
import_refused "9 nsys threadsPerWarp" "nsys_warp.db: not imported, no reader would accept it: a device" "$dir/nsys_warp.db"
mutate nsys_api "$nsys" "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = -9223372036854775807"
import_refused "13 nsys API time" "nsys_api.db: not imported, no reader would accept it: api_calls row 1" "$dir/nsys_api.db"
mutate nsys_view "$nsys" "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k0" \
    "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT k0.* FROM r, k0"
import_refused "12 nsys view" "damaged Nsight Systems export ('CUPTI_ACTIVITY_KIND_KERNEL' is a view" "$dir/nsys_view.db"

# 12, 21: a named pipe as input hung import; a pipe the shell opened (<(zcat x.gz)) failed its
# format sniffing; re-importing a folder picked up the output of the import before.
kineto="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto/simple_add_two_streams.json.gz"
mkfifo "$dir/fifo.json"
import_refused "12 import FIFO" "$dir/fifo.json': not a regular file" "$dir/fifo.json"
out=$(timeout 60 "$os" import <(zcat "$kineto") -o "$dir/piped.db" 2>&1); rc=$?
[ $rc -eq 0 ] && grep -qF "1 file, 1 process, 79 kernels" <<<"$out" && pass=$((pass+1)) ||
    { echo "FAILED: 21 import <(zcat): rc=$rc: $out"; fail=$((fail+1)); }
mkdir "$dir/ranks"; cp "$kineto" "$dir/ranks/"
"$os" import "$dir/ranks" -o "$dir/ranks/job.sqlite" >/dev/null 2>&1
out=$(timeout 60 "$os" import "$dir/ranks" -o "$dir/ranks/job.sqlite" --force 2>&1); rc=$?
[ $rc -eq 0 ] && grep -qF "1 file, 1 process, 79 kernels" <<<"$out" && pass=$((pass+1)) ||
    { echo "FAILED: 21 re-import a folder: rc=$rc: $out"; fail=$((fail+1)); }

# 21: Kineto 'B'/'E' pairs became two zero-length kernels: now one interval per pair, matched per
# pid and tid (k1 1000-1010 us on tid 7, k2 1002.5-1004 us on tid 8, whose 'E' carries no category).
"$os" import "${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto/begin_end_pairs.json" -o "$dir/pairs.db" >/dev/null 2>&1
got=$(python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(";".join("%s %d %d" % row for row in c.execute("SELECT s.value, k.start_ns, k.end_ns FROM kernels k JOIN strings s ON s.id = k.name_id ORDER BY k.start_ns")))' "$dir/pairs.db" 2>&1)
[ "$got" = "k1 1000000 1010000;k2 1002500 1004000;k3 1020000 1025000" ] && pass=$((pass+1)) ||
    { echo "FAILED: 21 B/E pairs: $got"; fail=$((fail+1)); }

# 12: a FIFO planted in record's run folder hung record (merging opened it); it is passed over.
if "$os" record -o "$dir/probe.db" -- true 2>&1 | grep -q "collector is not built"; then
    echo "(record's run folder case skipped: the collector is not built)"
else
    rm -f "$dir/probe.db"
    out=$(timeout 60 "$os" record -o "$dir/rec.db" -- sh -c 'mkfifo "$OVERLAPSCOPE_OUTPUT_DIR/proc-1-1.db"' 2>&1); rc=$?
    [ $rc -eq 0 ] && grep -qF "0 processes" <<<"$out" && pass=$((pass+1)) ||
        { echo "FAILED: 12 FIFO in record's run folder: rc=$rc: $out"; fail=$((fail+1)); }
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
