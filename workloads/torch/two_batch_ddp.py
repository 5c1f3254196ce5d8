#!/usr/bin/env python3
"""Seed 000's DDP demo without its profiler: two batches per step on two CUDA streams, each with
fc1, an all_gather over the ranks and fc2, under DistributedDataParallel; one process per GPU
through torch.multiprocessing.spawn (2 ranks, or 1 on a single-GPU machine), or one rank per
process when started by torchrun (RANK, WORLD_SIZE and LOCAL_RANK set).

--profile DIR writes one torch.profiler Chrome trace per rank (DIR/rank<R>.json) for the
importer's fixtures; --steps N sets the number of training steps."""
import argparse
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class StreamModel(torch.nn.Module):
    """The seed's model: the odd and the even batch each on its own stream."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(10, 20)
        self.fc2 = torch.nn.Linear(20, 2)
        self.stream_odd = torch.cuda.Stream()
        self.stream_even = torch.cuda.Stream()

    def branch(self, stream, x):
        with torch.cuda.stream(stream):
            x = torch.relu(self.fc1(x))
            gathered = [torch.zeros_like(x) for _ in range(dist.get_world_size())]
            dist.all_gather(gathered, x)
            return self.fc2(torch.cat(gathered, dim=0))

    def forward(self, x_odd, x_even):
        x_odd = x_odd.cuda(non_blocking=True)
        x_even = x_even.cuda(non_blocking=True)
        out_odd = self.branch(self.stream_odd, x_odd)
        out_even = self.branch(self.stream_even, x_even)
        torch.cuda.synchronize(self.stream_odd)
        torch.cuda.synchronize(self.stream_even)
        return torch.cat([out_odd, out_even], dim=1)


class RandomDataset(Dataset):
    def __init__(self, size, length):
        self.data = torch.randn(length, size)

    def __getitem__(self, index):
        return self.data[index]

    def __len__(self):
        return len(self.data)


def train(rank, world_size, steps, profile_dir):
    os.environ.setdefault("MASTER_ADDR", "localhost")
    torch.cuda.set_device(rank)
    dist.init_process_group(backend="nccl", rank=rank, world_size=world_size,
                            device_id=torch.device("cuda", rank))
    torch.manual_seed(rank)
    model = DDP(StreamModel().to(rank), device_ids=[rank], find_unused_parameters=True)
    dataset = RandomDataset(size=10, length=100)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    loader = DataLoader(dataset, batch_size=20, sampler=sampler)
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

    profiler = None
    if profile_dir:
        from torch.profiler import ProfilerActivity, profile
        profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True)
        profiler.start()
    step, epoch, loss = 0, 0, None
    while step < steps:
        sampler.set_epoch(epoch)
        for batch in loader:
            if step == steps:
                break
            optimizer.zero_grad()
            with torch.autograd.profiler.record_function("forward"):
                output = model(batch, batch)
            with torch.autograd.profiler.record_function("loss_computation"):
                loss = criterion(output, torch.randn_like(output))
            with torch.autograd.profiler.record_function("backward"):
                loss.backward()
            with torch.autograd.profiler.record_function("optimizer_step"):
                optimizer.step()
            if profiler:
                profiler.step()
            step += 1
        epoch += 1
    torch.cuda.synchronize()
    if profiler:
        profiler.stop()
        os.makedirs(profile_dir, exist_ok=True)
        profiler.export_chrome_trace(os.path.join(profile_dir, f"rank{rank}.json"))
    if not torch.isfinite(loss):
        raise SystemExit(f"rank {rank}: loss is {loss.item()}")
    if rank == 0:
        print(f"two_batch_ddp: {world_size} ranks, {steps} steps, loss {loss.item():.4f}"
              + (f", traces in {profile_dir}" if profile_dir else ""))
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="training steps (default 20)")
    parser.add_argument("--profile", metavar="DIR", help="write a Chrome trace per rank into DIR")
    parser.add_argument("--world", type=int, default=0, help="ranks (default: 2, or 1 with one GPU)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("two_batch_ddp: no CUDA device")
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # started by torchrun: this is one rank
        train(int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"]), args.steps, args.profile)
        return
    world = args.world or min(2, torch.cuda.device_count())
    os.environ.setdefault("MASTER_PORT", str(free_port()))
    mp.spawn(train, args=(world, args.steps, args.profile), nprocs=world, join=True)


if __name__ == "__main__":
    main()
