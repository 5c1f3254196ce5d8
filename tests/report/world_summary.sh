#!/usr/bin/env bash
# A world of many ranks (issue 35 item 5): past 16 devices the text and Markdown report summarize
# them (docs/overlapscope-report.md, "Many ranks"). On a generated 20-rank DDP job whose rank 13
# starts every step late (bench/gen_ddp_ranks.py): each figure's min, median, p90 and max, and the
# ranks holding min and max, are computed here from report --json and must be the cells of those
# devices' own rows in report --all-rows; the ranks at either end and the straggler are named;
# 16 ranks still get a row each; --rank shows one rank's full rows; every line fits 80 columns;
# the Markdown renders as written (cmark-gfm, when installed); the JSON keeps every device and its
# "world" holds the same statistics (validated against docs/schema/report.json).
set -u
os=${OVERLAPSCOPE:?}
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "SKIPPED: no python3"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }

job() { # job NAME RANKS: a generated job imported into NAME.db
    mkdir "$work/$1"
    python3 "$here/../../bench/gen_ddp_ranks.py" "$work/$1" "$2" --activities 1500 --late-rank 13 --jobs 1 &&
        "$os" import "$work/$1" -o "$work/$1.db" >/dev/null 2>&1
}
job world 20 || { echo "FAILED: the generated job did not import"; exit 1; }
job small 16 || { echo "FAILED: the 16-rank job did not import"; exit 1; }

COLUMNS=80 "$os" report "$work/world.db" >"$work/world.txt"
"$os" report --markdown "$work/world.db" >"$work/world.md"
"$os" report --markdown --all-rows "$work/world.db" >"$work/rows.md"
"$os" report --json "$work/world.db" >"$work/world.json"

expect "the summary in 80 columns" '! awk "length > 80" "$work/world.txt" | grep -q .'
expect "the summary says what it left out and how to see it" \
    'tr -s "\n " "  " <"$work/world.txt" | grep -q "20 devices, summarized (more than 16): report --rank N shows a rank.s own rows, --all-rows every device.s; --json and --csv list every device"'
expect "no device row in the summary" '! grep -qE "^1[0-9] +0 +[0-9]" "$work/world.txt"'
expect "the straggler named" 'grep -q "^  straggler: rank 13: rank 13 arrived last" "$work/world.txt"'
expect "the late rank has the least busy time" 'grep -q "^  lowest busy  *rank 13 " "$work/world.txt"'
expect "the late rank has the most idle time" 'grep -q "^  most idle  *rank 13 " "$work/world.txt"'
expect "the streams by role" 'grep -qE "^  compute +20 " "$work/world.txt" && grep -qE "^  nccl +20 " "$work/world.txt"'
expect "each 'could not be checked' line once" \
    '[ "$(grep -c "could not be checked on 20 processes (rank 0, rank 1, rank 2 and 17 more)" "$work/world.txt")" -ge 1 ] &&
     ! grep -q "could not be checked on rank 5" "$work/world.txt"'
expect "the JSON keeps every device" \
    '[ "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))[\"devices\"]))" "$work/world.json")" = 20 ]'

# The distribution, computed here from the JSON, against the --all-rows rows of the devices chosen.
if out=$(python3 - "$work/world.json" "$work/world.md" "$work/rows.md" <<'PY' 2>&1
import json, sys
devices = json.load(open(sys.argv[1]))["devices"]
def table(path, first):
    lines = [l for l in open(path) if l.startswith("| " + first + " |")]
    start = open(path).read().split("\n").index(lines[0].rstrip("\n"))
    rows = []
    for line in open(path).read().split("\n")[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip()[1:-1].split("|")])
    return rows
summary = {row[0]: row[1:] for row in table(sys.argv[2], "20 devices")}
rows = table(sys.argv[3], "rank")
assert len(rows) == 20, len(rows)
cell = {(int(r[0]), int(r[1])): r[2:] for r in rows}
# figure -> (part, whole or None): the overview table's columns, docs/overlapscope-report.md
figures = [("span_ns", None), ("busy_ns", "span_ns"), ("kernel_busy_ns", "span_ns"), ("idle_ns", None),
           ("stream_pair_overlap_ns", "stream_pair_possible_ns"), ("communication_ns", None),
           ("exposed_communication_ns", None), ("compute_communication_overlap_ns", "communication_ns"),
           ("copy_compute_overlap_ns", "copy_compute_possible_ns"), ("exposed_copy_ns", None),
           ("lost_ns", None), ("headroom_ns", None)]
problems = []
for f, (part, whole) in enumerate(figures):
    have = [(d[part] / d[whole] if whole else d[part], i) for i, d in enumerate(devices) if not whole or d[whole]]
    if not have:
        continue
    ordered = sorted(have)
    n = len(ordered)
    low = ordered[0][1]
    high = min(i for v, i in have if v == ordered[-1][0])
    picks = {"min": low, "median": ordered[(n - 1) // 2][1], "p90": ordered[-(-9 * n // 10) - 1][1], "max": high}
    for stat, i in picks.items():
        want = cell[(devices[i]["rank"], devices[i]["device_id"])][f]
        if summary[stat][f] != want:
            problems.append("%s of %s: %r, the row of rank %d says %r" % (stat, part, summary[stat][f], devices[i]["rank"], want))
    for stat, i in (("min at", low), ("max at", high)):
        if summary[stat][f] != str(devices[i]["rank"]):
            problems.append("%s of %s: %r, not rank %d" % (stat, part, summary[stat][f], devices[i]["rank"]))
    # the JSON's "world" holds the same devices and values
    figure = json.load(open(sys.argv[1]))["world"]["figures"][["span_ns", "busy", "kernels", "idle_ns", "stream_overlap",
        "communication_ns", "exposed_communication_ns", "comm_overlap", "copy_overlap_of_possible",
        "exposed_copy_ns", "lost_ns", "headroom_ns"][f]]
    for stat, i in picks.items():
        want = [v for v, j in have if j == i][0]
        if figure[stat] != want:
            problems.append("JSON %s of %s: %r, not %r" % (stat, part, figure[stat], want))
    if (figure["min_index"], figure["max_index"], figure["devices"]) != (low, high, n):
        problems.append("JSON %s: min_index %r max_index %r devices %r" % (part, figure["min_index"], figure["max_index"], figure["devices"]))
busy = sorted((d["busy_ns"] / d["span_ns"], d["rank"]) for d in devices)
if busy[0][1] != 13 or summary["min at"][1] != "13":
    problems.append("the least busy rank: %r, the summary says %r" % (busy[0], summary["min at"][1]))
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
); then pass=$((pass+1)); else echo "FAILED: the distribution against the rows: $out"; fail=$((fail+1)); fi

if python3 -c 'import jsonschema' 2>/dev/null; then
    "$os" report --json "$work/small.db" >"$work/small.json"
    expect "the JSON with its world validates" \
        'python3 "$here/schema_validate.py" "$here/../../docs/schema" report="$work/world.json" report="$work/small.json" >/dev/null'
    expect "16 devices: no world in the JSON" \
        'python3 -c "import json,sys; sys.exit(\"world\" in json.load(open(sys.argv[1])))" "$work/small.json"'
fi

# The threshold: 16 devices keep a row each, 20 are summarized unless --all-rows.
COLUMNS=80 "$os" report "$work/small.db" >"$work/small.txt"
expect "16 devices: a row each" '[ "$(grep -cE "^[0-9]+ +0 +[0-9.]+ ms +[0-9.]+% +[0-9.]+% " "$work/small.txt")" = 16 ] && ! grep -q "^min at" "$work/small.txt"'
expect "20 devices: summarized" 'grep -q "^min at" "$work/world.txt"'
COLUMNS=80 "$os" report --all-rows "$work/world.db" >"$work/all.txt"
expect "--all-rows: a row each" '[ "$(grep -cE "^[0-9]+ +0 +[0-9.]+ ms +[0-9.]+% +[0-9.]+% " "$work/all.txt")" = 20 ] && ! grep -q "^min at" "$work/all.txt"'
expect "--all-rows: every device's idle breakdown" '[ "$(grep -c "^  GPU idle .* on rank [0-9]* device 0" "$work/all.txt")" = 20 ]'
COLUMNS=80 "$os" report --rank 13 "$work/world.db" >"$work/rank.txt"
expect "--rank 13: its full row and streams" \
    'grep -qE "^13 +0 +[0-9.]+ ms" "$work/rank.txt" && grep -qE "^  rank 13 +0 +7 +compute" "$work/rank.txt" && ! grep -q "^min at" "$work/rank.txt"'
expect "--all-rows is the report's default below the threshold" \
    'cmp -s "$work/small.txt" <(COLUMNS=80 "$os" report --all-rows "$work/small.db")'

if command -v cmark-gfm >/dev/null; then
    cmark-gfm -e table -e strikethrough -e autolink -e tagfilter "$work/world.md" >"$work/world.html"
    expect "the Markdown summary renders as written" 'python3 "$here/gfm_cells.py" "$work/world.md" "$work/world.html" >/dev/null'
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
