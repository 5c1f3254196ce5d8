#!/usr/bin/env python3
"""Issue 17's copy pair in PyTorch: a DataLoader-style host-to-device copy of the next batch
(64 MiB of fp32, tensor.to(device, non_blocking=True) on a copy stream) beside a GEMM on the
compute stream, from pageable memory (--pageable: what a DataLoader gives without pin_memory) or
page-locked memory (--pinned: pin_memory=True). From pageable memory the copy call holds the host
for the whole copy (the driver stages it), so the GEMM is launched only after it and the two never
overlap; pinned, the copy runs beside the GEMM. Each repetition is the NVTX range "rep N" (GPU
time); one untimed repetition first. Prints ms per repetition."""
import argparse
import sys
import time

import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--pageable", action="store_true", help="the batch in ordinary (pageable) memory")
    mode.add_argument("--pinned", action="store_true", help="the batch in page-locked memory")
    parser.add_argument("--batch-mib", type=int, default=64, help="batch size in MiB (default 64)")
    parser.add_argument("--size", type=int, default=4096, help="GEMM side (default 4096)")
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions (default 5)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("loader_copy: no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    device = torch.device("cuda:0")
    batch = torch.randn(args.batch_mib * 1024 * 1024 // 4)
    if args.pinned:
        batch = batch.pin_memory()
    a = torch.randn(args.size, args.size, device=device)
    b = torch.randn(args.size, args.size, device=device)
    out = torch.empty_like(a)
    copy_stream, compute_stream = torch.cuda.Stream(), torch.cuda.Stream()

    def rep():
        with torch.cuda.stream(copy_stream):  # the next batch
            on_device = batch.to(device, non_blocking=True)
        with torch.cuda.stream(compute_stream):  # this batch's work
            torch.mm(a, b, out=out)
        torch.cuda.synchronize()
        return on_device

    rep()
    start = time.perf_counter()
    for index in range(args.reps):
        torch.cuda.nvtx.range_push(f"rep {index}")
        on_device = rep()
        torch.cuda.nvtx.range_pop()
    elapsed = time.perf_counter() - start
    if not torch.equal(on_device.cpu(), batch.cpu()):
        sys.exit("loader_copy: the copied batch differs")
    print(f"loader_copy: {torch.cuda.get_device_name(0)}, {'pinned' if args.pinned else 'pageable'} "
          f"{args.batch_mib} MiB beside a {args.size}^2 GEMM: {elapsed * 1e3 / args.reps:.2f} ms per repetition")


if __name__ == "__main__":
    main()
