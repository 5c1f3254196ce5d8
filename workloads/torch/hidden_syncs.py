#!/usr/bin/env python3
"""Two synchronizations PyTorch users do not see in their code (issue 32 item 7), each beside
work queued on a side stream that the synchronization then waits for, with its fix:

  --mode empty-cache     each iteration frees a temporary and calls torch.cuda.empty_cache():
                         the cached block goes back to the driver through cudaFree, which
                         synchronizes the device, so the host waits for the side stream's GEMM
  --mode no-empty-cache  the same work without empty_cache() (the allocator keeps the block)
  --mode mask            x[x > 0].sum(): boolean-mask indexing runs nonzero and copies its count
                         to the host (a D2H the host waits for), behind the side stream's GEMM
  --mode where           torch.where(x > 0, x, 0).sum(): the same sum, no host round trip (and
                         no nonzero kernels: the fix removes GPU work too)

Each iteration is the NVTX range "step N" (steps for the analysis's steady state); --iterations
iterations after an untimed warm-up. --compare MODES times the given modes interleaved in this
process (--rounds rounds, unrecorded) and prints one JSON line {mode: [ms per loop, ...]}.
--profile DIR writes a torch.profiler Chrome trace with stacks (DIR/rank0.json)."""
import argparse
import json
import sys
import time

import torch

import profiling

MODES = ("empty-cache", "no-empty-cache", "mask", "where")


class Loop:
    """The work of every mode: a GEMM on a side stream, then the mode's own step on the
    default stream."""

    def __init__(self, device, gemm, vector):
        torch.manual_seed(0)
        self.device = device
        self.side = torch.cuda.Stream(device)
        self.a = torch.randn(gemm, gemm, device=device, dtype=torch.bfloat16)
        self.x = torch.randn(vector, device=device)
        self.total = torch.zeros((), device=device)

    def step(self, mode):
        with torch.cuda.stream(self.side):
            self.a = torch.mm(self.a, self.a).clamp_(-1, 1)
        if mode in ("empty-cache", "no-empty-cache"):
            scratch = torch.empty(64 << 20, dtype=torch.uint8, device=self.device).fill_(1)
            self.total += scratch[:1024].float().sum()
            del scratch
            if mode == "empty-cache":
                torch.cuda.empty_cache()
        elif mode == "mask":
            self.total += self.x[self.x > 0].sum()
        else:
            self.total += torch.where(self.x > 0, self.x, 0).sum()

    def run(self, mode, iterations, mark=False):
        for index in range(iterations):
            if mark:
                torch.cuda.nvtx.range_push(f"step {index}")
                with torch.profiler.record_function(f"step {index}"):  # the range in a Chrome trace
                    self.step(mode)
                torch.cuda.nvtx.range_pop()
            else:
                self.step(mode)
        torch.cuda.synchronize(self.device)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=MODES, help="the variant recorded")
    parser.add_argument("--compare", metavar="MODES", help="comma-separated modes timed interleaved")
    parser.add_argument("--iterations", type=int, default=200, help="iterations (default 200)")
    parser.add_argument("--rounds", type=int, default=7, help="--compare rounds (default 7)")
    parser.add_argument("--gemm", type=int, default=8192, help="side GEMM side (default 8192: about 1.5 ms on an H200, long enough that a synchronization waits for it)")
    parser.add_argument("--vector", type=int, default=1 << 22, help="mask vector length (default 4M)")
    parser.add_argument("--profile", metavar="DIR", help="write a Chrome trace into DIR")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("hidden_syncs: no CUDA device")
    if bool(args.mode) == bool(args.compare):
        sys.exit("hidden_syncs: give --mode or --compare")
    device = torch.device("cuda:0")
    loop = Loop(device, args.gemm, args.vector)
    if args.compare:
        modes = args.compare.split(",")
        bad = [m for m in modes if m not in MODES]
        if bad:
            sys.exit(f"hidden_syncs: unknown mode {bad[0]!r}")
        for mode in modes:
            loop.run(mode, 20)  # warm-up, untimed
        times = {m: [] for m in modes}
        for _ in range(args.rounds):
            for mode in modes:
                start = time.perf_counter()
                loop.run(mode, args.iterations)
                times[mode].append((time.perf_counter() - start) * 1e3)
        print(json.dumps(times))
        return
    loop.run(args.mode, 20)  # warm-up: cuBLAS selection, the allocator's growth
    profiler = profiling.start(args.profile, with_stack=True)
    start = time.perf_counter()
    loop.run(args.mode, args.iterations, mark=True)
    elapsed = time.perf_counter() - start
    profiling.finish(profiler, args.profile)
    print(f"hidden_syncs: {torch.cuda.get_device_name(0)}, {args.mode}: {elapsed * 1e3:.1f} ms for "
          f"{args.iterations} iterations")


if __name__ == "__main__":
    main()
