"""The PyTorch jobs of bench/torch_overhead: what users run, timed in steady state.

    python3 jobs.py JOB [--steps N] [--warmup N] [--chunk N] [--torch-profiler TRACE.json [--profiler-first]]

JOB: resnet50 (torchvision ResNet-50 training, bf16 autocast, batch 64), mlp (12-layer MLP, 256
wide, batch 256: launch-bound), gpt2 (a GPT-2-small-sized decoder, 12 layers, 768 wide, 12 heads,
sequence 1024, batch 8, bf16 autocast), seed004 (1,000 x randn, mm, then synchronize: a launch-bound
loop), gpt2_ddp (that step under DistributedDataParallel, one rank
per GPU, started by torchrun: run.sh does it for a job named *_ddp). The timed part is `--steps` training steps after `--warmup`
steps, between two cuda.synchronize() calls (none inside: a per-step sync would change what a
launch-bound loop does). Prints one line: RESULT job=... steps=... seconds=... steps_per_s=...
With --torch-profiler the process times the steps twice, once plain and once under torch.profiler
(CPU and CUDA activities, the usual way; the Chrome trace exported after the timing), in the order
--profiler-first says, and prints a RESULT line for each (variant=plain, variant=profiler): one
process start (the longest part of a run) serves both variants. --chunk N also prints the rate of
every N steps (a cuda.synchronize() after each chunk): whether a run's speed drifts within the run
or only from one process to the next.
"""
import argparse
import os
import sys
import time

import torch
import torch.nn as nn


def resnet50():
    import torchvision
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    labels = torch.randint(0, 1000, (64,), device="cuda")
    loss_fn = nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
    return step, 15, 60


def mlp(compiled=False, item=False):
    layers = []
    for _ in range(12):
        layers += [nn.Linear(256, 256), nn.ReLU()]
    model = nn.Sequential(*layers).cuda()
    if compiled:
        model = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(256, 256, device="cuda")
    y = torch.randn(256, 256, device="cuda")

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        if item:
            loss.item()  # logged every step: a device-to-host read, a host sync per step
    return step, 50, 1000


def mlp_compiled():
    """The MLP above under torch.compile: Inductor fuses it into Triton kernels, launched through
    the driver API (cuLaunchKernel), another path through the collector's callbacks. The first run
    on a machine compiles (tens of seconds, in the warm-up); later runs read Inductor's cache."""
    return mlp(compiled=True)


def mlp_item():
    """The MLP above logging loss.item() every step, the commonest PyTorch loop: a host sync in
    every step, where the collector takes the calling Python line (call sources)."""
    return mlp(item=True)


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True)
        self.feed_forward = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x, mask):
        h = self.norm1(x)
        x = x + self.attention(h, h, h, attn_mask=mask, need_weights=False, is_causal=True)[0]
        return x + self.feed_forward(self.norm2(x))


class GPT(nn.Module):
    def __init__(self, vocab=50257, width=768, heads=12, depth=12, sequence=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.zeros(1, sequence, width))
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(depth))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(sequence))

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[:, : tokens.shape[1]]
        for block in self.blocks:
            x = block(x, self.mask)
        return self.head(self.norm(x))


def gpt2(wrap=lambda model: model):
    """wrap: what the model runs under (gpt2_ddp: DistributedDataParallel)."""
    model = wrap(GPT().cuda())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, 50257, (8, 1024), device="cuda")
    loss_fn = nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]).float(), tokens[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
    return step, 8, 30


def gpt2_ddp():
    """The GPT-2-sized step above under DistributedDataParallel, one rank per GPU (started by
    torchrun: RANK, WORLD_SIZE, LOCAL_RANK): NCCL all-reduces the gradient buckets during backward.
    Rank 0 prints the RESULT lines; every rank runs the same steps."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    return gpt2(wrap=lambda model: DDP(model, device_ids=[local_rank]))


def seed004():
    """Seed 004's launch-bound loop: per step 1,000 x (randn(100, 100) on cuda:0, mm) and a
    torch.cuda.synchronize(); one step is one loop (issue 31: record/floor >= 0.95 with sampling)."""
    device = torch.device("cuda", 0)

    def step():
        for _ in range(1000):
            a = torch.randn(100, 100, device=device)
            torch.mm(a, a)
        torch.cuda.synchronize(device)
    return step, 3, 20


JOBS = {"resnet50": resnet50, "mlp": mlp, "mlp_compiled": mlp_compiled, "mlp_item": mlp_item, "gpt2": gpt2,
        "gpt2_ddp": gpt2_ddp, "seed004": seed004}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("job", choices=sorted(JOBS))
    parser.add_argument("--steps", type=int)
    parser.add_argument("--warmup", type=int)
    parser.add_argument("--chunk", type=int, default=0)
    parser.add_argument("--torch-profiler", metavar="TRACE")
    parser.add_argument("--profiler-first", action="store_true")
    args = parser.parse_args()
    step, warmup, steps = JOBS[args.job]()
    rank = int(os.environ.get("RANK", "0"))  # a DDP job: rank 0 reports
    warmup = args.warmup if args.warmup is not None else warmup
    steps = args.steps or steps
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()

    def timed(profiled):
        profiler = None
        if profiled:
            from torch.profiler import ProfilerActivity, profile
            profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
            profiler.__enter__()
        start = chunk_start = time.perf_counter()
        for done in range(1, steps + 1):
            step()
            if args.chunk and done % args.chunk == 0:
                torch.cuda.synchronize()
                now = time.perf_counter()
                print(f"CHUNK steps={done} steps_per_s={args.chunk / (now - chunk_start):.3f}", flush=True)
                chunk_start = now
        torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        if profiler:
            profiler.__exit__(None, None, None)
            profiler.export_chrome_trace(args.torch_profiler if rank == 0 else f"{args.torch_profiler}.rank{rank}")
        variant = "profiler" if profiled else "plain"
        if rank == 0:
            print(f"RESULT job={args.job} variant={variant} steps={steps} seconds={seconds:.4f} "
              f"steps_per_s={steps / seconds:.3f}", flush=True)

    order = [False]
    if args.torch_profiler:
        order = [True, False] if args.profiler_first else [False, True]
    for profiled in order:
        timed(profiled)
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
