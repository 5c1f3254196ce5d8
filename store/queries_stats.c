/* queries_stats.c: the rows `overlapscope stats` summarizes; see queries_stats.h. One prepared
 * statement per walk, bound to (process, [device,] from, to); the row decoding is per table. */
#include "queries_stats.h"

#include <sqlite3.h>
#include <stddef.h>

/* The bounds every walk binds: ?1 process, ?2 device (when the query names it), ?3 from, ?4 to. */
#define STATS_TIME_BOUND " AND end_ns >= ?3 AND start_ns <= ?4"

static int64_t column_or_null(sqlite3_stmt *query, int column)
{
    return sqlite3_column_type(query, column) == SQLITE_NULL ? STORE_NULL
                                                             : sqlite3_column_int64(query, column);
}

/* The caller's callback and context, through walk to the decoder of its table. */
struct pass {
    union {
        store_stats_kernel_visit *kernel;
        store_stats_memcpy_visit *memcpy;
        store_stats_memset_visit *memset;
        store_stats_collective_visit *collective;
        store_stats_api_call_visit *api_call;
        store_stats_nvtx_visit *nvtx;
        store_stats_synchronization_visit *synchronization;
    } visit;
    void *context;
};

typedef int decode_row(sqlite3_stmt *query, const struct pass *pass);

/* Prepares sql, binds span, and hands each row to decode (which calls visit). what names the rows
 * in an error. */
static int walk(store *trace, const char *sql, const struct store_stats_span *span, const char *what,
                decode_row *decode, const struct pass *pass, error_info *err)
{
    sqlite3 *db = store_db(trace);
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read the %s: %s", what, sqlite3_errmsg(db));
    sqlite3_bind_int64(query, 1, span->process_id);
    sqlite3_bind_int64(query, 2, span->device_id);
    sqlite3_bind_int64(query, 3, span->from_ns);
    sqlite3_bind_int64(query, 4, span->to_ns);
    int status = 0, rc;
    while (status == 0 && (rc = sqlite3_step(query)) == SQLITE_ROW)
        status = decode(query, pass);
    if (status == 0 && rc != SQLITE_DONE)
        status = error_set(err, "cannot read the %s: %s", what, sqlite3_errmsg(db));
    sqlite3_finalize(query);
    return status;
}

static int decode_kernel(sqlite3_stmt *query, const struct pass *pass)
{
    struct store_stats_kernel row = {.rowid = sqlite3_column_int64(query, 0),
                                     .stream_id = sqlite3_column_int64(query, 1),
                                     .start_ns = sqlite3_column_int64(query, 2),
                                     .end_ns = sqlite3_column_int64(query, 3),
                                     .name_id = sqlite3_column_int64(query, 4),
                                     .grid_x = column_or_null(query, 5),
                                     .grid_y = column_or_null(query, 6),
                                     .grid_z = column_or_null(query, 7),
                                     .block_x = column_or_null(query, 8),
                                     .block_y = column_or_null(query, 9),
                                     .block_z = column_or_null(query, 10),
                                     .registers_per_thread = column_or_null(query, 11),
                                     .static_shared_bytes = column_or_null(query, 12),
                                     .dynamic_shared_bytes = column_or_null(query, 13),
                                     .shared_memory_executed_bytes = column_or_null(query, 14)};
    return pass->visit.kernel(pass->context, &row);
}

int store_stats_each_kernel(store *trace, const struct store_stats_span *span,
                            store_stats_kernel_visit *visit, void *context, error_info *err)
{
    static const char sql[] =
        "SELECT rowid, stream_id, start_ns, end_ns, name_id, grid_x, grid_y, grid_z, block_x, block_y, "
        "block_z,"
        " registers_per_thread, static_shared_bytes, dynamic_shared_bytes, shared_memory_executed_bytes"
        " FROM kernels WHERE process_id = ?1 AND device_id = ?2" STATS_TIME_BOUND;
    struct pass pass = {.visit.kernel = visit, .context = context};
    return walk(trace, sql, span, "kernels", decode_kernel, &pass, err);
}

static int decode_memcpy(sqlite3_stmt *query, const struct pass *pass)
{
    struct store_memcpy row = {.stream_id = sqlite3_column_int64(query, 0),
                               .start_ns = sqlite3_column_int64(query, 1),
                               .end_ns = sqlite3_column_int64(query, 2),
                               .copy_kind = sqlite3_column_int64(query, 3),
                               .src_kind = column_or_null(query, 4),
                               .dst_kind = column_or_null(query, 5),
                               .bytes = sqlite3_column_int64(query, 6),
                               .src_device_id = column_or_null(query, 7),
                               .dst_device_id = column_or_null(query, 8)};
    return pass->visit.memcpy(pass->context, &row);
}

int store_stats_each_memcpy(store *trace, const struct store_stats_span *span,
                            store_stats_memcpy_visit *visit, void *context, error_info *err)
{
    static const char sql[] = "SELECT stream_id, start_ns, end_ns, copy_kind, src_kind, dst_kind, bytes,"
                              " src_device_id, dst_device_id FROM memcpys"
                              " WHERE process_id = ?1 AND device_id = ?2" STATS_TIME_BOUND;
    struct pass pass = {.visit.memcpy = visit, .context = context};
    return walk(trace, sql, span, "copies", decode_memcpy, &pass, err);
}

static int decode_memset(sqlite3_stmt *query, const struct pass *pass)
{
    struct store_memset row = {.stream_id = sqlite3_column_int64(query, 0),
                               .start_ns = sqlite3_column_int64(query, 1),
                               .end_ns = sqlite3_column_int64(query, 2),
                               .bytes = sqlite3_column_int64(query, 3),
                               .memory_kind = column_or_null(query, 4)};
    return pass->visit.memset(pass->context, &row);
}

int store_stats_each_memset(store *trace, const struct store_stats_span *span,
                            store_stats_memset_visit *visit, void *context, error_info *err)
{
    static const char sql[] = "SELECT stream_id, start_ns, end_ns, bytes, memory_kind FROM memsets"
                              " WHERE process_id = ?1 AND device_id = ?2" STATS_TIME_BOUND;
    struct pass pass = {.visit.memset = visit, .context = context};
    return walk(trace, sql, span, "memsets", decode_memset, &pass, err);
}

static int decode_collective(sqlite3_stmt *query, const struct pass *pass)
{
    struct store_stats_collective row = {.stream_id = column_or_null(query, 0),
                                         .start_ns = sqlite3_column_int64(query, 1),
                                         .end_ns = sqlite3_column_int64(query, 2),
                                         .bytes = column_or_null(query, 3),
                                         .nranks = column_or_null(query, 4),
                                         .op = (const char *)sqlite3_column_text(query, 5)};
    return pass->visit.collective(pass->context, &row);
}

int store_stats_each_collective(store *trace, const struct store_stats_span *span,
                                store_stats_collective_visit *visit, void *context, error_info *err)
{
    /* The kernel's times where the row has none (a name-parsed or Kineto collective). A version 2
     * trace's kernel is read from its run: joined to the view kernels, SQLite copied every kernel
     * of the trace into a table and indexed it, once a device (a trace of 100,000 steps: a fifth of
     * stats). */
#define COLLECTIVES_SQL(kernel_end, kernels)                                                                 \
    "SELECT stream_id, start_ns, end_ns, bytes, nranks, op FROM ("                                           \
    " SELECT IFNULL(c.stream_id, k.stream_id) AS stream_id, IFNULL(c.start_ns, k.start_ns) AS start_ns,"     \
    " IFNULL(c.end_ns, " kernel_end ") AS end_ns, c.bytes AS bytes, c.nranks AS nranks, c.op AS op"          \
    " FROM collectives c LEFT JOIN " kernels " k ON k.rowid = c.kernel_rowid"                                \
    " WHERE c.process_id = ?1 AND IFNULL(c.device_id, k.device_id) = ?2)"                                    \
    " WHERE start_ns IS NOT NULL AND end_ns IS NOT NULL" STATS_TIME_BOUND
    static const char runs_sql[] = COLLECTIVES_SQL("k.start_ns + k.duration_ns", "kernel_runs"),
                      view_sql[] = COLLECTIVES_SQL("k.end_ns", "kernels");
#undef COLLECTIVES_SQL
    struct pass pass = {.visit.collective = visit, .context = context};
    const char *sql = store_db_has_table(store_db(trace), "kernel_runs") ? runs_sql : view_sql;
    return walk(trace, sql, span, "collectives", decode_collective, &pass, err);
}

static int decode_api_call(sqlite3_stmt *query, const struct pass *pass)
{
    struct store_stats_api_call row = {.thread_id = sqlite3_column_int64(query, 0),
                                       .api_domain = sqlite3_column_int64(query, 1),
                                       .name_id = sqlite3_column_int64(query, 2),
                                       .start_ns = sqlite3_column_int64(query, 3),
                                       .end_ns = sqlite3_column_int64(query, 4)};
    return pass->visit.api_call(pass->context, &row);
}

int store_stats_each_api_call(store *trace, const struct store_stats_span *span,
                              store_stats_api_call_visit *visit, void *context, error_info *err)
{
    static const char sql[] = "SELECT thread_id, api_domain, name_id, start_ns, end_ns FROM api_calls"
                              " WHERE process_id = ?1 AND api_domain < 3" STATS_TIME_BOUND;
    struct pass pass = {.visit.api_call = visit, .context = context};
    return walk(trace, sql, span, "API calls", decode_api_call, &pass, err);
}

static int decode_nvtx(sqlite3_stmt *query, const struct pass *pass)
{
    struct store_stats_nvtx_range row = {.message_id = sqlite3_column_int64(query, 0),
                                         .domain_id = sqlite3_column_int64(query, 1),
                                         .kind = sqlite3_column_int64(query, 2),
                                         .start_ns = sqlite3_column_int64(query, 3),
                                         .end_ns = sqlite3_column_int64(query, 4)};
    return pass->visit.nvtx(pass->context, &row);
}

int store_stats_each_nvtx_range(store *trace, const struct store_stats_span *span,
                                store_stats_nvtx_visit *visit, void *context, error_info *err)
{
    static const char sql[] = "SELECT message_id, IFNULL(domain_id, 0), kind, start_ns, end_ns FROM nvtx"
                              " WHERE process_id = ?1 AND kind <> 3" STATS_TIME_BOUND;
    struct pass pass = {.visit.nvtx = visit, .context = context};
    return walk(trace, sql, span, "NVTX ranges", decode_nvtx, &pass, err);
}

static int decode_synchronization(sqlite3_stmt *query, const struct pass *pass)
{
    struct store_synchronization row = {.stream_id = column_or_null(query, 0),
                                        .sync_type = sqlite3_column_int64(query, 1),
                                        .start_ns = sqlite3_column_int64(query, 2),
                                        .end_ns = sqlite3_column_int64(query, 3)};
    return pass->visit.synchronization(pass->context, &row);
}

int store_stats_each_synchronization(store *trace, const struct store_stats_span *span,
                                     store_stats_synchronization_visit *visit, void *context, error_info *err)
{
    static const char sql[] = "SELECT stream_id, sync_type, start_ns, end_ns FROM synchronizations"
                              " WHERE process_id = ?1 AND ?2 = ?2" STATS_TIME_BOUND;
    struct pass pass = {.visit.synchronization = visit, .context = context};
    return walk(trace, sql, span, "synchronizations", decode_synchronization, &pass, err);
}
