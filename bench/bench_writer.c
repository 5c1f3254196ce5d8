/* bench_writer.c: the collector writer's speed on synthetic kernel records, on the CPU.
 *
 * Writes N kernel rows through collector_writer (the thread, the queue, store_insert_kernel with
 * its interned names and batched transactions) into a file created as process_file.c creates
 * one, and the same N rows with a bare prepared INSERT in one transaction into an identical table
 * (default pragmas plus WAL and synchronous=OFF): the baseline a plain SQLite writer reaches. Both
 * times include closing the file (the final WAL checkpoint). The machine this runs on is shared,
 * so each side runs REPEATS times, interleaved, and the best run counts; rows/s are given per
 * second of CPU time (what one free core would do) and per second of wall time.
 * Target: >= 1M rows/s. Usage: bench_writer [ROWS] [REPEATS] (defaults 1000000, 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector_writer.h"

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

static int64_t count_kernels(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *query = NULL;
    int64_t rows = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM kernels", -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        rows = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
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

int main(int argc, char **argv)
{
    int64_t rows = argc > 1 ? atoll(argv[1]) : 1000000;
    int repeats = argc > 2 ? atoi(argv[2]) : 3;
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
    return written == rows ? 0 : 1;
}
