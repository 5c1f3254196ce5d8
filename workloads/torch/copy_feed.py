#!/usr/bin/env python3
"""Seed 002 ("how do I overlap data transfer with compute?") on a real training loop: ResNet-18
(bf16, batch 128) trained on batches already in host memory (fp32, 73.5 MiB each), the batch copied
to the GPU each step, five ways:

  --mode pageable      ordinary tensors, x.to(device, non_blocking=True) on the compute stream (the
                       driver stages a pageable copy: the host waits and the SMs idle)
  --mode pinned        the same call from page-locked tensors (pin_memory=True)
  --mode prefetch      pinned, each batch copied one step ahead on a side stream (the compute stream
                       waits on an event for it): the copy hides behind the previous step's compute
  --mode d2h-pageable  pinned input; each step also reads a batch-sized result back with .cpu()
                       (a device-to-host copy into pageable memory that the host waits for)
  --mode d2h-pinned    the same result read back into a page-locked buffer, non_blocking, one sync
                       at the end of the epoch

Each epoch (12 steps) is the NVTX range "epoch N"; one untimed epoch first. --compare MODES runs
the given modes interleaved in this one process (--rounds rounds, each mode once per round, not
recorded) and prints one JSON line {mode: [ms per epoch, ...]} so a prediction is checked against
the fixed program measured in the same call. --profile DIR writes a torch.profiler Chrome trace
(DIR/rank0.json, with stacks) of the timed epochs, for `overlapscope import`."""
import argparse
import json
import sys
import time

import torch
import torchvision

import profiling

MODES = ("pageable", "pinned", "prefetch", "d2h-pageable", "d2h-pinned")


class Feed:
    """The batches of one mode in host memory and one training epoch over them."""

    def __init__(self, mode, model, optimizer, steps, batch, device):
        self.mode, self.model, self.optimizer, self.steps, self.device = mode, model, optimizer, steps, device
        pinned = mode != "pageable"
        self.inputs = [torch.randn(batch, 3, 224, 224) for _ in range(steps)]
        self.labels = [torch.randint(0, 1000, (batch,)) for _ in range(steps)]
        if pinned:
            self.inputs = [t.pin_memory() for t in self.inputs]
            self.labels = [t.pin_memory() for t in self.labels]
        self.side = torch.cuda.Stream(device) if mode == "prefetch" else None
        self.readback = torch.empty(batch, 3, 224, 224).pin_memory() if mode == "d2h-pinned" else None

    def to_device(self, index):
        return (self.inputs[index].to(self.device, non_blocking=True),
                self.labels[index].to(self.device, non_blocking=True))

    def prefetched(self, index):
        """Issues batch index's copy on the side stream; returns it and the event the compute
        stream waits on."""
        with torch.cuda.stream(self.side):
            x, y = self.to_device(index)
            ready = torch.cuda.Event()
            ready.record(self.side)
        return x, y, ready

    def step(self, x, y):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()

    def epoch(self):
        compute = torch.cuda.current_stream(self.device)
        ahead = self.prefetched(0) if self.side else None
        for index in range(self.steps):
            if self.side:
                x, y, ready = ahead
                compute.wait_event(ready)
                x.record_stream(compute)
                y.record_stream(compute)
                if index + 1 < self.steps:
                    ahead = self.prefetched(index + 1)
            else:
                x, y = self.to_device(index)
            self.step(x, y)
            if self.mode == "d2h-pageable":
                result = (x * 0.5).cpu()  # a batch-sized result read back: pageable, the host waits
            elif self.mode == "d2h-pinned":
                self.readback.copy_(x * 0.5, non_blocking=True)
        torch.cuda.synchronize(self.device)
        if self.mode == "d2h-pageable":
            return result
        return None


def build(device):
    torch.manual_seed(0)
    model = torchvision.models.resnet18().to(device).to(memory_format=torch.channels_last)
    return model, torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)


def timed_epoch(feed):
    start = time.perf_counter()
    feed.epoch()
    return (time.perf_counter() - start) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=MODES, help="how the batches reach the GPU")
    parser.add_argument("--compare", metavar="MODES", help="comma-separated modes timed interleaved")
    parser.add_argument("--epochs", type=int, default=2, help="timed epochs (default 2)")
    parser.add_argument("--rounds", type=int, default=5, help="--compare rounds (default 5)")
    parser.add_argument("--steps", type=int, default=12, help="steps per epoch (default 12)")
    parser.add_argument("--batch", type=int, default=128, help="batch size (default 128)")
    parser.add_argument("--profile", metavar="DIR", help="write a Chrome trace into DIR")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("copy_feed: no CUDA device")
    if bool(args.mode) == bool(args.compare):
        sys.exit("copy_feed: give --mode or --compare")
    device = torch.device("cuda:0")
    torch.backends.cudnn.benchmark = False
    model, optimizer = build(device)
    if args.compare:
        modes = args.compare.split(",")
        bad = [m for m in modes if m not in MODES]
        if bad:
            sys.exit(f"copy_feed: unknown mode {bad[0]!r}")
        feeds = {m: Feed(m, model, optimizer, args.steps, args.batch, device) for m in modes}
        for feed in feeds.values():
            feed.epoch()  # warm-up, untimed
        times = {m: [] for m in modes}
        for _ in range(args.rounds):
            for m in modes:
                times[m].append(timed_epoch(feeds[m]))
        print(json.dumps(times))
        return
    feed = Feed(args.mode, model, optimizer, args.steps, args.batch, device)
    feed.epoch()  # warm-up: cuDNN and cuBLAS selection, the allocator's growth
    per_epoch = []
    profiler = profiling.start(args.profile, with_stack=True)
    for index in range(args.epochs):
        torch.cuda.nvtx.range_push(f"epoch {index}")
        with torch.profiler.record_function(f"epoch {index}"):  # the range in a Chrome trace
            per_epoch.append(timed_epoch(feed))
        torch.cuda.nvtx.range_pop()
    profiling.finish(profiler, args.profile)
    print(f"copy_feed: {torch.cuda.get_device_name(0)}, {args.mode}: "
          f"{min(per_epoch):.1f} ms per epoch of {args.steps} steps (best of {args.epochs})")


if __name__ == "__main__":
    main()
