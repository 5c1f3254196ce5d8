/* A recorded process killed with SIGKILL (no handler, no exit code runs) while its writer thread is
 * in the middle of a transaction: its per-process file, created as the collector creates it
 * (process_file.c: WAL, synchronous=OFF, rows batched 32 per INSERT), must open, pass SQLite's
 * integrity check and hold every buffer committed before the kill, whole buffers only. This is
 * issue 7.1's promise (a crash loses at most what came after the last periodic flush) for the
 * pragmas the collector uses. Each buffer also holds a kernel with a collectives row pointing at
 * its rowid, which the batched inserts hand out before the row is written: they must match. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "collector_writer.h"
#include "process_file.h"

enum { KERNELS_PER_BUFFER = 1000, BUFFERS_BEFORE_SIGNAL = 5 };

static int consume(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes, error_info *err)
{
    (void)context;
    (void)valid_bytes;
    int64_t first = *(const int64_t *)buffer;
    for (int64_t i = first; i < first + KERNELS_PER_BUFFER; i++) {
        struct store_kernel k = {.process_id = 1,
                                 .device_id = 0,
                                 .context_id = 1,
                                 .stream_id = 7,
                                 .correlation_id = i,
                                 .start_ns = 1000 * i,
                                 .end_ns = 1000 * i + 500,
                                 .queued_ns = STORE_NULL,
                                 .submitted_ns = STORE_NULL,
                                 .grid_x = 1,
                                 .block_x = 32,
                                 .graph_id = STORE_NULL,
                                 .graph_node_id = STORE_NULL,
                                 .priority = STORE_NULL,
                                 .name =
                                     i == first ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL" : "_Z4tinyPi"};
        int64_t rowid = 0;
        if (store_insert_kernel(trace, &k, &rowid, err) != 0)
            return -1;
        if (i != first)
            continue;
        struct store_collective collective = {.process_id = 1,
                                              .device_id = 0,
                                              .stream_id = 7,
                                              .op = "AllReduce",
                                              .bytes = STORE_NULL,
                                              .element_count = STORE_NULL,
                                              .root = STORE_NULL,
                                              .rank = STORE_NULL,
                                              .nranks = STORE_NULL,
                                              .sequence_number = STORE_NULL,
                                              .kernel_rowid = rowid,
                                              .start_ns = k.start_ns,
                                              .end_ns = k.end_ns,
                                              .detail_source = STORE_DETAIL_KERNEL_NAME};
        if (store_insert_collective(trace, &collective, err) != 0)
            return -1;
    }
    return 0;
}

static void release(void *context, uint8_t *buffer)
{
    (void)context;
    free(buffer);
}

static void submit(collector_writer *writer, int64_t index)
{
    int64_t *buffer = malloc(sizeof *buffer);
    *buffer = index * KERNELS_PER_BUFFER;
    collector_writer_submit(writer, (uint8_t *)buffer, sizeof *buffer);
}

/* The child: a collector's file and writer thread, fed until it is killed. */
static void record_until_killed(const char *directory, int pipe_to_parent)
{
    error_info err;
    struct process_identity identity;
    process_identity_read(&identity);
    struct process_file file;
    if (process_file_create(&file, directory, &identity, 0, &err) != 0)
        _exit(3);
    collector_writer *writer = collector_writer_start(file.trace, consume, release, NULL, &err);
    if (!writer)
        _exit(3);
    int64_t index = 0;
    for (; index < BUFFERS_BEFORE_SIGNAL; index++)
        submit(writer, index);
    collector_writer_drain(writer); /* committed, as after a periodic flush */
    char ready = 1;
    if (write(pipe_to_parent, &ready, 1) != 1)
        _exit(4);
    for (;; index++) {
        submit(writer, index);
        if (index % 4 == 0)
            collector_writer_drain(writer); /* keep the queue short: transactions of a few buffers */
    }
}

static int64_t count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *query = NULL;
    int64_t value = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW)
        value = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return value;
}

int main(void)
{
    char directory[] = "/tmp/overlapscope-process-crash-XXXXXX";
    if (!mkdtemp(directory))
        return 2;
    int fds[2];
    if (pipe(fds) != 0)
        return 2;
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        record_until_killed(directory, fds[1]);
    }
    close(fds[1]);
    char ready = 0;
    CHECK(read(fds[0], &ready, 1) == 1);
    usleep(30000); /* well into later transactions */
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    char path[256];
    snprintf(path, sizeof path, "%s/proc-%d-0.db", directory, (int)child);
    error_info err = {{0}};
    store *trace = store_open(path, 1, &err);
    CHECK(trace != NULL);
    if (!trace) {
        fprintf(stderr, "%s\n", err.message);
        return check_finish();
    }
    sqlite3 *db = store_db(trace);
    char *integrity = NULL;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        integrity = strdup((const char *)sqlite3_column_text(query, 0));
    sqlite3_finalize(query);
    CHECK_STR(integrity ? integrity : "(none)", "ok");
    free(integrity);
    int64_t kernels = count(db, "SELECT COUNT(*) FROM kernels");
    fprintf(stderr, "%lld kernels survived the kill\n", (long long)kernels);
    CHECK(kernels >= BUFFERS_BEFORE_SIGNAL * KERNELS_PER_BUFFER);
    CHECK_INT(kernels % KERNELS_PER_BUFFER, 0);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM processes WHERE end_ns IS NULL"), 1);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM collectives"), kernels / KERNELS_PER_BUFFER);
    CHECK_INT(count(db, "SELECT COUNT(*) FROM collectives c JOIN kernels k ON k.rowid = c.kernel_rowid"
                        " WHERE k.start_ns = c.start_ns AND k.correlation_id % 1000 = 0"),
              kernels / KERNELS_PER_BUFFER);
    store_close(trace, NULL);
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char name[300];
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        unlink(name);
    }
    rmdir(directory);
    return check_finish();
}
