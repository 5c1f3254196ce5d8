#!/usr/bin/env bash
# Names that attack a terminal or break a format (issue 20 item 19): every string of a golden
# trace becomes ESC/OSC sequences, BEL, '|', a newline, CR, invalid UTF-8 and a C1 CSI, and
# the device name a screen-clearing sequence plus a Latin-1 byte. Each output must carry them
# escaped (text, Markdown) or repaired (JSON, pictures), byte for byte as common/text_safe.h says.
. "$(dirname "$0")/lib.sh"
cp "$OVERLAPSCOPE_TEST_DATA/gpu/copy_pinned.db" "$work/t.db"
python3 - "$work/t.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
evil = b'evil\x1b]0;pwned\x07\x1b[31mred|pipe\nnewline\r\xff\xfe\xc2\x9bend'
db.execute("UPDATE strings SET value = CAST(? || id AS TEXT)", (evil,))
db.execute("UPDATE devices SET name = CAST(? AS TEXT)", (b'GPU\x1b[2J\xe9',))
db.commit()
PY
# No ESC, BEL or CR byte and no invalid UTF-8 may reach a terminal.
raw_controls() { LC_ALL=C grep -q $'[\x1b\x07\r]' "$1"; }
valid_utf8() { python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null; }

$os info "$work/t.db" >"$work/info.txt"; rc=$?
expect "info exits 0" '[ $rc -eq 0 ]'
expect "info: the device name escaped in place" \
    'grep -qxF "  pid 830      device 0: GPU\\x1b[2J\\xe9, 132 SMs, cc 9.0, 32 blocks/64 warps/65536 regs/228 KiB shared per SM, 140 GiB" "$work/info.txt"'
expect "info: no raw control byte" '! raw_controls "$work/info.txt"'

$os report --all "$work/t.db" >"$work/report.txt"; rc=$? # the whole run: the line count below counts it
expect "report exits 0" '[ $rc -eq 0 ]'
# (the cause's summary and its evidence wrap at 80 columns between words, the evidence 7 columns
# in: the escaped name, one word, stays whole)
expect "report: the evidence names the API call escaped, on one line" \
    'grep -qxF "       evil\\x1b]0;pwned\\x07\\x1b[31mred|pipe\\x0anewline\\x0d\\xff\\xfe\\xc2\\x9bend23)" "$work/report.txt"'
expect "report: the late launch names its launch call whole, escaped (a kernel's short-name rule once cut it to 'pwned')" \
    'grep -qxF "       evil\\x1b]0;pwned\\x07\\x1b[31mred|pipe\\x0anewline\\x0d\\xff\\xfe\\xc2\\x9bend27" "$work/report.txt"'
expect "report: still 67 lines (no forged line; 7 the device table in two bands at 80 columns, 4 the evidence, 3 of them the cause's wrapped summary, 14 the idle-time section with its prose wrapped at 80 columns, 10 the exposed-copy section, 9 the what-if (two upper bounds wrapped, pinning the exposed pageable copy: no gain), 3 the overlap cost, 3 the largest wait wrapped under its loss)" '[ $(wc -l <"$work/report.txt") -eq 67 ]'
expect "report: no raw control byte" '! raw_controls "$work/report.txt"'
expect "report: valid UTF-8" 'valid_utf8 "$work/report.txt"'

$os report --markdown "$work/t.db" >"$work/report.md"
expect "markdown: the cause row keeps its 5 cells (what to do: the 5th) ('|' in a name escaped)" \
    '[ "$(grep "^| late launch" "$work/report.md" | sed "s/\\\\|//g" | tr -cd "|" | wc -c)" -eq 6 ]'
expect "markdown: the name written as escapes" 'grep -qF "evil\\x1b\\]0;pwned\\x07\\x1b\\[31mred\\|pipe\\x0anewline" "$work/report.md"'
expect "markdown: no raw control byte" '! raw_controls "$work/report.md"'

$os report --json "$work/t.db" >"$work/report.json"; rc=$?
expect "report --json exits 0" '[ $rc -eq 0 ]'
# The name as JSON must carry it: controls kept (as JSON escapes), each invalid byte one U+FFFD.
json_holds_name() {
    python3 - "$1" <<'PY'
import json, sys
def strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value)
document = json.load(open(sys.argv[1], encoding="utf-8"))
name = "evil\x1b]0;pwned\x07\x1b[31mred|pipe\nnewline\r\ufffd\ufffd\x9bend"
sys.exit(0 if any(name in text for text in strings(document)) else 1)
PY
}
expect "report --json: valid JSON holding the repaired name" 'json_holds_name "$work/report.json"'

$os export "$work/t.db" --chrome "$work/t.json" >/dev/null; rc=$?
expect "export exits 0" '[ $rc -eq 0 ]'
expect "export: valid JSON holding the repaired name" 'json_holds_name "$work/t.json"'

$os render "$work/t.db" -o "$work/t.png" >/dev/null 2>"$work/render.err"; rc=$?
expect "render draws names that are not UTF-8 (exit 0, a PNG)" '[ $rc -eq 0 ] && [ -s "$work/t.png" ]'
$os render "$work/t.db" -o "$work/t.svg" >/dev/null 2>&1
expect "render: the SVG is valid UTF-8 without raw controls" 'valid_utf8 "$work/t.svg" && ! raw_controls "$work/t.svg"'

# An error line quoting a hostile file name stays one line without control bytes.
bad="$work/x"$'\x1b[31m\n'"y.db"
$os report "$bad" 2>"$work/err.txt"; rc=$?
expect "a missing file: exit 2" '[ $rc -eq 2 ]'
expect "a missing file: one line, the name escaped" \
    '[ $(wc -l <"$work/err.txt") -eq 1 ] && grep -qF "x\\x1b[31m\\x0ay.db" "$work/err.txt" && ! raw_controls "$work/err.txt"'

# Every other line that quotes a file name or a trace's text (second red-team pass of issue 33):
# the cache notes of a command given a Kineto trace, the writers' summaries (import, render, export,
# merge) and render --verbose's title went out raw: a file name could clear the screen or set the
# terminal's title. Each stays one line, escaped.
K="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto"
name=$'e\x1b]0;pwned\x07\x1b[2J\nX'
mkdir "$work/names" && cd "$work/names" || exit 2
cp "$K/nccl_data.json.gz" "$name.json.gz"
# quiet NAME COMMAND...: the command's stdout and stderr hold no raw control and as many lines as
# without the hostile name's newline would (no forged line).
quiet() {
    local label=$1; shift
    "$@" >out.txt 2>&1
    expect "$label: no raw control byte" '! raw_controls out.txt'
    expect "$label: the name escaped" 'grep -qF "e\\x1b]0;pwned\\x07\\x1b[2J\\x0aX" out.txt'
}
quiet "the first read's cache note" $os info "$name.json.gz"
quiet "the cached read's note" $os report "$name.json.gz"
quiet "import's summary" $os import "$name.json.gz" -o "$name.db"
quiet "render's summary" $os render "$name.db" -o "$name.png"
quiet "export's summary" $os export "$name.db" --chrome "$name.json"
cp "$name.db" other.db
quiet "merge's summary" $os merge other.db "$name.db" -o "m$name.db"
cp "$work/t.db" "$work/cl.db"
sqlite3 "$work/cl.db" "UPDATE meta SET value = CAST(x'707974686f6e1b5d303b70776e65640720747261696e2e70790a2d2d6c72' AS TEXT) WHERE key = 'command'"
$os render "$work/cl.db" -o "$work/v.png" --verbose >"$work/verbose.txt" 2>&1
# (a guard: the layout already drew the command line's controls as U+FFFD, and printed them so)
expect "render --verbose: the title's line without raw controls" \
    'grep -q "^title: python.*]0;pwned.* train.py.*--lr\$" "$work/verbose.txt" && ! raw_controls "$work/verbose.txt"'
finish
