#!/usr/bin/env bash
# Stages this machine's Open MPI runtime into .gpu/openmpi (after tests/gpu/stage.sh, which stages
# the MPI-enabled overlapscope), for the GPU machine of the device tool: it has no Open MPI and
# reaches no package archive, so `mpirun ... overlapscope report --mpi` (bench/scale_mpi_device.sh)
# runs there from this bundle alone:
#     . .gpu/openmpi/env.sh     # OPAL_PREFIX, OPAL_*DIR, PMIX_PREFIX, PATH, LD_LIBRARY_PATH
#     mpirun -np 4 --oversubscribe --allow-run-as-root .gpu/build/cli/overlapscope report --mpi DIR
# What it holds: mpirun (orterun, Open MPI 4.x; or prterun where Open MPI 5 is installed), orted,
# ompi_info; libmpi and every shared library the launcher and the plugins need outside glibc; the
# MCA plugin folder (pkglibdir) and PMIx's own plugins; the help texts (every error message of
# Open MPI is a help file: without them it says only "help file not found"); the configuration
# files, with single-machine defaults appended (shared memory, no network transports). Plugins of
# network transports the GPU machine has no use for (UCX, libfabric, verbs, PSM) are left out with
# their libraries: that keeps the bundle near 15 MB of the device tool's 64 MiB carry. Open MPI
# finds a moved installation through OPAL_PREFIX and the OPAL_*DIR variables (opal/mca/installdirs/
# env), PMIx through PMIX_PREFIX; env.sh sets them from its own place, so the folder may move.
# Proof: tests/gpu/stage_mpi_check.sh runs the bundle with the system's Open MPI hidden.
# Usage: tests/gpu/stage_mpi.sh [BUNDLE_DIR] (default .gpu/openmpi).
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle=${1:-.gpu/openmpi}
say() { echo "stage_mpi: $*" >&2; }

launcher=$(command -v prterun || command -v orterun || true)
[ -n "$launcher" ] || { say "no orterun or prterun here (apt-get install openmpi-bin)"; exit 2; }
launcher=$(readlink -f "$launcher")
command -v ompi_info >/dev/null || { say "no ompi_info here (apt-get install openmpi-bin)"; exit 2; }
# The installation's own folders, as Open MPI resolves them (Debian moves them off the prefix).
path_of() { ompi_info --path "$1" --parsable | sed -n "s/^path:$1:\(.*\)/\1/p"; }
pkglibdir=$(path_of pkglibdir); pkgdatadir=$(path_of pkgdatadir); sysconfdir=$(path_of sysconfdir)
# (awk reads to the end: an early exit would end ldconfig by SIGPIPE, a failure under pipefail)
libmpi=$(ldconfig -p | awk '/libmpi\.so\.[0-9]+ .*x86-64/ && !found {print $NF; found = 1}')
for need in "$pkglibdir" "$pkgdatadir" "$sysconfdir" "$libmpi"; do
    [ -e "$need" ] || { say "cannot find Open MPI's '$need' (pkglibdir, pkgdatadir, sysconfdir, libmpi)"; exit 2; }
done
# PMIx (Open MPI 4 on Debian uses the system's: its plugins and help texts lie under its own prefix).
libpmix=$(ldd "$pkglibdir"/mca_pmix_*.so 2>/dev/null | awk '/libpmix\.so/ && !found {print $3; found = 1}')
pmix_prefix=""
[ -z "$libpmix" ] || pmix_prefix=$(dirname "$(dirname "$(readlink -f "$libpmix")")")

# Plugins that load a network transport (absent on one GPU machine; megabytes of libraries).
network='libuc[pmst]|libfabric|libibverbs|librdmacm|libpsm|libinfinipath|libefa|libnl-|libjvm|libcuda'

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib/plugins" "$bundle/share/openmpi" "$bundle/etc"
for tool in "$launcher" "$(command -v orted || true)" "$(command -v prted || true)" "$(command -v ompi_info)"; do
    [ -n "$tool" ] && cp -L "$tool" "$bundle/bin/"
done
# mpirun and mpiexec are the launcher under its other names (a copy: the carry keeps no links).
cp "$bundle/bin/$(basename "$launcher")" "$bundle/bin/mpirun"
cp "$bundle/bin/$(basename "$launcher")" "$bundle/bin/mpiexec"

kept_plugins=()
for plugin in "$pkglibdir"/*.so; do
    if ldd "$plugin" | grep -E "$network" >/dev/null; then continue; fi
    cp "$plugin" "$bundle/lib/plugins/"
    kept_plugins+=("$plugin")
done
pmix_plugins=()
if [ -n "$pmix_prefix" ] && [ -d "$pmix_prefix/lib/pmix" ]; then
    mkdir -p "$bundle/pmix/lib/pmix" "$bundle/pmix/share"
    for plugin in "$pmix_prefix"/lib/pmix/*.so; do
        cp "$plugin" "$bundle/pmix/lib/pmix/"
        pmix_plugins+=("$plugin")
    done
    cp -r "$pmix_prefix/share/." "$bundle/pmix/share/"
fi

# Every library outside glibc that the launcher, libmpi or a kept plugin needs, under its soname.
{
    for object in "$bundle"/bin/* "$libmpi" "${kept_plugins[@]}" "${pmix_plugins[@]}"; do
        ldd "$object" 2>/dev/null | awk '/=> \// {print $1, $3}'
    done
} | sort -u | while read -r soname path; do
    case "$soname" in
        libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) ;;
        *) [ -e "$bundle/lib/$soname" ] || cp -L "$path" "$bundle/lib/$soname" ;;
    esac
done

cp -r "$pkgdatadir/." "$bundle/share/openmpi/"
cp "$sysconfdir"/*.conf "$bundle/etc/" 2>/dev/null || true
[ -z "$pmix_prefix" ] || cp "$pmix_prefix"/share/*.conf "$bundle/pmix/share/" 2>/dev/null || true
cat >>"$bundle/etc/openmpi-mca-params.conf" <<'EOF'

# Added by overlapscope's tests/gpu/stage_mpi.sh: one machine without a network. Shared memory
# between the processes, no transport probing, the isolated launcher (no ssh needed).
btl = self,vader
pml = ob1
plm = isolated
mca_base_component_show_load_errors = 0
EOF

cat >"$bundle/env.sh" <<'EOF'
# Source it (". .gpu/openmpi/env.sh"): this folder's Open MPI, wherever the folder lies
# (tests/gpu/stage_mpi.sh made it).
_bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX="$_bundle" OPAL_EXEC_PREFIX="$_bundle" OPAL_BINDIR="$_bundle/bin" \
    OPAL_LIBDIR="$_bundle/lib" OPAL_PKGLIBDIR="$_bundle/lib/plugins" \
    OPAL_DATAROOTDIR="$_bundle/share" OPAL_DATADIR="$_bundle/share" \
    OPAL_PKGDATADIR="$_bundle/share/openmpi" OPAL_SYSCONFDIR="$_bundle/etc"
export PMIX_PREFIX="$_bundle/pmix" PMIX_INSTALL_PREFIX="$_bundle/pmix" \
    PMIX_MCA_mca_base_component_path="$_bundle/pmix/lib/pmix"
export PATH="$_bundle/bin:$PATH" LD_LIBRARY_PATH="$_bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset _bundle
EOF
plugins=("$bundle"/lib/plugins/*.so); libraries=("$bundle"/lib/*.so*)
say "$(du -sh "$bundle" | cut -f1) in $bundle: ${#plugins[@]} plugins, ${#libraries[@]} libraries"
