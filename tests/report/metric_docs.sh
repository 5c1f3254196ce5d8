#!/usr/bin/env bash
# Every metric check and diff accept (the list check prints for an unknown name) is documented in
# the check manual and, between backticks, in docs/metrics.md: a metric added to report/metrics.c
# or as a row of analyzer/causes/causes.def without its documentation fails here.
set -u
os=${OVERLAPSCOPE:?}
data=${OVERLAPSCOPE_TEST_DATA:?}
docs=$(cd "$(dirname "$0")/../../docs" && pwd)
trace=$(find "$data" -name '*.db' -path '*gpu-h200*' | head -1)
[ -n "$trace" ] || { echo "skipped: no golden"; exit 77; }
names=$("$os" check "$trace" --min no_such_metric=1 2>&1 | sed -n 's/.*(metrics: \(.*\))$/\1/p' | tr -d ' ' | tr ',' ' ')
[ -n "$names" ] || { echo "FAILED: check did not list its metrics"; exit 1; }
fail=0 count=0
for name in $names; do
    count=$((count + 1))
    grep -q "\`$name\`" "$docs/metrics.md" || { echo "FAILED: $name not in docs/metrics.md"; fail=1; }
    grep -q "$name" "$docs/overlapscope-check.md" || { echo "FAILED: $name not in the check manual"; fail=1; }
done
[ $count -ge 40 ] || { echo "FAILED: only $count metrics listed"; fail=1; }
echo "$count metrics documented"
exit $fail
