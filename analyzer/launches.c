/* launches.c: see launches.h. */
#include "launches.h"

#include <stdlib.h>

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

int launches_load(sqlite3 *db, int64_t process_id, struct launches *launches, error_info *err)
{
    launches->count = 0;
    launches->complete = launches->every_call = launches->read_error = 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, start_ns, end_ns, correlation_id, name_id, rowid, api_domain"
                           " FROM api_calls"
                           " WHERE process_id = ?1 AND correlation_id IS NOT NULL",
                           -1, &query, NULL) != SQLITE_OK) {
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
                                         .name_id = sqlite3_column_int64(query, 4),
                                         .has_name = sqlite3_column_type(query, 4) != SQLITE_NULL,
                                         .position = launches->count - 1,
                                         .rowid = sqlite3_column_int64(query, 5),
                                         .api_domain = sqlite3_column_int64(query, 6)};
        sorted &= launches->count == 1 || by_correlation_then_position(call - 1, call) < 0;
    }
    launches->complete = step == SQLITE_DONE;
    if (step != SQLITE_ROW && step != SQLITE_DONE) {
        launches->read_error = 1;
        launches->count = 0;
    }
    sqlite3_finalize(query);
    if (launches->complete)
        launches->every_call = !has_uncorrelated(db, process_id);
    if (!sorted)
        qsort(launches->calls, launches->count, sizeof *launches->calls, by_correlation_then_position);
    return 0;
}

const struct correlated_call *launches_find(const struct launches *launches, int64_t correlation_id)
{
    size_t low = 0, high = launches->count;
    while (low < high) { /* the first of the id */
        size_t middle = low + (high - low) / 2;
        if (launches->calls[middle].correlation_id < correlation_id)
            low = middle + 1;
        else
            high = middle;
    }
    return low < launches->count && launches->calls[low].correlation_id == correlation_id
               ? &launches->calls[low]
               : NULL;
}

void launches_free(struct launches *launches)
{
    free(launches->calls);
    *launches = (struct launches){0};
}

const struct correlated_call *launches_find_earliest(const struct launches *launches, int64_t correlation_id)
{
    const struct correlated_call *earliest = launches_find(launches, correlation_id);
    const struct correlated_call *end = launches->calls + launches->count;
    for (const struct correlated_call *call = earliest;
         call && call < end && call->correlation_id == correlation_id; call++)
        if (call->start_ns < earliest->start_ns)
            earliest = call;
    return earliest;
}
