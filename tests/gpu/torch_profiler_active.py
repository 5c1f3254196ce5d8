# torch.profiler inside the recorded process: it takes CUPTI over; the collector must say so.
import torch
from torch.profiler import ProfilerActivity, profile

a = torch.randn(1024, 1024, device="cuda")
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        a = torch.tanh(a @ a)
    torch.cuda.synchronize()
prof.export_chrome_trace("/dev/null")
print("ok")
