#!/usr/bin/env bash
# A cache is used only for the file it was made from (issue 33 H1; docs/security.md, "The import
# cache"): the red team's stale caches, a damaged cache, and the files overlapscope writes (M2:
# the umask, never more readable than the input). Each case printed the wrong trace's figures, or
# left the wrong file, before.
. "$(dirname "$0")/lib.sh"
cd "$work" || exit 2
# trace N OUT: a Kineto trace of N one-microsecond kernels on one stream.
trace() {
    python3 - "$1" "$2" <<'PY'
import json, sys
n, path = int(sys.argv[1]), sys.argv[2]
events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1000.0 + 2 * i, "dur": 1.0,
           "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(n)]
json.dump({"schemaVersion": 1, "traceEvents": events}, open(path, "w"))
PY
}
# kernels TRACE: the kernel count `info` prints for TRACE (read through its cache); its stderr in info.err.
kernels() { "$os" info --no-verify "$1" 2>info.err | awk '$1 == "kernels" { print $2 }'; }

trace 3 three.json; trace 5 five.json; trace 7 seven.json

# (b) an input replaced by a file with an older mtime (cp -p, rsync -a, tar x): the old code kept
# the cache, newer than the input's mtime, and printed 3 kernels of the replaced trace.
cp three.json run.json
expect "(b) first read imports 3 kernels" '[ "$(kernels run.json)" = 3 ]'
touch -d '2001-01-01' five.json && cp -p five.json run.json
expect "(b) an older file copied over (cp -p): its 5 kernels" '[ "$(kernels run.json)" = 5 ]'
expect "(b) one line saying why" \
    '[ $(wc -l <info.err) -eq 1 ] && grep -q "'"'run.json' changed since 'run.json.overlapscope.db' was written (its size differs): imported it again"'" info.err'
# the same size and an old mtime: only the status-change time tells
trace 5 five-again.json; sed -i 's/"name": "k"/"name": "q"/' five-again.json; touch -d '2001-01-01' five-again.json
cp -p five-again.json run.json
same_size_has_q() { [ "$(kernels run.json)" = 5 ] && grep -q "changed since" info.err &&
    "$os" export run.json --chrome - 2>/dev/null | grep -qF '"name":"q"'; }
expect "(b) same size, older mtime: imported again (its names are q)" same_size_has_q
expect "(b) then read from the cache" '[ "$(kernels run.json)" = 5 ] && grep -q "unchanged since" info.err'

# (c) a latest.json symlink re-pointed at an older run: the cache beside the link was newer than
# the older target and kept its 7 kernels.
touch -d '2001-01-01' three.json
ln -s seven.json latest.json
expect "(c) the link's first target: 7 kernels" '[ "$(kernels latest.json)" = 7 ]'
ln -sfn three.json latest.json
expect "(c) re-pointed at an older run: its 3 kernels" '[ "$(kernels latest.json)" = 3 ]'
expect "(c) one line saying why" 'grep -q "another file: its device or inode differs" info.err'

# (d) a damaged cache (cut short, or emptied) was "not a cache overlapscope wrote", never repaired:
# it is replaced, atomically (no partial file left), with one line saying why.
cp seven.json cut.json
kernels cut.json >/dev/null
truncate -s 8192 cut.json.overlapscope.db
expect "(d) a truncated cache: the trace read" '[ "$(kernels cut.json)" = 7 ]'
expect "(d) one line: damaged, imported again" \
    '[ $(wc -l <info.err) -eq 1 ] && grep -q "was damaged (database is truncated" info.err'
expect "(d) the cache repaired in place" '"$os" info cut.json.overlapscope.db >/dev/null 2>&1 && [ -z "$(ls -A | grep partial)" ]'
: >cut.json.overlapscope.db
expect "(d) an emptied cache: replaced" '[ "$(kernels cut.json)" = 7 ] && grep -q "was damaged" info.err'
# ... while a file of the user's at that name is still never touched
echo "my notes" >mine.json.overlapscope.db; cp seven.json mine.json
expect "(d) a user's file at the cache's name: left as it is" \
    '[ "$(kernels mine.json)" = 7 ] && [ "$(cat mine.json.overlapscope.db)" = "my notes" ]'

# (a) an input replaced while it is being imported: the old code stamped the cache at the end, so
# it looked newer than the replacement forever (report printed the old file's 200,000 kernels
# for a 3-kernel trace). The identity taken before the import is checked again at its end.
trace 200000 big.json
cp big.json moving.json
"$os" info --no-verify moving.json >moving.out 2>moving.err &
pid=$!
# the import is reading the input once the process holds it open
for _ in $(seq 1 1000); do ls -l /proc/$pid/fd 2>/dev/null | grep -q '/moving\.json$' && break; sleep 0.005; done
cp three.json moving.new && mv moving.new moving.json
wait $pid; echo $? >moving.rc
expect "(a) the command that saw the change succeeded" '[ "$(cat moving.rc)" = 0 ]'
expect "(a) the next command reads the new 3 kernels, never the replaced 200000" '[ "$(kernels moving.json)" = 3 ]'

# M2: outputs honour the umask; a cache is never more readable than its input.
cp three.json private.json && chmod 600 private.json
kernels private.json >/dev/null
expect "M2: the cache of a 0600 trace is 0600" '[ "$(stat -c %a private.json.overlapscope.db)" = 600 ]'
(umask 077 && "$os" import three.json -o umask77.db >/dev/null 2>&1)
expect "M2: import under umask 077 writes 0600" '[ "$(stat -c %a umask77.db)" = 600 ]'
(umask 027 && "$os" export umask77.db --chrome umask27.json >/dev/null 2>&1)
expect "M2: export under umask 027 of a 0600 trace: 0600" '[ "$(stat -c %a umask27.json)" = 600 ]'
chmod 644 umask77.db
(umask 027 && "$os" export umask77.db --chrome umask27b.json >/dev/null 2>&1)
expect "M2: export under umask 027 of a 0644 trace: 0640" '[ "$(stat -c %a umask27b.json)" = 640 ]'
(umask 022 && "$os" import three.json -o umask22.db >/dev/null 2>&1)
expect "M2: import under umask 022: 0644" '[ "$(stat -c %a umask22.db)" = 644 ]'

finish
