#!/usr/bin/env bash
# Streams are listed sorted (issue 19 Must 7): the report's streams (text and JSON) by process,
# device, then stream id; stream pairs with the lower stream first, in order; and every wait
# still names the streams its own evidence line names (the lanes moved, their indexes with them).
set -u
os=$OVERLAPSCOPE
data="$OVERLAPSCOPE_TEST_DATA/gpu"
fail=0
for trace in ddp pipeline_pipelined many_streams_8 event_chain; do
    "$os" report --json "$data/$trace.db" >"/tmp/stream_order.$$.json" 2>/dev/null || { echo "FAILED: report $trace"; fail=1; continue; }
    python3 - "/tmp/stream_order.$$.json" "$trace" <<'PY' || fail=1
import json, re, sys
d = json.load(open(sys.argv[1])); name = sys.argv[2]
keys = [(s["process_id"], s["device_id"], s["stream_id"]) for s in d["streams"]]
ok = keys == sorted(keys) and len(keys) > 1
pairs = [(p["rank"], p["device_id"], p["stream_a"], p["stream_b"]) for p in d["stream_pairs"]]
ok &= all(a < b for _, _, a, b in pairs) and pairs == sorted(pairs, key=lambda p: (p[0], p[1], p[2], p[3]))
for w in d["waits"]:
    streams = set(int(x) for x in re.findall(r"stream (\d+)", w["evidence"]))
    if streams and w["waiting"]["stream_id"] not in streams and w["blocking"]["stream_id"] not in streams:
        print(f"FAILED: {name}: wait on streams {w['waiting']['stream_id']}/{w['blocking']['stream_id']}: {w['evidence']}")
        ok = False
if not ok:
    print(f"FAILED: {name}: streams {keys} pairs {pairs}")
sys.exit(0 if ok else 1)
PY
    # The text's streams table: a title row (rank device stream ...), then one row a stream,
    # "rank R" or "pid P", the device, the stream: (R or P, device, stream) must come sorted.
    text=$("$os" report "$data/$trace.db" 2>/dev/null | sed -n '/^streams:/,/^$/p' |
        awk '($1 == "rank" || $1 == "pid") && $2 ~ /^[0-9]+$/ {print $2, $3, $4}')
    rows=$(grep -c . <<<"$text")
    [ "$rows" -eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["streams"]))' "/tmp/stream_order.$$.json")" ] ||
        { echo "FAILED: $trace: $rows stream rows in the text, not one per stream of the JSON"; fail=1; }
    [ "$text" = "$(sort -k1,1n -k2,2n -k3,3n <<<"$text")" ] || { echo "FAILED: $trace: text streams not sorted: $text"; fail=1; }
done
rm -f "/tmp/stream_order.$$.json"
[ $fail -eq 0 ] && echo "stream order: ok"
exit $fail
