#!/usr/bin/env bash
# Progress on a terminal: a reading command that imports a PyTorch trace for seconds shows
# "importing: NN%" on stderr when stderr is a terminal (a pseudo-terminal here), after two seconds,
# and cleans the line up; into a pipe it writes not one byte more than before, and stdout is the
# same bytes either way. (The analysis's own hook, analysis_options.progress, is tested in
# tests/analyzer/test_analysis_progress.c: a trace whose analysis runs two seconds is too large for
# a test.)
set -u
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d /tmp/overlapscope-progress-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# 400,000 launches and kernels: 165 MB of JSON, about 4 s to import on one core
python3 "$here/big_kineto.py" "$scratch/big.json" 400000

start=$(date +%s%N)
$os report "$scratch/big.json" >"$scratch/piped.txt" 2>"$scratch/piped.err"; rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect "report of the large trace exits 0" '[ $rc -eq 0 ]'
expect "the import ran longer than two seconds (${elapsed_ms} ms)" '[ $elapsed_ms -gt 2000 ]'
expect "into a pipe: stderr is the one line about the cache, no progress" \
    '[ "$(cat "$scratch/piped.err")" = "overlapscope: report: imported '"'$scratch/big.json'"' into '"'$scratch/big.json.overlapscope.db'"' (a cache, read again while '"'$scratch/big.json'"' is unchanged)" ]'
expect "into a pipe: no carriage return" '! grep -q $'"'"'\r'"'"' "$scratch/piped.err"'

rm -f "$scratch/big.json.overlapscope.db"
# No delay: whether progress shows must not depend on how fast this machine imports.
terminal=$(OVERLAPSCOPE_PROGRESS_DELAY_MS=0 python3 "$here/progress_pty.py" "$scratch/terminal.txt" $os report "$scratch/big.json")
expect "on a terminal: report exits 0" 'grep -q "^status 0$" <<<"$terminal"'
expect "on a terminal: stdout is the same bytes" 'cmp -s "$scratch/piped.txt" "$scratch/terminal.txt"'
expect "on a terminal: 'importing: NN%' shows" 'grep -qE "\\\\rimporting: +[0-9]+%" <<<"$terminal"'
# the percentages rise and never pass 100
percents=$(grep -oE "importing: +[0-9]+%" <<<"$terminal" | grep -oE "[0-9]+" | tr '\n' ' ')
expect "on a terminal: the percentages rise, at most 100 (${percents:-none})" \
    'python3 -c "import sys; p = [int(x) for x in sys.argv[1:]]; sys.exit(0 if len(p) >= 2 and p == sorted(p) and p[-1] <= 100 else 1)" $percents'
expect "on a terminal: the line is cleared, then the cache line follows" \
    'grep -qE "\\\\r +\\\\roverlapscope: report: imported" <<<"$terminal"'

# a short import (a small trace) shows nothing on a terminal either
small=$(cp "$OVERLAPSCOPE_TEST_DATA/kineto/simple_add_two_streams.json.gz" "$scratch/" &&
        python3 "$here/progress_pty.py" "$scratch/small.txt" $os report "$scratch/simple_add_two_streams.json.gz")
expect "a short import shows no progress" '! grep -q "importing:" <<<"$small" && grep -q "^status 0$" <<<"$small"'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
