#!/usr/bin/env python3
"""A late rank in real PyTorch DDP: an MLP trained under DistributedDataParallel (NCCL all-reduces
its gradient buckets from autograd hooks during backward), one rank per GPU under torchrun, each
step logging loss.item() (a host sync per step, the commonest loop). --slow-rank R --slow-ms N
makes rank R's host spend N ms on the CPU before each step's forward (a slow data loader on one
node): its all-reduces reach NCCL N ms after the others', so every other rank waits for it in every
step (arrival skew; R is the straggler). With --slow-ms 0 the ranks run alike. NVTX "step K" per
step. --heavy-rank R --heavy-factor F gives rank R F times the others' batch (load imbalance: its GPU
computes F times as long per step, the others wait in the all-reduce); --balanced then gives every
rank the mean batch instead (the same total work, balanced). Prints steps/s on rank 0.

Run: torchrun --standalone --nproc_per_node=2 ddp_straggler.py --slow-ms 5"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def busy_ms(ms):
    """Host CPU work for ms milliseconds (a loader decoding a batch), not a sleep: the thread stays
    on the CPU, as real loading does."""
    end = time.perf_counter() + ms / 1e3
    while time.perf_counter() < end:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="training steps (default 20)")
    parser.add_argument("--slow-rank", type=int, default=1, help="the rank made late (default 1)")
    parser.add_argument("--slow-ms", type=float, default=5.0, help="host ms that rank spends per step (default 5)")
    parser.add_argument("--heavy-rank", type=int, default=-1, help="the rank given a larger batch (default none)")
    parser.add_argument("--heavy-factor", type=float, default=2.0, help="its batch over the others' (default 2)")
    parser.add_argument("--balanced", action="store_true", help="every rank the mean batch of the heavy run")
    parser.add_argument("--width", type=int, default=2048, help="MLP width (default 2048)")
    args = parser.parse_args()
    if "LOCAL_RANK" not in os.environ:
        sys.exit("ddp_straggler: start it with torchrun (RANK, WORLD_SIZE, LOCAL_RANK)")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    rank = dist.get_rank()
    torch.manual_seed(0)
    layers = []
    for _ in range(8):
        layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
    model = DDP(torch.nn.Sequential(*layers).cuda(), device_ids=[local_rank], bucket_cap_mb=16)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    world = dist.get_world_size()
    rows = 256
    if args.heavy_rank >= 0 and args.balanced:
        rows = round(256 * (world - 1 + args.heavy_factor) / world)
    elif rank == args.heavy_rank:
        rows = round(256 * args.heavy_factor)
    x = torch.randn(rows, args.width, device="cuda")
    y = torch.randn(rows, args.width, device="cuda")
    for _ in range(3):  # warm-up: NCCL set-up and cuBLAS, outside the steps
        optimizer.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    torch.cuda.synchronize()
    dist.barrier()
    start = time.perf_counter()
    for step in range(args.steps):
        torch.cuda.nvtx.range_push(f"step {step}")
        if rank == args.slow_rank and args.slow_ms > 0:
            torch.cuda.nvtx.range_push("slow loader")
            busy_ms(args.slow_ms)
            torch.cuda.nvtx.range_pop()
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        loss.item()  # logged every step: the host waits for the step
        torch.cuda.nvtx.range_pop()
    seconds = time.perf_counter() - start
    if rank == 0:
        print(f"ddp_straggler: {dist.get_world_size()} ranks, rank {args.slow_rank} +{args.slow_ms} ms a step: "
              f"{args.steps / seconds:.2f} steps/s, loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
