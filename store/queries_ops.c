/* queries_ops.c: see queries_ops.h. */
#include "queries_ops.h"

#include <stdlib.h>

#include "store.h"

/* Each query walks the table's (process_id, device_id, start_ns) index in order, so SQLite
 * neither sorts nor buffers. Unknown values come back as ?5 (STORE_NULL) or 0, so each column is
 * read with one call. */
static const char *const table_sql[STORE_GPU_TABLE_COUNT] = {
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

struct store_gpu_ops {
    sqlite3 *db;
    sqlite3_stmt *queries[STORE_GPU_TABLE_COUNT];
    int by_shape; /* a version 2 trace: the kernel query reads kernel_runs, shapes from below */
    struct kernel_shape *shapes; /* by shape_id */
    size_t shape_count;
};

const char *store_gpu_table_name(enum store_gpu_table table)
{
    static const char *const names[STORE_GPU_TABLE_COUNT] = {"kernels", "memcpys", "memsets"};
    return names[table];
}

static int load_shapes(store_gpu_ops *source, error_info *err)
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
static const struct kernel_shape *shape_of(const store_gpu_ops *source, int64_t shape_id)
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

store_gpu_ops *store_gpu_ops_open(sqlite3 *db, error_info *err)
{
    store_gpu_ops *source = calloc(1, sizeof *source);
    if (!source) {
        error_set(err, "out of memory");
        return NULL;
    }
    source->db = db;
    source->by_shape = store_db_has_table(db, "kernel_shapes"); /* schema version 2 */
    if (source->by_shape && load_shapes(source, err) != 0) {
        store_gpu_ops_close(source);
        return NULL;
    }
    for (int table = 0; table < STORE_GPU_TABLE_COUNT; table++) {
        const char *sql = table == STORE_GPU_KERNELS && source->by_shape ? kernel_runs_sql : table_sql[table];
        if (sqlite3_prepare_v2(db, sql, -1, &source->queries[table], NULL) != SQLITE_OK) {
            error_set(err, "cannot read GPU activity: %s", sqlite3_errmsg(db));
            store_gpu_ops_close(source);
            return NULL;
        }
    }
    return source;
}

void store_gpu_ops_close(store_gpu_ops *ops)
{
    if (!ops)
        return;
    for (int table = 0; table < STORE_GPU_TABLE_COUNT; table++)
        sqlite3_finalize(ops->queries[table]);
    free(ops->shapes);
    free(ops);
}

void store_gpu_ops_start(store_gpu_ops *ops, enum store_gpu_table table, int64_t process_id,
                         int64_t device_id, int64_t end_after_ns, int64_t start_before_ns)
{
    sqlite3_stmt *query = ops->queries[table];
    sqlite3_reset(query);
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, device_id);
    sqlite3_bind_int64(query, 3, end_after_ns);
    sqlite3_bind_int64(query, 4, start_before_ns);
    sqlite3_bind_int64(query, 5, STORE_NULL);
}

static int64_t column(sqlite3_stmt *query, int index)
{
    return sqlite3_column_int64(query, index); /* NULL reads as 0: "unknown" to occupancy */
}

static void read_row(const store_gpu_ops *ops, enum store_gpu_table table, sqlite3_stmt *query,
                     struct store_gpu_row *row)
{
    *row = (struct store_gpu_row){.rowid = sqlite3_column_int64(query, 0),
                                  .stream_id = sqlite3_column_int64(query, 1),
                                  .correlation_id = column(query, 2),
                                  .start_ns = sqlite3_column_int64(query, 3),
                                  .end_ns = sqlite3_column_int64(query, 4),
                                  .channel_id = column(query, 5),
                                  .graph_id = column(query, 6),
                                  .priority = column(query, 7),
                                  .bytes = STORE_NULL,
                                  .copy_kind = STORE_NULL,
                                  .src_kind = STORE_NULL,
                                  .dst_kind = STORE_NULL,
                                  .src_device_id = STORE_NULL,
                                  .dst_device_id = STORE_NULL};
    if (table == STORE_GPU_KERNELS && ops->by_shape) {
        const struct kernel_shape *shape = shape_of(ops, sqlite3_column_int64(query, 7));
        row->priority = shape->priority;
        row->name_id = shape->name_id;
        row->grid_blocks = column(query, 8);
        row->threads_per_block = shape->threads_per_block;
        row->registers_per_thread = shape->registers_per_thread;
        row->static_shared_bytes = shape->static_shared_bytes;
        row->dynamic_shared_bytes = shape->dynamic_shared_bytes;
        row->shared_memory_per_sm_bytes = shape->shared_memory_per_sm_bytes;
    } else if (table == STORE_GPU_KERNELS) {
        row->name_id = sqlite3_column_int64(query, 8);
        row->grid_blocks = column(query, 9);
        row->threads_per_block = column(query, 10);
        row->registers_per_thread = column(query, 11);
        row->static_shared_bytes = column(query, 12);
        row->dynamic_shared_bytes = column(query, 13);
        row->shared_memory_per_sm_bytes = column(query, 14);
    } else if (table == STORE_GPU_MEMCPYS) {
        row->copy_kind = sqlite3_column_int64(query, 8);
        row->src_kind = column(query, 9);
        row->dst_kind = column(query, 10);
        row->bytes = sqlite3_column_int64(query, 11);
        row->src_device_id = column(query, 12);
        row->dst_device_id = column(query, 13);
    } else {
        row->bytes = sqlite3_column_int64(query, 8);
    }
}

int store_gpu_ops_next(store_gpu_ops *ops, enum store_gpu_table table, struct store_gpu_row *row,
                       error_info *err)
{
    int status = sqlite3_step(ops->queries[table]);
    if (status == SQLITE_ROW) {
        read_row(ops, table, ops->queries[table], row);
        return 1;
    }
    if (status == SQLITE_DONE)
        return 0;
    return error_set(err, "cannot read GPU activity: %s", sqlite3_errmsg(ops->db));
}
