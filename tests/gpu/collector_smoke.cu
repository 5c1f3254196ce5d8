// collector_smoke.cu: one of every activity the collector records, for tests/gpu/collector.sh.
// Forks first (before CUDA starts) so the child, which launches one kernel, has its own collector.
// Prints the numbers the script checks: copy sizes, kernel counts, NVTX names.
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#define CHECK(call)                                                                                               \
    do {                                                                                                          \
        cudaError_t status_ = (call);                                                                             \
        if (status_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status_));                      \
            exit(1);                                                                                              \
        }                                                                                                         \
    } while (0)

__global__ void spin(float *data, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int r = 0; r < rounds; r++)
            data[i] = data[i] * 0.999f + 1.0f;
}

static int child_main()
{
    float *data;
    CHECK(cudaMalloc(&data, 1024 * sizeof(float)));
    spin<<<4, 256>>>(data, 1024, 100);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(data));
    return 0;
}

int main()
{
    pid_t child = fork();
    if (child == 0)
        return child_main();
    const size_t bytes = 64 << 20;
    const int n = 1 << 20;
    cudaStream_t a, b;
    float *device_a, *device_b, *pinned, *pageable;
    nvtxRangePushA("setup");
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&device_a, bytes));
    CHECK(cudaMalloc(&device_b, bytes));
    CHECK(cudaMallocHost(&pinned, bytes));
    pageable = (float *)malloc(bytes);
    for (size_t i = 0; i < bytes / sizeof(float); i++)
        pageable[i] = pinned[i] = 1.0f;
    nvtxRangePop();

    nvtxRangePushA("work");
    CHECK(cudaMemsetAsync(device_b, 0, bytes, b));
    CHECK(cudaMemcpyAsync(device_a, pinned, bytes, cudaMemcpyHostToDevice, a));   // pinned: async
    CHECK(cudaMemcpyAsync(device_b, pageable, bytes, cudaMemcpyHostToDevice, b)); // pageable
    cudaEvent_t done_a;
    CHECK(cudaEventCreate(&done_a));
    for (int k = 0; k < 4; k++) {
        spin<<<n / 256, 256, 0, a>>>(device_a, n, 200);
        spin<<<n / 256, 256, 0, b>>>(device_b, n, 200);
    }
    CHECK(cudaEventRecord(done_a, a));
    CHECK(cudaStreamWaitEvent(b, done_a, 0));
    spin<<<n / 256, 256, 0, b>>>(device_b, n, 10);
    CHECK(cudaEventSynchronize(done_a));
    spin<<<4, 256>>>(device_a, 1024, 10); // legacy default stream
    CHECK(cudaDeviceSynchronize());
    nvtxRangePop();
    nvtxMarkA("finished");
    printf("kernels 10 memcpys 2 memsets 1 bytes %zu\n", bytes);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
