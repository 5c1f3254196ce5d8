/* queries_calls.c: see queries_calls.h. */
#include "queries_calls.h"

#include <stdlib.h>

#include "store.h"

struct store_calls {
    sqlite3_stmt *of_thread;
};

store_calls *store_calls_open(sqlite3 *db, error_info *err)
{
    store_calls *calls = calloc(1, sizeof *calls);
    if (!calls) {
        if (err)
            error_set(err, "out of memory");
        return NULL;
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT start_ns, end_ns, correlation_id, name_id, api_domain FROM api_calls"
                           " WHERE process_id = ?1 AND thread_id = ?2 ORDER BY start_ns",
                           -1, &calls->of_thread, NULL) != SQLITE_OK) {
        if (err)
            error_set(err, "cannot read API calls: %s", sqlite3_errmsg(db));
        store_calls_close(calls);
        return NULL;
    }
    return calls;
}

void store_calls_close(store_calls *calls)
{
    if (!calls)
        return;
    sqlite3_finalize(calls->of_thread);
    free(calls);
}

int store_calls_of_thread(store_calls *calls, int64_t process_id, int64_t thread_id,
                          store_thread_call_visit *visit, void *context)
{
    sqlite3_stmt *rows = calls->of_thread;
    sqlite3_bind_int64(rows, 1, process_id);
    sqlite3_bind_int64(rows, 2, thread_id);
    int status;
    while ((status = sqlite3_step(rows)) == SQLITE_ROW) {
        struct store_thread_call call = {
            .start_ns = sqlite3_column_int64(rows, 0),
            .end_ns = sqlite3_column_int64(rows, 1),
            .correlation_id =
                sqlite3_column_type(rows, 2) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(rows, 2),
            .name_id = sqlite3_column_int64(rows, 3),
            .api_domain = sqlite3_column_int64(rows, 4),
            .has_name = sqlite3_column_type(rows, 3) != SQLITE_NULL,
        };
        if (visit(context, &call))
            break;
    }
    sqlite3_reset(rows);
    return status != SQLITE_DONE;
}

/* Whether the process has a host call without a correlation id (or it cannot be told). */
int store_calls_any_uncorrelated(sqlite3 *db, int64_t process_id)
{
    sqlite3_stmt *query = NULL;
    int found = 1;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM api_calls WHERE process_id = ?1 AND correlation_id IS NULL LIMIT 1",
                           -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        int step = sqlite3_step(query);
        found = step != SQLITE_DONE;
    }
    sqlite3_finalize(query);
    return found;
}

/* A version 2 trace's host calls (store/schema.sql): the runs alone, each with its function's id.
 * The view `api_calls` joins every run to its function, a cost per row as large as the rest of the
 * row's; the functions, one per API entry point called, are read once instead (struct function).
 * The same rows in the same order (the planner takes the same road for both: a scan, or the
 * (process_id, correlation_id) index), the function's columns as the view's LEFT JOIN gives them. */
static const char calls_sql[] =
    "SELECT thread_id, start_ns, end_ns, correlation_id, name_id, rowid, api_domain"
    " FROM api_calls WHERE process_id = ?1 AND correlation_id IS NOT NULL";
static const char call_runs_sql[] = "SELECT thread_id, start_ns, start_ns + duration_ns, correlation_id, "
                                    "function_id, rowid FROM api_call_runs"
                                    " WHERE process_id = ?1 AND correlation_id IS NOT NULL";

struct function {
    int64_t function_id, name_id, api_domain;
};

/* The functions of a version 2 trace, by id, into *functions (may stay NULL: none). Returns 1 for a
 * version 2 trace whose functions are held, 0 otherwise (a version 1 trace, or they cannot be read
 * or held: the view serves). */
static int load_functions(sqlite3 *db, struct function **functions, size_t *count)
{
    *functions = NULL;
    *count = 0;
    sqlite3_stmt *query = NULL;
    if (!store_db_has_table(db, "api_functions") ||
        sqlite3_prepare_v2(db,
                           "SELECT function_id, name_id, api_domain FROM api_functions ORDER BY function_id",
                           -1, &query, NULL) != SQLITE_OK)
        return 0;
    size_t capacity = 0;
    int step;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        if (*count == capacity) {
            size_t grown_capacity = capacity ? capacity * 2 : 64;
            struct function *grown = realloc(*functions, grown_capacity * sizeof *grown);
            if (!grown)
                break;
            *functions = grown;
            capacity = grown_capacity;
        }
        (*functions)[(*count)++] = (struct function){
            sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1), sqlite3_column_int64(query, 2)};
    }
    sqlite3_finalize(query);
    if (step == SQLITE_DONE)
        return 1;
    free(*functions);
    *functions = NULL;
    *count = 0;
    return 0;
}

/* The function function_id, NULL when its row is missing (the view's join gives NULLs). */
static const struct function *function_of(const struct function *functions, size_t count, int64_t function_id)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (functions[middle].function_id < function_id)
            low = middle + 1;
        else
            high = middle;
    }
    return low < count && functions[low].function_id == function_id ? &functions[low] : NULL;
}

int store_each_correlated_call(sqlite3 *db, int64_t process_id, store_correlated_call_visit *visit,
                               void *context)
{
    struct function *functions = NULL;
    size_t function_count = 0;
    int by_function = load_functions(db, &functions, &function_count);
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, by_function ? call_runs_sql : calls_sql, -1, &query, NULL) != SQLITE_OK) {
        free(functions);
        return -1;
    }
    sqlite3_bind_int64(query, 1, process_id);
    int step, stopped = 0;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        struct store_correlated_call call = {.thread_id = sqlite3_column_int64(query, 0),
                                             .start_ns = sqlite3_column_int64(query, 1),
                                             .end_ns = sqlite3_column_int64(query, 2),
                                             .correlation_id = sqlite3_column_int64(query, 3),
                                             .rowid = sqlite3_column_int64(query, 5)};
        if (by_function) {
            const struct function *function =
                function_of(functions, function_count, sqlite3_column_int64(query, 4));
            call.has_name = function != NULL;
            call.name_id = function ? function->name_id : 0;
            call.api_domain = function ? function->api_domain : 0;
        } else {
            call.name_id = sqlite3_column_int64(query, 4);
            call.has_name = sqlite3_column_type(query, 4) != SQLITE_NULL;
            call.api_domain = sqlite3_column_int64(query, 6);
        }
        stopped = visit(context, &call);
        if (stopped)
            break;
    }
    sqlite3_finalize(query);
    free(functions);
    if (stopped)
        return stopped;
    return step == SQLITE_DONE ? 0 : -1;
}
