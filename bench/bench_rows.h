/* bench_rows.h: the synthetic rows the analyzer benchmarks (bench_analyzer.c, bench_scaling.c)
 * share, on top of the test trace builder (tests/common/trace_builder.h): a kernel as CUPTI
 * reports a training step's (64 registers, 16 KiB of dynamic shared memory, every counter read)
 * and its cudaLaunchKernel call. */
#ifndef OVERLAPSCOPE_BENCH_ROWS_H
#define OVERLAPSCOPE_BENCH_ROWS_H

#include "trace_builder.h"

/* A kernel of device 0 over [start_ns, end_ns) on stream, grid x block threads, launched by the
 * call of correlation id correlation, its channel stream % 8. */
static inline struct store_kernel bench_kernel_row(int64_t process, int64_t stream, int64_t start_ns,
                                                   int64_t end_ns, int64_t grid, int64_t block,
                                                   int64_t correlation, const char *name)
{
    struct store_kernel kernel = builder_kernel_row_ns(process, stream, start_ns, end_ns, grid, block, name);
    kernel.correlation_id = correlation;
    kernel.registers_per_thread = 64;
    kernel.dynamic_shared_bytes = 16384;
    kernel.local_memory_per_thread_bytes = 0;
    kernel.local_memory_total_bytes = 0;
    kernel.shared_memory_config = 0;
    kernel.channel_id = stream % 8;
    kernel.channel_type = 1;
    kernel.priority = 0;
    return kernel;
}

/* Process process's cudaLaunchKernel (callback 211) on thread 100 + process. */
static inline struct store_api_call bench_launch_row(int64_t process, int64_t start_ns, int64_t end_ns,
                                                     int64_t correlation)
{
    struct store_api_call call =
        builder_api_row_ns(process, 100 + process, "cudaLaunchKernel", start_ns, end_ns, correlation);
    call.callback_id = 211;
    return call;
}

/* Rank rank's process of a job of ranks, as the benchmarks write it: pid 1000 + rank, exited 0. */
static inline int64_t bench_process(struct builder *b, int64_t rank, int64_t ranks)
{
    struct store_process process = builder_process_row(1000 + rank, rank);
    process.local_rank = rank;
    process.world_size = ranks;
    process.exit_status = 0;
    return builder_insert_process(b, process);
}

#endif
