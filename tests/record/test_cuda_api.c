/* The classes of CUDA API calls (common/cuda_api.c): the set the collector records by default and
 * the calls the analyzer proves host causes from. Names as CUPTI 13.0 reports them (with the
 * runtime's _vNNNN suffix), as the store keeps them (suffix dropped), and the calls PyTorch 2.11
 * made most on an H100 (gpu-notes: 731,106 cudaGetDevice for 74,520 kernels), which must not be
 * recorded by default. */
#include "check.h"
#include "cuda_api.h"

struct expected {
    const char *name;
    enum cuda_api_class api_class;
    int synchronizing, blocks_host;
};

static const struct expected table[] = {
    /* launches: runtime (nvcc's CUDA 13 stub, PyTorch, cuBLAS) and driver (Triton, cuBLAS) */
    {"cudaLaunchKernel_v7000", CUDA_API_LAUNCH, 0, 0},
    {"cudaLaunchKernel", CUDA_API_LAUNCH, 0, 0},
    {"__cudaLaunchKernel_v13000", CUDA_API_LAUNCH, 0, 0},
    {"cudaLaunchKernelExC_v11060", CUDA_API_LAUNCH, 0, 0},
    {"cudaLaunchKernel_ptsz_v7000", CUDA_API_LAUNCH, 0, 0},
    {"cudaLaunchCooperativeKernel_v9000", CUDA_API_LAUNCH, 0, 0},
    {"cudaGraphLaunch_v10000", CUDA_API_LAUNCH, 0, 0},
    {"cudaLaunchHostFunc_v10000", CUDA_API_LAUNCH, 0, 0},
    {"cuLaunchKernel", CUDA_API_LAUNCH, 0, 0},
    {"cuLaunchKernelEx_ptsz", CUDA_API_LAUNCH, 0, 0},
    {"cuGraphLaunch", CUDA_API_LAUNCH, 0, 0},
    /* copies and memsets */
    {"cudaMemcpy_v3020", CUDA_API_COPY, 0, 1},
    {"cudaMemcpy", CUDA_API_COPY, 0, 1},
    {"cudaMemcpyAsync_v3020", CUDA_API_COPY, 0, 0},
    {"cudaMemcpyAsync_ptsz_v7000", CUDA_API_COPY, 0, 0},
    {"cudaMemcpy2DAsync_v3020", CUDA_API_COPY, 0, 0},
    {"cudaMemcpyToSymbol_v3020", CUDA_API_COPY, 0, 1},
    {"cudaMemcpyPeer_v4000", CUDA_API_COPY, 0, 1},
    {"cuMemcpyHtoDAsync_v2", CUDA_API_COPY, 0, 0},
    {"cuMemcpyDtoH_v2", CUDA_API_COPY, 0, 1},
    {"cudaMemset_v3020", CUDA_API_MEMSET, 0, 0},
    {"cudaMemsetAsync_v3020", CUDA_API_MEMSET, 0, 0},
    {"cuMemsetD32Async", CUDA_API_MEMSET, 0, 0},
    /* synchronization, stream waits, events */
    {"cudaDeviceSynchronize_v3020", CUDA_API_SYNC, 1, 1},
    {"cudaStreamSynchronize", CUDA_API_SYNC, 1, 1},
    {"cudaEventSynchronize_v3020", CUDA_API_SYNC, 1, 1},
    {"cuCtxSynchronize", CUDA_API_SYNC, 1, 1},
    {"cuStreamSynchronize", CUDA_API_SYNC, 1, 1},
    {"cudaStreamWaitEvent_v3020", CUDA_API_STREAM_WAIT, 0, 0},
    {"cuStreamWaitEvent", CUDA_API_STREAM_WAIT, 0, 0},
    {"cuStreamWaitValue32_v2", CUDA_API_STREAM_WAIT, 0, 0},
    {"cudaEventRecord_v3020", CUDA_API_EVENT, 0, 0},
    {"cudaEventRecordWithFlags_v11010", CUDA_API_EVENT, 0, 0},
    {"cudaEventQuery_v3020", CUDA_API_EVENT, 0, 0},
    {"cudaStreamQuery_v3020", CUDA_API_EVENT, 0, 0},
    {"cuEventRecord", CUDA_API_EVENT, 0, 0},
    /* allocation: synchronous forms synchronize, stream-ordered and host-alloc forms do not */
    {"cudaMalloc_v3020", CUDA_API_ALLOC, 1, 1},
    {"cudaMallocHost_v3020", CUDA_API_ALLOC, 1, 1},
    {"cudaMallocManaged_v6000", CUDA_API_ALLOC, 1, 1},
    {"cudaMallocAsync_v11020", CUDA_API_ALLOC, 0, 0},
    {"cudaMallocFromPoolAsync_ptsz_v11020", CUDA_API_ALLOC, 0, 0},
    {"cudaHostAlloc_v3020", CUDA_API_ALLOC, 0, 0},
    {"cuMemAlloc_v2", CUDA_API_ALLOC, 1, 1},
    {"cuMemAllocAsync", CUDA_API_ALLOC, 0, 0},
    {"cuMemHostAlloc", CUDA_API_ALLOC, 0, 0},
    {"cudaFree_v3020", CUDA_API_FREE, 1, 1},
    {"cudaFreeHost_v3020", CUDA_API_FREE, 1, 1},
    {"cudaFreeAsync_v11020", CUDA_API_FREE, 0, 0},
    {"cuMemFree_v2", CUDA_API_FREE, 1, 1},
    {"cuMemFreeHost", CUDA_API_FREE, 1, 1},
    {"cuMemFreeAsync_ptsz", CUDA_API_FREE, 0, 0},
    {"cudaHostRegister_v4000", CUDA_API_HOST_REGISTER, 0, 0},
    {"cuMemHostUnregister", CUDA_API_HOST_REGISTER, 0, 0},
    {"cudaStreamCreateWithPriority_v5050", CUDA_API_STREAM, 0, 0},
    {"cudaStreamCreateWithFlags_v5000", CUDA_API_STREAM, 0, 0},
    {"cudaStreamDestroy_v5050", CUDA_API_STREAM, 0, 0},
    {"cudaStreamGetPriority_v5050", CUDA_API_STREAM, 0, 0},
    {"cudaDeviceGetStreamPriorityRange_v5050", CUDA_API_STREAM, 0, 0},
    {"cuStreamCreate", CUDA_API_STREAM, 0, 0},
    /* what PyTorch calls most, and graph memory nodes that only name Alloc/Free: not recorded */
    {"cudaGetDevice_v3020", CUDA_API_OTHER, 0, 0},
    {"cuDevicePrimaryCtxGetState", CUDA_API_OTHER, 0, 0},
    {"cudaGetLastError_v3020", CUDA_API_OTHER, 0, 0},
    {"cuCtxGetCurrent", CUDA_API_OTHER, 0, 0},
    {"cuKernelGetName", CUDA_API_OTHER, 0, 0},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", CUDA_API_OTHER, 0, 0},
    {"cudaGraphAddMemAllocNode_v11040", CUDA_API_OTHER, 0, 0},
    {"cuGraphAddMemFreeNode", CUDA_API_OTHER, 0, 0},
    {"cudaEventCreate_v3020", CUDA_API_OTHER, 0, 0},
    {"cudaEventElapsedTime_v3020", CUDA_API_OTHER, 0, 0},
    {"", CUDA_API_OTHER, 0, 0},
};

int main(void)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const struct expected *row = &table[i];
        if (cuda_api_classify(row->name) != row->api_class)
            fprintf(stderr, "%s: %s, expected %s\n", row->name,
                    cuda_api_class_name(cuda_api_classify(row->name)), cuda_api_class_name(row->api_class));
        CHECK_INT(cuda_api_classify(row->name), row->api_class);
        CHECK_INT(cuda_api_recorded_by_default(row->name), row->api_class != CUDA_API_OTHER);
        CHECK_INT(cuda_api_is_synchronizing(row->name), row->synchronizing);
        CHECK_INT(cuda_api_blocks_host(row->name), row->blocks_host);
    }
    CHECK_INT(cuda_api_classify(NULL), CUDA_API_OTHER);
    CHECK_STR(cuda_api_class_name(CUDA_API_STREAM_WAIT), "stream-wait");
    return check_finish();
}
