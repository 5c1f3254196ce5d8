/* host_tables.c: see host_tables.h (the inserts live with the others in writes.c). */
#include "host_tables.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

int store_is_host_table(const char *name)
{
    static const char *const tables[] = {"host_stacks", "host_samples", "process_cpu_samples",
                                         "process_environment"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (strcmp(name, tables[i]) == 0)
            return 1;
    return 0;
}

int store_host_summary(store *trace, struct store_host_summary *summary, error_info *err)
{
    (void)err;
    memset(summary, 0, sizeof *summary);
    sqlite3 *db = store_db(trace);
    if (!store_db_has_table(db, "host_samples"))
        return 0;
    summary->has_tables = 1;
    char *hz = store_get_meta(trace, "host_sample_hz");
    summary->recorded = hz != NULL;
    if (hz) {
        /* The analysis's rule (store/queries_host.c): only a whole positive number is a rate, so info
         * never reports a rate the analysis ignores. */
        char *end = NULL;
        errno = 0;
        long long value = strtoll(hz, &end, 10);
        int valid = end != hz && *end == '\0' && errno == 0 && value >= 0;
        summary->sample_hz = valid ? value : 0;
        summary->hz_invalid = !valid;
        snprintf(summary->hz_text, sizeof summary->hz_text, "%s", hz);
    }
    free(hz);
    summary->thread_samples = store_single_int64(trace, "SELECT COUNT(*) FROM host_samples", 0);
    summary->stacks = store_single_int64(trace, "SELECT COUNT(*) FROM host_stacks", 0);
    summary->process_samples = store_single_int64(trace, "SELECT COUNT(*) FROM process_cpu_samples", 0);
    summary->processes_sampled =
        store_single_int64(trace, "SELECT COUNT(DISTINCT pid) FROM process_cpu_samples", 0);
    return 0;
}

int store_each_environment_variable(store *trace, store_environment_visit *visit, void *context,
                                    error_info *err)
{
    sqlite3 *db = store_db(trace);
    if (!store_db_has_table(db, "process_environment"))
        return 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, "SELECT pid, name, value FROM process_environment ORDER BY pid, name", -1,
                           &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read the environment: %s", sqlite3_errmsg(db));
    int status = 0, rc;
    while (status == 0 && (rc = sqlite3_step(query)) == SQLITE_ROW)
        status = visit(context, sqlite3_column_int64(query, 0), (const char *)sqlite3_column_text(query, 1),
                       (const char *)sqlite3_column_text(query, 2));
    if (status == 0 && rc != SQLITE_DONE)
        status = error_set(err, "cannot read the environment: %s", sqlite3_errmsg(db));
    sqlite3_finalize(query);
    return status;
}
