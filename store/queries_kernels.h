/* queries_kernels.h: the questions the analyzer asks about a trace's kernels as a whole: which
 * kernel rows a collective names (analyzer/kernel_names.c tells NCCL kernels by them when the name
 * does not). */
#ifndef OVERLAPSCOPE_QUERIES_KERNELS_H
#define OVERLAPSCOPE_QUERIES_KERNELS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The kernel rowids the collectives table names (collectives.kernel_rowid, NULLs left out), in
 * the table's order, into a new array (*rowids, the caller frees it; NULL when none). On a read
 * error or when out of memory: -1 with err filled, and the rows read before it kept in *rowids. */
int store_collective_kernel_rowids(sqlite3 *db, int64_t **rowids, size_t *count, error_info *err);

#endif
