#!/usr/bin/env bash
# docs/recording-with-torch-profiler.md: its script is valid Python that passes every option the
# page's table asks for, and the page names the profiler option exactly as the importer's
# import-no-cuda-sync warning does (a PyTorch 1.x trace has no cuda_sync events). The script itself
# runs on a GPU: tests/gpu/recording_doc.sh.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
doc="$here/../../docs/recording-with-torch-profiler.md"
bad() { echo "FAILED: $*"; fail=$((fail+1)); }
good() { pass=$((pass+1)); }

sed -n '/^```python$/,/^```$/p' "$doc" | sed '1d;$d' >"$dir/record_for_overlapscope.py"
python3 -m py_compile "$dir/record_for_overlapscope.py" && good || bad "the page's script does not compile"
for option in "ProfilerActivity.CPU, ProfilerActivity.CUDA" "_ExperimentalConfig(enable_cuda_sync_events=True)" \
    "with_stack=True" "schedule=schedule(wait=1, warmup=1, active=3)" "prof.step()" \
    'tensorboard_trace_handler("traces", worker_name=f"rank{rank}", use_gzip=True)'; do
    grep -qF "$option" "$dir/record_for_overlapscope.py" && good || bad "the script does not pass $option"
done

"$os" import "${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto/pytorch_1x_format.json" -o "$dir/1x.db" >/dev/null || bad "import"
warning=$("$os" info "$dir/1x.db" | grep import-no-cuda-sync)
option=$(grep -o 'experimental_config=[^ )]*([^)]*))' <<<"$warning")
[ -n "$option" ] && good || bad "no profiler option in the warning: $warning"
grep -qF "${option%)}" "$doc" && good || bad "the page does not name the warning's option $option"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
