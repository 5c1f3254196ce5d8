#!/usr/bin/env bash
# Resource bombs (issue 20 items 14, 15, 17, 18): hostile inputs written by small generators,
# scaled down to run in seconds; each asserts a bound (peak memory from /usr/bin/time, or a time
# far below what the old quadratic or unbounded code took at this size) and the one line that
# names the limit (docs/security.md lists them).
. "$(dirname "$0")/lib.sh"
# run NAME COMMAND...: runs with stdout/stderr in $work/NAME.{out,err}; sets rc, peak_kb and seconds
# (CPU time, user + system: the machine running the tests may be busy with other work).
run() {
    local name=$1; shift
    /usr/bin/time -f "%M %U %S" -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    local user system
    read -r peak_kb user system < <(tail -n 1 "$work/$name.time")
    seconds=$(python3 -c "print($user + $system)")
}
# Sanitizer builds keep shadow memory and redzones: their bounds are looser, the verdict the same;
# ASan's quarantine of freed memory (256 MB by default) is made small so that peaks mean use.
memory_scale=1
if [ -n "${OVERLAPSCOPE_BUILD_DIR:-}" ] && grep -qi "OVERLAPSCOPE_SANITIZE:BOOL=ON" "$OVERLAPSCOPE_BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
    memory_scale=4
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
fi
under_mb() { [ "$peak_kb" -lt $(( $1 * 1024 * memory_scale )) ]; }
under_s() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) * $memory_scale else 1)" "$seconds" "$1"; }

# --- item 18: a gzip holding one unterminated 64 MiB string (64 KiB compressed). Unbounded, the
# string grew by doubling to 128 MiB before the end of input was noticed (the 16 MB gzip of the
# report decompressed to 16 GB: 8.4 GB RSS); now one string stops at 4 MiB.
python3 - "$work/string.json.gz" <<'PY'
import gzip, sys
with gzip.open(sys.argv[1], "wb") as f:
    f.write(b'{"traceEvents":[{"ph":"X","name":"')
    chunk = b"a" * (1 << 20)
    for _ in range(64):
        f.write(chunk)
PY
run string "$os" import "$work/string.json.gz" -o "$work/string.db"
expect "a 64 MiB JSON string: exit 2" '[ $rc -eq 2 ]'
expect "a 64 MiB JSON string: one line naming the file and the limit" \
    '[ $(wc -l <"$work/string.err") -eq 1 ] && grep -q "string.json.gz: byte [0-9]*: a string over the limit of 4 MiB" "$work/string.err"'
expect "a 64 MiB JSON string: peak memory under 48 MB (was 150 MB)" 'under_mb 48'

# One event whose tree is 3 million array elements (6 MB of text, 190 MB of tree unbounded).
python3 - "$work/tree.json" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"traceEvents":[{"ph":"X","name":"k","args":{"shape":[' + "1," * 3000000 + '1]}}]}')
PY
run tree "$os" import "$work/tree.json" -o "$work/tree.db"
expect "a 3M-element event: exit 2, one line naming the limit" \
    '[ $rc -eq 2 ] && [ $(wc -l <"$work/tree.err") -eq 1 ] && grep -q "tree.json: byte [0-9]*: one trace event (or top-level member) over the limit of 64 MiB" "$work/tree.err"'
expect "a 3M-element event: peak memory under 100 MB (was 250 MB)" 'under_mb 100'

# --- item 17: 20,000 NVTX ranges in named domains, the domain registrations last. The per-row
# domain lookup scanned the whole table: 24 s on the dev VM; now 0.5 s.
python3 "$here/generators/nsys_nvtx_domains.py" "$work/nvtx.sqlite" 20000
run nvtx "$os" import "$work/nvtx.sqlite" -o "$work/nvtx.db"
expect "20k NVTX ranges in domains: imported" '[ $rc -eq 0 ] && grep -q "20000 NVTX ranges" "$work/nvtx.out"'
expect "20k NVTX ranges in domains: each range keeps its domain's name" \
    '[ "$(sqlite3 "$work/nvtx.db" "SELECT COUNT(*) FROM nvtx n JOIN strings s ON s.id = n.domain_id WHERE s.value = '"'domain 3'"'")" = 1250 ]'
expect "20k NVTX ranges in domains: under 5 s (was 24 s)" 'under_s 5'

# --- item 14: 100,000 kernels, each on a stream of its own (the overview is built from 100k rows
# on). The overview's 256 MiB budget stopped halving columns at 4096: 12 GB of RAM and 1.3 GB
# written. Now it goes down to 1024 columns, and past the budget the trace keeps no overview
# and says why; the stream list is hashed (it was scanned per kernel).
python3 "$here/generators/kineto_many_lanes.py" "$work/streams.json" 100000 streams
run streams "$os" import "$work/streams.json" -o "$work/streams.db"
expect "100k streams: imported" '[ $rc -eq 0 ] && grep -q "100000 kernels" "$work/streams.out"'
expect "100k streams: peak memory under 64 MB" 'under_mb 64'
expect "100k streams: the trace under 24 MB (the JSON is 15 MB)" '[ $(stat -c %s "$work/streams.db") -lt $((24 << 20)) ]'
expect "100k streams: no overview, and a warning naming the limit" \
    '"$os" info "$work/streams.db" | grep -qF "overview-skipped: no overview for fast pictures: 100000 streams on 1 devices pass the limit of 256 MiB even at 1024 columns (docs/security.md)"'

# --- item 15: a device per kernel. The renderer's device list was a linear scan per lane and its
# per-column accumulators had no bound (80k devices: 16.9 GB, then a picture too tall to make);
# now the canvas stops at its 256 MiB budget with one line.
python3 "$here/generators/kineto_many_lanes.py" "$work/devices.json" 5000 devices
"$os" import "$work/devices.json" -o "$work/devices.db" >/dev/null
run render_devices "$os" render "$work/devices.db" -o "$work/devices.png"
expect "5000 devices: render refuses (exit 2), no picture" '[ $rc -eq 2 ] && [ ! -e "$work/devices.png" ]'
expect "5000 devices: one line naming the file and the limit" \
    '[ $(wc -l <"$work/render_devices.err") -eq 1 ] && grep -q "devices.db: more lanes than one picture holds: [0-9]* stream lanes on [0-9]* devices (and 0 host lanes) at [0-9]* columns reach the limit of 256 MiB (docs/security.md); draw fewer with --rank or --window" "$work/render_devices.err"'
expect "5000 devices: peak memory under 320 MB (was 1 GB)" 'under_mb 320'
run render_window "$os" render "$work/devices.db" -o "$work/window.png" --window 0us:50us
expect "5000 devices: a window of 51 of them is drawn" '[ $rc -eq 0 ] && grep -q "51 stream lanes" "$work/render_window.out"'
run report_devices "$os" report --all-rows "$work/devices.db"
expect "5000 devices: report --all-rows lists every device (once in each of the table's two bands at 80 columns)" '[ $rc -eq 0 ] && [ $(grep -c "^pid 0 " "$work/report_devices.out") -eq 10000 ]'
run report_summary "$os" report "$work/devices.db"
expect "5000 devices: report summarizes them (report/world.h)" '[ $rc -eq 0 ] && grep -q "^5000 devices, summarized (more than 16)" "$work/report_summary.out" && ! grep -q "^pid 0 " "$work/report_summary.out"'

# 3,000 streams fit the canvas's budget but not a picture: refused before painting, in every format.
python3 "$here/generators/kineto_many_lanes.py" "$work/tall.json" 3000 streams
"$os" import "$work/tall.json" -o "$work/tall.db" >/dev/null
run tall "$os" render "$work/tall.db" -o "$work/tall.svg"
expect "3000 streams: render refuses a picture over 30000 px, one line, no file" \
    '[ $rc -eq 2 ] && [ ! -e "$work/tall.svg" ] && [ $(wc -l <"$work/tall.err") -eq 1 ] && grep -q "tall.db: 3000 lanes make a picture [0-9]* px tall, over the limit of 30000 px (docs/security.md)" "$work/tall.err"'

# 40,000 streams on one device: the analyzer's stream lookup and its search for the stream a
# kernel waited on scanned every stream per kernel (13 s on the dev VM); now 0.5 s.
python3 "$here/generators/kineto_many_lanes.py" "$work/streams40k.json" 40000 streams
"$os" import "$work/streams40k.json" -o "$work/streams40k.db" >/dev/null
run report_streams "$os" report "$work/streams40k.db"
expect "40k streams: report in under 5 s (was 13 s)" '[ $rc -eq 0 ] && under_s 5'

# Nsight Systems exports choose their process and hardware-channel ids per row: the importer's
# process list and the explainer's channel list were scanned per row (100k processes: 3.8 s of
# CPU, 40k channels: 5.3 s; now 1.0 s and 0.3 s).
python3 "$here/generators/nsys_many_ids.py" "$work/processes.sqlite" 100000 processes
run processes "$os" import "$work/processes.sqlite" -o "$work/processes.db"
expect "100k processes: imported in under 2.5 s" '[ $rc -eq 0 ] && grep -q "100000 processes" "$work/processes.out" && under_s 2.5'
python3 "$here/generators/nsys_many_ids.py" "$work/channels.sqlite" 40000 channels
"$os" import "$work/channels.sqlite" -o "$work/channels.db" >/dev/null
run channels "$os" report "$work/channels.db"
expect "40k channels: report in under 2 s" '[ $rc -eq 0 ] && under_s 2'

# --- item 5: names as long as the input allows are stored cut at 4 KiB, and counted.
python3 - "$work/names.json" <<'PY'
import json, sys
events = [{"ph": "X", "cat": "kernel", "name": "%d" % i + "k" * (1 << 20), "pid": 0, "tid": 7, "ts": 1000.0 + i,
           "dur": 1.0, "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(20)]
json.dump({"traceEvents": events}, open(sys.argv[1], "w"))
PY
run names "$os" import "$work/names.json" -o "$work/names.db"
expect "20 names of 1 MiB: imported, the trace under 1 MB (was 20 MB)" \
    '[ $rc -eq 0 ] && [ $(stat -c %s "$work/names.db") -lt $((1 << 20)) ]'
expect "20 names of 1 MiB: each stored as 4096 bytes and the marker" \
    '[ "$(sqlite3 "$work/names.db" "SELECT COUNT(*) FROM strings WHERE length(value) = 4096 + 8 AND value LIKE '"'%...[cut]'"'")" = 20 ]'
expect "20 names of 1 MiB: one warning counts them" \
    '"$os" info "$work/names.db" | grep -qxF "  text-cut: 20 names or texts longer than 4096 bytes stored cut, ending in \"...[cut]\""'

finish
