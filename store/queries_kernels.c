/* queries_kernels.c: see queries_kernels.h. */
#include "queries_kernels.h"

#include <stdlib.h>

int store_collective_kernel_rowids(sqlite3 *db, int64_t **rowids, size_t *count, error_info *err)
{
    *rowids = NULL;
    *count = 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, "SELECT kernel_rowid FROM collectives WHERE kernel_rowid IS NOT NULL", -1,
                           &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read collectives: %s", sqlite3_errmsg(db));
    size_t capacity = 0;
    int status = 0;
    while (sqlite3_step(query) == SQLITE_ROW) {
        if (*count == capacity) {
            capacity = capacity ? capacity * 2 : 256;
            int64_t *grown = realloc(*rowids, capacity * sizeof *grown);
            if (!grown) {
                status = error_set(err, "out of memory reading collectives");
                break;
            }
            *rowids = grown;
        }
        (*rowids)[(*count)++] = sqlite3_column_int64(query, 0);
    }
    sqlite3_finalize(query);
    return status;
}
