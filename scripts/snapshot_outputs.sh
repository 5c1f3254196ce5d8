#!/usr/bin/env bash
# Writes every output a user sees, for every trace the project holds, into one folder, so that a
# change meant to keep behaviour (a refactor) is proved byte for byte:
#
#   scripts/snapshot_outputs.sh build/cli/overlapscope /tmp/before   # on the commit before
#   scripts/snapshot_outputs.sh build/cli/overlapscope /tmp/after    # on the change
#   diff -r /tmp/before /tmp/after && echo identical
#
# Traces: every .db under build/test-data (the goldens, unpacked at configure time, the bad ones
# included: their error texts are outputs too), the Kineto JSON under tests/data/kineto, and the
# public traces in ../shared/traces when that folder exists. Outputs per trace: info, report as
# text, JSON and Markdown, report --json of its first step and of rank 0, check --json with five
# bounds, diff --json of the trace with itself, render to PNG and SVG, export --chrome; each command's exit status and stderr too.
# JSON inputs are imported into a scratch copy first, so no cache is written beside the sources.
set -uo pipefail
tool=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

inputs=()
while IFS= read -r f; do inputs+=("$f"); done < <(
  find "$root/build/test-data" -name '*.db' | sort
  find "$root/tests/data/kineto" -name '*.json*' | sort
  [ -d "$root/../shared/traces" ] && find "$root/../shared/traces" \( -name '*.json.gz' -o -name '*.sqlite' \) | sort)

snapshot_one() {
  local tool=$1 out=$2 scratch=$3 root=$4 input=$5
  local name=${input#"$root"/}
  name=${name//\//_}
  local dir="$out/$name" trace
  mkdir -p "$dir"
  case "$input" in
    *.db) trace=$input ;;
    *) trace="$scratch/$name.db"
       "$tool" import "$input" -o "$trace" --force >"$dir/import.out" 2>"$dir/import.err"
       echo $? >"$dir/import.rc"
       sed -i "s#$scratch#SCRATCH#g" "$dir/import.out" "$dir/import.err" ;;
  esac
  run() { # run NAME ARGS...: stdout, stderr and status under NAME
    local n=$1; shift
    (cd "$scratch" && "$tool" "$@") >"$dir/$n.out" 2>"$dir/$n.err"
    echo $? >"$dir/$n.rc"
    sed -i "s#$scratch#SCRATCH#g" "$dir/$n.out" "$dir/$n.err"
  }
  run info info "$trace"
  run report report "$trace"
  run report_json report --json "$trace"
  run report_md report --markdown "$trace"
  run report_step report --json --step 1 "$trace"
  run report_rank report --json --rank 0 "$trace"
  run check check --json --min stream_overlap=0.5 --max idle_ms=10 --max host_sync_ms=1 \
    --max idle_host_cpu_ms=1 --max exposed_comm_skew_ms=1 "$trace"
  run diff diff --json "$trace" "$trace"
  run render_png render "$trace" -o "$scratch/$name.png" --force
  run render_svg render "$trace" -o "$scratch/$name.svg" --force
  run export export "$trace" --chrome "$scratch/$name.chrome.json" --force
  for f in "$scratch/$name.png" "$scratch/$name.svg" "$scratch/$name.chrome.json"; do
    [ -f "$f" ] && mv "$f" "$dir/"
  done
}
export -f snapshot_one
printf '%s\n' "${inputs[@]}" |
  xargs -P "$jobs" -I{} bash -c 'snapshot_one "$@"' _ "$tool" "$out" "$scratch" "$root" {}
echo "$(find "$out" -type f | wc -l) outputs of ${#inputs[@]} traces in $out"
