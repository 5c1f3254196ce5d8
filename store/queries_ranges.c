/* queries_ranges.c: see queries_ranges.h. */
#include "queries_ranges.h"

#include <stdlib.h>

#include "store.h"

/* The walk of a prepared range query: columns thread_id, device_id, start_ns, end_ns, process_id,
 * message_id (the last two may be absent: process_id then given). */
static int walk_ranges(sqlite3_stmt *query, int64_t process_id, store_nvtx_range_visit *visit, void *context)
{
    int stopped = 0;
    int columns = sqlite3_column_count(query);
    while (stopped == 0 && sqlite3_step(query) == SQLITE_ROW) {
        struct store_nvtx_range range = {
            .thread_id =
                sqlite3_column_type(query, 0) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 0),
            .on_device = sqlite3_column_type(query, 1) != SQLITE_NULL,
            .start_ns = sqlite3_column_int64(query, 2),
            .end_ns = sqlite3_column_int64(query, 3),
            .process_id = columns > 4 ? sqlite3_column_int64(query, 4) : process_id,
            .message_id = columns > 5 ? sqlite3_column_int64(query, 5) : 0};
        stopped = visit(context, &range);
    }
    sqlite3_finalize(query);
    return stopped;
}

int store_each_named_range(sqlite3 *db, int64_t process_id, const char *name, store_nvtx_range_visit *visit,
                           void *context, error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT n.thread_id, n.device_id, n.start_ns, n.end_ns FROM nvtx n"
                           " WHERE n.process_id = ?1 AND n.kind != 3"
                           " AND n.message_id = (SELECT id FROM strings WHERE value = ?2)",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read NVTX ranges: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_text(query, 2, name, -1, SQLITE_TRANSIENT);
    return walk_ranges(query, process_id, visit, context);
}

int store_each_range(sqlite3 *db, store_nvtx_range_visit *visit, void *context, error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, device_id, start_ns, end_ns, process_id, message_id FROM nvtx"
                           " WHERE kind != 3",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read NVTX ranges: %s", sqlite3_errmsg(db));
    return walk_ranges(query, STORE_NULL, visit, context);
}

int store_each_range_message(sqlite3 *db, store_range_message_visit *visit, void *context, error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT s.id, s.value FROM strings s WHERE s.id IN"
                           " (SELECT DISTINCT message_id FROM nvtx WHERE kind != 3)",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read NVTX ranges: %s", sqlite3_errmsg(db));
    int stopped = 0;
    while (stopped == 0 && sqlite3_step(query) == SQLITE_ROW)
        stopped = visit(context, sqlite3_column_int64(query, 0), (const char *)sqlite3_column_text(query, 1));
    sqlite3_finalize(query);
    return stopped;
}

enum { GPU_TABLE_COUNT = 3 };

struct store_launched_work {
    sqlite3_stmt *queries[GPU_TABLE_COUNT];
};

static const char *const launched_sql[GPU_TABLE_COUNT] = {
    "SELECT MIN(g.start_ns), MAX(g.end_ns) FROM api_calls a JOIN kernels g ON g.process_id = a.process_id"
    " AND g.correlation_id = a.correlation_id WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns >= "
    "?3"
    " AND a.start_ns < ?4",
    "SELECT MIN(g.start_ns), MAX(g.end_ns) FROM api_calls a JOIN memcpys g ON g.process_id = a.process_id"
    " AND g.correlation_id = a.correlation_id WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns >= "
    "?3"
    " AND a.start_ns < ?4",
    "SELECT MIN(g.start_ns), MAX(g.end_ns) FROM api_calls a JOIN memsets g ON g.process_id = a.process_id"
    " AND g.correlation_id = a.correlation_id WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns >= "
    "?3"
    " AND a.start_ns < ?4",
};

void store_launched_work_close(store_launched_work *work)
{
    if (!work)
        return;
    for (int i = 0; i < GPU_TABLE_COUNT; i++)
        sqlite3_finalize(work->queries[i]);
    free(work);
}

store_launched_work *store_launched_work_open(sqlite3 *db, error_info *err)
{
    store_launched_work *work = calloc(1, sizeof *work);
    if (!work) {
        error_set(err, "out of memory");
        return NULL;
    }
    for (int i = 0; i < GPU_TABLE_COUNT; i++) {
        if (sqlite3_prepare_v2(db, launched_sql[i], -1, &work->queries[i], NULL) != SQLITE_OK) {
            error_set(err, "cannot map ranges to GPU time: %s", sqlite3_errmsg(db));
            store_launched_work_close(work);
            return NULL;
        }
    }
    return work;
}

int store_launched_work_time(store_launched_work *work, int64_t process_id, int64_t thread_id,
                             int64_t host_start_ns, int64_t host_end_ns, int64_t *start_ns, int64_t *end_ns)
{
    int found = 0;
    for (int i = 0; i < GPU_TABLE_COUNT; i++) {
        sqlite3_stmt *query = work->queries[i];
        sqlite3_bind_int64(query, 1, process_id);
        sqlite3_bind_int64(query, 2, thread_id);
        sqlite3_bind_int64(query, 3, host_start_ns);
        sqlite3_bind_int64(query, 4, host_end_ns);
        if (sqlite3_step(query) == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL) {
            int64_t first = sqlite3_column_int64(query, 0), last = sqlite3_column_int64(query, 1);
            if (!found || first < *start_ns)
                *start_ns = first;
            if (!found || last > *end_ns)
                *end_ns = last;
            found = 1;
        }
        sqlite3_reset(query);
    }
    return found;
}

int store_process_rank(sqlite3 *db, int64_t process_id, int64_t *rank)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, "SELECT rank FROM processes WHERE process_id = ?1", -1, &query, NULL) !=
        SQLITE_OK)
        return -1;
    sqlite3_bind_int64(query, 1, process_id);
    *rank = sqlite3_step(query) == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL
                ? sqlite3_column_int64(query, 0)
                : -1;
    sqlite3_finalize(query);
    return 0;
}
