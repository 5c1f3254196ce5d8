#!/usr/bin/env bash
# Runs tests/collector/python_frames.py under every CPython found: python3 on PATH and
# python3.8 ... python3.13 on PATH or under ~/.pyenv/versions (3.10-3.13 must capture exactly;
# the others must record nothing). Exit 77 (CTest: skipped) when there is no python3 at all.
# Usage: python_frames.sh LIBCALL_SITE_PROBE.so
set -u
probe=${1:?usage: python_frames.sh LIBCALL_SITE_PROBE.so}
here=$(cd "$(dirname "$0")" && pwd)
declare -A seen
interpreters=()
for candidate in python3 python3.8 python3.9 python3.10 python3.11 python3.12 python3.13 \
                 "$HOME"/.pyenv/versions/3.*/bin/python3; do
    path=$(command -v "$candidate" 2>/dev/null) || continue
    real=$(readlink -f "$path")
    [ -n "${seen[$real]:-}" ] && continue
    # pyenv shims are scripts that pick another interpreter: run the real one
    "$path" -c 'import sys' 2>/dev/null || continue
    version=$("$path" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    [ -n "${seen[$version]:-}" ] && continue
    seen[$real]=1
    seen[$version]=1
    interpreters+=("$path")
done
if [ ${#interpreters[@]} -eq 0 ]; then
    echo "SKIP: no python3 found"
    exit 77
fi
# A sanitizer build's probe needs the ASan runtime loaded first (python itself is not built with
# it); CPython's own memory at exit is not the probe's leak.
asan=$(ldd "$probe" 2>/dev/null | awk '/libasan/ {print $3}')
if [ -n "$asan" ]; then
    export LD_PRELOAD=$asan ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
status=0
for python in "${interpreters[@]}"; do
    "$python" "$here/python_frames.py" "$probe" || status=1
done
exit $status
