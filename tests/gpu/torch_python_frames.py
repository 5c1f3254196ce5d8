"""A multi-threaded PyTorch training loop whose blocking CUDA calls sit at known lines, for
tests/gpu/python_frames.sh (issue 16 Must 3: the collector names the Python line of each blocking
call without taking the GIL).

Threads that make CUDA calls while the main thread trains: the DataLoader's pin-memory thread
(Python), the autograd engine's device thread (C++, takes the GIL only for hooks), and a side
Python thread that reads a value back from the GPU every few milliseconds. DataLoader workers are
processes (num_workers=2). The lines the checker looks for carry a marker comment (LINE: name).

Prints one JSON line: {"file", "steps", "median_step_ms"}.
"""
import argparse
import json
import statistics
import sys
import threading
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Samples(Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, index):
        x = torch.randn(1024)
        return x, x.flip(0)


def side_worker(stop):
    device_value = torch.ones(1, device="cuda")
    while not stop.is_set():
        device_value.item()  # LINE: side
        time.sleep(0.005)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 4096),
                                torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    loader = DataLoader(Samples(), batch_size=512, num_workers=2, pin_memory=True)
    stop = threading.Event()
    side = threading.Thread(target=side_worker, args=(stop,), daemon=True)
    side.start()
    times = []
    for step, (x, y) in enumerate(loader):
        if step == args.steps:
            break
        start = time.perf_counter()
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()  # LINE: sync
        value = loss.item()  # LINE: item
        if step >= args.warmup:
            times.append(time.perf_counter() - start)
    stop.set()
    side.join()
    print(json.dumps({"file": __file__, "steps": args.steps, "median_step_ms": statistics.median(times) * 1e3,
                      "last_loss": value}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
