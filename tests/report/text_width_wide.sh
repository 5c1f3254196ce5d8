#!/usr/bin/env bash
# Wide characters (issue 34 item 3): a trace whose every name is Chinese, Japanese, Korean or emoji
# (two columns each on a terminal) still reports in 80 columns: every line of report and diff
# is at most 80 columns wide as a terminal shows it (Unicode's East Asian Width, what wcwidth
# counts), and every name is still there whole.
set -u
os=${OVERLAPSCOPE:?}
data=${OVERLAPSCOPE_TEST_DATA:?}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp "$data/gpu/copy_pinned.db" "$work/t.db"
python3 - "$work/t.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
names = ["数据加载器_前向传播_", "🔥🚀✅モデル学習ループ🔥🚀✅", "한국어_커널_이름_"]
db.execute("UPDATE strings SET value = CASE id % 3 WHEN 0 THEN ? WHEN 1 THEN ? ELSE ? END || id", names)
db.commit()
PY
for command in "report" "diff $work/t.db"; do
    COLUMNS=80 $os $command "$work/t.db" >"$work/out.txt" 2>&1 || { echo "FAILED: $command exits $?"; exit 1; }
    python3 - "$work/out.txt" "$command" <<'PY' || exit 1
import sys, unicodedata
def width(line):
    return sum(0 if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf")
               else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
text = open(sys.argv[1], encoding="utf-8").read()
wide = [(n, width(line), line) for n, line in enumerate(text.split("\n"), 1) if width(line) > 80]
for n, w, line in wide:
    print(f"FAILED: {sys.argv[2]}: line {n} is {w} columns: {line}")
assert sys.argv[2] != "report" or ("数据加载器" in text and "한국어" in text), "a name is missing"
sys.exit(1 if wide else 0)
PY
done
echo "report and diff fit 80 columns"
