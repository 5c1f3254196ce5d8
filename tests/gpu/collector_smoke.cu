// collector_smoke.cu: one of every activity the collector records, for tests/gpu/collector.sh.
// Forks first (before CUDA starts) so the child, which launches one kernel, has its own collector.
// Prints the numbers the script checks: copy sizes, kernel counts, NVTX names.
// `collector_smoke --steal-activity-callbacks` is instead a program that registers its own CUPTI
// activity callbacks once CUDA has started (what torch.profiler/Kineto does on CUDA 12), then
// launches 200 kernels: the collector must notice that the records went elsewhere.
// Build: nvcc -arch=sm_90 collector_smoke.cu -lcupti (tests/gpu/collector.sh).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

#include <cupti.h>
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

static long stolen_records;

static void CUPTIAPI thief_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *size = 1 << 20;
    *buffer = (uint8_t *)aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI thief_complete(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t valid_bytes)
{
    CUpti_Activity *record = nullptr;
    while (buffer && cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS)
        stolen_records++;
    free(buffer);
}

static int steal_main()
{
    float *data;
    CHECK(cudaMalloc(&data, 1024 * sizeof(float))); // CUDA has started: the collector is in
    CUptiResult registered = cuptiActivityRegisterCallbacks(thief_request, thief_complete);
    CUptiResult enabled = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    for (int i = 0; i < 200; i++)
        spin<<<4, 256>>>(data, 1024, 10);
    CHECK(cudaDeviceSynchronize());
    cuptiActivityFlushAll(1);
    printf("kernels 200 register %d enable %d stolen_records %ld\n", (int)registered, (int)enabled, stolen_records);
    return 0;
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

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--steal-activity-callbacks") == 0)
        return steal_main();
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
