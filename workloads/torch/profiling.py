"""The --profile DIR option the PyTorch workloads share: a torch.profiler run exported as a Chrome
trace (DIR/rank0.json) for `overlapscope import`."""
import os


def start(directory, with_stack=False):
    """A started profiler of CPU and CUDA activity, or None without a directory."""
    if not directory:
        return None
    from torch.profiler import ProfilerActivity, profile
    profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], with_stack=with_stack)
    profiler.start()
    return profiler


def finish(profiler, directory, name="rank0.json"):
    """Stops the profiler (if any) and writes its trace into directory."""
    if not profiler:
        return
    profiler.stop()
    os.makedirs(directory, exist_ok=True)
    profiler.export_chrome_trace(os.path.join(directory, name))
