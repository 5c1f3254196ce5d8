/* queries_warmup.h: the question the idle accounting's warm-up rule (analyzer/accounting/warmup.c)
 * asks of the trace: each kernel name a device ran, when it first ran and how often. */
#ifndef OVERLAPSCOPE_QUERIES_WARMUP_H
#define OVERLAPSCOPE_QUERIES_WARMUP_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct store_kernel_runs {
    int64_t name_id, first_start_ns, runs;
};

/* The kernel names device_id of process_id ran, by name id (ascending), each with its earliest
 * start and its number of runs, into a new array (*rows, the caller frees it; NULL when none).
 * 0, or -1 with err filled. */
int store_kernel_runs_read(sqlite3 *db, int64_t process_id, int64_t device_id,
                           struct store_kernel_runs **rows, size_t *count, error_info *err);

#endif
