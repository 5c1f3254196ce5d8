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
finish
