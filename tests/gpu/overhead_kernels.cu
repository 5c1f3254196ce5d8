// overhead_kernels.cu: many tiny kernels, timed inside the program after a warm-up, so the
// collector's cost per launch is measured without CUDA's and CUPTI's start-up. Prints
// "loop_seconds S" for tests/gpu/collector.sh. Usage: overhead_kernels [KERNELS] (default 100000).
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void tiny(int *counter) { atomicAdd(counter, 1); }

int main(int argc, char **argv)
{
    int kernels = argc > 1 ? atoi(argv[1]) : 100000;
    int *counter;
    cudaMalloc(&counter, sizeof(int));
    cudaMemset(counter, 0, sizeof(int));
    for (int i = 0; i < 1000; i++)
        tiny<<<1, 32>>>(counter);
    cudaDeviceSynchronize();
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kernels; i++)
        tiny<<<1, 32>>>(counter);
    cudaDeviceSynchronize();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    printf("loop_seconds %.6f kernels %d\n", seconds, kernels);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
