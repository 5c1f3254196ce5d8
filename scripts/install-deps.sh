#!/usr/bin/env bash
# Installs what overlapscope needs to build and test, from Debian packages by name. The CUDA
# toolkit (CUPTI, NCCL, nvcc) is not a Debian package here: it is used from /usr/local/cuda when
# present, and the collector and workloads are skipped without it. cmark-gfm renders the Markdown
# reports in the tests (as GitHub would); lintian checks the .deb; time (/usr/bin/time) measures
# peak memory in the resource-limit and memory-slope tests. Open MPI (libopenmpi-dev, openmpi-bin)
# builds and tests report --mpi (docs/scale.md); without it --mpi says so.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config libsqlite3-dev sqlite3 libcjson-dev libcairo2-dev
          zlib1g-dev clang clang-format libclang-rt-dev python3 python3-jsonschema
          fonts-dejavu-core cmark-gfm lintian time libopenmpi-dev openmpi-bin)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${packages[@]}"
