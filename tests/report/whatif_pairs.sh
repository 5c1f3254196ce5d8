#!/usr/bin/env bash
# What-if validation on the golden traces (issue 17): tests/report/whatif_pairs.py says what is
# compared and how; this runs it on every machine folder of golden traces. The GPU machine runs
# the same check on fresh recordings: tests/gpu/whatif_pairs.sh.
set -u
[ -d "${OVERLAPSCOPE_TEST_DATA:?}/gpu" ] || { echo "skipped: no $OVERLAPSCOPE_TEST_DATA/gpu"; exit 77; }
exec python3 "$(dirname "$0")/whatif_pairs.py" "${OVERLAPSCOPE:?}" "$OVERLAPSCOPE_TEST_DATA/gpu" \
    "$OVERLAPSCOPE_TEST_DATA/gpu-h200x2" "$OVERLAPSCOPE_TEST_DATA/gpu-h100" "$OVERLAPSCOPE_TEST_DATA/gpu-h200"
