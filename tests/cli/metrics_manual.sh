#!/usr/bin/env bash
# `overlapscope help metrics` and overlapscope-metrics(7) are written from the tool's tables: every
# metric name check accepts and every row of causes.def is in both, derived here from check's own
# list and from causes.def (a new row must show up without a test edit), in 80 columns.
set -u
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
def=$here/../../analyzer/causes/causes.def
text=$($os help metrics); rc=$?
expect "help metrics exits 0" '[ $rc -eq 0 ]'
width=$(LC_ALL=C.UTF-8 wc -L <<<"$text")
expect "help metrics fits 80 columns (it is $width)" '[ "$width" -le 80 ]'
man=$($os help --man metrics)
man_words=$(sed "s/\\\\f[BRI]//g" <<<"$man")
expect "help --man metrics is a section-7 page" 'head -1 <<<"$man" | grep -q "^\.TH \"OVERLAPSCOPE\\\\-METRICS\" \"7\""'
page=$OVERLAPSCOPE_BUILD_DIR/man/man7/overlapscope-metrics.7.gz
expect "the build wrote overlapscope-metrics.7.gz, the same page" '[ "$(zcat "$page")" = "$man" ]'
expect "the man page is plain ASCII" '! LC_ALL=C grep -q "[^ -~]" <<<"$man"'
if command -v groff >/dev/null; then
    warnings=$(groff -ww -man -Tutf8 <<<"$man" 2>&1 >/dev/null)
    expect "groff reads the page without a warning" '[ -z "$warnings" ]'
fi
# the names check accepts, from its own error message
names=$($os check --min no_such_metric=1 /dev/null 2>&1 | sed -n 's/.*(metrics: \(.*\))$/\1/p' | tr -d ' ' | tr ',' '\n')
count=$(grep -c . <<<"$names")
expect "check lists its metrics ($count)" '[ "$count" -ge 40 ]'
# the metric column of every cause row (WAIT/IDLE/COMM/COPY_CAUSE: the fourth argument)
rows=$(tr '\n' ' ' <"$def" | grep -oE '(WAIT|IDLE|COMM|COPY)_CAUSE\([A-Z_]+, *"[^"]*", *"[^"]*", *"[a-z_]+"' |
       sed -E 's/.*"([a-z_]+)"$/\1/')
rows_count=$(grep -c . <<<"$rows")
expect "causes.def has cause rows ($rows_count)" '[ "$rows_count" -ge 30 ]'
missing_text=""; missing_man=""; not_checkable=""
for name in $names $rows; do
    grep -qw -- "$name" <<<"$text" || missing_text="$missing_text $name"
    # roff escapes nothing in a metric name (letters and underscores)
    grep -qw -- "$name" <<<"$man_words" || missing_man="$missing_man $name"
done
for name in $rows; do grep -qx -- "$name" <<<"$names" || not_checkable="$not_checkable $name"; done
expect "every metric and cause row is in help metrics (missing:$missing_text)" '[ -z "$missing_text" ]'
expect "every metric and cause row is in the man page (missing:$missing_man)" '[ -z "$missing_man" ]'
expect "every cause row is a metric check accepts (not:$not_checkable)" '[ -z "$not_checkable" ]'
# every cause tag too (what report and the JSON print)
tags=$(tr '\n' ' ' <"$def" | grep -oE '(WAIT|IDLE|COMM|COPY)_CAUSE\([A-Z_]+, *"[^"]*"' | sed -E 's/.*"([^"]*)"$/\1/')
missing=""; for tag in $tags; do grep -q -- "(tag $tag)" <<<"$(tr '\n' ' ' <<<"$text" | tr -s ' ')" || missing="$missing $tag"; done
expect "every cause tag is in help metrics (missing:$missing)" '[ -z "$missing" ]'
expect "help metrics explains exposed copy" 'grep -q "A copy is exposed while no kernel of its device runs" <<<"$(tr "\n" " " <<<"$text")"'
expect "help metrics names docs/metrics.md as the long form" 'grep -q "docs/metrics.md is" <<<"$text"'
expect "overlapscope(1) refers to overlapscope-metrics(7)" '$os help --man | grep -q "metrics\\\\fR(7)"'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
