/* queries_overview.c: the rows of render_overview; see queries_overview.h. One insert statement
 * per writer, reset and cleared between rows so that a row's unused columns stay NULL. */
#include "queries_overview.h"

#include <sqlite3.h>
#include <stdlib.h>

/* The insert's parameters, in the order of its column list. */
enum {
    PARAM_WHAT = 1,
    PARAM_PROCESS,
    PARAM_DEVICE,
    PARAM_STREAM,
    PARAM_START,
    PARAM_END,
    PARAM_COLUMNS,
    PARAM_KERNELS_ROWID, /* then memcpys_rowid, memsets_rowid */
    PARAM_INTERVAL_COUNT = PARAM_KERNELS_ROWID + 3,
    PARAM_KINDS,
    PARAM_BUSY,
    PARAM_COUNTS,
    PARAM_CELLS,
    PARAM_KEPT
};

/* The columns store_overview_each_part selects. */
enum {
    COLUMN_PART,
    COLUMN_PROCESS,
    COLUMN_DEVICE,
    COLUMN_STREAM,
    COLUMN_KINDS,
    COLUMN_BUSY,
    COLUMN_COUNTS,
    COLUMN_CELLS,
    COLUMN_KEPT,
    COLUMN_INTERVAL_COUNT
};

struct store_overview_writer {
    sqlite3 *db;
    sqlite3_stmt *insert;
};

/* The first column of sql's first row; fallback when it fails, has no row or is NULL. */
static int64_t query_int64(sqlite3 *db, const char *sql, int64_t fallback)
{
    sqlite3_stmt *query = NULL;
    int64_t value = fallback;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW &&
        sqlite3_column_type(query, 0) != SQLITE_NULL)
        value = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return value;
}

int store_overview_clear(store *trace, error_info *err)
{
    sqlite3 *db = store_db(trace);
    if (sqlite3_exec(db, "DELETE FROM render_overview", NULL, NULL, NULL) != SQLITE_OK)
        return error_set(err, "cannot replace the overview: %s", sqlite3_errmsg(db));
    return 0;
}

void store_overview_gpu_rowids(store *trace, int64_t rowids[3])
{
    sqlite3 *db = store_db(trace);
    rowids[0] = query_int64(db, "SELECT MAX(rowid) FROM kernels", 0);
    rowids[1] = query_int64(db, "SELECT MAX(rowid) FROM memcpys", 0);
    rowids[2] = query_int64(db, "SELECT MAX(rowid) FROM memsets", 0);
}

int64_t store_overview_stream_count(store *trace)
{
    return query_int64(store_db(trace), "SELECT COUNT(*) FROM streams", 0);
}

int store_overview_writer_open(store *trace, struct store_overview_writer **out, error_info *err)
{
    *out = NULL;
    struct store_overview_writer *w = calloc(1, sizeof *w);
    if (!w)
        return error_set(err, "out of memory");
    w->db = store_db(trace);
    if (sqlite3_prepare_v2(
            w->db,
            "INSERT INTO render_overview (what, process_id, device_id, stream_id, start_ns, end_ns,"
            " columns, kernels_rowid, memcpys_rowid, memsets_rowid, interval_count, kinds, busy,"
            " counts, cells, kept) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
            " ?14, ?15, ?16)",
            -1, &w->insert, NULL) != SQLITE_OK) {
        error_set(err, "cannot write the overview: %s", sqlite3_errmsg(w->db));
        store_overview_writer_close(w);
        return -1;
    }
    *out = w;
    return 0;
}

void store_overview_writer_close(struct store_overview_writer *w)
{
    if (!w)
        return;
    sqlite3_finalize(w->insert);
    free(w);
}

/* Inserts the row bound so far and clears the statement for the next. */
static int insert_row(struct store_overview_writer *w, error_info *err)
{
    int status = sqlite3_step(w->insert) == SQLITE_DONE
                     ? 0
                     : error_set(err, "cannot write the overview: %s", sqlite3_errmsg(w->db));
    sqlite3_reset(w->insert);
    sqlite3_clear_bindings(w->insert);
    return status;
}

int store_overview_write_header(struct store_overview_writer *w, const struct store_overview_header *header,
                                error_info *err)
{
    sqlite3_bind_int(w->insert, PARAM_WHAT, STORE_OVERVIEW_HEADER);
    sqlite3_bind_int64(w->insert, PARAM_START, header->start_ns);
    sqlite3_bind_int64(w->insert, PARAM_END, header->end_ns);
    sqlite3_bind_int64(w->insert, PARAM_COLUMNS, header->columns);
    for (int i = 0; i < 3; i++)
        sqlite3_bind_int64(w->insert, PARAM_KERNELS_ROWID + i, header->gpu_rowids[i]);
    return insert_row(w, err);
}

/* A blob as given; an empty one zero-length, not NULL (a NULL pointer would bind NULL). */
static void bind_blob(sqlite3_stmt *insert, int param, const unsigned char *data, size_t bytes)
{
    sqlite3_bind_blob(insert, param, bytes > 0 ? (const void *)data : (const void *)"", (int)bytes,
                      SQLITE_STATIC);
}

int store_overview_write_part(struct store_overview_writer *w, const struct store_overview_part *part,
                              error_info *err)
{
    sqlite3_bind_int(w->insert, PARAM_WHAT, part->what);
    sqlite3_bind_int64(w->insert, PARAM_PROCESS, part->process_id);
    sqlite3_bind_int64(w->insert, PARAM_DEVICE, part->device_id);
    sqlite3_bind_int64(w->insert, PARAM_INTERVAL_COUNT, part->interval_count);
    bind_blob(w->insert, PARAM_CELLS, part->cells, part->cells_bytes);
    if (part->what == STORE_OVERVIEW_LANE) {
        sqlite3_bind_int64(w->insert, PARAM_STREAM, part->stream_id);
        sqlite3_bind_int64(w->insert, PARAM_KINDS, part->kinds);
        bind_blob(w->insert, PARAM_BUSY, part->busy, part->busy_bytes);
        bind_blob(w->insert, PARAM_COUNTS, part->counts, part->counts_bytes);
        bind_blob(w->insert, PARAM_KEPT, part->kept, part->kept_bytes);
    }
    return insert_row(w, err);
}

int store_overview_read_header(store *trace, struct store_overview_header *header, error_info *err)
{
    sqlite3 *db = store_db(trace);
    if (query_int64(db,
                    "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'render_overview'",
                    0) == 0)
        return 0;
    sqlite3_stmt *query = NULL;
    int status = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT start_ns, end_ns, columns, kernels_rowid, memcpys_rowid, memsets_rowid"
                           " FROM render_overview WHERE what = 0 ORDER BY part LIMIT 1",
                           -1, &query, NULL) != SQLITE_OK) {
        status = error_set(err, "the trace is damaged: cannot read its overview: %s", sqlite3_errmsg(db));
    } else if (sqlite3_step(query) == SQLITE_ROW) {
        header->start_ns = sqlite3_column_int64(query, 0);
        header->end_ns = sqlite3_column_int64(query, 1);
        header->columns = sqlite3_column_int64(query, 2);
        for (int i = 0; i < 3; i++)
            header->gpu_rowids[i] = sqlite3_column_int64(query, 3 + i);
        status = 1;
    }
    sqlite3_finalize(query);
    return status;
}

/* A blob column: its bytes (NULL when empty or NULL) and their count. */
static const unsigned char *column_blob(sqlite3_stmt *query, int column, size_t *bytes)
{
    const unsigned char *data = sqlite3_column_blob(query, column);
    *bytes = (size_t)sqlite3_column_bytes(query, column);
    return data;
}

int store_overview_each_part(store *trace, int what, store_overview_part_visit *visit, void *context,
                             error_info *err)
{
    sqlite3 *db = store_db(trace);
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT part, process_id, device_id, stream_id, kinds, busy, counts, cells, kept,"
                           " interval_count FROM render_overview WHERE what = ?1 ORDER BY part",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "the trace is damaged: cannot read its overview: %s", sqlite3_errmsg(db));
    sqlite3_bind_int(query, 1, what);
    int status = 0, step;
    while (status == 0 && (step = sqlite3_step(query)) == SQLITE_ROW) {
        struct store_overview_part part = {.part = sqlite3_column_int64(query, COLUMN_PART),
                                           .what = what,
                                           .process_id = sqlite3_column_int64(query, COLUMN_PROCESS),
                                           .device_id = sqlite3_column_int64(query, COLUMN_DEVICE),
                                           .stream_id = sqlite3_column_int64(query, COLUMN_STREAM),
                                           .interval_count =
                                               sqlite3_column_int64(query, COLUMN_INTERVAL_COUNT),
                                           .kinds = sqlite3_column_int64(query, COLUMN_KINDS)};
        part.busy = column_blob(query, COLUMN_BUSY, &part.busy_bytes);
        part.counts = column_blob(query, COLUMN_COUNTS, &part.counts_bytes);
        part.cells = column_blob(query, COLUMN_CELLS, &part.cells_bytes);
        part.kept = column_blob(query, COLUMN_KEPT, &part.kept_bytes);
        status = visit(context, &part);
    }
    if (status == 0 && step != SQLITE_DONE)
        status = error_set(err, "the trace is damaged: cannot read its overview: %s", sqlite3_errmsg(db));
    sqlite3_finalize(query);
    return status;
}
