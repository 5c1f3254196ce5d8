/* queries_stats.h: the rows `overlapscope stats` summarizes (kernels, copies, memsets, CUDA API
 * calls, NVTX ranges, synchronizations, NCCL collectives), one (process, device) or one process at
 * a time, each row handed to a callback. The store owns these queries like every other (STYLE.md):
 * the summaries themselves (grouping, clipping to the selected time, medians) are report/'s.
 *
 * Every walk takes rows that reach into [from_ns, to_ns] (INT64_MIN / INT64_MAX: open), in no
 * particular order. Integers the trace does not know are STORE_NULL. A callback returning non-zero
 * stops the walk, and that value is returned; -1 with err filled on a read error (the message does
 * not name the trace: the caller prefixes store_path). */
#ifndef OVERLAPSCOPE_STORE_QUERIES_STATS_H
#define OVERLAPSCOPE_STORE_QUERIES_STATS_H

#include <stdint.h>

#include "error.h"
#include "store.h"

/* A time bound of the walks: rows that end at or after from_ns and start at or before to_ns. */
struct store_stats_span {
    int64_t process_id, device_id; /* device_id: ignored by the per-process walks */
    int64_t from_ns, to_ns;
};

/* One kernel run: its row, stream, times, name (strings.id) and launch shape. */
struct store_stats_kernel {
    int64_t rowid, stream_id, start_ns, end_ns, name_id;
    int64_t grid_x, grid_y, grid_z, block_x, block_y, block_z;
    int64_t registers_per_thread, static_shared_bytes, dynamic_shared_bytes, shared_memory_executed_bytes;
};
typedef int store_stats_kernel_visit(void *context, const struct store_stats_kernel *row);
int store_stats_each_kernel(store *trace, const struct store_stats_span *span,
                            store_stats_kernel_visit *visit, void *context, error_info *err);

/* Copies and memsets of the device: the store.h rows (stream, times, kinds, bytes filled). */
typedef int store_stats_memcpy_visit(void *context, const struct store_memcpy *row);
int store_stats_each_memcpy(store *trace, const struct store_stats_span *span,
                            store_stats_memcpy_visit *visit, void *context, error_info *err);
typedef int store_stats_memset_visit(void *context, const struct store_memset *row);
int store_stats_each_memset(store *trace, const struct store_stats_span *span,
                            store_stats_memset_visit *visit, void *context, error_info *err);

/* NCCL collectives of the device, timed by their own start and end or, where the row has none,
 * by the kernel it links (kernel_rowid); rows with neither are left out. op and the texts live until
 * the callback returns. */
struct store_stats_collective {
    int64_t stream_id, start_ns, end_ns, bytes, nranks;
    const char *op;
};
typedef int store_stats_collective_visit(void *context, const struct store_stats_collective *row);
int store_stats_each_collective(store *trace, const struct store_stats_span *span,
                                store_stats_collective_visit *visit, void *context, error_info *err);

/* The CUDA runtime and driver calls of the process (not the OS runtime's), with their name's
 * strings.id. */
struct store_stats_api_call {
    int64_t thread_id, api_domain, name_id, start_ns, end_ns;
};
typedef int store_stats_api_call_visit(void *context, const struct store_stats_api_call *row);
int store_stats_each_api_call(store *trace, const struct store_stats_span *span,
                              store_stats_api_call_visit *visit, void *context, error_info *err);

/* The NVTX ranges of the process (push/pop and start/end; marks are instants, left out), with
 * their message's and domain's strings.id (domain 0 when none). */
struct store_stats_nvtx_range {
    int64_t message_id, domain_id, kind, start_ns, end_ns;
};
typedef int store_stats_nvtx_visit(void *context, const struct store_stats_nvtx_range *row);
int store_stats_each_nvtx_range(store *trace, const struct store_stats_span *span,
                                store_stats_nvtx_visit *visit, void *context, error_info *err);

/* The host synchronizations of the process (the store.h row). */
typedef int store_stats_synchronization_visit(void *context, const struct store_synchronization *row);
int store_stats_each_synchronization(store *trace, const struct store_stats_span *span,
                                     store_stats_synchronization_visit *visit, void *context,
                                     error_info *err);

#endif
