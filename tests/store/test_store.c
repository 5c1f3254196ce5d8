/* test_store.c: the trace store's contract: create, write every table, read each column back,
 * and refuse every file that is not a trace of this schema version with a one-line reason. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "call_sources.h"
#include "check.h"
#include "origins.h"
#include "queries_ranges.h"
#include "store.h"

static char directory[] = "/tmp/overlapscope-test-store-XXXXXX";

static const char *path_in(const char *name)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 512, "%s/%s", directory, name);
    return p;
}

static int64_t query_int(store *s, const char *sql)
{
    sqlite3_stmt *q = NULL;
    int64_t value = -999;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
        value = sqlite3_column_type(q, 0) == SQLITE_NULL ? -777 : sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return value;
}

static char text_result[512];
static const char *query_text(store *s, const char *sql)
{
    sqlite3_stmt *q = NULL;
    snprintf(text_result, sizeof text_result, "(no row)");
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
        snprintf(text_result, sizeof text_result, "%s",
                 sqlite3_column_text(q, 0) ? (const char *)sqlite3_column_text(q, 0) : "(null)");
    sqlite3_finalize(q);
    return text_result;
}

static void test_create_write_read(void)
{
    error_info err = {{0}};
    const char *path = path_in("full.db");
    store *s = store_create(path, 0, &err);
    CHECK(s != NULL);
    if (!s) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    struct stat info;
    CHECK(stat(path, &info) == 0 && (info.st_mode & 0777) == 0644);
    CHECK(store_begin(s, &err) == 0);
    struct store_process process = {.pid = 4242,
                                    .parent_pid = 1,
                                    .host = "node7",
                                    .command_line = "./a.out -x",
                                    .rank = 1,
                                    .local_rank = 0,
                                    .world_size = 2,
                                    .start_ns = 100,
                                    .end_ns = 900,
                                    .exit_status = 0,
                                    .term_signal = STORE_NULL,
                                    .dropped_records = 3,
                                    .source_file = "p.db"};
    CHECK(store_insert_process(s, &process, &err) == 0);
    CHECK_INT(process.process_id, 1);
    struct store_kernel kernel = {.process_id = 1,
                                  .device_id = 0,
                                  .context_id = 1,
                                  .stream_id = 13,
                                  .correlation_id = 77,
                                  .start_ns = 1000,
                                  .end_ns = 2000,
                                  .queued_ns = STORE_NULL,
                                  .submitted_ns = 990,
                                  .grid_x = 8448,
                                  .grid_y = 1,
                                  .grid_z = 1,
                                  .block_x = 1024,
                                  .block_y = 1,
                                  .block_z = 1,
                                  .cluster_x = 0,
                                  .cluster_y = 0,
                                  .cluster_z = 0,
                                  .registers_per_thread = 32,
                                  .static_shared_bytes = 0,
                                  .dynamic_shared_bytes = 4096,
                                  .local_memory_per_thread_bytes = 0,
                                  .local_memory_total_bytes = 1 << 20,
                                  .shared_memory_executed_bytes = 8192,
                                  .shared_memory_config = 0,
                                  .launch_type = 0,
                                  .is_device_launched = 0,
                                  .graph_id = STORE_NULL,
                                  .graph_node_id = STORE_NULL,
                                  .channel_id = 3,
                                  .channel_type = STORE_CHANNEL_COMPUTE,
                                  .priority = 0,
                                  .name = "sgemm_256x128"};
    int64_t kernel_rowid = 0;
    CHECK(store_insert_kernel(s, &kernel, &kernel_rowid, &err) == 0);
    CHECK(kernel_rowid > 0);
    struct store_memcpy copy = {.process_id = 1,
                                .device_id = 0,
                                .context_id = 1,
                                .stream_id = 14,
                                .correlation_id = 78,
                                .start_ns = 1500,
                                .end_ns = 3000,
                                .copy_kind = STORE_COPY_HTOD,
                                .src_kind = STORE_MEMORY_PAGEABLE,
                                .dst_kind = STORE_MEMORY_DEVICE,
                                .bytes = 67108864,
                                .src_device_id = STORE_NULL,
                                .dst_device_id = 0,
                                .is_async = 1,
                                .channel_id = 5,
                                .channel_type = STORE_CHANNEL_ASYNC_MEMCPY,
                                .copy_count = STORE_NULL,
                                .graph_id = STORE_NULL,
                                .graph_node_id = STORE_NULL};
    CHECK(store_insert_memcpy(s, &copy, &err) == 0);
    struct store_collective collective = {.process_id = 1,
                                          .device_id = 0,
                                          .stream_id = 20,
                                          .op = "AllReduce",
                                          .bytes = 4096,
                                          .element_count = 1024,
                                          .dtype = "f32",
                                          .root = STORE_NULL,
                                          .algorithm = "RING",
                                          .protocol = "LL",
                                          .communicator = "0xabc",
                                          .rank = 1,
                                          .nranks = 2,
                                          .sequence_number = 5,
                                          .kernel_rowid = kernel_rowid,
                                          .start_ns = 1000,
                                          .end_ns = 2000,
                                          .detail_source = STORE_DETAIL_KERNEL_NAME};
    CHECK(store_insert_collective(s, &collective, &err) == 0);
    struct store_api_call call = {.process_id = 1,
                                  .thread_id = 99,
                                  .api_domain = STORE_API_RUNTIME,
                                  .callback_id = 211,
                                  .correlation_id = 77,
                                  .start_ns = 900,
                                  .end_ns = 950,
                                  .return_value = 0,
                                  .name = "cudaLaunchKernel"};
    CHECK(store_insert_api_call(s, &call, &err) == 0);
    struct store_nvtx range = {.process_id = 1,
                               .thread_id = 99,
                               .device_id = STORE_NULL,
                               .stream_id = STORE_NULL,
                               .kind = STORE_NVTX_PUSH_POP,
                               .domain = NULL,
                               .message = "step 3",
                               .category = STORE_NULL,
                               .color = STORE_NULL,
                               .start_ns = 800,
                               .end_ns = 2500,
                               .depth = 0};
    CHECK(store_insert_nvtx(s, &range, &err) == 0);
    CHECK(store_commit(s, &err) == 0);
    CHECK(store_finalize(s, &err) == 0);

    CHECK_INT(query_int(s, "SELECT grid_x * block_x FROM kernels"), 8448 * 1024);
    CHECK_INT(query_int(s, "SELECT queued_ns FROM kernels"), -777);
    CHECK_INT(query_int(s, "SELECT submitted_ns FROM kernels"), 990);
    CHECK_INT(query_int(s, "SELECT dynamic_shared_bytes FROM kernels"), 4096);
    CHECK_INT(query_int(s, "SELECT channel_id FROM kernels"), 3);
    CHECK_STR(query_text(s, "SELECT value FROM strings JOIN kernels ON name_id = id"), "sgemm_256x128");
    CHECK_INT(query_int(s, "SELECT src_kind FROM memcpys"), STORE_MEMORY_PAGEABLE);
    CHECK_INT(query_int(s, "SELECT copy_count FROM memcpys"), 1);
    CHECK_INT(query_int(s, "SELECT bytes FROM memcpys"), 67108864);
    CHECK_INT(query_int(s, "SELECT kernel_rowid FROM collectives"), kernel_rowid);
    CHECK_STR(query_text(s, "SELECT algorithm || '/' || protocol FROM collectives"), "RING/LL");
    CHECK_STR(query_text(s, "SELECT value FROM strings JOIN api_calls ON name_id = id"), "cudaLaunchKernel");
    CHECK_INT(query_int(s, "SELECT domain_id FROM nvtx"), -777);
    CHECK_INT(query_int(s, "SELECT dropped_records FROM processes"), 3);
    CHECK_INT(
        query_int(s, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'kernels_by_lane'"),
        1);
    CHECK_STR(query_text(s, "PRAGMA journal_mode"), "delete");
    /* The kernel name was interned once however often it is used. */
    CHECK(store_intern(s, "sgemm_256x128", &err) == query_int(s, "SELECT name_id FROM kernels"));
    CHECK(store_close(s, &err) == 0);

    s = store_open(path, 1, &err);
    CHECK(s != NULL);
    if (s) {
        char *version = store_get_meta(s, "schema_version");
        CHECK_STR(version, "3");
        free(version);
        store_close(s, NULL);
    }
}

static void test_refuses_existing_without_overwrite(void)
{
    error_info err = {{0}};
    const char *path = path_in("exists.db");
    store_close(store_create(path, 0, &err), NULL);
    CHECK(store_create(path, 0, &err) == NULL);
    CHECK_CONTAINS(err.message, "file exists");
    store *s = store_create(path, STORE_OVERWRITE, &err);
    CHECK(s != NULL);
    store_close(s, NULL);
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    fwrite(data, 1, size, file);
    fclose(file);
}

static void expect_open_error(const char *path, const char *message)
{
    error_info err = {{0}};
    store *s = store_open(path, 1, &err);
    CHECK(s == NULL);
    store_close(s, NULL);
    CHECK_CONTAINS(err.message, message);
    CHECK_CONTAINS(err.message, path);
    CHECK(strchr(err.message, '\n') == NULL);
}

/* What a recursive view in a hostile file runs: a query that would never end. */
#define ENDLESS_QUERY "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT MAX(n) FROM r"

/* sqlite3_step's result for sql's first row (SQLITE_ROW, or the error that stopped it). */
static int run_query(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *statement = NULL;
    CHECK(sqlite3_prepare_v2(db, sql, -1, &statement, NULL) == SQLITE_OK);
    int result = sqlite3_step(statement);
    sqlite3_finalize(statement);
    return result;
}

/* A new empty trace at path, opened read-only (with a work limit). */
static store *empty_read_only(const char *path)
{
    error_info err = {{0}};
    store *s = store_create(path, 0, &err);
    CHECK(s != NULL);
    store_close(s, NULL);
    s = store_open(path, 1, &err);
    CHECK(s != NULL);
    return s;
}

/* A query that would never end (what a recursive view in a hostile file runs) is stopped by the
 * work limit of a read-only store, and the store says so naming the file; a small trace's real
 * reading stays far below the limit. */
static void test_work_limit(void)
{
    const char *path = path_in("limited.db");
    error_info err = {{0}};
    store *s = empty_read_only(path);
    CHECK(store_work_exceeded(s, &err) == 0);
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM kernels"), 0);
    CHECK_INT(run_query(store_db(s), ENDLESS_QUERY), SQLITE_INTERRUPT);
    CHECK(store_work_exceeded(s, &err) == -1);
    CHECK_CONTAINS(err.message, path);
    CHECK_CONTAINS(err.message, "took more work than any trace of its size needs");
    store_close(s, NULL);
}

/* The readers of a trace (store_open_reader, one per --jobs worker) draw from the trace's one work
 * limit: once one reader has spent it, the trace and every other reader are stopped too, a reader
 * opened after it included. With a budget per reader (before issue 35's fix), the second reader
 * opened and read with a fresh budget, so a hostile file's total work grew with the workers. */
static void test_work_limit_shared_by_readers(void)
{
    const char *path = path_in("shared_limit.db");
    error_info err = {{0}};
    store *s = empty_read_only(path);
    store *first = store_open_reader(s, &err);
    CHECK(first != NULL);
    CHECK_INT(query_int(first, "SELECT COUNT(*) FROM kernels"), 0);
    CHECK_INT(run_query(store_db(first), ENDLESS_QUERY), SQLITE_INTERRUPT);
    /* the trace itself sees the budget spent, without store_absorb_work_limit */
    CHECK(store_work_exceeded(s, &err) == -1);
    CHECK_CONTAINS(err.message, "took more work than any trace of its size needs");
    store *second = store_open_reader(s, &err); /* its checks take fewer steps than a tick */
    CHECK(second != NULL);
    const char *bounded = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100000) "
                          "SELECT COUNT(*) FROM r";
    CHECK_INT(run_query(store_db(s), bounded), SQLITE_INTERRUPT);
    if (second)
        CHECK_INT(run_query(store_db(second), bounded), SQLITE_INTERRUPT);
    error_info second_err = {{0}};
    CHECK(store_work_exceeded(second, &second_err) == -1);
    CHECK_CONTAINS(second_err.message, path);
    store_close(second, NULL);
    store_close(first, NULL);
    store_close(s, NULL);
}

static void test_bad_files(void)
{
    expect_open_error(path_in("missing.db"), "No such file or directory");
    expect_open_error(directory, "is a directory");

    const char *text = path_in("text.db");
    char words[100];
    memset(words, 'x', sizeof words);
    memcpy(words, "this is not a database", 22);
    write_file(text, words, sizeof words);
    expect_open_error(text, "not an SQLite database");

    const char *empty_sqlite = path_in("foreign.db");
    sqlite3 *db = NULL;
    sqlite3_open(empty_sqlite, &db);
    sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", NULL, NULL, NULL);
    sqlite3_close(db);
    expect_open_error(empty_sqlite, "not an overlapscope trace (no meta table)");

    /* A trace from a future schema version. */
    error_info err = {{0}};
    const char *future = path_in("future.db");
    store *s = store_create(future, 0, &err);
    store_set_meta(s, "schema_version", "4", &err);
    store_finalize(s, &err);
    store_close(s, NULL);
    expect_open_error(future, "trace schema version 4, this overlapscope reads versions 1 to 3");

    /* A trace whose tail was lost (a copy cut short). */
    const char *whole = path_in("whole.db");
    s = store_create(whole, 0, &err);
    store_begin(s, &err);
    for (int i = 0; i < 3000; i++) {
        struct store_memset row = {.process_id = 1,
                                   .device_id = 0,
                                   .stream_id = 7,
                                   .start_ns = i,
                                   .end_ns = i + 1,
                                   .bytes = 8,
                                   .context_id = STORE_NULL,
                                   .correlation_id = STORE_NULL,
                                   .value = 0,
                                   .memory_kind = STORE_NULL,
                                   .is_async = STORE_NULL,
                                   .channel_id = STORE_NULL,
                                   .channel_type = STORE_NULL,
                                   .graph_id = STORE_NULL,
                                   .graph_node_id = STORE_NULL};
        store_insert_memset(s, &row, &err);
    }
    store_finalize(s, &err);
    store_close(s, NULL);
    struct stat info;
    stat(whole, &info);
    CHECK(truncate(whole, info.st_size / 2) == 0);
    expect_open_error(whole, "truncated");
}

/* The one way a processes row is completed (collector, record, Kineto import): SET replaces,
 * FILL writes only what is unknown, STORE_NULL leaves a field alone, a pid key reaches every row
 * of that pid. */
static void test_update_process(void)
{
    error_info err;
    store *s = store_create(path_in("update.db"), STORE_OVERWRITE, &err);
    struct store_process first = {.pid = 41,
                                  .parent_pid = STORE_NULL,
                                  .rank = 3,
                                  .local_rank = STORE_NULL,
                                  .world_size = STORE_NULL,
                                  .start_ns = 100,
                                  .end_ns = STORE_NULL,
                                  .exit_status = STORE_NULL,
                                  .term_signal = STORE_NULL,
                                  .dropped_records = 0};
    struct store_process second = first;
    CHECK(store_insert_process(s, &first, &err) == 0 && store_insert_process(s, &second, &err) == 0);
    struct store_process ended = store_process_unknown(), ranks = store_process_unknown(),
                         fate = store_process_unknown();
    ended.end_ns = 900;
    ended.dropped_records = 7;
    CHECK_INT(store_update_process(s, first.process_id, &ended, STORE_UPDATE_SET, &err), 0);
    ranks.rank = 5;
    ranks.world_size = 8;
    CHECK_INT(store_update_process(s, first.process_id, &ranks, STORE_UPDATE_FILL, &err), 0);
    fate.pid = 41;
    fate.exit_status = 137;
    CHECK_INT(store_update_process(s, STORE_NULL, &fate, STORE_UPDATE_FILL, &err), 0);
    CHECK_INT(query_int(s, "SELECT end_ns FROM processes WHERE process_id = 1"), 900);
    CHECK_INT(query_int(s, "SELECT dropped_records FROM processes WHERE process_id = 1"), 7);
    CHECK_INT(query_int(s, "SELECT start_ns FROM processes WHERE process_id = 1"), 100); /* left alone */
    CHECK_INT(query_int(s, "SELECT rank FROM processes WHERE process_id = 1"), 3);       /* known: kept */
    CHECK_INT(query_int(s, "SELECT world_size FROM processes WHERE process_id = 1"), 8); /* unknown: filled */
    CHECK_INT(query_int(s, "SELECT end_ns FROM processes WHERE process_id = 2"), -777);  /* the other row */
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM processes WHERE exit_status = 137"), 2); /* both of pid 41 */
    store_close(s, NULL);
}

static void test_unwritable_output(void)
{
    error_info err = {{0}};
    CHECK(store_create("/nonexistent-directory/x.db", 0, &err) == NULL);
    CHECK_CONTAINS(err.message, "cannot create '/nonexistent-directory/x.db'");
}

/* Two per-process files joined into one: processes renumbered, names re-interned, the collective
 * still pointing at its kernel, timestamps shifted by the offset given. */
static void write_one_process_trace(const char *path, int64_t pid, const char *kernel_name, int64_t start_ns)
{
    error_info err = {{0}};
    store *s = store_create(path, STORE_OVERWRITE, &err);
    store_begin(s, &err);
    store_intern(s, "padding so string ids differ between files", &err);
    struct store_process process = {.pid = pid,
                                    .parent_pid = STORE_NULL,
                                    .rank = pid - 100,
                                    .local_rank = STORE_NULL,
                                    .world_size = 2,
                                    .start_ns = STORE_NULL,
                                    .end_ns = STORE_NULL,
                                    .exit_status = 0,
                                    .term_signal = STORE_NULL};
    store_insert_process(s, &process, &err);
    struct store_kernel filler = {
        .process_id = 1, .device_id = 0, .stream_id = 7, .start_ns = 0, .end_ns = 1, .name = "filler"};
    struct store_kernel kernel = {.process_id = 1,
                                  .device_id = 0,
                                  .stream_id = 9,
                                  .start_ns = start_ns,
                                  .end_ns = start_ns + 50,
                                  .name = kernel_name};
    int64_t rowid = 0;
    store_insert_kernel(s, &filler, NULL, &err);
    store_insert_kernel(s, &kernel, &rowid, &err);
    struct store_collective collective = {.process_id = 1,
                                          .op = "AllReduce",
                                          .bytes = 64,
                                          .kernel_rowid = rowid,
                                          .start_ns = start_ns,
                                          .end_ns = start_ns + 50,
                                          .detail_source = STORE_DETAIL_KERNEL_NAME};
    store_insert_collective(s, &collective, &err);
    struct store_warning warning = {
        .process_id = 1, .time_ns = STORE_NULL, .code = "test", .message = kernel_name};
    store_insert_warning(s, &warning, &err);
    store_insert_call_source(s, 1, 42, STORE_SOURCE_PYTHON, kernel_name, &err);
    store_finalize(s, &err);
    store_close(s, NULL);
}

static void test_append_traces(void)
{
    error_info err = {{0}};
    const char *a = path_in("rank0.db"), *b = path_in("rank1.db"), *joined = path_in("joined.db");
    write_one_process_trace(a, 100, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1000);
    write_one_process_trace(b, 101, "ncclDevKernel_AllGather_RING_LL", 2000);
    store *s = store_create(joined, STORE_OVERWRITE, &err);
    CHECK(store_append_trace(s, a, 0, NULL, &err) == 0);
    CHECK(store_append_trace(s, b, 500, NULL, &err) == 0);
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM processes"), 2);
    CHECK_INT(query_int(s, "SELECT process_id FROM processes WHERE pid = 101"), 2);
    CHECK_INT(query_int(s, "SELECT start_ns FROM kernels WHERE process_id = 2 AND stream_id = 9"), 2500);
    CHECK_STR(query_text(s, "SELECT value FROM strings JOIN kernels k ON k.name_id = id"
                            " JOIN collectives c ON c.kernel_rowid = k.rowid WHERE c.process_id = 2"),
              "ncclDevKernel_AllGather_RING_LL");
    CHECK_INT(query_int(s, "SELECT c.start_ns - k.start_ns FROM collectives c JOIN kernels k"
                           " ON c.kernel_rowid = k.rowid WHERE c.process_id = 2"),
              0);
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM strings WHERE value = 'filler'"), 1);
    CHECK_STR(query_text(s, "SELECT message FROM warnings WHERE process_id = 1"),
              "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    /* Each call's place in the program follows its process and its string. */
    CHECK_STR(query_text(s, "SELECT value FROM call_sources c JOIN strings ON id = c.source_id"
                            " WHERE c.process_id = 2 AND c.correlation_id = 42"),
              "ncclDevKernel_AllGather_RING_LL");
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM call_sources"), 2);
    /* A bad source leaves the destination as it was. */
    CHECK(store_append_trace(s, path_in("missing.db"), 0, NULL, &err) != 0);
    CHECK_CONTAINS(err.message, "missing.db");
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM kernels"), 4);
    store_close(s, NULL);
}

static struct store_kernel kernel_at(int64_t start_ns, int64_t end_ns, const char *name, int64_t grid_x)
{
    return (struct store_kernel){.process_id = 1,
                                 .device_id = 0,
                                 .context_id = 1,
                                 .stream_id = 7,
                                 .correlation_id = start_ns,
                                 .start_ns = start_ns,
                                 .end_ns = end_ns,
                                 .queued_ns = STORE_NULL,
                                 .submitted_ns = STORE_NULL,
                                 .grid_x = grid_x,
                                 .grid_y = 1,
                                 .grid_z = 1,
                                 .block_x = 256,
                                 .block_y = 1,
                                 .block_z = 1,
                                 .cluster_x = STORE_NULL,
                                 .cluster_y = STORE_NULL,
                                 .cluster_z = STORE_NULL,
                                 .registers_per_thread = 32,
                                 .static_shared_bytes = 0,
                                 .dynamic_shared_bytes = STORE_NULL,
                                 .local_memory_per_thread_bytes = STORE_NULL,
                                 .local_memory_total_bytes = STORE_NULL,
                                 .shared_memory_executed_bytes = STORE_NULL,
                                 .shared_memory_config = STORE_NULL,
                                 .launch_type = STORE_NULL,
                                 .is_device_launched = STORE_NULL,
                                 .graph_id = STORE_NULL,
                                 .graph_node_id = STORE_NULL,
                                 .channel_id = 1,
                                 .channel_type = STORE_NULL,
                                 .priority = STORE_NULL,
                                 .name = name};
}

/* Schema version 2: a kernel's repeated launch configuration is stored once per distinct shape
 * (NULLs included) and its end as a duration, and the kernels and api_calls views give back the
 * version 1 columns exactly, in batched and unbatched writing alike. */
static void test_compact_kernels(int flags)
{
    error_info err = {{0}};
    const char *path = path_in(flags ? "compact_batched.db" : "compact.db");
    store *s = store_create(path, STORE_OVERWRITE | flags, &err);
    CHECK(s != NULL && store_schema_version(s) == 3);
    CHECK(store_begin(s, &err) == 0);
    const int64_t base = INT64_C(1795468554605388780); /* a CUPTI time of November 2026 */
    for (int i = 0; i < 100; i++) {
        struct store_kernel k = kernel_at(base + 1000 * i, base + 1000 * i + 700 + i, i % 2 ? "gemm" : "add",
                                          i % 3 == 0 ? 132 : 264);
        CHECK(store_insert_kernel(s, &k, NULL, &err) == 0);
    }
    /* An end before its start (a clock glitch) stays as given; a duration beyond int64 is clamped,
     * never wrapped (or undefined behaviour). */
    struct store_kernel glitch = kernel_at(base, base - 5, "add", 132);
    struct store_kernel far = kernel_at(-INT64_MAX, INT64_MAX, "add", 132);
    struct store_api_call call = {.process_id = 1,
                                  .thread_id = INT64_C(2583109632),
                                  .api_domain = STORE_API_RUNTIME,
                                  .callback_id = 211,
                                  .correlation_id = 9,
                                  .start_ns = base - 20000,
                                  .end_ns = base - 4321,
                                  .return_value = 0,
                                  .name = "cudaLaunchKernel"};
    CHECK(store_insert_kernel(s, &glitch, NULL, &err) == 0 && store_insert_kernel(s, &far, NULL, &err) == 0 &&
          store_insert_api_call(s, &call, &err) == 0);
    CHECK(store_commit(s, &err) == 0 && store_finalize(s, &err) == 0);
    /* 2 names: 2 shapes for 102 kernels (the grid, which follows the input, is the run's). */
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM kernel_shapes"), 2);
    CHECK_INT(query_int(s, "SELECT COUNT(DISTINCT grid_x) FROM kernels"), 2);
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM kernels"), 102);
    CHECK_INT(query_int(s, "SELECT SUM(end_ns - start_ns) FROM kernels WHERE start_ns > 0"),
              100 * 700 + 99 * 100 / 2 - 5);
    CHECK_INT(query_int(s, "SELECT end_ns FROM kernels WHERE rowid = 100"), base + 99000 + 799);
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM kernels WHERE grid_x = 132 AND block_x = 256 AND"
                           " cluster_x IS NULL AND registers_per_thread = 32"),
              34 + 2);
    CHECK_STR(query_text(s, "SELECT group_concat(DISTINCT value) FROM strings JOIN kernels ON name_id = id"),
              "add,gemm");
    /* Clamped to INT64_MAX, the duration ends at 0: a time readers refuse by its start anyway. */
    CHECK_INT(query_int(s, "SELECT end_ns FROM kernels WHERE start_ns < 0"), 0);
    CHECK_INT(query_int(s, "SELECT end_ns FROM api_calls"), base - 4321);
    CHECK_INT(query_int(s, "SELECT duration_ns FROM api_call_runs"), 20000 - 4321);
    CHECK_STR(query_text(s, "SELECT api_domain || ' ' || callback_id || ' ' || value FROM api_functions"
                            " JOIN strings ON id = name_id"),
              "1 211 cudaLaunchKernel");
    CHECK_INT(query_int(s, "SELECT thread_id FROM api_calls"), INT64_C(2583109632));
    store_close(s, NULL);
}

/* A version 1 trace (built from store/schema_v1.sql as version 1 writers built it) opens, reads
 * through the same names, merges into version 2; rows of the compact tables cannot be added to it. */
/* store_launched_work_times: each host range maps to the first start and last end of the GPU work
 * its thread launched by calls that began in it (end excluded), whatever nests or repeats; another
 * thread's or process's work (the same correlation id) never counts. */
static void add_call(store *s, int64_t process_id, int64_t thread_id, int64_t correlation_id,
                     int64_t start_ns)
{
    error_info err;
    struct store_api_call call = {.process_id = process_id,
                                  .thread_id = thread_id,
                                  .api_domain = STORE_API_RUNTIME,
                                  .callback_id = 211,
                                  .correlation_id = correlation_id,
                                  .start_ns = start_ns,
                                  .end_ns = start_ns + 10,
                                  .return_value = 0,
                                  .name = "cudaLaunchKernel"};
    CHECK(store_insert_api_call(s, &call, &err) == 0);
}

static void add_kernel(store *s, int64_t process_id, int64_t correlation_id, int64_t start_ns, int64_t end_ns)
{
    error_info err;
    struct store_kernel kernel = {.process_id = process_id,
                                  .device_id = 0,
                                  .context_id = 1,
                                  .stream_id = 7,
                                  .correlation_id = correlation_id,
                                  .start_ns = start_ns,
                                  .end_ns = end_ns,
                                  .queued_ns = STORE_NULL,
                                  .submitted_ns = STORE_NULL,
                                  .graph_id = STORE_NULL,
                                  .graph_node_id = STORE_NULL,
                                  .name = "k"};
    CHECK(store_insert_kernel(s, &kernel, NULL, &err) == 0);
}

static void test_launched_work_times(void)
{
    error_info err;
    store *s = store_create(path_in("launched.db"), 0, &err);
    CHECK(s != NULL);
    CHECK(store_begin(s, &err) == 0);
    for (int64_t pid = 10; pid <= 11; pid++) {
        struct store_process process = {.pid = pid,
                                        .parent_pid = STORE_NULL,
                                        .rank = STORE_NULL,
                                        .local_rank = STORE_NULL,
                                        .world_size = STORE_NULL,
                                        .start_ns = STORE_NULL,
                                        .end_ns = STORE_NULL,
                                        .term_signal = STORE_NULL};
        CHECK(store_insert_process(s, &process, &err) == 0);
    }
    add_call(s, 1, 99, 1, 100); /* two kernels of one launch (a graph) */
    add_kernel(s, 1, 1, 1000, 1100);
    add_kernel(s, 1, 1, 1200, 1300);
    add_call(s, 1, 99, 2, 200); /* a copy */
    struct store_memcpy copy = {.process_id = 1,
                                .device_id = 0,
                                .stream_id = 8,
                                .correlation_id = 2,
                                .start_ns = 1400,
                                .end_ns = 1500,
                                .copy_kind = STORE_COPY_HTOD,
                                .bytes = 64,
                                .src_device_id = STORE_NULL,
                                .dst_device_id = 0,
                                .copy_count = STORE_NULL,
                                .graph_id = STORE_NULL,
                                .graph_node_id = STORE_NULL};
    CHECK(store_insert_memcpy(s, &copy, &err) == 0);
    add_call(s, 1, 98, 4, 400); /* another thread */
    add_kernel(s, 1, 4, 900, 950);
    add_call(s, 1, 99, 5, 500); /* a call that launched nothing */
    add_call(s, 1, 99, 6, 550); /* a memset */
    struct store_memset memset_row = {.process_id = 1,
                                      .device_id = 0,
                                      .stream_id = 8,
                                      .correlation_id = 6,
                                      .start_ns = 2000,
                                      .end_ns = 2100,
                                      .bytes = 64,
                                      .graph_id = STORE_NULL,
                                      .graph_node_id = STORE_NULL};
    CHECK(store_insert_memset(s, &memset_row, &err) == 0);
    add_call(s, 2, 99, 1, 150); /* another process, the same correlation id */
    add_kernel(s, 2, 1, 5000, 5100);
    CHECK(store_commit(s, &err) == 0);
    CHECK(store_finalize(s, &err) == 0);
    struct store_launched_span spans[] = {
        {.process_id = 1, .thread_id = 99, .host_start_ns = 100, .host_end_ns = 250},
        {.process_id = 1, .thread_id = 99, .host_start_ns = 150, .host_end_ns = 250}, /* nested */
        {.process_id = 1, .thread_id = 98, .host_start_ns = 0, .host_end_ns = 1000},
        {.process_id = 1, .thread_id = 99, .host_start_ns = 250, .host_end_ns = 540},
        {.process_id = 1, .thread_id = STORE_NULL, .host_start_ns = 0, .host_end_ns = 1000},
        {.process_id = 2, .thread_id = 99, .host_start_ns = 100, .host_end_ns = 200},
        {.process_id = 1, .thread_id = 99, .host_start_ns = 100, .host_end_ns = 200}, /* end excluded */
        {.process_id = 1, .thread_id = 99, .host_start_ns = 200, .host_end_ns = 201}, /* start included */
        {.process_id = 1, .thread_id = 99, .host_start_ns = 0, .host_end_ns = 1000},
        {.process_id = 3, .thread_id = 99, .host_start_ns = 0, .host_end_ns = 1000}, /* no such process */
    };
    static const int64_t expected[][3] = {{1, 1000, 1500}, {1, 1400, 1500}, {1, 900, 950},   {0, 0, 0},
                                          {0, 0, 0},       {1, 5000, 5100}, {1, 1000, 1300}, {1, 1400, 1500},
                                          {1, 1000, 2100}, {0, 0, 0}};
    size_t count = sizeof spans / sizeof *spans;
    CHECK(store_launched_work_times(store_db(s), spans, count, &err) == 0);
    for (size_t i = 0; i < count; i++) {
        CHECK_INT(spans[i].found, expected[i][0]);
        if (spans[i].found && expected[i][0]) {
            CHECK_INT(spans[i].start_ns, expected[i][1]);
            CHECK_INT(spans[i].end_ns, expected[i][2]);
        }
    }
    /* One process at a time through the same buffers (a worker's): the same answers, process 2
     * mapped in lists that held process 1's rows (more of them) the call before. */
    struct store_launch_buffers buffers = {0};
    for (int64_t process = 1; process <= 3; process++) {
        struct store_launched_span again[sizeof spans / sizeof *spans];
        size_t mine = 0;
        for (size_t i = 0; i < count; i++)
            if (spans[i].process_id == process)
                again[mine++] = spans[i];
        CHECK(store_launched_work_times_in(store_db(s), again, mine, &buffers, &err) == 0);
        for (size_t i = 0, k = 0; i < count; i++) {
            if (spans[i].process_id != process)
                continue;
            CHECK_INT(again[k].found, expected[i][0]);
            if (again[k].found && expected[i][0]) {
                CHECK_INT(again[k].start_ns, expected[i][1]);
                CHECK_INT(again[k].end_ns, expected[i][2]);
            }
            k++;
        }
    }
    CHECK(buffers.ops != NULL && buffers.ops_capacity > 0);
    store_launch_buffers_free(&buffers);
    CHECK(store_close(s, &err) == 0);
}

static void test_version_1(void)
{
    const char *path = path_in("v1.db");
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, store_schema_v1_sql(), NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_exec(
              db,
              "PRAGMA user_version = 1; INSERT INTO meta VALUES ('schema_version', '1');"
              " INSERT INTO processes (process_id, pid) VALUES (1, 77);"
              " INSERT INTO strings VALUES (1, 'k'), (2, 'cudaLaunchKernel');"
              " INSERT INTO kernels (process_id, device_id, stream_id, correlation_id, start_ns, end_ns,"
              "  grid_x, name_id) VALUES (1, 0, 7, 5, 1000, 1600, 4, 1), (1, 0, 7, 6, 2000, 2100, 4, 1);"
              " INSERT INTO api_calls (process_id, thread_id, api_domain, name_id, correlation_id, start_ns,"
              "  end_ns) VALUES (1, 3, 1, 2, 5, 900, 950);",
              NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    error_info err = {{0}};
    store *s = store_open(path, 0, &err);
    CHECK(s != NULL);
    if (!s) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK_INT(store_schema_version(s), 1);
    CHECK_INT(query_int(s, "SELECT SUM(end_ns - start_ns) FROM kernels"), 700);
    struct store_kernel k = kernel_at(5000, 5100, "k", 4);
    CHECK(store_insert_kernel(s, &k, NULL, &err) != 0);
    CHECK_CONTAINS(err.message, "a schema version 1 trace (this overlapscope writes version 3)");
    store_close(s, NULL);

    const char *merged = path_in("v1_merged.db");
    s = store_create(merged, STORE_OVERWRITE, &err);
    CHECK(store_append_trace(s, path, 0, NULL, &err) == 0 &&
          store_append_trace(s, path, 10, NULL, &err) == 0);
    CHECK(store_finalize(s, &err) == 0);
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM kernels"), 4);
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM kernel_shapes"), 1); /* one shape, both processes */
    CHECK_INT(query_int(s, "SELECT SUM(end_ns) FROM kernels"), 2 * (1600 + 2100) + 20);
    CHECK_INT(query_int(s, "SELECT SUM(end_ns) FROM api_calls"), 2 * 950 + 10);
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM api_functions"), 1);
    CHECK_INT(
        query_int(s, "SELECT COUNT(*) FROM kernels k JOIN api_calls a USING (process_id, correlation_id)"),
        2);
    store_close(s, NULL);
}

/* One collective of `process_id` on `communicator` of `nranks` ranks, as rank `rank`. */
static void add_collective(store *s, int64_t process_id, const char *communicator, int64_t rank,
                           int64_t nranks)
{
    error_info err;
    struct store_collective collective = {.process_id = process_id,
                                          .device_id = 0,
                                          .stream_id = 1,
                                          .op = "AllReduce",
                                          .bytes = 64,
                                          .element_count = STORE_NULL,
                                          .root = STORE_NULL,
                                          .communicator = communicator,
                                          .rank = rank,
                                          .nranks = nranks,
                                          .sequence_number = STORE_NULL,
                                          .kernel_rowid = STORE_NULL,
                                          .start_ns = 1000,
                                          .end_ns = 2000,
                                          .detail_source = STORE_DETAIL_KERNEL_NAME};
    CHECK_INT(store_insert_collective(s, &collective, &err), 0);
}

/* Processes started without RANK (torch.multiprocessing.spawn) take their rank in their largest
 * NCCL communicator; a rank that is not sure is left unknown. */
static void test_fill_ranks_from_nccl(void)
{
    error_info err;
    store *s = store_create(path_in("ranks.db"), STORE_OVERWRITE, &err);
    int64_t ids[7];
    for (int i = 0; i < 7; i++) {
        struct store_process row = store_process_unknown();
        row.pid = 100 + i;
        row.dropped_records = 0;
        if (i == 6)
            row.rank = 5; /* from its environment */
        CHECK_INT(store_insert_process(s, &row, &err), 0);
        ids[i] = row.process_id;
    }
    /* 0 and 1: rank 0 and 1 of the 4-rank world, rank 0 of a 2-rank subgroup each */
    add_collective(s, ids[0], "world", 0, 4);
    add_collective(s, ids[0], "pair-a", 0, 2);
    add_collective(s, ids[1], "world", 1, 4);
    add_collective(s, ids[1], "pair-b", 0, 2);
    /* 2: two 4-rank communicators that rank it differently: not sure */
    add_collective(s, ids[2], "world", 2, 4);
    add_collective(s, ids[2], "other", 3, 4);
    /* 3 and 4 both claim rank 3 (two jobs in one trace): neither */
    add_collective(s, ids[3], "world", 3, 4);
    add_collective(s, ids[4], "world2", 3, 4);
    /* a rank outside its communicator (a damaged record) claims nothing */
    add_collective(s, ids[2], "broken", 20, 16);
    add_collective(s, ids[2], "broken", -1, 16);
    /* 5 claims rank 5, which process 6 holds from its environment: left alone */
    add_collective(s, ids[5], "world3", 5, 8);
    add_collective(s, ids[6], "world3", 5, 8);
    CHECK_INT(store_fill_ranks_from_nccl(s, &err), 2);
    CHECK_INT(query_int(s, "SELECT rank FROM processes WHERE pid = 100"), 0);
    CHECK_INT(query_int(s, "SELECT world_size FROM processes WHERE pid = 100"), 4);
    CHECK_INT(query_int(s, "SELECT rank FROM processes WHERE pid = 101"), 1);
    CHECK_INT(query_int(s, "SELECT COUNT(*) FROM processes WHERE rank IS NULL"), 4); /* pids 102-105 */
    CHECK_INT(query_int(s, "SELECT rank FROM processes WHERE pid = 106"), 5);
    CHECK_INT(store_fill_ranks_from_nccl(s, &err), 0); /* nothing more to fill */
    store_close(s, NULL);
}

/* A writer's explicit origin wins over the file name; a process without one (a trace written before
 * process_origins) is read by the legacy rule, from processes.source_file. */
static void test_process_origins(void)
{
    error_info err = {{0}};
    store *s = store_create(path_in("origins.db"), 0, &err);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(store_begin(s, &err) == 0);
    const char *files[] = {"rank0.json", "run.nsys-rep", "overlapscope-1234.db", "trace.pt.trace"};
    int64_t ids[4];
    for (int i = 0; i < 4; i++) {
        struct store_process process = store_process_unknown();
        process.pid = 100 + i;
        process.source_file = files[i];
        CHECK(store_insert_process(s, &process, &err) == 0);
        ids[i] = process.process_id;
    }
    /* The fourth is Kineto's though its name says nothing: only the written origin knows. */
    CHECK(store_insert_process_origin(s, ids[3], STORE_FORMAT_KINETO, "PyTorch profiler (Kineto)", NULL,
                                      &err) == 0);
    CHECK(store_commit(s, &err) == 0);
    sqlite3 *db = store_db(s);
    CHECK_INT(store_process_origin(db, ids[0]), STORE_ORIGIN_KINETO);
    CHECK_INT(store_process_origin(db, ids[1]), STORE_ORIGIN_NSYS);
    CHECK_INT(store_process_origin(db, ids[2]), STORE_ORIGIN_RECORD);
    CHECK_INT(store_process_origin(db, ids[3]), STORE_ORIGIN_KINETO);
    CHECK(store_insert_process_origin(s, ids[0], STORE_FORMAT_NSYS, "Nsight Systems", "2024.5", &err) == 0);
    CHECK_INT(store_process_origin(db, ids[0]), STORE_ORIGIN_NSYS);
    store_close(s, NULL);
}

int main(void)
{
    if (!mkdtemp(directory)) {
        perror("mkdtemp");
        return 2;
    }
    test_create_write_read();
    test_refuses_existing_without_overwrite();
    test_bad_files();
    test_work_limit();
    test_work_limit_shared_by_readers();
    test_unwritable_output();
    test_update_process();
    test_fill_ranks_from_nccl();
    test_append_traces();
    test_compact_kernels(0);
    test_compact_kernels(STORE_BATCHED_INSERTS);
    test_version_1();
    test_launched_work_times();
    test_process_origins();
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
