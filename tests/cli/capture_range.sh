#!/usr/bin/env bash
# record --capture-range, --delay, --duration on any machine (the GPU side: tests/gpu/capture_range.sh):
# each wrong value is one line naming the option and the problem (and the usual hint), exit 2,
# before any job starts; a trace whose meta says what was captured gets one "captured:" line in
# info, report and render, and a trace without it (every golden) none.
set -u
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
os=$OVERLAPSCOPE
scratch=$(mktemp -d /tmp/overlapscope-capture-XXXXXX)
trap 'rm -rf "$scratch"' EXIT

refused() { # ARGS... ; EXPECTED is the error line
    local expected=$1; shift
    err=$($os record -o "$scratch/never.db" "$@" -- touch "$scratch/ran" 2>&1 >/dev/null); rc=$?
    expect "record $*: exit 2 ($rc)" '[ $rc -eq 2 ]'
    expect "record $*: '$expected'" '[ "$(head -1 <<<"$err")" = "overlapscope: record: $expected" ] && [ $(wc -l <<<"$err") -eq 2 ]'
    expect "record $*: no job ran, no trace" '[ ! -e "$scratch/ran" ] && [ ! -e "$scratch/never.db" ]'
}
refused "--capture-range: 'cudaprofilerapi' is neither cudaProfilerApi nor nvtx:NAME[@COUNT]" --capture-range=cudaprofilerapi
refused "--capture-range: 'nvtx:' names no NVTX range (nvtx:NAME or nvtx:NAME@COUNT)" --capture-range nvtx:
refused "--capture-range: 'nvtx:step@0': the count after '@' must be a whole number of at least 1, not '0'" --capture-range=nvtx:step@0
refused "--delay: '-1' seconds is out of range (more than 0, at most a week)" --delay=-1
refused "--duration: 'abc' is not a number of seconds (2, 0.5 or 1.5s)" --duration abc
refused "--duration: '5ms' is not a number of seconds (2, 0.5 or 1.5s)" --duration 5ms
refused "--delay given twice ('1', then '2'): give it once" --delay 1 --delay 2
refused "--delay: '--' is not a number of seconds (2, 0.5 or 1.5s)" --delay

# the note, from the meta rows the collector and record_merge write
cp "$OVERLAPSCOPE_TEST_DATA"/gpu-h100/copy_opposite.db "$scratch/whole.db"
for command in info report; do
    expect "$command of a trace recorded in full says nothing of a capture" '! $os $command "$scratch/whole.db" | grep -q "captured"'
done
cp "$scratch/whole.db" "$scratch/part.db"
python3 - "$scratch/part.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
    ("capture_range", "cudaProfilerApi"),
    # two processes' windows, overlapping for 0.1 s, and one past the job's end (clipped)
    ("capture_windows", "1000000000:1500000000,1400000000:1600000000,2000000000:2640000000,9700000000:9900000000"),
    ("capture_process", "0:9800000000")])
db.commit()
PY
line="cudaProfilerStart..Stop, 4 ranges, 1.340 s of 9.800 s"
expect "info: 'captured:  $line'" '$os info "$scratch/part.db" | grep -qxF "captured:  $line"'
expect "report: the lines under the report" '[ "$($os report "$scratch/part.db" | tail -2)" = "captured: $line
  (the figures cover only what was captured)" ]'
expect "report --json stays JSON" '$os report --json "$scratch/part.db" | python3 -c "import json,sys; json.load(sys.stdin)"'
expect "render: the line after the picture's" '$os render "$scratch/part.db" -o "$scratch/part.png" | grep -qxF "captured: $line (the picture shows only that)"'
python3 - "$scratch/part.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
    ("capture_range", "nvtx:train step@1, delay 2 s"), ("capture_windows", "3000000000:3250000000"),
    ("capture_process", "1000000000:5000000000")])
db.commit()
PY
expect "info: an NVTX range with a count and a delay" '$os info "$scratch/part.db" | grep -qxF "captured:  nvtx:train step@1, delay 2 s, 1 range, 250 ms of 4.000 s"'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
