#!/usr/bin/env bash
# Seed 002's copies from an imported trace (issue 36 item 4): the PyTorch profiler's Chrome traces
# of workloads/torch/copy_feed.py (tests/data/kineto-h200/copy_*.json.gz, recorded by
# tests/gpu/sync_pairs.sh on an H200, trimmed to the NVTX range "epoch 1" by
# scripts/trim_kineto.py) give the exposed-copy verdicts that the same loop recorded by
# `overlapscope record` gives (tests/data/gpu-h200x2/torch_copy_*.db): the largest exposed-copy
# cause and its direction agree mode by mode, and each is the cause the loop has:
#   pageable      pageable HtoD (the driver stages ordinary host memory)
#   pinned        same-stream HtoD (pinned, but on the compute stream: nothing runs beside it)
#   prefetch      neither (copied ahead on a side stream; what is left had nothing beside it)
#   d2h_pageable  pageable DtoH (.cpu() into ordinary memory)
#   d2h_pinned    same-stream, both directions
set -u
data=${OVERLAPSCOPE_TEST_DATA:?}
os=${OVERLAPSCOPE:?}
[ -d "$data/gpu-h200x2" ] || { echo "skipped: no $data/gpu-h200x2"; exit 77; }
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
fail=0
top_copies() { # TRACE: "cause direction" of its two largest exposed-copy parts, one per line
    "$os" report --json --range "epoch 1" "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)["devices"][0]
for c in d["exposed_copy"]["causes"][:2]:
    print(c["cause"], c["label"].split()[0])'
}
for mode in pageable pinned prefetch d2h_pageable d2h_pinned; do
    "$os" import "$data/kineto-h200/copy_$mode.json.gz" -o "$scratch/$mode.db" >/dev/null 2>"$scratch/err" || {
        echo "FAILED: import copy_$mode: $(cat "$scratch/err")"; fail=1; continue; }
    imported=$(top_copies "$scratch/$mode.db") recorded=$(top_copies "$data/gpu-h200x2/torch_copy_$mode.db")
    first=$(echo "$imported" | head -1)
    case $mode in
        pageable) want='pageable HtoD' ;;
        pinned) want='same-stream HtoD' ;;
        prefetch) want='nothing-beside HtoD' ;;
        d2h_pageable) want='pageable DtoH' ;;
        d2h_pinned) want='same-stream' ;;
    esac
    if [ "$(echo "$imported" | head -1)" != "$(echo "$recorded" | head -1)" ] && [ $mode != d2h_pinned ]; then
        echo "FAILED: $mode: imported says '$first', recorded says '$(echo "$recorded" | head -1)'"; fail=1
    elif [ $mode = d2h_pinned ] && [ "$(echo "$imported" | sort)" != "$(echo "$recorded" | sort)" ]; then
        echo "FAILED: $mode: imported '$imported' vs recorded '$recorded'"; fail=1
    elif [[ $first != "$want"* ]]; then
        echo "FAILED: $mode: largest exposed copy '$first', want '$want'"; fail=1
    else
        echo "ok: $mode: $first (imported and recorded)"
    fi
done
exit $fail
