#!/usr/bin/env bash
# Proves tests/gpu/stage_mpi.sh's bundle runs `mpirun ... report --mpi` on a machine without Open
# MPI: in a private mount namespace (unshare -rm: we are root there, as on the GPU machine), every
# file of this machine's Open MPI installation (its launcher, its folders of plugins, help texts and
# configuration, PMIx's, and every library the bundle carries) is covered by an empty file or an
# empty folder, the system's mpirun is shown to fail, and the bundle's mpirun with -np 2 and -np 4
# --oversubscribe must print the single process's report byte for byte.
# Usage: tests/gpu/stage_mpi_check.sh [BUNDLE OVERLAPSCOPE TRACE_DIR] (e.g. .gpu/openmpi
# .gpu/build/cli/overlapscope DIR); without arguments (ctest: gpu_stage_mpi) it stages a bundle
# into a temporary folder and checks $OVERLAPSCOPE on the two-rank Kineto goldens. Exit 0 when it
# holds, 1 when not, 77 where it cannot be tried (no mpirun, no unshare, a build without MPI).
set -u
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
if [ $# = 0 ]; then
    command -v mpirun >/dev/null || { echo "no mpirun here: skipped"; exit 77; }
    "$OVERLAPSCOPE" report --mpi /nonexistent 2>&1 | grep -q "built without MPI" &&
        { echo "a build without MPI: skipped"; exit 77; }
    bash "$here/stage_mpi.sh" "$scratch/openmpi" 2>/dev/null || { echo "FAILED: stage_mpi.sh"; exit 1; }
    mkdir "$scratch/ranks"
    cp "${OVERLAPSCOPE_TEST_DATA:-$here/../data}"/kineto-h200/two_batch_ddp_rank[01].json.gz "$scratch/ranks/"
    set -- "$scratch/openmpi" "$OVERLAPSCOPE" "$scratch/ranks"
fi
[ $# = 3 ] || { echo "usage: $0 [BUNDLE OVERLAPSCOPE TRACE_DIR]" >&2; exit 2; }
bundle=$(cd "$1" && pwd); os=$(readlink -f "$2"); trace=$(readlink -f "$3")
unshare -rm true 2>/dev/null || { echo "unshare -rm is refused here: skipped"; exit 77; }
expected=$scratch/expected
"$os" report "$trace" >"$expected" 2>/dev/null || { echo "the single-process report of $trace failed"; exit 1; }

# The libraries of this machine's Open MPI (of its launcher, libmpi, its plugins and PMIx's),
# glibc's aside: found here, from the installation rather than the bundle, so that a library the
# bundle lacks cannot be found on the system inside.
launcher=$(readlink -f "$(command -v prterun || command -v orterun)")
pkglibdir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
libmpi=$(ldconfig -p | awk '/libmpi\.so\.[0-9]+ .*x86-64/ && !found {print $NF; found = 1}')
for object in "$launcher" "$libmpi" "$pkglibdir"/*.so /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/*.so; do
    [ -e "$object" ] && ldd "$object" 2>/dev/null | awk '/=> \// {print $3}'
done | grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' | sort -u \
    >"$expected.libraries"
# The sanitizer build: Open MPI's own leaks are suppressed as in tests/cli/mpi_report.sh.
export OMPI_MCA_mca_base_component_disable_dlclose=1 \
    "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0" \
    "LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/../cli/mpi_lsan.supp:print_suppressions=0"
export BUNDLE=$bundle OS=$os TRACE=$trace EXPECTED=$expected
unshare -rm bash -c '
set -u
fail=0
hide_file() { [ -e "$1" ] && mount --bind /dev/null "$(readlink -f "$1")"; }
hide_dir() { [ -d "$1" ] && mount -t tmpfs none "$(readlink -f "$1")"; }
for tool in mpirun mpiexec orterun orted prterun prted ompi_info; do
    path=$(command -v $tool) && hide_file "$path"
done
for dir in $(ompi_info --path all --parsable 2>/dev/null | sed -n "s/^path:\(pkglibdir\|pkgdatadir\|sysconfdir\):\(.*\)/\2/p") \
    /usr/lib/x86_64-linux-gnu/pmix2 /usr/lib/x86_64-linux-gnu/openmpi; do
    hide_dir "$dir"
done
while read -r lib; do hide_file "$lib"; done <"$EXPECTED.libraries"
if mpirun --version >/dev/null 2>&1 || "$OS" --version >/dev/null 2>&1; then
    echo "FAILED: the system Open MPI is still usable inside the namespace"; exit 1
fi
. "$BUNDLE/env.sh"
echo "inside: $(command -v mpirun), $(mpirun --version 2>&1 | head -1)"
for launch in "-np 2" "-np 4 --oversubscribe"; do
    mpirun $launch --allow-run-as-root "$OS" report --mpi "$TRACE" >"$EXPECTED.mpi" 2>"$EXPECTED.err"
    status=$?
    if [ $status = 0 ] && cmp -s "$EXPECTED" "$EXPECTED.mpi"; then
        echo "mpirun $launch report --mpi from the bundle: the single process report, byte for byte"
    else
        echo "FAILED: mpirun $launch from the bundle: status $status: $(head -5 "$EXPECTED.err")"; fail=1
    fi
done
exit $fail
'
