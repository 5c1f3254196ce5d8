/* parts.c: appending a part of a parallel import (parts.h): the maps of kernel shapes and API
 * functions, the kernels and API calls copied from the part's base tables, the rest through
 * append.c's steps. */
#include <stdio.h>

#include "append_internal.h"
#include "parts.h"
#include "store_sql.h"

/* The part's shapes not yet in the destination, in the part's order (the order of first use), then
 * part_shapes: each shape of the part and the destination's shape of the same value. */
static const char copy_part_shapes_sql[] =
    "INSERT INTO main.kernel_shapes (" SHAPE_COLUMN_NAMES ") SELECT " SHAPE_OF_SOURCE
    " FROM src.kernel_shapes s JOIN sm ON sm.old_id = s.name_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.kernel_shapes d WHERE " SAME_SHAPE ") ORDER BY s.shape_id;"
    " CREATE TEMP TABLE part_shapes (old_id INTEGER PRIMARY KEY, new_id INTEGER NOT NULL);"
    " INSERT INTO part_shapes SELECT s.shape_id, (SELECT d.shape_id FROM main.kernel_shapes d "
    "WHERE " SAME_SHAPE " LIMIT 1) FROM src.kernel_shapes s JOIN sm ON sm.old_id = s.name_id";

#define SAME_FUNCTION                                                                                        \
    "d.api_domain IS s.api_domain AND d.callback_id IS s.callback_id AND d.name_id IS sm.new_id"
static const char copy_part_functions_sql[] =
    "INSERT INTO main.api_functions (api_domain, callback_id, name_id) SELECT s.api_domain, s.callback_id,"
    " sm.new_id FROM src.api_functions s JOIN sm ON sm.old_id = s.name_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.api_functions d WHERE " SAME_FUNCTION ") ORDER BY s.function_id;"
    " CREATE TEMP TABLE part_functions (old_id INTEGER PRIMARY KEY, new_id INTEGER NOT NULL);"
    " INSERT INTO part_functions SELECT s.function_id, (SELECT d.function_id FROM main.api_functions d"
    " WHERE " SAME_FUNCTION " LIMIT 1) FROM src.api_functions s JOIN sm ON sm.old_id = s.name_id";

/* Times as they are: a part is appended with no clock offset. */
static const char copy_part_api_calls_sql[] =
    "INSERT INTO main.api_call_runs SELECT pm.new_id, s.thread_id, s.correlation_id, s.start_ns,"
    " s.duration_ns, s.return_value, f.new_id FROM src.api_call_runs s JOIN pm ON pm.old_id = s.process_id"
    " JOIN part_functions f ON f.old_id = s.function_id ORDER BY s.rowid";

/* %lld: what turns the part's kernel rowid into the destination's. */
static const char copy_part_kernels_format[] =
    "INSERT INTO main.kernel_runs (rowid, process_id, device_id, context_id, stream_id, correlation_id,"
    " start_ns, duration_ns, queued_ns, submitted_ns, grid_x, grid_y, grid_z, graph_id, graph_node_id,"
    " channel_id, shape_id) SELECT s.rowid + %lld, pm.new_id, s.device_id, s.context_id, s.stream_id,"
    " s.correlation_id, s.start_ns, s.duration_ns, s.queued_ns, s.submitted_ns, s.grid_x, s.grid_y, s.grid_z,"
    " s.graph_id, s.graph_node_id, s.channel_id, k.new_id FROM src.kernel_runs s"
    " JOIN pm ON pm.old_id = s.process_id JOIN part_shapes k ON k.old_id = s.shape_id ORDER BY s.rowid";

/* The part's kernels, numbered first..last without gaps, get the rowids after the destination's
 * last: one offset, where store_append_trace maps each rowid through a table. */
static int copy_kernels(store *s, int64_t *first, int64_t *last, int64_t *offset,
                        struct store_append_losses *losses, error_info *err)
{
    int64_t count = store_single_int64(s, "SELECT COUNT(*) FROM src.kernel_runs", -1);
    *first = store_single_int64(s, "SELECT MIN(rowid) FROM src.kernel_runs", 1);
    *last = store_single_int64(s, "SELECT MAX(rowid) FROM src.kernel_runs", 0);
    if (count < 0 || (count > 0 && *last - *first + 1 != count))
        return error_set(err, "kernels: not numbered without gaps (not a part of this import)");
    *offset = store_single_int64(s, "SELECT COALESCE(MAX(rowid), 0) + 1 FROM main.kernel_runs", 1) - *first;
    char sql[sizeof copy_part_kernels_format + 32];
    snprintf(sql, sizeof sql, copy_part_kernels_format, (long long)*offset);
    const char *statement = sql;
    return store_append_table_rows(s, "kernels", &statement, 1, losses, err);
}

int store_parts_begin(store *destination, error_info *err)
{
    if (store_commit(destination, err) != 0)
        return -1;
    return store_exec_sql(destination, store_indexes_sql, err, "create indexes");
}

int store_append_part(store *destination, const char *part_path, error_info *err)
{
    store *s = destination;
    int64_t no_offset_ns = 0;
    struct store_append_losses losses;
    if (store_append_begin(s, part_path, &no_offset_ns, &losses, err) != 0)
        return -1;
    int64_t first = 1, last = 0, offset = 0;
    const char *copy_api_calls = copy_part_api_calls_sql;
    int status = store_exec_sql(s, copy_part_functions_sql, err, "copy API functions") != 0 ||
                         store_append_table_rows(s, "api_calls", &copy_api_calls, 1, &losses, err) != 0 ||
                         store_exec_sql(s, copy_part_shapes_sql, err, "copy kernel shapes") != 0 ||
                         copy_kernels(s, &first, &last, &offset, &losses, err) != 0
                     ? -1
                     : 0;
    char kernel_rowid[160];
    snprintf(kernel_rowid, sizeof kernel_rowid,
             "CASE WHEN s.kernel_rowid BETWEEN %lld AND %lld THEN s.kernel_rowid + %lld END",
             (long long)first, (long long)last, (long long)offset);
    if (status == 0)
        status = store_append_rest(s, kernel_rowid, "", 1, &losses, err);
    if (status == 0 && losses.count > 0)
        status = error_set(err, "%s: %lld rows refer to nothing in the part", losses.kinds[0].table,
                           (long long)losses.kinds[0].rows);
    return store_append_end(s, status, part_path, err);
}
