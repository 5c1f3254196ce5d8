#!/bin/bash
# Second red-team pass (issue 33): a recorded trace's meta row host_sample_hz that is not a whole
# number ('1e9', a huge negative) made the analysis drop every host sample while info said either
# "none (recorded with --sample-hz 0)" or "1 Hz": info must say the samples are not used, and why.
. "$(dirname "$0")/lib.sh"
data="$here/../data/gpu-h200-v3/host_starved_loader.db.gz"
for value in 1e9 -99999999999999999999999 abc; do
    gzip -dc "$data" > "$work/t.db"
    sqlite3 "$work/t.db" "UPDATE meta SET value = '$value' WHERE key = 'host_sample_hz'"
    "$os" info "$work/t.db" > "$work/out" 2>&1
    line=$(grep '^host samples:' "$work/out")
    expect "$value: info names the bad rate, got '$line'" \
        "[ \"\$line\" = \"host samples: 1520 thread samples not used: the trace's host_sample_hz '$value' is not a whole number of Hz\" ]"
done
# A valid rate is still reported as before.
gzip -dc "$data" > "$work/t.db"
expect "100 Hz reported" "grep -q '^host samples: 100 Hz: 1520 thread samples' <(\"$os\" info \"$work/t.db\")"
finish
