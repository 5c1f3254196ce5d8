#!/usr/bin/env bash
# Every benchmark, each printing its figures and its ratio to a baseline measured in the same
# run. Build type Release; run it on a quiet machine (the figures in closing notes come from
# the GPU machine's idle CPU cores: a shared 2-core VM moves them by +-25%).
# Usage: bench/run.sh [OUTDIR] [PART...]  PARTs: writer analyzer analyzer10m render render10m import scaling
set -u
out=${1:-bench-out}
shift || true
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(writer analyzer analyzer10m render render10m import scaling)
cd "$(dirname "$0")/.."
mkdir -p "$out"
# BENCH_BUILD names a Release build tree made elsewhere (tests/gpu/stage.sh with
# STAGE_BUILD_TYPE=Release stages one as .gpu/build for a machine without the build's packages).
build=${BENCH_BUILD:-}
if [ -z "$build" ]; then
    build=build-bench
    generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S . -B $build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
        cmake --build $build -j"$(nproc)" --target bench_writer bench_analyzer bench_render bench_import bench_scaling overlapscope \
            >"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 2; }
fi
export OVERLAPSCOPE=$PWD/$build/cli/overlapscope
b=$build/bench
status=0
for part in "${parts[@]}"; do
    case $part in
    writer) cmd=("$b/bench_writer" 1000000 3) ;;
    analyzer) cmd=("$b/bench_analyzer" --intervals 1000000 --repeat 3) ;;
    analyzer10m) cmd=("$b/bench_analyzer" --intervals 10000000 --repeat 2) ;;
    render) cmd=("$b/bench_render" 1000000) ;;
    render10m) cmd=("$b/bench_render" 10000000) ;;
    import) cmd=("$b/bench_import" --size-mb 1024) ;;
    scaling) cmd=("$b/bench_scaling") ;;
    *) echo "unknown part $part"; status=2; continue ;;
    esac
    echo "######## $part: ${cmd[*]}"
    start=$(date +%s)
    timeout 400 "${cmd[@]}" 2>&1 | tee "$out/$part.txt"
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || status=1
    echo "(exit $rc, $(( $(date +%s) - start )) s)"
done
exit $status
