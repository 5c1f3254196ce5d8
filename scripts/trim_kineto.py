#!/usr/bin/env python3
"""Keeps one user range of a PyTorch profiler (Kineto) Chrome trace and the events inside it, so
a golden trace stays small: scripts/trim_kineto.py IN.json[.gz] OUT.json.gz 'epoch 1'.
Kept: every metadata event (ph "M") and the top-level fields, and every event that starts within
the range named (a user_annotation, or any event of that name) plus a margin of one millisecond
either side; flow events with them. What a trimmed trace lacks is only time outside the range."""
import gzip
import json
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: trim_kineto.py IN OUT.json.gz RANGE_NAME")
    source, target, name = sys.argv[1:]
    opener = gzip.open if source.endswith(".gz") else open
    with opener(source, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    ranges = [e for e in events if e.get("name") == name and e.get("ph") == "X"]
    if not ranges:
        sys.exit(f"trim_kineto: {source}: no complete event named {name!r}")
    start = min(e["ts"] for e in ranges) - 1000
    end = max(e["ts"] + e.get("dur", 0) for e in ranges) + 1000
    trace["traceEvents"] = [e for e in events if e.get("ph") == "M" or ("ts" in e and start <= e["ts"] <= end)]
    with gzip.open(target, "wt") as f:
        json.dump(trace, f, separators=(",", ":"))
    print(f"{target}: {len(trace['traceEvents'])} of {len(events)} events kept")


if __name__ == "__main__":
    main()
