/* queries_ops.h: the question the analyzer's operation reader (analyzer/op_source.c) asks of a
 * trace: one device's kernels, memcpys and memsets in start order, each table through its
 * (process_id, device_id, start_ns) index, so SQLite neither sorts nor buffers. A version 2 trace's
 * kernels are read from their runs with each shape read once (the view kernels joins each run to its
 * shape, a third of a kernel's read); a version 1 trace's from the table: the same rows, order and
 * values either way. One statement per table, re-bound per device. */
#ifndef OVERLAPSCOPE_QUERIES_OPS_H
#define OVERLAPSCOPE_QUERIES_OPS_H

#include <sqlite3.h>
#include <stdint.h>

#include "error.h"

enum store_gpu_table { STORE_GPU_KERNELS, STORE_GPU_MEMCPYS, STORE_GPU_MEMSETS, STORE_GPU_TABLE_COUNT };

/* "kernels", "memcpys", "memsets". */
const char *store_gpu_table_name(enum store_gpu_table table);

/* One row. Unknown values: STORE_NULL for correlation, channel, graph and priority, the copy
 * fields of a kernel or memset, and the bytes of a kernel; 0 for the launch sizes the row leaves
 * NULL (occupancy's "unknown"), the name of a copy or memset, and the launch fields of a copy or
 * memset. end_ns as stored (it may precede start_ns: a reversed clock). */
struct store_gpu_row {
    int64_t rowid, stream_id, correlation_id, start_ns, end_ns, channel_id, graph_id, priority, name_id,
        bytes;
    int64_t grid_blocks, threads_per_block, registers_per_thread, static_shared_bytes, dynamic_shared_bytes,
        shared_memory_per_sm_bytes;
    int64_t copy_kind, src_kind, dst_kind, src_device_id, dst_device_id;
};

typedef struct store_gpu_ops store_gpu_ops;

/* Prepares the three queries (and reads a version 2 trace's shapes) on db, which must outlive
 * them. NULL with err filled on failure. */
store_gpu_ops *store_gpu_ops_open(sqlite3 *db, error_info *err);
void store_gpu_ops_close(store_gpu_ops *ops);

/* Starts table's walk over device_id of process_id: the rows that end after end_after_ns and start
 * before start_before_ns (INT64_MIN / INT64_MAX for all). */
void store_gpu_ops_start(store_gpu_ops *ops, enum store_gpu_table table, int64_t process_id,
                         int64_t device_id, int64_t end_after_ns, int64_t start_before_ns);
/* table's next row by start: 1 with *row filled, 0 at the end, -1 with err filled on a read error. */
int store_gpu_ops_next(store_gpu_ops *ops, enum store_gpu_table table, struct store_gpu_row *row,
                       error_info *err);

#endif
