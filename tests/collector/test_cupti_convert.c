/* CUPTI activity records made by hand, every field set, turned into rows; every column of every
 * row checked against the record it came from (collector/cupti_convert.c). No GPU needed: only
 * the CUPTI headers. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include <cupti_runtime_cbid.h>

#include "cupti_convert.h"

#define NUL STORE_NULL /* an expected SQL NULL */

/* Checks one row of the query column by column; expected values NUL for SQL NULL. */
static void check_row(sqlite3 *db, const char *sql, const int64_t *expected, int columns, int line)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) != SQLITE_OK || sqlite3_step(query) != SQLITE_ROW) {
        check_failed++;
        fprintf(stderr, "line %d: no row for %s (%s)\n", line, sql, sqlite3_errmsg(db));
        sqlite3_finalize(query);
        return;
    }
    if (sqlite3_column_count(query) != columns) {
        check_failed++;
        fprintf(stderr, "line %d: %d columns, expected %d\n", line, sqlite3_column_count(query), columns);
    }
    for (int i = 0; i < columns && i < sqlite3_column_count(query); i++) {
        int is_null = sqlite3_column_type(query, i) == SQLITE_NULL;
        int64_t value = sqlite3_column_int64(query, i);
        if ((expected[i] == NUL) ? is_null : (!is_null && value == expected[i])) {
            check_passed++;
        } else {
            check_failed++;
            fprintf(stderr, "line %d: column %s is %s%lld, expected %lld%s\n", line,
                    sqlite3_column_name(query, i), is_null ? "NULL " : "", (long long)value,
                    (long long)expected[i], expected[i] == NUL ? " (NULL)" : "");
        }
    }
    sqlite3_finalize(query);
}

#define CHECK_ROW(db, sql, ...)                                                                              \
    do {                                                                                                     \
        const int64_t expected_[] = {__VA_ARGS__};                                                           \
        check_row(db, sql, expected_, (int)(sizeof expected_ / sizeof expected_[0]), __LINE__);              \
    } while (0)

static char *query_text(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *query = NULL;
    char *text = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW &&
        sqlite3_column_text(query, 0))
        text = strdup((const char *)sqlite3_column_text(query, 0));
    sqlite3_finalize(query);
    return text ? text : strdup("(none)");
}

static void check_text(sqlite3 *db, const char *sql, const char *expected)
{
    char *text = query_text(db, sql);
    CHECK_STR(text, expected);
    free(text);
}

static int64_t count(sqlite3 *db, const char *sql)
{
    int64_t values[1] = {-1};
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW)
        values[0] = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return values[0];
}

/* The namer CUPTI's cuptiGetCallbackName would be, for the two ids the test uses. */
static const char *test_namer(void *context, int64_t api_domain, uint32_t callback_id)
{
    (void)context;
    if (api_domain == STORE_API_RUNTIME && callback_id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
        return "cudaLaunchKernel_v7000";
    if (api_domain == STORE_API_DRIVER && callback_id == 279)
        return "cuMemcpyHtoDAsync_v2";
    return NULL;
}

static CUpti_ActivityKernel10 make_kernel(const char *name, uint32_t stream, uint32_t correlation,
                                          uint64_t start)
{
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.sharedMemoryConfig = 2;
    k.registersPerThread = 40;
    k.start = start;
    k.end = start + 5000;
    k.completed = start + 5100;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = stream;
    k.gridX = 24, k.gridY = 2, k.gridZ = 3;
    k.blockX = 544, k.blockY = 1, k.blockZ = 1;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 2048;
    k.localMemoryPerThread = 16;
    k.localMemoryTotal = 12345; /* the 32-bit field: not what the row takes */
    k.localMemoryTotal_v2 = 5000000000ULL;
    k.correlationId = correlation;
    k.gridId = 99;
    k.name = name;
    k.queued = start - 900;
    k.submitted = start - 400;
    k.launchType = 1;
    k.sharedMemoryExecuted = 65536;
    k.graphNodeId = 0;
    k.graphId = 0;
    k.channelID = 3;
    k.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
    k.clusterX = 2, k.clusterY = 1, k.clusterZ = 1;
    k.isDeviceLaunched = 0;
    return k;
}

static void convert_streams_and_contexts(cupti_convert *converter, sqlite3 *db)
{
    error_info err;
    /* Stream 14 arrives before its context: held back until the context says the device. */
    CUpti_ActivityStream early = {.kind = CUPTI_ACTIVITY_KIND_STREAM,
                                  .contextId = 1,
                                  .streamId = 14,
                                  .priority = 0,
                                  .flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT,
                                  .correlationId = 5};
    CHECK_INT(cupti_convert_stream(converter, &early, &err), 0);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM streams"), 0);
    CUpti_ActivityContext3 context;
    memset(&context, 0, sizeof context);
    context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    context.contextId = 1;
    context.deviceId = 0;
    context.nullStreamId = 7; /* not 0: the legacy stream's id comes from CUPTI, never assumed */
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&context, &err), 0);
    CUpti_ActivityStream high = {.kind = CUPTI_ACTIVITY_KIND_STREAM,
                                 .contextId = 1,
                                 .streamId = 13,
                                 .priority = (uint32_t)-2,
                                 .flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING,
                                 .correlationId = 6};
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&high, &err), 0);
    /* columns: process, device, context, stream, legacy, per-thread, priority, flags */
    CHECK_ROW(db,
              "SELECT process_id, device_id, context_id, stream_id, is_legacy_default, "
              "is_per_thread_default, priority, flags FROM streams WHERE stream_id = 14",
              1, 0, 1, 14, 0, 0, 0, 1);
    CHECK_ROW(db,
              "SELECT process_id, device_id, context_id, stream_id, is_legacy_default, "
              "is_per_thread_default, priority, flags FROM streams WHERE stream_id = 7",
              1, 0, 1, 7, 1, 0, NUL, 3);
    CHECK_ROW(db,
              "SELECT process_id, device_id, context_id, stream_id, is_legacy_default, "
              "is_per_thread_default, priority, flags FROM streams WHERE stream_id = 13",
              1, 0, 1, 13, 0, 0, -2, 2);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM streams WHERE label IS NOT NULL"), 0);
    /* A stream of a context never described: written at finish with device NULL. */
    CUpti_ActivityStream orphan = {.kind = CUPTI_ACTIVITY_KIND_STREAM,
                                   .contextId = 9,
                                   .streamId = 90,
                                   .priority = 0,
                                   .flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL};
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&orphan, &err), 0);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM streams WHERE stream_id = 90"), 0);
}

#define STREAM_COLUMNS                                                                                       \
    "SELECT process_id, device_id, context_id, stream_id, is_legacy_default, is_per_thread_default, "        \
    "priority,"                                                                                              \
    " flags FROM streams "

/* The launch callbacks found per-thread default streams (launch_watch.h): stream 13 has a stream
 * record and keeps what it said; stream 21 never had one and gets a row; stream 91 is of a context
 * never described and waits for finish like any stream there. */
static void mark_per_thread_streams(cupti_convert *converter, sqlite3 *db)
{
    error_info err;
    CHECK_INT(cupti_convert_mark_per_thread_default(converter, 1, 13, &err), 0);
    CHECK_INT(cupti_convert_mark_per_thread_default(converter, 1, 21, &err), 0);
    CHECK_INT(cupti_convert_mark_per_thread_default(converter, 9, 91, &err), 0);
    CHECK_ROW(db, STREAM_COLUMNS "WHERE stream_id = 13", 1, 0, 1, 13, 0, 1, -2, 2);
    CHECK_ROW(db, STREAM_COLUMNS "WHERE stream_id = 21", 1, 0, 1, 21, 0, 1, NUL, NUL);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM streams WHERE stream_id = 91"), 0);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM streams WHERE is_per_thread_default = 1"), 2);
}

static void convert_device(cupti_convert *converter, sqlite3 *db)
{
    CUpti_ActivityDevice5 device;
    memset(&device, 0, sizeof device);
    device.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    device.globalMemoryBandwidth = 3352000000ULL;
    device.globalMemorySize = 85520809984ULL;
    device.l2CacheSize = 52428800;
    device.numThreadsPerWarp = 32;
    device.coreClockRate = 1980000;
    device.numMemcpyEngines = 5;
    device.numMultiprocessors = 132;
    device.maxWarpsPerMultiprocessor = 64;
    device.maxBlocksPerMultiprocessor = 32;
    device.maxSharedMemoryPerMultiprocessor = 233472;
    device.maxRegistersPerMultiprocessor = 65536;
    device.maxRegistersPerBlock = 65536;
    device.maxSharedMemoryPerBlock = 49152;
    device.maxThreadsPerBlock = 1024;
    device.computeCapabilityMajor = 9;
    device.computeCapabilityMinor = 0;
    device.id = 0;
    for (int i = 0; i < 16; i++)
        device.uuid.bytes[i] = (char)(0x10 + i);
    device.name = "NVIDIA H100 80GB HBM3";
    error_info err;
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&device, &err), 0);
    CHECK_ROW(
        db,
        "SELECT process_id, device_id, pci_bus_id, sm_count, compute_capability_major,"
        " compute_capability_minor, max_blocks_per_sm, max_warps_per_sm, max_threads_per_sm,"
        " max_threads_per_block, max_registers_per_sm, max_registers_per_block, max_shared_memory_per_sm,"
        " max_shared_memory_per_block, max_shared_memory_per_block_optin, global_memory_bytes,"
        " global_memory_bandwidth_kbps, l2_cache_bytes, core_clock_khz, copy_engine_count, warp_size"
        " FROM devices",
        1, 0, NUL, 132, 9, 0, 32, 64, 64 * 32, 1024, 65536, 65536, 233472, 49152, NUL, 85520809984LL,
        3352000000LL, 52428800, 1980000, 5, 32);
    check_text(db, "SELECT name FROM devices", "NVIDIA H100 80GB HBM3");
    check_text(db, "SELECT uuid FROM devices", "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
}

static void convert_kernels(cupti_convert *converter, sqlite3 *db)
{
    error_info err;
    static const char nccl_name[] =
        "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
    CUpti_ActivityKernel10 plain = make_kernel("_Z10add_kernelPfS_S_i", 13, 100, 1000000);
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&plain, &err), 0);
    CUpti_ActivityKernel10 graphed = make_kernel("_Z10add_kernelPfS_S_i", 7, 101, 2000000);
    graphed.queued = CUPTI_TIMESTAMP_UNKNOWN;
    graphed.submitted = CUPTI_TIMESTAMP_UNKNOWN;
    graphed.graphId = 4;
    graphed.graphNodeId = 77;
    graphed.channelID = CUPTI_INVALID_CHANNEL_ID;
    graphed.isDeviceLaunched = 1;
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&graphed, &err), 0);
    CUpti_ActivityKernel10 nccl = make_kernel(nccl_name, 14, 102, 3000000);
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&nccl, &err), 0);
    /* Still running when a forced flush handed its buffer over: counted, not stored. */
    int64_t kernels_before = cupti_convert_counts(converter)->kernels;
    CUpti_ActivityKernel10 running = make_kernel("_Z10add_kernelPfS_S_i", 13, 103, 4000000);
    running.end = 0;
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&running, &err), 0);
    CUpti_ActivityKernel10 unstarted = make_kernel("_Z10add_kernelPfS_S_i", 13, 104, 0);
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&unstarted, &err), 0);
    CHECK_INT(cupti_convert_counts(converter)->kernels, kernels_before);
    CHECK_INT(cupti_convert_counts(converter)->incomplete_records, 2);
    static const char *const kernel_columns =
        "SELECT process_id, device_id, context_id, stream_id, correlation_id, start_ns, end_ns, queued_ns,"
        " submitted_ns, grid_x, grid_y, grid_z, block_x, block_y, block_z, cluster_x, cluster_y, cluster_z,"
        " registers_per_thread, static_shared_bytes, dynamic_shared_bytes, local_memory_per_thread_bytes,"
        " local_memory_total_bytes, shared_memory_executed_bytes, shared_memory_config, launch_type,"
        " is_device_launched, graph_id, graph_node_id, channel_id, channel_type, priority FROM kernels"
        " WHERE correlation_id = ";
    char sql[1024];
    snprintf(sql, sizeof sql, "%s100", kernel_columns);
    CHECK_ROW(db, sql, 1, 0, 1, 13, 100, 1000000, 1005000, 999100, 999600, 24, 2, 3, 544, 1, 1, 2, 1, 1, 40,
              1024, 2048, 16, 5000000000LL, 65536, 2, 1, 0, NUL, NUL, 3, 1, -2);
    snprintf(sql, sizeof sql, "%s101", kernel_columns);
    CHECK_ROW(db, sql, 1, 0, 1, 7, 101, 2000000, 2005000, NUL, NUL, 24, 2, 3, 544, 1, 1, 2, 1, 1, 40, 1024,
              2048, 16, 5000000000LL, 65536, 2, 1, 1, 4, 77, NUL, 1, NUL);
    check_text(db,
               "SELECT s.value FROM kernels k JOIN strings s ON s.id = k.name_id WHERE correlation_id = 100",
               "_Z10add_kernelPfS_S_i");
    check_text(db,
               "SELECT s.value FROM kernels k JOIN strings s ON s.id = k.name_id WHERE correlation_id = 102",
               nccl_name);
    /* Only the NCCL kernel has a collective; it points at its kernel's rowid. */
    CHECK_INT(count(db, "SELECT COUNT(*) FROM collectives"), 1);
    CHECK_ROW(
        db,
        "SELECT c.process_id, c.device_id, c.stream_id, c.bytes, c.element_count, c.root, c.rank, c.nranks,"
        " c.sequence_number, c.kernel_rowid = k.rowid, c.start_ns, c.end_ns, c.detail_source"
        " FROM collectives c JOIN kernels k ON k.correlation_id = 102",
        1, 0, 14, NUL, NUL, NUL, NUL, NUL, NUL, 1, 3000000, 3005000, STORE_DETAIL_KERNEL_NAME);
    check_text(db, "SELECT op FROM collectives", "AllReduce");
    check_text(db, "SELECT dtype FROM collectives", "f32");
    check_text(db, "SELECT algorithm FROM collectives", "RING");
    check_text(db, "SELECT protocol FROM collectives", "LL");
    CHECK_INT(count(db, "SELECT COUNT(*) FROM collectives WHERE communicator IS NULL"), 1);
}

static void convert_copies_and_syncs(cupti_convert *converter, sqlite3 *db)
{
    error_info err;
    CUpti_ActivityMemcpy6 copy;
    memset(&copy, 0, sizeof copy);
    copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    copy.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
    copy.bytes = 67108864;
    copy.start = 4000000;
    copy.end = 31000000;
    copy.deviceId = 0;
    copy.contextId = 1;
    copy.streamId = 13;
    copy.correlationId = 200;
    copy.graphNodeId = 0;
    copy.graphId = 0;
    copy.channelID = 5;
    copy.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
    copy.copyCount = 0; /* CUPTI leaves it 0 for a single copy */
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&copy, &err), 0);
    CHECK_ROW(db, "SELECT * FROM memcpys", 1, 0, 1, 13, 200, 4000000, 31000000, 1, 1, 3, 67108864, NUL, NUL,
              1, 5, 2, 1, NUL, NUL);

    CUpti_ActivityMemset4 set;
    memset(&set, 0, sizeof set);
    set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    set.value = 0xab;
    set.bytes = 4096;
    set.start = 32000000;
    set.end = 32001000;
    set.deviceId = 0;
    set.contextId = 1;
    set.streamId = 7;
    set.correlationId = 201;
    set.flags = 0; /* synchronous memset */
    set.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    set.graphNodeId = 8;
    set.graphId = 2;
    set.channelID = 0;
    set.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&set, &err), 0);
    CHECK_ROW(db, "SELECT * FROM memsets", 1, 0, 1, 7, 201, 32000000, 32001000, 0xab, 4096, 3, 0, 0, 1, 2, 8);

    CUpti_ActivitySynchronization2 wait;
    memset(&wait, 0, sizeof wait);
    wait.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    wait.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
    wait.start = 33000000;
    wait.end = 33000100;
    wait.correlationId = 202;
    wait.contextId = 1;
    wait.streamId = 14;
    wait.cudaEventId = 3;
    wait.cudaEventSyncId = 1;
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&wait, &err), 0);
    CUpti_ActivitySynchronization2 context_sync = wait;
    context_sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    context_sync.correlationId = 203;
    context_sync.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
    context_sync.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&context_sync, &err), 0);
    CHECK_ROW(db, "SELECT * FROM synchronizations WHERE correlation_id = 202", 1, 1, 14, 3, 2, 202, 33000000,
              33000100);
    CHECK_ROW(db, "SELECT * FROM synchronizations WHERE correlation_id = 203", 1, 1, NUL, NUL, 4, 203,
              33000000, 33000100);

    CUpti_ActivityCudaEvent2 event;
    memset(&event, 0, sizeof event);
    event.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
    event.correlationId = 204;
    event.contextId = 1;
    event.streamId = 13;
    event.eventId = 3;
    event.deviceId = 0;
    event.deviceTimestamp = 0; /* unknown */
    event.cudaEventSyncId = 1;
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&event, &err), 0);
    CHECK_ROW(db, "SELECT * FROM cuda_events", 1, 0, 1, 13, 3, 204, NUL);
}

static void convert_api_calls(cupti_convert *converter, sqlite3 *db)
{
    error_info err;
    CUpti_ActivityAPI launch = {.kind = CUPTI_ACTIVITY_KIND_RUNTIME,
                                .cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                .start = 900000,
                                .end = 905000,
                                .processId = 4242,
                                .threadId = 4243,
                                .correlationId = 100,
                                .returnValue = 0};
    CUpti_ActivityAPI copy = {.kind = CUPTI_ACTIVITY_KIND_DRIVER,
                              .cbid = 279,
                              .start = 3900000,
                              .end = 3910000,
                              .processId = 4242,
                              .threadId = 4244,
                              .correlationId = 200,
                              .returnValue = 1};
    CUpti_ActivityAPI unnamed = {.kind = CUPTI_ACTIVITY_KIND_DRIVER,
                                 .cbid = 5000,
                                 .start = 1,
                                 .end = 2,
                                 .threadId = 1,
                                 .correlationId = 300};
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&launch, &err), 0);
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&copy, &err), 0);
    CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&unnamed, &err), 0);
    CHECK_ROW(db,
              "SELECT process_id, thread_id, api_domain, callback_id, correlation_id, start_ns, end_ns,"
              " return_value FROM api_calls WHERE correlation_id = 100",
              1, 4243, 1, 211, 100, 900000, 905000, 0);
    CHECK_ROW(db,
              "SELECT process_id, thread_id, api_domain, callback_id, correlation_id, start_ns, end_ns,"
              " return_value FROM api_calls WHERE correlation_id = 200",
              1, 4244, 2, 279, 200, 3900000, 3910000, 1);
    check_text(
        db, "SELECT s.value FROM api_calls a JOIN strings s ON s.id = a.name_id WHERE correlation_id = 100",
        "cudaLaunchKernel");
    check_text(
        db, "SELECT s.value FROM api_calls a JOIN strings s ON s.id = a.name_id WHERE correlation_id = 200",
        "cuMemcpyHtoDAsync_v2");
    check_text(
        db, "SELECT s.value FROM api_calls a JOIN strings s ON s.id = a.name_id WHERE correlation_id = 300",
        "driver#5000");
}

/* Records the collector's callbacks make (host_calls.c): a stream wait on an event recorded on
 * another stream, a device synchronize, and a driver launch. Rows as CUPTI's would be, the event
 * id being the handle value. */
static void convert_host_calls(cupti_convert *converter, sqlite3 *db)
{
    error_info err;
    const uint64_t event = 0x7f00deadbee0;
    struct host_call_record record_event = {.start_ns = 5000000,
                                            .end_ns = 5000400,
                                            .event = event,
                                            .correlation_id = 700,
                                            .thread_id = 4250,
                                            .callback_id = 135, /* cudaEventRecord_v3020 */
                                            .context_id = 1,
                                            .device_id = 0,
                                            .stream_id = 13,
                                            .domain = HOST_CALL_RUNTIME,
                                            .what = HOST_CALL_API | HOST_CALL_EVENT};
    struct host_call_record wait = {.start_ns = 5001000,
                                    .end_ns = 5001200,
                                    .event = event,
                                    .correlation_id = 701,
                                    .thread_id = 4250,
                                    .callback_id = 147,
                                    .context_id = 1,
                                    .device_id = HOST_CALL_NO_DEVICE,
                                    .stream_id = 14,
                                    .domain = HOST_CALL_RUNTIME,
                                    .what = HOST_CALL_API | HOST_CALL_SYNC,
                                    .sync_type = 2};
    struct host_call_record device_sync = {.start_ns = 5002000,
                                           .end_ns = 5900000,
                                           .correlation_id = 702,
                                           .thread_id = 4251,
                                           .callback_id = 165,
                                           .context_id = 1,
                                           .device_id = HOST_CALL_NO_DEVICE,
                                           .stream_id = HOST_CALL_NO_STREAM,
                                           .return_value = 0,
                                           .domain = HOST_CALL_RUNTIME,
                                           .what = HOST_CALL_SYNC,
                                           .sync_type = 4};
    struct host_call_record driver = {.start_ns = 6000000,
                                      .end_ns = 6000300,
                                      .correlation_id = 703,
                                      .thread_id = 4252,
                                      .callback_id = 279,
                                      .context_id = 1,
                                      .device_id = HOST_CALL_NO_DEVICE,
                                      .stream_id = HOST_CALL_NO_STREAM,
                                      .return_value = 2,
                                      .domain = HOST_CALL_DRIVER,
                                      .what = HOST_CALL_API};
    CHECK_INT(cupti_convert_host_call(converter, &record_event, &err), 0);
    CHECK_INT(cupti_convert_host_call(converter, &wait, &err), 0);
    CHECK_INT(cupti_convert_host_call(converter, &device_sync, &err), 0);
    CHECK_INT(cupti_convert_host_call(converter, &driver, &err), 0);
    CHECK_ROW(db,
              "SELECT process_id, device_id, context_id, stream_id, event_id, correlation_id, record_ns"
              " FROM cuda_events WHERE correlation_id = 700",
              1, 0, 1, 13, (int64_t)event, 700, NUL);
    CHECK_ROW(
        db,
        "SELECT process_id, context_id, stream_id, event_id, sync_type, correlation_id, start_ns, end_ns"
        " FROM synchronizations WHERE correlation_id = 701",
        1, 1, 14, (int64_t)event, 2, 701, 5001000, 5001200);
    CHECK_ROW(
        db,
        "SELECT process_id, context_id, stream_id, event_id, sync_type, correlation_id, start_ns, end_ns"
        " FROM synchronizations WHERE correlation_id = 702",
        1, 1, NUL, NUL, 4, 702, 5002000, 5900000);
    /* The event record and the wait are API rows too; the device synchronize is not (what). */
    CHECK_ROW(db,
              "SELECT thread_id, api_domain, callback_id, start_ns, end_ns, return_value FROM api_calls"
              " WHERE correlation_id = 701",
              4250, 1, 147, 5001000, 5001200, 0);
    CHECK_INT(count(db, "SELECT count(*) FROM api_calls WHERE correlation_id IN (700, 701, 702)"), 2);
    CHECK_ROW(db,
              "SELECT thread_id, api_domain, callback_id, start_ns, end_ns, return_value FROM api_calls"
              " WHERE correlation_id = 703",
              4252, 2, 279, 6000000, 6000300, 2);
    check_text(
        db, "SELECT s.value FROM api_calls a JOIN strings s ON s.id = a.name_id WHERE correlation_id = 703",
        "cuMemcpyHtoDAsync_v2");
}

static CUpti_ActivityMarker2 marker(uint32_t flags, uint32_t id, uint64_t time, uint32_t thread,
                                    const char *name, const char *domain)
{
    CUpti_ActivityMarker2 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m.flags = (CUpti_ActivityFlag)flags;
    m.timestamp = time;
    m.id = id;
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.processId = 4242;
    m.objectId.pt.threadId = thread;
    m.name = name;
    m.domain = domain;
    return m;
}

static void convert_nvtx(cupti_convert *converter, sqlite3 *db)
{
    error_info err;
    /* step (push) > forward (push, colour and category) ; a mark ; a start/end range that ends
     * after a later range started on its thread; an open range at the end. */
    CUpti_ActivityMarker2 records[] = {
        marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 10000, 77, "step", NULL),
        marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, 11000, 77, "forward", "training"),
        marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 15000, 77, NULL, NULL),
        marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 3, 16000, 77, "checkpoint", ""),
        marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 20000, 77, NULL, NULL),
        marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 4, 30000, 78, "load", NULL),
        marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 5, 31000, 78, "decode", NULL),
        marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 4, 35000, 78, NULL, NULL),
        marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 6, 40000, 79, "never closed", NULL),
    };
    CUpti_ActivityMarkerData2 data;
    memset(&data, 0, sizeof data);
    data.kind = CUPTI_ACTIVITY_KIND_MARKER_DATA;
    data.flags = CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB;
    data.id = 2;
    data.color = 0xff00ff00;
    data.category = 12;
    for (size_t i = 0; i < sizeof records / sizeof records[0]; i++) {
        CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&records[i], &err), 0);
        if (i == 1)
            CHECK_INT(cupti_convert_record(converter, (CUpti_Activity *)&data, &err), 0);
    }
    /* columns: process, thread, device, stream, kind, category, color, start, end, depth */
    static const char columns[] =
        "SELECT n.process_id, n.thread_id, n.device_id, n.stream_id, n.kind, n.category,"
        " n.color, n.start_ns, n.end_ns, n.depth FROM nvtx n JOIN strings m"
        " ON m.id = n.message_id WHERE m.value = ";
    char sql[512];
    snprintf(sql, sizeof sql, "%s'step'", columns);
    CHECK_ROW(db, sql, 1, 77, NUL, NUL, STORE_NVTX_PUSH_POP, NUL, NUL, 10000, 20000, 0);
    snprintf(sql, sizeof sql, "%s'forward'", columns);
    CHECK_ROW(db, sql, 1, 77, NUL, NUL, STORE_NVTX_PUSH_POP, 12, 0xff00ff00LL, 11000, 15000, 1);
    snprintf(sql, sizeof sql, "%s'checkpoint'", columns);
    CHECK_ROW(db, sql, 1, 77, NUL, NUL, STORE_NVTX_MARK, NUL, NUL, 16000, 16000, NUL);
    snprintf(sql, sizeof sql, "%s'load'", columns);
    CHECK_ROW(db, sql, 1, 78, NUL, NUL, STORE_NVTX_START_END, NUL, NUL, 30000, 35000, NUL);
    check_text(db, "SELECT d.value FROM nvtx n JOIN strings d ON d.id = n.domain_id", "training");
    CHECK_INT(count(db, "SELECT COUNT(*) FROM nvtx WHERE domain_id IS NULL"), 3);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM nvtx"), 4); /* decode and never-closed still open */
}

int main(void)
{
    char directory[] = "/tmp/overlapscope-convert-XXXXXX";
    if (!mkdtemp(directory))
        return 1;
    char path[256];
    snprintf(path, sizeof path, "%s/proc.db", directory);
    error_info err;
    store *trace = store_create(path, STORE_FAST_UNSAFE, &err);
    if (!trace) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    struct store_process process = {.pid = 4242,
                                    .parent_pid = 1,
                                    .rank = STORE_NULL,
                                    .local_rank = STORE_NULL,
                                    .world_size = STORE_NULL,
                                    .start_ns = 0,
                                    .end_ns = STORE_NULL,
                                    .exit_status = STORE_NULL,
                                    .term_signal = STORE_NULL};
    CHECK_INT(store_insert_process(trace, &process, &err), 0);
    cupti_convert *converter = cupti_convert_new(trace, process.process_id, test_namer, NULL);
    sqlite3 *db = store_db(trace);
    convert_streams_and_contexts(converter, db);
    convert_device(converter, db);
    convert_kernels(converter, db);
    convert_copies_and_syncs(converter, db);
    convert_api_calls(converter, db);
    convert_host_calls(converter, db);
    convert_nvtx(converter, db);

    mark_per_thread_streams(converter, db);

    CUpti_Activity overhead = {.kind = CUPTI_ACTIVITY_KIND_OVERHEAD};
    CHECK_INT(cupti_convert_record(converter, &overhead, &err), 0);
    CHECK_INT(cupti_convert_finish(converter, &err), 0);
    /* At finish: the orphan stream with device NULL; open ranges end at the last time seen
     * (the copy's end, 33000100 is later... the latest end of any record). */
    CHECK_ROW(db,
              "SELECT process_id, device_id, context_id, stream_id, is_legacy_default, "
              "is_per_thread_default, priority, flags FROM streams WHERE stream_id = 90",
              1, NUL, 9, 90, 1, 0, 0, 3);
    CHECK_ROW(db, STREAM_COLUMNS "WHERE stream_id = 91", 1, NUL, 9, 91, 0, 1, NUL, NUL);
    CHECK_ROW(db,
              "SELECT n.start_ns, n.end_ns, n.depth, n.kind FROM nvtx n JOIN strings m ON m.id = n.message_id"
              " WHERE m.value = 'never closed'",
              40000, 33000100, 0, STORE_NVTX_PUSH_POP);
    CHECK_ROW(db,
              "SELECT n.start_ns, n.end_ns, n.depth FROM nvtx n JOIN strings m ON m.id = n.message_id"
              " WHERE m.value = 'decode'",
              31000, 33000100, 1);
    const struct cupti_convert_counts *counts = cupti_convert_counts(converter);
    CHECK_INT(counts->kernels, 3);
    CHECK_INT(counts->collectives, 1);
    CHECK_INT(counts->memcpys, 1);
    CHECK_INT(counts->memsets, 1);
    CHECK_INT(counts->synchronizations, 2 + 2); /* + convert_host_calls' */
    CHECK_INT(counts->cuda_events, 1 + 1);
    CHECK_INT(counts->api_calls, 3 + 3);
    CHECK_INT(counts->devices, 1);
    CHECK_INT(counts->contexts, 1);
    CHECK_INT(counts->streams, 6);
    CHECK_INT(counts->nvtx, 6);
    CHECK_INT(counts->skipped_records, 3); /* the OVERHEAD record and the two incomplete kernels */
    CHECK_INT(counts->foreign_records, 1); /* the OVERHEAD record: a kind the collector never enables */
    CHECK_INT(count(db, "SELECT COUNT(*) FROM streams"), 6);

    /* --no-nccl: the same NCCL kernel, no collective. */
    cupti_convert *quiet = cupti_convert_new(trace, process.process_id, NULL, NULL);
    cupti_convert_set_nccl(quiet, 0);
    CUpti_ActivityKernel10 nccl = make_kernel("ncclDevKernel_SendRecv", 14, 400, 5000000);
    CHECK_INT(cupti_convert_kernel(quiet, &nccl, &err), 0);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM collectives"), 1);
    cupti_convert_free(quiet);

    cupti_convert_free(converter);
    CHECK_INT(store_close(trace, &err), 0);
    unlink(path);
    rmdir(directory);
    return check_finish();
}
