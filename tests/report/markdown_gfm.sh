#!/usr/bin/env bash
# The Markdown of report, check and diff survives GitHub (issue 34 item 3): rendered by cmark-gfm
# with GitHub's extensions, every table cell, list item and heading of every golden trace reads
# exactly as the text it escapes (gfm_cells.py), and call sites named the way Python and C++ name
# them ("<module>", "<genexpr>", "__init__", "op[](int*)") stay visible, '|' and '`'
# included, on a golden trace whose every string is such a name.
set -u
os=${OVERLAPSCOPE:?}
data=${OVERLAPSCOPE_TEST_DATA:?}
here=$(dirname "$0")
command -v cmark-gfm >/dev/null || { echo "FAILED: cmark-gfm is not installed (scripts/install-deps.sh)"; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
render() { cmark-gfm -e table -e strikethrough -e autolink -e tagfilter "$1" >"$1.html"; }
cells_match() { render "$1" && python3 "$here/gfm_cells.py" "$1" "$1.html" >/dev/null; }
# The visible text of the HTML, tags dropped and entities decoded.
visible() {
    python3 -c 'import html, re, sys; print(html.unescape(re.sub(r"<[^>]*>", "", open(sys.argv[1]).read())))' "$1.html"
}

# A golden trace whose every string (kernel, API call, call site) is a name Markdown would eat.
cp "$data/gpu/copy_pinned.db" "$work/t.db"
python3 - "$work/t.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
name = "<module> <genexpr> __init__ op[](int*) `x` a|b &amp; ~T "
db.execute("UPDATE strings SET value = ? || id", (name,))
db.commit()
PY
$os report --markdown "$work/t.db" >"$work/report.md"
expect "hostile names: every cell renders as written" 'cells_match "$work/report.md"'
visible "$work/report.md" >"$work/report.txt"
for name in "<module>" "<genexpr>" "__init__" "op[](int*)" '`x`' "a|b" "&amp;" "~T"; do
    expect "hostile names: '$name' visible in the rendered report" 'grep -qF -- "$name" "$work/report.txt"'
done
$os check --markdown --max idle_ms=1 "$work/t.db" >"$work/check.md"
expect "hostile names: check's cells render as written" 'cells_match "$work/check.md"'
$os diff --markdown "$work/t.db" "$data/gpu/copy_pinned.db" >"$work/diff.md"
expect "hostile names: diff's cells render as written" 'cells_match "$work/diff.md"'

# Every golden trace's report; check and diff (the same cells, plus their own tables) on the
# recorded ones.
# (report imports a profiler trace into a cache beside it: copies keep the test data clean)
mkdir -p "$work/kineto"
for trace in "$data"/kineto*/*.json*; do
    cp "$trace" "$work/kineto/$(basename "$(dirname "$trace")")_$(basename "$trace")"
done
traces=("$data"/gpu*/*.db "$work"/kineto/*.json*)
# shellcheck source=../common/sample.sh
. "$(dirname "$0")/../common/sample.sh"
sample_traces
for trace in "${traces[@]}"; do
    [ -e "$trace" ] || continue
    base=$work/$(basename "$(dirname "$trace")")_$(basename "$trace")
    $os report --markdown "$trace" >"$base.report.md" 2>/dev/null
    expect "$trace: report --markdown renders as written" 'cells_match "$base.report.md"'
done
for trace in "$data"/gpu/*.db; do
    base=$work/$(basename "$trace")
    $os check --markdown --min stream_overlap=0.5 --max idle_ms=10 "$trace" >"$base.check.md" 2>/dev/null
    expect "$trace: check --markdown renders as written" 'cells_match "$base.check.md"'
    $os diff --markdown "$trace" "$trace" >"$base.diff.md" 2>/dev/null
    expect "$trace: diff --markdown renders as written" 'cells_match "$base.diff.md"'
done
expect "golden traces found" '[ "${#traces[@]}" -gt 20 ]'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
