#!/usr/bin/env python3
"""Issue 6.7's cross-check workload: the same GPU-bound two-stream work measured once under
`overlapscope record` and once by torch.profiler (then `overlapscope import`); both traces must
give the same overlap figures. Stream A runs large matmuls; stream B runs smaller ones, so the
streams overlap partly and the figure is sensitive to errors in either trace. The measured loop
is one NVTX range and one profiler annotation, both named "measured", so `report --range measured`
selects the same work in both traces (warm-up and set-up excluded).
Usage: torch_crosscheck.py [--steps N] [--profile DIR]"""
import argparse
import os

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--profile", metavar="DIR")
    args = parser.parse_args()
    big = torch.randn(4096, 4096, device="cuda")
    small = torch.randn(1536, 1536, device="cuda")
    side, main_stream = torch.cuda.Stream(), torch.cuda.Stream()

    def step():
        with torch.cuda.stream(main_stream):
            for _ in range(4):
                big.matmul(big)
        with torch.cuda.stream(side):
            for _ in range(6):
                small.matmul(small)
        torch.cuda.synchronize()

    for _ in range(3):  # warm-up: cuBLAS handles, workspaces, clocks
        step()
    profiler = None
    if args.profile:
        from torch.profiler import ProfilerActivity, profile
        profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        profiler.start()
    torch.cuda.nvtx.range_push("measured")
    with torch.profiler.record_function("measured"):
        for _ in range(args.steps):
            step()
    torch.cuda.nvtx.range_pop()
    if profiler:
        profiler.stop()
        os.makedirs(args.profile, exist_ok=True)
        profiler.export_chrome_trace(os.path.join(args.profile, "rank0.json"))
    print(f"torch_crosscheck: {args.steps} steps")


if __name__ == "__main__":
    main()
