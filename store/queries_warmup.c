/* queries_warmup.c: see queries_warmup.h. */
#include "queries_warmup.h"

#include <stdlib.h>

int store_kernel_runs_read(sqlite3 *db, int64_t process_id, int64_t device_id,
                           struct store_kernel_runs **rows, size_t *count, error_info *err)
{
    *rows = NULL;
    *count = 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT name_id, MIN(start_ns), COUNT(*) FROM kernels WHERE process_id = ?1"
                           " AND device_id = ?2 AND name_id IS NOT NULL GROUP BY name_id ORDER BY name_id",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "reading kernel names: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, device_id);
    size_t capacity = 0;
    int step;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        if (*count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            struct store_kernel_runs *grown = realloc(*rows, capacity * sizeof *grown);
            if (!grown) {
                free(*rows);
                *rows = NULL;
                *count = 0;
                sqlite3_finalize(query);
                return error_set(err, "out of memory");
            }
            *rows = grown;
        }
        (*rows)[(*count)++] = (struct store_kernel_runs){
            sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1), sqlite3_column_int64(query, 2)};
    }
    sqlite3_finalize(query);
    if (step != SQLITE_DONE) {
        free(*rows);
        *rows = NULL;
        *count = 0;
        return error_set(err, "reading kernel names: %s", sqlite3_errmsg(db));
    }
    return 0;
}
