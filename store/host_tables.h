/* host_tables.h: the host side of a trace (schema version 3, store/schema.sql's last four tables):
 * per-thread samples of the recorded processes (scheduler state, CPU time, Python stack), the CPU
 * time of every process of the job, children included, and the allow-listed environment
 * variables (collector/environment_facts.h). The collector writes them through the inserts below
 * (cached statements, inside the writer's transaction like every other insert of writes.c);
 * `info` reads the summary; the analyzer asks the questions of store_host (its host-sample
 * verdicts: analyzer/accounting/host_samples.h). A trace of version 1 or 2, or one recorded with
 * sampling off, has no samples: the summary says so (has_tables 0) and the questions answer "not
 * sampled" and no rows instead of failing. */
#ifndef OVERLAPSCOPE_STORE_HOST_TABLES_H
#define OVERLAPSCOPE_STORE_HOST_TABLES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

/* The innermost line of a host stack taken while CPython's garbage collector ran on the thread
 * (collector/python_gc.h: a gc.callbacks hook says which thread collects); the lines after it are
 * the Python frames the collection ran under, the line that allocated or called gc.collect(). */
#define STORE_HOST_GC_FRAME "<gc> gc.collect (garbage collection running)"

/* Whether name is one of the four tables version 3 added (store/checks.c lets a version 2 trace
 * lack them). */
int store_is_host_table(const char *name);

/* One sample of one thread. state: the letter of /proc/PID/task/TID/stat as read (R, S, D, ...;
 * '?' when read back empty); stack_id: host_stacks.id, or STORE_NULL when nothing could be read. */
struct store_host_sample {
    int64_t pid, tid, time_ns;
    char state;
    int64_t cpu_ns;
    int64_t stack_id;
};

struct store_process_cpu_sample {
    int64_t pid, parent_pid, time_ns, cpu_ns;
    char state;
    const char *name;
};

/* Each returns 0 or -1 with err filled. store_insert_host_stack writes the stack under the id the
 * caller chose (the collector numbers its stacks as it meets them); frames as schema.sql says. */
int store_insert_host_stack(store *s, int64_t id, const char *frames, error_info *err);
int store_insert_host_sample(store *s, const struct store_host_sample *row, error_info *err);
int store_insert_process_cpu_sample(store *s, const struct store_process_cpu_sample *row, error_info *err);
int store_insert_environment_variable(store *s, int64_t pid, const char *name, const char *value,
                                      error_info *err);

/* What `info` says about the host side. */
struct store_host_summary {
    int has_tables;    /* 0: a trace of version 1 or 2 (or an import): nothing below */
    int recorded;      /* meta host_sample_hz is set: written by record (imports have no host side) */
    int64_t sample_hz; /* meta host_sample_hz; 0 when not sampled or not a whole positive number */
    int hz_invalid;    /* host_sample_hz is neither 0 nor a whole positive number: the samples are not used */
    char hz_text[32];  /* host_sample_hz as stored (cut), to name it when invalid */
    int64_t thread_samples, stacks, process_samples, processes_sampled;
};
int store_host_summary(store *trace, struct store_host_summary *summary, error_info *err);

/* Every stored environment variable, ordered by pid then name; stops at a non-zero return of
 * visit and returns it. A trace without the table has none (returns 0). */
typedef int store_environment_visit(void *context, int64_t pid, const char *name, const char *value);
int store_each_environment_variable(store *trace, store_environment_visit *visit, void *context,
                                    error_info *err);

/* --- the analyzer's questions --- */

typedef struct store_host store_host;

/* Prepares the questions on db (which must outlive them). NULL with err filled only when out of
 * memory or when the tables exist but cannot be read. */
store_host *store_host_open(sqlite3 *db, error_info *err);
void store_host_close(store_host *queries);

/* The rate the trace's host samples were taken at (meta host_sample_hz), 0 when the trace was not
 * sampled: the tables absent (schema 1 or 2), the meta row absent or "0". */
int64_t store_host_sample_hz(const store_host *queries);
/* 1 when the trace says at which rate it sampled, 0 included (the meta row host_sample_hz of a
 * recording made with sampling off): a trace that could have been sampled and was not. 0 when the
 * row is absent (an older trace, an import, a rewrite of one). */
int store_host_rate_recorded(const store_host *queries);

/* The OS pid of a trace process (processes.pid), STORE_NULL when unknown. */
int64_t store_host_pid_of(store_host *queries, int64_t process_id);

/* The samples of process pid taken in [from_ns, to_ns), of thread tid or of every thread when tid
 * is STORE_NULL, in time order (then thread), at most capacity into samples. Returns how many were
 * written (more may exist), -1 on a read error (err filled). */
long store_host_samples(store_host *queries, int64_t pid, int64_t tid, int64_t from_ns, int64_t to_ns,
                        struct store_host_sample *samples, size_t capacity, error_info *err);

/* The frames of a stack (host_stacks.frames: innermost first, one "FILE:LINE FUNCTION" a line),
 * copied into frames (cut to size). Returns 1 when found, 0 when not (frames ""). */
int store_host_stack(store_host *queries, int64_t stack_id, char *frames, size_t size);

/* A child process's CPU over a window: the sum of its samples' cpu_ns taken in (from_ns, to_ns],
 * how many samples that was, and how many of them found its main thread sleeping (S) or in disk
 * wait (D). */
struct store_host_child {
    int64_t pid, cpu_ns, samples, sleeping, disk_wait;
    char name[32];
};
/* The children of parent_pid (process_cpu_samples.parent_pid) with a sample in (from_ns, to_ns], by
 * pid, at most capacity. Returns how many were written, -1 on a read error (err filled). */
long store_host_children(store_host *queries, int64_t parent_pid, int64_t from_ns, int64_t to_ns,
                         struct store_host_child *children, size_t capacity, error_info *err);

/* Process pid's own CPU time (all its threads, sampled or not) over (from_ns, to_ns]: the sum of
 * its process_cpu_samples' cpu_ns, into cpu_ns (0 without samples). Returns 0, or -1 on a read
 * error (err filled). */
int store_host_process_cpu(store_host *queries, int64_t pid, int64_t from_ns, int64_t to_ns, int64_t *cpu_ns,
                           error_info *err);

#endif
