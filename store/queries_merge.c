/* queries_merge.c: the SQL of the merge's clock alignment (see queries_merge.h). */
#include "queries_merge.h"

#include <stddef.h>

static int read_error(sqlite3 *db, error_info *err)
{
    return error_set(err, "cannot read collectives of '%s': %s", sqlite3_db_filename(db, "main"),
                     sqlite3_errmsg(db));
}

int store_each_collective_end(sqlite3 *db, store_collective_end_visit *visit, void *context, error_info *err)
{
    static const char *const sql =
        "SELECT process_id, COALESCE(communicator, 'stream ' || stream_id), op, COALESCE(sequence_number, "
        "-1),"
        " end_ns, COALESCE(bytes, -1) FROM collectives WHERE end_ns IS NOT NULL"
        /* Point-to-point operations finish together only pairwise: used only when nothing better. */
        " AND (op NOT IN ('Send', 'Recv', 'SendRecv') OR NOT EXISTS (SELECT 1 FROM collectives"
        "  WHERE op NOT IN ('Send', 'Recv', 'SendRecv', 'Unknown')))"
        " ORDER BY process_id, 2, start_ns, end_ns";
    sqlite3_stmt *row = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &row, NULL) != SQLITE_OK)
        return read_error(db, err);
    int rc, status = 0;
    while (status == 0 && (rc = sqlite3_step(row)) == SQLITE_ROW) {
        const unsigned char *communicator = sqlite3_column_text(row, 1), *op = sqlite3_column_text(row, 2);
        struct store_collective_end end = {.process_id = sqlite3_column_int64(row, 0),
                                           .communicator = communicator ? (const char *)communicator : "",
                                           .op = op ? (const char *)op : "",
                                           .sequence = sqlite3_column_int64(row, 3),
                                           .end_ns = sqlite3_column_int64(row, 4),
                                           .bytes = sqlite3_column_int64(row, 5)};
        status = visit(context, &end);
    }
    sqlite3_finalize(row);
    if (status == 0 && rc != SQLITE_DONE)
        return read_error(db, err);
    return status;
}

static int read_span(sqlite3 *db, const char *sql, struct store_time_span *span, const char *input,
                     error_info *err)
{
    sqlite3_stmt *row = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &row, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(row)) == SQLITE_ROW) {
        *span = (struct store_time_span){sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1),
                                         sqlite3_column_int64(row, 2)};
        rc = SQLITE_OK;
    }
    sqlite3_finalize(row);
    return rc == SQLITE_OK ? 0 : error_set(err, "%s: cannot read its times: %s", input, sqlite3_errmsg(db));
}

int store_clock_spans(sqlite3 *db, const char *input, struct store_time_span *kernels,
                      struct store_time_span *collective_ends, error_info *err)
{
    if (read_span(db, "SELECT MIN(start_ns), MAX(end_ns), COUNT(*) FROM kernels", kernels, input, err) != 0)
        return -1;
    return read_span(db,
                     "SELECT MIN(end_ns), MAX(end_ns), COUNT(*) FROM collectives WHERE end_ns IS NOT NULL",
                     collective_ends, input, err);
}
