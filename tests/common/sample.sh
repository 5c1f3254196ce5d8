# Sourced by the test scripts that sweep every golden trace. `sample_traces` keeps every Nth
# entry of the array `traces` (in its sorted order, the first always kept) when
# OVERLAPSCOPE_TEST_SAMPLE=N is set above 1. tests/run.sh sets it for the ASan+UBSan phase only:
# there each run costs 3-5x more, the sweeps' own assertions were all made on every trace by the
# RelWithDebInfo phase just before, and what the sanitizers add (memory errors, undefined behaviour)
# is found on a varied quarter as well as on the whole, while the hostile-trace suite still runs
# whole. Unset, every trace is swept.
sample_traces() {
    local every=${OVERLAPSCOPE_TEST_SAMPLE:-1} kept=() i
    [[ $every =~ ^[1-9][0-9]*$ ]] || { echo "OVERLAPSCOPE_TEST_SAMPLE=$every: not a positive count" >&2; exit 2; }
    for i in "${!traces[@]}"; do
        [ $((i % every)) -eq 0 ] && kept+=("${traces[$i]}")
    done
    traces=("${kept[@]}")
}
