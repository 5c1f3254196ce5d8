#!/usr/bin/env bash
# The MPI weak-scaling benchmark on the GPU machine of the device tool, in one command:
#     bash bench/scale_mpi_device.sh $OUT
# after tests/gpu/stage.sh and tests/gpu/stage_mpi.sh here (the machine has no Open MPI and no
# network: the overlapscope of .gpu/build and the Open MPI bundle .gpu/openmpi travel with the
# working tree). Runs bench/scale_mpi.sh with 1, 2, 4, 8 and 16 processes, one rank of 1,000,000
# activities a process (the issue's ranks; bench/scale_mpi.sh's default), 2 rounds interleaved:
# about 3 minutes on 16 cores (generating and importing the 5 jobs, 31 ranks: about 1; each round's
# `report --jobs 1` of the 31 ranks about 40 s, its 5 MPI runs about 12 s), and leaves the table, with
# the CPU seconds of the busiest MPI process, in $OUT/scale_mpi.txt (the traces and the times stay
# in a temporary folder, removed). SCALE_* variables pass through (bench/scale_mpi.sh).
set -u
out=${1:?usage: bash bench/scale_mpi_device.sh OUTDIR}
out=$(mkdir -p "$out" && cd "$out" && pwd) || exit 2
cd "$(dirname "$0")/.." || exit 2
os=.gpu/build/cli/overlapscope
[ -x "$os" ] || { echo "$0: no $os: run tests/gpu/stage.sh first" >&2; exit 2; }
[ -f .gpu/openmpi/env.sh ] || { echo "$0: no .gpu/openmpi: run tests/gpu/stage_mpi.sh first" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# .gpu/lib holds the libraries stage.sh copied (the binary finds them through its RPATH; a binary
# built without it, through this).
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
SCALE_MPI_BUNDLE=${SCALE_MPI_BUNDLE:-.gpu/openmpi} OVERLAPSCOPE=$os SCALE_REPEAT=${SCALE_REPEAT:-2} \
    bash bench/scale_mpi.sh "$work" 2>&1 | tee "$out/scale_mpi.txt"
status=${PIPESTATUS[0]}
cp "$work/times" "$out/scale_mpi_times.txt" 2>/dev/null
exit "$status"
