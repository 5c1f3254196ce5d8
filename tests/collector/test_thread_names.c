/* The threads table the collector writes (collector/thread_names.c): a thread renamed after its
 * first recorded call is written under its name at the end; one that ended keeps the name it had
 * when noted; one that made no recorded call but still runs is named from /proc; a fork child
 * forgets the parent's threads. Names are read back from the trace as `info` reads them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "thread_names.h"

static pthread_barrier_t started, finish;

struct worker {
    const char *first, *later; /* later NULL: keeps its first name */
    int note;                  /* noted as a recorded call would */
    int stays;                 /* runs until the names are written */
    uint32_t tid;
};

static void *worker_main(void *argument)
{
    struct worker *w = argument;
    prctl(PR_SET_NAME, w->first, 0, 0, 0);
    w->tid = (uint32_t)gettid();
    if (w->note)
        thread_names_note(w->tid);
    if (w->later)
        prctl(PR_SET_NAME, w->later, 0, 0, 0);
    if (w->stays) {
        pthread_barrier_wait(&started);
        pthread_barrier_wait(&finish);
    }
    return NULL;
}

/* The name the trace gives thread tid, "" when none. */
static void name_of(store *trace, uint32_t tid, char *out, size_t size)
{
    sqlite3_stmt *query = NULL;
    out[0] = '\0';
    sqlite3_prepare_v2(store_db(trace),
                       "SELECT s.value FROM threads t JOIN strings s ON s.id = t.name_id"
                       " WHERE t.process_id = 1 AND t.thread_id = ?1",
                       -1, &query, NULL);
    sqlite3_bind_int64(query, 1, tid);
    if (sqlite3_step(query) == SQLITE_ROW)
        snprintf(out, size, "%s", (const char *)sqlite3_column_text(query, 0));
    sqlite3_finalize(query);
}

int main(void)
{
    char path[] = "/tmp/test_thread_names_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    error_info err = {0};
    store *trace = store_create(path, STORE_OVERWRITE, &err);
    CHECK(trace != NULL);
    if (!trace)
        return check_finish();

    struct worker renamed = {"pt_early", "pt_autograd_0", 1, 1, 0};
    struct worker ended = {"pt_gone", NULL, 1, 0, 0};
    struct worker unnoted = {"pt_quiet", NULL, 0, 1, 0};
    pthread_barrier_init(&started, NULL, 3);
    pthread_barrier_init(&finish, NULL, 3);
    pthread_t threads[3];
    pthread_create(&threads[1], NULL, worker_main, &ended);
    pthread_join(threads[1], NULL); /* it has ended before the names are written */
    pthread_create(&threads[0], NULL, worker_main, &renamed);
    pthread_create(&threads[2], NULL, worker_main, &unnoted);
    pthread_barrier_wait(&started);

    /* A fork child forgets the parent's threads: it writes none of them. */
    pid_t child = fork();
    if (child == 0) {
        thread_names_forget_after_fork();
        char child_path[64];
        snprintf(child_path, sizeof child_path, "%s.child", path);
        error_info child_err = {0};
        store *child_trace = store_create(child_path, STORE_OVERWRITE, &child_err);
        int named = child_trace ? thread_names_write(child_trace, 1, &child_err) : -1;
        char name[32];
        if (child_trace)
            name_of(child_trace, ended.tid, name, sizeof name);
        store_close(child_trace, &child_err);
        unlink(child_path);
        _exit(named == 1 && child_trace && name[0] == '\0' ? 0 : 1); /* only its own one thread */
    }
    int child_status = 0;
    waitpid(child, &child_status, 0);
    CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);

    int named = thread_names_write(trace, 1, &err);
    pthread_barrier_wait(&finish);
    for (int i = 0; i < 3; i += 2)
        pthread_join(threads[i], NULL);
    CHECK(named >= 4); /* the three workers' two running ones, the ended one, this thread */
    char name[32];
    name_of(trace, renamed.tid, name, sizeof name);
    CHECK_STR(name, "pt_autograd_0");
    name_of(trace, ended.tid, name, sizeof name);
    CHECK_STR(name, "pt_gone");
    name_of(trace, unnoted.tid, name, sizeof name);
    CHECK_STR(name, "pt_quiet");
    store_close(trace, &err);
    unlink(path);
    return check_finish();
}
