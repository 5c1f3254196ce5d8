/* test_analyzer_causes.c: one hand-built scenario per cause of a missed overlap, with the cause,
 * the time lost and the evidence the analyzer must give; then the ways the data can be thin:
 * no API records, kernels of a CUDA graph, a blocking stream that is not blocking. Times are
 * microseconds; every device is the H100 of gpu-notes (132 SMs). */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analyze_builder.h"
#include "check.h"
#include "queries_launch_blocking.h"
#include "store.h"

static char directory[] = "/tmp/overlapscope-test-causes-XXXXXX";

#define THREAD 7
/* 8448 blocks of 1024 threads: 2 resident per SM, 32 waves on 132 SMs (gpu-notes). */
#define BIG_GRID 8448
#define BIG_BLOCK 1024

struct scenario {
    struct builder b;
    int64_t process;
    int with_api;
};

static void begin(struct scenario *s, const char *name, int with_api)
{
    CHECK_INT(builder_create(&s->b, directory, name), 0);
    s->process = builder_process(&s->b, 0);
    s->with_api = with_api;
    builder_h100(&s->b, s->process, 0);
}

/* A kernel launched by cudaLaunchKernel at [launch_start, launch_end] (when the scenario has API
 * records); returns the row to adjust before inserting. */
static struct store_kernel launched(struct scenario *s, int64_t stream, double launch_start,
                                    double launch_end, double start, double end, int64_t grid, int64_t block,
                                    const char *name)
{
    struct store_kernel row = builder_kernel_row(s->process, stream, start, end, grid, block, name);
    row.correlation_id = s->b.next_correlation++;
    if (s->with_api)
        builder_api(&s->b, s->process, THREAD, "cudaLaunchKernel", launch_start, launch_end,
                    row.correlation_id);
    return row;
}

static struct analysis_result *finish(struct scenario *s)
{
    int status = 0;
    struct analysis_result *result = builder_analyze(&s->b, &status);
    CHECK_INT(status, 0);
    return result;
}

static const struct analysis_wait *wait_on(const struct analysis_result *result, int64_t stream)
{
    for (size_t i = 0; result && i < result->wait_count; i++)
        if (result->lanes[result->waits[i].waiting.lane].stream_id == stream)
            return &result->waits[i];
    return NULL;
}

static void expect_wait(const struct analysis_result *result, int64_t stream, enum analysis_cause cause,
                        double lost_us, const char *evidence)
{
    const struct analysis_wait *wait = wait_on(result, stream);
    CHECK(wait != NULL);
    if (!wait)
        return;
    if (wait->cause != cause)
        fprintf(stderr, "  cause %s, evidence: %s\n", analysis_cause_tag(wait->cause), wait->evidence);
    CHECK_STR(analysis_cause_tag(wait->cause), analysis_cause_tag(cause));
    CHECK_INT(wait->lost_ns, US(lost_us));
    CHECK_CONTAINS(wait->evidence, evidence);
}

static void test_sm_saturation(int with_api)
{
    /* sgemm on stream 13 [0, 3200]: 32 waves of 100 us. The kernel on stream 14, launched long
     * before, got SMs only in the last wave's tail, 11 us before the end: lost 3189 us. */
    struct scenario s;
    begin(&s, with_api ? "saturation.db" : "saturation-no-api.db", with_api);
    builder_insert_kernel(&s.b, launched(&s, 13, -60, -55, 0, 3200, BIG_GRID, BIG_BLOCK, "sgemm_256x128"));
    builder_insert_kernel(&s.b, launched(&s, 14, -50, -45, 3189, 6389, BIG_GRID, BIG_BLOCK, "sgemm_128x64"));
    struct analysis_result *result = finish(&s);
    expect_wait(
        result, 14, ANALYSIS_CAUSE_SM_SATURATION, 3189,
        "kernel sgemm_256x128 on stream 13 held all 132 SMs (8448 blocks, 2 resident per SM, limited by "
        "warps: 32 waves)");
    const struct analysis_wait *wait = wait_on(result, 14);
    CHECK_CONTAINS(wait ? wait->evidence : NULL, "started 11.0 us before it ended, in the last wave's tail");
    if (wait) {
        CHECK_STR(wait->blocking.name, "sgemm_256x128");
        CHECK_INT(wait->wait_end_ns, AT(3189));
        CHECK_INT(wait->waiting.launch_end_ns, with_api ? AT(-45) : STORE_NULL);
    }
    if (result) {
        CHECK_INT(result->wait_total_count, 1);
        CHECK_INT(result->causes[0].cause, ANALYSIS_CAUSE_SM_SATURATION);
        CHECK_INT(result->causes[0].lost_ns, US(3189));
        CHECK_INT(result->causes[0].count, 1);
        /* Both grids fill every SM: the replay (whatif.h) runs the second kernel only in the first
         * one's last-wave tail, as recorded, so no change of code gains anything (issue 17). */
        CHECK_INT(result->devices[0].headroom_ns, 0);
        /* With launches, the replay starts the first kernel when its launch returned (-55) and the
         * second when the first's last wave is half done (3145 - 50: whatif/'s tail): span -55 to
         * 6295. Without them, no op starts before it was recorded to: as recorded. */
        CHECK_INT(result->devices[0].replay_span_ns, with_api ? US(6350) : US(6389));
        CHECK_INT(result->what_if_count, 1);
        CHECK_INT(result->what_if[0].fix, ANALYSIS_FIX_NONE_SATURATED);
        CHECK_INT(result->what_if[0].predicted_saving_ns, 0);
        CHECK_INT(result->total_lost_ns, US(3189));
    }
    analysis_free(result);
}

/* A GEMM of one 256-thread block per SM (132 blocks: not a full wave). Variant 0: it ran with a
 * 64 KiB shared-memory carve-out and an NCCL block needs 102 KiB, so it fits beside no GEMM block
 * and starts only as the GEMM's blocks retire. 1: with the largest carve-out it fits: a mid-run
 * start then proves nothing and no wait is reported; 2: nor when the NCCL kernel was launched just
 * before it started. 3: NCCL's real 96 registers per thread (seen on H200, workloads/ddp.cu at
 * --fill 1/8): 17 warps of 3072 registers, and beside 2 GEMM warps per register sub-partition
 * only 4 fit in each, 16 in all. */
static void test_resources_held(int variant)
{
    static const char *const names[] = {"carveout.db", "carveout-max.db", "carveout-late.db", "registers.db"};
    struct scenario s;
    begin(&s, names[variant], 1);
    struct store_kernel gemm = launched(&s, 17, -60, -55, 0, 600, 132, 256, "wl_gemm_kernel");
    gemm.static_shared_bytes = 2176;
    gemm.shared_memory_executed_bytes = variant == 0 || variant == 2 ? 65536 : 233472;
    builder_insert_kernel(&s.b, gemm);
    double launch_end = variant == 2 ? 570 : -45;
    struct store_kernel nccl = launched(&s, 18, launch_end - 5, launch_end, 573, 621, 24, 544,
                                        "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    nccl.registers_per_thread = variant == 3 ? 96 : 32;
    nccl.static_shared_bytes = 21568;
    nccl.dynamic_shared_bytes = 82240;
    builder_insert_kernel(&s.b, nccl);
    struct analysis_result *result = finish(&s);
    if (variant == 0) {
        expect_wait(
            result, 18, ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE, 48,
            "NCCL kernel waited for SM resources: kernel wl_gemm_kernel on stream 17 had 1 block(s) on each "
            "of the 132 SMs (132 blocks) and no block of the waiting kernel fit beside them for lack of "
            "shared "
            "memory: the SM's carve-out while it ran was 64 KiB, its blocks held 3 KiB and a block of "
            "NCCL AllReduce Sum f32 RING LL needs 102 KiB; NCCL AllReduce Sum f32 RING LL "
            "started as its blocks retired, 27.0 us before it ended");
        CHECK(result && result->wait_total_count == 1);
    } else if (variant == 3) {
        expect_wait(
            result, 18, ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE, 48,
            "for lack of registers: its blocks held 8192 of the SM's 65536, which left room for 16 warps of "
            "NCCL AllReduce Sum f32 RING LL (96 registers per thread) across the SM's 4 register "
            "sub-partitions; a block needs 17");
    } else {
        CHECK(result && result->wait_total_count == 0);
    }
    analysis_free(result);
}

static void test_small_kernels_overlap(void)
{
    /* 4-block kernels on two streams ran concurrently (gpu-notes): nothing to explain. */
    struct scenario s;
    begin(&s, "small.db", 1);
    builder_insert_kernel(&s.b, launched(&s, 13, -10, -9, 0, 100, 4, 256, "small_a"));
    builder_insert_kernel(&s.b, launched(&s, 14, -8, -7, 2, 102, 4, 256, "small_b"));
    struct analysis_result *result = finish(&s);
    CHECK(result && result->wait_total_count == 0);
    CHECK(result && result->devices[0].concurrency_ns[2] == US(98));
    analysis_free(result);
}

static void test_comm_behind_compute(void)
{
    struct scenario s;
    begin(&s, "comm.db", 1);
    builder_insert_kernel(&s.b, launched(&s, 7, -60, -55, 0, 3200, BIG_GRID, BIG_BLOCK, "gemm_fwd"));
    struct store_kernel nccl =
        launched(&s, 20, -50, -45, 3202, 3402, 24, 544, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    builder_insert_kernel(&s.b, nccl);
    struct analysis_result *result = finish(&s);
    expect_wait(result, 20, ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE, 200,
                "NCCL kernel waited for SMs: kernel gemm_fwd on stream 7 held all 132 SMs");
    CHECK(result && result->devices[0].exposed_communication_ns == US(200));
    analysis_free(result);
}

static void test_late_launch(void)
{
    /* The thread launched X at [98, 101], after nothing but its own earlier launch: X started at
     * 104, 4 us after B ended. Lost: all of X's 46 us could have run under B. */
    struct scenario s;
    begin(&s, "late.db", 1);
    builder_insert_kernel(&s.b, launched(&s, 1, -10, -5, 0, 100, 4, 256, "producer"));
    builder_insert_kernel(&s.b, launched(&s, 2, 98, 101, 104, 150, 4, 256, "consumer"));
    struct analysis_result *result = finish(&s);
    expect_wait(result, 2, ANALYSIS_CAUSE_LATE_LAUNCH, 46,
                "made no CUDA call for 98.0 us of the 98.0 us before it");
    const struct analysis_wait *wait = wait_on(result, 2);
    CHECK_CONTAINS(wait ? wait->evidence : NULL,
                   "cudaLaunchKernel for consumer on stream 2 returned 1.00 us after");
    /* The replay starts each op when its launch call returned (producer -5, X 101; X ran 104-150:
     * the dispatch gap is not modeled): span -5 to 147. A CUDA graph gives back only the launch
     * calls' host time: producer's 5 us launch ended before X's launch began, so X is ready at 96
     * and the span ends 5 us sooner. The 98 us the thread spent elsewhere is its own work, which a
     * graph does not remove. */
    CHECK_INT(result ? result->devices[0].replay_span_ns : -1, US(152));
    CHECK_INT(result ? result->devices[0].headroom_ns : -1, US(5));
    CHECK(result && result->what_if_count == 2 && result->what_if[0].fix == ANALYSIS_FIX_CUDA_GRAPH &&
          result->what_if[1].fix == ANALYSIS_FIX_ALL && result->what_if[1].predicted_saving_ns == US(5));
    analysis_free(result);
}

static void test_host_sync(void)
{
    struct scenario s;
    begin(&s, "hostsync.db", 1);
    builder_insert_kernel(&s.b, launched(&s, 1, -10, -5, 0, 100, 4, 256, "producer"));
    builder_api(&s.b, s.process, THREAD, "cudaStreamSynchronize", 2, 100.5, 0);
    builder_insert_kernel(&s.b, launched(&s, 2, 100.6, 101, 103, 150, 4, 256, "consumer"));
    struct analysis_result *result = finish(&s);
    expect_wait(result, 2, ANALYSIS_CAUSE_HOST_SYNC, 47,
                "thread 7 was blocked in cudaStreamSynchronize for 98.5 us");
    analysis_free(result);
}

static void test_pageable_copy(int with_api)
{
    /* gpu-notes: a 64 MiB cudaMemcpyAsync from pageable memory took 27 ms; the kernel launched
     * after it on another stream started only when it ended. */
    struct scenario s;
    begin(&s, with_api ? "pageable.db" : "pageable-no-api.db", with_api);
    struct store_memcpy copy =
        builder_memcpy_row(s.process, 1, 0, 27000, STORE_COPY_HTOD, STORE_MEMORY_PAGEABLE, 64 << 20);
    copy.correlation_id = s.b.next_correlation++;
    if (with_api)
        builder_api(&s.b, s.process, THREAD, "cudaMemcpyAsync", -2, 27001, copy.correlation_id);
    builder_insert_memcpy(&s.b, copy);
    builder_insert_kernel(&s.b, launched(&s, 2, 27001.5, 27003, 27006, 28006, 4, 256, "after_copy"));
    struct analysis_result *result = finish(&s);
    expect_wait(result, 2, ANALYSIS_CAUSE_PAGEABLE_COPY, 1000,
                with_api ? "was in cudaMemcpyAsync (HtoD 64.0 MiB from/to pageable memory"
                         : "uses pageable host memory");
    analysis_free(result);
}

/* The H200 runs of copy_pageable: the cudaMemcpyAsync that staged a 32 MiB pageable copy
 * [0, 5100] returned at 5091, a short call followed, and the kernel on stream 2, launched at
 * [5116, 5167], started at 5161, 61 us after the copy ended (beyond rule 3's 10 us). Variant 1: the
 * same with a synchronous cudaMemcpy (a read-back the program asked for): no wait. Variant 2: a
 * launch-bound pair, the kernel launched after B ended and started 12 us after it: a late launch;
 * 3: the same 2 ms after B ended, a host phase: no wait. */
static void test_held_by_copy_call_or_launch(int variant)
{
    static const char *const names[] = {"staged.db", "staged-sync.db", "late-gap.db", "host-phase.db"};
    struct scenario s;
    begin(&s, names[variant], 1);
    if (variant <= 1) {
        struct store_memcpy copy =
            builder_memcpy_row(s.process, 1, 0, 5100, STORE_COPY_HTOD, STORE_MEMORY_PAGEABLE, 32 << 20);
        copy.correlation_id = s.b.next_correlation++;
        builder_api(&s.b, s.process, THREAD, variant == 0 ? "cudaMemcpyAsync" : "cudaMemcpy", -187, 5091,
                    copy.correlation_id);
        builder_insert_memcpy(&s.b, copy);
        builder_api(&s.b, s.process, THREAD, "cuKernelGetName", 5097, 5098, STORE_NULL);
        builder_insert_kernel(&s.b, launched(&s, 2, 5116, 5167, 5161, 5662, 4, 256, "after_copy"));
    } else {
        builder_insert_kernel(&s.b, launched(&s, 1, -10, -5, 0, 1, 4, 256, "tiny_a"));
        double start = variant == 2 ? 13 : 2001;
        builder_insert_kernel(&s.b,
                              launched(&s, 2, start - 9, start - 3, start, start + 1, 4, 256, "tiny_b"));
    }
    struct analysis_result *result = finish(&s);
    if (variant == 0)
        expect_wait(
            result, 2, ANALYSIS_CAUSE_PAGEABLE_COPY, 501,
            "was in cudaMemcpyAsync for 5.28 ms: it issued copy HtoD 32.0 MiB (pageable) on stream 1 from "
            "pageable host memory and staged it synchronously; cudaLaunchKernel for after_copy was called "
            "25.0 "
            "us after it returned");
    else if (variant == 2)
        expect_wait(result, 2, ANALYSIS_CAUSE_LATE_LAUNCH, 1,
                    "cudaLaunchKernel for tiny_b on stream 2 returned");
    else
        CHECK(result && result->wait_total_count == 0);
    analysis_free(result);
}

static void test_event_dependency(void)
{
    struct scenario s;
    begin(&s, "event.db", 1);
    struct store_kernel producer = launched(&s, 1, -10, -9, 0, 100, 4, 256, "producer");
    builder_insert_kernel(&s.b, producer);
    int64_t record = builder_api(&s.b, s.process, THREAD, "cudaEventRecord", -8, -7.5, 0);
    struct store_cuda_event event = {.process_id = s.process,
                                     .device_id = 0,
                                     .context_id = 1,
                                     .stream_id = 1,
                                     .event_id = 5,
                                     .correlation_id = record,
                                     .record_ns = AT(100)};
    store_insert_cuda_event(s.b.trace, &event, &s.b.err);
    int64_t wait_call = builder_api(&s.b, s.process, THREAD, "cudaStreamWaitEvent", -7, -6.5, 0);
    struct store_synchronization sync = {.process_id = s.process,
                                         .context_id = 1,
                                         .stream_id = 2,
                                         .event_id = 5,
                                         .sync_type = STORE_SYNC_STREAM_WAIT_EVENT,
                                         .correlation_id = wait_call,
                                         .start_ns = AT(-7),
                                         .end_ns = AT(-6.5)};
    store_insert_synchronization(s.b.trace, &sync, &s.b.err);
    builder_insert_kernel(&s.b, launched(&s, 2, -6, -5, 102, 150, 4, 256, "consumer"));
    struct analysis_result *result = finish(&s);
    expect_wait(result, 2, ANALYSIS_CAUSE_EVENT_DEPENDENCY, 48,
                "stream 2 waits (cudaStreamWaitEvent) on event 5 recorded on stream 1 after kernel producer");
    /* A dependency asked for is not headroom. */
    CHECK(result && result->devices[0].headroom_ns == 0 && result->devices[0].lost_ns == US(48));
    analysis_free(result);
}

static void test_legacy_default_stream(int other_flags, enum analysis_cause expected)
{
    struct scenario s;
    begin(&s, other_flags == 1 ? "legacy.db" : "legacy-nonblocking.db", 1);
    builder_stream(&s.b, s.process, 0, 7, 1, 3, 0);
    builder_stream(&s.b, s.process, 0, 13, 0, other_flags, 0);
    builder_insert_kernel(&s.b, launched(&s, 13, -10, -9, 0, 100, 4, 256, "on_blocking_stream"));
    builder_insert_kernel(&s.b, launched(&s, 7, -8, -7, 101, 140, 4, 256, "on_null_stream"));
    struct analysis_result *result = finish(&s);
    expect_wait(result, 7, expected, 39,
                expected == ANALYSIS_CAUSE_LEGACY_DEFAULT_STREAM
                    ? "stream 7 is the legacy default stream and stream 13 is a blocking stream"
                    : "it was enqueued before and no recorded cause applies");
    if (result && expected == ANALYSIS_CAUSE_LEGACY_DEFAULT_STREAM) {
        const struct analysis_lane *lane = &result->lanes[result->waits[0].waiting.lane];
        CHECK(lane->is_legacy_default);
        CHECK_STR(lane->role, "default");
    }
    analysis_free(result);
}

static void test_copy_engine(void)
{
    struct scenario s;
    begin(&s, "copyengine.db", 1);
    struct store_memcpy first =
        builder_memcpy_row(s.process, 1, 0, 500, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 8 << 20);
    struct store_memcpy second =
        builder_memcpy_row(s.process, 2, 501, 1001, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 8 << 20);
    first.correlation_id = builder_api(&s.b, s.process, THREAD, "cudaMemcpyAsync", -10, -9, 0);
    second.correlation_id = builder_api(&s.b, s.process, THREAD, "cudaMemcpyAsync", -8, -7, 0);
    builder_insert_memcpy(&s.b, first);
    builder_insert_memcpy(&s.b, second);
    struct analysis_result *result = finish(&s);
    expect_wait(result, 2, ANALYSIS_CAUSE_COPY_ENGINE, 500,
                "HtoD copies on streams 1 and 2 use the same copy engine");
    analysis_free(result);
}

static void test_shared_queue(int same_channel)
{
    /* gpu-notes and many_streams_2: a channel dispatches in launch order, so a stream's second
     * kernel (held by its first) holds back the next stream's first. Stream 13's first [0, 100] and
     * second [101, 200] were launched before stream 14's kernel, ready at -5; on one channel it
     * started at 102, right after stream 13's second was dispatched: lost min(102 - 0, 78) = 78. On
     * two channels (CUDA_DEVICE_MAX_CONNECTIONS large enough) it ran at once: nothing to report. */
    struct scenario s;
    begin(&s, same_channel ? "queue.db" : "queue-two-channels.db", 1);
    struct store_kernel first = launched(&s, 13, -10, -9, 0, 100, 4, 256, "first_13");
    struct store_kernel second = launched(&s, 13, -8, -7, 101, 200, 4, 256, "second_13");
    struct store_kernel other =
        launched(&s, 14, -6, -5, same_channel ? 102 : 2, same_channel ? 180 : 80, 4, 256, "first_14");
    first.channel_id = second.channel_id = 0;
    other.channel_id = same_channel ? 0 : 1;
    builder_insert_kernel(&s.b, first);
    builder_insert_kernel(&s.b, second);
    builder_insert_kernel(&s.b, other);
    struct analysis_result *result = finish(&s);
    if (same_channel) {
        expect_wait(
            result, 14, ANALYSIS_CAUSE_SHARED_QUEUE, 78,
            "streams 13 and 14 share hardware channel 0 (more streams than CUDA_DEVICE_MAX_CONNECTIONS),"
            " which dispatches in launch order: first_14 on stream 14 was queued behind second_13 on stream"
            " 13, which waited for first_13 on its own stream");
        const struct analysis_wait *wait = wait_on(result, 14);
        CHECK_STR(wait ? wait->blocking.name : NULL, "first_13");
    } else {
        CHECK(result && result->wait_total_count == 0);
    }
    analysis_free(result);
}

static void test_shared_queue_breadth_first(void)
{
    /* Launched round by round (13, 14, 13): stream 14's kernel is ahead of stream 13's second in
     * the channel and starts at once; the second follows its own stream. No wait. */
    struct scenario s;
    begin(&s, "queue-breadth.db", 1);
    struct store_kernel first = launched(&s, 13, -10, -9, 0, 100, 4, 256, "first_13");
    struct store_kernel other = launched(&s, 14, -8, -7, 2, 90, 4, 256, "first_14");
    struct store_kernel second = launched(&s, 13, -6, -5, 101, 200, 4, 256, "second_13");
    first.channel_id = second.channel_id = other.channel_id = 0;
    builder_insert_kernel(&s.b, first);
    builder_insert_kernel(&s.b, other);
    builder_insert_kernel(&s.b, second);
    struct analysis_result *result = finish(&s);
    CHECK(result && result->wait_total_count == 0);
    analysis_free(result);
}

/* host_sync --op CALL: kernel A on stream 1 [0, 1000], the thread blocked in CALL from 2 until
 * 1003, then launched B on idle stream 2 at 1005 (it ran [1015, 2515]). B could have run from 2:
 * lost is the time the thread was held, min(1003 - 2, 1500) = 1001. B is kernel_b, or kernel_a again
 * (one kernel looping on two streams, as host_sync does): then the evidence names the other launch
 * by its stream, not "kernel_a could have run beside kernel_a". */
static void test_host_sync_idle_stream(const char *call, const char *second)
{
    struct scenario s;
    char file[64];
    snprintf(file, sizeof file, "hostsync-%s.db", call);
    begin(&s, file, 1);
    builder_insert_kernel(&s.b, launched(&s, 1, -10, -5, 0, 1000, 4, 256, "kernel_a"));
    builder_api(&s.b, s.process, THREAD, call, 2, 1003, 0);
    builder_api(&s.b, s.process, THREAD, "cudaGetLastError", 1003.5, 1004, 0);
    builder_insert_kernel(&s.b, launched(&s, 2, 1005, 1010, 1015, 2515, 4, 256, second));
    struct analysis_result *result = finish(&s);
    char evidence[256];
    snprintf(evidence, sizeof evidence,
             "thread 7 was blocked in %s for 1.00 ms until kernel_a on stream 1 ended;"
             " stream 2 sat idle meanwhile",
             call);
    expect_wait(result, 2, ANALYSIS_CAUSE_HOST_SYNC, 1001, evidence);
    const struct analysis_wait *wait = wait_on(result, 2);
    snprintf(evidence, sizeof evidence,
             "cudaLaunchKernel for %s was called 2.00 us after the call returned"
             " (enqueued before it, %s could have run beside %s)",
             second, second, strcmp(second, "kernel_a") == 0 ? "the kernel_a on stream 1" : "kernel_a");
    CHECK_CONTAINS(wait ? wait->evidence : NULL, evidence);
    CHECK(wait && wait->wait_start_ns == AT(2) && wait->wait_end_ns == AT(1015));
    analysis_free(result);
}

static void test_host_sync_not_a_wait(int variant)
{
    /* What host_sync --op none, streams_fit and every program's end look like; none is a missed
     * overlap. 0: a cudaDeviceSynchronize begun while both streams ran (a barrier over stream 1's
     * own work too), next kernel on stream 1 launched 17 us after stream 2 ended. 1: the same,
     * launched 3 us after (found as a late launch first). 2: the thread synchronized, then read
     * the results back with cudaMemcpy on the NULL stream (it waits for that copy anyway). 3: the
     * synchronization held the thread 101 us, then 300 us of other host work came before the
     * launch: the call was not what kept it back. */
    struct scenario s;
    char file[64];
    snprintf(file, sizeof file, "hostsync-none-%d.db", variant);
    begin(&s, file, 1);
    if (variant <= 1) {
        builder_insert_kernel(&s.b, launched(&s, 1, -10, -9, 0, 1000, 4, 256, "a"));
        builder_insert_kernel(&s.b, launched(&s, 2, -8, -7, 1, 1050, 4, 256, "b"));
        builder_api(&s.b, s.process, THREAD, "cudaDeviceSynchronize", 5, 1052, 0);
        double launch = variant == 0 ? 1060 : 1052.5;
        builder_insert_kernel(
            &s.b, launched(&s, 1, launch, launch + 0.5, launch + 2, launch + 900, 4, 256, "a_next"));
    } else if (variant == 2) {
        builder_insert_kernel(&s.b, launched(&s, 1, -10, -9, 0, 1000, 4, 256, "a"));
        builder_api(&s.b, s.process, THREAD, "cudaDeviceSynchronize", 2, 1003, 0);
        struct store_memcpy copy =
            builder_memcpy_row(s.process, 7, 1020, 1100, STORE_COPY_DTOH, STORE_MEMORY_PAGEABLE, 1 << 20);
        copy.correlation_id = builder_api(&s.b, s.process, THREAD, "cudaMemcpy", 1010, 1101, 0);
        builder_insert_memcpy(&s.b, copy);
    } else {
        builder_insert_kernel(&s.b, launched(&s, 1, -10, -9, 0, 100, 4, 256, "a"));
        builder_api(&s.b, s.process, THREAD, "cudaStreamSynchronize", 2, 103, 0);
        builder_insert_kernel(&s.b, launched(&s, 2, 400, 405, 410, 500, 4, 256, "b"));
    }
    struct analysis_result *result = finish(&s);
    CHECK(result && result->wait_total_count == 0);
    if (result && result->wait_count)
        fprintf(stderr, "  variant %d: %s\n", variant, result->waits[0].evidence);
    analysis_free(result);
}

/* two_batch: all_gathers on streams 17 and 18 of one communicator. The one on 18 was launched at
 * [50, 55] while the one on 17 ran [0, 100], and started at 103: lost min(103 - 55, 97) = 48. With
 * communicator ids that differ, the same timing proves nothing. */
static void test_shared_communicator(const char *communicator_a, const char *communicator_b)
{
    struct scenario s;
    begin(&s,
          communicator_a ? (strcmp(communicator_a, communicator_b) ? "comm-two.db" : "comm-named.db")
                         : "comm-unnamed.db",
          1);
    const char *name = "ncclDevKernel_AllGather_RING_LL";
    int64_t first = builder_insert_kernel(&s.b, launched(&s, 17, -10, -9, 0, 100, 24, 544, name));
    int64_t second = builder_insert_kernel(&s.b, launched(&s, 18, 50, 55, 103, 200, 24, 544, name));
    for (int i = 0; communicator_a && i < 2; i++) {
        struct store_collective row = builder_collective_row_ns(
            s.process, i ? 18 : 17, "AllGather", 4096, i ? communicator_b : communicator_a, 0, 2,
            i ? second : first, AT(i ? 103 : 0), AT(i ? 200 : 100));
        row.dtype = "f32";
        row.algorithm = "RING";
        row.protocol = "LL";
        row.sequence_number = i;
        row.detail_source = STORE_DETAIL_NCCL_PROFILER;
        builder_insert_collective(&s.b, row);
    }
    struct analysis_result *result = finish(&s);
    if (!communicator_a)
        expect_wait(result, 18, ANALYSIS_CAUSE_SHARED_COMMUNICATOR, 48,
                    "NCCL AllGather RING LL on stream 17 and NCCL AllGather RING LL on stream 18"
                    " are collectives of one communicator (the trace does not name it");
    else if (strcmp(communicator_a, communicator_b) == 0)
        expect_wait(result, 18, ANALYSIS_CAUSE_SHARED_COMMUNICATOR, 48, "collectives of communicator 0x5eed");
    else
        expect_wait(result, 18, ANALYSIS_CAUSE_UNEXPLAINED, 48, "no recorded cause applies");
    /* NCCL's own ordering is not headroom a code change gets back. */
    CHECK(result && result->devices[0].headroom_ns == 0);
    analysis_free(result);
}

static void test_slow_launch_call(void)
{
    /* The launch call of X began before B even started and returned 1 us after B ended (a module
     * load inside cudaLaunchKernel): the evidence says the call held the thread, with no negative
     * "made no CUDA call for -5 us". */
    struct scenario s;
    begin(&s, "slow-launch.db", 1);
    builder_insert_kernel(&s.b, launched(&s, 1, -20, -15, 0, 100, 4, 256, "producer"));
    builder_insert_kernel(&s.b, launched(&s, 2, -5, 101, 103, 150, 4, 256, "consumer"));
    struct analysis_result *result = finish(&s);
    expect_wait(
        result, 2, ANALYSIS_CAUSE_LATE_LAUNCH, 47,
        "cudaLaunchKernel for consumer on stream 2 began before producer on stream 1 ended but took 106 us"
        " and returned 1.00 us after it: the call itself held the thread");
    analysis_free(result);
}

static void test_pageable_copy_behind_copy(void)
{
    /* collector_smoke: a pinned 64 MiB HtoD on stream 14 [0, 1222], then a pageable 64 MiB HtoD on
     * stream 15 whose call ran [-1, 8303] (staging it) while the copy ran [1225, 8316]. The call
     * returning late says nothing: its DMA was enqueued when the call began and waited for the
     * copy engine: lost min(1225 - 0, 7091) = 1225. */
    struct scenario s;
    begin(&s, "pageable-behind-copy.db", 1);
    struct store_memcpy pinned =
        builder_memcpy_row(s.process, 14, 0, 1222, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 64 << 20);
    pinned.correlation_id = builder_api(&s.b, s.process, THREAD, "cudaMemcpyAsync", -22, -1.2, 0);
    struct store_memcpy pageable =
        builder_memcpy_row(s.process, 15, 1225, 8316, STORE_COPY_HTOD, STORE_MEMORY_PAGEABLE, 64 << 20);
    pageable.correlation_id = builder_api(&s.b, s.process, THREAD, "cudaMemcpyAsync", -1, 8303, 0);
    builder_insert_memcpy(&s.b, pinned);
    builder_insert_memcpy(&s.b, pageable);
    struct analysis_result *result = finish(&s);
    expect_wait(result, 15, ANALYSIS_CAUSE_COPY_ENGINE, 1225,
                "HtoD copies on streams 14 and 15 use the same copy engine");
    analysis_free(result);
}

/* X (stream 2, priority 0) was ready at 1 us; B (stream 1, priority -1) was launched later but
 * started first at 5 us and filled the device. X is low_priority, or the same kernel as B (then the
 * evidence says "the one on stream 2", not "gemm went first although gemm was ready"). */
static void test_stream_priority(const char *waiting, const char *expected)
{
    struct scenario s;
    begin(&s, strcmp(waiting, "high_priority") == 0 ? "priority-same.db" : "priority.db", 1);
    builder_stream(&s.b, s.process, 0, 1, 0, 2, -1);
    builder_stream(&s.b, s.process, 0, 2, 0, 2, 0);
    builder_insert_kernel(&s.b, launched(&s, 2, 0, 1, 3205, 3305, 4, 256, waiting));
    builder_insert_kernel(&s.b, launched(&s, 1, 2, 3, 5, 3205, BIG_GRID, BIG_BLOCK, "high_priority"));
    struct analysis_result *result = finish(&s);
    expect_wait(result, 2, ANALYSIS_CAUSE_STREAM_PRIORITY, 100, expected);
    analysis_free(result);
}

static void test_unexplained_and_missing_api(void)
{
    /* Without API records the late launch of test_late_launch cannot be proved: unexplained, and
     * the evidence says why. */
    struct scenario s;
    begin(&s, "late-no-api.db", 0);
    builder_insert_kernel(&s.b, launched(&s, 1, -10, -5, 0, 100, 4, 256, "producer"));
    builder_insert_kernel(&s.b, launched(&s, 2, 98, 101, 104, 150, 4, 256, "consumer"));
    struct analysis_result *result = finish(&s);
    expect_wait(result, 2, ANALYSIS_CAUSE_UNEXPLAINED, 46, "no launch record for it (no API records)");
    CHECK(result && result->devices[0].headroom_ns == 0);
    analysis_free(result);
}

static void test_graph_kernels(void)
{
    /* Kernels of a CUDA graph share the correlation id of one cudaGraphLaunch, which returned
     * after the producer ended: that is not a late launch of the node. */
    struct scenario s;
    begin(&s, "graph.db", 1);
    struct store_kernel producer = builder_kernel_row(s.process, 1, 0, 100, 4, 256, "node_a");
    struct store_kernel consumer = builder_kernel_row(s.process, 2, 101, 150, 4, 256, "node_b");
    int64_t launch = builder_api(&s.b, s.process, THREAD, "cudaGraphLaunch", -5, 120, 0);
    producer.correlation_id = consumer.correlation_id = launch;
    producer.graph_id = consumer.graph_id = 3;
    builder_insert_kernel(&s.b, producer);
    builder_insert_kernel(&s.b, consumer);
    struct analysis_result *result = finish(&s);
    expect_wait(result, 2, ANALYSIS_CAUSE_UNEXPLAINED, 49, "nodes of one CUDA graph");
    CHECK(result && result->causes[0].cause == ANALYSIS_CAUSE_UNEXPLAINED);
    analysis_free(result);
}

static void test_own_stream_and_top_waits(void)
{
    /* X follows its own stream's previous op: not a cross-stream wait. Then three waits of
     * different sizes with max_waits 2 keep the two largest, totals count all three. */
    struct scenario s;
    begin(&s, "topk.db", 1);
    builder_insert_kernel(&s.b, launched(&s, 1, -10, -9, 0, 100, 4, 256, "a"));
    builder_insert_kernel(&s.b, launched(&s, 2, -10, -9, 0, 100, 4, 256, "b_first"));
    builder_insert_kernel(&s.b, launched(&s, 2, -8, -7, 100.5, 110, 4, 256, "b_second"));
    for (int i = 0; i < 3; i++) {
        double start = 1000 * (i + 1);
        builder_insert_kernel(&s.b,
                              launched(&s, 3, start - 20, start - 19, start, start + 100, 4, 256, "blocker"));
        builder_insert_kernel(&s.b, launched(&s, 4, start - 18, start - 17, start + 101,
                                             start + 101 + 10 * (i + 1), 4, 256, "waiter"));
    }
    CHECK_INT(builder_finish(&s.b), 0);
    struct analysis_options options;
    analysis_options_init(&options);
    options.max_waits = 2;
    error_info err;
    struct analysis_result *result = analysis_run(s.b.trace, &options, &err);
    builder_close(&s.b);
    CHECK(result != NULL);
    if (result) {
        CHECK(wait_on(result, 2) == NULL);
        CHECK_INT(result->wait_total_count, 3);
        CHECK_INT(result->wait_count, 2);
        CHECK_INT(result->waits[0].lost_ns, US(30));
        CHECK_INT(result->waits[1].lost_ns, US(20));
        CHECK_INT(result->causes[0].lost_ns, US(60));
        CHECK_INT(result->causes[0].count, 3);
    }
    analysis_free(result);
}

/* Every cause a wait can carry says what to do about it and which CUDA or NCCL document says so
 * (unexplained: what would prove it). A cause added without its row reads "(null)" or "?". */
static void test_every_cause_has_advice(void)
{
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++) {
        const char *advice = analysis_cause_advice((enum analysis_cause)cause);
        const char *source = analysis_cause_advice_source((enum analysis_cause)cause);
        CHECK(advice && strlen(advice) > 20);
        CHECK(source && (strncmp(source, "CUDA ", 5) == 0 || strncmp(source, "NCCL ", 5) == 0 ||
                         cause == ANALYSIS_CAUSE_UNEXPLAINED));
    }
    CHECK_CONTAINS(analysis_cause_advice(ANALYSIS_CAUSE_PAGEABLE_COPY), "pin the host buffer");
    CHECK_CONTAINS(analysis_cause_advice(ANALYSIS_CAUSE_SHARED_QUEUE), "CUDA_DEVICE_MAX_CONNECTIONS");
    CHECK_CONTAINS(analysis_cause_advice(ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE),
                   "NCCL_MIN_CTAS / NCCL_MAX_CTAS");
    CHECK_CONTAINS(analysis_cause_advice(ANALYSIS_CAUSE_LATE_LAUNCH), "CUDA graph");
    CHECK_CONTAINS(analysis_cause_advice(ANALYSIS_CAUSE_LEGACY_DEFAULT_STREAM), "cudaStreamNonBlocking");
    CHECK_CONTAINS(analysis_cause_advice(ANALYSIS_CAUSE_SHARED_COMMUNICATOR), "second communicator");
    CHECK_STR(analysis_cause_advice(ANALYSIS_CAUSE_COUNT), "?");
}

/* Two streams, kernels of 100 us launched in turn by one thread, `count` of them. Variant 0:
 * CUDA_LAUNCH_BLOCKING, each launch call [110 i, 110 i + 110] returns 5 us after its kernel
 * [110 i + 5, 110 i + 105] ended. Variant 1: the same schedule from a slow host whose launches
 * return in 5 us (a late launch, no blocking). Variant 2: 4 blocking launches only (fewer than the
 * rule's 10), with the recorded environment (schema 3's process_environment, made by hand here as
 * its DDL says) setting CUDA_LAUNCH_BLOCKING=1. */
static void test_launch_blocking(int variant)
{
    struct scenario s;
    begin(&s, "blocking.db", 1);
    int count = variant == 2 ? 4 : 12;
    for (int i = 0; i < count; i++) {
        double at = 110.0 * i;
        builder_insert_kernel(&s.b, launched(&s, 1 + i % 2, at, at + (variant == 1 ? 5 : 110), at + 5,
                                             at + 105, 4, 256, i % 2 ? "odd" : "even"));
    }
    sqlite3 *db = store_db(s.b.trace);
    char value[16];
    error_info err = {{0}};
    CHECK_INT(store_process_environment(db, s.process, "CUDA_LAUNCH_BLOCKING", value, sizeof value, &err),
              STORE_ENVIRONMENT_NOT_RECORDED);
    if (variant == 2) {
        CHECK_INT(sqlite3_exec(db,
                               "INSERT INTO meta VALUES ('host_sample_hz', '0');" /* a schema-3 recording */
                               " INSERT INTO process_environment VALUES (4000, 'CUDA_LAUNCH_BLOCKING', '1'),"
                               " (4000, 'OMP_NUM_THREADS', '8')",
                               NULL, NULL, NULL),
                  SQLITE_OK);
        CHECK_INT(store_process_environment(db, s.process, "CUDA_LAUNCH_BLOCKING", value, sizeof value, &err),
                  STORE_ENVIRONMENT_SET);
        CHECK_STR(value, "1");
        CHECK_INT(store_process_environment(db, s.process, "NCCL_DEBUG", value, sizeof value, &err),
                  STORE_ENVIRONMENT_UNSET);
    }
    struct store_launch_blocking facts;
    CHECK_INT(store_launch_blocking_read(db, s.process, &facts, &err), 0);
    CHECK_INT(facts.launches, count);
    CHECK_INT(facts.blocked, variant == 1 ? 0 : count);
    CHECK_INT(facts.normal_call_ns, variant == 1 ? US(5) : 0);
    struct analysis_result *result = finish(&s);
    /* Every kernel after the first waited for the other stream's: 100 us each (its whole length). */
    int64_t lost = 0, waits = 0;
    for (size_t i = 0; result && i < result->wait_count; i++) {
        CHECK_STR(analysis_cause_tag(result->waits[i].cause),
                  variant == 1 ? "late-launch" : "launch-blocking");
        lost += result->waits[i].lost_ns;
        waits++;
    }
    CHECK_INT(waits, count - 1);
    CHECK_INT(lost, US(100) * (count - 1));
    const struct analysis_wait *wait = wait_on(result, 2);
    if (variant == 0)
        CHECK_CONTAINS(wait ? wait->evidence : NULL,
                       "12 of the process's 12 kernel launch calls returned only after their kernel ended");
    if (variant == 2)
        CHECK_CONTAINS(wait ? wait->evidence : NULL, "the recorded environment sets CUDA_LAUNCH_BLOCKING=1");
    const struct analysis_what_if *unset = NULL;
    for (size_t i = 0; result && i < result->what_if_count; i++)
        if (result->what_if[i].fix == ANALYSIS_FIX_UNSET_LAUNCH_BLOCKING)
            unset = &result->what_if[i];
    if (variant == 1) {
        CHECK(unset == NULL);
    } else {
        /* Unset, each launch call takes 5 us (no launch of the trace returned before its kernel
         * ended): launch i at 5 i, its kernel ready at 5 + 5 i; each stream runs its kernels back
         * to back from the first (5 and 10): the last ends at 10 + 100 count / 2. */
        int64_t recorded = US(110.0 * (count - 1) + 100), fixed = US(10 + 100.0 * count / 2 - 5);
        CHECK_INT(result ? result->devices[0].replay_span_ns : -1, recorded);
        CHECK_INT(unset ? unset->predicted_saving_ns : -1, recorded - fixed);
    }
    analysis_free(result);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    test_every_cause_has_advice();
    test_sm_saturation(1);
    test_sm_saturation(0);
    test_small_kernels_overlap();
    test_comm_behind_compute();
    for (int variant = 0; variant < 4; variant++)
        test_resources_held(variant);
    test_late_launch();
    for (int variant = 0; variant < 3; variant++)
        test_launch_blocking(variant);
    test_host_sync();
    test_pageable_copy(1);
    test_pageable_copy(0);
    for (int variant = 0; variant < 4; variant++)
        test_held_by_copy_call_or_launch(variant);
    test_event_dependency();
    test_legacy_default_stream(1, ANALYSIS_CAUSE_LEGACY_DEFAULT_STREAM);
    test_legacy_default_stream(2, ANALYSIS_CAUSE_UNEXPLAINED);
    test_copy_engine();
    test_shared_queue(1);
    test_shared_queue(0);
    test_shared_queue_breadth_first();
    test_host_sync_idle_stream("cudaStreamSynchronize", "kernel_b");
    test_host_sync_idle_stream("cudaDeviceSynchronize", "kernel_a");
    test_host_sync_idle_stream("cudaFree", "kernel_b");
    test_host_sync_idle_stream("cudaMalloc", "kernel_a");
    for (int variant = 0; variant < 4; variant++)
        test_host_sync_not_a_wait(variant);
    test_shared_communicator(NULL, NULL);
    test_shared_communicator("0x5eed", "0x5eed");
    test_shared_communicator("0x5eed", "0xbeef");
    test_slow_launch_call();
    test_pageable_copy_behind_copy();
    test_stream_priority("low_priority",
                         "stream 1 has priority -1, above stream 2's 0: high_priority went first"
                         " although low_priority was ready 4.00 us before it started");
    test_stream_priority("high_priority",
                         "stream 1 has priority -1, above stream 2's 0: high_priority went first"
                         " although the high_priority on stream 2 was ready 4.00 us before it"
                         " started");
    test_unexplained_and_missing_api();
    test_graph_kernels();
    test_own_stream_and_top_waits();
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
