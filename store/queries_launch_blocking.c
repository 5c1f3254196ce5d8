/* queries_launch_blocking.c: see queries_launch_blocking.h. */
#include "queries_launch_blocking.h"

#include <stdio.h>
#include <stdlib.h>

/* A launch call and the kernel it launched (one correlation id); graph nodes are left out, since a
 * graph launch call returns before its nodes run whatever the variable says. */
static const char *const sql_launches =
    "SELECT a.end_ns >= k.end_ns, a.end_ns - a.start_ns FROM kernels k JOIN api_calls a"
    " ON a.process_id = k.process_id AND a.correlation_id = k.correlation_id"
    " WHERE k.process_id = ?1 AND k.graph_id IS NULL AND a.api_domain < 3"
    " AND a.start_ns IS NOT NULL AND a.end_ns >= a.start_ns AND k.end_ns >= k.start_ns"
    " ORDER BY k.correlation_id LIMIT ?2";

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int store_launch_blocking_read(sqlite3 *db, int64_t process_id, struct store_launch_blocking *out,
                               error_info *err)
{
    *out = (struct store_launch_blocking){0};
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, sql_launches, -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "reading launch calls: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, STORE_LAUNCH_BLOCKING_MAX_LAUNCHES);
    int64_t *normal = NULL;
    size_t normal_count = 0, capacity = 0;
    int step;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        out->launches++;
        if (sqlite3_column_int64(query, 0)) {
            out->blocked++;
            continue;
        }
        if (normal_count == capacity) {
            size_t grown = capacity ? 2 * capacity : 256;
            int64_t *larger = realloc(normal, grown * sizeof *larger);
            if (!larger) {
                free(normal);
                sqlite3_finalize(query);
                return error_set(err, "out of memory");
            }
            normal = larger;
            capacity = grown;
        }
        normal[normal_count++] = sqlite3_column_int64(query, 1);
    }
    int failed = step != SQLITE_DONE;
    if (failed)
        error_set(err, "reading launch calls: %s", sqlite3_errmsg(db));
    sqlite3_finalize(query);
    if (normal_count > 0) {
        qsort(normal, normal_count, sizeof *normal, by_value);
        out->normal_call_ns = normal[normal_count / 2];
    }
    free(normal);
    return failed ? -1 : 0;
}

int store_process_environment(sqlite3 *db, int64_t process_id, const char *name, char *value, size_t size,
                              error_info *err)
{
    if (size > 0)
        value[0] = '\0';
    sqlite3_stmt *query = NULL;
    /* Older traces have no such table; a schema-3 trace has it, but only a recording fills it (record
     * writes the meta row host_sample_hz with it): an import's empty table says nothing either. */
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'process_environment'"
                           " AND EXISTS (SELECT 1 FROM meta WHERE key = 'host_sample_hz')",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "reading the recorded environment: %s", sqlite3_errmsg(db));
    int exists = sqlite3_step(query) == SQLITE_ROW;
    sqlite3_finalize(query);
    if (!exists)
        return STORE_ENVIRONMENT_NOT_RECORDED;
    if (sqlite3_prepare_v2(db,
                           "SELECT e.value FROM process_environment e JOIN processes p ON p.pid = e.pid"
                           " WHERE p.process_id = ?1 AND e.name = ?2 LIMIT 1",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "reading the recorded environment: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_text(query, 2, name, -1, SQLITE_STATIC);
    int step = sqlite3_step(query), status = STORE_ENVIRONMENT_UNSET;
    if (step == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(query, 0);
        snprintf(value, size, "%s", text ? (const char *)text : "");
        status = STORE_ENVIRONMENT_SET;
    } else if (step != SQLITE_DONE) {
        status = error_set(err, "reading the recorded environment: %s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(query);
    return status;
}
