#!/usr/bin/env python3
"""Seed 003 in PyTorch: a frozen encoder feeds a trained decoder, and the input batch is
augmented on the GPU. With pipelining (default) a side stream uploads, augments and encodes
batch n+1 while the model stream trains the decoder on batch n; --serial does everything on the
current stream. Prints steps/s.

--profile DIR writes a torch.profiler Chrome trace (DIR/rank0.json); --steps N sets the number of
timed steps (after 5 warm-up steps)."""
import argparse
import sys
import time

import torch

import profiling
import torch.nn.functional as F

IMG, CLASSES, WARMUP = 128, 10, 5


def make_encoder():
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, stride=2, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 64, 3, stride=2, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(64, 128, 3, stride=2, padding=1), torch.nn.ReLU())


def make_decoder():
    return torch.nn.Sequential(
        torch.nn.ConvTranspose2d(128, 64, 2, stride=2), torch.nn.ReLU(),
        torch.nn.ConvTranspose2d(64, 32, 2, stride=2), torch.nn.ReLU(),
        torch.nn.ConvTranspose2d(32, CLASSES, 2, stride=2))


def augment(images, blur):
    """GPU augmentation per sample: random flip, random brightness, Gaussian blur, normalize."""
    x = images.float() / 255.0
    flip = torch.rand(x.shape[0], 1, 1, 1, device=x.device) < 0.5
    x = torch.where(flip, x.flip(-1), x)
    x = x * (0.8 + 0.4 * torch.rand(x.shape[0], 1, 1, 1, device=x.device))
    x = F.conv2d(x, blur, padding=blur.shape[-1] // 2, groups=3)
    return (x - x.mean(dim=(2, 3), keepdim=True)) / (x.std(dim=(2, 3), keepdim=True) + 1e-5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30, help="timed steps (default 30)")
    parser.add_argument("--batch", type=int, default=16, help="images per batch (default 16)")
    parser.add_argument("--serial", action="store_true", help="no side stream")
    parser.add_argument("--profile", metavar="DIR", help="write a Chrome trace into DIR")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("pipeline_aug: no CUDA device")
    device = torch.device("cuda")
    torch.manual_seed(0)
    encoder = make_encoder().to(device).eval().requires_grad_(False)
    decoder = make_decoder().to(device).train()
    optimizer = torch.optim.SGD(decoder.parameters(), lr=0.01)
    criterion = torch.nn.CrossEntropyLoss()
    g = torch.exp(-torch.arange(-3, 4, dtype=torch.float32) ** 2 / 4)
    blur = (g[:, None] * g[None, :] / g.sum() ** 2).expand(3, 1, 7, 7).contiguous().to(device)
    # A pool of pinned host batches stands in for the data loader.
    pool = [(torch.randint(0, 256, (args.batch, 3, IMG, IMG), dtype=torch.uint8).pin_memory(),
             torch.randint(0, CLASSES, (args.batch, IMG, IMG)).pin_memory()) for _ in range(4)]

    side = torch.cuda.current_stream() if args.serial else torch.cuda.Stream()
    model_stream = torch.cuda.current_stream() if args.serial else torch.cuda.Stream()

    def prepare(index):
        images, labels = pool[index % len(pool)]
        with torch.cuda.stream(side), torch.no_grad():
            features = encoder(augment(images.to(device, non_blocking=True), blur))
            labels = labels.to(device, non_blocking=True)
        # Consumed on the model stream: keep the allocator from reusing them too early.
        features.record_stream(model_stream)
        labels.record_stream(model_stream)
        return features, labels

    def train(features, labels):
        with torch.cuda.stream(model_stream):
            model_stream.wait_stream(side)
            optimizer.zero_grad()
            loss = criterion(decoder(features), labels)
            loss.backward()
            optimizer.step()
        return loss

    profiler = profiling.start(args.profile)
    total = WARMUP + args.steps
    ready, loss, start = prepare(0), None, time.perf_counter()
    for index in range(total):
        if index == WARMUP:
            torch.cuda.synchronize()
            start = time.perf_counter()
        loss = train(*ready)  # batch n on the model stream, then batch n+1 on the side stream
        ready = prepare(index + 1) if index + 1 < total else None
        if profiler:
            profiler.step()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    profiling.finish(profiler, args.profile)
    if not torch.isfinite(loss):
        sys.exit(f"pipeline_aug: loss is {loss.item()}")
    print(f"pipeline_aug: {'serial' if args.serial else 'pipelined'}, batch {args.batch}: "
          f"{args.steps / elapsed:.1f} steps/s, loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
