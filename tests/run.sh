#!/usr/bin/env bash
# The test command (README): checks that every C file follows .clang-format, builds overlapscope
# with warnings as errors and runs every test, then
# builds again with AddressSanitizer and UndefinedBehaviorSanitizer and runs every test there too,
# then runs each libFuzzer target for a bounded number of inputs when clang is available.
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
jobs=$(nproc)

# The checked-in style is the one in force: a file that drifts from .clang-format fails here
# (clang-format -i FILE fixes it).
if command -v clang-format >/dev/null; then
  echo "== clang-format"
  git ls-files -z '*.c' '*.h' | xargs -0 clang-format --dry-run -Werror
else
  echo "== clang-format not installed: style not checked (scripts/install-deps.sh installs it)"
fi

echo "== build and test (RelWithDebInfo)"
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== build and test under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-sanitize "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug -DOVERLAPSCOPE_SANITIZE=ON \
      -DOVERLAPSCOPE_WORKLOADS=OFF >/dev/null
cmake --build build-sanitize -j "$jobs"
# The sweeps over every golden trace take every fourth one here (tests/common/sample.sh says why):
# the phase before made their assertions on all of them, and CI has 15 minutes.
OVERLAPSCOPE_TEST_SAMPLE=4 \
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j "$jobs" -LE gpu

if command -v clang >/dev/null && [ -d fuzz ]; then
  echo "== fuzz every parser for a bounded run"
  CC=clang cmake -S . -B build-fuzz "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug -DOVERLAPSCOPE_FUZZ=ON \
        -DOVERLAPSCOPE_WORKLOADS=OFF >/dev/null
  cmake --build build-fuzz -j "$jobs"
  ctest --test-dir build-fuzz --output-on-failure -j "$jobs" -L fuzz
fi
