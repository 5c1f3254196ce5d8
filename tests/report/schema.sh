#!/usr/bin/env bash
# The JSON Schemas (docs/schema/*.json, draft 2020-12; issue 34) hold for every golden's JSON
# outputs: report --json whole and of its first step, check --json (a bound that holds and one
# that fails, an unmeasured one), diff --json against itself and against the previous golden, and
# stats --format json, for every trace under build/test-data (the bad ones excepted: they are
# refused) and the imported Kineto goldens. Validated by Python's jsonschema
# (schema_validate.py); skipped (77) only when that module is missing. test_schema.c checks the
# schemas' tag lists against causes.def.
set -u
os=${OVERLAPSCOPE:?}
data=${OVERLAPSCOPE_TEST_DATA:?}
here=$(cd "$(dirname "$0")" && pwd)
schemas=$here/../../docs/schema
python3 -c 'import jsonschema' 2>/dev/null || {
    echo "skipped: Python's jsonschema module is missing (scripts/install-deps.sh installs python3-jsonschema)"
    exit 77
}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAILED: $*"; fail=$((fail+1)); }

traces=()
while IFS= read -r trace; do traces+=("$trace"); done < <(find "$data" -name '*.db' -not -path '*/bad/*' | sort)
for kineto in "$data"/kineto*/*.json*; do
    name=$(basename "$kineto"); name=${name%%.*}
    # A trace without GPU activity (cpu_only) is refused by every command: nothing to validate.
    "$os" import "$kineto" -o "$dir/kineto_$name.db" >/dev/null 2>&1 &&
        "$os" report --json "$dir/kineto_$name.db" >/dev/null 2>&1 && traces+=("$dir/kineto_$name.db")
done
[ ${#traces[@]} -ge 150 ] || bad "only ${#traces[@]} golden traces found under $data"
# shellcheck source=../common/sample.sh
. "$here/../common/sample.sh"
sample_traces
documents=(); previous=""; n=0
# emit KIND ARGS...: runs overlapscope ARGS, keeps its output as a KIND document when it is JSON
# (exit 0, or 1 from a failed check).
emit() {
    local kind=$1; shift
    n=$((n+1))
    "$os" "$@" >"$dir/$n.json" 2>"$dir/$n.err"
    local status=$?
    if [ $status -eq 0 ] || { [ "$kind" = check ] && [ $status -eq 1 ]; }; then
        documents+=("$kind=$dir/$n.json")
    elif [ "${optional:-0}" = 0 ]; then
        bad "overlapscope $* exited $status: $(head -c 300 "$dir/$n.err")"
    fi
}
for trace in "${traces[@]}"; do
    emit report report --json "$trace"
    optional=1 emit report report --json --step 1 "$trace" # only traces with steps have one
    emit check check --json --min stream_overlap=0.5 --max idle_ms=1000000 --max comm_ms=0 "$trace"
    emit diff diff --json "$trace" "$trace"
    [ -n "$previous" ] && emit diff diff --json "$previous" "$trace"
    emit stats stats --format json "$trace"
    previous=$trace
done
python3 "$here/schema_validate.py" "$schemas" "${documents[@]}" || bad "documents that do not match their schema"
echo "${#traces[@]} traces, ${#documents[@]} documents; $fail failed"
[ $fail -eq 0 ]
