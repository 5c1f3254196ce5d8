#!/bin/bash
# Second red-team pass (issue 33): a recorded trace's meta row host_sample_hz that is not a whole
# number ('1e9', a huge negative) made the analysis drop every host sample while info said either
# "none (recorded with --sample-hz 0)" or "1 Hz": info must say the samples are not used, and why.
# Hostile cpu_ns values must not drop the verdict.
. "$(dirname "$0")/lib.sh"
data="$here/../data/gpu-h200-v3/host_starved_loader.db.gz"
gzip -dc "$data" > "$work/t.db"
samples=$(sqlite3 "$work/t.db" "SELECT COUNT(*) FROM host_samples")  # the golden's, whichever recording
for value in 1e9 -99999999999999999999999 abc; do
    gzip -dc "$data" > "$work/t.db"
    sqlite3 "$work/t.db" "UPDATE meta SET value = '$value' WHERE key = 'host_sample_hz'"
    "$os" info "$work/t.db" > "$work/out" 2>&1
    line=$(grep '^host samples:' "$work/out")
    expect "$value: info names the bad rate, got '$line'" \
        "[ \"\$line\" = \"host samples: $samples thread samples not used: the trace's host_sample_hz '$value' is not a whole number of Hz\" ]"
done
# A valid rate is still reported as before.
gzip -dc "$data" > "$work/t.db"
expect "100 Hz reported" "grep -q '^host samples: 100 Hz: $samples thread samples' <(\"$os\" info \"$work/t.db\")"
# Process CPU samples whose cpu_ns sum past INT64_MAX made SQLite's SUM fail: the data-loading
# verdict vanished without a word. They saturate now, and the loader is still called CPU-bound.
gzip -dc "$data" > "$work/t.db"
sqlite3 "$work/t.db" "UPDATE process_cpu_samples SET cpu_ns = 9223372036854775807"
"$os" report "$work/t.db" > "$work/out" 2>&1
expect "huge worker CPU: still data-loading CPU-bound" "grep -q 'data-loading   CPU-bound' '$work/out'"
finish
