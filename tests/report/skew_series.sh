#!/usr/bin/env bash
# Arrival skew on real ranks (issue 18): tests/report/skew_series.py on every golden folder that
# holds the ddp --skew-us series.
set -u
exec python3 "$(dirname "$0")/skew_series.py" "${OVERLAPSCOPE:?}" "${OVERLAPSCOPE_TEST_DATA:?}"/gpu*
