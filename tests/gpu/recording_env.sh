# tests/gpu/recording_env.sh: sourced, as `. "$(dirname "$0")/recording_env.sh" "$@"`, by the GPU
# scripts that record traces into an OUTDIR (workloads.sh, whatif_pairs.sh, torch_jobs.sh): the
# usage check, OUT, the move to the repository root, the build to use, the environment every
# multi-GPU run needs (../shared/gpu-notes.md: NVLink multicast off), the machine's facts, the
# sidecar each recording gets, and the recording itself (record_into). One copy, so that every
# golden's sidecar says the same things and every golden is recorded the same way.
if [ $# -ne 1 ]; then echo "usage: $0 OUTDIR" >&2; exit 2; fi
OUT=$1
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
mkdir -p "$OUT" || exit 2
# The build tree: ./build, or the staged one (tests/gpu/stage.sh) at ./.gpu/build.
BUILD=${OVERLAPSCOPE_BUILD:-build}
[ -x "$BUILD/cli/overlapscope" ] || [ ! -x .gpu/build/cli/overlapscope ] || BUILD=.gpu/build
OVERLAPSCOPE=$BUILD/cli/overlapscope
WL=$BUILD/workloads
TORCH_PY=${TORCH_PY:-/opt/torch/.venv/bin/python3}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
GPUS=$(nvidia-smi -L 2>/dev/null | wc -l)
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
CUDA_VERSION=$( (/usr/local/cuda/bin/nvcc --version 2>/dev/null || true) | sed -n 's/.*release \([0-9.]*\).*/\1/p')
NCCL_LIB=$(ldd "$WL/ddp" 2>/dev/null | awk '/libnccl/ {print $3}')
NCCL_VERSION=$(basename "$(readlink -f "${NCCL_LIB:-none}")" | sed -n 's/libnccl\.so\.//p')

# sidecar NAME ENV COMMAND...: writes OUT/NAME.json (machine, versions, environment, command).
sidecar() {
  local name=$1 envs=$2; shift 2
  python3 - "$OUT/$name.json" "$GPU_NAME" "$DRIVER" "$CUDA_VERSION" "${NCCL_VERSION:-}" "$GPUS" \
      "$envs" "$@" <<'PY'
import json, sys, socket
path, gpu, driver, cuda, nccl, gpus, envs, *command = sys.argv[1:]
json.dump({"host": socket.gethostname(), "gpu": gpu, "gpu_count": int(gpus or 0),
           "driver": driver, "cuda": cuda, "nccl": nccl,
           "environment": envs.split() if envs else [], "command": command},
          open(path, "w"), indent=2)
PY
}

# record_into NAME [VAR=VALUE ...] -- PROGRAM ARGS...: `overlapscope record` of the program, with
# the variables set, into OUT/NAME.db (forced; its output in OUT/NAME.log), after its sidecar;
# RECORD_TIMEOUT seconds at most (default 120). Returns the exit status; prints nothing.
record_into() {
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local command=("$OVERLAPSCOPE" record -o "$OUT/$name.db" --force -- "$@")
  sidecar "$name" "${envs[*]:-}" env "${envs[@]}" "${command[@]}"
  env "${envs[@]}" timeout "${RECORD_TIMEOUT:-120}" "${command[@]}" >"$OUT/$name.log" 2>&1
}
