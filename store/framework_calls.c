/* framework_calls.c: see framework_calls.h. */
#include "framework_calls.h"

#include <stdlib.h>

#include "store_internal.h"

int store_insert_framework_calls(store *s, int64_t process_id, const struct store_framework_call *calls,
                                 size_t count, error_info *err)
{
    sqlite3_stmt *insert = NULL;
    if (count == 0)
        return 0;
    if (sqlite3_prepare_v2(store_db(s), "INSERT INTO framework_calls VALUES (?1, ?2, ?3, ?4, ?5)", -1,
                           &insert, NULL) != SQLITE_OK)
        return store_sql_error(s, err, "write a framework call");
    int status = 0;
    for (size_t i = 0; i < count && status == 0; i++) {
        int64_t function_id = store_intern(s, calls[i].function, err);
        if (function_id == 0) {
            status = -1;
            break;
        }
        sqlite3_bind_int64(insert, 1, process_id);
        sqlite3_bind_int64(insert, 2, calls[i].thread_id);
        sqlite3_bind_int64(insert, 3, calls[i].start_ns);
        sqlite3_bind_int64(insert, 4, calls[i].end_ns);
        sqlite3_bind_int64(insert, 5, function_id);
        status = sqlite3_step(insert) == SQLITE_DONE ? 0 : store_sql_error(s, err, "write a framework call");
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    return status;
}

int store_framework_calls_of(sqlite3 *db, int64_t process_id, struct store_framework_call **calls,
                             size_t *count, error_info *err)
{
    *calls = NULL;
    *count = 0;
    if (!store_db_has_table(db, "framework_calls"))
        return 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, start_ns, end_ns, function_id FROM framework_calls"
                           " WHERE process_id = ?1 ORDER BY thread_id, start_ns, end_ns DESC",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read framework calls: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(query, 1, process_id);
    size_t capacity = 0;
    int rc, status = 0;
    while ((rc = sqlite3_step(query)) == SQLITE_ROW) {
        if (*count == capacity) {
            size_t grown_capacity = capacity ? capacity * 2 : 64;
            struct store_framework_call *grown = realloc(*calls, grown_capacity * sizeof *grown);
            if (!grown) {
                status = error_set(err, "out of memory reading framework calls");
                break;
            }
            *calls = grown;
            capacity = grown_capacity;
        }
        (*calls)[(*count)++] = (struct store_framework_call){.thread_id = sqlite3_column_int64(query, 0),
                                                             .start_ns = sqlite3_column_int64(query, 1),
                                                             .end_ns = sqlite3_column_int64(query, 2),
                                                             .function_id = sqlite3_column_int64(query, 3)};
    }
    if (status == 0 && rc != SQLITE_DONE)
        status = error_set(err, "cannot read framework calls: %s", sqlite3_errmsg(db));
    sqlite3_finalize(query);
    if (status != 0) {
        free(*calls);
        *calls = NULL;
        *count = 0;
    }
    return status;
}
