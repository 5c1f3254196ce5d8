#!/usr/bin/env bash
# Runs tests/collector/host_sampler.py under python3 (exit 77, CTest's skip, without one).
# Usage: host_sampler.sh LIBHOST_SAMPLER_PROBE.so
set -u
probe=${1:?usage: host_sampler.sh LIBHOST_SAMPLER_PROBE.so}
here=$(cd "$(dirname "$0")" && pwd)
python=$(command -v python3) || { echo "SKIP: no python3 found"; exit 77; }
# A sanitizer build's probe needs the ASan runtime loaded first; CPython's memory at exit is not ours.
asan=$(ldd "$probe" 2>/dev/null | awk '/libasan/ {print $3}')
if [ -n "$asan" ]; then
    export LD_PRELOAD=$asan ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
exec "$python" "$here/host_sampler.py" "$probe"
