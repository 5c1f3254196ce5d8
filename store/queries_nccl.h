/* queries_nccl.h: the questions the collector's NCCL profiler plugin (collector/nccl_profiler.c)
 * asks of the per-process trace it writes, to link each NCCL event to its kernel: the kernel a
 * launch's correlation id ran, the thread's last kernel launch before an event, and the rows that
 * a richer one replaces (a collective known only from its kernel's name). Prepared once per write
 * (after store_finalize built the indexes they need). */
#ifndef OVERLAPSCOPE_QUERIES_NCCL_H
#define OVERLAPSCOPE_QUERIES_NCCL_H

#include <stdint.h>

#include "store.h"

typedef struct store_nccl_links store_nccl_links;

/* NULL with err filled ("PATH: cannot prepare the NCCL link query: ...") on failure. */
store_nccl_links *store_nccl_links_open(store *trace, error_info *err);
void store_nccl_links_close(store_nccl_links *links);

/* The kernel of process_id launched with correlation_id. device, stream and times STORE_NULL when
 * unknown; name its name (cut to size). */
struct store_nccl_kernel {
    int64_t rowid, device_id, stream_id, start_ns, end_ns;
    char name[1024];
};
/* 1 with *kernel filled, 0 when there is none. */
int store_nccl_kernel_of(store_nccl_links *links, int64_t process_id, int64_t correlation_id,
                         struct store_nccl_kernel *kernel);

/* The correlation id of thread_id's last kernel launch (cuLaunch* or cudaLaunch*, not a host
 * function) that started at or before time_ns and has a kernel; 0 when none. */
int64_t store_nccl_launch_before(store_nccl_links *links, int64_t process_id, int64_t thread_id,
                                 int64_t time_ns);

/* Deletes the collectives of process_id on kernel_rowid known from the kernel's name alone
 * (detail_source 1); *deleted += how many. 0, or -1 with err filled. */
int store_nccl_drop_name_only(store_nccl_links *links, int64_t process_id, int64_t kernel_rowid,
                              int64_t *deleted, error_info *err);

/* How many collectives rows process_id has (0 also when they cannot be counted). */
int64_t store_collective_count(store *trace, int64_t process_id);

#endif
