// overhead_kernels.cu: many kernels launched in a loop, timed inside the program after a warm-up,
// so the collector's cost per launch is measured without CUDA's and CUPTI's start-up. Prints
// "loop_seconds S kernels N mode M" for tests/gpu/collector.sh.
// Usage: overhead_kernels [KERNELS] [MODE] [KERNEL_US]   (defaults 100000, launch, 25)
//   launch  tiny kernels (~2 us of GPU time each): the loop is bound by launching, the worst case
//           for a tracer, whose cost is per launch;
//   gpu     kernels spinning KERNEL_US microseconds each (1 block of 32 threads, on the GPU's
//           globaltimer): the loop is bound by the GPU, as in a training step, where a per-launch
//           cost hides behind the queue of work already launched.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void tiny(int *counter) { atomicAdd(counter, 1); }

__device__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(int *counter, unsigned long long duration_ns)
{
    unsigned long long start = global_ns();
    while (global_ns() - start < duration_ns) {
    }
    if (threadIdx.x == 0)
        atomicAdd(counter, 1);
}

static void launch(int gpu_bound, int *counter, unsigned long long duration_ns)
{
    if (gpu_bound)
        spin<<<1, 32>>>(counter, duration_ns);
    else
        tiny<<<1, 32>>>(counter);
}

int main(int argc, char **argv)
{
    int kernels = argc > 1 ? atoi(argv[1]) : 100000;
    int gpu_bound = argc > 2 && strcmp(argv[2], "gpu") == 0;
    unsigned long long duration_ns = (argc > 3 ? strtoull(argv[3], nullptr, 10) : 25) * 1000ULL;
    int *counter;
    cudaMalloc(&counter, sizeof(int));
    cudaMemset(counter, 0, sizeof(int));
    for (int i = 0; i < 1000; i++)
        launch(gpu_bound, counter, duration_ns);
    cudaDeviceSynchronize();
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kernels; i++)
        launch(gpu_bound, counter, duration_ns);
    cudaDeviceSynchronize();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    printf("loop_seconds %.6f kernels %d mode %s\n", seconds, kernels, gpu_bound ? "gpu" : "launch");
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
