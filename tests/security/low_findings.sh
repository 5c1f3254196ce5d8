#!/usr/bin/env bash
# The red team's low findings (issue 33): numbers read strictly, an option given once, '-' never
# a file, a folder import naming what it skips. Each case behaved otherwise on main at 396b4ef.
. "$(dirname "$0")/lib.sh"
K="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto"
cd "$work" || exit 2
"$os" import "$K/nccl_data.json.gz" -o t.db >/dev/null 2>&1
# usage NAME FRAGMENT ARGS...: exit 2 and the first line holds FRAGMENT.
usage() {
    local name=$1 fragment=$2; shift 2
    "$os" "$@" >out.txt 2>err.txt; local rc=$?
    expect "$name: exit 2 naming the problem" '[ $rc -eq 2 ] && head -n 1 err.txt | grep -qF -- "$fragment"'
}
# A trace locked by a live writer: said so, not the advice for a crashed writer's journal.
cp t.db locked.db
python3 - locked.db <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
db.execute("UPDATE meta SET value = value")
open("locked.ready", "w").close()
time.sleep(20)
PY
writer=$!
for _ in $(seq 100); do [ -e locked.ready ] && break; sleep 0.1; done
"$os" info locked.db >out.txt 2>err.txt; rc=$?
kill $writer 2>/dev/null; wait $writer 2>/dev/null
expect "a live writer's lock: exit 2, named as such" \
    '[ $rc -eq 2 ] && grep -qF "another process is writing it now" err.txt && ! grep -qF "where it is writable" err.txt'
usage "--window -1:5 (printed +-1 ns)" "reaches before the trace's start (0)" report --window -1:5 t.db
usage "--window 0x10ms:1s (hex read as 16)" "'0x10ms' has an unknown unit" report --window 0x10ms:1s t.db
usage "--rank twice (the last kept silently)" "--rank given twice (0, then '1')" report --rank 0 --rank 1 t.db
usage "--window twice" "--window given twice" report --window 0:1ms --window 0:2ms t.db
usage "--rank 0x1" "--rank wants a non-negative integer, not '0x1'" report --rank 0x1 t.db
usage "check busy_ratio=0x1 (hex accepted)" "wants a decimal number" check --min busy_ratio=0x1 t.db
usage "check busy_ratio=1.5 (a ratio above 1)" "busy_ratio is a ratio, from 0 to 1" check --min busy_ratio=1.5 t.db
usage "check busy_ratio=-0.1" "busy_ratio is a ratio, from 0 to 1" check --max busy_ratio=-0.1 t.db
usage "check busy_ratio=inf" "wants a decimal number" check --min busy_ratio=inf t.db
"$os" check --min busy_ratio=0.5e-1 t.db >/dev/null 2>&1; rc=$?
expect "check busy_ratio=0.5e-1: a plain decimal still reads" '[ $rc -ne 2 ]'
"$os" diff --fail-on exposed_comm_ms=-0 t.db t.db >/dev/null 2>err.txt; rc=$?
expect "diff --fail-on exposed_comm_ms=-0: zero allowed either sign (was refused)" '[ $rc -eq 0 ]'
usage "diff --fail-on exposed_comm_ms=-1: still refused" "a worsening is positive" diff --fail-on exposed_comm_ms=-1 t.db t.db
# '-' is standard output for export, and never a file called '-' for the others
usage "import -o - (wrote a file named -)" "cannot write '-': this output cannot go to standard output" \
    import "$K/nccl_data.json.gz" -o -
cp t.db u.db
usage "merge -o -" "cannot write '-'" merge t.db u.db -o -
expect "no file called '-' left" '[ ! -e ./- ]'
"$os" export t.db --chrome - 2>/dev/null | head -c 16 | grep -q traceEvents
expect "export --chrome - still writes standard output" '[ ${PIPESTATUS[0]:-0} -ne 2 ]'
# a folder import names each *.json entry it skips (a missing rank went unnoticed)
mkdir ranks && cp "$K/sampled_rank-0.json.gz" ranks/rank0.json.gz
mkfifo ranks/rank1.json && mkdir ranks/rank2.json && ln -s nowhere ranks/rank3.json.gz && ln -s /dev/null ranks/rank4.json &&
    ln -s . ranks/rank5.json
"$os" import ranks -o ranks.db >out.txt 2>err.txt; rc=$?
expect "folder import: still imports the real trace" '[ $rc -eq 0 ] && grep -q "^ranks.db: 1 file" out.txt'
expect "folder import: names the FIFO" 'grep -qF "ranks/rank1.json: skipped, a named pipe" out.txt'
expect "folder import: names the folder" 'grep -qF "ranks/rank2.json: skipped, a folder" out.txt'
expect "folder import: names the dangling link" 'grep -qF "ranks/rank3.json.gz: skipped, a symbolic link to nothing readable" out.txt'
# a link to a device or a folder is named as one (it was "a symbolic link to nothing readable")
expect "folder import: names the link to a device" 'grep -qF "ranks/rank4.json: skipped, a symbolic link to a device" out.txt'
expect "folder import: names the link to a folder" 'grep -qF "ranks/rank5.json: skipped, a symbolic link to a folder" out.txt'
expect "folder import: kept as warnings in the trace" \
    '[ "$(sqlite3 ranks.db "SELECT COUNT(*) FROM warnings WHERE code = '"'import-folder-skipped'"'")" = 5 ]'
"$os" info ranks >/dev/null 2>err.txt
expect "a folder read directly: each skipped entry said on stderr" '[ $(grep -c "warning: ranks/rank.*skipped" err.txt) -eq 5 ]'
# An Nsight Systems kernel row whose start is INT64_MIN was refused as "a row without start, end,
# deviceId or streamId": the columns are there, the value is impossible.
python3 "$here/generators/nsys_many_ids.py" n.sqlite 3 channels
sqlite3 n.sqlite "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -9223372036854775808 WHERE rowid = 1"
usage "nsys start = INT64_MIN (called missing)" \
    "n.sqlite: CUPTI_ACTIVITY_KIND_KERNEL: a row whose start is -9223372036854775808, outside what any recording holds" \
    import n.sqlite -o n.db
# A Kineto trace whose name leaves no room for the cache's suffix (a 245-byte name): the command
# failed with "cannot write '/tmp/overlapscope-import-XXXXXX/NAME.overlapscope.db': File name too
# long" (second red-team pass); it reads the trace through a temporary import, saying why.
long=$(printf 'a%.0s' $(seq 240)).json
cp "$K/begin_end_pairs.json" "$long"
"$os" report "$long" >out.txt 2>err.txt; rc=$?
expect "a trace named near NAME_MAX: reported" '[ $rc -eq 0 ] && grep -q "^overlapscope report: " out.txt'
expect "a trace named near NAME_MAX: one line saying why" \
    '[ $(wc -l <err.txt) -eq 1 ] && grep -qF "(its name is too long for a cache beside it; to keep one" err.txt'
# A file named as a Kineto trace that holds none was read as a trace of ours: "cannot open 'x.json':
# not an SQLite database (file too short)". The importer names what it is.
printf 'null' >null.json; : >empty.json
usage "report null.json (not an SQLite database)" \
    "null.json: not a Kineto JSON trace (.json, .json.gz) nor an Nsight Systems SQLite export" report null.json
usage "info empty.json" "empty.json: empty file" info empty.json
expect "no cache left beside them" '[ ! -e null.json.overlapscope.db ] && [ ! -e empty.json.overlapscope.db ]'
# A trace read through a temporary import (here a pipe) where TMPDIR cannot hold one: the line said
# "a pipe is read once, nor is the temporary folder", naming neither the folder nor its problem.
TMPDIR=$work/none "$os" report <(cat "$K/begin_end_pairs.json") >out.txt 2>err.txt; rc=$?
expect "no temporary folder: exit 2, one line naming TMPDIR's folder and its problem" \
    '[ $rc -eq 2 ] && [ $(wc -l <err.txt) -eq 1 ] && grep -qF "(a pipe is read once), and no temporary folder can be made in '"'$work/none'"' (No such file or directory)" err.txt'
finish
