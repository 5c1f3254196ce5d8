/* op_source.h: the GPU operations of one device of one process, read from the store in start
 * order: kernels, memcpys and memsets, each through its (process_id, device_id, start_ns) index,
 * merged three ways. Holds one row per table at a time: reading a device costs no memory that
 * grows with the trace. Also defines the analyzer's model of one GPU operation. */
#ifndef OVERLAPSCOPE_OP_SOURCE_H
#define OVERLAPSCOPE_OP_SOURCE_H

#include <sqlite3.h>
#include <stdint.h>

#include "analysis_result.h"
#include "error.h"
#include "occupancy.h"

enum model_op_kind { MODEL_KERNEL = 0, MODEL_MEMCPY = 1, MODEL_MEMSET = 2 };

/* One GPU interval. Unknown integers are STORE_NULL. An operation is a kernel or a copy, never
 * both, so the launch shape and the copy's fields share their bytes (a union): the analysis keeps
 * one of these per selected operation of a device (device_state.selected_ops), and its size is most
 * of the analysis's bytes per operation (docs/security.md). Read launch only for MODEL_KERNEL and
 * the copy fields only for MODEL_MEMCPY (memsets: bytes only). */
struct model_op {
    enum model_op_kind kind;
    enum analysis_category category; /* kernels: COMPUTE until the caller classifies the name */
    int64_t rowid, stream_id, correlation_id, start_ns, end_ns;
    int64_t channel_id, graph_id, priority;
    int64_t name_id; /* kernels; 0 for copies and memsets */
    int64_t bytes;   /* copies and memsets; STORE_NULL for kernels */
    union {
        struct occupancy_kernel launch; /* kernels: grid, block, registers, shared memory */
        struct {
            int64_t copy_kind, src_kind, dst_kind, src_device_id, dst_device_id;
        }; /* copies (memsets: STORE_NULL) */
    };
};

typedef struct op_source op_source;

/* Prepares the three queries once. Returns NULL with err filled on failure. */
op_source *op_source_new(sqlite3 *db, error_info *err);
void op_source_free(op_source *source);

/* Starts reading the device's operations that end after end_after_ns and start before
 * start_before_ns (INT64_MIN / INT64_MAX for all). Returns 0 or -1 with err filled. */
int op_source_open(op_source *source, int64_t process_id, int64_t device_id, int64_t end_after_ns,
                   int64_t start_before_ns, error_info *err);
/* Fills op with the next operation by start time (ties: kernels, then copies, then memsets).
 * Returns 1 for an operation, 0 at the end, -1 with err filled on a read error. */
int op_source_next(op_source *source, struct model_op *op, error_info *err);

#endif
