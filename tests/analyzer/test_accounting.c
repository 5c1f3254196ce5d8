/* test_accounting.c: idle time and exposed communication, cause by cause (docs/metrics.md, "Idle
 * time" and "Exposed communication"): one hand-built timeline per cause with the cause, the time
 * and the evidence the analyzer must give; two ranks on clocks one second apart with a known
 * skew; then every golden trace of tests/data/gpu, whose parts must sum to the device's idle and
 * exposed-communication time to the nanosecond, and the figures the issue measured on them. Times
 * are microseconds. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analyze_builder.h"
#include "call_sources.h"
#include "check.h"

static char directory[] = "/tmp/overlapscope-test-accounting-XXXXXX";

#define THREAD 7
#define NCCL_NAME "ncclDevKernel_AllReduce_Sum_f32_RING_LL"

struct scenario {
    struct builder b;
    int64_t process;
};

static void begin(struct scenario *s, const char *name)
{
    CHECK_INT(builder_create(&s->b, directory, name), 0);
    s->process = builder_process(&s->b, 0);
    builder_h100(&s->b, s->process, 0);
}

/* A kernel of one small block on stream, launched by cudaLaunchKernel at [launch_start, launch_end]
 * (no launch record when launch_start == launch_end == 0). */
static int64_t kernel(struct scenario *s, int64_t process, int64_t stream, double launch_start,
                      double launch_end, double start, double end, const char *name)
{
    struct store_kernel row = builder_kernel_row(process, stream, start, end, 1, 32, name);
    row.correlation_id = s->b.next_correlation++;
    if (launch_start != 0 || launch_end != 0)
        builder_api(&s->b, process, THREAD, "cudaLaunchKernel", launch_start, launch_end, row.correlation_id);
    return builder_insert_kernel(&s->b, row);
}

/* The collective row of an all-reduce over 2 ranks. */
static void add_allreduce(struct scenario *s, int64_t process, int64_t rank, int64_t kernel_rowid,
                          int64_t sequence, const char *communicator, int64_t bytes)
{
    struct store_collective row = builder_collective_row_ns(
        process, STORE_NULL, "AllReduce", bytes, communicator, rank, 2, kernel_rowid, STORE_NULL, STORE_NULL);
    row.sequence_number = sequence;
    row.detail_source = STORE_DETAIL_NCCL_PROFILER;
    builder_insert_collective(&s->b, row);
}

static struct analysis_result *finish(struct scenario *s)
{
    int status = 0;
    struct analysis_result *result = builder_analyze(&s->b, &status);
    CHECK_INT(status, 0);
    return result;
}

static const struct analysis_accounting *whole_device(const struct analysis_result *result, size_t device)
{
    for (size_t i = 0; result && i < result->accounting_count; i++)
        if (result->accountings[i].device == device && result->accountings[i].step < 0)
            return &result->accountings[i];
    return NULL;
}

static const struct accounting_entry *entry_of(const struct accounting_breakdown *breakdown,
                                               enum accounting_cause cause, const char *label)
{
    for (size_t i = 0; breakdown && i < breakdown->entry_count; i++)
        if (breakdown->entries[i].cause == cause &&
            (!label || strcmp(breakdown->entries[i].label, label) == 0))
            return &breakdown->entries[i];
    return NULL;
}

static int64_t sum_of(const struct accounting_breakdown *breakdown)
{
    int64_t sum = 0;
    for (size_t i = 0; i < breakdown->entry_count; i++)
        sum += breakdown->entries[i].ns;
    return sum;
}

/* The device's idle time must be exactly its parts, and the expected part must be there. */
static void expect_idle(const struct analysis_result *result, size_t device, enum accounting_cause cause,
                        const char *label, double us, int64_t count, const char *evidence)
{
    const struct analysis_accounting *accounting = whole_device(result, device);
    CHECK(accounting != NULL);
    if (!accounting)
        return;
    CHECK_INT(accounting->idle.ns, result->devices[device].idle_ns);
    CHECK_INT(sum_of(&accounting->idle), accounting->idle.ns);
    const struct accounting_entry *entry = entry_of(&accounting->idle, cause, label);
    if (!entry) {
        fprintf(stderr, "  no %s [%s]; entries:\n", accounting_cause_tag(cause), label ? label : "*");
        for (size_t i = 0; i < accounting->idle.entry_count; i++)
            fprintf(stderr, "    %s [%s] %lld: %s\n", accounting_cause_tag(accounting->idle.entries[i].cause),
                    accounting->idle.entries[i].label, (long long)accounting->idle.entries[i].ns,
                    accounting->idle.entries[i].evidence);
    }
    CHECK(entry != NULL);
    if (!entry)
        return;
    CHECK_INT(entry->ns, US(us));
    CHECK_INT(entry->count, count);
    if (evidence)
        CHECK_CONTAINS(entry->evidence, evidence);
}

static void test_host_sync(void)
{
    /* Kernel A [0, 100]; the host waits in cudaDeviceSynchronize [2, 105], launches B at [110, 120]
     * and B starts at 125: the whole gap [100, 125] is the synchronization's (the queue was empty
     * because the host waited for it to drain). */
    struct scenario s;
    begin(&s, "host-sync.db");
    kernel(&s, s.process, 13, -20, -10, 0, 100, "step_kernel");
    builder_api(&s.b, s.process, THREAD, "cudaDeviceSynchronize", 2, 105, 0);
    kernel(&s, s.process, 13, 110, 120, 125, 200, "step_kernel");
    struct analysis_result *result = finish(&s);
    expect_idle(result, 0, ACCOUNTING_IDLE_HOST_SYNC, "cudaDeviceSynchronize", 25, 1,
                "the launching thread was in cudaDeviceSynchronize when the GPU ran out of work, 1 time");
    const struct analysis_accounting *accounting = whole_device(result, 0);
    CHECK_INT(accounting ? accounting->idle.entry_count : 0, 1);
    analysis_free(result);
}

/* The same gap from a cudaFree [2, 105] (a free that synchronizes the device): host-sync either
 * way; with the recorded environment (schema 3's process_environment, made by hand as its DDL says)
 * setting PYTORCH_NO_CUDA_MEMORY_CACHING, the evidence says PyTorch's caching allocator is off. */
static void test_uncached_allocator(int environment)
{
    struct scenario s;
    begin(&s, environment ? "uncached.db" : "cached.db");
    kernel(&s, s.process, 13, -20, -10, 0, 100, "step_kernel");
    builder_api(&s.b, s.process, THREAD, "cudaFree", 2, 105, 0);
    kernel(&s, s.process, 13, 110, 120, 125, 200, "step_kernel");
    if (environment)
        CHECK_INT(sqlite3_exec(
                      store_db(s.b.trace),
                      "INSERT INTO meta VALUES ('host_sample_hz', '0');"
                      " INSERT INTO process_environment VALUES (4000, 'PYTORCH_NO_CUDA_MEMORY_CACHING', '1')",
                      NULL, NULL, NULL),
                  SQLITE_OK);
    struct analysis_result *result = finish(&s);
    expect_idle(result, 0, ACCOUNTING_IDLE_HOST_SYNC, "cudaFree", 25, 1,
                environment
                    ? "the recorded environment sets PYTORCH_NO_CUDA_MEMORY_CACHING=1: PyTorch's caching "
                      "allocator is off, so every tensor allocated or freed calls cudaFree (unset it)"
                    : "the launching thread was in cudaFree");
    const struct analysis_accounting *accounting = whole_device(result, 0);
    const struct accounting_entry *entry =
        accounting ? entry_of(&accounting->idle, ACCOUNTING_IDLE_HOST_SYNC, "cudaFree") : NULL;
    if (!environment)
        CHECK(entry && !strstr(entry->evidence, "PYTORCH_NO_CUDA_MEMORY_CACHING"));
    analysis_free(result);
}

/* .item(): a 4-byte device-to-host copy, then a synchronization. pinned: cudaMemcpyAsync returns at
 * once ([10, 15]) and cudaStreamSynchronize [16, 105] waits; pageable (PyTorch's .item()): the
 * cudaMemcpyAsync itself holds the thread until the copy is done ([10, 103]). Either way the next
 * kernel, launched at [110, 115], starts at 118: 17 us after the copy [100, 101]. */
static void test_item_readback(int pageable)
{
    struct scenario s;
    begin(&s, pageable ? "item-pageable.db" : "item-pinned.db");
    kernel(&s, s.process, 13, -20, -10, 0, 100, "loss_kernel");
    struct store_memcpy copy = builder_memcpy_row(s.process, 13, 100, 101, STORE_COPY_DTOH,
                                                  pageable ? STORE_MEMORY_PAGEABLE : STORE_MEMORY_PINNED, 4);
    copy.correlation_id = builder_api(&s.b, s.process, THREAD, "cudaMemcpyAsync", 10, pageable ? 103 : 15, 0);
    builder_insert_memcpy(&s.b, copy);
    if (!pageable)
        builder_api(&s.b, s.process, THREAD, "cudaStreamSynchronize", 16, 105, 0);
    kernel(&s, s.process, 13, 110, 115, 118, 200, "step_kernel");
    struct analysis_result *result = finish(&s);
    expect_idle(result, 0, ACCOUNTING_IDLE_HOST_SYNC,
                pageable ? "cudaMemcpyAsync (small DtoH readback, .item()-style)"
                         : "cudaStreamSynchronize after a small DtoH copy (.item()-style)",
                17, 1, NULL);
    analysis_free(result);
}

static void test_launch_bound_and_host_cpu(void)
{
    /* A [0, 10]; B launched at [5, 15], runs [20, 30]: the host was launching, 10 us launch-bound
     * (5 of them inside the call). Then the host is away 190 us (no CUDA call), launches C at
     * [220, 230], C runs [235, 245]: 190 us host-cpu, 15 us more launch-bound (10 in the call).
     * D, launched at [250, 258], runs [262, 270]: 17 us launch-bound (8 in the call), a gap of the
     * host issuing work and nothing else, so the launch rate is measured from C to D: the host
     * issued one operation (C) in 250 - 220 = 30 us while the GPU ran it in 10 us. */
    struct scenario s;
    begin(&s, "launch-cpu.db");
    kernel(&s, s.process, 13, -10, -5, 0, 10, "tiny");
    kernel(&s, s.process, 13, 5, 15, 20, 30, "tiny");
    kernel(&s, s.process, 13, 220, 230, 235, 245, "tiny");
    kernel(&s, s.process, 13, 250, 258, 262, 270, "tiny");
    struct analysis_result *result = finish(&s);
    expect_idle(
        result, 0, ACCOUNTING_IDLE_LAUNCH_BOUND, NULL, 42, 3,
        "3 launch calls, 7.67 us each in the call (14.0 us idle per gap); launch rate: the host issued "
        "an operation every 30.0 us (1 between gaps of this kind) while the GPU ran each in 10.0 us");
    expect_idle(result, 0, ACCOUNTING_IDLE_HOST_CPU, "no CUDA call", 190, 1, "longest 190 us");
    analysis_free(result);
}

static void test_warmup(void)
{
    /* setup runs [0, 10]. The host is away 1500 us, then gemm's first launch takes 20 us (its
     * module loaded lazily) at [1510, 1530]; gemm runs [1535, 1545]: the gap [10, 1535] ends with
     * the first run of a kernel that runs again, so all 1525 us are warm-up. Then the host is away
     * 1300 us and launches gemm again at [2845, 2850], run [2855, 2865]: 1300 us host-cpu and 10 us
     * launch-bound, the steady state. Then 1200 us away and `once` [4065, 4070], run [4075, 4085]:
     * the first run of a kernel that never runs again is no warm-up: 1200 us host-cpu, 10 us
     * launch-bound. Last, `short` runs twice, first after a gap of 300 us (under the 1 ms a first
     * run's one-time work takes): [4385, 4390] run [4395, 4400], [4405, 4410] run [4415, 4420]:
     * 300 us host-cpu and 10 us launch-bound, then 15 us launch-bound. */
    struct scenario s;
    begin(&s, "warmup.db");
    kernel(&s, s.process, 13, -10, -5, 0, 10, "setup");
    kernel(&s, s.process, 13, 1510, 1530, 1535, 1545, "gemm");
    kernel(&s, s.process, 13, 2845, 2850, 2855, 2865, "gemm");
    kernel(&s, s.process, 13, 4065, 4070, 4075, 4085, "once");
    kernel(&s, s.process, 13, 4385, 4390, 4395, 4400, "short");
    kernel(&s, s.process, 13, 4405, 4410, 4415, 4420, "short");
    struct analysis_result *result = finish(&s);
    expect_idle(result, 0, ACCOUNTING_IDLE_WARMUP, "first run of a kernel", 1525, 1,
                "1 gap ended by the first run of a kernel the device runs again");
    expect_idle(result, 0, ACCOUNTING_IDLE_HOST_CPU, "no CUDA call", 1300 + 1200 + 300, 3, "longest 1.30 ms");
    expect_idle(result, 0, ACCOUNTING_IDLE_LAUNCH_BOUND, NULL, 45, 4, NULL);
    CHECK_INT(result ? result->devices[0].idle_ns : -1, US(1525 + 1310 + 1210 + 310 + 15));
    analysis_free(result);
}

/* B is enqueued long before A ends and starts `late` us after A's end. */
static struct analysis_result *queued(const char *name, double late, const char *b_name, int with_wait_event,
                                      int with_api)
{
    struct scenario s;
    begin(&s, name);
    kernel(&s, s.process, 13, with_api ? -60 : 0, with_api ? -55 : 0, 0, 10, "producer");
    kernel(&s, s.process, 14, with_api ? -50 : 0, with_api ? -45 : 0, 10 + late, 100, b_name);
    if (with_wait_event) {
        struct store_synchronization sync = {
            .process_id = s.process,
            .context_id = 1,
            .stream_id = 14,
            .event_id = 77,
            .sync_type = STORE_SYNC_STREAM_WAIT_EVENT,
            .correlation_id = builder_api(&s.b, s.process, THREAD, "cudaStreamWaitEvent", -52, -51, 0),
            .start_ns = AT(-52),
            .end_ns = AT(-51)};
        store_insert_synchronization(s.b.trace, &sync, &s.b.err);
    }
    return finish(&s);
}

/* The stream-wait record a queued gap names is the wait query's: of B's stream (14), the latest to
 * begin at or before B's launch (-50 us), the last written on a tie. Around it: a later record on
 * another stream, one on B's stream after the launch, and the tie's first row. */
static void test_queued_latest_wait(void)
{
    struct scenario s;
    begin(&s, "latest-wait.db");
    kernel(&s, s.process, 13, -60, -55, 0, 10, "producer");
    kernel(&s, s.process, 14, -50, -45, 60, 100, "consumer");
    const struct {
        int64_t stream_id, event_id;
        double start_us;
    } waits[] = {{14, 70, -58}, {14, 77, -52}, {14, 78, -52}, {13, 90, -51}, {14, 95, -40}};
    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++) {
        struct store_synchronization sync = {.process_id = s.process,
                                             .context_id = 1,
                                             .stream_id = waits[i].stream_id,
                                             .event_id = waits[i].event_id,
                                             .sync_type = STORE_SYNC_STREAM_WAIT_EVENT,
                                             .correlation_id =
                                                 builder_api(&s.b, s.process, THREAD, "cudaStreamWaitEvent",
                                                             waits[i].start_us, waits[i].start_us + 0.5, 0),
                                             .start_ns = AT(waits[i].start_us),
                                             .end_ns = AT(waits[i].start_us + 0.5)};
        store_insert_synchronization(s.b.trace, &sync, &s.b.err);
    }
    struct analysis_result *result = finish(&s);
    expect_idle(result, 0, ACCOUNTING_IDLE_OTHER_DEVICE, "cudaStreamWaitEvent", 50, 1,
                "its stream 14 waited for event 78 (cudaStreamWaitEvent)");
    analysis_free(result);
}

static void test_queued_work(void)
{
    struct analysis_result *result = queued("other-device.db", 50, "consumer", 1, 1);
    expect_idle(result, 0, ACCOUNTING_IDLE_OTHER_DEVICE, "cudaStreamWaitEvent", 50, 1,
                "its stream 14 waited for event 77 (cudaStreamWaitEvent)");
    analysis_free(result);
    result = queued("peer-wait.db", 50, NCCL_NAME, 0, 1);
    expect_idle(result, 0, ACCOUNTING_IDLE_PEER_WAIT, "NCCL peers", 50, 1,
                "started when its peers were ready");
    analysis_free(result);
    result = queued("dispatch.db", 3, "consumer", 0, 1);
    expect_idle(result, 0, ACCOUNTING_IDLE_DISPATCH, "queued", 3, 1, "started within 10 us");
    analysis_free(result);
    /* No synchronization records at all: what B waited for cannot be told, and the report says how
     * to record it. */
    result = queued("no-syncs.db", 50, "consumer", 0, 1);
    expect_idle(result, 0, ACCOUNTING_IDLE_UNEXPLAINED, "no synchronization records", 50, 1,
                "enable_cuda_sync_events=True");
    analysis_free(result);
    /* No API records (record --no-api): unexplained, never guessed, and the report says which
     * causes could not be checked and how to record them (once; a recorded trace: the collector). */
    result = queued("no-api.db", 50, "consumer", 0, 0);
    expect_idle(result, 0, ACCOUNTING_IDLE_UNEXPLAINED, "no API records", 50, 1, "record without --no-api");
    CHECK_INT(result ? (int64_t)result->unchecked_count : -1, 1);
    if (result && result->unchecked_count == 1) {
        CHECK_STR(result->unchecked[0].causes, "host-sync, launch-bound, host-cpu");
        CHECK_STR(result->unchecked[0].record, "record without --no-api");
    }
    analysis_free(result);
}

static const struct analysis_accounting *step_of(const struct analysis_result *result, int64_t number)
{
    for (size_t i = 0; result && i < result->accounting_count; i++)
        if (result->accountings[i].step == number)
            return &result->accountings[i];
    return NULL;
}

/* A late launch (test_analyzer_causes.c's case) names the line that launched the waiting kernel,
 * from call_sources; the kernel before it, launched from a line the trace does not know, has none. */
static void test_wait_source(void)
{
    struct scenario s;
    begin(&s, "wait-source.db");
    kernel(&s, s.process, 1, -10, -5, 0, 100, "producer");
    kernel(&s, s.process, 2, 98, 101, 104, 150, "consumer");
    store_insert_call_source(s.b.trace, s.process, s.b.next_correlation - 1, STORE_SOURCE_PYTHON,
                             "train.py:42 step", &s.b.err);
    struct analysis_result *result = finish(&s);
    CHECK_INT(result ? (int64_t)result->wait_count : -1, 1);
    if (result && result->wait_count == 1) {
        CHECK_INT(result->waits[0].cause, ANALYSIS_CAUSE_LATE_LAUNCH);
        CHECK_STR(result->waits[0].source, "train.py:42 step");
    }
    analysis_free(result);
}

/* A peer copy enqueued long before the GPU ran dry waits for the other device (other-device), and
 * a kernel with no launch record (a graph node) is unexplained, saying so. */
static void test_peer_copy_and_unrecorded_launch(void)
{
    struct scenario s;
    begin(&s, "peer-copy.db");
    kernel(&s, s.process, 13, -20, -15, 0, 10, "producer");
    struct store_memcpy copy =
        builder_memcpy_row(s.process, 14, 70, 90, STORE_COPY_PTOP, STORE_MEMORY_DEVICE, 1 << 20);
    copy.correlation_id = builder_api(&s.b, s.process, THREAD, "cudaMemcpyPeerAsync", -12, -10, 0);
    builder_insert_memcpy(&s.b, copy);
    kernel(&s, s.process, 13, 0, 0, 150, 160, "graph_node");
    struct analysis_result *result = finish(&s);
    expect_idle(result, 0, ACCOUNTING_IDLE_OTHER_DEVICE, "peer copy", 60, 1, "is a copy between devices");
    expect_idle(result, 0, ACCOUNTING_IDLE_UNEXPLAINED, "launch not recorded", 60, 1,
                "has no launch record (a CUDA graph node");
    analysis_free(result);
}

static void test_step_boundary(void)
{
    /* Z [-100, -90] is launched outside any step. ProfilerStep#1 (host [-20, 15]) launches A
     * [0, 10]; ProfilerStep#2 (host [15, 500]) launches B [300, 310] after 280 us of host work,
     * and C late [395, 400] (host-cpu 80 us inside the step). Steps are their GPU time: step 1
     * [0, 10], step 2 [300, 400]. Idle outside them is kept apart by where the host was:
     *   [-90, -20) in no step: step-boundary, host-cpu 70 us;
     *   [-20, 0) in step 1 before its first GPU activity: step-start, host-cpu 10 + launch-bound 10
     *     (A's launch [-10, -5] and its way to the GPU);
     *   [10, 15) step 1's host range after its GPU work: step-end, host-cpu 5 us;
     *   [15, 300) in step 2 before B: step-start, host-cpu 280 us + launch-bound 5 us. */
    struct scenario s;
    begin(&s, "steps.db");
    builder_nvtx(&s.b, s.process, THREAD, STORE_NULL, "ProfilerStep#1", -20, 15);
    builder_nvtx(&s.b, s.process, THREAD, STORE_NULL, "ProfilerStep#2", 15, 500);
    kernel(&s, s.process, 13, -110, -105, -100, -90, "z");
    kernel(&s, s.process, 13, -10, -5, 0, 10, "a");
    kernel(&s, s.process, 13, 295, 298, 300, 310, "b");
    kernel(&s, s.process, 13, 390, 392, 395, 400, "c");
    struct analysis_result *result = finish(&s);
    expect_idle(result, 0, ACCOUNTING_IDLE_STEP_BOUNDARY, "host-cpu", 70, 1,
                "the host was in no step (before the first, after the last, or between step ranges); "
                "meanwhile: host busy outside CUDA");
    expect_idle(result, 0, ACCOUNTING_IDLE_STEP_START, "host-cpu", 290, 2,
                "the host had begun the next step");
    expect_idle(result, 0, ACCOUNTING_IDLE_STEP_START, "launch-bound", 15, 2, NULL);
    expect_idle(result, 0, ACCOUNTING_IDLE_STEP_END, "host-cpu", 5, 1, "the host was still in the step");
    expect_idle(result, 0, ACCOUNTING_IDLE_HOST_CPU, "no CUDA call", 80, 1, NULL);
    const struct analysis_accounting *step1 = step_of(result, 1), *step2 = step_of(result, 2);
    CHECK(step1 != NULL && step2 != NULL);
    if (step1 && step2) {
        /* Step 1: step-start 20 + step-end 5; step 2: step-start 285 + [310, 395] inside. */
        CHECK_INT(step1->idle.ns, US(25));
        CHECK_INT(step2->idle.ns, US(370));
        CHECK_INT(sum_of(&step2->idle), step2->idle.ns);
        const struct accounting_entry *start = entry_of(&step2->idle, ACCOUNTING_IDLE_STEP_START, "host-cpu");
        CHECK_INT(start ? start->ns : 0, US(280));
        CHECK(entry_of(&step2->idle, ACCOUNTING_IDLE_STEP_BOUNDARY, NULL) == NULL);
        /* Every idle nanosecond of the device: in a step, or in none. */
        CHECK_INT(step1->idle.ns + step2->idle.ns + US(70), result->devices[0].idle_ns);
    }
    analysis_free(result);
}

/* One process, two GPUs: step 2's only kernel ran on device 1, so device 0's gap [10, 300) holds
 * step 2's GPU time [60, 70] and is cut in two around it. Host ranges: step 1 [-20, 15], step 2
 * [15, 100], step 3 [100, 500]. The host: launch-bound [10, 55) (B's launch at [50, 55]), no CUDA
 * call [55, 295), C's launch [295, 298]. Each stretch goes to its own step: step 1 step-end 5 us;
 * step 2 step-start 40 (launch-bound) + 5 (host-cpu, [55, 60)), 10 inside, step-end 30 ([70, 100));
 * step 3 step-start 195 (host-cpu) + 5 (launch-bound). */
static void test_steps_across_devices(void)
{
    struct scenario s;
    begin(&s, "steps-two-gpus.db");
    builder_h100(&s.b, s.process, 1);
    builder_nvtx(&s.b, s.process, THREAD, STORE_NULL, "ProfilerStep#1", -20, 15);
    builder_nvtx(&s.b, s.process, THREAD, STORE_NULL, "ProfilerStep#2", 15, 100);
    builder_nvtx(&s.b, s.process, THREAD, STORE_NULL, "ProfilerStep#3", 100, 500);
    kernel(&s, s.process, 13, -10, -5, 0, 10, "a");
    struct store_kernel b = builder_kernel_row(s.process, 21, 60, 70, 1, 32, "b");
    b.device_id = 1;
    b.correlation_id = builder_api(&s.b, s.process, THREAD, "cudaLaunchKernel", 50, 55, 0);
    builder_insert_kernel(&s.b, b);
    kernel(&s, s.process, 13, 295, 298, 300, 310, "c");
    struct analysis_result *result = finish(&s);
    size_t gpu0 = 0;
    while (result && gpu0 < result->device_count && result->devices[gpu0].device_id != 0)
        gpu0++;
    CHECK(result && gpu0 < result->device_count);
    expect_idle(result, gpu0, ACCOUNTING_IDLE_STEP_START, "host-cpu", 200, 1, NULL);
    expect_idle(result, gpu0, ACCOUNTING_IDLE_STEP_START, "launch-bound", 45, 1, NULL); /* one gap */
    expect_idle(result, gpu0, ACCOUNTING_IDLE_STEP_END, "host-cpu", 30, 1, NULL);
    int64_t expected[4] = {0, US(5), US(85), US(200)};
    for (size_t i = 0; result && i < result->accounting_count; i++) {
        const struct analysis_accounting *step = &result->accountings[i];
        if (step->device == gpu0 && step->step >= 1 && step->step <= 3) {
            CHECK_INT(step->idle.ns, expected[step->step]);
            expected[step->step] = -1;
        }
    }
    CHECK(expected[1] == -1 && expected[2] == -1 && expected[3] == -1);
    analysis_free(result);
}

/* Two ranks, rank 0's clock one second ahead. Three all-reduces; at each, rank 1 enters 110 us
 * before its kernel ends and rank 0 50 us before: rank 0 arrived last, 60 us late; the transfer
 * took 50 us. On rank 1 a compute kernel covers the first 30 us of each wait, so rank 1's exposed
 * communication is 30 us of skew and 50 us of transfer per collective. */
static void test_two_ranks_with_offset(void)
{
    struct scenario s;
    CHECK_INT(builder_create(&s.b, directory, "two-ranks.db"), 0);
    int64_t ranks[2] = {builder_process(&s.b, 0), builder_process(&s.b, 1)};
    builder_h100(&s.b, ranks[0], 0);
    builder_h100(&s.b, ranks[1], 0);
    s.process = ranks[0];
    const double offset = 1e6;
    for (int i = 0; i < 3; i++) {
        double at = 1000.0 * i;
        int64_t rows[2];
        rows[0] = kernel(&s, ranks[0], 20, offset + at - 10, offset + at - 5, offset + at + 100,
                         offset + at + 150, NCCL_NAME);
        kernel(&s, ranks[1], 13, at + 30, at + 35, at + 40, at + 70, "backward");
        rows[1] = kernel(&s, ranks[1], 20, at + 30, at + 35, at + 40, at + 150, NCCL_NAME);
        for (int r = 0; r < 2; r++)
            add_allreduce(&s, ranks[r], r, rows[r], i, "c0ffee", 8388608);
    }
    struct analysis_result *result = finish(&s);
    CHECK(result && result->device_count == 2);
    for (size_t d = 0; result && d < result->device_count; d++) {
        const struct analysis_accounting *accounting = whole_device(result, d);
        CHECK(accounting != NULL);
        if (!accounting)
            continue;
        CHECK_INT(accounting->exposed_communication.ns, result->devices[d].exposed_communication_ns);
        CHECK_INT(sum_of(&accounting->exposed_communication), accounting->exposed_communication.ns);
        const struct accounting_entry *skew =
            entry_of(&accounting->exposed_communication, ACCOUNTING_COMM_SKEW, "rank 0");
        const struct accounting_entry *transfer =
            entry_of(&accounting->exposed_communication, ACCOUNTING_COMM_TRANSFER, "AllReduce");
        CHECK(transfer != NULL);
        if (transfer) {
            CHECK_INT(transfer->ns, US(150));
            CHECK_INT(transfer->count, 3);
            /* 8 MiB in 50 us: 168 GB/s; an all-reduce over 2 ranks: bus = alg x 2(2-1)/2. */
            CHECK_CONTAINS(transfer->evidence,
                           "algorithm bandwidth 168 GB/s, bus bandwidth 168 GB/s (x 2(n-1)/n");
        }
        if (result->devices[d].rank == 1) {
            CHECK(skew != NULL);
            CHECK_INT(skew ? skew->ns : 0, US(90));
            CHECK_INT(skew ? skew->count : 0, 3);
            CHECK_CONTAINS(skew ? skew->evidence : NULL,
                           "rank 0 arrived last at 3 collectives, 60.0 us late");
        } else {
            CHECK(skew == NULL);
        }
    }
    /* Each of the three instances: rank 0 last, 60 us late, 50 us of transfer, 8 MiB. */
    CHECK_INT(result ? (int64_t)result->collective_instance_count : -1, 3);
    for (size_t i = 0; result && i < result->collective_instance_count; i++) {
        const struct accounting_instance *instance = &result->collective_instances[i];
        CHECK_STR(instance->op, "AllReduce");
        CHECK_INT(instance->instance, (int64_t)i);
        CHECK_INT(instance->by_order, 0);
        CHECK_INT(instance->ranks, 2);
        CHECK_INT(result->devices[instance->last_device].rank, 0);
        CHECK_INT(instance->skew_ns, US(60));
        CHECK_INT(instance->transfer_ns, US(50));
        CHECK_INT(instance->bytes, 8388608);
    }
    if (result) {
        CHECK_INT(result->straggler.rank, 0);
        CHECK_INT(result->straggler.late_count, 3);
        CHECK_INT(result->straggler.instance_count, 3);
        CHECK_INT(result->straggler.late_ns, US(90));
    }
    analysis_free(result);
}

/* Load imbalance (issue 32 item 3): two ranks in lockstep, five all-reduces. Rank 0 computes 300 us
 * a step and rank 1 600 us; each all-reduce's transfer takes 50 us once rank 1 arrives. So rank 0
 * waits 300 us a step for rank 1 while rank 1's GPU computes: the work's split, 2.00x rank 0's. The
 * balanced program computes the mean, 450 us, on both: each rank's span shrinks by 150 us a step,
 * 750 us in all. With host_late, rank 1 computes the same 600 us but half of it after the
 * all-reduce, and it arrives late because its host launches the all-reduce 300 us after its compute
 * ended (its GPU idle meanwhile): the host's fault, arrival skew, even though it computes more. */
static void test_load_imbalance(int host_late)
{
    struct scenario s;
    CHECK_INT(builder_create(&s.b, directory, host_late ? "imbalance-host.db" : "imbalance.db"), 0);
    int64_t ranks[2] = {builder_process(&s.b, 0), builder_process(&s.b, 1)};
    builder_h100(&s.b, ranks[0], 0);
    builder_h100(&s.b, ranks[1], 0);
    s.process = ranks[0];
    for (int i = 0; i < 5; i++) {
        double at = 1000.0 * i;
        int64_t rows[2];
        kernel(&s, ranks[0], 13, at - 10, at - 5, at, at + 300, "forward");
        rows[0] = kernel(&s, ranks[0], 20, at + 290, at + 295, at + 300, at + 650, NCCL_NAME);
        if (host_late) {
            kernel(&s, ranks[1], 13, at - 10, at - 5, at, at + 300, "forward");
            rows[1] = kernel(&s, ranks[1], 20, at + 590, at + 595, at + 600, at + 650, NCCL_NAME);
            kernel(&s, ranks[1], 13, at + 640, at + 645, at + 650, at + 950, "optimizer");
        } else {
            kernel(&s, ranks[1], 13, at - 10, at - 5, at, at + 600, "forward");
            rows[1] = kernel(&s, ranks[1], 20, at + 590, at + 595, at + 600, at + 650, NCCL_NAME);
        }
        for (int r = 0; r < 2; r++)
            add_allreduce(&s, ranks[r], r, rows[r], i, "c0ffee", 8388608);
    }
    struct analysis_result *result = finish(&s);
    CHECK(result && result->device_count == 2);
    for (size_t d = 0; result && d < result->device_count; d++) {
        if (result->devices[d].rank != 0)
            continue;
        const struct analysis_accounting *accounting = whole_device(result, d);
        const struct accounting_breakdown *comm = accounting ? &accounting->exposed_communication : NULL;
        const struct accounting_entry *imbalance = entry_of(comm, ACCOUNTING_COMM_IMBALANCE, "rank 1");
        const struct accounting_entry *skew = entry_of(comm, ACCOUNTING_COMM_SKEW, "rank 1");
        const struct accounting_entry *waited = host_late ? skew : imbalance;
        CHECK(host_late ? imbalance == NULL : skew == NULL);
        CHECK_INT(waited ? waited->ns : 0, US(1500));
        CHECK_INT(waited ? waited->count : 0, 5);
        if (!host_late)
            CHECK_CONTAINS(imbalance ? imbalance->evidence : NULL,
                           "its GPU computed 2.00x rank 0's (3.00 ms against 1.50 ms of compute kernels)");
    }
    CHECK_INT(result ? result->straggler.rank : -1, 1);
    CHECK_INT(result ? result->straggler.load_imbalance : -1, !host_late);
    const struct analysis_what_if *balance = NULL;
    for (size_t i = 0; result && i < result->what_if_count; i++)
        if (result->what_if[i].fix == ANALYSIS_FIX_BALANCE_WORK)
            balance = &result->what_if[i];
    if (host_late) {
        CHECK(balance == NULL);
    } else {
        CHECK_CONTAINS(result ? result->straggler.evidence : NULL,
                       "load imbalance: its GPU computed 2.00x rank 0's (3.00 ms against 1.50 ms");
        CHECK_INT(result ? result->straggler.compute_ns : 0, US(3000));
        CHECK_INT(result ? result->straggler.peer_compute_ns : 0, US(1500));
        CHECK_INT(result ? result->straggler.mean_compute_ns : 0, US(2250));
        CHECK_INT(balance ? balance->predicted_saving_ns : 0, 2 * US(750));
    }
    analysis_free(result);
}

/* Two ranks without collectives rows (a Kineto trace without sequence numbers, or older NCCL):
 * the all-reduces are matched by their order on each device. Rank 1's clock is 0.5 s behind. At
 * each, rank 0's host is away 50 us after its forward kernel and launches its all-reduce late:
 * rank 1 waits 60 us for it (its kernel 110 us against rank 0's 50), and meanwhile rank 0's GPU ran
 * no compute kernel and was idle the whole wait, mostly host-cpu (50 of the 60 us). */
static void test_matched_by_order(void)
{
    struct scenario s;
    CHECK_INT(builder_create(&s.b, directory, "by-order.db"), 0);
    int64_t ranks[2] = {builder_process(&s.b, 0), builder_process(&s.b, 1)};
    builder_h100(&s.b, ranks[0], 0);
    builder_h100(&s.b, ranks[1], 0);
    s.process = ranks[0];
    for (int i = 0; i < 3; i++) {
        double at = 1000.0 * i, behind = -5e5;
        kernel(&s, ranks[0], 13, at - 20, at - 15, at, at + 40, "forward");
        kernel(&s, ranks[0], 20, at + 90, at + 95, at + 100, at + 150, NCCL_NAME);
        kernel(&s, ranks[1], 20, behind + at + 30, behind + at + 35, behind + at + 40, behind + at + 150,
               NCCL_NAME);
    }
    struct analysis_result *result = finish(&s);
    for (size_t d = 0; result && d < result->device_count; d++) {
        const struct analysis_accounting *accounting = whole_device(result, d);
        const struct accounting_breakdown *comm = accounting ? &accounting->exposed_communication : NULL;
        const struct accounting_entry *transfer = entry_of(comm, ACCOUNTING_COMM_TRANSFER, "AllReduce");
        CHECK_INT(transfer ? transfer->ns : 0, US(150));
        CHECK_CONTAINS(transfer ? transfer->evidence : NULL,
                       "instances #1-#3 (in order on each device: no sequence numbers in the trace)");
        const struct accounting_entry *skew = entry_of(comm, ACCOUNTING_COMM_SKEW, "rank 0");
        if (result->devices[d].rank == 0) {
            CHECK(skew == NULL);
            continue;
        }
        CHECK_INT(skew ? skew->ns : 0, US(180));
        CHECK_INT(skew ? skew->count : 0, 3);
        CHECK_CONTAINS(
            skew ? skew->evidence : NULL,
            "at the first, rank 0 meanwhile: its GPU ran no compute kernel; it was idle 100% of the "
            "wait, mostly host-cpu");
    }
    analysis_free(result);
}

/* Two processes whose NCCL kernels belong to communicators of their own: nothing to match, and
 * the evidence says so (not the single-rank advice). */
static void test_no_peer_instance(void)
{
    struct scenario s;
    CHECK_INT(builder_create(&s.b, directory, "no-peer.db"), 0);
    int64_t ranks[2] = {builder_process(&s.b, 0), builder_process(&s.b, 1)};
    s.process = ranks[0];
    for (int r = 0; r < 2; r++) {
        builder_h100(&s.b, ranks[r], 0);
        int64_t row = kernel(&s, ranks[r], 20, -10, -5, 0, 40, NCCL_NAME);
        add_allreduce(&s, ranks[r], r, row, 0, r ? "comm-b" : "comm-a", 1024);
    }
    struct analysis_result *result = finish(&s);
    for (size_t d = 0; result && d < result->device_count; d++) {
        const struct analysis_accounting *accounting = whole_device(result, d);
        const struct accounting_entry *entry =
            accounting
                ? entry_of(&accounting->exposed_communication, ACCOUNTING_COMM_UNMATCHED, "no peer instance")
                : NULL;
        CHECK_INT(entry ? entry->ns : 0, US(40));
        CHECK_CONTAINS(entry ? entry->evidence : NULL, "no other rank's instance of this collective");
    }
    CHECK_INT(result ? (int64_t)result->unchecked_count : -1, 0);
    analysis_free(result);
}

/* Rank 0's NCCL kernel could not start while a GEMM held the SM resources it needs (a
 * comm-behind-compute wait, test_analyzer_causes.c's carve-out case): rank 1's wait for it is
 * already explained. */
static void test_skew_behind_compute(void)
{
    struct scenario s;
    CHECK_INT(builder_create(&s.b, directory, "behind-compute.db"), 0);
    int64_t ranks[2] = {builder_process(&s.b, 0), builder_process(&s.b, 1)};
    builder_h100(&s.b, ranks[0], 0);
    builder_h100(&s.b, ranks[1], 0);
    s.process = ranks[0];
    struct store_kernel gemm = builder_kernel_row(ranks[0], 17, 0, 600, 132, 256, "wl_gemm_kernel");
    gemm.correlation_id = builder_api(&s.b, ranks[0], THREAD, "cudaLaunchKernel", -60, -55, 0);
    gemm.static_shared_bytes = 2176;
    gemm.shared_memory_executed_bytes = 65536;
    builder_insert_kernel(&s.b, gemm);
    struct store_kernel nccl = builder_kernel_row(ranks[0], 18, 573, 621, 24, 544, NCCL_NAME);
    nccl.correlation_id = builder_api(&s.b, ranks[0], THREAD, "cudaLaunchKernel", -50, -45, 0);
    nccl.static_shared_bytes = 21568;
    nccl.dynamic_shared_bytes = 82240;
    int64_t rows[2] = {builder_insert_kernel(&s.b, nccl),
                       kernel(&s, ranks[1], 18, 390, 395, 400, 621, NCCL_NAME)};
    for (int r = 0; r < 2; r++)
        add_allreduce(&s, ranks[r], r, rows[r], 0, "c1", 1048576);
    struct analysis_result *result = finish(&s);
    for (size_t d = 0; result && d < result->device_count; d++) {
        if (result->devices[d].rank != 1)
            continue;
        const struct analysis_accounting *accounting = whole_device(result, d);
        const struct accounting_entry *behind =
            accounting
                ? entry_of(&accounting->exposed_communication, ACCOUNTING_COMM_BEHIND_COMPUTE, "rank 0")
                : NULL;
        CHECK(behind != NULL);
        CHECK_INT(behind ? behind->ns : 0, US(173)); /* 221 us on rank 1, 48 on rank 0 */
        CHECK_INT(accounting ? sum_of(&accounting->exposed_communication) : 0, US(221));
    }
    analysis_free(result);
}

static void test_single_rank_unmatched(void)
{
    struct scenario s;
    begin(&s, "single-rank.db");
    kernel(&s, s.process, 20, -10, -5, 0, 40, NCCL_NAME);
    struct analysis_result *result = finish(&s);
    const struct analysis_accounting *accounting = whole_device(result, 0);
    const struct accounting_entry *entry =
        accounting ? entry_of(&accounting->exposed_communication, ACCOUNTING_COMM_UNMATCHED, "single rank")
                   : NULL;
    CHECK(entry != NULL);
    CHECK_INT(entry ? entry->ns : 0, US(40));
    CHECK_CONTAINS(entry ? entry->evidence : NULL, "record or import every rank");
    /* The skew could not be checked; the sources of its calls need not be (no idle time). */
    CHECK_INT(result ? (int64_t)result->unchecked_count : -1, 1);
    if (result && result->unchecked_count == 1) {
        CHECK_STR(result->unchecked[0].causes, "skew, behind-compute");
        CHECK_STR(result->unchecked[0].record, "record or import every rank, or merge the ranks' files");
    }
    analysis_free(result);
}

/* --- golden traces --- */

/* A golden trace of folder ("gpu": 2x H200, "gpu-h100"). */
static struct analysis_result *golden_in(const char *folder, const char *name)
{
    const char *data = getenv("OVERLAPSCOPE_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", data ? data : "tests/data", folder, name);
    error_info err = {{0}};
    store *trace = store_open(path, 1, &err);
    struct analysis_result *result = trace ? analysis_run(trace, NULL, &err) : NULL;
    if (!result)
        fprintf(stderr, "%s: %s\n", path, err.message);
    store_close(trace, NULL);
    return result;
}

static struct analysis_result *golden(const char *name)
{
    return golden_in("gpu", name);
}

/* Idle time of a cause (-1: any of those between steps). */
static int64_t cause_ns(const struct accounting_breakdown *breakdown, int cause)
{
    int64_t sum = 0;
    for (size_t i = 0; i < breakdown->entry_count; i++)
        if (cause < 0 ? accounting_cause_is_between_steps(breakdown->entries[i].cause)
                      : (int)breakdown->entries[i].cause == cause)
            sum += breakdown->entries[i].ns;
    return sum;
}

/* Every golden trace: each device's idle and exposed communication are exactly their parts, and so
 * is each step's; a device with steps has its idle time exactly in its steps and between them. */
static void test_golden_sums(const char *name, int at_least, int steps_at_least)
{
    int devices_with_steps = 0, *with_steps = &devices_with_steps;
    const char *data = getenv("OVERLAPSCOPE_TEST_DATA");
    char folder[1024];
    snprintf(folder, sizeof folder, "%s/%s", data ? data : "tests/data", name);
    DIR *dir = opendir(folder);
    CHECK(dir != NULL);
    if (!dir)
        return;
    int traces = 0;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        size_t length = strlen(entry->d_name);
        if (length < 4 || strcmp(entry->d_name + length - 3, ".db") != 0)
            continue;
        traces++;
        struct analysis_result *result = golden_in(name, entry->d_name);
        CHECK(result != NULL);
        for (size_t d = 0; result && d < result->device_count; d++) {
            const struct analysis_accounting *accounting = whole_device(result, d);
            CHECK(accounting != NULL);
            if (!accounting)
                continue;
            if (accounting->idle.ns != result->devices[d].idle_ns ||
                accounting->exposed_communication.ns != result->devices[d].exposed_communication_ns)
                fprintf(stderr, "  %s device %zu does not add up\n", entry->d_name, d);
            CHECK_INT(accounting->idle.ns, result->devices[d].idle_ns);
            CHECK_INT(sum_of(&accounting->idle), result->devices[d].idle_ns);
            CHECK_INT(accounting->exposed_communication.ns, result->devices[d].exposed_communication_ns);
            CHECK_INT(sum_of(&accounting->exposed_communication),
                      result->devices[d].exposed_communication_ns);
            /* A process with steps: its steps' idle (step-start and step-end included) plus the idle
             * in no step is all of it. */
            int64_t inside = 0, between = cause_ns(&accounting->idle, ACCOUNTING_IDLE_STEP_BOUNDARY);
            int has_steps = cause_ns(&accounting->idle, -1) > 0;
            for (size_t i = 0; i < result->accounting_count; i++) {
                const struct analysis_accounting *step = &result->accountings[i];
                if (step->device != d || step->step < 0)
                    continue;
                has_steps = 1;
                inside += step->idle.ns;
                CHECK_INT(sum_of(&step->idle), step->idle.ns);
                CHECK_INT(sum_of(&step->exposed_communication), step->exposed_communication.ns);
            }
            if (has_steps)
                CHECK_INT(inside + between, result->devices[d].idle_ns);
            *with_steps += has_steps;
        }
        analysis_free(result);
    }
    closedir(dir);
    CHECK(traces >= at_least);
    CHECK(devices_with_steps >= steps_at_least);
}

static void test_golden_figures(void)
{
    /* launch_bound: 24.0 ms of idle GPU; the waits found 1.56 ms. Nearly all of it is the host
     * issuing 2000 tiny kernels slower than the GPU ran them. */
    struct analysis_result *result = golden("launch_bound.db");
    const struct analysis_accounting *accounting = whole_device(result, 0);
    const struct accounting_entry *entry =
        accounting ? entry_of(&accounting->idle, ACCOUNTING_IDLE_LAUNCH_BOUND, NULL) : NULL;
    CHECK(entry != NULL && entry == &accounting->idle.entries[0]);
    CHECK(entry && entry->ns > US(23500) && entry->count >= 2000);
    /* The launch rate over the 1999 windows between its 2000 launches: every gap is launch-bound. */
    CHECK_CONTAINS(entry ? entry->evidence : NULL,
                   "launch rate: the host issued an operation every 12.7 us "
                   "(1999 between gaps of this kind) while the GPU ran each in 781 ns");
    analysis_free(result);
    /* Seed 004's pattern (host_sync --op device-sync: a kernel, then cudaDeviceSynchronize, every
     * iteration): the top idle cause is the host blocked in cudaDeviceSynchronize. */
    result = golden("host_sync_device-sync.db");
    accounting = whole_device(result, 0);
    CHECK(accounting && accounting->idle.entry_count > 0);
    if (accounting && accounting->idle.entry_count) {
        CHECK_INT(accounting->idle.entries[0].cause, ACCOUNTING_IDLE_HOST_SYNC);
        CHECK_STR(accounting->idle.entries[0].label, "cudaDeviceSynchronize");
    }
    analysis_free(result);
    /* ddp: rank 1's 7.91 ms of exposed communication is mostly waiting for rank 0, the straggler. */
    result = golden("ddp.db");
    for (size_t d = 0; result && d < result->device_count; d++) {
        if (result->devices[d].rank != 1)
            continue;
        accounting = whole_device(result, d);
        entry =
            accounting ? entry_of(&accounting->exposed_communication, ACCOUNTING_COMM_SKEW, "rank 0") : NULL;
        CHECK(entry != NULL && entry == &accounting->exposed_communication.entries[0]);
        CHECK(entry && entry->ns > US(7000));
    }
    CHECK_INT(result ? result->straggler.rank : -1, 0);
    analysis_free(result);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    test_queued_latest_wait();
    test_host_sync();
    test_uncached_allocator(0);
    test_uncached_allocator(1);
    test_item_readback(0);
    test_item_readback(1);
    test_launch_bound_and_host_cpu();
    test_warmup();
    test_queued_work();
    test_step_boundary();
    test_steps_across_devices();
    test_two_ranks_with_offset();
    test_skew_behind_compute();
    test_matched_by_order();
    test_load_imbalance(0);
    test_load_imbalance(1);
    test_no_peer_instance();
    test_peer_copy_and_unrecorded_launch();
    test_wait_source();
    test_single_rank_unmatched();
    test_golden_sums("gpu", 30, 14);
    test_golden_sums("gpu-h100", 20, 2);
    test_golden_figures();
    char command[256];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    if (system(command) != 0)
        return 1;
    return check_finish();
}
