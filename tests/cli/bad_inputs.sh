#!/usr/bin/env bash
# Every reader subcommand meets bad input with one line naming the file and the problem, and
# exit status 2; never a crash (a signal would give 128+N).
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
printf 'not a database, only words, long enough to fill an SQLite header of one hundred bytes.........' >"$dir/text.db"
python3 - "$dir/foreign.db" <<'PY' 2>/dev/null || sqlite3 "$dir/foreign.db" 'CREATE TABLE t(x);' 2>/dev/null
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE t(x)"); c.commit()
PY
check_case() { # command file expected-fragment
    local out rc
    out=$($os $1 "$2" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -qF "$3" <<<"$out" && grep -qF "$2" <<<"$out"; then
        pass=$((pass+1))
    else
        echo "FAILED: overlapscope $1 $2: rc=$rc, said: $out"; fail=$((fail+1))
    fi
}
for cmd in info; do
    check_case $cmd "$dir/missing.db" "No such file or directory"
    check_case $cmd "$dir/text.db" "not an SQLite database"
    [ -f "$dir/foreign.db" ] && check_case $cmd "$dir/foreign.db" "not an overlapscope trace"
    check_case $cmd "$dir" "is a directory"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
