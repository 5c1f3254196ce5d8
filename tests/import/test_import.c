/* test_import.c: importing the real Kineto traces of tests/data/kineto (counts computed
 * independently with python3's json module), exact time conversion, NCCL metadata, an
 * Nsight-Systems-shaped fixture with the export's real table and column names, and refusals. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "import.h"
#include "json_stream.h"
#include "store.h"

static char directory[] = "/tmp/overlapscope-test-import-XXXXXX";
static const char *data_directory;

static const char *path_in(const char *name)
{
    static char paths[16][512];
    static int next;
    char *path = paths[next++ % 16];
    snprintf(path, 512, "%s/%s", directory, name);
    return path;
}

static const char *data_file(const char *name)
{
    static char paths[16][512];
    static int next;
    char *path = paths[next++ % 16];
    snprintf(path, 512, "%s/kineto/%s", data_directory, name);
    return path;
}

static int64_t query_int(store *trace, const char *sql)
{
    sqlite3_stmt *query = NULL;
    int64_t value = -999;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        value = sqlite3_column_type(query, 0) == SQLITE_NULL ? -777 : sqlite3_column_int64(query, 0);
    else
        fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(store_db(trace)));
    sqlite3_finalize(query);
    return value;
}

static char text_result[512];
static const char *query_text(store *trace, const char *sql)
{
    sqlite3_stmt *query = NULL;
    snprintf(text_result, sizeof text_result, "(no row)");
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        snprintf(text_result, sizeof text_result, "%s",
                 sqlite3_column_text(query, 0) ? (const char *)sqlite3_column_text(query, 0) : "(null)");
    sqlite3_finalize(query);
    return text_result;
}

/* Imports inputs into a fresh trace and opens it; NULL (with the reason printed) on failure. */
static store *import_into(const char *output, char *const *inputs, int count)
{
    error_info err = {{0}};
    struct import_options options = {.force = 1};
    int imported = import_run(output, inputs, count, &options, &err);
    if (imported != count) {
        fprintf(stderr, "import failed: %s\n", err.message);
        return NULL;
    }
    store *trace = store_open(output, 1, &err);
    if (!trace)
        fprintf(stderr, "open failed: %s\n", err.message);
    return trace;
}

/* Counts computed with: python3 -c 'import json,gzip; ev=json.load(gzip.open(F))["traceEvents"]; ...'
 * counting events per cat; collectives = kernels named nccl* or with a "Collective name" arg. */
static void test_counts_of_real_traces(void)
{
    static const struct {
        const char *file;
        int64_t kernels, memcpys, memsets, api_calls, nvtx, syncs, collectives, rank;
    } expected[] = {
        {"nccl_data.json.gz", 2700, 960, 114, 8740, 72, 0, 21, 0},
        {"sampled_rank-0.json.gz", 1154, 40, 10, 1204, 73, 0, 10, 0},
        {"sampled_rank-1.json.gz", 1104, 40, 10, 1154, 65, 0, 10, 1},
        {"amd_mi250_rocm.json.gz", 14, 2, 0, 21, 5, 0, 0, -777},
        {"simple_add_two_streams.json.gz", 79, 16, 3, 331, 8, 41, 0, 0},
        {"event_sync_multi_stream.json.gz", 3, 0, 3, 39, 0, 5, 0, 0},
        {"cpu_only.json.gz", 0, 0, 0, 0, 11, 0, 0, 34},
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        char *input = (char *)data_file(expected[i].file);
        store *trace = import_into(path_in("counts.db"), &input, 1);
        CHECK(trace != NULL);
        if (!trace)
            continue;
        fprintf(stderr, "  %s\n", expected[i].file);
        CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM kernels"), expected[i].kernels);
        CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM memcpys"), expected[i].memcpys);
        CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM memsets"), expected[i].memsets);
        CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM api_calls"), expected[i].api_calls);
        CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM nvtx"), expected[i].nvtx);
        CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM synchronizations"), expected[i].syncs);
        CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM collectives"), expected[i].collectives);
        CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM processes"), 1);
        CHECK_INT(query_int(trace, "SELECT rank FROM processes"), expected[i].rank);
        /* Every GPU op links to its launch when the trace has both. */
        if (expected[i].api_calls > 0 && expected[i].kernels > 0)
            CHECK(query_int(
                      trace,
                      "SELECT COUNT(*) FROM kernels k JOIN api_calls a USING (process_id, correlation_id)") >
                  0);
        store_close(trace, NULL);
    }
}

static void test_nccl_metadata_and_exact_time(void)
{
    char *input = (char *)data_file("nccl_data.json.gz");
    store *trace = import_into(path_in("nccl.db"), &input, 1);
    CHECK(trace != NULL);
    if (!trace)
        return;
    /* The first collective: ncclKernel_Broadcast_RING_LL_Sum_int8_t, correlation 19832, ts
     * 4458676423385.774 us, dur 30.975 us, In msg nelems 53120, dtype Float; baseTimeNanoseconds
     * 1711964646000000000 comes after traceEvents in the file. */
    CHECK_STR(query_text(trace, "SELECT op FROM collectives ORDER BY start_ns LIMIT 1"), "Broadcast");
    CHECK_INT(query_int(trace, "SELECT bytes FROM collectives ORDER BY start_ns LIMIT 1"), 53120 * 4);
    CHECK_INT(query_int(trace, "SELECT element_count FROM collectives ORDER BY start_ns LIMIT 1"), 53120);
    CHECK_STR(query_text(trace, "SELECT dtype FROM collectives ORDER BY start_ns LIMIT 1"), "f32");
    CHECK_STR(
        query_text(trace, "SELECT algorithm || '/' || protocol FROM collectives ORDER BY start_ns LIMIT 1"),
        "RING/LL");
    CHECK_STR(query_text(trace, "SELECT communicator FROM collectives ORDER BY start_ns LIMIT 1"), "0");
    CHECK_INT(query_int(trace, "SELECT nranks FROM collectives ORDER BY start_ns LIMIT 1"), 2);
    CHECK_INT(query_int(trace, "SELECT rank FROM collectives ORDER BY start_ns LIMIT 1"), 0);
    CHECK_INT(query_int(trace, "SELECT detail_source FROM collectives ORDER BY start_ns LIMIT 1"),
              STORE_DETAIL_KINETO);
    CHECK_INT(query_int(trace, "SELECT start_ns FROM collectives ORDER BY start_ns LIMIT 1"),
              4458676423385774LL + 1711964646000000000LL);
    CHECK_INT(query_int(trace, "SELECT end_ns - start_ns FROM collectives ORDER BY start_ns LIMIT 1"), 30975);
    CHECK_INT(
        query_int(trace,
                  "SELECT k.correlation_id FROM collectives c JOIN kernels k ON k.rowid = c.kernel_rowid"
                  " ORDER BY c.start_ns LIMIT 1"),
        19832);
    /* 15 allreduces of f32: sum of In msg nelems x 4 (python3 over the same file). */
    CHECK_INT(query_int(trace, "SELECT SUM(bytes) FROM collectives WHERE op = 'AllReduce'"), 306684384);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM collectives WHERE op = 'AllReduce'"), 15);
    /* Device limits from deviceProperties (A100: 108 SMs, 2048 threads and 164 KiB per SM). */
    CHECK_INT(query_int(trace, "SELECT sm_count FROM devices WHERE device_id = 0"), 108);
    CHECK_INT(query_int(trace, "SELECT max_warps_per_sm FROM devices WHERE device_id = 0"), 64);
    CHECK_INT(query_int(trace, "SELECT max_blocks_per_sm FROM devices WHERE device_id = 0"), 32);
    CHECK_INT(query_int(trace, "SELECT max_shared_memory_per_sm FROM devices WHERE device_id = 0"), 167936);
    CHECK_INT(query_int(trace, "SELECT max_registers_per_sm FROM devices WHERE device_id = 0"), 65536);
    /* Kernel launch configuration from args (grid [8,1,1], block [544,1,1], 96 registers). */
    CHECK_INT(query_int(trace, "SELECT grid_x * 10000 + block_x FROM kernels WHERE correlation_id = 60047"),
              80544);
    CHECK_INT(query_int(trace, "SELECT registers_per_thread FROM kernels WHERE correlation_id = 60047"), 96);
    CHECK_STR(query_text(trace, "SELECT label FROM streams WHERE stream_id = 40"), "nccl");
    CHECK_STR(query_text(trace, "SELECT value FROM meta WHERE key = 'source'"), "kineto");
    store_close(trace, NULL);
}

static void test_other_vendor_and_cpu_only_warn(void)
{
    char *inputs[] = {(char *)data_file("amd_mi250_rocm.json.gz"), (char *)data_file("cpu_only.json.gz")};
    store *trace = import_into(path_in("two.db"), inputs, 2);
    CHECK(trace != NULL);
    if (!trace)
        return;
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM processes"), 2);
    CHECK(query_int(trace, "SELECT COUNT(*) FROM warnings WHERE code = 'import-other-vendor'") >= 1);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM warnings WHERE code = 'import-no-gpu-activity'"), 1);
    CHECK_INT(query_int(trace, "SELECT max_blocks_per_sm IS NULL FROM devices LIMIT 1"), 1);
    store_close(trace, NULL);
}

/* A PyTorch 1.x trace (tests/data/kineto/README.md: pytorch_1x_format.json) imports whole: the
 * old categories as today's, streams from "stream N" tids, peer copies' devices, "Pagable", the
 * steps PyTorch 1.x wrote as operators, and V100s (named without "NVIDIA") as NVIDIA GPUs. */
static void test_pytorch_1x_trace(void)
{
    char *input = (char *)data_file("pytorch_1x_format.json");
    store *trace = import_into(path_in("1x.db"), &input, 1);
    CHECK(trace != NULL);
    if (!trace)
        return;
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM kernels"), 2);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM memcpys"), 2);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM memsets"), 1);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM api_calls"), 2);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM synchronizations"), 0);
    CHECK_INT(query_int(trace,
                        "SELECT COUNT(*) FROM kernels k JOIN api_calls a USING (process_id, correlation_id)"),
              1);
    CHECK_INT(query_int(trace, "SELECT stream_id FROM kernels WHERE correlation_id = 104"), 7);
    CHECK_INT(query_int(trace, "SELECT grid_x * 1000 + block_x FROM kernels WHERE correlation_id = 100"),
              40256);
    CHECK_INT(query_int(trace, "SELECT end_ns - start_ns FROM kernels WHERE correlation_id = 100"), 100000);
    CHECK_INT(query_int(trace, "SELECT src_kind * 10 + dst_kind FROM memcpys WHERE correlation_id = 101"),
              STORE_MEMORY_PAGEABLE * 10 + STORE_MEMORY_DEVICE);
    CHECK_INT(
        query_int(trace, "SELECT src_device_id * 10 + dst_device_id FROM memcpys WHERE correlation_id = 102"),
        1);
    CHECK_INT(query_int(trace, "SELECT memory_kind FROM memsets"), STORE_MEMORY_DEVICE);
    CHECK_STR(query_text(trace, "SELECT group_concat(value, ',') FROM (SELECT s.value FROM nvtx n"
                                " JOIN strings s ON s.id = n.message_id ORDER BY n.start_ns, s.value)"),
              "ProfilerStep#1,forward");
    CHECK_INT(query_int(trace, "SELECT stream_id FROM nvtx WHERE device_id = 0"), 7);
    CHECK_INT(query_int(trace, "SELECT pid FROM processes"), 4242);
    CHECK_INT(query_int(trace, "SELECT max_blocks_per_sm FROM devices WHERE device_id = 0"), 32);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM warnings WHERE code IN ('import-other-vendor',"
                               " 'import-unknown-category', 'import-skipped')"),
              0);
    /* no cuda_sync events: one warning, naming the profiler option that records them */
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM warnings WHERE code = 'import-no-cuda-sync'"), 1);
    CHECK_CONTAINS(
        query_text(trace, "SELECT message FROM warnings WHERE code = 'import-no-cuda-sync'"),
        "experimental_config=torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)");
    store_close(trace, NULL);
}

/* The cuda_sync warning is for NVIDIA traces without them only. */
static void test_cuda_sync_warning_only_when_missing(void)
{
    static const struct {
        const char *file;
        int64_t warnings;
    } expected[] = {{"simple_add_two_streams.json.gz", 0}, /* 41 cuda_sync events */
                    {"amd_mi250_rocm.json.gz", 0},         /* another vendor: no such option */
                    {"cpu_only.json.gz", 0},               /* no GPU activity at all */
                    {"sampled_rank-0.json.gz", 1}};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        char *input = (char *)data_file(expected[i].file);
        store *trace = import_into(path_in("sync.db"), &input, 1);
        CHECK(trace != NULL);
        if (!trace)
            continue;
        CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM warnings WHERE code = 'import-no-cuda-sync'"),
                  expected[i].warnings);
        store_close(trace, NULL);
    }
}

static int64_t scaled(const char *text, int scale)
{
    int64_t value = -424242;
    if (json_decimal_scaled(text, strlen(text), scale, &value) != 0)
        return -424242;
    return value;
}

static void test_decimal_conversion(void)
{
    CHECK_INT(scaled("4458677009853.422", 3), 4458677009853422LL);
    CHECK_INT(scaled("1682725898082228", 3), 1682725898082228000LL);
    CHECK_INT(scaled("30.975", 3), 30975);
    CHECK_INT(scaled("0.0005", 3), 1); /* 0.5 ns: halves round away from zero */
    CHECK_INT(scaled("0.00049", 3), 0);
    CHECK_INT(scaled("-2.5", 0), -3);
    CHECK_INT(scaled("1.5e3", 0), 1500);
    CHECK_INT(scaled("12E-1", 0), 1);
    CHECK_INT(scaled("0", 3), 0);
    CHECK_INT(scaled("9223372036854775807", 0), INT64_MAX);
    CHECK_INT(scaled("9223372036854775808", 0), -424242);
    CHECK_INT(scaled("-9223372036854775808", 0), INT64_MIN);
    CHECK_INT(scaled("1e400", 0), -424242);
    CHECK_INT(scaled("1e-400", 0), 0);
    CHECK_INT(scaled("01", 0), -424242);
    CHECK_INT(scaled("1.", 0), -424242);
    CHECK_INT(scaled("", 0), -424242);
}

/* Runs import on a file holding text; returns the error message (empty on success). */
static const char *import_text(const char *name, const char *text, size_t length)
{
    static error_info err;
    const char *input = path_in(name);
    FILE *file = fopen(input, "wb");
    fwrite(text, 1, length, file);
    fclose(file);
    char *inputs[] = {(char *)input};
    struct import_options options = {.force = 1};
    err.message[0] = '\0';
    if (import_run(path_in("bad-out.db"), inputs, 1, &options, &err) >= 0)
        err.message[0] = '\0';
    return err.message;
}

static void test_bad_inputs(void)
{
    static const char truncated[] =
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1";
    CHECK_CONTAINS(import_text("truncated.json", truncated, sizeof truncated - 1), "unexpected end of input");
    CHECK_CONTAINS(import_text("truncated.json", truncated, sizeof truncated - 1), "byte 66");
    static const char wrong_type[] =
        "{\"traceEvents\": [{}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
        " \"ts\": \"soon\", \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}}]}";
    CHECK_CONTAINS(import_text("wrong.json", wrong_type, sizeof wrong_type - 1), "traceEvents[1] (kernel)");
    CHECK_CONTAINS(import_text("wrong.json", wrong_type, sizeof wrong_type - 1), "'ts' is not a number");
    static const char no_dur[] =
        "[{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"m\", \"ts\": 5, \"pid\": 0, \"tid\": 7}]";
    CHECK_CONTAINS(import_text("nodur.json", no_dur, sizeof no_dur - 1), "without 'dur'");
    static const char garbage[] = "{\"traceEvents\": [{} {}]}";
    CHECK_CONTAINS(import_text("garbage.json", garbage, sizeof garbage - 1), "byte 20: expected ',' or ']'");
    CHECK_CONTAINS(import_text("empty.json", "", 0), "empty file");
    /* Found by fuzz_kineto: an empty string as the first string of a file. */
    CHECK_STR(import_text("empty-key.json", "[{\"\": \"\"}]", 10), "");
    static const char gzip_garbage[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage-not-deflate";
    CHECK_CONTAINS(import_text("garbage.json.gz", gzip_garbage, sizeof gzip_garbage - 1), "gzip");
    static const char unknown[] =
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"mystery\", \"ts\": 1, \"dur\": 1},"
        " {\"ph\": \"X\", \"cat\": \"mystery\", \"ts\": 2, \"dur\": 1}]}";
    CHECK_STR(import_text("unknown.json", unknown, sizeof unknown - 1), "");
    /* A PyTorch execution trace (ExecutionTraceObserver) is not a profiler trace: one line, naming
     * the file and what to pass instead. */
    static const char execution_trace[] =
        "{\"schema\": \"1.0.1\", \"pid\": 7, \"time\": \"2024-01-01 00:00:00\", \"start_ts\": 1,"
        " \"nodes\": [{\"name\": \"[pytorch|profiler|execution_graph|thread]\", \"id\": 1}], \"finished\": "
        "true}";
    const char *refusal = import_text("et.json", execution_trace, sizeof execution_trace - 1);
    CHECK_CONTAINS(refusal, "et.json: a PyTorch execution trace");
    CHECK_CONTAINS(refusal, "pass the torch.profiler trace");
    CHECK(strchr(refusal, '\n') == NULL);
    error_info err;
    store *trace = store_open(path_in("bad-out.db"), 1, &err);
    CHECK(trace != NULL);
    if (trace) {
        CHECK_CONTAINS(
            query_text(trace, "SELECT message FROM warnings WHERE code = 'import-unknown-category'"),
            "skipped 2 events of unknown categories: mystery (2)");
        store_close(trace, NULL);
    }
    /* A failed import leaves no output behind, not even a temporary file. */
    unlink(path_in("bad-out.db"));
    CHECK_CONTAINS(import_text("truncated.json", truncated, sizeof truncated - 1), "truncated");
    struct stat info;
    CHECK(stat(path_in("bad-out.db"), &info) != 0);
    char command[1024];
    snprintf(command, sizeof command, "ls -a %s | grep -q partial", directory);
    CHECK(system(command) != 0);
}

/* An Nsight Systems export in miniature: the export's own table and column names (nsys
 * "SQLite Export Schema Reference"), two processes, a kernel launched by a runtime call, an NCCL
 * kernel, a copy, a memset, a stream wait, NVTX ranges in a named domain, GPU limits. */
static void make_nsys_fixture(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_open(path, &db);
    const char *sql =
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);"
        "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation "
        "TEXT,"
        " isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate "
        "INTEGER,"
        " smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER,"
        " maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER,"
        " maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER,"
        " maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, computeMajor INTEGER,"
        " computeMinor INTEGER);"
        "CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER NOT NULL, pid INTEGER NOT NULL,"
        " uuid TEXT, numMultiprocessors INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER "
        "NOT NULL,"
        " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT "
        "NULL,"
        " mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,"
        " gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,"
        " blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,"
        " dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,"
        " localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER,"
        " graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER "
        "NOT NULL,"
        " correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,"
        " deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId "
        "INTEGER,"
        " dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER,"
        " virtualAddress INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER "
        "NOT NULL,"
        " correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL,"
        " graphNodeId INTEGER, memKind INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER "
        "NOT NULL,"
        " correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,"
        " returnValue INTEGER NOT NULL, callchainId INTEGER);"
        "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
        " rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid "
        "INTEGER,"
        " textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL,"
        " uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);"
        "INSERT INTO StringIds VALUES (1, 'gemm_kernel(float*)'), (2, 'gemm_kernel'),"
        " (3, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)'),"
        " (4, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (5, 'cudaLaunchKernel_v7000'), (6, 'forward');"
        "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');"
        "INSERT INTO TARGET_INFO_GPU (vmId, id, name, uuid, l2CacheSize, totalMemory, memoryBandwidth, "
        "clockRate,"
        " smCount, maxRegistersPerBlock, maxShmemPerBlock, maxShmemPerBlockOptin, maxShmemPerSm, "
        "maxRegistersPerSm,"
        " threadsPerWarp, asyncEngines, maxWarpsPerSm, maxBlocksPerSm, maxThreadsPerBlock, computeMajor,"
        " computeMinor) VALUES (0, 0, 'NVIDIA H100 80GB HBM3', 'GPU-1', 52428800, 85520809984, 3352320000000,"
        " 1980000000, 132, 65536, 49152, 232448, 233472, 65536, 32, 3, 64, 32, 1024, 9, 0);"
        /* Process 100 sees the GPU as device 0, process 200 as device 1 (CUDA_VISIBLE_DEVICES). */
        "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (0, 0, 100, 'GPU-1', 132), (0, 1, 200, 'GPU-1', 132);"
        /* globalPid = pid << 24; globalTid = pid << 24 | tid. */
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1500, 1, 1677721700, 11, 5, 0, NULL);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,"
        " globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, "
        "blockZ,"
        " staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId, "
        "launchType)"
        " VALUES (2000, 7000, 0, 1, 7, 11, 1677721600, 1, 2, 128, 264, 1, 1, 256, 1, 1, 1024, 49152, 0, 0, "
        "1, 0),"
        " (3000, 9000, 0, 1, 13, 12, 1677721600, 3, 4, 96, 16, 1, 1, 640, 1, 1, 0, 41744, 0, 0, 2, 0),"
        " (3100, 9100, 1, 1, 13, 5, 3355443200, 3, 4, 96, 16, 1, 1, 640, 1, 1, 0, 41744, 0, 0, 2, 0);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId,"
        " globalPid, bytes, copyKind, srcKind, dstKind) VALUES (100, 900, 0, 1, 14, 10, 1677721600, "
        "67108864, 1, 1, 3);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId,"
        " globalPid, value, bytes, memKind) VALUES (50, 60, 0, 1, 7, 9, 1677721600, 0, 4096, 3);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1600, 1700, 0, 1, NULL, 13, 13, 1677721600, "
        "2, 5),"
        " (9200, 9300, 0, 1, NULL, 4294967295, 14, 1677721600, 4, 4294967295);"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES"
        " (0, 0, 75, 'training', 1677721700, 1), (500, 9500, 59, 'step', 1677721700, 1), (600, 800, 59, NULL,"
        " 1677721700, 0), (700, NULL, 34, 'checkpoint', 1677721700, 0);"
        "UPDATE NVTX_EVENTS SET textId = 6 WHERE start = 600;";
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK)
        fprintf(stderr, "fixture: %s\n", message);
    sqlite3_free(message);
    sqlite3_close(db);
}

static void test_nsys_fixture(void)
{
    const char *fixture = path_in("report.sqlite");
    unlink(fixture);
    make_nsys_fixture(fixture);
    char *inputs[] = {(char *)fixture};
    store *trace = import_into(path_in("nsys.db"), inputs, 1);
    CHECK(trace != NULL);
    if (!trace)
        return;
    const int64_t session = 1700000000000000000LL;
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM processes"), 2);
    CHECK_INT(query_int(trace, "SELECT pid FROM processes ORDER BY process_id LIMIT 1"), 100);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM kernels"), 3);
    CHECK_STR(query_text(trace,
                         "SELECT value FROM strings s JOIN kernels k ON k.name_id = s.id ORDER BY k.start_ns"
                         " LIMIT 1"),
              "gemm_kernel(float*)");
    CHECK_INT(query_int(trace, "SELECT start_ns FROM kernels WHERE correlation_id = 11"), session + 2000);
    CHECK_INT(query_int(trace, "SELECT dynamic_shared_bytes FROM kernels WHERE correlation_id = 11"), 49152);
    CHECK_INT(query_int(trace, "SELECT grid_x * 1000 + block_x FROM kernels WHERE correlation_id = 11"),
              264256);
    CHECK_INT(query_int(trace, "SELECT thread_id FROM api_calls WHERE correlation_id = 11"), 100);
    CHECK_STR(query_text(trace, "SELECT value FROM strings s JOIN api_calls a ON a.name_id = s.id"),
              "cudaLaunchKernel_v7000");
    CHECK_INT(query_int(trace,
                        "SELECT COUNT(*) FROM collectives WHERE op = 'AllReduce' AND algorithm = 'RING'"
                        " AND protocol = 'LL' AND detail_source = 1"),
              2);
    CHECK_INT(query_int(trace, "SELECT copy_kind * 100 + src_kind * 10 + dst_kind FROM memcpys"), 113);
    CHECK_INT(query_int(trace, "SELECT bytes FROM memsets"), 4096);
    CHECK_INT(
        query_int(trace, "SELECT sync_type * 100 + event_id FROM synchronizations WHERE correlation_id = 13"),
        205);
    CHECK_INT(query_int(trace, "SELECT (stream_id IS NULL) + (event_id IS NULL) FROM synchronizations"
                               " WHERE correlation_id = 14"),
              2);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM nvtx"), 3);
    CHECK_STR(query_text(trace, "SELECT value FROM strings s JOIN nvtx n ON n.domain_id = s.id"), "training");
    CHECK_STR(query_text(trace,
                         "SELECT value FROM strings s JOIN nvtx n ON n.message_id = s.id WHERE n.start_ns = "
                         "1700000000000000600"),
              "forward");
    CHECK_INT(query_int(trace, "SELECT kind FROM nvtx WHERE end_ns = start_ns"), STORE_NVTX_MARK);
    CHECK_INT(query_int(trace, "SELECT COUNT(*) FROM devices"), 2);
    CHECK_INT(
        query_int(trace,
                  "SELECT d.device_id FROM devices d JOIN processes p USING (process_id) WHERE p.pid = 200"),
        1);
    CHECK_INT(query_int(trace, "SELECT max_threads_per_sm FROM devices LIMIT 1"), 2048);
    CHECK_INT(query_int(trace, "SELECT max_shared_memory_per_block_optin FROM devices LIMIT 1"), 232448);
    CHECK_INT(query_int(trace, "SELECT core_clock_khz FROM devices LIMIT 1"), 1980000);
    CHECK_STR(query_text(trace, "SELECT label FROM streams WHERE stream_id = 13 LIMIT 1"), "nccl");
    CHECK_STR(query_text(trace, "SELECT value FROM meta WHERE key = 'source'"), "nsys");
    store_close(trace, NULL);

    /* A foreign SQLite database is refused by name. */
    const char *foreign = path_in("foreign.sqlite");
    sqlite3 *db = NULL;
    sqlite3_open(foreign, &db);
    sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", NULL, NULL, NULL);
    sqlite3_close(db);
    error_info err = {{0}};
    char *foreign_input[] = {(char *)foreign};
    struct import_options options = {.force = 1};
    CHECK(import_run(path_in("foreign-out.db"), foreign_input, 1, &options, &err) < 0);
    CHECK_CONTAINS(err.message, "not an Nsight Systems export");
    CHECK_CONTAINS(err.message, "foreign.sqlite");
}

int main(void)
{
    data_directory = getenv("OVERLAPSCOPE_TEST_DATA");
    if (!data_directory || !mkdtemp(directory)) {
        fprintf(stderr, "OVERLAPSCOPE_TEST_DATA is not set or no temporary directory\n");
        return 1;
    }
    test_decimal_conversion();
    test_counts_of_real_traces();
    test_nccl_metadata_and_exact_time();
    test_other_vendor_and_cpu_only_warn();
    test_pytorch_1x_trace();
    test_cuda_sync_warning_only_when_missing();
    test_bad_inputs();
    test_nsys_fixture();
    char command[600];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
