#!/usr/bin/env bash
# Every writer (render, import, merge, export, record) keeps the user's files (store/output_file.h):
# each case is one of issue 20's reproductions, run on the golden traces, with the verdict a user
# sees: the exit status, the one line said, and what is (and is not) left on disk.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
T="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/gpu"
kineto="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto/simple_add_two_streams.json.gz"
cd "$dir" || exit 2

bad() { echo "FAILED: $*"; fail=$((fail+1)); }
good() { pass=$((pass+1)); }
# run ARGS...: overlapscope with stdout dropped; sets rc and said (its stderr).
run() { said=$(timeout 120 "$os" "$@" 2>&1 >/dev/null); rc=$?; }
# refused LABEL FRAGMENT: the last run exited 2 with one line holding FRAGMENT.
refused() {
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$said" | wc -l)" -eq 1 ] && grep -qF -- "$2" <<<"$said"; then good; else
        bad "$1: rc=$rc, said: $said"; fi
}
# holds LABEL FILE TEXT: FILE still holds exactly TEXT.
holds() { [ "$(cat "$2" 2>/dev/null)" = "$3" ] && good || bad "$1: '$2' no longer holds '$3'"; }
absent() { [ ! -e "$2" ] && good || bad "$1: '$2' was left behind"; }
# no_leftovers LABEL: no temporary file (".NAME.partial-XXXXXX") nor SQLite sidecar of one anywhere.
no_leftovers() {
    local left
    left=$(find "$dir" -name '.*.partial-*')
    [ -z "$left" ] && good || { bad "$1: left $left"; rm -f $left; }
}

# 1. An existing output is refused, and a failing render keeps it, with and without --force.
echo keep >a.png
run render "$T/copy_pinned.db" -o a.png
refused "existing picture" "cannot write 'a.png': file exists (use --force to overwrite)"
run render "$T/copy_pinned.db" -o a.png --window 99s:100s --force
[ $rc -eq 2 ] && good || bad "failing forced render: rc=$rc"
holds "existing picture" a.png keep
run render "$T/copy_pinned.db" -o a.png --force
[ $rc -eq 0 ] && [ "$(head -c 4 a.png | tail -c 3)" = PNG ] && good || bad "forced render: rc=$rc, $said"
echo keep >x.json; echo keep >x.db
run export "$T/copy_pinned.db" --chrome x.json
refused "existing export" "cannot write 'x.json': file exists"
run import "$kineto" -o x.db
refused "existing import" "cannot write 'x.db': file exists"
run merge "$T/copy_pinned.db" -o x.db
refused "existing merge" "cannot write 'x.db': file exists"
holds "existing outputs" x.json keep; holds "existing outputs" x.db keep

# 2. A symbolic link as output is refused: its target is neither written nor truncated.
echo keep >t.txt; ln -s t.txt l.png; ln -s t.txt l.json; ln -s t.txt l.db
for force in "" --force; do
    run render "$T/copy_pinned.db" -o l.png $force
    refused "symlink picture $force" "cannot write 'l.png': it is a symbolic link"
    run render "$T/copy_pinned.db" -o l.png --window 99s:100s $force
    refused "symlink picture, failing window $force" "symbolic link"
    run export "$T/copy_pinned.db" --chrome l.json $force
    refused "symlink export $force" "symbolic link"
    run import "$kineto" -o l.db $force
    refused "symlink import $force" "symbolic link"
    run merge "$T/copy_pinned.db" -o l.db $force
    refused "symlink merge $force" "symbolic link"
done
holds "symlink target" t.txt keep
[ -L l.png ] && [ -L l.db ] && good || bad "a symbolic link output was replaced"

# 3. The output is never one of the inputs, named directly, through a link or a hard link.
cp "$T/copy_pinned.db" t.svg; ln -s t.svg link.db; ln t.svg hard.svg
sum=$(sha256sum <t.svg)
run render t.svg -o t.svg --force
refused "render onto its trace" "cannot write 't.svg': it is the input 't.svg'"
run render link.db -o t.svg --force
refused "render onto its trace through a link" "it is the input 'link.db'"
run render t.svg -o hard.svg --force
refused "render onto a hard link of its trace" "it is the input 't.svg'"
run export t.svg --chrome t.svg --force
refused "export onto its trace" "it is the input"
run merge "$T/ddp.db" t.svg -o t.svg --force
refused "merge onto an input" "it is the input 't.svg'"
cp "$kineto" k.json.gz
run import k.json.gz -o k.json.gz --force
refused "import onto its input" "it is the input 'k.json.gz'"
[ "$(sha256sum <t.svg)" = "$sum" ] && cmp -s k.json.gz "$kineto" && good || bad "an input was changed"

# 4. A writer killed, or stopped by a full disk, leaves nothing that reads as a result.
"$os" render "$T/ddp.db" -o killed.png --width 12000 --height 6000 >/dev/null 2>&1 &
writer=$!
for _ in $(seq 200); do [ -n "$(find . -name '.killed.png.partial-*')" ] && break; sleep 0.05; done
kill -TERM $writer; wait $writer; rc=$?
[ $rc -eq 143 ] && good || bad "SIGTERM during render: rc=$rc (expected 143)"
absent "SIGTERM during render" killed.png
no_leftovers "SIGTERM during render"
# SIGKILL cannot be caught: what it leaves is refused by every reader, with one line.
cp "$T/copy_pinned.db" .run.db.partial-Ab12Cd
for command in info report; do
    run $command .run.db.partial-Ab12Cd
    refused "$command of a killed writer's leftover" "cannot open '.run.db.partial-Ab12Cd': an unfinished write"
done
run merge .run.db.partial-Ab12Cd -o leftover.db
refused "merge of a killed writer's leftover" "an unfinished write"
rm -f .run.db.partial-Ab12Cd
# A full disk (a file size limit; SIGXFSZ ignored so that write(2) fails with EFBIG as on ENOSPC).
for out in full.png full.svg full.pdf; do
    said=$( (trap '' XFSZ; ulimit -f 8; exec "$os" render "$T/ddp.db" -o $out) 2>&1 >/dev/null); rc=$?
    refused "render to a full disk ($out)" "cannot write '$out': File too large"
    absent "render to a full disk" $out
done
said=$( (trap '' XFSZ; ulimit -f 8; exec "$os" export "$T/ddp.db" --chrome full.json) 2>&1 >/dev/null); rc=$?
refused "export to a full disk" "cannot write 'full.json': File too large"
for command in "merge $T/ddp.db" "import $kineto"; do
    said=$( (trap '' XFSZ; ulimit -f 8; exec "$os" $command -o full.db) 2>&1 >/dev/null); rc=$?
    refused "${command%% *} to a full disk" "in 'full.db': disk I/O error"
    absent "${command%% *} to a full disk" full.db
done
no_leftovers "full disk"

# 5. Two writers racing for one output: exactly one succeeds, the other fails naming the file.
race() { # LABEL OUTPUT COMMAND...
    local label=$1 output=$2 first second
    shift 2
    "$os" "$@" >/dev/null 2>race1.err & first=$!
    "$os" "$@" >/dev/null 2>race2.err & second=$!
    wait $first; local rc1=$?; wait $second; local rc2=$?
    if [ $((rc1 + rc2)) -eq 2 ] && [ $((rc1 * rc2)) -eq 0 ] && grep -qF "cannot write '$output'" race1.err race2.err &&
        grep -qF "file exists" race1.err race2.err; then good; else
        bad "$label: exit statuses $rc1 and $rc2: $(cat race1.err race2.err)"; fi
    rm -f "$output"
}
for _ in 1 2; do
    race "two exports" raced.json export "$T/ddp_saturate.db" --chrome raced.json
    race "two merges" raced.db merge "$T/ddp.db" "$T/ddp_saturate.db" -o raced.db
    race "two imports" raced.db import "$kineto" -o raced.db
    race "two renders" raced.png render "$T/ddp.db" -o raced.png --width 4000
done
no_leftovers "races"

# 6. merge only reads its inputs: a write-ahead log beside one is not folded into it.
cp "$T/copy_pinned.db" wal.db
python3 - wal.db <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA journal_mode=WAL")
c.execute("INSERT INTO warnings VALUES (NULL, NULL, 'test', 'only in the log')"); c.commit()
os._exit(0)  # as a killed writer: the log and its index stay beside the file
PY
sum=$(sha256sum <wal.db)
run merge wal.db -o walmerged.db
[ $rc -eq 0 ] && [ "$(sha256sum <wal.db)" = "$sum" ] && [ -s wal.db-wal ] && good ||
    bad "merge changed its input (rc=$rc, $said)"
[ "$(sqlite3 walmerged.db "SELECT COUNT(*) FROM warnings WHERE message = 'only in the log'")" = 1 ] && good ||
    bad "merge lost what its input's log held"

# 7. merge says what it cannot carry, refuses an impossible clock offset, stores integer times.
cp "$T/ddp.db" dangling.db
sqlite3 dangling.db "UPDATE kernels SET process_id = 999 WHERE rowid % 2 = 0;
    UPDATE kernels SET name_id = 999999 WHERE rowid % 3 = 0; UPDATE memcpys SET process_id = 998 WHERE rowid % 5 = 0"
lost_kernels=$(sqlite3 dangling.db "SELECT COUNT(*) FROM kernels WHERE process_id NOT IN (SELECT process_id FROM processes)
    OR name_id NOT IN (SELECT id FROM strings)")
lost_memcpys=$(sqlite3 dangling.db "SELECT COUNT(*) FROM memcpys WHERE process_id NOT IN (SELECT process_id FROM processes)")
kernels=$(sqlite3 dangling.db "SELECT COUNT(*) FROM kernels")
run merge dangling.db -o carried.db
[ $rc -eq 0 ] && grep -qF "warning: dangling.db: $lost_kernels rows of kernels not carried" <<<"$said" &&
    grep -qF "warning: dangling.db: $lost_memcpys rows of memcpys not carried" <<<"$said" &&
    [ "$(printf '%s\n' "$said" | wc -l)" -eq 2 ] && good || bad "dangling rows: rc=$rc, said: $said"
[ "$(sqlite3 carried.db "SELECT COUNT(*) FROM kernels")" = $((kernels - lost_kernels)) ] &&
    [ "$(sqlite3 carried.db "SELECT COUNT(*) FROM warnings WHERE code = 'merge-dropped'")" = 2 ] && good ||
    bad "dangling rows: the merged trace does not account for them"
cp "$T/ddp.db" far.db
sqlite3 far.db "UPDATE collectives SET start_ns = start_ns - 7400000000000000000, end_ns = end_ns - 7400000000000000000"
run merge "$T/ddp.db" far.db -o far_merged.db
refused "absurd clock offset" "far.db: clock offset 74"
absent "absurd clock offset" far_merged.db
cp "$T/ddp.db" real.db
sqlite3 real.db "UPDATE kernels SET start_ns = start_ns + 0.5, end_ns = 12.5 WHERE rowid IN (SELECT rowid FROM kernels LIMIT 3)"
run merge "$T/ddp.db" real.db -o integer_times.db
[ $rc -eq 0 ] && [ "$(sqlite3 integer_times.db "SELECT COUNT(*) FROM kernels WHERE typeof(start_ns) = 'real'
    OR typeof(end_ns) = 'real'")" = 0 ] && good || bad "REAL times stored (rc=$rc, $said)"

# 8. record refuses its output before running anything; its lock never follows a link.
if "$os" record -o "$dir/probe.db" -- true 2>&1 | grep -q "collector is not built"; then
    run record -o '' -- touch ran
    refused "record -o ''" "cannot write '': empty file name"
else
    rm -f probe.db probe.db.lock
    run record -o '' -- touch ran
    refused "record -o ''" "cannot write '': empty file name"
    absent "record -o '' ran the job" ran
    run record -o l.db --force -- touch ran
    refused "record to a symbolic link" "cannot write 'l.db': it is a symbolic link"
    run record -o missing-folder/r.db -- touch ran
    refused "record into a missing folder" "cannot write 'missing-folder/r.db': folder 'missing-folder'"
    absent "record refused, job not run" ran
    ln -s victim locked.db.lock
    run record -o locked.db -- true
    refused "record lock through a link" "cannot create 'locked.db.lock': it is a symbolic link"
    absent "record lock through a link" victim
    run record -o rec.db -- true
    [ $rc -eq 0 ] && [ -s rec.db ] && good || bad "record: rc=$rc, $said"
    run record -o rec.db -- touch ran
    refused "record over its earlier output" "cannot write 'rec.db': file exists"
    absent "record over its earlier output ran the job" ran
    # A merge that fails (a full disk) leaves no trace, no temporary file and no SQLite sidecar.
    said=$( (trap '' XFSZ; ulimit -f 8; exec "$os" record -o full_record.db -- true) 2>&1 >/dev/null); rc=$?
    refused "record to a full disk" "cannot merge the recording into 'full_record.db'"
    absent "record to a full disk" full_record.db
    rm -rf .overlapscope-record-*
fi
no_leftovers "record"

# 20. A failed write on standard output fails the command (exit 2, one line), in every format.
for command in "report" "report --json" "report --markdown" "info" "check --min comm_overlap=0"; do
    said=$("$os" $command "$T/ddp.db" 2>&1 >/dev/full); rc=$?
    refused "$command > /dev/full" "cannot write"
done
said=$("$os" diff "$T/ddp.db" "$T/ddp_saturate.db" 2>&1 >/dev/full); rc=$?
refused "diff > /dev/full" "cannot write"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
