/* test_whatif.c: the what-if replay's fixes that need no GPU to check, and the overlap cost, on
 * hand-built traces whose answers are worked out in the comments. Times are microseconds; the
 * device is the H100 of gpu-notes (132 SMs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analyze_builder.h"
#include "check.h"
#include "framework_calls.h"

static char directory[] = "/tmp/overlapscope-test-whatif-XXXXXX";

#define THREAD 7

/* A trace of one process on one H100 (device 0): the process. */
static int64_t h100_trace(struct builder *b, const char *name)
{
    CHECK_INT(builder_create(b, directory, name), 0);
    int64_t process = builder_process(b, 0);
    builder_h100(b, process, 0);
    return process;
}

static const struct analysis_what_if *what_if(const struct analysis_result *result, enum analysis_fix fix)
{
    for (size_t i = 0; result && i < result->what_if_count; i++)
        if (result->what_if[i].fix == fix)
            return &result->what_if[i];
    return NULL;
}

static void kernel(struct builder *b, int64_t process, int64_t stream, double start, double end, int64_t grid,
                   const char *name, int launched)
{
    struct store_kernel row = builder_kernel_row(process, stream, start, end, grid, 256, name);
    if (launched) {
        row.correlation_id = b->next_correlation++;
        builder_api(b, process, THREAD, "cudaLaunchKernel", -60, -59, row.correlation_id);
    }
    builder_insert_kernel(b, row);
}

/* A 4-block kernel of `name` on stream [start, end], launched by a cudaLaunchKernel of thread over
 * [call_start, call_end]. */
static void launched(struct builder *b, int64_t process, int64_t stream, double start, double end,
                     const char *name, int64_t thread, double call_start, double call_end)
{
    struct store_kernel row = builder_kernel_row(process, stream, start, end, 4, 256, name);
    row.correlation_id = builder_api(b, process, thread, "cudaLaunchKernel", call_start, call_end, 0);
    builder_insert_kernel(b, row);
}

static void event_call(struct builder *b, int64_t process, int64_t stream, int64_t event, int wait)
{
    int64_t call =
        builder_api(b, process, THREAD, wait ? "cudaStreamWaitEvent" : "cudaEventRecord", -60, -59, 0);
    if (wait) {
        struct store_synchronization row = {.process_id = process,
                                            .context_id = 1,
                                            .stream_id = stream,
                                            .event_id = event,
                                            .sync_type = STORE_SYNC_STREAM_WAIT_EVENT,
                                            .correlation_id = call,
                                            .start_ns = AT(-60),
                                            .end_ns = AT(-59)};
        store_insert_synchronization(b->trace, &row, &b->err);
    } else {
        struct store_cuda_event row = {.process_id = process,
                                       .device_id = 0,
                                       .context_id = 1,
                                       .stream_id = stream,
                                       .event_id = event,
                                       .correlation_id = call,
                                       .record_ns = STORE_NULL};
        store_insert_cuda_event(b->trace, &row, &b->err);
    }
}

static void test_pipeline_on_one_stream(void)
{
    /* Seed 003 on one stream, 100 us per segment: encoder n waits "free[n % 2]" and records
     * "ready[n % 2]", decoder n waits "ready[n % 2]" and records "free[n % 2]", launched
     * e0 d0 e1 d1 e2 d2 and run one after the other: span 600. With the encoder and the decoder
     * on two streams the events allow e0 | e1 d0 | e2 d1 | d2: span 400, a saving of 200 us. */
    struct builder b;
    int64_t process = h100_trace(&b, "pipeline.db");
    enum { READY0 = 1, READY1 = 2, FREE0 = 3, FREE1 = 4 };
    const char *names[2] = {"encoder", "decoder"};
    int64_t waited[2][2] = {{FREE0, FREE1}, {READY0, READY1}},
            recorded[2][2] = {{READY0, READY1}, {FREE0, FREE1}};
    for (int segment = 0; segment < 6; segment++) {
        int role = segment % 2, slot = (segment / 2) % 2;
        event_call(&b, process, 1, waited[role][slot], 1);
        kernel(&b, process, 1, 100 * segment, 100 * segment + 100, 4, names[role], 1);
        event_call(&b, process, 1, recorded[role][slot], 0);
    }
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    const struct analysis_what_if *pipelined = what_if(result, ANALYSIS_FIX_PIPELINE);
    CHECK(pipelined != NULL);
    CHECK_INT(pipelined ? pipelined->predicted_saving_ns : -1, US(200));
    CHECK_STR(pipelined ? analysis_what_if_basis(pipelined) : "", "same-stream-events");
    CHECK_INT(result ? result->devices[0].replay_span_ns : -1, US(600));
    CHECK_INT(result ? result->total_headroom_ns : -1, US(200));
    /* The two streams run an encoder beside a decoder for 200 us (e1 d0, e2 d1), at their alone
     * speed: the saving is an upper bound, and says so. */
    CHECK_INT(pipelined ? pipelined->newly_together_ns : -1, US(200));
    CHECK_INT(pipelined ? analysis_what_if_upper_bound(pipelined) : -1, 1);
    analysis_free(result);
}

/* other_thread: a thread that launches nothing (3, below THREAD) also synchronizes, from 40 to 50 us
 * in the first iteration's gap; removing it gives this thread nothing back, so every figure is as
 * without it. The removed host time is kept per thread, sorted by (thread, end): sorted by end
 * alone, the other thread's call would sit among this thread's and their sums would mix. */
static void test_idle_host_sync(int other_thread, int steps)
{
    /* One stream, no wait between streams: three 20 us kernels, each launched by a call that
     * returns 5 us after it began and followed by a cudaDeviceSynchronize that returns 5 us after
     * the kernel ends (iteration i at 100 i us: launch [0, 5], kernel [10, 30], sync [6, 35]). The
     * idle accounting proves host-sync idle, so the replay removes the syncs (29 us each). As
     * recorded the replay runs the first kernel when its launch returns, at 5, and the next two at
     * their recorded distance from the sync before them (launched right after it on a drained device,
     * they waited 5 us for the launch path after their call returned): each sync returns 5 us after
     * its kernel, the next kernel starts 75 us later: kernels at 5, 105 and 205, span 220. Without
     * the syncs the launches come 29 and 58 us earlier and each kernel queues when its launch
     * returns: kernels at 5, 76 and 147, span 162: a saving of 58 us. The gaps are also
     * launch-bound in part, and the host's own work (65 us from each sync's return to the next launch,
     * at least idle.c's 50 us) host-cpu. Without that work alone the syncs stay: each
     * returns 5 us after its kernel (at 30 and 65), the next launch comes at once, its kernel 10 us
     * later (the call and the launch path): kernels at 5, 40 and 75, span 90, a saving of 130 us.
     * "All of the above" also drops the syncs and the launch calls' 5 us: the later launches are
     * ready 1 and 2 us after the first, each kernel starts when the one before ends (5, 25, 45):
     * span 60, a headroom of 160 us. The 1 us between a launch and its sync is no host work.
     * steps: the three iterations are one step ("ProfilerStep#1", 0 to 240 us) after a setup kernel
     * (launched at -400, run at -390) and 395 us of host work before the step. The accounting keeps
     * that setup stretch apart (outside every step), so the fix removes only the stretches inside the
     * step and saves the same 130 us (removing the setup too would run the step's kernels right after
     * the setup kernel, 380 us earlier). */
    struct builder b;
    CHECK_INT(builder_create(&b, directory,
                             steps          ? "idle-sync-steps.db"
                             : other_thread ? "idle-sync-other.db"
                                            : "idle-sync.db"),
              0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    for (int i = 0; i < 3; i++) {
        struct store_kernel row = builder_kernel_row(process, 1, 100 * i + 10, 100 * i + 30, 4, 256, "step");
        row.correlation_id = builder_api(&b, process, THREAD, "cudaLaunchKernel", 100 * i, 100 * i + 5, 0);
        builder_insert_kernel(&b, row);
        builder_api(&b, process, THREAD, "cudaDeviceSynchronize", 100 * i + 6, 100 * i + 35, 0);
        if (other_thread && i == 0)
            builder_api(&b, process, 3, "cudaDeviceSynchronize", 40, 50, 0);
    }
    if (steps) {
        struct store_kernel row = builder_kernel_row(process, 1, -390, -370, 4, 256, "setup");
        row.correlation_id = builder_api(&b, process, THREAD, "cudaLaunchKernel", -400, -395, 0);
        builder_insert_kernel(&b, row);
        builder_nvtx(&b, process, THREAD, STORE_NULL, "ProfilerStep#1", 0, 240);
    }
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    CHECK_INT(result ? (int64_t)result->wait_total_count : -1, 0);
    const struct analysis_what_if *sync = what_if(result, ANALYSIS_FIX_REMOVE_HOST_SYNC);
    CHECK(sync != NULL);
    CHECK_INT(sync ? sync->predicted_saving_ns : -1, US(58));
    CHECK_STR(sync ? analysis_what_if_basis(sync) : "", "idle-host-sync");
    /* The launching thread's syncs [6, 35] each waited for their kernel's end at 30 (24 us) and
     * returned 5 us later; the third begins after the last launch (at 200) and moves nothing. The
     * other thread's sync [40, 50] began after the work before it had ended: host time alone. */
    CHECK_INT(sync ? sync->sync_calls : -1, other_thread ? 3 : 2);
    CHECK_INT(sync ? sync->sync_wait_ns : -1, US(48));
    CHECK_INT(sync ? sync->sync_host_ns : -1, other_thread ? US(20) : US(10));
    if (!steps)
        CHECK_INT(result ? result->devices[0].replay_span_ns : -1, US(220));
    const struct analysis_what_if *work = what_if(result, ANALYSIS_FIX_HOST_WORK);
    CHECK_INT(work ? work->predicted_saving_ns : -1, US(130));
    CHECK_STR(work ? analysis_what_if_basis(work) : "", "idle-host-cpu");
    /* All the host's own work gone is the most moving it can give: an upper bound, and so is "all",
     * of whose saving it is 130 us; removing the syncs is not. */
    CHECK_INT(work ? (int)analysis_what_if_bound(work) : -1, ANALYSIS_BOUND_ALL_HOST_WORK);
    const struct analysis_what_if *all = what_if(result, ANALYSIS_FIX_ALL);
    CHECK_INT(all ? all->host_work_ns : -1, US(130));
    CHECK_INT(all ? (int)analysis_what_if_bound(all) : -1, ANALYSIS_BOUND_ALL_HOST_WORK);
    if (!steps)
        CHECK_INT(result ? result->total_headroom_ns : -1, US(160));
    /* One stream: no kernel ever runs beside another, the saving is no upper bound. */
    CHECK_INT(sync ? sync->newly_together_ns : -1, 0);
    CHECK_INT(sync ? analysis_what_if_upper_bound(sync) : -1, 0);
    analysis_free(result);
}

static void test_launch_latency_after_sync(void)
{
    /* host_bound --mode sync in small: one stream, each iteration a launch call of 5 us whose 10 us
     * kernel starts 2 us after the call returns (the launch path to an idle device), then a
     * cudaDeviceSynchronize that returns 3 us after the kernel ends, the next launch at once
     * (iteration i at 20 i us: launch [0, 5], kernel [7, 17], sync [6, 20]); the recorded span is
     * 50 us (7 to 57). Each sync drained the device, so the kernel launched right after it waited
     * for the launch path after its call: as recorded, the replay starts the first kernel when its
     * launch returns (5) and the next two at their recorded distance from the sync before them (7
     * us): the syncs return at 18 and 38, kernels [5, 15], [25, 35], [45, 55], span 50. Without the
     * syncs (14 us each) the launches come at 0, 6 and 12 and each kernel is ready when its launch
     * returns, behind the one before: [5, 15], [15, 25], [25, 35], span 30: a saving of 20 us, what
     * the same launches back to back take on a GPU (kernels at 7, 17, 27: 30 us). Replayed from the
     * launches' returns as recorded, the kernels after the syncs started 2 us early, left out of
     * each sync's cost: span 46, a saving of 16. */
    struct builder b;
    int64_t process = h100_trace(&b, "latency-after-sync.db");
    for (int i = 0; i < 3; i++) {
        launched(&b, process, 1, 20 * i + 7, 20 * i + 17, "step", THREAD, 20 * i, 20 * i + 5);
        builder_api(&b, process, THREAD, "cudaDeviceSynchronize", 20 * i + 6, 20 * i + 20, 0);
    }
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    const struct analysis_what_if *sync = what_if(result, ANALYSIS_FIX_REMOVE_HOST_SYNC);
    CHECK_STR(sync ? analysis_what_if_basis(sync) : "", "idle-host-sync");
    CHECK_INT(sync ? sync->predicted_saving_ns : -1, US(20));
    CHECK_INT(result ? result->devices[0].replay_span_ns : -1, US(50));
    /* What the syncs it removes were made of: each waited from 6 to its kernel's end at 17 (11 us),
     * then returned 3 us later, its own host time. The last (at 46) comes after the last launch
     * and moves nothing: two calls. */
    CHECK_INT(sync ? sync->sync_calls : -1, 2);
    CHECK_INT(sync ? sync->sync_wait_ns : -1, US(22));
    CHECK_INT(sync ? sync->sync_host_ns : -1, US(6));
    analysis_free(result);
}

/* Seed 004's loop in small, its sync inside torch.cuda.synchronize(device), whose own Python (a
 * device guard) costs more than the CUDA call: each 30 us iteration a launch [0, 5] of a 4 us kernel
 * [7, 11], the wrapper [6, 28] around cudaDeviceSynchronize [12, 20] (the kernel ended before it:
 * no wait, 8 us of the call's own host time). `wrapper` 0: no framework_calls; 1: the wrappers
 * timed; 2: timed, but each holds the next iteration's launch too (a wrapper that gives the GPU
 * work is not removed with its sync); 3: timed on another thread. */
static double wrapped_sync_saving(int wrapper, int64_t *wrapper_ns, int64_t *host_ns, int64_t *calls)
{
    struct builder b;
    char name[64];
    snprintf(name, sizeof name, "wrapped-sync-%d.db", wrapper);
    int64_t process = h100_trace(&b, name);
    struct store_framework_call wrappers[3];
    for (int i = 0; i < 3; i++) {
        launched(&b, process, 1, 30 * i + 7, 30 * i + 11, "step", THREAD, 30 * i, 30 * i + 5);
        builder_api(&b, process, THREAD, "cudaDeviceSynchronize", 30 * i + 12, 30 * i + 20, 0);
        wrappers[i] = (struct store_framework_call){.thread_id = wrapper == 3 ? THREAD + 1 : THREAD,
                                                    .start_ns = AT(30 * i + 6),
                                                    .end_ns = AT(wrapper == 2 ? 30 * i + 36 : 30 * i + 28),
                                                    .function = "torch/cuda/__init__.py:1152 synchronize"};
    }
    if (wrapper)
        CHECK_INT(store_insert_framework_calls(b.trace, process, wrappers, 3, &b.err), 0);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    const struct analysis_what_if *sync = what_if(result, ANALYSIS_FIX_REMOVE_HOST_SYNC);
    CHECK(sync != NULL);
    *wrapper_ns = sync ? sync->sync_wrapper_ns : -1;
    *host_ns = sync ? sync->sync_host_ns : -1;
    *calls = sync ? sync->sync_calls : -1;
    double saving = sync ? (double)sync->predicted_saving_ns : -1;
    analysis_free(result);
    return saving;
}

static void test_sync_wrapper_removed(void)
{
    int64_t wrapper_ns, host_ns, calls;
    double alone = wrapped_sync_saving(0, &wrapper_ns, &host_ns, &calls);
    /* The two syncs before the last launch: 8 us each of the call's own time, no wrapper known. */
    CHECK_INT(calls, 2);
    CHECK_INT(host_ns, US(16));
    CHECK_INT(wrapper_ns, 0);
    /* Without the wrappers' 14 us beyond each sync, the launches come 22 us earlier each: the
     * last kernel, which ends the span, 28 us sooner than with the CUDA calls alone removed (the
     * kernels stay apart: 4 us each, launched 8 us apart). */
    double whole = wrapped_sync_saving(1, &wrapper_ns, &host_ns, &calls);
    CHECK_INT(wrapper_ns, US(28));
    CHECK_INT(host_ns, US(16));
    CHECK_INT((int64_t)(whole - alone), US(28));
    /* A wrapper holding a launch, or on another thread, is no wrapper of the sync. */
    CHECK_INT((int64_t)wrapped_sync_saving(2, &wrapper_ns, &host_ns, &calls), (int64_t)alone);
    CHECK_INT(wrapper_ns, 0);
    CHECK_INT((int64_t)wrapped_sync_saving(3, &wrapper_ns, &host_ns, &calls), (int64_t)alone);
    CHECK_INT(wrapper_ns, 0);
}

static void test_sustained_without_syncs(void)
{
    /* empty_cache's loop in small: one stream, each iteration a launch [0, 5] of a 10 ms kernel
     * [7, 10007], a cudaDeviceSynchronize [6, 10012] and 1993 us of host work (iteration i at
     * 12005 i us). As recorded the replay runs the first kernel when its launch returns (5 to
     * 10005) and each next one 2000 us after the sync before it returns (12010, 24015): span 34010
     * us, the kernels busy 88% of it. Without the syncs (10006 us each) the later launches come at
     * 1999 and 3998, long before the kernel ahead ends, so the kernels run back to back: span 30000
     * us, a saving of 4010 us, with the kernels busy all of what is left, for 30 ms: the GPU
     * computes without a break, where its clocks fall under sustained load (the recorded speed is no
     * longer a given): an upper bound. The same loop ten times faster (1 ms kernels, 3 ms of work)
     * heats nothing: no such bound. */
    for (int scale = 1; scale <= 10; scale *= 10) {
        struct builder b;
        int64_t process = h100_trace(&b, scale == 1 ? "sustained.db" : "sustained-short.db");
        double period = 12005.0 / scale, kernel_end = 10007.0 / scale, sync_end = 10012.0 / scale;
        for (int i = 0; i < 3; i++) {
            launched(&b, process, 1, period * i + 7, period * i + kernel_end, "gemm", THREAD, period * i,
                     period * i + 5);
            builder_api(&b, process, THREAD, "cudaDeviceSynchronize", period * i + 6, period * i + sync_end,
                        0);
        }
        int status = 0;
        struct analysis_result *result = builder_analyze(&b, &status);
        CHECK_INT(status, 0);
        const struct analysis_what_if *sync = what_if(result, ANALYSIS_FIX_REMOVE_HOST_SYNC);
        if (scale == 1) {
            CHECK_INT(result ? result->devices[0].replay_span_ns : -1, US(34010));
            CHECK_INT(sync ? sync->predicted_saving_ns : -1, US(4010));
            CHECK_INT(sync ? sync->sustained_ns : -1, US(4010));
            CHECK_INT(sync ? (int)analysis_what_if_bound(sync) : -1, ANALYSIS_BOUND_SUSTAINED);
        } else {
            CHECK(sync != NULL && sync->predicted_saving_ns > 0);
            CHECK_INT(sync ? sync->sustained_ns : -1, 0);
            CHECK_INT(sync ? (int)analysis_what_if_bound(sync) : -1, ANALYSIS_BOUND_NONE);
        }
        analysis_free(result);
    }
}

static void test_forced_on_one_stream(void)
{
    /* One stream whose recorded order no replay satisfies: "late" is launched at [0, 5] and run at
     * [50, 70], a cudaDeviceSynchronize at [6, 75] waits for it, and "early", launched after the
     * sync at [80, 85], ran first at [10, 30]. early heads the stream but its launch time is known
     * only once the sync returns, which needs late to start, behind early: the replay forces early
     * at the first time it knows (late's launch, 5), and late follows when early ends (25 to 45):
     * span 40. The event loop and the one-stream run (run_alone) both must give it. */
    struct builder b;
    int64_t process = h100_trace(&b, "forced.db");
    launched(&b, process, 1, 50, 70, "late", THREAD, 0, 5);
    builder_api(&b, process, THREAD, "cudaDeviceSynchronize", 6, 75, 0);
    launched(&b, process, 1, 10, 30, "early", THREAD, 80, 85);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    CHECK_INT(result ? result->devices[0].replay_span_ns : -1, US(40));
    analysis_free(result);
}

static void test_priority(void)
{
    /* test_analyzer_causes' NCCL kernel behind compute: gemm_fwd (8448 blocks of 1024 threads: 32
     * waves of 100 us on 132 SMs) launched at [-60, -55], the AllReduce (24 blocks of 544) at
     * [-50, -45]. The replay starts the GEMM at -55 (ends 3145); the AllReduce finds every SM
     * taken and starts in the GEMM's tail, half a wave before its end (3095), and runs its 200 us:
     * span -55 to 3295. Given the highest priority it takes SMs at once (-45 to 155): the span
     * ends with the GEMM, 150 us sooner. */
    struct builder b;
    int64_t process = h100_trace(&b, "priority.db");
    struct store_kernel gemm = builder_kernel_row(process, 7, 0, 3200, 8448, 1024, "gemm_fwd");
    gemm.correlation_id = builder_api(&b, process, THREAD, "cudaLaunchKernel", -60, -55, 0);
    builder_insert_kernel(&b, gemm);
    struct store_kernel nccl =
        builder_kernel_row(process, 20, 3202, 3402, 24, 544, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    nccl.correlation_id = builder_api(&b, process, THREAD, "cudaLaunchKernel", -50, -45, 0);
    builder_insert_kernel(&b, nccl);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    const struct analysis_what_if *priority = what_if(result, ANALYSIS_FIX_PRIORITY);
    CHECK(priority != NULL);
    CHECK_STR(priority ? analysis_what_if_basis(priority) : "", "comm-behind-compute");
    CHECK_INT(priority ? priority->predicted_saving_ns : -1, US(150));
    CHECK_INT(result ? result->devices[0].replay_span_ns : -1, US(3350));
    analysis_free(result);
}

static void test_overlap_cost(void)
{
    /* gemm (64 blocks) alone three times: 100, 100 and 120 us, median 100. Then beside an NCCL
     * kernel, 150 us: it paid 50 us. The NCCL kernel is not priced (its length is its wait for the
     * other ranks); "lonely" ran only overlapped: no twin, counted apart. Saved: durations
     * 100 + 100 + 120 + 150 + 100 + 20 = 590 minus busy 470 = 120; net 120 - 50 = 70. */
    struct builder b;
    int64_t process = h100_trace(&b, "cost.db");
    kernel(&b, process, 1, 0, 100, 64, "gemm", 0);
    kernel(&b, process, 1, 200, 300, 64, "gemm", 0);
    kernel(&b, process, 1, 400, 520, 64, "gemm", 0);
    kernel(&b, process, 1, 600, 750, 64, "gemm", 0);
    kernel(&b, process, 2, 600, 700, 1, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0);
    kernel(&b, process, 3, 620, 640, 4, "lonely", 0);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    CHECK_INT(result ? result->overlap_cost_count : 0, 1);
    if (result && result->overlap_cost_count == 1) {
        const struct analysis_overlap_cost *row = &result->overlap_costs[0];
        CHECK_STR(row->family, "gemm");
        CHECK_INT(row->overlapped_count, 1);
        CHECK_INT(row->overlapped_ns, US(150));
        CHECK_INT(row->alone_ns, US(100));
        CHECK_INT(row->cost_ns, US(50));
    }
    CHECK_INT(result ? result->devices[0].overlap_untwinned_count : -1, 1);
    CHECK_INT(result ? result->total_overlap_cost_ns : -1, US(50));
    CHECK_INT(result ? result->total_overlap_saved_ns : -1, US(120));
    CHECK_INT(result ? result->total_overlap_net_ns : -1, US(70));
    analysis_free(result);
}

/* Two threads taking turns (PyTorch's main thread runs the forward pass and the optimizer, its
 * autograd thread the backward pass), one stream, two steps ("step 0" at 0, "step 1" at 400 us,
 * NVTX ranges on the main thread): in each, the main thread launches A ([0, 10], kernel [15, 20]),
 * the other thread B ([30, 40], kernel [45, 50]), the main thread C ([60, 70], kernel [75, 80]).
 * No call of one thread overlaps a call of the other: one host timeline. A CUDA graph of each step
 * (the fix, in a trace with steps) takes from the host the launch calls' 10 us and the 20 us
 * between two launches of one step, whichever thread made them; the 330 us from C0 to A1 lie
 * between the steps and stay. The replay starts a kernel at its launch's return (as recorded: 10
 * to 475). Whole trace: B0 -30, C0 -60, A1 -70, B1 -100, C1 -130 us: kernels at 10, 15, 20 (each
 * behind the one before), 340, 345, 350: a span of 345 against 465, a saving of 120 us. The report
 * of "step 1" alone replays A1, B1 and C1, the calls before the step moving nothing (they moved the
 * step's ops alike): B1 -30, C1 -60: kernels at 410, 415, 420, a span of 15 against 65: 50 us. Kept
 * apart, B1 would not move (its thread has no call before it in the step) and C1 would wait for
 * it: 25 us. Without the NVTX ranges (no steps) a gap under 50 us goes (the 20 us ones) and a
 * longer one is the host's own work and stays (the 330 us): the same 120 us. */
static void test_threads_taking_turns(void)
{
    for (int ranged = 0; ranged < 3; ranged++) { /* 2: no steps */
        struct builder b;
        int64_t process = h100_trace(&b, ranged == 2 ? "turns-nosteps.db"
                                         : ranged    ? "turns-step.db"
                                                     : "turns.db");
        for (int step = 0; step < 2; step++) {
            double base = 400 * step;
            const double launches[3][2] = {{0, 10}, {30, 40}, {60, 70}};
            for (int k = 0; k < 3; k++) {
                launched(&b, process, 1, base + launches[k][1] + 5, base + launches[k][1] + 10, "op",
                         k == 1 ? 9 : THREAD, base + launches[k][0], base + launches[k][1]);
            }
            char name[16];
            snprintf(name, sizeof name, "step %d", step);
            if (ranged < 2)
                builder_nvtx(&b, process, THREAD, STORE_NULL, name, base - 1, base + 100);
        }
        CHECK_INT(builder_finish(&b), 0);
        error_info err = {{0}};
        struct analysis_options options = {.rank = -1,
                                           .device_id = -1,
                                           .stream_id = -1,
                                           .window_start_ns = STORE_NULL,
                                           .window_end_ns = STORE_NULL,
                                           .range_name = ranged == 1 ? "step 1" : NULL,
                                           .step = -1};
        struct analysis_result *result = analysis_run(b.trace, &options, &err);
        builder_close(&b);
        CHECK(result != NULL);
        const struct analysis_what_if *graph = what_if(result, ANALYSIS_FIX_CUDA_GRAPH);
        CHECK_INT(graph ? graph->predicted_saving_ns : -1, US(ranged == 1 ? 50 : 120));
        analysis_free(result);
    }
}

/* One thread, one stream, one step ("step 0", -1 to 300 us): A launched at [0, 10] (kernel [15,
 * 20]), then 90 us of the host's own work inside the step (host-cpu), B launched at [100, 110]
 * (kernel [115, 120]). As recorded the replay runs A at 10 and B at 110 (its launch's return):
 * span 105. The idle accounting's host work is the part of the 90 us inside the GPU's idle gap
 * (from A's end at 20 to 100): 80 us; the host-work fix cuts it: B ready at 30, span 25, 80 us. A
 * CUDA graph of the step removes A's call and the 90 us after it (a gap between two captured calls
 * inside a step): B ready at 10, behind A at 15: span 10, 95 us. Both together remove the 80 us
 * once (the graph the other 10 of the gap, the host-work fix the 80): the same 95 us, which the
 * graph alone gives: "all" is then no upper bound of the host-work fix (its host_work_ns 0). */
static void test_graph_within_step(void)
{
    struct builder b;
    int64_t process = h100_trace(&b, "graph-step.db");
    launched(&b, process, 1, 15, 20, "a", THREAD, 0, 10);
    launched(&b, process, 1, 115, 120, "b", THREAD, 100, 110);
    builder_nvtx(&b, process, THREAD, STORE_NULL, "step 0", -1, 300);
    builder_nvtx(&b, process, THREAD, STORE_NULL, "step 1", 400, 500);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    const struct analysis_what_if *work = what_if(result, ANALYSIS_FIX_HOST_WORK),
                                  *graph = what_if(result, ANALYSIS_FIX_CUDA_GRAPH),
                                  *all = what_if(result, ANALYSIS_FIX_ALL);
    CHECK_INT(work ? work->predicted_saving_ns : -1, US(80));
    CHECK_INT(graph ? graph->predicted_saving_ns : -1, US(95));
    CHECK_INT(all ? all->predicted_saving_ns : -1, US(95));
    CHECK_INT(all ? all->host_work_ns : -1, 0);
    CHECK_INT(all ? (int)analysis_what_if_bound(all) : -1, ANALYSIS_BOUND_NONE);
    analysis_free(result);
}

/* Set-up is not the host's movable work (a process without steps): "setup" runs once [10, 20];
 * the host is away 5 ms (imports, NCCL's initialization) and copies the model's 64 KiB (pinned,
 * [5030, 5040], its call [5020, 5025]); then three "step" kernels, each launched 60 us after the
 * one before ended (host-cpu gaps of about 50 us). Before the first "step" (the first run of a
 * kernel the device runs again) the host time is set-up: the idle accounting keeps it (host-cpu,
 * over 5 ms), the host-work fix does not move it, so it saves under a millisecond (it was 5 ms). */
static void test_setup_not_host_work(void)
{
    struct builder b;
    int64_t process = h100_trace(&b, "setup.db");
    launched(&b, process, 1, 10, 20, "setup", THREAD, 0, 5);
    struct store_memcpy copy =
        builder_memcpy_row(process, 1, 5030, 5040, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 65536);
    copy.correlation_id = builder_api(&b, process, THREAD, "cudaMemcpyAsync", 5020, 5025, 0);
    builder_insert_memcpy(&b, copy);
    for (int i = 0; i < 3; i++)
        launched(&b, process, 1, 5100 + 100 * i, 5120 + 100 * i, "step", THREAD, 5090 + 100 * i,
                 5095 + 100 * i);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    int64_t host_cpu = 0;
    for (size_t a = 0; result && a < result->accounting_count; a++)
        for (size_t e = 0; result->accountings[a].step < 0 && e < result->accountings[a].idle.entry_count;
             e++)
            if (result->accountings[a].idle.entries[e].cause == ACCOUNTING_IDLE_HOST_CPU)
                host_cpu += result->accountings[a].idle.entries[e].ns;
    CHECK(host_cpu > US(5000));
    const struct analysis_what_if *work = what_if(result, ANALYSIS_FIX_HOST_WORK);
    CHECK(work == NULL || work->predicted_saving_ns < US(1000));
    analysis_free(result);
}

static void test_pin_exposed_pageable(void)
{
    /* One stream: kernel "a" launched at [0, 5] runs [10, 110]; a cudaMemcpyAsync from pageable
     * memory of 5 MB, its call [6, 1120], copies [110, 1110] (50 GB/s would take 100 us: 10x
     * slower, 5 GB/s, staged by the driver while the host waits in the call); kernel "b" launched
     * at [1121, 1126] runs [1130, 1230]. No copy overlaps another stream: no wait proves pinning,
     * the exposed copy does (1000 us of pageable copy with no kernel running). As recorded the
     * replay starts "a" at its launch's return (5, to 105), the copy when it was ready (its recorded
     * start, 110, to 1110) and "b" at its launch's return, 1126, to 1226: span 1221. Pinned (no
     * pinned HtoD copy in the trace: H100's reference 50 GB/s) the copy takes 100 us, [110, 210],
     * and its call returns after the 5 us a call costs: "b"'s launch comes 1109 us earlier, at 17,
     * and it queues behind the copy, [210, 310]: span 305, a saving of 916 us. */
    struct builder b;
    int64_t process = h100_trace(&b, "pin-exposed.db");
    launched(&b, process, 1, 10, 110, "a", THREAD, 0, 5);
    struct store_memcpy copy =
        builder_memcpy_row(process, 1, 110, 1110, STORE_COPY_HTOD, STORE_MEMORY_PAGEABLE, 5000000);
    copy.correlation_id = builder_api(&b, process, THREAD, "cudaMemcpyAsync", 6, 1120, 0);
    builder_insert_memcpy(&b, copy);
    launched(&b, process, 1, 1130, 1230, "b", THREAD, 1121, 1126);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    CHECK_INT(result ? (int64_t)result->wait_total_count : -1, 0);
    CHECK_INT(result ? result->devices[0].replay_span_ns : -1, US(1221));
    const struct analysis_what_if *pin = what_if(result, ANALYSIS_FIX_PIN_HOST_BUFFER);
    CHECK(pin != NULL);
    CHECK_INT(pin ? pin->predicted_saving_ns : -1, US(916));
    analysis_free(result);
}

static void test_copy_ahead(void)
{
    /* Three steps on one stream, all launched before the first starts (the host ahead: each call
     * 2 us, 5 us apart from -100): a pinned 2 MiB HtoD copy of 100 us, then a 300 us kernel:
     * copies [0, 100], [400, 500], [800, 900], kernels [100, 400], [500, 800], [900, 1200]. Each
     * copy runs with no kernel beside it on the compute stream: 300 us of same-stream exposed
     * copy, which proves copying ahead. The second and third copies have a step of 300 us of
     * compute before them to run under, the first none: replayed, the two take no time on the
     * stream, span 1200 -> 1000, a saving of 200 us; the copies the steps hide, 100 + 100 us,
     * say the same. */
    struct builder b;
    int64_t process = h100_trace(&b, "copy-ahead.db");
    double call = -100;
    for (int i = 0; i < 3; i++, call += 10) {
        struct store_memcpy copy = builder_memcpy_row(process, 1, 400 * i, 400 * i + 100, STORE_COPY_HTOD,
                                                      STORE_MEMORY_PINNED, 2 << 20);
        copy.correlation_id = builder_api(&b, process, THREAD, "cudaMemcpyAsync", call, call + 2, 0);
        builder_insert_memcpy(&b, copy);
        launched(&b, process, 1, 400 * i + 100, 400 * i + 400, "step", THREAD, call + 5, call + 7);
    }
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    CHECK_INT(result ? result->devices[0].exposed_copy_ns : -1, US(300));
    CHECK_INT(result ? result->devices[0].replay_span_ns : -1, US(1200));
    const struct analysis_what_if *ahead = what_if(result, ANALYSIS_FIX_COPY_AHEAD);
    CHECK(ahead != NULL);
    CHECK_INT(ahead ? ahead->predicted_saving_ns : -1, US(200));
    CHECK_STR(ahead ? analysis_what_if_basis(ahead) : "", "exposed-copy");
    /* Nothing else to gain: the pinned copies need no pinning, "all of the above" is the same. */
    CHECK(what_if(result, ANALYSIS_FIX_PIN_HOST_BUFFER) == NULL);
    const struct analysis_what_if *all = what_if(result, ANALYSIS_FIX_ALL);
    CHECK_INT(all ? all->predicted_saving_ns : -1, US(200));
    analysis_free(result);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 2;
    test_pipeline_on_one_stream();
    test_idle_host_sync(0, 0);
    test_idle_host_sync(1, 0);
    test_idle_host_sync(0, 1);
    test_launch_latency_after_sync();
    test_sync_wrapper_removed();
    test_sustained_without_syncs();
    test_forced_on_one_stream();
    test_threads_taking_turns();
    test_graph_within_step();
    test_priority();
    test_overlap_cost();
    test_pin_exposed_pageable();
    test_setup_not_host_work();
    test_copy_ahead();
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
