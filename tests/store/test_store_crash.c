/* test_store_crash.c: a writer killed in the middle of a transaction (SIGKILL: no handler runs)
 * leaves a trace that opens, holds exactly the batches committed before the kill, and merges.
 * This is the store's half of the promise that a crashed workload loses at most the rows since
 * the last periodic flush. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

enum { BATCH_ROWS = 1000 };

static void write_until_killed(const char *path, int pipe_to_parent)
{
    error_info err;
    store *s = store_create(path, STORE_FAST_UNSAFE, &err);
    if (!s)
        _exit(3);
    store_set_batch_rows(s, BATCH_ROWS);
    store_begin(s, &err);
    struct store_process process = {.pid = getpid(),
                                    .parent_pid = STORE_NULL,
                                    .rank = STORE_NULL,
                                    .local_rank = STORE_NULL,
                                    .world_size = STORE_NULL,
                                    .start_ns = STORE_NULL,
                                    .end_ns = STORE_NULL,
                                    .exit_status = STORE_NULL,
                                    .term_signal = STORE_NULL};
    store_insert_process(s, &process, &err);
    for (int64_t i = 1;; i++) {
        struct store_kernel kernel = {.process_id = 1,
                                      .device_id = 0,
                                      .stream_id = 7,
                                      .start_ns = i * 10,
                                      .end_ns = i * 10 + 5,
                                      .name = "k"};
        store_insert_kernel(s, &kernel, NULL, &err);
        /* Tell the parent once several batches are durable, then keep writing mid-transaction. */
        if (i == 5 * BATCH_ROWS + BATCH_ROWS / 2) {
            char ready = 1;
            if (write(pipe_to_parent, &ready, 1) != 1)
                _exit(4);
        }
    }
}

int main(void)
{
    char directory[] = "/tmp/overlapscope-test-crash-XXXXXX";
    if (!mkdtemp(directory))
        return 2;
    char path[256], joined[256];
    snprintf(path, sizeof path, "%s/proc.db", directory);
    snprintf(joined, sizeof joined, "%s/joined.db", directory);
    int fds[2];
    if (pipe(fds) != 0)
        return 2;
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        write_until_killed(path, fds[1]);
    }
    close(fds[1]);
    char ready = 0;
    CHECK(read(fds[0], &ready, 1) == 1);
    usleep(20000); /* let it get well into the next transaction */
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    error_info err = {{0}};
    store *s = store_open(path, 1, &err);
    CHECK(s != NULL);
    if (!s) {
        fprintf(stderr, "%s\n", err.message);
        return check_finish();
    }
    sqlite3_stmt *q = NULL;
    int64_t rows = -1;
    if (sqlite3_prepare_v2(store_db(s), "SELECT COUNT(*) FROM kernels", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        rows = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    /* Rows arrive in whole batches (the process row counts in the first batch), and at least the
     * five batches written before the signal to the parent are there. */
    CHECK((rows + 1) % BATCH_ROWS == 0);
    CHECK(rows >= 5 * BATCH_ROWS - 1);
    store_close(s, NULL);

    store *out = store_create(joined, 0, &err);
    CHECK(out != NULL);
    CHECK(out && store_append_trace(out, path, 0, NULL, &err) == 0);
    CHECK(out && store_finalize(out, &err) == 0);
    store_close(out, NULL);
    char command[320];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
