/* write_export_scenarios.c: hand-built traces for tests/import/export_trace_events.sh, written into
 * the folder given as the only argument. Times are microseconds (trace_builder.h); every device is
 * the H100 of gpu-notes (132 SMs).
 *   saturation.db  one wait, sm-saturation: sgemm on stream 13 [0, 3200] held every SM; the kernel
 *                  on stream 14, launched at -50, started at 3189 (test_analyzer_causes.c has the proof)
 *   event.db       one wait, event-dependency: stream 2 waits on event 5 recorded after producer
 *   late.db        one wait, late-launch: consumer launched at [98, 101] after producer ended at 100
 *   hostsync.db    one wait, host-sync: cudaStreamSynchronize [2, 100.5] before the next launch
 *   skew.db        what must go to extra tracks: kernels of stream 1 overlapping without nesting
 *                  ([0, 100] and [50, 150], clock skew), two API calls of one thread crossing
 *                  ([0, 60] and [40, 80]), a synchronization crossing a kernel; and what must not: a
 *                  driver call nested in its runtime call
 *   repeated_ids.db  item 16 of issue 20: 300 API calls and 300 kernels, all with correlation id 1
 *                  (a join gives 90,000 arrows; one per kernel is the bound)
 *   huge_names.db    200 kernels sharing a 1 MiB name, an NVTX range and a collective with 1 MiB
 *                  texts, and names with control characters and invalid UTF-8 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_builder.h"

#define THREAD 7
#define BIG_GRID 8448
#define BIG_BLOCK 1024

static int64_t begin(struct builder *b, const char *directory, const char *name)
{
    if (builder_create(b, directory, name) != 0) {
        fprintf(stderr, "%s: %s\n", name, b->err.message);
        exit(1);
    }
    int64_t process = builder_process(b, 0);
    builder_h100(b, process, 0);
    return process;
}

static void finish(struct builder *b)
{
    if (builder_finish(b) != 0) {
        fprintf(stderr, "%s: %s\n", b->path, b->err.message);
        exit(1);
    }
    builder_close(b);
}

/* A kernel launched by cudaLaunchKernel at [launch_start, launch_end] on THREAD. */
static void launched(struct builder *b, int64_t process, int64_t stream, double launch_start,
                     double launch_end, double start, double end, int64_t grid, int64_t block,
                     const char *name)
{
    struct store_kernel row = builder_kernel_row(process, stream, start, end, grid, block, name);
    row.correlation_id = builder_api(b, process, THREAD, "cudaLaunchKernel", launch_start, launch_end, 0);
    builder_insert_kernel(b, row);
}

static void add_stream_sync(struct builder *b, int64_t process, int64_t stream, int64_t correlation,
                            double start, double end)
{
    struct store_synchronization sync = {.process_id = process,
                                         .context_id = 1,
                                         .stream_id = stream,
                                         .event_id = STORE_NULL,
                                         .sync_type = STORE_SYNC_STREAM_SYNCHRONIZE,
                                         .correlation_id = correlation,
                                         .start_ns = AT(start),
                                         .end_ns = AT(end)};
    store_insert_synchronization(b->trace, &sync, &b->err);
}

static void write_saturation(const char *directory)
{
    struct builder b;
    int64_t p = begin(&b, directory, "saturation.db");
    launched(&b, p, 13, -60, -55, 0, 3200, BIG_GRID, BIG_BLOCK, "_Z13sgemm_256x128PKfS0_Pfi");
    launched(&b, p, 14, -50, -45, 3189, 6389, BIG_GRID, BIG_BLOCK, "_Z12sgemm_128x64PKfS0_Pfi");
    finish(&b);
}

static void write_event(const char *directory)
{
    struct builder b;
    int64_t p = begin(&b, directory, "event.db");
    launched(&b, p, 1, -10, -9, 0, 100, 4, 256, "producer");
    int64_t record = builder_api(&b, p, THREAD, "cudaEventRecord", -8, -7.5, 0);
    struct store_cuda_event event = {.process_id = p,
                                     .device_id = 0,
                                     .context_id = 1,
                                     .stream_id = 1,
                                     .event_id = 5,
                                     .correlation_id = record,
                                     .record_ns = AT(100)};
    store_insert_cuda_event(b.trace, &event, &b.err);
    int64_t wait_call = builder_api(&b, p, THREAD, "cudaStreamWaitEvent", -7, -6.5, 0);
    struct store_synchronization sync = {.process_id = p,
                                         .context_id = 1,
                                         .stream_id = 2,
                                         .event_id = 5,
                                         .sync_type = STORE_SYNC_STREAM_WAIT_EVENT,
                                         .correlation_id = wait_call,
                                         .start_ns = AT(-7),
                                         .end_ns = AT(-6.5)};
    store_insert_synchronization(b.trace, &sync, &b.err);
    launched(&b, p, 2, -6, -5, 102, 150, 4, 256, "consumer");
    finish(&b);
}

static void write_late(const char *directory)
{
    struct builder b;
    int64_t p = begin(&b, directory, "late.db");
    launched(&b, p, 1, -10, -5, 0, 100, 4, 256, "producer");
    launched(&b, p, 2, 98, 101, 104, 150, 4, 256, "consumer");
    finish(&b);
}

static void write_hostsync(const char *directory)
{
    struct builder b;
    int64_t p = begin(&b, directory, "hostsync.db");
    launched(&b, p, 1, -10, -5, 0, 100, 4, 256, "producer");
    int64_t call = builder_api(&b, p, THREAD, "cudaStreamSynchronize", 2, 100.5, 0);
    add_stream_sync(&b, p, 1, call, 2, 100.5);
    launched(&b, p, 2, 100.6, 101, 103, 150, 4, 256, "consumer");
    finish(&b);
}

static void write_skew(const char *directory)
{
    struct builder b;
    int64_t p = begin(&b, directory, "skew.db");
    launched(&b, p, 1, -20, -19, 0, 100, 4, 256, "first");
    launched(&b, p, 1, -18, -17, 50, 150, 4, 256, "second_skewed");
    builder_api(&b, p, THREAD + 1, "cudaMemcpy", 0, 60, 0);
    builder_api(&b, p, THREAD + 1, "cudaMemcpyAsync", 40, 80, 0);
    int64_t outer = builder_api(&b, p, THREAD + 1, "cudaLaunchKernel", 90, 99, 0);
    struct store_api_call driver = {.process_id = p,
                                    .thread_id = THREAD + 1,
                                    .api_domain = STORE_API_DRIVER,
                                    .callback_id = STORE_NULL,
                                    .correlation_id = outer + 1000,
                                    .start_ns = AT(91),
                                    .end_ns = AT(98),
                                    .return_value = 0,
                                    .name = "cuLaunchKernel"};
    store_insert_api_call(b.trace, &driver, &b.err);
    add_stream_sync(&b, p, 1, STORE_NULL, 120, 160);
    finish(&b);
}

static void write_repeated_ids(const char *directory)
{
    struct builder b;
    int64_t p = begin(&b, directory, "repeated_ids.db");
    /* Time zero before the first call, so that every call is exported. */
    builder_insert_kernel(&b, builder_kernel_row(p, 14, -5, -4, 4, 256, "first"));
    for (int i = 0; i < 300; i++) {
        builder_api(&b, p, THREAD, "cudaLaunchKernel", 10.0 * i, 10.0 * i + 1, 1);
        struct store_kernel row = builder_kernel_row(p, 13, 10.0 * i + 2, 10.0 * i + 9, 4, 256, "repeated");
        row.correlation_id = 1;
        builder_insert_kernel(&b, row);
    }
    finish(&b);
}

static void write_huge_names(const char *directory)
{
    struct builder b;
    int64_t p = begin(&b, directory, "huge_names.db");
    size_t size = 1 << 20;
    char *huge = malloc(size + 1);
    if (!huge)
        exit(1);
    memcpy(huge, "_Z4huge", 7);
    memset(huge + 7, 'x', size - 7);
    huge[size] = '\0';
    for (int i = 0; i < 200; i++)
        builder_insert_kernel(&b, builder_kernel_row(p, 13, 10.0 * i, 10.0 * i + 5, 4, 256, huge));
    huge[0] = 'm';
    builder_nvtx(&b, p, THREAD, STORE_NULL, huge, 0, 2000);
    struct store_kernel nccl =
        builder_kernel_row(p, 14, 0, 50, 4, 256, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    int64_t kernel = builder_insert_kernel(&b, nccl);
    huge[0] = 'c';
    struct store_collective collective = {.process_id = p,
                                          .device_id = 0,
                                          .stream_id = 14,
                                          .op = huge,
                                          .bytes = 4,
                                          .element_count = 1,
                                          .dtype = "f32\x1b[31m",
                                          .root = STORE_NULL,
                                          .algorithm = "RING\xff\xfe",
                                          .protocol = "LL",
                                          .communicator = huge,
                                          .rank = 0,
                                          .nranks = 2,
                                          .sequence_number = 1,
                                          .kernel_rowid = kernel,
                                          .start_ns = STORE_NULL,
                                          .end_ns = STORE_NULL,
                                          .detail_source = 2};
    store_insert_collective(b.trace, &collective, &b.err);
    builder_insert_kernel(&b, builder_kernel_row(p, 15, 0, 5, 4, 256, "bad\xc3(utf8\"and\\quotes\n"));
    free(huge);
    finish(&b);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: write_export_scenarios DIRECTORY\n");
        return 2;
    }
    write_saturation(argv[1]);
    write_event(argv[1]);
    write_late(argv[1]);
    write_hostsync(argv[1]);
    write_skew(argv[1]);
    write_repeated_ids(argv[1]);
    write_huge_names(argv[1]);
    return 0;
}
