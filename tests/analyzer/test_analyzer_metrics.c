/* test_analyzer_metrics.c: every metric of docs/metrics.md on hand-built traces with the answer
 * worked out by hand next to the timeline; windows, NVTX ranges, steps, ranks with skewed clocks,
 * zero-length and identical intervals, one stream, an empty window. */
#include <stdlib.h>

#include "analysis.h"
#include "analyze_builder.h"
#include "check.h"

static char directory[] = "/tmp/overlapscope-test-metrics-XXXXXX";

/* Rank 0 (and rank 1 shifted by one second, its NCCL kernel known only from the collectives
 * table), device 0, in microseconds:
 *   stream 1: compute A [0,100]          compute B [230,260]
 *   stream 2: NCCL N [50,150]
 *   stream 3: HtoD copy [120,200]
 *   stream 4: compute E [20,40]   compute D [190,195]
 * busy = [0,200] + [230,260] = 230, span 260, idle 30.
 * streams busy: 1 on [0,20] [40,50] [100,120] [150,190] [195,200] [230,260] = 125;
 *               2 on [20,40] [50,100] [120,150] [190,195] = 105.
 * communication 100, of it under compute [50,100] = 50: exposed 50, ratio 0.5.
 * copy 80, under compute [190,195] = 5. compute with compute [20,40] = 20.
 * kernels (compute and NCCL) [0,150] [190,195] [230,260] = 185; the copy with no kernel running
 * (exposed copy, all host to device): [150,190] [195,200] = 45. */
static void build_timeline(struct builder *b, int64_t rank, double shift_us, int nccl_by_table)
{
    int64_t process = builder_process(b, rank);
    builder_h100(b, process, 0);
    int64_t launch = builder_api(b, process, 7, "cudaLaunchKernel", shift_us - 5, shift_us - 4, 0);
    struct store_kernel a =
        builder_kernel_row(process, 1, shift_us + 0, shift_us + 100, 4, 128, "_Z7sgemm_aPf");
    a.correlation_id = launch;
    builder_insert_kernel(b, a);
    launch = builder_api(b, process, 7, "cudaLaunchKernel", shift_us - 3, shift_us - 2, 0);
    struct store_kernel n =
        builder_kernel_row(process, 2, shift_us + 50, shift_us + 150, 24, 544,
                           nccl_by_table ? "all_reduce_kernel" : "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    n.correlation_id = launch;
    int64_t n_row = builder_insert_kernel(b, n);
    if (nccl_by_table) {
        struct store_collective row = builder_collective_row_ns(process, 2, "AllReduce", 4096, NULL, rank, 2,
                                                                n_row, n.start_ns, n.end_ns);
        row.sequence_number = 1;
        builder_insert_collective(b, row);
    }
    builder_insert_memcpy(b, builder_memcpy_row(process, 3, shift_us + 120, shift_us + 200, STORE_COPY_HTOD,
                                                STORE_MEMORY_PINNED, 1 << 20));
    builder_insert_kernel(b,
                          builder_kernel_row(process, 4, shift_us + 20, shift_us + 40, 4, 128, "kernel_e"));
    builder_insert_kernel(b,
                          builder_kernel_row(process, 4, shift_us + 190, shift_us + 195, 4, 128, "kernel_d"));
    launch = builder_api(b, process, 7, "cudaLaunchKernel", shift_us + 220, shift_us + 221, 0);
    struct store_kernel later =
        builder_kernel_row(process, 1, shift_us + 230, shift_us + 260, 4, 128, "kernel_b");
    later.correlation_id = launch;
    builder_insert_kernel(b, later);
    /* Iterations: host ranges around the launches; "fwd": GPU annotations. */
    builder_nvtx(b, process, 7, STORE_NULL, "ProfilerStep#1", shift_us - 10, shift_us - 1);
    builder_nvtx(b, process, 7, STORE_NULL, "ProfilerStep#2", shift_us + 200, shift_us + 225);
    builder_nvtx(b, process, STORE_NULL, 0, "fwd", shift_us + 0, shift_us + 60);
    builder_nvtx(b, process, STORE_NULL, 0, "fwd", shift_us + 230, shift_us + 240);
}

static const struct analysis_lane *find_lane(const struct analysis_result *result, int64_t rank,
                                             int64_t stream)
{
    for (size_t i = 0; i < result->lane_count; i++)
        if (result->lanes[i].rank == rank && result->lanes[i].stream_id == stream)
            return &result->lanes[i];
    return NULL;
}

static const struct analysis_stream_pair *find_pair(const struct analysis_result *result, int64_t rank,
                                                    int64_t a, int64_t b)
{
    for (size_t i = 0; i < result->stream_pair_count; i++) {
        const struct analysis_lane *x = &result->lanes[result->stream_pairs[i].lane_a];
        const struct analysis_lane *y = &result->lanes[result->stream_pairs[i].lane_b];
        if (x->rank == rank &&
            ((x->stream_id == a && y->stream_id == b) || (x->stream_id == b && y->stream_id == a)))
            return &result->stream_pairs[i];
    }
    return NULL;
}

static void check_device_metrics(const struct analysis_device *device)
{
    CHECK_INT(device->span_end_ns - device->span_start_ns, US(260));
    CHECK_INT(device->busy_ns, US(230));
    CHECK_INT(device->idle_ns, US(30));
    CHECK_INT(device->concurrency_ns[0], US(30));
    CHECK_INT(device->concurrency_ns[1], US(125));
    CHECK_INT(device->concurrency_ns[2], US(105));
    CHECK_INT(device->concurrency_ns[3], 0);
    CHECK_INT(device->communication_ns, US(100));
    CHECK_INT(device->compute_communication_overlap_ns, US(50));
    CHECK_INT(device->exposed_communication_ns, US(50));
    CHECK_INT(device->copy_ns, US(80));
    CHECK_INT(device->kernel_busy_ns, US(185));
    CHECK_INT(device->exposed_copy_ns, US(45));
    CHECK_INT(device->exposed_copy_direction_ns[ANALYSIS_COPY_DIRECTION_HTOD], US(45));
    CHECK_INT(device->exposed_copy_direction_ns[ANALYSIS_COPY_DIRECTION_DTOH], 0);
    CHECK_INT(device->copy_compute_overlap_ns, US(5));
    CHECK_INT(device->category_busy_ns[ANALYSIS_COMPUTE], US(135));
    CHECK_INT(device->category_busy_ns[ANALYSIS_COPY_HTOD], US(80));
    CHECK_INT(device->category_overlap_ns[ANALYSIS_COMPUTE][ANALYSIS_COMPUTE], US(20));
    CHECK_INT(device->category_overlap_ns[ANALYSIS_COMPUTE][ANALYSIS_COMMUNICATION], US(50));
    CHECK_INT(device->category_overlap_ns[ANALYSIS_COMMUNICATION][ANALYSIS_COMPUTE], US(50));
    CHECK_INT(device->category_overlap_ns[ANALYSIS_COMMUNICATION][ANALYSIS_COPY_HTOD], US(30));
    CHECK_INT(device->category_overlap_ns[ANALYSIS_COMPUTE][ANALYSIS_COPY_HTOD], US(5));
    CHECK_INT(device->category_overlap_ns[ANALYSIS_COMMUNICATION][ANALYSIS_COMMUNICATION], 0);
    CHECK_INT(device->stream_count, 4);
    CHECK_INT(device->sm_count, 132);
    /* The pairs below: achieved 50 + 20 + 30 + 5, possible 50 + 25 + 30 + 5 (overlap of possible
     * 105 / 110); copy/compute possible = min(copy 80, compute 135). */
    CHECK_INT(device->stream_pair_overlap_ns, US(105));
    CHECK_INT(device->stream_pair_possible_ns, US(110));
    CHECK_INT(device->copy_compute_possible_ns, US(80));
}

static void test_full_trace(store *trace)
{
    error_info err = {{0}};
    struct analysis_result *result = analysis_run(trace, NULL, &err);
    CHECK(result != NULL);
    if (!result) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK_INT(result->device_count, 2);
    CHECK_INT(result->interval_count, 12);
    CHECK_INT(result->origin_ns, AT(0));
    for (size_t i = 0; i < result->device_count; i++) /* rank 1's clock is a second off: same answers */
        check_device_metrics(&result->devices[i]);
    CHECK_INT(result->devices[0].rank, 0);
    CHECK_INT(result->devices[1].rank, 1);
    CHECK_INT(result->total_communication_ns, US(200));
    CHECK_INT(result->total_exposed_communication_ns, US(100));
    CHECK_NEAR(result->communication_overlap_ratio, 0.5, 1e-12);
    CHECK_NEAR(result->copy_overlap_ratio, 5.0 / 80.0, 1e-12);
    const struct analysis_lane *lane = find_lane(result, 0, 1);
    CHECK(lane && lane->busy_ns == US(130) && lane->interval_count == 2 &&
          strcmp(lane->role, "compute") == 0);
    lane = find_lane(result, 0, 2);
    CHECK(lane && lane->busy_ns == US(100) && strcmp(lane->role, "nccl") == 0);
    CHECK(lane && lane->category_ns[ANALYSIS_COMMUNICATION] == US(100));
    lane = find_lane(result, 1, 2); /* known only from the collectives table */
    CHECK(lane && strcmp(lane->role, "nccl") == 0);
    lane = find_lane(result, 0, 3);
    CHECK(lane && lane->busy_ns == US(80) && strcmp(lane->role, "copy") == 0);
    lane = find_lane(result, 0, 4);
    CHECK(lane && lane->busy_ns == US(25));
    static const struct {
        int64_t a, b;
        double overlap_us, possible_us;
    } pairs[] = {{1, 2, 50, 50}, {1, 3, 0, 0}, {1, 4, 20, 25}, {2, 3, 30, 30}, {2, 4, 0, 0}, {3, 4, 5, 5}};
    CHECK_INT(result->stream_pair_count, 12);
    /* Rank 1 is analyzed after rank 0 with the same sweep: the same answers, none of rank 0's pair
     * state carried over (stream 4 appears while stream 1 is busy, as in ddp.db's rank 1). */
    for (int64_t rank = 0; rank < 2; rank++) {
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
            const struct analysis_stream_pair *pair = find_pair(result, rank, pairs[i].a, pairs[i].b);
            CHECK(pair != NULL);
            if (pair) {
                CHECK_INT(pair->overlap_ns, US(pairs[i].overlap_us));
                CHECK_INT(pair->possible_ns, US(pairs[i].possible_us));
            }
        }
    }
    CHECK_INT(result->step_count, 4); /* two steps on each rank */
    CHECK_INT(result->steps[0].number, 1);
    CHECK_INT(result->steps[0].start_ns, AT(0));
    CHECK_INT(result->steps[0].end_ns, AT(150)); /* GPU time of what step 1 launched: A and N */
    CHECK(result->steps[0].on_gpu_timeline);
    CHECK_STR(result->steps[0].name, "ProfilerStep#1");
    CHECK_INT(result->steps[1].start_ns, AT(230));
    CHECK_INT(result->steps[3].rank, 1);
    analysis_free(result);
}

static void test_window_range_step(store *trace)
{
    error_info err = {{0}};
    struct analysis_options options;
    analysis_options_init(&options);
    CHECK_INT(analysis_parse_window("40us:120us", &options, NULL, &err), 0);
    struct analysis_result *result = analysis_run(trace, &options, &err);
    CHECK(result != NULL);
    if (result) {
        /* rank 1 lies a second later: outside the window. */
        CHECK_INT(result->device_count, 1);
        const struct analysis_device *device = &result->devices[0];
        CHECK_INT(device->span_start_ns, AT(40));
        CHECK_INT(device->span_end_ns, AT(120));
        CHECK_INT(device->busy_ns, US(80));
        CHECK_INT(device->idle_ns, 0);
        CHECK_INT(device->communication_ns, US(70));
        CHECK_INT(device->exposed_communication_ns, US(20));
        CHECK_INT(result->selection.window_start_ns, AT(40));
        analysis_free(result);
    }
    CHECK_INT(analysis_parse_window("205us:228us", &options, NULL, &err), 0);
    result = analysis_run(trace, &options, &err);
    CHECK(result == NULL);
    CHECK_CONTAINS(err.message, "no GPU intervals in the selected window");

    analysis_options_init(&options);
    options.rank = 0;
    options.range_name = "fwd";
    result = analysis_run(trace, &options, &err);
    CHECK(result != NULL);
    if (result) {
        const struct analysis_device *device = &result->devices[0];
        CHECK_INT(result->device_count, 1);
        CHECK_INT(device->busy_ns, US(70));
        CHECK_INT(device->idle_ns, 0);
        CHECK_INT(device->communication_ns, US(10));
        CHECK_INT(device->span_end_ns, AT(240));
        analysis_free(result);
    }
    /* --range with --step: the ranges inside that step (step 1 ran 0-150 us: the first "fwd"). */
    options.step = 1;
    result = analysis_run(trace, &options, &err);
    CHECK(result != NULL);
    if (result) {
        CHECK_INT(result->devices[0].busy_ns, US(60));
        CHECK_INT(result->devices[0].span_end_ns, AT(60));
        CHECK_INT(result->selection.window_end_ns, AT(60));
        analysis_free(result);
    }
    options.step = -1;
    options.range_name = "no-such-range";
    result = analysis_run(trace, &options, &err);
    CHECK(result == NULL);
    CHECK_CONTAINS(err.message, "no NVTX range named 'no-such-range'");

    analysis_options_init(&options);
    options.step = 2;
    options.rank = 1;
    result = analysis_run(trace, &options, &err);
    CHECK(result != NULL);
    if (result) {
        CHECK_INT(result->device_count, 1);
        CHECK_INT(result->devices[0].rank, 1);
        CHECK_INT(result->devices[0].busy_ns, US(30));
        CHECK_INT(result->devices[0].idle_ns, 0);
        CHECK_INT(result->interval_count, 1);
        analysis_free(result);
    }
    options.step = 9;
    result = analysis_run(trace, &options, &err);
    CHECK(result == NULL);
    CHECK_CONTAINS(err.message, "no step 9 (steps 1 to 2");

    analysis_options_init(&options);
    options.stream_id = 2;
    options.rank = 0;
    result = analysis_run(trace, &options, &err);
    CHECK(result != NULL);
    if (result) {
        CHECK_INT(result->devices[0].busy_ns, US(100));
        CHECK_INT(result->devices[0].stream_count, 1);
        CHECK_INT(result->stream_pair_count, 0);
        analysis_free(result);
    }
}

/* Two identical intervals, a zero-length one, and a one-stream device. */
static void test_edge_intervals(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "edges.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    builder_insert_kernel(&b, builder_kernel_row(process, 1, 0, 10, 4, 128, "same"));
    builder_insert_kernel(&b, builder_kernel_row(process, 2, 0, 10, 4, 128, "same"));
    builder_insert_kernel(&b, builder_kernel_row(process, 3, 5, 5, 4, 128, "point"));
    struct store_kernel other_device = builder_kernel_row(process, 9, 0, 10, 4, 128, "alone");
    other_device.device_id = 1;
    builder_insert_kernel(&b, other_device);
    other_device.start_ns = AT(10);
    other_device.end_ns = AT(30);
    builder_insert_kernel(&b, other_device);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    CHECK(result != NULL);
    if (result) {
        CHECK_INT(result->device_count, 2);
        const struct analysis_device *device = &result->devices[0];
        CHECK_INT(device->busy_ns, US(10));
        CHECK_INT(device->concurrency_ns[2], US(10));
        CHECK_INT(device->concurrency_ns[1], 0);
        CHECK_INT(device->category_overlap_ns[ANALYSIS_COMPUTE][ANALYSIS_COMPUTE], US(10));
        const struct analysis_stream_pair *pair = find_pair(result, 0, 1, 2);
        CHECK(pair && pair->overlap_ns == US(10) && pair->possible_ns == US(10));
        const struct analysis_lane *point = find_lane(result, 0, 3);
        CHECK(point && point->busy_ns == 0 && point->interval_count == 1);
        const struct analysis_device *single = &result->devices[1];
        CHECK_INT(single->busy_ns, US(30));
        CHECK_INT(single->concurrency_ns[1], US(30));
        CHECK_INT(single->idle_ns, 0);
        CHECK_INT(single->wait_count, 0);
        CHECK_INT(result->wait_total_count, 0);
        analysis_free(result);
    }
}

/* Copy overlap of possible counts only what could overlap: device 0 has kernel K [0, 100] and then
 * a copy [100, 140] on stream 1 (one stream: in order), and a copy [0, 20] on stream 2 beside K.
 * Possible: stream 1's copy against the other streams' compute (0) + stream 2's 20 against K's
 * 100 = 20, all achieved (min(copy 60, compute 100) would say 20 of 60). Device 1 copies and
 * computes on one stream only: nothing possible. */
static void test_copy_possible(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "copies.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    builder_h100(&b, process, 1);
    builder_insert_kernel(&b, builder_kernel_row(process, 1, 0, 100, 4, 128, "k"));
    builder_insert_memcpy(
        &b, builder_memcpy_row(process, 1, 100, 140, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 1 << 20));
    builder_insert_memcpy(
        &b, builder_memcpy_row(process, 2, 0, 20, STORE_COPY_DTOH, STORE_MEMORY_PINNED, 1 << 20));
    struct store_kernel alone = builder_kernel_row(process, 9, 0, 10, 4, 128, "alone");
    struct store_memcpy after =
        builder_memcpy_row(process, 9, 10, 30, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 1 << 20);
    alone.device_id = after.device_id = 1;
    builder_insert_kernel(&b, alone);
    builder_insert_memcpy(&b, after);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    CHECK(result != NULL);
    if (result) {
        CHECK_INT(result->device_count, 2);
        CHECK_INT(result->devices[0].copy_ns, US(60));
        CHECK_INT(result->devices[0].copy_compute_overlap_ns, US(20));
        CHECK_INT(result->devices[0].copy_compute_possible_ns, US(20));
        /* Device 0: kernel [0,100], HtoD [100,140], DtoH [0,20]: only the HtoD copy runs with no
         * kernel. Device 1: kernel [0,10], HtoD [10,30]. */
        CHECK_INT(result->devices[0].kernel_busy_ns, US(100));
        CHECK_INT(result->devices[0].exposed_copy_ns, US(40));
        CHECK_INT(result->devices[0].exposed_copy_direction_ns[ANALYSIS_COPY_DIRECTION_HTOD], US(40));
        CHECK_INT(result->devices[0].exposed_copy_direction_ns[ANALYSIS_COPY_DIRECTION_DTOH], 0);
        CHECK_INT(result->devices[1].exposed_copy_ns, US(20));
        CHECK_INT(result->total_exposed_copy_ns, US(60));
        CHECK_INT(result->devices[1].copy_ns, US(20));
        CHECK_INT(result->devices[1].copy_compute_possible_ns, 0);
        analysis_free(result);
    }
}

static void test_no_gpu_activity(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "empty.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_api(&b, process, 7, "cudaMalloc", 0, 10, 0);
    CHECK_INT(builder_finish(&b), 0);
    error_info err = {{0}};
    CHECK(analysis_run(b.trace, NULL, &err) == NULL);
    CHECK_CONTAINS(err.message, "no GPU intervals in the trace");
    builder_close(&b);
}

static void test_parse(void)
{
    error_info err;
    int64_t ns = 0;
    CHECK_INT(analysis_parse_duration("1.5ms", &ns, NULL, &err), 0);
    CHECK_INT(ns, 1500000);
    CHECK_INT(analysis_parse_duration("12us", &ns, NULL, &err), 0);
    CHECK_INT(ns, 12000);
    CHECK_INT(analysis_parse_duration("2s", &ns, NULL, &err), 0);
    CHECK_INT(ns, 2000000000);
    int unitless = 0;
    CHECK_INT(analysis_parse_duration("1 ms", &ns, &unitless, &err), 0);
    CHECK_INT(ns, 1000000);
    CHECK_INT(unitless, 0);
    CHECK_INT(analysis_parse_duration("250", &ns, &unitless, &err), 0);
    CHECK_INT(ns, 250);
    CHECK_INT(unitless, 1);
    CHECK_INT(analysis_parse_duration("3 parsecs", &ns, NULL, &err), -1);
    CHECK_CONTAINS(err.message, "unknown unit");
    struct analysis_options options;
    analysis_options_init(&options);
    CHECK_INT(analysis_parse_window("20ms:10ms", &options, NULL, &err), -1);
    CHECK_INT(analysis_parse_window("10ms", &options, NULL, &err), -1);
    CHECK_INT(analysis_parse_window(":10ms", &options, NULL, &err), 0);
    CHECK_INT(options.window_start_ns, STORE_NULL);
    CHECK_INT(options.window_end_ns, 10000000);
    unitless = 0;
    CHECK_INT(analysis_parse_window(" 1 ms : 2ms", &options, &unitless, &err), 0); /* render's old spelling */
    CHECK_INT(options.window_start_ns, 1000000);
    CHECK_INT(options.window_end_ns, 2000000);
    CHECK_INT(unitless, 0);
    CHECK_INT(analysis_parse_window("0:2000000", &options, &unitless, &err), 0); /* report's old spelling */
    CHECK_INT(options.window_end_ns, 2000000);
    CHECK_INT(unitless, 1);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "timeline.db"), 0);
    build_timeline(&b, 0, 0, 0);
    build_timeline(&b, 1, 1e6, 1);
    CHECK_INT(builder_finish(&b), 0);
    test_full_trace(b.trace);
    test_window_range_step(b.trace);
    builder_close(&b);
    test_edge_intervals();
    test_copy_possible();
    test_no_gpu_activity();
    test_parse();
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
