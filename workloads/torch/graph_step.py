#!/usr/bin/env python3
"""A launch-bound PyTorch training step, run eagerly or captured once in a CUDA graph and replayed:
the what-if pair of the cuda-graph fix on a real PyTorch job (tests/gpu/whatif_pairs.sh).

The model is small enough that the host, not the GPU, sets the pace (a 12-layer, 256-wide MLP,
batch 256, MSE loss, SGD): each eager step launches about a hundred kernels, the forward pass and
the optimizer from the main thread, the backward pass from PyTorch's autograd thread. With
--mode graph the same step (same model, same static batch, same kernels) is captured once with
torch.cuda.graph, the whole-network capture of PyTorch's CUDA graphs notes (warm-up on a side
stream first), and each step is one replay. Both modes run --warmup untimed steps, then --steps
steps, each in the NVTX range "step N"; both end with the same loss when the capture is right
(printed). Prints steps per second over the timed steps."""
import argparse
import sys
import time

import torch
import torch.nn as nn


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", required=True, choices=["eager", "graph"])
    parser.add_argument("--steps", type=int, default=60, help="timed steps (default 60)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps first (default 5)")
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--depth", type=int, default=12)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("graph_step: no CUDA device")
    torch.manual_seed(0)
    layers = []
    for _ in range(args.depth):
        layers += [nn.Linear(args.width, args.width), nn.ReLU()]
    model = nn.Sequential(*layers).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(256, args.width, device="cuda")
    y = torch.randn(256, args.width, device="cuda")

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    if args.mode == "eager":
        for _ in range(args.warmup):
            loss = step()
        run = step
    else:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up outside the capture, as the notes ask
            for _ in range(max(args.warmup - 1, 1)):
                loss = step()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        optimizer.zero_grad(set_to_none=True)
        with torch.cuda.graph(graph):
            static_loss = ((model(x) - y) ** 2).mean()
            static_loss.backward()
            optimizer.step()
        graph.replay()  # the capture's own step ran nothing: this is the last warm-up step

        def run():
            graph.replay()
            return static_loss
    torch.cuda.synchronize()

    begin = time.perf_counter()
    for n in range(args.steps):
        torch.cuda.nvtx.range_push(f"step {n}")
        loss = run()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - begin
    print(f"graph_step: mode={args.mode} steps={args.steps} seconds={seconds:.4f} "
          f"steps_per_s={args.steps / seconds:.1f} loss={loss.item():.6f}")


if __name__ == "__main__":
    main()
