/* queries_ranges.h: the questions the step finder (analyzer/steps.c) asks of a trace's NVTX
 * ranges (push/pop and start/end; marks, kind 3, are no ranges): which messages they carry, each
 * range (of all processes, or of one process under one message), the GPU time of the work a thread
 * launched within each host range, and a process's rank (steps are labelled by it). */
#ifndef OVERLAPSCOPE_QUERIES_RANGES_H
#define OVERLAPSCOPE_QUERIES_RANGES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* One NVTX range. thread_id STORE_NULL when unknown; on_device: the range is on a device's
 * timeline (a device id is set), its times already GPU time. */
struct store_nvtx_range {
    int64_t thread_id, start_ns, end_ns, process_id, message_id;
    int on_device;
};

/* A visit returning non-zero stops a walk below, which then returns that value. */
typedef int store_nvtx_range_visit(void *context, const struct store_nvtx_range *range);

/* Each range of process_id whose message is name, in the table's order. 0 when every row was
 * visited (a read error ends the walk as if the rows ended), the visit's value when it stopped,
 * -1 with err filled when the ranges cannot be read. */
int store_each_named_range(sqlite3 *db, int64_t process_id, const char *name, store_nvtx_range_visit *visit,
                           void *context, error_info *err);
/* Each range of every process, in the table's order; returns as store_each_named_range. */
int store_each_range(sqlite3 *db, store_nvtx_range_visit *visit, void *context, error_info *err);

/* Each message a range carries (a strings row: id and text, NULL in a damaged strings table), in
 * the strings table's order; returns as store_each_named_range. */
typedef int store_range_message_visit(void *context, int64_t message_id, const char *text);
int store_each_range_message(sqlite3 *db, store_range_message_visit *visit, void *context, error_info *err);

/* A host range of one thread, and the GPU time of the work (kernels, copies, memsets) launched by
 * the calls of that thread that started in [host_start_ns, host_end_ns): found 1 with [start_ns,
 * end_ns] its first start and last end, found 0 when there is none (or thread_id is STORE_NULL: a
 * range not to map). */
struct store_launched_span {
    int64_t process_id, thread_id, host_start_ns, host_end_ns; /* the caller's */
    int64_t start_ns, end_ns;                                  /* the store's */
    int found;
};

/* Maps every span (any order, any processes) in one read per process of its GPU ops and API calls
 * (through the by-correlation indexes), not a query per span: a trace of 100,000 steps maps them in
 * a pass (issue 32). Linear in the rows read and the spans times the processes (give the spans of
 * one process at a time, on as many connections as there are threads: the analysis does), plus
 * the calls that each span covers (spans on one thread that nest are each walked). Returns 0, or -1 with err
 * filled (out of memory, or the tables cannot be read). */
int store_launched_work_times(sqlite3 *db, struct store_launched_span *spans, size_t count, error_info *err);

/* The lists store_launched_work_times_in fills, kept from one call to the next by one thread: a
 * worker mapping one process after another reuses their memory rather than asking glibc for a
 * megabyte or two per process, which it maps and unmaps each time (cli/main.c's mmap threshold),
 * faulting in fresh pages that all workers' threads contend for. Zero it before the first call;
 * free with store_launch_buffers_free. */
struct store_launch_buffers {
    void *ops, *launches;
    size_t ops_capacity, launches_capacity;
};

/* store_launched_work_times with buffers. */
int store_launched_work_times_in(sqlite3 *db, struct store_launched_span *spans, size_t count,
                                 struct store_launch_buffers *buffers, error_info *err);

void store_launch_buffers_free(struct store_launch_buffers *buffers);

/* *rank: process_id's rank, -1 when the trace knows none. Returns 0, or -1 when the question cannot
 * be asked (*rank untouched). */
int store_process_rank(sqlite3 *db, int64_t process_id, int64_t *rank);

#endif
