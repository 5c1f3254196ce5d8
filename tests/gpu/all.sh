#!/usr/bin/env bash
# Everything the GPU machine checks, in one call (the device session is short): the collector
# (tests/gpu/collector.sh), every reference workload with its documented outcome
# (tests/gpu/workloads.sh), workloads that crash or are killed (tests/gpu/faults.sh) and the
# record-vs-torch.profiler cross-check (tests/gpu/crosscheck.sh).
# Usage: tests/gpu/all.sh OUTDIR   (after tests/gpu/stage.sh staged .gpu/). Exit 1 if any part failed.
set -u
out=${1:?usage: all.sh OUTDIR}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
status=0
for part in collector faults workloads crosscheck; do
    start=$(date +%s)
    echo "######## $part"
    timeout 290 bash "tests/gpu/$part.sh" "$out/$part" >"$out/$part.log" 2>&1 || status=1
    echo "(exit $?, $(( $(date +%s) - start )) s)" >>"$out/$part.log"
    sed -n '/== summary/,$p;/^WORKLOAD/,$p;/^PASS\|^FAIL\|record \|torch.profiler/p' "$out/$part.log" | tail -70
done
exit $status
