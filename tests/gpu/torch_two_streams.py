# Two streams of matmuls with NVTX ranges: the collector must see kernels on two streams.
import torch

a = torch.randn(2048, 2048, device="cuda")
b = torch.randn(2048, 2048, device="cuda")
s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
for step in range(5):
    torch.cuda.nvtx.range_push(f"step{step}")
    with torch.cuda.stream(s1):
        x = a @ b
    with torch.cuda.stream(s2):
        y = b @ a
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("ok", float(x.sum() + y.sum()) != 0)
