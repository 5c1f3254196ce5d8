/* memory_trace.c: writes the memory benchmark's trace straight into the store (issue 33): one
 * rank, one GPU, the shape of bench/gen_ddp_ranks.py's (ProfilerStep#N ranges, each step 48
 * compute kernels on stream 7 and an NCCL AllReduce on stream 21, every one launched by a
 * correlated cudaLaunchKernel on the one host thread, each call with its source), at least OPS GPU
 * operations in whole steps. The case where the analysis holds the most per operation: every
 * operation on one device. Through the trace builder, not a JSON file to import: the ctest
 * memory_slope (bench/memory_slope.sh) writes 1M and 5M operations within CI's time.
 * Usage: bench_memory_trace OUT.db OPS; prints the GPU operations written. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_rows.h"
#include "call_sources.h"

enum { KERNELS = 48, COMPUTE_STREAM = 7, NCCL_STREAM = 21 };

/* gen_ddp_ranks.py's times, in ns. */
#define KERNEL_NS 20000
#define LAUNCH_NS 4000
#define ALLREDUCE_NS 300000
#define STEP_NS (KERNELS * KERNEL_NS + ALLREDUCE_NS + 550000)

static const char *const kernel_names[] = {
    "void gemm_kernel_0<float>(float*)", "void gemm_kernel_1<float>(float*)",
    "void gemm_kernel_2<float>(float*)", "void gemm_kernel_3<float>(float*)",
    "void gemm_kernel_4<float>(float*)", "void gemm_kernel_5<float>(float*)"};

/* One call and its source. */
static void launch(struct builder *b, int64_t process, int64_t thread, int64_t start_ns, int64_t correlation)
{
    struct store_api_call call = bench_launch_row(process, start_ns, start_ns + LAUNCH_NS, correlation);
    call.thread_id = thread;
    builder_insert_api(b, call);
    if (b->status == 0 && store_insert_call_source(b->trace, process, correlation, STORE_SOURCE_PYTHON,
                                                   "train.py:42 train_step", &b->err) != 0)
        b->status = -1;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long long ops = argc == 3 ? strtoll(argv[2], &end, 10) : 0;
    if (argc != 3 || !end || *end || ops <= 0 || ops > 100000000) {
        fprintf(stderr, "usage: %s OUT.db OPS (1 to 100,000,000 GPU operations)\n", argv[0]);
        return 2;
    }
    struct builder b;
    if (builder_create_path(&b, argv[1]) != 0) {
        fprintf(stderr, "%s: %s\n", argv[1], b.err.message);
        return 1;
    }
    int64_t process = builder_process(&b, 0), thread = 100 + process;
    builder_h100(&b, process, 0);
    builder_stream(&b, process, 0, COMPUTE_STREAM, 0, 1, 0);
    builder_stream(&b, process, 0, NCCL_STREAM, 0, 1, 0);
    int64_t steps = (ops + KERNELS) / (KERNELS + 1), correlation = 0;
    char step_name[32];
    for (int64_t step = 0; step < steps && b.status == 0; step++) {
        int64_t begin = BASE_NS + 1000000 + step * STEP_NS, host = begin, gpu = begin + LAUNCH_NS + 1000;
        snprintf(step_name, sizeof step_name, "ProfilerStep#%" PRId64, step);
        builder_nvtx(&b, process, thread, 0, step_name, (double)(begin - BASE_NS) / 1000.0,
                     (double)(begin + STEP_NS - 1000 - BASE_NS) / 1000.0);
        for (int k = 0; k < KERNELS; k++) {
            launch(&b, process, thread, host, ++correlation);
            builder_insert_kernel(&b, bench_kernel_row(process, COMPUTE_STREAM, gpu, gpu + KERNEL_NS - 500,
                                                       132, 256, correlation, kernel_names[k % 6]));
            host += LAUNCH_NS + 200;
            gpu += KERNEL_NS;
        }
        launch(&b, process, thread, host, ++correlation);
        int64_t rowid = builder_insert_kernel(
            &b,
            bench_kernel_row(process, NCCL_STREAM, gpu, gpu + ALLREDUCE_NS, 24, 544, correlation,
                             "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
        builder_insert_collective(&b, builder_collective_row_ns(process, NCCL_STREAM, "AllReduce", 26214400,
                                                                "0", 0, 1, rowid, gpu, gpu + ALLREDUCE_NS));
    }
    if (builder_finish(&b) != 0) {
        fprintf(stderr, "%s: %s\n", argv[1], b.err.message);
        builder_close(&b);
        return 1;
    }
    builder_close(&b);
    printf("%" PRId64 "\n", steps * (KERNELS + 1));
    return 0;
}
