# mpi_env.sh: what the MPI tests (mpi_report.sh, mpi_import.sh) share, sourced first: `set -u`,
# the counts and bad(), $os (the overlapscope to test), $data (the goldens), $dir (a scratch
# folder, removed at exit); a build without MPI must refuse --mpi in one line with exit 2 (then
# the test is skipped, 77), as where mpirun is missing; Open MPI's environment for CI; launch_env,
# the environment of a launch under the sanitizers.
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
data="${OVERLAPSCOPE_TEST_DATA:-$(cd "$(dirname "$0")" && pwd)/../data}"
bad() { echo "FAILED: $*"; fail=$((fail+1)); }

"$os" report --mpi /nonexistent.db >"$dir/out" 2>"$dir/err"; status=$?
if grep -qx "overlapscope was built without MPI: install libopenmpi-dev and rebuild" "$dir/err"; then
    [ "$status" = 2 ] || { echo "FAILED: --mpi without MPI exits $status, not 2"; exit 1; }
    echo "this build has no MPI: --mpi refused as it should be; skipped"; exit 77
fi
command -v mpirun >/dev/null || { echo "mpirun not found (apt-get install openmpi-bin): skipped"; exit 77; }
# CI runs as root, which Open MPI refuses unless told; one machine: shared memory, no network
# probing and no UCX (its start costs 0.2 s a run).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated \
    OMPI_MCA_pml=ob1
# The sanitizer build: Open MPI's own leaks are suppressed (mpi_lsan.supp; full stacks, so that
# they name its libraries: its components stay loaded), ours are not.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
launch_env=(env OMPI_MCA_mca_base_component_disable_dlclose=1
    "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
    "LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/mpi_lsan.supp:print_suppressions=0")
