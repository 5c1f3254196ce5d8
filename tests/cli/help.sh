#!/usr/bin/env bash
# The command's help surface: every subcommand has a manual reachable two ways; unknown
# commands fail with status 2.
set -u
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
os=$OVERLAPSCOPE
expect "--version prints the version" '[[ "$($os --version)" =~ ^overlapscope\ [0-9]+\.[0-9]+\.[0-9]+$ ]]'
expect "--help lists record" '$os --help | grep -q "^  record "'
expect "help info prints its manual" '$os help info | grep -q "^OVERLAPSCOPE INFO$"'
# terminal text, not Markdown: 80 columns into a pipe (the import manual's table rows are 300
# characters of Markdown), no inline marks; help --man writes the roff page the build installs
width=$(LC_ALL=C.UTF-8 $os help import | LC_ALL=C.UTF-8 wc -L)
expect "help import fits 80 columns (it is $width)" '[ "$width" -le 80 ]'
# the command list too (every description after an 11-column name column)
width=$(LC_ALL=C.UTF-8 $os --help | LC_ALL=C.UTF-8 wc -L)
expect "--help fits 80 columns (it is $width)" '[ "$width" -le 80 ]'
for command in record info report check diff render import export merge; do
    width=$(LC_ALL=C.UTF-8 $os help $command | LC_ALL=C.UTF-8 wc -L)
    expect "help $command fits 80 columns (it is $width)" '[ "$width" -le 80 ]'
done
expect "help import drops the Markdown marks" '! $os help import | grep -q -e "\*\*" -e "\`" -e "^#"'
expect "help --man check is a roff page" '$os help --man check | head -1 | grep -q "^\.TH \"OVERLAPSCOPE\\\\-CHECK\" \"1\""'
expect "help --man writes overlapscope(1)" '$os help --man | grep -q "^\.SH COMMANDS"'
expect "info --help prints the same manual" '[ "$($os help info)" = "$($os info --help)" ]'
# the manuals speak to users: no internal issue numbers ("issue 2.8's target"); docs/security.md's
# table of guarantees cites its issue on purpose
docs=$(dirname "$0")/../../docs
expect "no internal issue references in the docs" '! grep -nE -i "issue [0-9]+" $(ls "$docs"/*.md | grep -v security.md)'
for command in record info report check diff render import export merge; do
    err=$($os $command --frob x.db 2>&1 >/dev/null); rc=$?
    expect "$command: an unknown option is named in one error line (and the hint)" '[ $rc -eq 2 ] && [ $(grep -c -- "--frob" <<<"$err") -eq 1 ] && [ $(wc -l <<<"$err") -eq 2 ]'
done
out=$($os frobnicate 2>&1); rc=$?
expect "unknown command exits 2" '[ $rc -eq 2 ]'
expect "unknown command is named" 'grep -q "no such command .frobnicate." <<<"$out"'
out=$($os help frobnicate 2>&1); rc=$?
expect "help of an unknown command exits 2" '[ $rc -eq 2 ]'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
