#!/usr/bin/env python3
"""A training loop starved by its data loader: every batch costs --load-ms of host (CPU) work
before it reaches the GPU, and the model's step takes far less GPU time than that, so the GPU
idles most of each step while the host prepares the next batch (docs/metrics.md, "Idle time":
host-cpu, or step-boundary labelled host-cpu between profiler steps). --workers N loads in N
DataLoader worker processes instead (with enough workers the GPU is fed). Prints steps/s.

The training loop is one NVTX range, "train", from the first batch (after the workers started and
loaded it) to the last step's end: the same work in every mode, the what-if pair's delimiter
(tests/report/whatif_pairs.py: the host's own work moved off the launching thread).

--profile DIR writes a torch.profiler Chrome trace (DIR/rank0.json) with ProfilerStep#N ranges and
stacks."""
import argparse
import itertools
import sys
import time

import torch

import profiling


class SlowDataset(torch.utils.data.Dataset):
    """Synthetic images whose preparation burns --load-ms of CPU time each (decoding, resizing)."""

    def __init__(self, count, load_ms, batch):
        self.count, self.load_s, self.batch = count, load_ms / 1e3, batch

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        deadline = time.perf_counter() + self.load_s
        generator = torch.Generator().manual_seed(index)
        images = torch.rand(self.batch, 3, 64, 64, generator=generator)
        while time.perf_counter() < deadline:  # the CPU work a real loader does
            images = images * 1.0000001
        return images, torch.randint(0, 10, (self.batch,), generator=generator)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30, help="training steps (default 30)")
    parser.add_argument("--batch", type=int, default=32, help="images per batch (default 32)")
    parser.add_argument("--load-ms", type=float, default=20, help="CPU time per batch (default 20 ms)")
    parser.add_argument("--workers", type=int, default=0, help="DataLoader workers (default 0: in the loop)")
    parser.add_argument("--profile", metavar="DIR", help="write a Chrome trace into DIR")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("starved_loader: no CUDA device")
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(8),
        torch.nn.Flatten(), torch.nn.Linear(32 * 8 * 8, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = torch.nn.CrossEntropyLoss()
    loader = torch.utils.data.DataLoader(SlowDataset(args.steps, args.load_ms, args.batch), batch_size=None,
                                         num_workers=args.workers, pin_memory=True)

    batches = iter(loader)
    first = next(batches)  # the workers' start-up: outside the timed loop
    profiler = profiling.start(args.profile, with_stack=True)
    torch.cuda.nvtx.range_push("train")
    start, loss = time.perf_counter(), None
    for images, labels in itertools.chain([first], batches):
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        if profiler:
            profiler.step()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    torch.cuda.nvtx.range_pop()
    profiling.finish(profiler, args.profile)
    if loss is None or not torch.isfinite(loss):
        sys.exit("starved_loader: verification failed: no finite loss")
    print(f"starved_loader: {args.workers} workers, {args.load_ms} ms of loading per batch: "
          f"{args.steps / elapsed:.1f} steps/s, loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
