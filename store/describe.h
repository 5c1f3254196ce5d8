/* describe.h: the store's answers to what the readers of a trace ask (info, the summaries of
 * import and record, the painter's lane titles and labels): row counts, the GPU span, and the
 * descriptions of processes, devices, streams, warnings and collectives. Nobody outside store/
 * writes SQL against the tables (writers aside), so the schema stays this module's to change.
 *
 * The store_each_* functions hand each row to a callback, whose strings live until it returns;
 * a callback returning non-zero stops the walk, and that value is returned. Error messages do
 * not name the trace: the caller prefixes its path (store_path). */
#ifndef OVERLAPSCOPE_STORE_DESCRIBE_H
#define OVERLAPSCOPE_STORE_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

enum store_table {
    STORE_TABLE_PROCESSES,
    STORE_TABLE_KERNELS,
    STORE_TABLE_MEMCPYS,
    STORE_TABLE_MEMSETS,
    STORE_TABLE_SYNCHRONIZATIONS,
    STORE_TABLE_CUDA_EVENTS,
    STORE_TABLE_API_CALLS,
    STORE_TABLE_NVTX,
    STORE_TABLE_COLLECTIVES,
    STORE_TABLE_STREAMS,
    STORE_TABLE_WARNINGS,
    STORE_TABLE_OS_CALLS /* api_calls of the OS runtime (imports); STORE_TABLE_API_CALLS counts CUDA's */
};

/* Rows of a table; 0 when it cannot be read. */
int64_t store_count_rows(store *trace, enum store_table table);

/* Dropped activity records over every process. */
int64_t store_count_dropped_records(store *trace);

/* First start and last end of any kernel, copy or memset (a scan: no index orders by end).
 * Returns 1, 0 when the trace has no GPU activity, or -1 with err filled (also when they lie
 * outside store.h's bounds: a damaged trace). Either pointer may be NULL. */
int store_gpu_span(store *trace, int64_t *first_start_ns, int64_t *last_end_ns, error_info *err);
/* store_gpu_span's check of a span read another way (store_gpu_rows_span per range of rows, the
 * shares' spans together: store_gpu_devices_span): 1 when it lies on the clock, else -1 with err
 * filled as store_gpu_span fills it. */
int store_gpu_span_check(store *trace, int64_t first_start_ns, int64_t last_end_ns, error_info *err);

/* Every process, ordered by rank then pid. row's strings are NULL when unknown. */
typedef int store_process_visit(void *context, const struct store_process *row);
int store_each_process(store *trace, store_process_visit *visit, void *context, error_info *err);

/* Every device with its process's pid and rank (STORE_NULL when unknown), ordered by rank, pid
 * and device. Filled: the name, SM count, compute capability, blocks, warps, registers and
 * shared memory per SM and global memory; the other fields are STORE_NULL. */
typedef int store_device_visit(void *context, const struct store_device *row, int64_t pid, int64_t rank);
int store_each_device(store *trace, store_device_visit *visit, void *context, error_info *err);

/* Every warning in the order written, with its process's pid (STORE_NULL when none). */
typedef int store_warning_visit(void *context, const struct store_warning *row, int64_t pid);
int store_each_warning(store *trace, store_warning_visit *visit, void *context, error_info *err);

/* The collectives per operation, most frequent first: count and total bytes (STORE_NULL when
 * unknown). */
typedef int store_collective_total_visit(void *context, const char *op, int64_t count, int64_t bytes);
int store_each_collective_total(store *trace, store_collective_total_visit *visit, void *context,
                                error_info *err);

/* A process's pid and rank (-1 each when unknown or when there is no such process). */
void store_process_identity(store *trace, int64_t process_id, int64_t *pid, int64_t *rank);

/* What the streams table says of a stream: whether it is the legacy default stream and its
 * label (""). Returns 1 when the stream is described, 0 when not. */
int store_stream_description(store *trace, int64_t process_id, int64_t device_id, int64_t stream_id,
                             int *is_legacy_default, char *label, size_t size);

/* A device's name into name (""). Returns 1 when known, 0 when not. */
int store_device_name(store *trace, int64_t process_id, int64_t device_id, char *name, size_t size);

/* The command line of the first process (by rank, then id) that has one, malloc'd (caller
 * frees), or NULL. */
char *store_first_command_line(store *trace);

/* The hosts the processes ran on, distinct, sorted, joined by ", " ("node0, node1"); NULL when no
 * process names its host. Caller frees. */
char *store_process_hosts(store *trace);

/* Per-row lookups a reader makes many of (prepared once): interned strings and the collective
 * a kernel ran. Free with store_lookup_free. */
typedef struct store_lookup store_lookup;
store_lookup *store_lookup_new(store *trace, error_info *err);
void store_lookup_free(store_lookup *lookup);
/* The interned string id into buffer ("" when unknown). Returns buffer. */
char *store_lookup_string(store_lookup *lookup, int64_t id, char *buffer, size_t size);
/* The operation and bytes (STORE_NULL when unknown) of the collective kernel_rowid ran. Returns 1
 * when there is one, 0 when not. */
int store_lookup_collective(store_lookup *lookup, int64_t kernel_rowid, char *op, size_t size,
                            int64_t *bytes);

/* --- the rows a picture reads (render/reader.c) --- */

/* The ids of the processes of a rank, sorted: *ids is malloc'd (caller frees; NULL when none).
 * Returns 0, or -1 with err filled. */
int store_processes_of_rank(store *trace, int64_t rank, int64_t **ids, size_t *count, error_info *err);

/* One GPU interval with the columns a picture draws; STORE_NULL where a column is NULL or the
 * table has none. */
struct store_gpu_row {
    int64_t process_id, device_id, stream_id, start_ns, end_ns;
    int64_t name_id, rowid;                                              /* kernels */
    int64_t bytes;                                                       /* memcpys, memsets */
    int64_t copy_kind, src_kind, dst_kind, src_device_id, dst_device_id; /* memcpys */
};
typedef int store_gpu_row_visit(void *context, const struct store_gpu_row *row);
/* Every row of a GPU table (STORE_TABLE_KERNELS, _MEMCPYS or _MEMSETS) in storage order: a scan
 * reads the table's pages once, in order, where walking the by-lane index in time order would
 * fetch every row by a random lookup. */
int store_scan_gpu_table(store *trace, enum store_table table, store_gpu_row_visit *visit, void *context,
                         error_info *err);

/* One API call (string_id: its name) or NVTX range (string_id: its message; thread_id -1 and
 * depth 0 when unknown). */
struct store_host_row {
    int64_t process_id, thread_id, depth, start_ns, end_ns, string_id;
};
typedef int store_host_row_visit(void *context, const struct store_host_row *row);
/* The API calls (STORE_TABLE_API_CALLS) or NVTX ranges (STORE_TABLE_NVTX) that meet
 * [start_ns, end_ns], of rank's processes (every process when rank < 0), in no order. */
int store_scan_host_rows(store *trace, enum store_table table, int64_t start_ns, int64_t end_ns, int64_t rank,
                         store_host_row_visit *visit, void *context, error_info *err);

#endif
