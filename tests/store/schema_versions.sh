#!/usr/bin/env bash
# Schema version 2 (store/schema.sql) and version 1 (store/schema_v1.sql, every golden trace): a
# golden trace rewritten as version 2 by `merge` says exactly what the version 1 file says in every
# reading command (report --json, export, render, check, diff, info), a version 2 trace merged again
# too, the rewrite is smaller, and store_open refuses a version 2 file whose views or compact tables
# are not this build's.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
data="${OVERLAPSCOPE_TEST_DATA:-$here/../data}"
good() { pass=$((pass+1)); }
bad() { echo "FAILED: $*"; fail=$((fail+1)); }

# What a reading command prints that names the file or the writer, not what the file holds: the
# paths, meta source (record or merge), and whether a call_sources table exists (merge always
# creates one; the goldens predate it, so the report's "where in the program" line comes and goes).
normalize() { sed -e 's#"trace":[^,]*,#"trace": X,#' -e 's#"source":"[a-z]*"#"source":X#' \
    -e 's#"call_sources":[^,]*#"call_sources": X#' -e '/where in the program: this trace does not say/d' \
    -e "s#$1#TRACE#g" -e "s#$2#TRACE#g"; }

same_output() { # $1 label, $2 v1 file, $3 v2 file, rest: command (the trace goes last)
    local label=$1 one=$2 two=$3; shift 3
    local a b
    # Wide enough that no path wraps: the text report breaks a long one (a checkout's) across lines.
    a=$(COLUMNS=1000 "$os" "$@" "$one" 2>&1 | normalize "$one" "$two")
    b=$(COLUMNS=1000 "$os" "$@" "$two" 2>&1 | normalize "$one" "$two")
    [ -n "$a" ] && [ "$a" = "$b" ] && good || bad "$label: '$*' differs between version 1 and 2:
$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | head -8)"
}

for golden in gpu/launch_bound gpu/two_batch gpu/ddp; do # version 1 traces (gpu-h100 holds version 2 ones)
    one="$data/$golden.db" two="$dir/$(basename "$golden")_v2.db" again="$dir/$(basename "$golden")_again.db"
    "$os" merge "$one" -o "$two" >/dev/null 2>&1 || { bad "$golden: merge failed"; continue; }
    [ "$(sqlite3 "$one" "SELECT value FROM meta WHERE key = 'schema_version'")" = 1 ] &&
        [ "$(sqlite3 "$two" "SELECT value FROM meta WHERE key = 'schema_version'; PRAGMA user_version")" = "3
3" ] && [ "$(sqlite3 "$two" "SELECT type FROM sqlite_schema WHERE name = 'kernels'")" = view ] && good ||
        bad "$golden: the rewrite is not a current (version 3) trace"
    [ "$(sqlite3 "$one" "SELECT COUNT(*), SUM(end_ns - start_ns), SUM(grid_x * block_x) FROM kernels")" = \
      "$(sqlite3 "$two" "SELECT COUNT(*), SUM(end_ns - start_ns), SUM(grid_x * block_x) FROM kernels")" ] &&
        good || bad "$golden: kernels differ"
    same_output "$golden" "$one" "$two" report --json
    same_output "$golden" "$one" "$two" report
    same_output "$golden" "$one" "$two" check --min comm_overlap=0 --max exposed_comm_ms=1000000
    "$os" export "$one" --chrome "$dir/one.json" >/dev/null 2>&1 && "$os" export "$two" --chrome "$dir/two.json" >/dev/null 2>&1 &&
        [ "$(normalize "$one" "$two" <"$dir/one.json")" = "$(normalize "$one" "$two" <"$dir/two.json")" ] && good ||
        bad "$golden: export differs"
    rm -f "$dir/one.json" "$dir/two.json"
    same_output "$golden" "$one" "$two" diff "$one"
    [ "$("$os" info "$one" | sed 1d)" = "$("$os" info "$two" | sed 1d)" ] &&
        "$os" info "$one" | head -1 | grep -qF "(schema v1," && "$os" info "$two" | head -1 | grep -qF "(schema v3," &&
        good || bad "$golden: info differs beyond its first line, or names the wrong version"
    rm -f "$dir/one.png" "$dir/two.png"
    "$os" render "$one" -o "$dir/one.png" >/dev/null 2>&1 && "$os" render "$two" -o "$dir/two.png" >/dev/null 2>&1 &&
        cmp -s "$dir/one.png" "$dir/two.png" && good || bad "$golden: render differs"
    # Version 2 into version 2: merged again, the same report.
    "$os" merge "$two" -o "$again" >/dev/null 2>&1 && same_output "$golden again" "$one" "$again" report --json
    # Smaller: the same rows take fewer bytes (the goldens are small: fixed pages weigh much), not
    # counting the one page each table that version 1 lacks takes while empty.
    empty_pages=0
    for table in $(sqlite3 "$two" "SELECT name FROM sqlite_schema WHERE type = 'table'"); do
        sqlite3 "$one" "SELECT 1 FROM sqlite_schema WHERE name = '$table'" | grep -q 1 && continue
        [ "$(sqlite3 "$two" "SELECT COUNT(*) FROM \"$table\"")" = 0 ] && empty_pages=$((empty_pages + 1))
    done
    rows_bytes=$(( $(stat -c %s "$two") - empty_pages * $(sqlite3 "$two" "PRAGMA page_size") ))
    [ "$rows_bytes" -lt "$(stat -c %s "$one")" ] && good ||
        bad "$golden: version 2 is not smaller ($rows_bytes bytes without its $empty_pages empty tables vs $(stat -c %s "$one"))"
done

# A version 2 file whose view is not ours word for word, a view of its own, or compact tables of
# another shape: every reading command refuses it, naming the file.
v2="$dir/launch_bound_v2.db"
refused() { # $1 label, $2 file, $3 fragment
    local out rc
    for command in "info" "report" "export --chrome $dir/x.json" "merge -o $dir/m.db --force"; do
        out=$(timeout 60 "$os" $command "$2" 2>&1 >/dev/null); rc=$?
        [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -qF -- "$3" <<<"$out" &&
            grep -qF "$2" <<<"$out" && good || bad "$1: $command: rc=$rc, said: $out"
    done
}
cp "$v2" "$dir/view.db"
sqlite3 "$dir/view.db" "PRAGMA writable_schema = ON;
    UPDATE sqlite_schema SET sql = replace(sql, 'r.start_ns + r.duration_ns AS end_ns', 'r.start_ns AS end_ns')
    WHERE name = 'kernels'"
refused "a changed view" "$dir/view.db" "a view 'kernels' of its own"
cp "$v2" "$dir/extra.db"
sqlite3 "$dir/extra.db" "CREATE VIEW extra AS SELECT 1"
refused "a view of its own" "$dir/extra.db" "a view 'extra' of its own"
cp "$v2" "$dir/runs.db"
sqlite3 "$dir/runs.db" "ALTER TABLE kernel_runs ADD COLUMN extra INTEGER"
refused "kernel_runs of another shape" "$dir/runs.db" "table kernel_runs has other columns"
cp "$v2" "$dir/v1_claim.db"
sqlite3 "$dir/v1_claim.db" "UPDATE meta SET value = '1' WHERE key = 'schema_version'; PRAGMA user_version = 1"
refused "version 2 tables claiming version 1" "$dir/v1_claim.db" "'kernels' is a view, not a table"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
