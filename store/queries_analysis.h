/* queries_analysis.h: the store's answers to the analysis's walk of the devices (analyzer/analysis.c
 * and the device walk): the span of each device's activity, a process's pid and rank, a device's
 * limits and a stream's kind. A reader holds its prepared statements, made once per connection and
 * asked once per device or stream; free it with store_analysis_reader_free (NULL is a no-op). One
 * reader serves one thread, on that thread's connection. */
#ifndef OVERLAPSCOPE_QUERIES_ANALYSIS_H
#define OVERLAPSCOPE_QUERIES_ANALYSIS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "gpu_devices.h"

/* Refuses a trace in which a device's first and last starts (of its kernels, copies or memsets) lie
 * further apart than any recording, or outside any clock: sums of its times could overflow. Two
 * index seeks per table per device. Returns 0, or -1 with err filled ("the trace is damaged: ...",
 * or "cannot read GPU activity: ..."). */
int store_check_device_spans(sqlite3 *db, const struct store_gpu_device *devices, size_t count,
                             error_info *err);

/* Opens one read transaction on db for a whole analysis, when db is in none: outside one, SQLite
 * takes and drops its file lock and checks for a hot journal on every query, a few per device (80k
 * devices: 21 s). Returns 1 when it opened one (end it with store_read_transaction_end), else 0. */
int store_read_transaction_begin(sqlite3 *db);
void store_read_transaction_end(sqlite3 *db);

typedef struct store_analysis_reader store_analysis_reader;

/* NULL with err filled ("cannot read the trace: ...") when a statement cannot be prepared. */
store_analysis_reader *store_analysis_reader_open(sqlite3 *db, error_info *err);
void store_analysis_reader_free(store_analysis_reader *reader);

/* The pid and rank of a process, each -1 where unknown or NULL; left as given when there is no
 * such process. */
void store_analysis_process(store_analysis_reader *reader, int64_t process_id, int64_t *pid, int64_t *rank);

/* A devices row as the analysis reads it: a NULL count reads 0, a NULL copy_engine_count
 * STORE_NULL, a NULL name "". */
struct store_device_row {
    char name[64];
    int64_t sm_count, compute_capability_major, compute_capability_minor, max_blocks_per_sm, max_warps_per_sm,
        max_threads_per_sm, max_threads_per_block, max_registers_per_sm, max_registers_per_block,
        max_shared_memory_per_sm, copy_engine_count, warp_size;
};
/* 1 with *row filled, 0 when the trace has no row for the device. */
int store_analysis_device(store_analysis_reader *reader, int64_t process_id, int64_t device_id,
                          struct store_device_row *row);

/* A streams row of the process's stream on the device (or on no device): NULL flags read 0, a NULL
 * priority or flags STORE_NULL. */
struct store_stream_row {
    int is_legacy_default, is_per_thread_default;
    int64_t priority, flags;
};
/* 1 with *row filled, 0 when the trace has no row for the stream. */
int store_analysis_stream(store_analysis_reader *reader, int64_t process_id, int64_t stream_id,
                          int64_t device_id, struct store_stream_row *row);

#endif
