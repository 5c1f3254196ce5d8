/* scenarios.h: the two traces the report tests read. "saturated": on rank 0 an sgemm fills the
 * H100 for 32 waves (3200 us) and the kernel on stream 14 gets SMs 11 us before its end (an
 * sm-saturation wait of 3189 us); NCCL kernels on stream 20 at [1000, 1200] (under compute, but
 * launched before the sgemm started: it waited 1000 us for a block to retire, a
 * comm-behind-compute wait losing its 200 us) and [6400, 6600] (after all compute: exposed 200 us).
 * "overlapped": the same work where both sgemms ran side by side and both NCCL kernels were hidden under them
 * (nothing lost). */
#ifndef OVERLAPSCOPE_TEST_SCENARIOS_H
#define OVERLAPSCOPE_TEST_SCENARIOS_H

#include "trace_builder.h"

static inline int build_scenario(const char *directory, const char *name, int saturated)
{
    struct builder b;
    if (builder_create(&b, directory, name) != 0)
        return -1;
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    int64_t grid = saturated ? 8448 : 132;
    struct store_kernel first = builder_kernel_row(process, 13, 0, 3200, grid, 1024, "sgemm_256x128");
    first.correlation_id = builder_api(&b, process, 7, "cudaLaunchKernel", -60, -55, 0);
    builder_insert_kernel(&b, first);
    struct store_kernel second = builder_kernel_row(process, 14, saturated ? 3189 : 10,
                                                    saturated ? 6389 : 3210, grid, 1024, "sgemm_128x64");
    second.correlation_id = builder_api(&b, process, 7, "cudaLaunchKernel", -50, -45, 0);
    builder_insert_kernel(&b, second);
    double nccl_starts[2] = {1000, saturated ? 6400 : 2000};
    for (int i = 0; i < 2; i++) {
        struct store_kernel nccl = builder_kernel_row(process, 20, nccl_starts[i], nccl_starts[i] + 200, 24,
                                                      544, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        nccl.correlation_id = builder_api(&b, process, 8, "ncclAllReduce", -40 + i, -39 + i, 0);
        builder_insert_kernel(&b, nccl);
    }
    builder_nvtx(&b, process, 7, STORE_NULL, "ProfilerStep#0", -70, -30);
    int status = builder_finish(&b);
    builder_close(&b);
    return status;
}

#endif
