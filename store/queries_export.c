/* queries_export.c: the SQL of the Chrome trace-event export (see queries_export.h). Owns the
 * detail statements of an export, freed by store_export_details_free. */
#include "queries_export.h"

#include <stdlib.h>

static const char *const pass_sql[STORE_EXPORT_PASS_COUNT] = {
    [STORE_EXPORT_PROCESSES] = "SELECT process_id, pid, rank, host FROM processes ORDER BY process_id",
    [STORE_EXPORT_API_CALLS] =
        "SELECT process_id, thread_id, api_domain, name_id, correlation_id, start_ns, end_ns, callback_id,"
        " return_value FROM api_calls ORDER BY process_id, thread_id, start_ns, end_ns DESC",
    [STORE_EXPORT_NVTX] =
        "SELECT process_id, thread_id, device_id, stream_id, kind, message_id, domain_id, start_ns, end_ns "
        "FROM nvtx"
        " ORDER BY process_id, stream_id IS NULL, device_id, stream_id, thread_id, start_ns, end_ns DESC",
    [STORE_EXPORT_SYNCHRONIZATIONS] =
        "SELECT process_id, stream_id, event_id, sync_type, correlation_id, start_ns, end_ns FROM "
        "synchronizations"
        " ORDER BY process_id, start_ns, end_ns DESC",
    /* Each op with the first API call of its correlation id: one launch arrow per op at most,
     * however often an id repeats (issue 20, item 16). */
    [STORE_EXPORT_GPU_OPS] =
        "SELECT g.kind, g.rid, g.process_id, g.device_id, g.stream_id, g.correlation_id, g.start_ns, "
        "g.end_ns,"
        " a.thread_id, a.start_ns, a.end_ns FROM"
        " (SELECT 0 AS kind, rowid AS rid, process_id, device_id, stream_id, correlation_id, start_ns, "
        "end_ns"
        "  FROM kernels UNION ALL"
        "  SELECT 1, rowid, process_id, device_id, stream_id, correlation_id, start_ns, end_ns FROM memcpys "
        "UNION ALL"
        "  SELECT 2, rowid, process_id, device_id, stream_id, correlation_id, start_ns, end_ns FROM "
        "memsets) g"
        " LEFT JOIN api_calls a ON a.rowid = (SELECT rowid FROM api_calls WHERE process_id = g.process_id"
        "  AND correlation_id = g.correlation_id ORDER BY start_ns LIMIT 1)"
        " ORDER BY g.process_id, g.device_id, g.stream_id, g.start_ns, g.end_ns DESC",
};

static const char *const detail_sql[STORE_EXPORT_DETAIL_COUNT] = {
    [STORE_EXPORT_KERNEL] =
        "SELECT k.name_id, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z,"
        " k.registers_per_thread, k.static_shared_bytes, k.dynamic_shared_bytes, c.op, c.bytes,"
        " c.element_count, c.dtype, c.communicator, c.rank, c.nranks, c.algorithm, c.protocol,"
        " c.sequence_number FROM kernels k LEFT JOIN collectives c ON c.rowid ="
        " (SELECT rowid FROM collectives WHERE kernel_rowid = k.rowid LIMIT 1) WHERE k.rowid = ?",
    [STORE_EXPORT_MEMCPY] = "SELECT copy_kind, src_kind, dst_kind, bytes FROM memcpys WHERE rowid = ?",
    [STORE_EXPORT_MEMSET] = "SELECT memory_kind, bytes FROM memsets WHERE rowid = ?",
};

struct store_export_details {
    sqlite3_stmt *queries[STORE_EXPORT_DETAIL_COUNT];
};

static int read_error(store *trace, error_info *err)
{
    return error_set(err, "cannot read '%s': %s", store_path(trace), sqlite3_errmsg(store_db(trace)));
}

int store_export_each_row(store *trace, enum store_export_pass pass, store_export_row_visit *visit,
                          void *context, error_info *err)
{
    sqlite3_stmt *row = NULL;
    if (sqlite3_prepare_v2(store_db(trace), pass_sql[pass], -1, &row, NULL) != SQLITE_OK)
        return read_error(trace, err);
    int rc, status = 0;
    while (status == 0 && (rc = sqlite3_step(row)) == SQLITE_ROW)
        status = visit(context, row);
    sqlite3_finalize(row);
    if (status == 0 && rc != SQLITE_DONE)
        return read_error(trace, err);
    return status;
}

store_export_details *store_export_details_new(store *trace, error_info *err)
{
    store_export_details *details = calloc(1, sizeof *details);
    if (!details) {
        error_set(err, "out of memory");
        return NULL;
    }
    for (int i = 0; i < STORE_EXPORT_DETAIL_COUNT; i++) {
        if (sqlite3_prepare_v2(store_db(trace), detail_sql[i], -1, &details->queries[i], NULL) != SQLITE_OK) {
            read_error(trace, err);
            store_export_details_free(details);
            return NULL;
        }
    }
    return details;
}

void store_export_details_free(store_export_details *details)
{
    if (!details)
        return;
    for (int i = 0; i < STORE_EXPORT_DETAIL_COUNT; i++)
        sqlite3_finalize(details->queries[i]);
    free(details);
}

sqlite3_stmt *store_export_detail(store_export_details *details, enum store_export_detail kind, int64_t rowid)
{
    sqlite3_stmt *query = details->queries[kind];
    sqlite3_reset(query);
    sqlite3_bind_int64(query, 1, rowid);
    return sqlite3_step(query) == SQLITE_ROW ? query : NULL;
}

int64_t store_export_first_activity(store *trace)
{
    static const char *const sql =
        "SELECT MIN(m) FROM (SELECT MIN(start_ns) m FROM kernels WHERE start_ns BETWEEN -?1 AND ?1 UNION ALL"
        " SELECT MIN(start_ns) FROM memcpys WHERE start_ns BETWEEN -?1 AND ?1 UNION ALL"
        " SELECT MIN(start_ns) FROM memsets WHERE start_ns BETWEEN -?1 AND ?1 UNION ALL"
        " SELECT MIN(start_ns) FROM api_calls WHERE start_ns BETWEEN -?1 AND ?1 UNION ALL"
        " SELECT MIN(start_ns) FROM nvtx WHERE start_ns BETWEEN -?1 AND ?1 UNION ALL"
        " SELECT MIN(start_ns) FROM synchronizations WHERE start_ns BETWEEN -?1 AND ?1)";
    sqlite3_stmt *query = NULL;
    int64_t origin = 0;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(query, 1, STORE_MAX_ABS_TIME_NS);
        if (sqlite3_step(query) == SQLITE_ROW)
            origin = sqlite3_column_int64(query, 0);
    }
    sqlite3_finalize(query);
    return origin;
}

int64_t store_count_shared_correlation_ids(store *trace)
{
    sqlite3_stmt *query = NULL;
    int64_t count = 0;
    if (sqlite3_prepare_v2(store_db(trace),
                           "SELECT COUNT(*) FROM (SELECT 1 FROM api_calls WHERE correlation_id IS NOT NULL"
                           " GROUP BY process_id, correlation_id HAVING COUNT(*) > 1)",
                           -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        count = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return count;
}
