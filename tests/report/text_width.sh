#!/usr/bin/env bash
# The text report fits its terminal (and so does diff's): on every golden trace (tests/data/**/*.db,
# and each PyTorch profiler trace of tests/data/kineto*/, imported, plus two ranks' traces read as
# one folder), every line of `report` is at most 80 columns into a pipe and at most 100 with
# COLUMNS=100, with no trailing space; and nothing is lost to the fitting: each figure with its unit
# ("477 us", "32.0 MiB", "48.4%") is printed as often at 80 columns as at 100, where the text wraps
# elsewhere (a figure cut from its unit at either width would count as another). COLUMNS=100 is
# honored: copy_pageable's device table is one line there, wider than 80. The same for `diff` of
# every fourth golden trace recorded on the H100 against the next one (its causes and fixes).
set -u
os=${OVERLAPSCOPE:?}
data=${OVERLAPSCOPE_TEST_DATA:?}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ranks"
# (report imports a profiler trace into a cache beside it: copies keep tests/data clean)
for trace in "$data"/kineto*/*.json*; do
    cp "$trace" "$work/$(basename "$(dirname "$trace")")_$(basename "$trace")"
done
cp "$data"/kineto-h200/two_batch_ddp_rank*.json.gz "$work/ranks/"
python3 - "$os" "$data" "$work" <<'PY'
import collections, glob, os, re, subprocess, sys
overlapscope, data, work = sys.argv[1:4]
traces = sorted(glob.glob(os.path.join(data, "**", "*.db"), recursive=True))
traces += sorted(glob.glob(os.path.join(work, "*.json*")))
# OVERLAPSCOPE_TEST_SAMPLE=N (the sanitizer phase): every Nth trace; see tests/common/sample.sh.
every = int(os.environ.get("OVERLAPSCOPE_TEST_SAMPLE", "1"))
traces = traces[::every] + [os.path.join(work, "ranks")]
figure = re.compile(r"[-+]?\d+(?:\.\d+)?(?: (?:ns|us|ms|s|B|KiB|MiB|GiB|TiB|GB/s)\b|%)")

def report(trace, columns, command="report"):
    env = dict(os.environ, COLUMNS=str(columns))
    run = subprocess.run([overlapscope] + command.split() + trace.split("\t"), capture_output=True, env=env)
    return run.returncode, run.stdout.decode("utf-8")

h100 = sorted(glob.glob(os.path.join(data, "gpu-h100", "*.db")))
runs = [("report", trace) for trace in traces]
runs += [("diff", f"{a}\t{b}") for a, b in list(zip(h100, h100[1:]))[::4]]
problems, reported = [], 0
for command, trace in runs:
    name = command + " " + " ".join(os.path.relpath(t, data) if t.startswith(data) else os.path.basename(t)
                                    for t in trace.split("\t"))
    counts = {}
    for columns in (80, 100):
        status, text = report(trace, columns, command)
        if status != 0:  # the damaged traces of tests/data/bad, a trace of CPU work only
            break
        for number, line in enumerate(text.split("\n"), 1):
            if len(line) > columns or line.endswith(" "):
                problems.append(f"{name} at {columns} columns: line {number} is {len(line)} wide: {line!r}")
        counts[columns] = collections.Counter(figure.findall(text))
        if command == "diff":  # the metric table's figures end in the same column on every row
            table = text.split("\n\n")[1].split("\n") if "\n\n" in text else []
            ends = {len(line) for line in table if line.strip()}
            if len(ends) != 1:
                problems.append(f"{name} at {columns} columns: the metric rows end at columns {sorted(ends)}")
    if len(counts) < 2:
        continue
    reported += 1
    if counts[80] != counts[100]:
        differ = (counts[80] - counts[100]) + (counts[100] - counts[80])
        problems.append(f"{name}: figures differ between 80 and 100 columns: {dict(differ)}")
status, text = report(os.path.join(data, "gpu-h100", "copy_pageable.db"), 100)
widest = max(len(line) for line in text.split("\n"))
if not 80 < widest <= 100:
    problems.append(f"COLUMNS=100: copy_pageable's widest line is {widest}, expected 81 to 100")
for problem in problems[:40]:
    print("FAILED:", problem)
print(f"{reported} reports and diffs at 80 and 100 columns, {len(problems)} problems")
sys.exit(1 if problems or reported < 80 // every else 0)
PY
