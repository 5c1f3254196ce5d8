/* launches.c: see launches.h. */
#include "launches.h"

#include <stdint.h>
#include <stdlib.h>

#include "nearly_sorted.h"
#include "whatif.h"

static int by_correlation_then_position(const void *a, const void *b)
{
    const struct correlated_call *x = a, *y = b;
    if (x->correlation_id != y->correlation_id)
        return x->correlation_id < y->correlation_id ? -1 : 1;
    return (x->position > y->position) - (x->position < y->position);
}

/* Whether the process has a host call without a correlation id (or it cannot be told). */
static int has_uncorrelated(sqlite3 *db, int64_t process_id)
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
                           "SELECT function_id, name_id, api_domain FROM api_functions"
                           " ORDER BY function_id",
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

int launches_load(sqlite3 *db, int64_t process_id, struct launches *launches, error_info *err)
{
    launches->count = 0;
    launches->complete = launches->every_call = launches->read_error = 0;
    struct function *functions = NULL;
    size_t function_count = 0;
    int by_function = load_functions(db, &functions, &function_count);
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, by_function ? call_runs_sql : calls_sql, -1, &query, NULL) != SQLITE_OK) {
        free(functions);
        launches->read_error = 1;
        return 0;
    }
    sqlite3_bind_int64(query, 1, process_id);
    int step, sorted = 1;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        if (launches->count >= WHATIF_MAX_OPS)
            break;
        if (launches->count == launches->capacity) {
            size_t capacity = launches->capacity ? launches->capacity * 2 : 1024;
            struct correlated_call *grown = realloc(launches->calls, capacity * sizeof *grown);
            if (!grown) {
                sqlite3_finalize(query);
                free(functions);
                return error_set(err, "out of memory");
            }
            launches->calls = grown;
            launches->capacity = capacity;
        }
        struct correlated_call *call = &launches->calls[launches->count++];
        *call = (struct correlated_call){.thread_id = sqlite3_column_int64(query, 0),
                                         .start_ns = sqlite3_column_int64(query, 1),
                                         .end_ns = sqlite3_column_int64(query, 2),
                                         .correlation_id = sqlite3_column_int64(query, 3),
                                         .position = launches->count - 1,
                                         .rowid = sqlite3_column_int64(query, 5)};
        if (by_function) {
            const struct function *function =
                function_of(functions, function_count, sqlite3_column_int64(query, 4));
            call->has_name = function != NULL;
            call->name_id = function ? function->name_id : 0;
            call->api_domain = function ? function->api_domain : 0;
        } else {
            call->name_id = sqlite3_column_int64(query, 4);
            call->has_name = sqlite3_column_type(query, 4) != SQLITE_NULL;
            call->api_domain = sqlite3_column_int64(query, 6);
        }
        sorted &= launches->count == 1 || by_correlation_then_position(call - 1, call) < 0;
    }
    launches->complete = step == SQLITE_DONE;
    if (step != SQLITE_ROW && step != SQLITE_DONE) {
        launches->read_error = 1;
        launches->count = 0;
    }
    sqlite3_finalize(query);
    free(functions);
    if (launches->complete)
        launches->every_call = !has_uncorrelated(db, process_id);
    if (!sorted) /* a scan of the table: in the order written, nearly that of the ids */
        nearly_sorted_sort(launches->calls, launches->count, sizeof *launches->calls,
                           by_correlation_then_position);
    return 0;
}

/* The place of the first call with an id at or after correlation_id (count when none), looked for
 * first among the few places from near on: the ids an idle walk asks for rise by a call or two at
 * a time. near past the end: a binary search alone. */
static size_t first_place(const struct launches *launches, int64_t correlation_id, size_t near)
{
    const struct correlated_call *calls = launches->calls;
    if (near <= launches->count && (near == 0 || calls[near - 1].correlation_id < correlation_id))
        for (size_t i = near; i <= launches->count && i < near + 8; i++)
            if (i == launches->count || calls[i].correlation_id >= correlation_id)
                return i;
    size_t low = 0, high = launches->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (calls[middle].correlation_id < correlation_id)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

const struct correlated_call *launches_find(const struct launches *launches, int64_t correlation_id)
{
    size_t low = first_place(launches, correlation_id, SIZE_MAX);
    return low < launches->count && launches->calls[low].correlation_id == correlation_id
               ? &launches->calls[low]
               : NULL;
}

void launches_free(struct launches *launches)
{
    free(launches->calls);
    *launches = (struct launches){0};
}

const struct correlated_call *launches_find_earliest(const struct launches *launches, int64_t correlation_id,
                                                     size_t *near)
{
    size_t place = first_place(launches, correlation_id, *near);
    *near = place;
    const struct correlated_call *earliest = NULL;
    for (size_t i = place; i < launches->count && launches->calls[i].correlation_id == correlation_id; i++)
        if (!earliest || launches->calls[i].start_ns < earliest->start_ns)
            earliest = &launches->calls[i];
    return earliest;
}
