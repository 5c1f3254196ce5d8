/* op_source.c: see op_source.h. */
#include "op_source.h"

#include <inttypes.h>
#include <stdlib.h>

#include "queries_ops.h"
#include "store.h"

struct op_source {
    store_gpu_ops *rows;
    struct model_op heads[STORE_GPU_TABLE_COUNT];
    int has_head[STORE_GPU_TABLE_COUNT];
};

op_source *op_source_new(sqlite3 *db, error_info *err)
{
    op_source *source = calloc(1, sizeof *source);
    if (!source) {
        error_set(err, "out of memory");
        return NULL;
    }
    source->rows = store_gpu_ops_open(db, err);
    if (!source->rows) {
        op_source_free(source);
        return NULL;
    }
    return source;
}

void op_source_free(op_source *source)
{
    if (!source)
        return;
    store_gpu_ops_close(source->rows);
    free(source);
}

/* The store's row as the model holds it: times reversed made a point, the kind and category by the
 * table (a kernel is COMPUTE until the caller classifies its name). */
static void read_row(enum store_gpu_table table, const struct store_gpu_row *row, struct model_op *op)
{
    op->rowid = row->rowid;
    op->stream_id = row->stream_id;
    op->correlation_id = row->correlation_id;
    op->start_ns = row->start_ns;
    op->end_ns = row->end_ns;
    if (op->end_ns < op->start_ns)
        op->end_ns = op->start_ns; /* a record with its clock reversed: treat as a point */
    op->channel_id = row->channel_id;
    op->graph_id = row->graph_id;
    op->priority = row->priority;
    op->name_id = row->name_id;
    op->bytes = row->bytes;
    /* The launch shape and the copy fields share their bytes: a kernel sets every launch field
     * after these, a copy has its copy fields, a memset keeps them STORE_NULL. */
    op->copy_kind = row->copy_kind;
    op->src_kind = row->src_kind;
    op->dst_kind = row->dst_kind;
    op->src_device_id = row->src_device_id;
    op->dst_device_id = row->dst_device_id;
    if (table == STORE_GPU_KERNELS) {
        op->kind = MODEL_KERNEL;
        op->category = ANALYSIS_COMPUTE;
        op->launch.grid_blocks = row->grid_blocks;
        op->launch.threads_per_block = row->threads_per_block;
        op->launch.registers_per_thread = row->registers_per_thread;
        op->launch.static_shared_bytes = row->static_shared_bytes;
        op->launch.dynamic_shared_bytes = row->dynamic_shared_bytes;
        op->launch.shared_memory_per_sm_bytes = row->shared_memory_per_sm_bytes;
    } else if (table == STORE_GPU_MEMCPYS) {
        op->kind = MODEL_MEMCPY;
        op->category = store_copy_category(op->copy_kind, op->src_device_id, op->dst_device_id);
    } else {
        op->kind = MODEL_MEMSET;
        op->category = ANALYSIS_MEMSET;
    }
}

static int launch_plausible(const struct occupancy_kernel *launch)
{
    return store_count_plausible(launch->grid_blocks, STORE_MAX_GRID_BLOCKS) &&
           store_count_plausible(launch->threads_per_block, STORE_MAX_THREADS) &&
           store_count_plausible(launch->registers_per_thread, STORE_MAX_THREADS) &&
           store_count_plausible(launch->static_shared_bytes, STORE_MAX_SHARED_MEMORY_BYTES) &&
           store_count_plausible(launch->dynamic_shared_bytes, STORE_MAX_SHARED_MEMORY_BYTES) &&
           store_count_plausible(launch->shared_memory_per_sm_bytes, STORE_MAX_SHARED_MEMORY_BYTES);
}

static int advance(op_source *source, enum store_gpu_table table, error_info *err)
{
    struct store_gpu_row row;
    int status = store_gpu_ops_next(source->rows, table, &row, err);
    if (status == 1) {
        struct model_op *op = &source->heads[table];
        read_row(table, &row, op);
        /* Times no recording can hold: a damaged trace, refused before sums of them overflow. */
        if (!store_interval_plausible(op->start_ns, op->end_ns))
            return error_set(err,
                             "the trace is damaged: %s row %" PRId64 " runs from %" PRId64 " ns to %" PRId64
                             " ns, outside any recording",
                             store_gpu_table_name(table), op->rowid, op->start_ns, op->end_ns);
        /* Launch sizes no GPU runs would overflow the occupancy arithmetic. */
        if ((op->kind == MODEL_KERNEL && !launch_plausible(&op->launch)) ||
            !store_count_plausible(op->bytes == STORE_NULL ? 0 : op->bytes, STORE_MAX_BYTES))
            return error_set(err,
                             "the trace is damaged: %s row %" PRId64 " has a launch size or byte count"
                             " beyond any GPU",
                             store_gpu_table_name(table), op->rowid);
        source->has_head[table] = 1;
        return 0;
    }
    source->has_head[table] = 0;
    return status;
}

int op_source_open(op_source *source, int64_t process_id, int64_t device_id, int64_t end_after_ns,
                   int64_t start_before_ns, error_info *err)
{
    for (int table = 0; table < STORE_GPU_TABLE_COUNT; table++) {
        store_gpu_ops_start(source->rows, table, process_id, device_id, end_after_ns, start_before_ns);
        if (advance(source, table, err) != 0)
            return -1;
    }
    return 0;
}

int op_source_next(op_source *source, struct model_op *op, error_info *err)
{
    int best = -1;
    for (int table = 0; table < STORE_GPU_TABLE_COUNT; table++)
        if (source->has_head[table] &&
            (best < 0 || source->heads[table].start_ns < source->heads[best].start_ns))
            best = table;
    if (best < 0)
        return 0;
    *op = source->heads[best];
    if (advance(source, best, err) != 0)
        return -1;
    return 1;
}
