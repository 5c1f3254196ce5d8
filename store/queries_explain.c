/* queries_explain.c: see queries_explain.h. The SQL of the explainer's questions, each prepared
 * once, bound, stepped and reset per question. */
#include "queries_explain.h"

#include <stdlib.h>
#include <string.h>

#include "store.h"

struct store_explain {
    sqlite3 *db;
    sqlite3_stmt *launch, *host_before, *host_within, *calls_back, *communicator, *any_stream_wait, *memcpy,
        *syncs, *event;
};

/* The name is resolved through the strings table (API names are few). */
static const char *const sql_launch = "SELECT a.start_ns, a.end_ns, a.thread_id, s.value FROM api_calls a "
                                      "LEFT JOIN strings s ON s.id = a.name_id"
                                      " WHERE a.process_id = ?1 AND a.correlation_id = ?2 LIMIT 1";
static const char *const sql_host_before =
    "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value FROM api_calls a LEFT JOIN strings s ON s.id = "
    "a.name_id"
    " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns < ?3 AND a.api_domain < 3"
    " ORDER BY a.start_ns DESC LIMIT 1";
static const char *const sql_host_within = "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value FROM "
                                           "api_calls a LEFT JOIN strings s ON s.id = a.name_id"
                                           " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns >= "
                                           "?3 AND a.start_ns < ?4 AND a.api_domain < 3 ORDER BY a.start_ns"
                                           " LIMIT 4096";
/* The launching thread's calls before a launch, latest first: where it was when the other op ended. */
static const char *const sql_calls_back =
    "SELECT a.start_ns, a.end_ns, s.value, a.correlation_id FROM api_calls a LEFT JOIN strings s ON s.id = "
    "a.name_id"
    " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns < ?3 AND a.api_domain < 3"
    " ORDER BY a.start_ns DESC LIMIT 64";
static const char *const sql_communicator =
    "SELECT communicator FROM collectives WHERE kernel_rowid = ?1 AND communicator IS NOT NULL LIMIT 1";
static const char *const sql_any_stream_wait =
    "SELECT 1 FROM synchronizations WHERE process_id = ?1 AND sync_type = 2 LIMIT 1";
static const char *const sql_memcpy = "SELECT src_kind, dst_kind, bytes, copy_kind FROM memcpys WHERE "
                                      "process_id = ?1 AND correlation_id = ?2 LIMIT 1";
static const char *const sql_syncs =
    "SELECT sync_type, stream_id, event_id, correlation_id FROM synchronizations"
    " WHERE process_id = ?1 AND start_ns <= ?2 ORDER BY start_ns DESC LIMIT 256";
static const char *const sql_event =
    "SELECT stream_id, correlation_id FROM cuda_events WHERE process_id = ?1 AND event_id = ?2"
    " AND (?3 IS NULL OR correlation_id < ?3) ORDER BY correlation_id DESC LIMIT 1";

_Static_assert(STORE_EXPLAIN_HOST_CALLS_MAX == 4096 && STORE_EXPLAIN_SYNC_LOOKBACK_ROWS == 256 &&
                   STORE_EXPLAIN_CALLS_BACK_MAX == 64,
               "the limits are spelled in the SQL above");

store_explain *store_explain_open(sqlite3 *db, error_info *err)
{
    store_explain *queries = calloc(1, sizeof *queries);
    if (!queries) {
        error_set(err, "out of memory");
        return NULL;
    }
    queries->db = db;
    struct {
        sqlite3_stmt **statement;
        const char *sql;
    } all[] = {{&queries->launch, sql_launch},
               {&queries->host_before, sql_host_before},
               {&queries->host_within, sql_host_within},
               {&queries->memcpy, sql_memcpy},
               {&queries->syncs, sql_syncs},
               {&queries->event, sql_event},
               {&queries->calls_back, sql_calls_back},
               {&queries->communicator, sql_communicator},
               {&queries->any_stream_wait, sql_any_stream_wait}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (sqlite3_prepare_v2(db, all[i].sql, -1, all[i].statement, NULL) != SQLITE_OK) {
            error_set(err, "cannot prepare the explanation queries: %s", sqlite3_errmsg(db));
            store_explain_close(queries);
            return NULL;
        }
    }
    return queries;
}

void store_explain_close(store_explain *queries)
{
    if (!queries)
        return;
    sqlite3_finalize(queries->launch);
    sqlite3_finalize(queries->host_before);
    sqlite3_finalize(queries->host_within);
    sqlite3_finalize(queries->memcpy);
    sqlite3_finalize(queries->syncs);
    sqlite3_finalize(queries->event);
    sqlite3_finalize(queries->calls_back);
    sqlite3_finalize(queries->communicator);
    sqlite3_finalize(queries->any_stream_wait);
    free(queries);
}

static int64_t nullable(sqlite3_stmt *query, int column)
{
    return sqlite3_column_type(query, column) == SQLITE_NULL ? STORE_NULL
                                                             : sqlite3_column_int64(query, column);
}

int store_explain_launch(store_explain *queries, int64_t process_id, int64_t correlation_id,
                         store_explain_call_visit *visit, void *context)
{
    sqlite3_stmt *query = queries->launch;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, correlation_id);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found) {
        struct store_explain_call call = {.start_ns = sqlite3_column_int64(query, 0),
                                          .end_ns = sqlite3_column_int64(query, 1),
                                          .thread_id = sqlite3_column_int64(query, 2),
                                          .correlation_id = correlation_id,
                                          .name = sqlite3_column_text(query, 3)};
        visit(context, &call);
    }
    sqlite3_reset(query);
    return found;
}

/* Rows of (start, end, then the correlation id and the name in the columns given) to visit, until it
 * stops them. */
static void visit_calls(sqlite3_stmt *query, int64_t thread_id, int correlation_column, int name_column,
                        store_explain_call_visit *visit, void *context)
{
    while (sqlite3_step(query) == SQLITE_ROW) {
        struct store_explain_call call = {.start_ns = sqlite3_column_int64(query, 0),
                                          .end_ns = sqlite3_column_int64(query, 1),
                                          .thread_id = thread_id,
                                          .correlation_id = nullable(query, correlation_column),
                                          .name = sqlite3_column_text(query, name_column)};
        if (visit(context, &call))
            break;
    }
    sqlite3_reset(query);
}

void store_explain_host_calls(store_explain *queries, int64_t process_id, int64_t thread_id, int64_t from_ns,
                              int64_t to_ns, store_explain_call_visit *visit, void *context)
{
    sqlite3_stmt *before = queries->host_before;
    sqlite3_bind_int64(before, 1, process_id);
    sqlite3_bind_int64(before, 2, thread_id);
    sqlite3_bind_int64(before, 3, from_ns);
    visit_calls(before, thread_id, 2, 3, visit, context);
    sqlite3_stmt *within = queries->host_within;
    sqlite3_bind_int64(within, 1, process_id);
    sqlite3_bind_int64(within, 2, thread_id);
    sqlite3_bind_int64(within, 3, from_ns);
    sqlite3_bind_int64(within, 4, to_ns);
    visit_calls(within, thread_id, 2, 3, visit, context);
}

void store_explain_calls_back(store_explain *queries, int64_t process_id, int64_t thread_id,
                              int64_t before_ns, store_explain_call_visit *visit, void *context)
{
    sqlite3_stmt *query = queries->calls_back;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, thread_id);
    sqlite3_bind_int64(query, 3, before_ns);
    visit_calls(query, thread_id, 3, 2, visit, context);
}

int store_explain_copy_of_call(store_explain *queries, int64_t process_id, int64_t correlation_id,
                               struct store_explain_copy *copy)
{
    sqlite3_stmt *query = queries->memcpy;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, correlation_id);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found)
        *copy = (struct store_explain_copy){.src_kind = nullable(query, 0),
                                            .dst_kind = nullable(query, 1),
                                            .bytes = sqlite3_column_int64(query, 2),
                                            .copy_kind = sqlite3_column_int64(query, 3)};
    sqlite3_reset(query);
    return found;
}

int store_explain_has_stream_waits(store_explain *queries, int64_t process_id)
{
    sqlite3_stmt *query = queries->any_stream_wait;
    sqlite3_bind_int64(query, 1, process_id);
    int found = sqlite3_step(query) == SQLITE_ROW;
    sqlite3_reset(query);
    return found;
}

void store_explain_syncs_before(store_explain *queries, int64_t process_id, int64_t at_ns,
                                store_explain_sync_visit *visit, void *context)
{
    sqlite3_stmt *query = queries->syncs;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, at_ns);
    while (sqlite3_step(query) == SQLITE_ROW) {
        struct store_explain_sync sync = {.sync_type = sqlite3_column_int64(query, 0),
                                          .stream_id = nullable(query, 1),
                                          .event_id = sqlite3_column_int64(query, 2),
                                          .correlation_id = nullable(query, 3)};
        if (visit(context, &sync))
            break;
    }
    sqlite3_reset(query);
}

int store_explain_event_record(store_explain *queries, int64_t process_id, int64_t event_id,
                               int64_t before_correlation_id, int64_t *stream_id, int64_t *correlation_id)
{
    sqlite3_stmt *query = queries->event;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, event_id);
    if (before_correlation_id != STORE_NULL)
        sqlite3_bind_int64(query, 3, before_correlation_id);
    else
        sqlite3_bind_null(query, 3);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found) {
        *stream_id = nullable(query, 0);
        *correlation_id = nullable(query, 1);
    }
    sqlite3_reset(query);
    return found;
}

int store_explain_communicator(store_explain *queries, int64_t kernel_rowid, char *buffer, size_t size)
{
    sqlite3_stmt *query = queries->communicator;
    sqlite3_bind_int64(query, 1, kernel_rowid);
    const unsigned char *text = sqlite3_step(query) == SQLITE_ROW ? sqlite3_column_text(query, 0) : NULL;
    if (text) {
        size_t length = strnlen((const char *)text, size - 1);
        memcpy(buffer, text, length);
        buffer[length] = '\0';
    }
    sqlite3_reset(query);
    return text != NULL;
}
