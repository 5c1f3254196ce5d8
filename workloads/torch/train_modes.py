#!/usr/bin/env python3
"""Real PyTorch training loops of the shapes users record, one per --mode, to check that
overlapscope's record, report, render and export stay right on what PyTorch itself launches:
  compile         torch.compile'd MLP (Inductor's Triton kernels, launched through cuLaunchKernelEx)
  compile-graphs  the same, mode="reduce-overhead" (CUDA graphs: kernels with graph ids)
  amp-scaler      fp16 autocast with GradScaler on a small convnet (the scaler reads found_inf
                  from the device every step: a host sync the program does not spell out)
  prefetch        the next batch copied from page-locked memory on a side stream while the
                  current one computes (copies hidden behind compute: nothing to fix)
  item-log        an MLP whose loop logs loss.item() every step (a host sync per step)
Each step is the NVTX range "step N" (and a profiler-style record_function "ProfilerStep#N").
Prints steps per second over the timed steps."""
import argparse
import sys
import time

import torch
import torch.nn as nn


def mlp(width, depth):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.LayerNorm(width), nn.GELU()]
    return nn.Sequential(*layers, nn.Linear(width, 10))


def convnet():
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.MaxPool2d(2))
    return nn.Sequential(block(3, 64), block(64, 128), block(128, 256), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(256, 10))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", required=True,
                        choices=["compile", "compile-graphs", "amp-scaler", "prefetch", "item-log"])
    parser.add_argument("--steps", type=int, default=60, help="timed steps (default 60)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps first (default 5)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("train_modes: no CUDA device")
    torch.manual_seed(0)
    device = torch.device("cuda:0")
    mode = args.mode
    if mode == "amp-scaler":
        model = convnet().to(device)
        inputs = torch.randn(64, 3, 64, 64, device=device)
    else:
        model = mlp(1024 if mode != "prefetch" else 4096, 8 if mode != "prefetch" else 4).to(device)
        inputs = torch.randn(256 if mode != "prefetch" else 8192, 1024 if mode != "prefetch" else 4096,
                             device=device)
    labels = torch.randint(0, 10, (inputs.shape[0],), device=device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda") if mode == "amp-scaler" else None
    if mode in ("compile", "compile-graphs"):
        model = torch.compile(model, mode="reduce-overhead" if mode == "compile-graphs" else None)
    host_batches = copy_stream = None
    if mode == "prefetch":  # two page-locked host batches, copied ahead on a side stream
        host_batches = [torch.randn(inputs.shape).pin_memory() for _ in range(2)]
        copy_stream = torch.cuda.Stream()
        next_batch = host_batches[0].to(device, non_blocking=True)

    def step(index):
        nonlocal next_batch
        x = inputs
        if mode == "prefetch":
            torch.cuda.current_stream().wait_stream(copy_stream)
            x = next_batch
            x.record_stream(torch.cuda.current_stream())
            with torch.cuda.stream(copy_stream):
                next_batch = host_batches[(index + 1) % 2].to(device, non_blocking=True)
        if mode == "compile-graphs":
            torch.compiler.cudagraph_mark_step_begin()
        optimizer.zero_grad(set_to_none=True)
        if scaler:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = loss_fn(model(x), labels)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss = loss_fn(model(x), labels)
            loss.backward()
            optimizer.step()
        if mode == "item-log" and loss.item() != loss.item():
            sys.exit("train_modes: the loss is NaN")
        return loss

    if mode != "prefetch":
        next_batch = None
    for index in range(args.warmup):
        step(index)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for index in range(args.steps):
        torch.cuda.nvtx.range_push(f"step {index}")
        with torch.profiler.record_function(f"ProfilerStep#{index}"):
            loss = step(index)
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    print(f"train_modes {mode}: {torch.cuda.get_device_name(0)}, {args.steps / elapsed:.1f} steps/s, "
          f"final loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
