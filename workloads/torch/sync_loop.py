#!/usr/bin/env python3
"""Seed 004 in PyTorch: a small torch.mm, then torch.cuda.synchronize(), in a loop. The host
waits for the GPU's queue to drain every iteration, so nothing is ever queued ahead: the GPU is
busy a few percent of the time and idle because of the synchronization (docs/metrics.md, "Idle
time": host-sync, named cudaDeviceSynchronize). --no-sync drops the synchronization (control: the
host then runs ahead and the idle time is the launch rate's). --sync-device N synchronizes device N
instead of the working device cuda:0 (seed 004's own experiment: a sync of another, idle GPU waits
for none of cuda:0's work, yet costs the host the call). --compare runs the three variants (sync of
cuda:0, of cuda:1 where there is one, none) interleaved in this process, --rounds times, unrecorded, and prints one
JSON line {variant: [ms per loop, ...]}. Prints iterations/s.

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
    parser.add_argument("--randn", action="store_true", help="a fresh randn matrix each iteration (seed 004)")
    parser.add_argument("--sync-device", type=int, default=0, help="the device synchronized (default 0)")
    parser.add_argument("--compare", action="store_true", help="time sync 0 / sync 1 / none interleaved")
    parser.add_argument("--rounds", type=int, default=5, help="--compare rounds (default 5)")
    parser.add_argument("--profile", metavar="DIR", help="write a Chrome trace into DIR")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("sync_loop: no CUDA device")
    device = torch.device("cuda:0")
    torch.manual_seed(0)
    a = torch.randn(args.size, args.size, device=device)
    torch.mm(a, a)  # cuBLAS initialization, outside the loop
    torch.cuda.synchronize()

    def loop(sync_device):
        b = a
        for _ in range(args.iterations):
            x = torch.randn(args.size, args.size, device=device) if args.randn else a
            b = torch.mm(x, x) if args.randn else torch.mm(a, a)
            if sync_device is not None:
                torch.cuda.synchronize(sync_device)
        torch.cuda.synchronize(device)
        return b

    if args.compare:
        import json
        variants = {"sync-0": torch.device("cuda:0"), "sync-1": torch.device("cuda:1"), "none": None}
        if torch.cuda.device_count() < 2:  # one GPU: the pair of the working device's sync and none
            del variants["sync-1"]
        times = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, target in variants.items():
                start = time.perf_counter()
                loop(target)
                times[name].append((time.perf_counter() - start) * 1e3)
        print(json.dumps(times))
        return
    profiler = profiling.start(args.profile, with_stack=True)
    start = time.perf_counter()
    b = loop(None if args.no_sync else torch.device("cuda", args.sync_device))
    elapsed = time.perf_counter() - start
    profiling.finish(profiler, args.profile)
    want = torch.mm(a, a)
    if not args.randn and not torch.allclose(b, want):
        sys.exit("sync_loop: verification failed: the last product differs")
    print(f"sync_loop: {'no sync' if args.no_sync else 'sync'}, {args.size}x{args.size}: "
          f"{args.iterations / elapsed:.0f} iterations/s")


if __name__ == "__main__":
    main()
