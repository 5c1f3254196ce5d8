#!/usr/bin/env python3
"""A simulated N-rank DDP job as PyTorch profiler (Kineto) traces, one file per rank, for the scale
benchmark (bench/scale.sh, issue 35): bench/gen_ddp_ranks.py DIR RANKS [--activities N] [--late-rank R]
[--late-us U] [--jobs J] [--distinct-names].

Each rank runs STEPS steps (ProfilerStep#i user annotations). A step: KERNELS compute kernels on
stream 7, each launched by a cudaLaunchKernel runtime call (correlated), then an NCCL AllReduce
kernel on stream 21 (its launch too) with the args PyTorch writes ("Collective name", "In msg
nelems", "Group size", "Process Group Ranks", "dtype"), which every rank ends at the same moment
(the collective waits for the last rank). One rank (--late-rank, default the last) starts each step
--late-us later (default 500 us): the straggler the report must name. About --activities events
(default 1,000,000) per rank: STEPS = activities / (2 * KERNELS + 3), KERNELS = 48. The files are
gzip level 1 (written fast); the same arguments give the same JSON.

--distinct-names: the ranks no longer share one set of kernel names in one first-seen order, as
real ranks often do not (a rank-specific path, a kernel only some ranks pick), which an import split
between processes must still number as the whole folder's import does. Rank r's compute kernels are
rotated by r (gemm_kernel_{(k + r) % 6}: each rank meets the shared names in its own order), the
first kernel of every third step is rank{r}_only_kernel_{0, 1, 2} (a name no other rank has; the
first kernel of rank r's trace), and the last kernel of every odd step is even_ranks_kernel or
odd_ranks_kernel (names that only some ranks share). Kernels are renamed, never added: the times,
the activity count and the collectives (the same AllReduce sequence on every rank) stay as
without it."""
import argparse
import gzip
import json
import multiprocessing
import os

KERNELS = 48
KERNEL_US = 20.0
LAUNCH_US = 4.0
ALLREDUCE_US = 300.0


def kernel_name(args, rank, step, k):
    """The compute kernel in slot k of a step (see --distinct-names)."""
    if not args.distinct_names:
        return f"void gemm_kernel_{k % 6}<float>(float*)"
    if k == 0 and step % 3 == 0:
        return f"rank{rank}_only_kernel_{step // 3 % 3}"
    if k == KERNELS - 1 and step % 2 == 1:
        return "even_ranks_kernel" if rank % 2 == 0 else "odd_ranks_kernel"
    return f"void gemm_kernel_{(k + rank) % 6}<float>(float*)"


def rank_file(args, rank):
    steps = max(1, args.activities // (2 * KERNELS + 3))
    pid = 10000 + rank
    header = {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320, "computeMajor": 9,
                              "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
                              "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132,
                              "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448}],
        "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": args.ranks, "pg_count": 1,
                            "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                                           "pg_size": args.ranks, "ranks": list(range(args.ranks))}],
                            "nccl_version": "2.28.9"},
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": 1700000000000000000,
    }
    ranks_text = json.dumps(list(range(args.ranks))) if args.ranks <= 64 else "[...]"
    path = os.path.join(args.dir, f"rank{rank:04d}.json.gz")
    with gzip.open(path, "wt", compresslevel=1) as out:
        text = json.dumps(header)
        out.write(text[:-1] + ', "traceEvents": [\n')
        out.write(f'{{"name": "process_name", "ph": "M", "ts": 0, "pid": {pid}, "tid": 0, "args": {{"name": "python3"}}}}')
        correlation = 0
        step_us = KERNELS * KERNEL_US + ALLREDUCE_US + args.late_us + 50.0
        late = args.late_us if rank == args.late_rank else 0.0
        lines = []
        for step in range(steps):
            begin = 1000.0 + step * step_us
            host = begin + late
            lines.append(f'{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{step}", "pid": {pid}, '
                         f'"tid": {pid}, "ts": {begin:.3f}, "dur": {step_us - 1:.3f}, "args": {{}}}}')
            gpu = host + LAUNCH_US + 1
            for k in range(KERNELS):
                correlation += 1
                lines.append(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": {pid}, '
                             f'"tid": {pid}, "ts": {host:.3f}, "dur": {LAUNCH_US:.3f}, '
                             f'"args": {{"cbid": 211, "correlation": {correlation}}}}}')
                lines.append(f'{{"ph": "X", "cat": "kernel", "name": "{kernel_name(args, rank, step, k)}", '
                             f'"pid": 0, "tid": 7, "ts": {gpu:.3f}, "dur": {KERNEL_US - 0.5:.3f}, "args": '
                             f'{{"device": 0, "context": 1, "stream": 7, "correlation": {correlation}, '
                             f'"registers per thread": 64, "shared memory": 0, "grid": [132, 1, 1], '
                             f'"block": [256, 1, 1]}}}}')
                host += LAUNCH_US + 0.2
                gpu += KERNEL_US
            correlation += 1
            lines.append(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": {pid}, '
                         f'"tid": {pid}, "ts": {host:.3f}, "dur": {LAUNCH_US:.3f}, '
                         f'"args": {{"cbid": 211, "correlation": {correlation}}}}}')
            # the collective ends together on every rank: when the late rank's compute is done
            end = begin + args.late_us + LAUNCH_US + 1 + KERNELS * KERNEL_US + ALLREDUCE_US
            start = gpu if gpu < end - 10 else end - 10
            lines.append(f'{{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL'
                         f'(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 21, "ts": {start:.3f}, '
                         f'"dur": {end - start:.3f}, "args": {{"device": 0, "context": 1, "stream": 21, '
                         f'"correlation": {correlation}, "grid": [24, 1, 1], "block": [544, 1, 1], '
                         f'"Collective name": "allreduce", "In msg nelems": 6553600, "Out msg nelems": 6553600, '
                         f'"Group size": {args.ranks}, "dtype": "Float", "Process Group Name": "0", '
                         f'"Process Group Description": "default_pg", "Process Group Ranks": "{ranks_text}"}}}}')
            if len(lines) > 20000:
                out.write(",\n" + ",\n".join(lines))
                lines = []
        if lines:
            out.write(",\n" + ",\n".join(lines))
        out.write("\n]}\n")
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir")
    parser.add_argument("ranks", type=int)
    parser.add_argument("--activities", type=int, default=1000000)
    parser.add_argument("--late-rank", type=int, default=-1)
    parser.add_argument("--late-us", type=float, default=500.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--distinct-names", action="store_true",
                        help="each rank its own kernel names and first-seen order (same times and collectives)")
    args = parser.parse_args()
    if args.late_rank < 0:
        args.late_rank = args.ranks - 1
    os.makedirs(args.dir, exist_ok=True)
    with multiprocessing.Pool(args.jobs) as pool:
        pool.starmap(rank_file, [(args, r) for r in range(args.ranks)])


if __name__ == "__main__":
    main()
