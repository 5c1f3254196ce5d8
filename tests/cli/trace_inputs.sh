#!/usr/bin/env bash
# Any trace, any command (issue 19 Must 3; cli/trace_input.h): info, report, check, diff, render
# and export read a PyTorch profiler trace (.json.gz), a folder of them and an Nsight Systems
# export directly. Each verdict is held against the same command on the trace `import` writes
# from the same input; the cache beside the input is reused while the input is the file it was
# made from, written again otherwise, never written over when it is not ours, and a read-only folder gets a temporary
# import that is gone afterwards.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'chmod -R u+w "$dir"; rm -rf "$dir"' EXIT
export TMPDIR="$dir/tmpdir"; mkdir "$TMPDIR" # temporary imports go here: none may stay
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
K="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto"
cd "$dir" || exit 2

bad() { echo "FAILED: $*"; fail=$((fail+1)); }
good() { pass=$((pass+1)); }
# run ARGS...: overlapscope; sets rc, out (stdout) and said (stderr).
run() { out=$(timeout 120 "$os" "$@" 2>"$dir/stderr"); rc=$?; said=$(cat "$dir/stderr"); }
# said_once LABEL FRAGMENT: the last run succeeded and said exactly one line, holding FRAGMENT.
said_once() {
    if [ $rc -eq 0 ] && [ "$(printf '%s\n' "$said" | wc -l)" -eq 1 ] && grep -qF -- "$2" <<<"$said"; then good; else
        bad "$1: rc=$rc, said: $said"; fi
}
same() { [ "$2" = "$3" ] && good || bad "$1: differs from the imported trace's:"$'\n'"$2"$'\n'"---"$'\n'"$3"; }

# The inputs: a gzipped Kineto trace, a folder of two (the two ranks of one job), an
# Nsight Systems export in miniature (its real table and column names, two kernels).
cp "$K/event_sync_multi_stream.json.gz" one.json.gz
mkdir ranks && cp "$K/sampled_rank-0.json.gz" ranks/rank0.json.gz && cp "$K/sampled_rank-1.json.gz" ranks/rank1.json.gz
python3 - <<'PY'
import sqlite3
c = sqlite3.connect("nsys.sqlite")
c.executescript("""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
 demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, gridX INTEGER, gridY INTEGER, gridZ INTEGER,
 blockX INTEGER, blockY INTEGER, blockZ INTEGER, registersPerThread INTEGER, staticSharedMemory INTEGER,
 dynamicSharedMemory INTEGER);
INSERT INTO StringIds VALUES (1, 'gemm_kernel(float*)'), (2, 'gemm_kernel');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
 (1000, 5000, 0, 1, 7, 11, 1677721600, 1, 2, 64, 1, 1, 256, 1, 1, 32, 0, 0),
 (2000, 6000, 0, 1, 13, 12, 1677721600, 1, 2, 64, 1, 1, 256, 1, 1, 32, 0, 0);
""")
c.commit()
PY

for input in one.json.gz ranks nsys.sqlite; do
    "$os" import "$input" -o "ref-$input.db" >/dev/null 2>&1 || bad "import $input"
    ref="ref-$input.db"; cache="$input.overlapscope.db"
    # the first command imports (one line naming the cache), the others read the cache (one line)
    run report --json "$input"
    said_once "report $input" "imported '$input' into '$cache'"
    [ -f "$cache" ] && good || bad "report $input: no cache $cache"
    mtime=$(stat -c %Y.%i "$cache")
    same "report --json $input" "$(grep -v '"trace"' <<<"$out")" \
        "$("$os" report --json "$ref" 2>/dev/null | grep -v '"trace"')"
    run info "$input"
    said_once "info $input" "reading '$cache' (imported from '$input'"
    same "info $input" "$(sed 1d <<<"$out")" "$("$os" info "$ref" | sed 1d)"
    run check --min busy_ratio=0 "$input"
    said_once "check $input" "reading '$cache'"
    same "check $input" "$out" "$("$os" check --min busy_ratio=0 "$ref" 2>/dev/null)"
    run diff "$input" "$ref"
    [ $rc -eq 0 ] && grep -q "reading '$cache'" <<<"$said" && good || bad "diff $input: rc=$rc, said: $said"
    same "diff $input" "$(sed 1d <<<"$out")" "$("$os" diff "$ref" "$ref" | sed 1d)"
    run render "$input" -o "$input.png"
    said_once "render $input" "reading '$cache'"
    [ -s "$input.png" ] && good || bad "render $input: no picture"
    run export "$input" --chrome "$input.trace.json"
    said_once "export $input" "reading '$cache'"
    same "export $input" "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["traceEvents"]))' "$input.trace.json")" \
        "$("$os" export "$ref" --chrome - 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["traceEvents"]))')"
    [ "$(stat -c %Y.%i "$cache")" = "$mtime" ] && good || bad "$input: the cache was written again though unchanged"
done

# A cache is read only for the file it was made from (tests/security/stale_cache.sh holds the
# hostile cases): an input touched is imported again, with what it holds now: one.json.gz
# becomes the 1.x trace (2 kernels where it had 3).
touch one.json.gz
run info one.json.gz
said_once "stale cache" "'one.json.gz' changed since 'one.json.gz.overlapscope.db' was written (its modification time differs): imported it again"
gzip -c "$K/pytorch_1x_format.json" > one.json.gz
run info one.json.gz
said_once "changed input" "imported it again"
grep -Eq '^  kernels +2$' <<<"$out" && good || bad "changed input: info does not count the new trace's 2 kernels: $out"
# a trace added to the folder makes its cache stale too
sleep 0.01; cp "$K/sampled_rank-1.json.gz" ranks/rank2.json.gz
run info ranks
said_once "folder grew" "'ranks' changed since"
grep -Eq '^  kernels +3362$' <<<"$out" && good || bad "folder grew: expected 1154+1104+1104 kernels: $out"

# A file of the cache's name that is not our cache is never written over.
cp "$K/event_sync_multi_stream.json.gz" mine.json.gz
echo "my notes" > mine.json.gz.overlapscope.db
run report mine.json.gz
said_once "not our cache" "'mine.json.gz.overlapscope.db' is not a cache overlapscope wrote: left as it is"
[ "$(cat mine.json.gz.overlapscope.db)" = "my notes" ] && good || bad "not our cache: it was written over"
"$os" import mine.json.gz -o mine-own.db >/dev/null 2>&1 && mv mine-own.db mine.json.gz.overlapscope.db
run report mine.json.gz
said_once "a trace the user imported there" "is not a cache overlapscope wrote"

# Four commands at once on a new input: one imports, the others read what it put in place.
mkdir race && cp "$K/sampled_rank-0.json.gz" "$K/sampled_rank-1.json.gz" race/
for i in 1 2 3 4; do ( "$os" info --no-verify race >/dev/null 2>"race.$i.err"; echo $? >"race.$i.rc" ) & done
wait
for i in 1 2 3 4; do
    [ "$(cat race.$i.rc)" = 0 ] && [ "$(wc -l <race.$i.err)" -eq 1 ] && good || bad "race $i: rc=$(cat race.$i.rc), said: $(cat race.$i.err)"
done

# A pipe the shell opened: imported into a temporary trace, gone afterwards.
run report --json <(gzip -dc one.json.gz)
said_once "pipe" "into a temporary trace (a pipe is read once"
same "pipe" "$(grep -v '"trace"' <<<"$out")" "$("$os" report --json one.json.gz.overlapscope.db 2>/dev/null | grep -v '"trace"')"

# An input that does not import: the import's one line, no cache left behind.
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": ' > broken.json
run report broken.json
{ [ $rc -eq 2 ] && [ "$(printf '%s\n' "$said" | wc -l)" -eq 1 ] && grep -qF "broken.json" <<<"$said"; } && good ||
    bad "broken input: rc=$rc, said: $said"
[ ! -e broken.json.overlapscope.db ] && [ -z "$(find . -name '.*.partial-*')" ] && good || bad "broken input left a file"

# A read-only folder: a temporary import, gone when the command ends. Root writes anywhere, so the
# command runs as nobody there (the binary copied where nobody can run it).
mkdir -p ro tmp bin && cp "$K/event_sync_multi_stream.json.gz" ro/t.json.gz && cp "$os" bin/overlapscope
chmod 755 "$dir" bin && chmod 555 ro && chmod 777 tmp
as_user() { if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
out=$(TMPDIR="$dir/tmp" as_user bin/overlapscope report ro/t.json.gz 2>"$dir/stderr"); rc=$?; said=$(cat "$dir/stderr")
said_once "read-only folder" "imported 'ro/t.json.gz' into a temporary trace ('ro' is not writable"
grep -q "overlapscope report: ro/t.json.gz" <<<"$out" && good || bad "read-only folder: no report: $out"
left=$(find ro tmp -mindepth 1 ! -name t.json.gz)
[ -z "$left" ] && good || bad "read-only folder: left $left"
# ... and when nothing is writable, the error names the import command to run.
chmod 555 tmp
out=$(TMPDIR="$dir/tmp" as_user bin/overlapscope report ro/t.json.gz 2>"$dir/stderr"); rc=$?; said=$(cat "$dir/stderr")
{ [ $rc -eq 2 ] && [ "$(printf '%s\n' "$said" | wc -l)" -eq 1 ] &&
    grep -qF "run \`overlapscope import ro/t.json.gz -o TRACE\`" <<<"$said"; } && good || bad "nowhere to write: rc=$rc, said: $said"

left=$(ls -A "$TMPDIR")
[ -z "$left" ] && good || bad "temporary imports left behind: $left"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
