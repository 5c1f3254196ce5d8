# Two ranks started by torch.multiprocessing.spawn, DDP with NCCL: each rank must be recorded with
# its rank and NCCL collectives. The ranks set RANK/WORLD_SIZE/LOCAL_RANK before CUDA starts, as
# torchrun would.
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world_size):
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world_size), LOCAL_RANK=str(rank),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT="29533")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1024, 1024).cuda(), device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(5):
        loss = model(torch.randn(64, 1024, device="cuda")).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    t = torch.ones(1 << 20, device="cuda")
    dist.all_reduce(t)
    gathered = [torch.empty_like(t) for _ in range(world_size)]
    dist.all_gather(gathered, t)
    torch.cuda.synchronize()
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
    print("ok")
