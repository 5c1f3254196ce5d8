#!/usr/bin/env bash
# One command from a fresh machine to an answer: installs the build's Debian packages, builds
# overlapscope, then runs the main job, a report and a timeline, on an example.
#   - With a GPU (nvidia-smi works and the collector was built): records the reference workload
#     streams_saturate and explains why its two streams do not overlap.
#   - Without one: analyzes a real trace shipped in the repository (recorded on an H200 with
#     `overlapscope record`, see tests/data/gpu/README.md).
# Output goes to ./quickstart-out/.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install-deps.sh
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
os=./build/cli/overlapscope
out=quickstart-out
mkdir -p "$out"

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && [ -x build/workloads/streams_saturate ]; then
  echo "== GPU found: recording workloads/streams_saturate"
  $os record --force -o "$out/example.db" -- ./build/workloads/streams_saturate
else
  echo "== no GPU here: using the recorded example trace tests/data/gpu/streams_saturate.db"
  gzip -dc tests/data/gpu/streams_saturate.db.gz >"$out/example.db" # goldens are kept gzipped
fi
$os info "$out/example.db"
echo
$os report "$out/example.db"
$os render --force "$out/example.db" -o "$out/timeline.png"
echo
echo "timeline: $out/timeline.png   (also: $os report --json, --markdown; $os check; $os help)"
