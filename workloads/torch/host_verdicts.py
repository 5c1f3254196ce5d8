#!/usr/bin/env python3
"""Reference jobs for the host verdicts of issue 31 (what the GPU waited for on the host), one per
JOB, each small (a few seconds on an H200) and each with the Python function where its host time
goes named after the verdict, so that a test can check the host samples name it:

  io_loader        a DataLoader (2 workers) whose dataset reads files and waits for the disk
                   (os.fsync of a fresh write, then a read) in read_sample(): the workers sleep (S, D),
                   the main thread sleeps in the loader's queue; the GPU idles.
  launch_blocking  two streams of ~100 us matmuls; run it with CUDA_LAUNCH_BLOCKING=1 (the variable
                   is the cause: every launch returns only after its kernel ends, so the streams
                   never overlap) in launch_pair().
  warmup           the loop of 300 mm + torch.cuda.synchronize() whose first call carries the
                   one-time work (cuBLAS handle and workspace, lazy module loading) in first_call();
                   the steady state in steady_loop().
  gc_loop          a loop that builds many cyclic objects and calls gc.collect() every step in
                   collect_garbage(), between small GPU steps.
  lock_wait        the launching thread takes a threading.Lock before each step while a Python side
                   thread holds it for 20 ms at a time computing in hold_lock(): the launching thread
                   sleeps in wait_for_lock() while another thread of its process runs Python.

Prints one line "JOB: STEPS steps in SECONDS s". Usage: host_verdicts.py JOB [--steps N]."""
import argparse
import gc
import os
import tempfile
import threading
import time

import torch


def read_sample(folder, index):
    """One sample from disk: a fresh 256 KiB file written and fsync'd (a disk wait), then read and
    removed. A file per sample: two workers writing one name truncated each other's reads."""
    path = os.path.join(folder, f"sample{index}.bin")
    with open(path, "wb") as out:
        out.write(os.urandom(256 * 1024))
        out.flush()
        os.fsync(out.fileno())
    with open(path, "rb") as source:
        data = source.read()
    os.unlink(path)
    time.sleep(0.005)  # the rest of a slow storage's latency
    return torch.frombuffer(bytearray(data[:4096]), dtype=torch.uint8).float()


class FileDataset(torch.utils.data.Dataset):
    def __init__(self, folder, count):
        self.folder, self.count = folder, count

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        return read_sample(self.folder, index)


def io_loader(steps):
    folder = tempfile.mkdtemp(prefix="io_loader_")
    loader = torch.utils.data.DataLoader(FileDataset(folder, steps * 8), batch_size=8, num_workers=2)
    weight = torch.randn(4096, 4096, device="cuda")
    for batch in loader:
        x = batch.cuda(non_blocking=True)
        (x @ weight).sum().item()


def launch_pair(streams, a):
    for stream in streams:
        with torch.cuda.stream(stream):
            torch.mm(a, a)


def launch_blocking(steps):
    a = torch.randn(2048, 2048, device="cuda")
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    for _ in range(steps * 20):
        launch_pair(streams, a)
    torch.cuda.synchronize()


def first_call(a):
    return torch.mm(a, a)  # the first mm: cuBLAS's handle, workspace and kernel selection


def steady_loop(a, count):
    for _ in range(count):
        torch.mm(a, a)
    torch.cuda.synchronize()


def warmup(steps):
    a = torch.randn(512, 512, device="cuda")
    first_call(a)
    torch.cuda.synchronize()
    for _ in range(steps):
        steady_loop(a, 300)


class Node:
    def __init__(self):
        self.other = None


def collect_garbage():
    for _ in range(200_000):
        first, second = Node(), Node()
        first.other, second.other = second, first  # a cycle only the collector frees
    gc.collect()


def gc_loop(steps):
    a = torch.randn(1024, 1024, device="cuda")
    for _ in range(steps):
        torch.mm(a, a)
        collect_garbage()
    torch.cuda.synchronize()


def hold_lock(lock, stop):
    while not stop.is_set():
        with lock:
            end = time.monotonic() + 0.02
            x = 0
            while time.monotonic() < end:
                x = (x * 31 + 7) % 1000003  # Python work holding the lock (and the GIL, mostly)
        time.sleep(0.001)


def wait_for_lock(lock):
    with lock:
        pass


def lock_wait(steps):
    # Each step's GEMM and sync (about 3 ms) outlast the holder's 1 ms pause: the next acquire finds
    # the lock held again and waits most of the holder's 20 ms, with the GPU idle. (A 1,024 GEMM
    # without the sync let the loop slip through the pauses: 6 of 88 samples waited, on an H200.)
    a = torch.randn(4096, 4096, device="cuda")
    lock, stop = threading.Lock(), threading.Event()
    side = threading.Thread(target=hold_lock, args=(lock, stop), name="lock_holder")
    side.start()
    for _ in range(steps * 4):
        wait_for_lock(lock)
        torch.mm(a, a)
        torch.cuda.synchronize()
    stop.set()
    side.join()


JOBS = {"io_loader": io_loader, "launch_blocking": launch_blocking, "warmup": warmup, "gc_loop": gc_loop,
        "lock_wait": lock_wait}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("job", choices=sorted(JOBS))
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    start = time.monotonic()
    JOBS[args.job](args.steps)
    torch.cuda.synchronize()
    print(f"{args.job}: {args.steps} steps in {time.monotonic() - start:.2f} s")


if __name__ == "__main__":
    main()
