/* The collector's writer thread and per-process files, then record's merge of several of them:
 * three "processes" write kernel rows through collector_writer (as the injected library does,
 * buffer by buffer, from another thread), one file is then damaged as a process killed mid-write
 * leaves it, and record_merge must keep every row of the good files, what can be read of the bad
 * one, and say so in a warning. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "collector_writer.h"
#include "process_file.h"
#include "record.h"

/* A test "buffer": n kernels, each made from its index. */
struct fake_buffer {
    int64_t first, count, process_id;
};

static int consume_fake(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                        error_info *err)
{
    (void)context;
    (void)valid_bytes;
    const struct fake_buffer *fake = (const struct fake_buffer *)buffer;
    for (int64_t i = fake->first; i < fake->first + fake->count; i++) {
        struct store_kernel k = {.process_id = fake->process_id,
                                 .device_id = 0,
                                 .context_id = 1,
                                 .stream_id = 13 + i % 2,
                                 .correlation_id = i,
                                 .start_ns = 1000 * i,
                                 .end_ns = 1000 * i + 500,
                                 .queued_ns = STORE_NULL,
                                 .submitted_ns = STORE_NULL,
                                 .grid_x = 1,
                                 .grid_y = 1,
                                 .grid_z = 1,
                                 .block_x = 128,
                                 .block_y = 1,
                                 .block_z = 1,
                                 .cluster_x = 0,
                                 .cluster_y = 0,
                                 .cluster_z = 0,
                                 .registers_per_thread = 32,
                                 .static_shared_bytes = 0,
                                 .dynamic_shared_bytes = 0,
                                 .local_memory_per_thread_bytes = 0,
                                 .local_memory_total_bytes = 0,
                                 .shared_memory_executed_bytes = 0,
                                 .shared_memory_config = 0,
                                 .launch_type = 0,
                                 .is_device_launched = 0,
                                 .graph_id = STORE_NULL,
                                 .graph_node_id = STORE_NULL,
                                 .channel_id = 0,
                                 .channel_type = 1,
                                 .priority = 0,
                                 .name = i % 3 ? "_Z10add_kernelPfS_S_i" : "_Z6reducePf"};
        if (store_insert_kernel(trace, &k, NULL, err) != 0)
            return -1;
    }
    return 0;
}

static void release_fake(void *context, uint8_t *buffer)
{
    (void)context;
    free(buffer);
}

/* One process's file with kernels_total kernels written through the writer thread. */
static void write_process(const char *directory, int64_t pid, int rank, int64_t kernels_total, char *path,
                          size_t size)
{
    char rank_text[16];
    snprintf(rank_text, sizeof rank_text, "%d", rank);
    setenv("RANK", rank_text, 1);
    setenv("WORLD_SIZE", "3", 1);
    struct process_identity identity;
    process_identity_read(&identity);
    identity.pid = pid; /* three "processes" from one test process */
    CHECK_INT(identity.rank, rank);
    CHECK_INT(identity.world_size, 3);
    CHECK_CONTAINS(identity.command_line, "test_collector_writer");
    struct process_file file;
    error_info err;
    CHECK_INT(process_file_create(&file, directory, &identity, 100, &err), 0);
    snprintf(path, size, "%s", file.path);
    collector_writer *writer = collector_writer_start(file.trace, consume_fake, release_fake, NULL, &err);
    CHECK(writer != NULL);
    for (int64_t first = 0; first < kernels_total; first += 1000) {
        struct fake_buffer *buffer = malloc(sizeof *buffer);
        *buffer = (struct fake_buffer){first, kernels_total - first < 1000 ? kernels_total - first : 1000,
                                       file.process_id};
        CHECK_INT(collector_writer_submit(writer, (uint8_t *)buffer, sizeof *buffer), 0);
        if (first == 2000)
            collector_writer_drain(writer); /* a periodic flush: committed so far */
    }
    CHECK_INT(collector_writer_stop(writer, &err), 0);
    CHECK_INT(process_file_finish(&file, 99999, 0, STORE_NULL, rank == 1 ? 7 : 0, &err), 0);
}

static int64_t count(const char *path, const char *sql)
{
    error_info err;
    store *trace = store_open(path, 1, &err);
    if (!trace) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    sqlite3_stmt *query = NULL;
    int64_t value = -1;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        value = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    store_close(trace, NULL);
    return value;
}

/* Shows the merged trace's warnings: what a reader of a failure needs. */
static void print_warnings(const char *path)
{
    error_info err;
    store *trace = store_open(path, 1, &err);
    if (!trace)
        return;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(store_db(trace), "SELECT code, message FROM warnings", -1, &query, NULL) ==
        SQLITE_OK)
        while (sqlite3_step(query) == SQLITE_ROW)
            printf("warning: %s: %s\n", sqlite3_column_text(query, 0), sqlite3_column_text(query, 1));
    sqlite3_finalize(query);
    store_close(trace, NULL);
}

/* What a process killed while SQLite wrote leaves: the file cut short. */
static void damage(const char *path)
{
    struct stat info;
    stat(path, &info);
    CHECK_INT(truncate(path, info.st_size / 2), 0);
}

int main(void)
{
    char directory[] = "/tmp/overlapscope-writer-XXXXXX";
    if (!mkdtemp(directory))
        return 1;
    char run[512], output[512], paths[3][4096];
    snprintf(run, sizeof run, "%s/run", directory);
    mkdir(run, 0700);
    snprintf(output, sizeof output, "%s/out.db", directory);
    write_process(run, 1001, 0, 5000, paths[0], sizeof paths[0]);
    write_process(run, 1002, 1, 3500, paths[1], sizeof paths[1]);
    write_process(run, 1003, 2, 40000, paths[2], sizeof paths[2]);
    CHECK_CONTAINS(paths[0], "/proc-1001-0.db");
    CHECK_INT(count(paths[0], "SELECT COUNT(*) FROM kernels"), 5000);
    /* Issue 15 Must 2: no reader index is maintained row by row while the job runs (only the
     * writers' own on kernel_shapes and api_functions, a row per distinct shape or function); the
     * merge builds all twelve of store/indexes.sql once (below). */
    CHECK_INT(count(paths[0], "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
                              " AND name NOT LIKE '%_by_value'"),
              0);
    CHECK_INT(count(paths[1], "SELECT end_ns FROM processes"), 99999);
    CHECK_INT(count(paths[1], "SELECT dropped_records FROM processes"), 7);
    CHECK_INT(count(paths[1], "SELECT exit_status FROM processes"), 0);
    CHECK_INT(count(paths[1], "SELECT COUNT(*) FROM processes WHERE term_signal IS NULL"), 1);

    /* The third file is cut in half, as a process killed mid-write can leave it. */
    damage(paths[2]);
    struct record_job_status job = {.pid = 1001, .exit_code = 0, .term_signal = 9};
    struct record_meta meta = {.command = "python3 train.py", .job = &job};
    struct record_merge_result result;
    error_info err;
    int status = record_merge(run, output, 1, NULL, &meta, 100, &result, &err);
    if (status != 0)
        fprintf(stderr, "%s\n", err.message);
    CHECK_INT(status, 0);
    print_warnings(output);
    CHECK_INT(result.files, 3);
    CHECK_INT(result.damaged_files, 1);
    CHECK_INT(result.dropped_records, 7);
    CHECK_INT(count(output,
                    "SELECT COUNT(*) FROM kernels k JOIN processes p USING (process_id) WHERE p.pid = 1001"),
              5000);
    CHECK_INT(count(output,
                    "SELECT COUNT(*) FROM kernels k JOIN processes p USING (process_id) WHERE p.pid = 1002"),
              3500);
    int64_t salvaged = count(output, "SELECT COUNT(*) FROM kernels k JOIN processes p USING (process_id)"
                                     " WHERE p.pid = 1003");
    CHECK(salvaged < 40000);
    CHECK_INT(result.kernels, 8500 + salvaged);
    CHECK_INT(count(output, "SELECT COUNT(*) FROM processes"), 3);
    CHECK_INT(count(output, "SELECT COUNT(DISTINCT rank) FROM processes"), 3);
    CHECK_INT(
        count(output,
              "SELECT COUNT(*) FROM warnings WHERE code = 'damaged-file' AND message LIKE '%proc-1003-0%'"),
        1);
    /* The job (pid 1001) was killed by SIGKILL after its collector completed the file: its own
     * exit status stays; the trace says the job was killed. */
    CHECK_INT(count(output, "SELECT COUNT(*) FROM warnings WHERE code = 'killed'"), 1);
    CHECK_INT(count(output, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'exit_status'"), 137);
    CHECK_INT(count(output, "SELECT COUNT(*) FROM meta WHERE key = 'source' AND value = 'record'"), 1);
    CHECK_INT(count(output, "SELECT COUNT(*) FROM meta WHERE key = 'command' AND value = 'python3 train.py'"),
              1);
    /* Finalized: indexes exist, rollback journal. */
    CHECK_INT(
        count(output, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'kernels_by_lane'"),
        1);
    CHECK_INT(count(output, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
                            " AND name NOT LIKE '%_by_value'"),
              12);
    /* No temporary file left beside the output. */
    char partial[600];
    snprintf(partial, sizeof partial, "%s/.out.db.partial-%d", directory, (int)getpid());
    CHECK(access(partial, F_OK) != 0);

    /* A file that is not a trace at all (garbage from the start) loses nothing else either. */
    char garbage[600];
    snprintf(garbage, sizeof garbage, "%s/proc-1004-0.db", run);
    int fd = open(garbage, O_WRONLY | O_CREAT, 0644);
    CHECK_INT(write(fd, "garbage, not SQLite", 19), 19);
    close(fd);
    damage(paths[2]);
    unlink(output);
    status = record_merge(run, output, 1, NULL, &meta, 100, &result, &err);
    CHECK_INT(status, 0);
    CHECK_INT(result.files, 4);
    CHECK_INT(count(output,
                    "SELECT COUNT(*) FROM kernels k JOIN processes p USING (process_id) WHERE p.pid = 1002"),
              3500);
    CHECK_INT(count(output, "SELECT COUNT(*) FROM processes WHERE pid = 1004"), 1);

    record_remove_run_directory(run);
    unlink(output);
    rmdir(directory);
    return check_finish();
}
