/* bench_writer.c: the collector writer's speed on synthetic kernel records, on the CPU, and the
 * bytes a recording takes per GPU activity.
 *
 * Writes N kernel rows through collector_writer (the thread, the queue, store_insert_kernel with
 * its interned names and batched transactions) into a file created as process_file.c creates
 * one, and the same N rows with a bare prepared INSERT in one transaction into an identical table
 * (default pragmas plus WAL and synchronous=OFF): the baseline a plain SQLite writer reaches. Both
 * times include closing the file (the final WAL checkpoint). The machine this runs on is shared,
 * so each side runs REPEATS times, interleaved, and the best run counts; rows/s are given per
 * second of CPU time (what one free core would do) and per second of wall time.
 * Target: >= 1M rows/s.
 *
 * Bytes per GPU activity (issue 15, target <= 150 on the MLP job with default recording): a
 * synthetic stream shaped like a PyTorch training step recorded with the analysis API set (per
 * 100 kernels, the mix of tests/data/gpu-h100/torch_pipeline_aug.db: 100 launch calls, 5 memsets
 * and 4 copies with their calls, 7 event records, 3 event queries, a stream wait and a stream
 * synchronize; real CUPTI time and thread-id magnitudes; 60 kernel shapes) goes through the real
 * path: process_file_create, collector_writer, process_file_finish, record_merge (which builds the
 * indexes). The trace's size over its kernels, copies and memsets is the figure; the same rows
 * copied into a version 1 trace (store/schema_v1.sql, its indexes built the same way) give the
 * version 1 figure in the same run.
 * Usage: bench_writer [ROWS] [REPEATS] [ACTIVITIES] (defaults 1000000, 3, 200000). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector_writer.h"
#include "process_file.h"
#include "record.h"

#define ROWS_PER_BUFFER 10000

static const char *const kernel_names[] = {
    "_Z10add_kernelPfS_S_i", "_Z6reducePfi",
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
    "void at::native::vectorized_elementwise_kernel<4>(int)"};

struct timing {
    double wall_seconds, cpu_seconds;
};

static double seconds_of(clockid_t clock)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return (double)now.tv_sec + now.tv_nsec * 1e-9;
}

static struct timing timing_start(void)
{
    return (struct timing){seconds_of(CLOCK_MONOTONIC), seconds_of(CLOCK_PROCESS_CPUTIME_ID)};
}

static struct timing timing_since(struct timing start)
{
    return (struct timing){seconds_of(CLOCK_MONOTONIC) - start.wall_seconds,
                           seconds_of(CLOCK_PROCESS_CPUTIME_ID) - start.cpu_seconds};
}

static void keep_best(struct timing *best, struct timing run)
{
    if (best->cpu_seconds == 0 || run.cpu_seconds < best->cpu_seconds)
        best->cpu_seconds = run.cpu_seconds;
    if (best->wall_seconds == 0 || run.wall_seconds < best->wall_seconds)
        best->wall_seconds = run.wall_seconds;
}

static struct store_kernel synthetic_kernel(int64_t i)
{
    struct store_kernel k = {.process_id = 1,
                             .device_id = 0,
                             .context_id = 1,
                             .stream_id = 13 + i % 4,
                             .correlation_id = i,
                             .start_ns = 1000 * i,
                             .end_ns = 1000 * i + 700,
                             .queued_ns = STORE_NULL,
                             .submitted_ns = STORE_NULL,
                             .grid_x = 132,
                             .grid_y = 1,
                             .grid_z = 1,
                             .block_x = 256,
                             .block_y = 1,
                             .block_z = 1,
                             .cluster_x = 0,
                             .cluster_y = 0,
                             .cluster_z = 0,
                             .registers_per_thread = 32,
                             .static_shared_bytes = 0,
                             .dynamic_shared_bytes = 4096,
                             .local_memory_per_thread_bytes = 0,
                             .local_memory_total_bytes = 0,
                             .shared_memory_executed_bytes = 65536,
                             .shared_memory_config = 0,
                             .launch_type = 0,
                             .is_device_launched = 0,
                             .graph_id = STORE_NULL,
                             .graph_node_id = STORE_NULL,
                             .channel_id = i % 8,
                             .channel_type = 1,
                             .priority = 0,
                             .name = kernel_names[i % 4]};
    return k;
}

struct span {
    int64_t first, count;
};

static int consume_span(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                        error_info *err)
{
    (void)context;
    (void)valid_bytes;
    const struct span *span = (const struct span *)buffer;
    for (int64_t i = span->first; i < span->first + span->count; i++) {
        struct store_kernel k = synthetic_kernel(i);
        if (store_insert_kernel(trace, &k, NULL, err) != 0)
            return -1;
    }
    return 0;
}

static void release_span(void *context, uint8_t *buffer)
{
    (void)context;
    free(buffer);
}

static struct timing run_writer(const char *path, int64_t rows)
{
    error_info err;
    unlink(path);
    store *trace =
        store_create(path, STORE_FAST_UNSAFE | STORE_BATCHED_INSERTS, &err); /* as process_file.c */
    if (!trace) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    struct store_process process = {.pid = 1,
                                    .parent_pid = STORE_NULL,
                                    .rank = STORE_NULL,
                                    .local_rank = STORE_NULL,
                                    .world_size = STORE_NULL,
                                    .start_ns = STORE_NULL,
                                    .end_ns = STORE_NULL,
                                    .exit_status = STORE_NULL,
                                    .term_signal = STORE_NULL};
    store_insert_process(trace, &process, &err);
    struct timing start = timing_start();
    collector_writer *writer = collector_writer_start(trace, consume_span, release_span, NULL, &err);
    for (int64_t first = 0; first < rows; first += ROWS_PER_BUFFER) {
        struct span *span = malloc(sizeof *span);
        *span = (struct span){first, rows - first < ROWS_PER_BUFFER ? rows - first : ROWS_PER_BUFFER};
        collector_writer_submit(writer, (uint8_t *)span, sizeof *span);
    }
    if (collector_writer_stop(writer, &err) != 0)
        fprintf(stderr, "writer: %s\n", err.message);
    if (store_close(trace, &err) != 0)
        fprintf(stderr, "close: %s\n", err.message);
    return timing_since(start);
}

/* The same rows, names already resolved to ids, one prepared INSERT, one transaction. */
static struct timing run_bare_sqlite(const char *path, int64_t rows)
{
    unlink(path);
    sqlite3 *db = NULL;
    sqlite3_open(path, &db);
    sqlite3_exec(
        db,
        "PRAGMA page_size=8192; PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;"
        " CREATE TABLE kernels (process_id, device_id, context_id, stream_id, correlation_id, start_ns,"
        " end_ns, queued_ns, submitted_ns, grid_x, grid_y, grid_z, block_x, block_y, block_z, cluster_x,"
        " cluster_y, cluster_z, registers_per_thread, static_shared_bytes, dynamic_shared_bytes,"
        " local_memory_per_thread_bytes, local_memory_total_bytes, shared_memory_executed_bytes,"
        " shared_memory_config, launch_type, is_device_launched, graph_id, graph_node_id, channel_id,"
        " channel_type, priority, name_id)",
        NULL, NULL, NULL);
    sqlite3_stmt *insert = NULL;
    sqlite3_prepare_v2(
        db, "INSERT INTO kernels VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        -1, &insert, NULL);
    struct timing start = timing_start();
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    for (int64_t i = 0; i < rows; i++) {
        struct store_kernel k = synthetic_kernel(i);
        const int64_t values[] = {k.process_id,
                                  k.device_id,
                                  k.context_id,
                                  k.stream_id,
                                  k.correlation_id,
                                  k.start_ns,
                                  k.end_ns,
                                  k.queued_ns,
                                  k.submitted_ns,
                                  k.grid_x,
                                  k.grid_y,
                                  k.grid_z,
                                  k.block_x,
                                  k.block_y,
                                  k.block_z,
                                  k.cluster_x,
                                  k.cluster_y,
                                  k.cluster_z,
                                  k.registers_per_thread,
                                  k.static_shared_bytes,
                                  k.dynamic_shared_bytes,
                                  k.local_memory_per_thread_bytes,
                                  k.local_memory_total_bytes,
                                  k.shared_memory_executed_bytes,
                                  k.shared_memory_config,
                                  k.launch_type,
                                  k.is_device_launched,
                                  k.graph_id,
                                  k.graph_node_id,
                                  k.channel_id,
                                  k.channel_type,
                                  k.priority,
                                  1 + i % 4};
        for (int c = 0; c < 33; c++) {
            if (values[c] == STORE_NULL)
                sqlite3_bind_null(insert, c + 1);
            else
                sqlite3_bind_int64(insert, c + 1, values[c]);
        }
        sqlite3_step(insert);
        sqlite3_reset(insert);
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return timing_since(start);
}

static int64_t query_count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *query = NULL;
    int64_t value = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW)
        value = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return value;
}

static int64_t count_kernels(const char *path)
{
    sqlite3 *db = NULL;
    int64_t rows = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
        rows = query_count(db, "SELECT COUNT(*) FROM kernels");
    sqlite3_close(db);
    return rows;
}

static void remove_files(const char *path)
{
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char name[128];
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        unlink(name);
    }
}

/* --- bytes per GPU activity --- */

enum { STEP_KERNELS = 100, SHAPES = 60 };
#define BASE_NS INT64_C(1795468638053102235) /* a CUPTI timestamp of November 2026 */
#define THREAD_ID INT64_C(283117) /* a gettid() value, what the collector stores (collector/host_calls.c) */

struct mlp_stream {
    int64_t host_ns, gpu_ns, correlation;
    uint64_t random;
};

static int64_t next_between(struct mlp_stream *m, int64_t low, int64_t high)
{
    m->random ^= m->random << 13;
    m->random ^= m->random >> 7;
    m->random ^= m->random << 17;
    return low + (int64_t)(m->random % (uint64_t)(high - low + 1));
}

/* One host API call of the stream; returns its correlation id. */
static int64_t add_call(store *trace, struct mlp_stream *m, int64_t callback_id, const char *name,
                        int64_t spent_ns, error_info *err, int *status)
{
    int64_t start = m->host_ns;
    m->host_ns += spent_ns;
    struct store_api_call call = {.process_id = 1,
                                  .thread_id = THREAD_ID,
                                  .api_domain = STORE_API_RUNTIME,
                                  .callback_id = callback_id,
                                  .correlation_id = ++m->correlation,
                                  .start_ns = start,
                                  .end_ns = m->host_ns,
                                  .return_value = 0,
                                  .name = name};
    *status |= store_insert_api_call(trace, &call, err);
    return m->correlation;
}

/* The GPU interval of an op issued now: after the previous one on the stream, never before its call. */
static void gpu_interval(struct mlp_stream *m, int64_t length_ns, int64_t *start, int64_t *end)
{
    *start = (m->gpu_ns > m->host_ns ? m->gpu_ns : m->host_ns) + next_between(m, 500, 3000);
    *end = *start + length_ns;
    m->gpu_ns = *end;
}

static int add_kernel_launch(store *trace, struct mlp_stream *m, int64_t i, error_info *err)
{
    static const char *const names[] = {
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t>>",
        "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>",
        "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4>"};
    int status = 0;
    int extended = i % 10 == 9; /* cudaLaunchKernelExC, as cuBLAS launches */
    int64_t correlation =
        add_call(trace, m, extended ? 430 : 211, extended ? "cudaLaunchKernelExC" : "cudaLaunchKernel",
                 next_between(m, 3000, 9000), err, &status);
    int64_t shape = (i * 7) % SHAPES, start, end;
    gpu_interval(m, next_between(m, 1500, 30000), &start, &end);
    struct store_kernel k = {.process_id = 1,
                             .device_id = 0,
                             .context_id = 1,
                             .stream_id = 7,
                             .correlation_id = correlation,
                             .start_ns = start,
                             .end_ns = end,
                             .queued_ns = STORE_NULL,
                             .submitted_ns = STORE_NULL,
                             .grid_x = 132 * (1 + shape % 12),
                             .grid_y = 1,
                             .grid_z = 1,
                             .block_x = 128 << (shape % 3),
                             .block_y = 1,
                             .block_z = 1,
                             .cluster_x = 0,
                             .cluster_y = 0,
                             .cluster_z = 0,
                             .registers_per_thread = 32 + shape % 5 * 16,
                             .static_shared_bytes = 0,
                             .dynamic_shared_bytes = shape % 4 ? 0 : 49152,
                             .local_memory_per_thread_bytes = 0,
                             .local_memory_total_bytes = 250871808,
                             .shared_memory_executed_bytes = 32768,
                             .shared_memory_config = 0,
                             .launch_type = 0,
                             .is_device_launched = 0,
                             .graph_id = STORE_NULL,
                             .graph_node_id = STORE_NULL,
                             .channel_id = 1,
                             .channel_type = 1,
                             .priority = 0,
                             .name = names[shape % 5]};
    return status | store_insert_kernel(trace, &k, NULL, err);
}

/* The rest of a step beside its kernels: copies, memsets, events, a wait and a synchronize. */
static int add_step_extras(store *trace, struct mlp_stream *m, int64_t step, error_info *err)
{
    int status = 0;
    for (int j = 0; j < 5; j++) {
        int64_t correlation = add_call(trace, m, 51, "cudaMemsetAsync", 4000, err, &status), start, end;
        gpu_interval(m, 1200, &start, &end);
        struct store_memset set = {1,     0,   1, 7,          correlation,
                                   start, end, 0, 25344,      STORE_MEMORY_DEVICE,
                                   1,     2,   1, STORE_NULL, STORE_NULL};
        status |= store_insert_memset(trace, &set, err);
    }
    for (int j = 0; j < 4; j++) {
        int64_t correlation = add_call(trace, m, 41, "cudaMemcpyAsync", 5000, err, &status), start, end;
        gpu_interval(m, 900, &start, &end);
        struct store_memcpy copy = {1,
                                    0,
                                    1,
                                    7,
                                    correlation,
                                    start,
                                    end,
                                    STORE_COPY_HTOD,
                                    STORE_MEMORY_PINNED,
                                    STORE_MEMORY_DEVICE,
                                    3456,
                                    STORE_NULL,
                                    STORE_NULL,
                                    1,
                                    0,
                                    1,
                                    1,
                                    STORE_NULL,
                                    STORE_NULL};
        status |= store_insert_memcpy(trace, &copy, err);
    }
    for (int j = 0; j < 7; j++) {
        int64_t correlation = add_call(trace, m, 135, "cudaEventRecord", 2500, err, &status);
        struct store_cuda_event event = {1, 0, 1, 7, 1 + (step * 7 + j) % 64, correlation, STORE_NULL};
        status |= store_insert_cuda_event(trace, &event, err);
    }
    for (int j = 0; j < 3; j++)
        add_call(trace, m, 138, "cudaEventQuery", 1500, err, &status);
    int64_t wait_start = m->host_ns;
    int64_t correlation = add_call(trace, m, 147, "cudaStreamWaitEvent", 2000, err, &status);
    struct store_synchronization wait = {
        1, 1, 8, 1 + step % 64, STORE_SYNC_STREAM_WAIT_EVENT, correlation, wait_start, m->host_ns};
    status |= store_insert_synchronization(trace, &wait, err);
    wait_start = m->host_ns;
    int64_t waited = m->gpu_ns > m->host_ns ? m->gpu_ns - m->host_ns + 2000 : 2000;
    correlation = add_call(trace, m, 131, "cudaStreamSynchronize", waited, err, &status);
    struct store_synchronization sync = {
        1, 1, 7, STORE_NULL, STORE_SYNC_STREAM_SYNCHRONIZE, correlation, wait_start, m->host_ns};
    return status | store_insert_synchronization(trace, &sync, err);
}

/* A buffer handed to the writer: the steps [first, first + count). */
static int consume_steps(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                         error_info *err)
{
    (void)valid_bytes;
    struct mlp_stream *m = context;
    const struct span *steps = (const struct span *)buffer;
    for (int64_t step = steps->first; step < steps->first + steps->count; step++) {
        for (int64_t i = 0; i < STEP_KERNELS; i++)
            if (add_kernel_launch(trace, m, step * STEP_KERNELS + i, err) != 0)
                return -1;
        if (add_step_extras(trace, m, step, err) != 0)
            return -1;
    }
    return 0;
}

static int64_t file_bytes(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (int64_t)info.st_size : -1;
}

/* Records the stream as `overlapscope record` would: a per-process file through the writer
 * thread, then the merge into output. Returns the GPU activities in output, or -1. */
static int64_t record_mlp(const char *directory, const char *output, int64_t activities)
{
    error_info err;
    struct process_identity identity = {
        .pid = 4242, .parent_pid = 1, .rank = STORE_NULL, .local_rank = STORE_NULL, .world_size = STORE_NULL};
    snprintf(identity.host, sizeof identity.host, "bench");
    snprintf(identity.command_line, sizeof identity.command_line, "python3 mlp.py");
    struct process_file file;
    struct mlp_stream m = {.host_ns = BASE_NS, .gpu_ns = BASE_NS, .random = 88172645463325252ULL};
    if (process_file_create(&file, directory, &identity, BASE_NS, &err) != 0) {
        fprintf(stderr, "bench_writer: %s\n", err.message);
        return -1;
    }
    collector_writer *writer = collector_writer_start(file.trace, consume_steps, release_span, &m, &err);
    int64_t steps = activities / (STEP_KERNELS + 9) + 1;
    for (int64_t first = 0; writer && first < steps; first += 20) {
        struct span *span = malloc(sizeof *span);
        *span = (struct span){first, steps - first < 20 ? steps - first : 20};
        collector_writer_submit(writer, (uint8_t *)span, sizeof *span);
    }
    int status = writer ? collector_writer_stop(writer, &err) : -1;
    if (process_file_finish(&file, m.host_ns, 0, STORE_NULL, 0, status ? NULL : &err) != 0)
        status = -1;
    struct record_job_status job = {.pid = 4242, .exit_code = 0, .term_signal = 0};
    struct record_meta meta = {.command = "python3 mlp.py", .job = &job, .api_records = "analysis"};
    struct record_merge_result result;
    if (status != 0 || record_merge(directory, output, 1, NULL, &meta, 0, &result, &err) != 0) {
        fprintf(stderr, "bench_writer: %s\n", err.message);
        return -1;
    }
    sqlite3 *db = NULL;
    sqlite3_open_v2(output, &db, SQLITE_OPEN_READONLY, NULL);
    int64_t count = query_count(db, "SELECT (SELECT COUNT(*) FROM kernels) + (SELECT COUNT(*) FROM memcpys) +"
                                    " (SELECT COUNT(*) FROM memsets)");
    sqlite3_close(db);
    return count;
}

/* Copies every table of the version 2 trace at path into a new version 1 trace at copy (the
 * version 1 columns, read through the version 2 views), its indexes built after the rows as
 * version 1 writers built them. Returns 0 or -1. */
static int copy_as_version_1(const char *path, const char *copy)
{
    unlink(copy);
    sqlite3 *db = NULL;
    sqlite3_stmt *tables = NULL;
    char *attach = sqlite3_mprintf("PRAGMA page_size=8192; ATTACH %Q AS v2; BEGIN;", path);
    int status = sqlite3_open(copy, &db) == SQLITE_OK &&
                         sqlite3_exec(db, attach, NULL, NULL, NULL) == SQLITE_OK &&
                         sqlite3_exec(db, store_schema_v1_sql(), NULL, NULL, NULL) == SQLITE_OK &&
                         sqlite3_prepare_v2(db, "SELECT name FROM main.sqlite_schema WHERE type = 'table'",
                                            -1, &tables, NULL) == SQLITE_OK
                     ? 0
                     : -1;
    sqlite3_free(attach);
    while (status == 0 && sqlite3_step(tables) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(tables, 0);
        char columns[2048] = "";
        sqlite3_stmt *info = NULL;
        char *list = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q, 'main')", table);
        sqlite3_prepare_v2(db, list, -1, &info, NULL);
        sqlite3_free(list);
        while (info && sqlite3_step(info) == SQLITE_ROW)
            snprintf(columns + strlen(columns), sizeof columns - strlen(columns), "%s\"%s\"",
                     columns[0] ? ", " : "", (const char *)sqlite3_column_text(info, 0));
        sqlite3_finalize(info);
        char *insert = sqlite3_mprintf("DELETE FROM main.\"%w\"; INSERT INTO main.\"%w\" (%s) SELECT %s FROM"
                                       " v2.\"%w\"",
                                       table, table, columns, columns, table);
        status = sqlite3_exec(db, insert, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
        sqlite3_free(insert);
    }
    sqlite3_finalize(tables);
    if (status == 0)
        status =
            sqlite3_exec(db, "COMMIT; DETACH v2; REINDEX; ANALYZE;", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    if (status != 0)
        fprintf(stderr, "bench_writer: version 1 copy: %s\n", sqlite3_errmsg(db));
    sqlite3_close(db);
    return status;
}

static int bytes_per_activity(int64_t activities)
{
    char directory[] = "/tmp/bench_writer_mlp-XXXXXX";
    if (!mkdtemp(directory))
        return -1;
    char run[600], output[600], version_1[600];
    snprintf(run, sizeof run, "%s/run", directory);
    snprintf(output, sizeof output, "%s/mlp.db", directory);
    snprintf(version_1, sizeof version_1, "%s/mlp_v1.db", directory);
    mkdir(run, 0700);
    int64_t recorded = record_mlp(run, output, activities);
    int status = recorded > 0 && copy_as_version_1(output, version_1) == 0 ? 0 : -1;
    if (status == 0) {
        double v2 = (double)file_bytes(output) / (double)recorded;
        double v1 = (double)file_bytes(version_1) / (double)recorded;
        printf("GPU activities:       %lld (MLP-like stream, analysis API set: %.2f API records each)\n",
               (long long)recorded, (double)(STEP_KERNELS + 21) / (STEP_KERNELS + 9));
        printf("bytes per activity:   %.1f (schema v2)  target <= 150: %s\n", v2,
               v2 <= 150 ? "met" : "NOT met");
        printf("                      %.1f (the same rows as schema v1)  v2 / v1: %.2f\n", v1, v2 / v1);
    }
    if (getenv("BENCH_WRITER_KEEP")) { /* for a look inside: sqlite3 FILE 'SELECT * FROM dbstat' */
        printf("kept:                 %s, %s\n", output, version_1);
        return status;
    }
    unlink(output);
    unlink(version_1);
    record_remove_run_directory(run);
    rmdir(directory);
    return status;
}

int main(int argc, char **argv)
{
    int64_t rows = argc > 1 ? atoll(argv[1]) : 1000000;
    int repeats = argc > 2 ? atoi(argv[2]) : 3;
    int64_t activities = argc > 3 ? atoll(argv[3]) : 200000;
    char writer_path[] = "/tmp/bench_writer_collector.db", bare_path[] = "/tmp/bench_writer_bare.db";
    struct timing writer = {0, 0}, bare = {0, 0};
    int64_t written = 0;
    for (int i = 0; i < (repeats > 0 ? repeats : 1); i++) {
        keep_best(&writer, run_writer(writer_path, rows));
        written = count_kernels(writer_path);
        keep_best(&bare, run_bare_sqlite(bare_path, rows));
    }
    double writer_rate = rows / writer.cpu_seconds, bare_rate = rows / bare.cpu_seconds;
    printf("rows:                 %lld kernel records (%lld in the file), best of %d\n", (long long)rows,
           (long long)written, repeats);
    printf("collector writer:     %.0f rows per CPU second, %.0f per wall second  target >= 1000000: %s\n",
           writer_rate, rows / writer.wall_seconds, writer_rate >= 1e6 ? "met" : "NOT met");
    printf("bare SQLite baseline: %.0f rows per CPU second, %.0f per wall second\n", bare_rate,
           rows / bare.wall_seconds);
    printf("writer / baseline:    %.2f (CPU), %.2f (wall)\n", writer_rate / bare_rate,
           bare.wall_seconds / writer.wall_seconds);
    remove_files(writer_path);
    remove_files(bare_path);
    int sized = bytes_per_activity(activities);
    return written == rows && sized == 0 ? 0 : 1;
}
