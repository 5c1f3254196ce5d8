#!/usr/bin/env python3
"""Writes a PyTorch profiler (Kineto) trace of N one-microsecond kernels, each on a lane of its own:
usage: kineto_many_lanes.py OUT.json N streams|devices. `streams`: one device, stream i for
kernel i (issue 20 item 14); `devices`: device i, one stream each (item 15)."""
import json
import sys

path, count, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
events = []
for i in range(count):
    device, stream = (0, 1000 + i) if mode == "streams" else (i, 7)
    events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": device, "tid": stream, "ts": 1000.0 + i,
                   "dur": 1.0, "args": {"device": device, "stream": stream, "correlation": i + 1}})
with open(path, "w") as out:
    json.dump({"schemaVersion": 1, "traceEvents": events}, out)
