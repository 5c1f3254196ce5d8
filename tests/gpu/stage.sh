#!/usr/bin/env bash
# Builds overlapscope here (CUDA toolkit present, no GPU) and stages what the GPU machine needs into
# .gpu/ (ignored by git, carried to the device): the build tree's binaries in their build-tree
# layout (.gpu/build/cli/overlapscope, .gpu/build/collector/..., .gpu/build/workloads/...) and the
# shared libraries they need that the GPU image may lack (.gpu/lib, found through RUNPATH
# $ORIGIN/../../lib, so the recorded programs themselves are not affected; DT_RPATH rather than
# RUNPATH because only DT_RPATH also serves the libraries' own dependencies, Cairo's pixman).
set -euo pipefail
cd "$(dirname "$0")/../.."
exclude=$(git rev-parse --git-path info/exclude); mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >> "$exclude"
# STAGE_BUILD_TYPE=Release stages an optimized build (bench/run.sh uses it: BENCH_BUILD=.gpu/build).
build_type=${STAGE_BUILD_TYPE:-RelWithDebInfo}
build_dir=build-gpu; [ "$build_type" = RelWithDebInfo ] || build_dir=build-gpu-$build_type
cmake -S . -B $build_dir -G Ninja -DCMAKE_BUILD_TYPE=$build_type \
      "-DCMAKE_BUILD_RPATH=\$ORIGIN/../../lib;/usr/local/cuda/lib64" \
      "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags" >/dev/null
cmake --build $build_dir -j "$(nproc)"
rm -rf .gpu && mkdir -p .gpu/build .gpu/lib
for dir in cli collector workloads tests/gpu bench; do
  [ -d $build_dir/$dir ] || continue
  mkdir -p .gpu/build/$dir
  find $build_dir/$dir -maxdepth 1 -type f \( -perm -u+x -o -name '*.so' \) -exec cp {} .gpu/build/$dir/ \;
done
# Libraries outside glibc and the CUDA toolkit (cJSON, Cairo and its dependencies, SQLite).
for binary in .gpu/build/cli/overlapscope; do
  ldd "$binary" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) ;;
      *) cp -L "$lib" .gpu/lib/ ;;
    esac
  done
done
du -sh .gpu
