/* queries_nccl.c: see queries_nccl.h. */
#include "queries_nccl.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

struct store_nccl_links {
    store *trace;
    sqlite3_stmt *kernel_by_correlation, *launch_before, *delete_name_only;
};

static const char kernel_by_correlation_sql[] =
    "SELECT k.rowid, k.device_id, k.stream_id, k.start_ns, k.end_ns, s.value FROM kernels k"
    " JOIN strings s ON s.id = k.name_id WHERE k.process_id = ?1 AND k.correlation_id = ?2 LIMIT 1";
/* The thread's last kernel launch before the event whose correlation id a kernel carries (a
 * runtime launch and the driver launch inside it are two records; the kernel has one's id). */
static const char launch_before_sql[] =
    "SELECT a.correlation_id FROM api_calls a JOIN strings s ON s.id = a.name_id"
    " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns <= ?3"
    " AND (s.value LIKE 'cuLaunch%' OR s.value LIKE 'cudaLaunch%') AND s.value NOT LIKE '%HostFunc%'"
    " AND EXISTS (SELECT 1 FROM kernels k WHERE k.process_id = a.process_id AND k.correlation_id = "
    "a.correlation_id)"
    " ORDER BY a.start_ns DESC LIMIT 1";
static const char delete_name_only_sql[] =
    "DELETE FROM collectives WHERE process_id = ?1 AND kernel_rowid = ?2 AND detail_source = 1";

static int prepare(store_nccl_links *links, const char *sql, sqlite3_stmt **statement, error_info *err)
{
    if (sqlite3_prepare_v2(store_db(links->trace), sql, -1, statement, NULL) != SQLITE_OK)
        return error_set(err, "%s: cannot prepare the NCCL link query: %s", store_path(links->trace),
                         sqlite3_errmsg(store_db(links->trace)));
    return 0;
}

store_nccl_links *store_nccl_links_open(store *trace, error_info *err)
{
    store_nccl_links *links = calloc(1, sizeof *links);
    if (!links) {
        error_set(err, "out of memory");
        return NULL;
    }
    links->trace = trace;
    if (prepare(links, kernel_by_correlation_sql, &links->kernel_by_correlation, err) != 0 ||
        prepare(links, launch_before_sql, &links->launch_before, err) != 0 ||
        prepare(links, delete_name_only_sql, &links->delete_name_only, err) != 0) {
        store_nccl_links_close(links);
        return NULL;
    }
    return links;
}

void store_nccl_links_close(store_nccl_links *links)
{
    if (!links)
        return;
    sqlite3_finalize(links->kernel_by_correlation);
    sqlite3_finalize(links->launch_before);
    sqlite3_finalize(links->delete_name_only);
    free(links);
}

static int64_t column_or_null(sqlite3_stmt *statement, int column)
{
    return sqlite3_column_type(statement, column) == SQLITE_NULL ? STORE_NULL
                                                                 : sqlite3_column_int64(statement, column);
}

int store_nccl_kernel_of(store_nccl_links *links, int64_t process_id, int64_t correlation_id,
                         struct store_nccl_kernel *kernel)
{
    sqlite3_stmt *query = links->kernel_by_correlation;
    sqlite3_reset(query);
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, correlation_id);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found) {
        kernel->rowid = sqlite3_column_int64(query, 0);
        kernel->device_id = column_or_null(query, 1);
        kernel->stream_id = column_or_null(query, 2);
        kernel->start_ns = column_or_null(query, 3);
        kernel->end_ns = column_or_null(query, 4);
        const char *name = (const char *)sqlite3_column_text(query, 5);
        snprintf(kernel->name, sizeof kernel->name, "%s", name ? name : "");
    }
    sqlite3_reset(query);
    return found;
}

int64_t store_nccl_launch_before(store_nccl_links *links, int64_t process_id, int64_t thread_id,
                                 int64_t time_ns)
{
    sqlite3_stmt *query = links->launch_before;
    sqlite3_reset(query);
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, thread_id);
    sqlite3_bind_int64(query, 3, time_ns);
    int64_t correlation_id = sqlite3_step(query) == SQLITE_ROW ? sqlite3_column_int64(query, 0) : 0;
    sqlite3_reset(query);
    return correlation_id;
}

int store_nccl_drop_name_only(store_nccl_links *links, int64_t process_id, int64_t kernel_rowid,
                              int64_t *deleted, error_info *err)
{
    sqlite3_stmt *statement = links->delete_name_only;
    sqlite3_reset(statement);
    sqlite3_bind_int64(statement, 1, process_id);
    sqlite3_bind_int64(statement, 2, kernel_rowid);
    int status = sqlite3_step(statement);
    sqlite3_reset(statement);
    if (status != SQLITE_DONE)
        return error_set(err, "%s: cannot replace a kernel-name collective: %s", store_path(links->trace),
                         sqlite3_errmsg(store_db(links->trace)));
    *deleted += sqlite3_changes(store_db(links->trace));
    return 0;
}

int64_t store_collective_count(store *trace, int64_t process_id)
{
    sqlite3_stmt *query = NULL;
    int64_t count = 0;
    if (sqlite3_prepare_v2(store_db(trace), "SELECT COUNT(*) FROM collectives WHERE process_id = ?1", -1,
                           &query, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        if (sqlite3_step(query) == SQLITE_ROW)
            count = sqlite3_column_int64(query, 0);
    }
    sqlite3_finalize(query);
    return count;
}
