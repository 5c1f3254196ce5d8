/* thread_names.h: the names a recording gives its threads (the threads table: "python3",
 * "pt_autograd_0"), looked up by (process, thread) for the evidence the report prints. Reads one
 * process's names at a time, when first asked about it. Memory: that process's names. */
#ifndef OVERLAPSCOPE_THREAD_NAMES_H
#define OVERLAPSCOPE_THREAD_NAMES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct thread_name {
    int64_t thread_id;
    char name[32];
};

struct thread_names {
    sqlite3 *db;
    int has_table;             /* the trace has a threads table */
    int64_t process_id;        /* whose names are held, INT64_MIN none */
    struct thread_name *items; /* by thread id */
    size_t count, capacity;
};

void thread_names_open(struct thread_names *names, sqlite3 *db);
void thread_names_close(struct thread_names *names);
/* The name of thread_id of process_id, NULL when the trace names none (or memory ran out reading
 * them: a name is never needed for a figure). */
const char *thread_names_find(struct thread_names *names, int64_t process_id, int64_t thread_id);

#endif
