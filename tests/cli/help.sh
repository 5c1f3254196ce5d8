#!/usr/bin/env bash
# The command's help surface: every subcommand has a manual reachable two ways; unknown
# commands fail with status 2.
set -u
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
os=$OVERLAPSCOPE
expect "--version prints the version" '[[ "$($os --version)" =~ ^overlapscope\ [0-9]+\.[0-9]+\.[0-9]+$ ]]'
expect "--help lists record" '$os --help | grep -q "^  record "'
expect "help info prints its manual" '$os help info | grep -q "^# overlapscope info"'
expect "info --help prints the same manual" '[ "$($os help info)" = "$($os info --help)" ]'
out=$($os frobnicate 2>&1); rc=$?
expect "unknown command exits 2" '[ $rc -eq 2 ]'
expect "unknown command is named" 'grep -q "no such command .frobnicate." <<<"$out"'
out=$($os help frobnicate 2>&1); rc=$?
expect "help of an unknown command exits 2" '[ $rc -eq 2 ]'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
