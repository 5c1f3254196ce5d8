#!/usr/bin/env bash
# `overlapscope record` met with bad input, and finding its collector: each case is the command,
# the exit status a user sees and a fragment of the one line it prints. No GPU: the recorded
# programs here never start CUDA, so the collector is never loaded; they print the environment
# the collector would have read.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'chmod -R u+w "$dir"; rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
expect() { # name expected-rc fragment rc output
    if [ "$4" -eq "$2" ] && grep -qF -- "$3" <<<"$5"; then pass=$((pass+1)); else
        echo "FAILED: $1: rc=$4 (expected $2), said: $5"; fail=$((fail+1)); fi
}
collector_built=1
"$os" record -o "$dir/probe.db" -- true 2>"$dir/probe.err"; rc=$?
if grep -q "collector is not built" "$dir/probe.err"; then collector_built=0; fi

if [ $collector_built -eq 0 ]; then
    expect "not built" 2 "the collector is not built" $rc "$(cat "$dir/probe.err")"
    echo "$pass passed, $fail failed (collector not built: the rest needs it)"
    [ $fail -eq 0 ]; exit
fi
rm -f "$dir/probe.db"

out=$("$os" record 2>&1); expect "no program" 2 "no program given" $? "$out"
out=$("$os" record -o "$dir/a.db" 2>&1); expect "no program after -o" 2 "no program given" $? "$out"
out=$("$os" record --kinds kernel,bogus -o "$dir/a.db" -- true 2>&1); expect "bad kind" 2 "unknown activity kind 'bogus'" $? "$out"
out=$("$os" record --flush-ms 0 -- true 2>&1); expect "bad flush" 2 "--flush-ms" $? "$out"
out=$("$os" record -o "$dir/m.db" -- "$dir/no-such-program" 2>&1); expect "missing program" 127 "No such file or directory" $? "$out"
[ ! -e "$dir/m.db" ] && pass=$((pass+1)) || { echo "FAILED: an output was left for a program that never ran"; fail=$((fail+1)); }
printf 'not executable' >"$dir/script"; chmod -x "$dir/script"
out=$("$os" record -o "$dir/m.db" -- "$dir/script" 2>&1); expect "not executable" 126 "Permission denied" $? "$out"
mkdir "$dir/readonly"; chmod a-w "$dir/readonly"
if [ "$(id -u)" -ne 0 ]; then
    out=$("$os" record -o "$dir/readonly/x.db" -- true 2>&1); expect "unwritable output" 2 "cannot write" $? "$out"
fi
out=$("$os" record -o "$dir/nofolder/x.db" -- true 2>&1); expect "missing folder" 2 "cannot write '$dir/nofolder/x.db'" $? "$out"
out=$("$os" record -o "$dir" -- true 2>&1); expect "output is a folder" 2 "is a directory" $? "$out"

# A good run of a program without CUDA: the output exists, says nothing was recorded, and the job's
# status comes back; the collector is named relative to the overlapscope binary.
out=$("$os" record -o "$dir/env.db" -- sh -c 'env > "$0"; exit 3' "$dir/env.txt" 2>&1); expect "job status" 3 "wrote $dir/env.db: 0 processes" $? "$out"
grep -q "^CUDA_INJECTION64_PATH=$(dirname "$(dirname "$(readlink -f "$os")")")/collector/liboverlapscope-collector.so$" "$dir/env.txt" \
    && pass=$((pass+1)) || { echo "FAILED: CUDA_INJECTION64_PATH: $(grep INJECTION "$dir/env.txt")"; fail=$((fail+1)); }
# NVTX's injection is the collector too (it forwards to its own libcupti: collector.c).
grep -q "^NVTX_INJECTION64_PATH=$(dirname "$(dirname "$(readlink -f "$os")")")/collector/liboverlapscope-collector.so$" "$dir/env.txt" \
    && pass=$((pass+1)) || { echo "FAILED: NVTX_INJECTION64_PATH: $(grep NVTX "$dir/env.txt")"; fail=$((fail+1)); }
grep -q "^OVERLAPSCOPE_BUFFER_COUNT=" "$dir/env.txt" && { echo "FAILED: a buffer count set without --buffers"; fail=$((fail+1)); } || pass=$((pass+1))
"$os" record -o "$dir/buffers.db" --buffer-mb 32 --buffers 16 --device-buffer-mb 64 --kinds kernel -- sh -c 'env > "$0"' "$dir/buffers.txt" 2>/dev/null
for setting in OVERLAPSCOPE_BUFFER_BYTES=33554432 OVERLAPSCOPE_BUFFER_COUNT=16 OVERLAPSCOPE_DEVICE_BUFFER_BYTES=67108864 OVERLAPSCOPE_KINDS=kernel; do
    grep -qx "$setting" "$dir/buffers.txt" && pass=$((pass+1)) || { echo "FAILED: $setting not in the job's environment"; fail=$((fail+1)); }
done
grep -q "^NVTX_INJECTION64_PATH=" "$dir/buffers.txt" && { echo "FAILED: NVTX injection set without nvtx in --kinds"; fail=$((fail+1)); } || pass=$((pass+1))
out=$("$os" record --buffers 0 -- true 2>&1); expect "bad buffer count" 2 "--buffers expects a whole number" $? "$out"
out=$("$os" record --device-buffer-mb x -- true 2>&1); expect "bad device buffer" 2 "--device-buffer-mb expects" $? "$out"
# NCCL loads the collector as its profiler plugin (--nccl, the default); --no-nccl does not ask it
# to; a plugin the user chose stays theirs.
collector_path=$(sed -n 's/^CUDA_INJECTION64_PATH=//p' "$dir/env.txt")
grep -qx "NCCL_PROFILER_PLUGIN=$collector_path" "$dir/env.txt" && pass=$((pass+1)) \
    || { echo "FAILED: NCCL_PROFILER_PLUGIN: $(grep NCCL_PROFILER "$dir/env.txt")"; fail=$((fail+1)); }
env -u NCCL_PROFILER_PLUGIN "$os" record --no-nccl -o "$dir/nonccl.db" -- sh -c 'env > "$0"' "$dir/nonccl.txt" 2>/dev/null
grep -q "^NCCL_PROFILER_PLUGIN=" "$dir/nonccl.txt" && { echo "FAILED: --no-nccl set NCCL_PROFILER_PLUGIN"; fail=$((fail+1)); } || pass=$((pass+1))
NCCL_PROFILER_PLUGIN=inspector "$os" record -o "$dir/theirs.db" -- sh -c 'env > "$0"' "$dir/theirs.txt" 2>/dev/null
grep -qx "NCCL_PROFILER_PLUGIN=inspector" "$dir/theirs.txt" && pass=$((pass+1)) \
    || { echo "FAILED: the user's NCCL_PROFILER_PLUGIN was replaced: $(grep NCCL_PROFILER "$dir/theirs.txt")"; fail=$((fail+1)); }
grep -q "^OVERLAPSCOPE_OUTPUT_DIR=$dir/.overlapscope-record-" "$dir/env.txt" && pass=$((pass+1)) || { echo "FAILED: run folder: $(grep OUTPUT_DIR "$dir/env.txt")"; fail=$((fail+1)); }
ls -a "$dir" | grep -q overlapscope-record- && { echo "FAILED: the run folder was left behind"; fail=$((fail+1)); } || pass=$((pass+1))
out=$("$os" info "$dir/env.db" 2>&1); expect "info of the result" 0 "no-process" $? "$out"

out=$("$os" record -o "$dir/env.db" -- true 2>&1); expect "existing output" 2 "exists (use --force to overwrite)" $? "$out"
out=$("$os" record --force -o "$dir/env.db" -- sh -c 'kill -TERM $$' 2>&1); expect "killed job" 143 "killed by signal 15 (SIGTERM)" $? "$out"

# The program's arguments arrive as given: no shell re-parses them (docs/security.md).
"$os" record -o "$dir/args.db" -- "$(command -v printf)" '%s|' 'two words' "it's" '$(touch '"$dir"'/pwned)' '*' >"$dir/args.txt" 2>/dev/null
[ "$(cat "$dir/args.txt")" = "two words|it's|\$(touch $dir/pwned)|*|" ] && [ ! -e "$dir/pwned" ] && pass=$((pass+1)) \
    || { echo "FAILED: arguments changed: $(cat "$dir/args.txt")"; fail=$((fail+1)); }

# Two records into one output: the second is refused while the first runs.
"$os" record --force -o "$dir/busy.db" -- sleep 2 2>/dev/null & first=$!
sleep 0.5
out=$("$os" record --force -o "$dir/busy.db" -- true 2>&1); expect "concurrent record" 2 "another 'overlapscope record' is writing it" $? "$out"
wait $first

# The install tree: bin/overlapscope finds lib/overlapscope/liboverlapscope-collector.so.
mkdir -p "$dir/prefix/bin" "$dir/prefix/lib/overlapscope"
cp "$os" "$dir/prefix/bin/overlapscope"
cp "$(dirname "$(dirname "$(readlink -f "$os")")")/collector/liboverlapscope-collector.so" "$dir/prefix/lib/overlapscope/"
"$dir/prefix/bin/overlapscope" record -o "$dir/inst.db" -- sh -c 'echo "$CUDA_INJECTION64_PATH" > "$0"' "$dir/inst.txt" 2>/dev/null
[ "$(cat "$dir/inst.txt" 2>/dev/null)" = "$dir/prefix/lib/overlapscope/liboverlapscope-collector.so" ] && pass=$((pass+1)) \
    || { echo "FAILED: installed collector path: $(cat "$dir/inst.txt" 2>/dev/null)"; fail=$((fail+1)); }
rm "$dir/prefix/lib/overlapscope/liboverlapscope-collector.so"
out=$("$dir/prefix/bin/overlapscope" record -o "$dir/none.db" -- true 2>&1); expect "collector missing" 2 "cannot find liboverlapscope-collector.so" $? "$out"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
