/* queries_host.h: the questions the analyzer asks of a trace's host samples (schema version 3,
 * docs/trace-format.md): whether the trace was sampled, the samples of a thread in a time window,
 * a sampled stack's frames and the CPU the children of a process (DataLoader workers) used in a
 * window. A trace of schema 1 or 2 (the tables absent) or one recorded with sampling off answers
 * "not sampled" and no rows; nothing here fails on it. */
#ifndef OVERLAPSCOPE_QUERIES_HOST_H
#define OVERLAPSCOPE_QUERIES_HOST_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

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

/* One sample of one thread. state: the scheduler letter as read ('R', 'S', 'D', ...; '?' when
 * empty); stack_id STORE_NULL when nothing could be read. */
struct store_host_sample {
    int64_t tid, time_ns, cpu_ns, stack_id;
    char state;
};
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
