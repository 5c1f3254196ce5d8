/* queries_idle.c: see queries_idle.h. */
#include "queries_idle.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "call_sources.h"
#include "store.h"

struct store_idle {
    sqlite3 *db;
    sqlite3_stmt *launch_query, *covering_query, *calls_query, *memcpy_query, *wait_query, *source_query,
        *collective_query, *late_gpu_query;
};

store_idle *store_idle_open(sqlite3 *db, error_info *err)
{
    store_idle *queries = calloc(1, sizeof *queries);
    if (!queries) {
        error_set(err, "out of memory");
        return NULL;
    }
    queries->db = db;
    static const struct {
        size_t offset;
        const char *sql;
    } statements[] = {
        {offsetof(struct store_idle, launch_query), "SELECT start_ns, end_ns, thread_id, name_id FROM "
                                                    "api_calls WHERE process_id = ?1 AND correlation_id = ?2"
                                                    " ORDER BY start_ns LIMIT 1"},
        /* Calls that began before the gap, latest first: the one the thread was in when it opened. */
        {offsetof(struct store_idle, covering_query),
         "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value, a.api_domain FROM api_calls a LEFT JOIN"
         " strings s ON s.id = a.name_id"
         " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns < ?3 ORDER BY a.start_ns DESC LIMIT "
         "16"},
        {offsetof(struct store_idle, calls_query),
         "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value, "
         "a.api_domain FROM api_calls a LEFT JOIN strings s ON s.id = a.name_id"
         " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND "
         "a.start_ns >= ?3 AND a.start_ns < ?4 ORDER BY a.start_ns"
         " LIMIT 100000"},
        {offsetof(struct store_idle, memcpy_query), "SELECT copy_kind, bytes, dst_kind FROM memcpys WHERE "
                                                    "process_id = ?1 AND correlation_id = ?2 LIMIT 1"},
        {offsetof(struct store_idle, wait_query), "SELECT event_id, start_ns FROM synchronizations WHERE "
                                                  "process_id = ?1 AND start_ns <= ?2 AND sync_type = 2"
                                                  " AND stream_id = ?3 ORDER BY start_ns DESC LIMIT 1"},
        {offsetof(struct store_idle, collective_query),
         "SELECT op, bytes, communicator, sequence_number, nranks FROM collectives WHERE kernel_rowid = ?1 "
         "LIMIT 1"},
        {offsetof(struct store_idle, late_gpu_query),
         "SELECT name_id, start_ns, end_ns FROM kernels WHERE process_id = ?1 AND device_id = ?2 AND "
         "start_ns < ?4"
         " AND start_ns > ?3 - 10000000 AND end_ns > ?3 ORDER BY start_ns DESC LIMIT 64"},
    };
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) {
        sqlite3_stmt **slot = (sqlite3_stmt **)((char *)queries + statements[i].offset);
        if (sqlite3_prepare_v2(db, statements[i].sql, -1, slot, NULL) != SQLITE_OK) {
            error_set(err, "cannot read the trace for idle accounting: %s", sqlite3_errmsg(db));
            store_idle_close(queries);
            return NULL;
        }
    }
    return queries;
}

int store_idle_prepare_sources(store_idle *queries)
{
    return sqlite3_prepare_v2(queries->db,
                              "SELECT s.value FROM call_sources c JOIN strings s ON s.id = c.source_id"
                              " WHERE c.process_id = ?1 AND c.correlation_id = ?2 LIMIT 1",
                              -1, &queries->source_query, NULL) == SQLITE_OK;
}

void store_idle_close(store_idle *queries)
{
    if (!queries)
        return;
    sqlite3_stmt *statements[] = {queries->launch_query,     queries->covering_query, queries->calls_query,
                                  queries->memcpy_query,     queries->wait_query,     queries->source_query,
                                  queries->collective_query, queries->late_gpu_query};
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++)
        sqlite3_finalize(statements[i]);
    free(queries);
}

int store_idle_launch(store_idle *queries, int64_t process_id, int64_t correlation_id, int64_t *start_ns,
                      int64_t *end_ns, int64_t *thread_id, int *thread_known)
{
    sqlite3_stmt *query = queries->launch_query;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, correlation_id);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found) {
        *start_ns = sqlite3_column_int64(query, 0);
        *end_ns = sqlite3_column_int64(query, 1);
        *thread_known = sqlite3_column_type(query, 2) != SQLITE_NULL;
        *thread_id = sqlite3_column_int64(query, 2);
    }
    sqlite3_reset(query);
    return found;
}

static sqlite3_stmt *calls_query(store_idle *queries, int forward)
{
    return forward ? queries->calls_query : queries->covering_query;
}

void store_idle_calls_begin(store_idle *queries, int forward, int64_t process_id, int64_t thread_id,
                            int64_t from_ns, int64_t to_ns)
{
    sqlite3_stmt *query = calls_query(queries, forward);
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, thread_id);
    sqlite3_bind_int64(query, 3, from_ns);
    if (forward)
        sqlite3_bind_int64(query, 4, to_ns);
}

int store_idle_calls_next(store_idle *queries, int forward, struct store_idle_call *call)
{
    sqlite3_stmt *query = calls_query(queries, forward);
    if (sqlite3_step(query) != SQLITE_ROW)
        return 0;
    call->start_ns = sqlite3_column_int64(query, 0);
    call->end_ns = sqlite3_column_int64(query, 1);
    call->correlation_id =
        sqlite3_column_type(query, 2) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 2);
    call->name = (const char *)sqlite3_column_text(query, 3);
    call->api_domain = sqlite3_column_int64(query, 4);
    return 1;
}

void store_idle_calls_end(store_idle *queries, int forward)
{
    sqlite3_reset(calls_query(queries, forward));
}

int store_idle_copy(store_idle *queries, int64_t process_id, int64_t correlation_id, int64_t *copy_kind,
                    int64_t *bytes, int64_t *dst_kind)
{
    sqlite3_stmt *query = queries->memcpy_query;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, correlation_id);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found) {
        *copy_kind = sqlite3_column_int64(query, 0);
        *bytes = sqlite3_column_int64(query, 1);
        *dst_kind = sqlite3_column_type(query, 2) == SQLITE_NULL ? STORE_MEMORY_UNKNOWN
                                                                 : sqlite3_column_int64(query, 2);
    }
    sqlite3_reset(query);
    return found;
}

int store_idle_stream_wait(store_idle *queries, int64_t process_id, int64_t at_ns, int64_t stream_id,
                           int64_t *event_id)
{
    sqlite3_stmt *query = queries->wait_query;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, at_ns);
    sqlite3_bind_int64(query, 3, stream_id);
    int waited = sqlite3_step(query) == SQLITE_ROW;
    *event_id = waited ? sqlite3_column_int64(query, 0) : 0;
    sqlite3_reset(query);
    return waited;
}

void store_idle_call_source(store_idle *queries, int64_t process_id, int64_t correlation_id, char *source,
                            size_t size)
{
    sqlite3_stmt *query = queries->source_query;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, correlation_id);
    if (sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 0))
        snprintf(source, size, "%s", (const char *)sqlite3_column_text(query, 0));
    sqlite3_reset(query);
}

int store_idle_collective(store_idle *queries, int64_t kernel_rowid, struct store_idle_collective *collective)
{
    sqlite3_stmt *query = queries->collective_query;
    sqlite3_bind_int64(query, 1, kernel_rowid);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found) {
        const unsigned char *op = sqlite3_column_text(query, 0),
                            *communicator = sqlite3_column_text(query, 2);
        snprintf(collective->op, sizeof collective->op, "%s", op ? (const char *)op : "?");
        snprintf(collective->communicator, sizeof collective->communicator, "%s",
                 communicator ? (const char *)communicator : "");
        if (sqlite3_column_type(query, 1) != SQLITE_NULL)
            collective->bytes = sqlite3_column_int64(query, 1);
        if (sqlite3_column_type(query, 3) != SQLITE_NULL)
            collective->sequence = sqlite3_column_int64(query, 3);
        if (sqlite3_column_type(query, 4) != SQLITE_NULL)
            collective->nranks = sqlite3_column_int64(query, 4);
    }
    sqlite3_reset(query);
    return found;
}

void store_idle_kernels_in(store_idle *queries, int64_t process_id, int64_t device_id, int64_t from_ns,
                           int64_t to_ns, store_idle_kernel_visit *visit, void *context)
{
    sqlite3_stmt *query = queries->late_gpu_query;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, device_id);
    sqlite3_bind_int64(query, 3, from_ns);
    sqlite3_bind_int64(query, 4, to_ns);
    while (sqlite3_step(query) == SQLITE_ROW)
        visit(context, sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1),
              sqlite3_column_int64(query, 2));
    sqlite3_reset(query);
}

int store_process_has(sqlite3 *db, enum store_process_probe probe, int64_t process_id)
{
    _Static_assert(STORE_SOURCE_CPU_OP == 2, "the probe below spells it");
    static const char *const sql[] = {
        [STORE_HAS_CUDA_CALLS] = "SELECT 1 FROM api_calls WHERE process_id = ?1 AND api_domain < 3 LIMIT 1",
        [STORE_HAS_SYNCS] = "SELECT 1 FROM synchronizations WHERE process_id = ?1 LIMIT 1",
        [STORE_HAS_COLLECTIVES] = "SELECT 1 FROM collectives WHERE process_id = ?1 LIMIT 1",
        [STORE_HAS_CALL_SOURCES] = "SELECT 1 FROM call_sources WHERE process_id = ?1 LIMIT 1",
        [STORE_HAS_PYTHON_SOURCES] = "SELECT 1 FROM call_sources WHERE process_id = ?1 AND kind <> 2 LIMIT 1",
        [STORE_LACKS_SYNC_EVENTS] = ("SELECT 1 FROM warnings WHERE (process_id = ?1 OR process_id IS NULL)"
                                     " AND code = 'import-no-cuda-sync' LIMIT 1"),
    };
    sqlite3_stmt *query = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, sql[probe], -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        found = sqlite3_step(query) == SQLITE_ROW;
    }
    sqlite3_finalize(query);
    return found;
}

void *store_process_rows(sqlite3 *db, enum store_process_rows which, int64_t process_id, int64_t device_id,
                         size_t columns, void *rows, size_t *count, int *complete)
{
    char device_sql[160];
    snprintf(device_sql, sizeof device_sql,
             "SELECT DISTINCT context_id FROM streams WHERE process_id = ?1 AND device_id = %" PRId64
             " AND context_id IS NOT NULL",
             device_id);
    const char *sql =
        which == STORE_ROWS_CALL_SOURCES
            ? "SELECT correlation_id, source_id FROM call_sources WHERE process_id = ?1"
              " ORDER BY correlation_id, rowid"
        : which == STORE_ROWS_STREAM_WAITS
            ? "SELECT start_ns, stream_id, event_id FROM synchronizations"
              " WHERE process_id = ?1 AND sync_type = 2 AND stream_id IS NOT NULL"
              " ORDER BY start_ns, rowid"
        : which == STORE_ROWS_SYNC_CONTEXTS
            ? "SELECT correlation_id, context_id FROM synchronizations WHERE process_id = ?1"
              " AND correlation_id IS NOT NULL AND context_id IS NOT NULL ORDER BY correlation_id, rowid"
            : device_sql;
    *count = 0;
    *complete = 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) != SQLITE_OK)
        return rows;
    sqlite3_bind_int64(query, 1, process_id);
    size_t capacity = 0;
    int step;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        if (*count == capacity) {
            capacity = capacity ? capacity * 2 : 1024;
            void *grown = realloc(rows, capacity * columns * sizeof(int64_t));
            if (!grown)
                break;
            rows = grown;
        }
        int64_t *row = (int64_t *)rows + (*count)++ * columns;
        for (size_t c = 0; c < columns; c++)
            row[c] = sqlite3_column_int64(query, (int)c);
    }
    sqlite3_finalize(query);
    *complete = step == SQLITE_DONE;
    return rows;
}
