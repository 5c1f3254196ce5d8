#!/usr/bin/env bash
# Everything the GPU machine checks, in one call (the device session is short): the collector
# (tests/gpu/collector.sh), every reference workload with its documented outcome
# (tests/gpu/workloads.sh), workloads that crash or are killed (tests/gpu/faults.sh) and the
# record-vs-torch.profiler cross-check (tests/gpu/crosscheck.sh).
# Usage: tests/gpu/all.sh OUTDIR [PART...]   (after tests/gpu/stage.sh staged .gpu/); PARTs are
# collector, faults, workloads, crosscheck (default: all four, in that order: split them over two
# device calls when they would not fit in one), and torch_jobs (real PyTorch training loops, about
# 200 s: not in the default). Exit 1 if any part failed.
set -u
out=${1:?usage: all.sh OUTDIR [PART...]}
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(collector faults workloads crosscheck)
cd "$(dirname "$0")/../.."
mkdir -p "$out"
status=0
for part in "${parts[@]}"; do
    start=$(date +%s)
    echo "######## $part"
    timeout 290 bash "tests/gpu/$part.sh" "$out/$part" >"$out/$part.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "(exit $rc, $(( $(date +%s) - start )) s)" >>"$out/$part.log"
    sed -n '/== summary/,$p;/^WORKLOAD/,$p;/^PASS\|^FAIL\|record \|torch.profiler/p' "$out/$part.log" | tail -70
done
exit $status
