#!/usr/bin/env python3
"""Writes a large synthetic PyTorch profiler trace (Kineto JSON) for the progress test: N launches,
each a cudaLaunchKernel and its kernel on one of two streams, so that both the import and the
analysis of it run for seconds. Usage: big_kineto.py OUTPUT N"""
import sys

out_path, count = sys.argv[1], int(sys.argv[2])
with open(out_path, "w") as out:
    out.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "computeMajor": 9,'
              ' "computeMinor": 0, "numSms": 132, "maxThreadsPerMultiprocessor": 2048,'
              ' "regsPerMultiprocessor": 65536, "sharedMemPerMultiprocessor": 233472, "warpSize": 32}],\n'
              '"traceEvents": [\n')
    for i in range(count):
        ts = 1000 + i * 10
        stream = 7 + i % 2
        out.write('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d,'
                  ' "dur": 2, "args": {"cbid": 211, "correlation": %d}},\n' % (ts, i + 1))
        out.write('{"ph": "X", "cat": "kernel", "name": "kernel_%d", "pid": 0, "tid": %d, "ts": %d, "dur": 6,'
                  ' "args": {"device": 0, "context": 1, "stream": %d, "correlation": %d, "grid": [64, 1, 1],'
                  ' "block": [256, 1, 1], "registers per thread": 32, "shared memory": 0}},\n'
                  % (i % 50, stream, ts + 3, stream, i + 1))
    out.write('{"ph": "X", "cat": "Trace", "name": "end", "pid": 1, "tid": 1, "ts": 1, "dur": 1}\n]}\n')
