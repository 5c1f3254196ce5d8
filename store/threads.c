/* threads.c: see threads.h. */
#include "threads.h"

#include <sqlite3.h>
#include <stddef.h>

int store_insert_thread_name(store *s, int64_t process_id, int64_t thread_id, const char *name,
                             error_info *err)
{
    int64_t name_id = store_intern(s, name, err);
    if (!name_id)
        return -1;
    sqlite3_stmt *insert = NULL;
    int rc = sqlite3_prepare_v2(store_db(s), "INSERT OR REPLACE INTO threads VALUES (?1, ?2, ?3)", -1,
                                &insert, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(insert, 1, process_id);
        sqlite3_bind_int64(insert, 2, thread_id);
        sqlite3_bind_int64(insert, 3, name_id);
        rc = sqlite3_step(insert);
    }
    sqlite3_finalize(insert);
    return rc == SQLITE_DONE ? 0
                             : error_set(err, "cannot write a thread name: %s", sqlite3_errmsg(store_db(s)));
}

int store_each_cuda_thread(store *trace, int64_t process_id, store_thread_visit *visit, void *context,
                           error_info *err)
{
    sqlite3 *db = store_db(trace);
    /* The launching threads, named where the trace names them; api_calls_by_thread finds them. */
    const char *sql =
        store_db_has_table(db, "threads")
            ? "SELECT a.thread_id, (SELECT s.value FROM threads t JOIN strings s ON s.id = t.name_id"
              " WHERE t.process_id = a.process_id AND t.thread_id = a.thread_id)"
              " FROM (SELECT DISTINCT process_id, thread_id FROM api_calls WHERE process_id = ?1"
              " AND api_domain < 3) a ORDER BY a.thread_id LIMIT 64"
            : "SELECT DISTINCT thread_id, NULL FROM api_calls WHERE process_id = ?1 AND api_domain < 3"
              " ORDER BY thread_id LIMIT 64";
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read the threads: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(query, 1, process_id);
    int status = 0, rc;
    while (status == 0 && (rc = sqlite3_step(query)) == SQLITE_ROW)
        status = visit(context, sqlite3_column_int64(query, 0), (const char *)sqlite3_column_text(query, 1));
    if (status == 0 && rc != SQLITE_DONE)
        status = error_set(err, "cannot read the threads: %s", sqlite3_errmsg(db));
    sqlite3_finalize(query);
    return status;
}

void store_each_thread_name(sqlite3 *db, int64_t process_id, store_thread_name_visit *visit, void *context)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT t.thread_id, s.value FROM threads t JOIN strings s ON s.id = t.name_id"
                           " WHERE t.process_id = ?1 ORDER BY t.thread_id LIMIT 4096",
                           -1, &query, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(query, 1, process_id);
    while (sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 1))
        if (visit(context, sqlite3_column_int64(query, 0), (const char *)sqlite3_column_text(query, 1)))
            break;
    sqlite3_finalize(query);
}
