/* test_comm_agreement.c: the report and the picture count the same kernels as communication
 * when the trace has no collectives rows (`record --no-nccl`, an importer without NCCL metadata):
 * both ask analyzer/kernel_names.h, whose name rule reads every NCCL version's spelling.
 * Before one rule, NCCL 2.3-2.7 names (ncclAllReduceRingLLKernel_sum_f32) were painted NCCL
 * orange while the report counted 0 ms of communication for them. */
#include <stdlib.h>

#include "check.h"
#include "reader.h"
#include "trace_builder.h"

/* Communication time the picture paints for one device: its lanes' communication busy time. */
static int64_t painted_communication(store *trace, const struct analysis_result *result, int64_t device_id)
{
    struct reader_selection selection = {.rank = -1, .device_id = -1, .stream_id = -1};
    int64_t last_end = 0;
    error_info err = {{0}};
    struct canvas *canvas = reader_read(trace, &selection, result->selection.window_start_ns,
                                        result->selection.window_end_ns, 0, 800, 3.0, &last_end, &err);
    CHECK(canvas != NULL);
    if (!canvas)
        return -1;
    int64_t total = 0;
    for (size_t i = 0; i < canvas->lane_count; i++)
        if (canvas->lanes[i]->kind == CANVAS_LANE_GPU && canvas->lanes[i]->device_id == device_id)
            total += canvas->lanes[i]->busy_ns[ANALYSIS_COMMUNICATION];
    canvas_free(canvas);
    return total;
}

static int64_t reported_communication(const struct analysis_result *result, int64_t device_id)
{
    for (size_t i = 0; i < result->device_count; i++)
        if (result->devices[i].device_id == device_id)
            return result->devices[i].communication_ns;
    return -1;
}

/* One rank, one H100: compute on stream 13, NCCL kernels of three NCCL generations on stream 20,
 * no collectives rows; and a kernel whose name starts with "nccl" but is not NCCL's. */
static void test_hand_built(const char *directory)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "old_nccl.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    builder_stream(&b, process, 0, 13, 0, 1, 0);
    builder_stream(&b, process, 0, 20, 0, 1, 0);
    builder_insert_kernel(&b,
                          builder_kernel_row(process, 13, 0, 1000, 132, 256, "_Z13sgemm_256x128PKfS0_Pfi"));
    builder_insert_kernel(
        &b, builder_kernel_row(process, 20, 100, 400, 24, 544, "ncclAllReduceRingLLKernel_sum_f32"));
    builder_insert_kernel(
        &b,
        builder_kernel_row(process, 20, 500, 700, 24, 544,
                           "ncclKernel_AllGather_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"));
    builder_insert_kernel(
        &b,
        builder_kernel_row(process, 20, 800, 850, 24, 544,
                           "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"));
    builder_insert_kernel(&b, builder_kernel_row(process, 13, 1100, 1200, 1, 32, "ncclStrangeHelper(int)"));
    CHECK_INT(builder_finish(&b), 0);
    struct analysis_result *result = analysis_run(b.trace, NULL, &b.err);
    CHECK(result != NULL);
    if (result) {
        /* 300 + 200 + 50 us of NCCL kernels; the helper is compute */
        CHECK_INT(reported_communication(result, 0), US(550));
        CHECK_INT(painted_communication(b.trace, result, 0), US(550));
        analysis_free(result);
    }
    builder_close(&b);
}

/* A golden trace with its collectives table emptied: the NCCL kernels still count, in the report
 * as in the picture, the same 1.97 ms on rank 0 that the trace with its collectives rows reports. */
static void test_golden_without_collectives(const char *directory)
{
    const char *data = getenv("OVERLAPSCOPE_TEST_DATA");
    char command[2048], path[600];
    snprintf(path, sizeof path, "%s/ddp_no_collectives.db", directory);
    snprintf(command, sizeof command, "cp '%s/gpu/ddp.db' '%s' && sqlite3 '%s' 'DELETE FROM collectives'",
             data, path, path);
    CHECK_INT(system(command), 0);
    error_info err = {{0}};
    store *trace = store_open(path, 1, &err);
    CHECK(trace != NULL);
    if (!trace)
        return;
    struct analysis_result *result = analysis_run(trace, NULL, &err);
    CHECK(result != NULL);
    if (result) {
        CHECK_INT(reported_communication(result, 0), 1965421);
        CHECK_INT(painted_communication(trace, result, 0), 1965421);
        CHECK_INT(painted_communication(trace, result, 1), reported_communication(result, 1));
        analysis_free(result);
    }
    store_close(trace, NULL);
}

int main(void)
{
    char directory[] = "/tmp/overlapscope-comm-XXXXXX";
    if (!mkdtemp(directory))
        return 1;
    test_hand_built(directory);
    test_golden_without_collectives(directory);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
