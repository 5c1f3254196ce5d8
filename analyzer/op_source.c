/* op_source.c: see op_source.h. */
#include "op_source.h"

#include <inttypes.h>
#include <stdlib.h>

#include "naming.h"
#include "store.h"

enum { TABLE_KERNELS, TABLE_MEMCPYS, TABLE_MEMSETS, TABLE_COUNT };

/* Each query walks the table's (process_id, device_id, start_ns) index in order, so SQLite
 * neither sorts nor buffers. Unknown values come back as ?5 (STORE_NULL) or 0, so each column is
 * read with one call. */
static const char *const table_sql[TABLE_COUNT] = {
    "SELECT rowid, stream_id, IFNULL(correlation_id, ?5), start_ns, end_ns, IFNULL(channel_id, ?5),"
    " IFNULL(graph_id, ?5), IFNULL(priority, ?5), name_id, grid_x * grid_y * grid_z, block_x * block_y * "
    "block_z,"
    " registers_per_thread, static_shared_bytes, dynamic_shared_bytes, shared_memory_executed_bytes"
    " FROM kernels WHERE process_id = ?1 AND device_id = ?2 AND end_ns > ?3 AND start_ns < ?4 ORDER BY "
    "start_ns",
    "SELECT rowid, stream_id, IFNULL(correlation_id, ?5), start_ns, end_ns, IFNULL(channel_id, ?5),"
    " IFNULL(graph_id, ?5), ?5, copy_kind, IFNULL(src_kind, ?5), IFNULL(dst_kind, ?5), bytes,"
    " IFNULL(src_device_id, ?5), IFNULL(dst_device_id, ?5)"
    " FROM memcpys WHERE process_id = ?1 AND device_id = ?2 AND end_ns > ?3 AND start_ns < ?4 ORDER BY "
    "start_ns",
    "SELECT rowid, stream_id, IFNULL(correlation_id, ?5), start_ns, end_ns, IFNULL(channel_id, ?5),"
    " IFNULL(graph_id, ?5), ?5, bytes"
    " FROM memsets WHERE process_id = ?1 AND device_id = ?2 AND end_ns > ?3 AND start_ns < ?4 ORDER BY "
    "start_ns",
};

/* A version 2 trace's kernels (store/schema.sql): the runs alone, each with its shape's id. The view
 * `kernels` joins every run to its shape, a seek (or, where the planner's statistics say the shapes
 * are few, a scan of them) per row that cost a third of reading a kernel; the shapes, a few per
 * compiled kernel, are read once instead (struct kernel_shape). The same index, rows and order:
 * the columns the view's would give, the shape's ones from the same expressions over its row. */
static const char kernel_runs_sql[] =
    "SELECT rowid, stream_id, IFNULL(correlation_id, ?5), start_ns, start_ns + duration_ns,"
    " IFNULL(channel_id, ?5), IFNULL(graph_id, ?5), shape_id, grid_x * grid_y * grid_z"
    " FROM kernel_runs WHERE process_id = ?1 AND device_id = ?2 AND start_ns + duration_ns > ?3"
    " AND start_ns < ?4 ORDER BY start_ns";
static const char kernel_shapes_sql[] =
    "SELECT shape_id, name_id, block_x * block_y * block_z, registers_per_thread, static_shared_bytes,"
    " dynamic_shared_bytes, shared_memory_executed_bytes, IFNULL(priority, ?1) FROM kernel_shapes"
    " ORDER BY shape_id";

/* What a kernel takes from its shape, as model_op holds it (a run whose shape is missing: the view's
 * LEFT JOIN gives NULLs, read as 0 and STORE_NULL). */
struct kernel_shape {
    int64_t shape_id, name_id, priority;
    int64_t threads_per_block, registers_per_thread, static_shared_bytes, dynamic_shared_bytes,
        shared_memory_per_sm_bytes;
};

static const char *const table_names[TABLE_COUNT] = {"kernels", "memcpys", "memsets"};

struct op_source {
    sqlite3 *db;
    sqlite3_stmt *queries[TABLE_COUNT];
    struct model_op heads[TABLE_COUNT];
    int has_head[TABLE_COUNT];
    int by_shape; /* a version 2 trace: the kernel query reads kernel_runs, shapes from below */
    struct kernel_shape *shapes; /* by shape_id */
    size_t shape_count;
};

static int load_shapes(op_source *source, error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(source->db, kernel_shapes_sql, -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read GPU activity: %s", sqlite3_errmsg(source->db));
    sqlite3_bind_int64(query, 1, STORE_NULL);
    size_t capacity = 0;
    int step;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        if (source->shape_count == capacity) {
            size_t grown_capacity = capacity ? capacity * 2 : 64;
            struct kernel_shape *grown = realloc(source->shapes, grown_capacity * sizeof *grown);
            if (!grown) {
                sqlite3_finalize(query);
                return error_set(err, "out of memory");
            }
            source->shapes = grown;
            capacity = grown_capacity;
        }
        source->shapes[source->shape_count++] =
            (struct kernel_shape){.shape_id = sqlite3_column_int64(query, 0),
                                  .name_id = sqlite3_column_int64(query, 1),
                                  .threads_per_block = sqlite3_column_int64(query, 2),
                                  .registers_per_thread = sqlite3_column_int64(query, 3),
                                  .static_shared_bytes = sqlite3_column_int64(query, 4),
                                  .dynamic_shared_bytes = sqlite3_column_int64(query, 5),
                                  .shared_memory_per_sm_bytes = sqlite3_column_int64(query, 6),
                                  .priority = sqlite3_column_int64(query, 7)};
    }
    sqlite3_finalize(query);
    if (step != SQLITE_DONE)
        return error_set(err, "cannot read GPU activity: %s", sqlite3_errmsg(source->db));
    return 0;
}

/* The shape shape_id, or the one of a missing shape row. */
static const struct kernel_shape *shape_of(const op_source *source, int64_t shape_id)
{
    static const struct kernel_shape missing = {.priority = STORE_NULL};
    size_t low = 0, high = source->shape_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (source->shapes[middle].shape_id < shape_id)
            low = middle + 1;
        else
            high = middle;
    }
    return low < source->shape_count && source->shapes[low].shape_id == shape_id ? &source->shapes[low]
                                                                                 : &missing;
}

op_source *op_source_new(sqlite3 *db, error_info *err)
{
    op_source *source = calloc(1, sizeof *source);
    if (!source) {
        error_set(err, "out of memory");
        return NULL;
    }
    source->db = db;
    source->by_shape = store_db_has_table(db, "kernel_shapes"); /* schema version 2 */
    if (source->by_shape && load_shapes(source, err) != 0) {
        op_source_free(source);
        return NULL;
    }
    for (int table = 0; table < TABLE_COUNT; table++) {
        const char *sql = table == TABLE_KERNELS && source->by_shape ? kernel_runs_sql : table_sql[table];
        if (sqlite3_prepare_v2(db, sql, -1, &source->queries[table], NULL) != SQLITE_OK) {
            error_set(err, "cannot read GPU activity: %s", sqlite3_errmsg(db));
            op_source_free(source);
            return NULL;
        }
    }
    return source;
}

void op_source_free(op_source *source)
{
    if (!source)
        return;
    for (int table = 0; table < TABLE_COUNT; table++)
        sqlite3_finalize(source->queries[table]);
    free(source->shapes);
    free(source);
}

static int64_t column(sqlite3_stmt *query, int index)
{
    return sqlite3_column_int64(query, index); /* NULL reads as 0: "unknown" to occupancy */
}

static void read_common(sqlite3_stmt *query, struct model_op *op)
{
    op->rowid = sqlite3_column_int64(query, 0);
    op->stream_id = sqlite3_column_int64(query, 1);
    op->correlation_id = column(query, 2);
    op->start_ns = sqlite3_column_int64(query, 3);
    op->end_ns = sqlite3_column_int64(query, 4);
    if (op->end_ns < op->start_ns)
        op->end_ns = op->start_ns; /* a record with its clock reversed: treat as a point */
    op->channel_id = column(query, 5);
    op->graph_id = column(query, 6);
    op->priority = column(query, 7);
    op->name_id = 0;
    op->bytes = STORE_NULL;
    /* The launch shape and the copy fields share their bytes: a kernel's branch of read_row sets
     * every launch field after this, a copy's every copy field, a memset's none. */
    op->copy_kind = op->src_kind = op->dst_kind = STORE_NULL;
    op->src_device_id = op->dst_device_id = STORE_NULL;
}

static void read_row(const op_source *source, int table, sqlite3_stmt *query, struct model_op *op)
{
    read_common(query, op);
    if (table == TABLE_KERNELS && source->by_shape) {
        const struct kernel_shape *shape = shape_of(source, sqlite3_column_int64(query, 7));
        op->kind = MODEL_KERNEL;
        op->category = ANALYSIS_COMPUTE;
        op->priority = shape->priority;
        op->name_id = shape->name_id;
        op->launch.grid_blocks = column(query, 8);
        op->launch.threads_per_block = shape->threads_per_block;
        op->launch.registers_per_thread = shape->registers_per_thread;
        op->launch.static_shared_bytes = shape->static_shared_bytes;
        op->launch.dynamic_shared_bytes = shape->dynamic_shared_bytes;
        op->launch.shared_memory_per_sm_bytes = shape->shared_memory_per_sm_bytes;
    } else if (table == TABLE_KERNELS) {
        op->kind = MODEL_KERNEL;
        op->category = ANALYSIS_COMPUTE;
        op->name_id = sqlite3_column_int64(query, 8);
        op->launch.grid_blocks = column(query, 9);
        op->launch.threads_per_block = column(query, 10);
        op->launch.registers_per_thread = column(query, 11);
        op->launch.static_shared_bytes = column(query, 12);
        op->launch.dynamic_shared_bytes = column(query, 13);
        op->launch.shared_memory_per_sm_bytes = column(query, 14);
    } else if (table == TABLE_MEMCPYS) {
        op->kind = MODEL_MEMCPY;
        op->copy_kind = sqlite3_column_int64(query, 8);
        op->src_kind = column(query, 9);
        op->dst_kind = column(query, 10);
        op->bytes = sqlite3_column_int64(query, 11);
        op->src_device_id = column(query, 12);
        op->dst_device_id = column(query, 13);
        op->category = store_copy_category(op->copy_kind, op->src_device_id, op->dst_device_id);
    } else {
        op->kind = MODEL_MEMSET;
        op->category = ANALYSIS_MEMSET;
        op->bytes = sqlite3_column_int64(query, 8);
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

static int advance(op_source *source, int table, error_info *err)
{
    int status = sqlite3_step(source->queries[table]);
    if (status == SQLITE_ROW) {
        struct model_op *op = &source->heads[table];
        read_row(source, table, source->queries[table], op);
        /* Times no recording can hold: a damaged trace, refused before sums of them overflow. */
        if (!store_interval_plausible(op->start_ns, op->end_ns))
            return error_set(err,
                             "the trace is damaged: %s row %" PRId64 " runs from %" PRId64 " ns to %" PRId64
                             " ns, outside any recording",
                             table_names[table], op->rowid, op->start_ns, op->end_ns);
        /* Launch sizes no GPU runs would overflow the occupancy arithmetic. */
        if ((op->kind == MODEL_KERNEL && !launch_plausible(&op->launch)) ||
            !store_count_plausible(op->bytes == STORE_NULL ? 0 : op->bytes, STORE_MAX_BYTES))
            return error_set(err,
                             "the trace is damaged: %s row %" PRId64 " has a launch size or byte count"
                             " beyond any GPU",
                             table_names[table], op->rowid);
        source->has_head[table] = 1;
        return 0;
    }
    source->has_head[table] = 0;
    if (status == SQLITE_DONE)
        return 0;
    return error_set(err, "cannot read GPU activity: %s", sqlite3_errmsg(source->db));
}

int op_source_open(op_source *source, int64_t process_id, int64_t device_id, int64_t end_after_ns,
                   int64_t start_before_ns, error_info *err)
{
    for (int table = 0; table < TABLE_COUNT; table++) {
        sqlite3_stmt *query = source->queries[table];
        sqlite3_reset(query);
        sqlite3_bind_int64(query, 1, process_id);
        sqlite3_bind_int64(query, 2, device_id);
        sqlite3_bind_int64(query, 3, end_after_ns);
        sqlite3_bind_int64(query, 4, start_before_ns);
        sqlite3_bind_int64(query, 5, STORE_NULL);
        if (advance(source, table, err) != 0)
            return -1;
    }
    return 0;
}

int op_source_next(op_source *source, struct model_op *op, error_info *err)
{
    int best = -1;
    for (int table = 0; table < TABLE_COUNT; table++)
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
