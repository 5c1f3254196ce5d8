#!/usr/bin/env python3
"""Issue 17's saturation pair in PyTorch: two big fp32 GEMMs (8192 x 8192, TF32 off) per
repetition, on two streams (--streams 2) or one (--streams 1). Each GEMM fills every SM for many
waves, so the second stream buys nothing but the last wave's tail: the two-stream run must not be
faster than the one-stream run by more than that, and the what-if must say so ("SM saturation:
nothing to gain but the tails", a prediction under 10% of the span). Each repetition is the NVTX
range "rep N" (GPU time: the work launched inside it); one untimed repetition first loads cuBLAS.
Prints ms per repetition and a checksum that is the same for both modes."""
import argparse
import sys
import time

import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, choices=(1, 2), default=2, help="streams for the two GEMMs")
    parser.add_argument("--size", type=int, default=8192, help="matrix side (default 8192)")
    parser.add_argument("--reps", type=int, default=3, help="timed repetitions (default 3)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("two_gemms: no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    device = torch.device("cuda:0")
    generator = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(args.size, args.size, device=device, generator=generator)
    b = torch.randn(args.size, args.size, device=device, generator=generator)
    first, second = torch.cuda.Stream(), torch.cuda.Stream()
    if args.streams == 1:
        second = first
    x = torch.empty_like(a)
    y = torch.empty_like(a)

    def rep():
        first.wait_stream(torch.cuda.current_stream())
        second.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(first):
            torch.mm(a, b, out=x)
        with torch.cuda.stream(second):
            torch.mm(b, a, out=y)
        torch.cuda.current_stream().wait_stream(first)
        torch.cuda.current_stream().wait_stream(second)
        torch.cuda.synchronize()

    rep()  # cuBLAS handles and workspaces, outside the timed ranges
    start = time.perf_counter()
    for index in range(args.reps):
        torch.cuda.nvtx.range_push(f"rep {index}")
        rep()
        torch.cuda.nvtx.range_pop()
    elapsed = time.perf_counter() - start
    checksum = float(x.double().sum() + y.double().sum())
    print(f"two_gemms: {torch.cuda.get_device_name(0)}, {args.streams} stream(s), {args.size}^2 fp32: "
          f"{elapsed * 1e3 / args.reps:.2f} ms per repetition, checksum={checksum:.6e}")


if __name__ == "__main__":
    main()
