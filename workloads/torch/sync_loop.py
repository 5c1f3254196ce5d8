#!/usr/bin/env python3
"""Seed 004 in PyTorch: a small torch.mm, then torch.cuda.synchronize(), in a loop. The host
waits for the GPU's queue to drain every iteration, so nothing is ever queued ahead: the GPU is
busy a few percent of the time and idle because of the synchronization (docs/metrics.md, "Idle
time": host-sync, named cudaDeviceSynchronize). --no-sync drops the synchronization (control: the
host then runs ahead and the idle time is the launch rate's). Prints iterations/s.

--profile DIR writes a torch.profiler Chrome trace (DIR/rank0.json) with stacks (with_stack=True,
so an import can name the Python line of each blocking call)."""
import argparse
import sys
import time

import torch

import profiling


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=300, help="loop iterations (default 300)")
    parser.add_argument("--size", type=int, default=100, help="matrix side (default 100, as seed 004)")
    parser.add_argument("--no-sync", action="store_true", help="no torch.cuda.synchronize() in the loop")
    parser.add_argument("--profile", metavar="DIR", help="write a Chrome trace into DIR")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("sync_loop: no CUDA device")
    device = torch.device("cuda:0")
    torch.manual_seed(0)
    a = torch.randn(args.size, args.size, device=device)
    torch.mm(a, a)  # cuBLAS initialization, outside the loop
    torch.cuda.synchronize()

    profiler = profiling.start(args.profile, with_stack=True)
    start = time.perf_counter()
    b = a
    for _ in range(args.iterations):
        b = torch.mm(a, a)
        if not args.no_sync:
            torch.cuda.synchronize(device)
    torch.cuda.synchronize(device)
    elapsed = time.perf_counter() - start
    profiling.finish(profiler, args.profile)
    want = torch.mm(a, a)
    if not torch.allclose(b, want):
        sys.exit("sync_loop: verification failed: the last product differs")
    print(f"sync_loop: {'no sync' if args.no_sync else 'sync'}, {args.size}x{args.size}: "
          f"{args.iterations / elapsed:.0f} iterations/s")


if __name__ == "__main__":
    main()
