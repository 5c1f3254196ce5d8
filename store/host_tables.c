/* host_tables.c: see host_tables.h (the inserts live with the others in writes.c). The analyzer's
 * questions are one statement each, prepared once when the trace has the tables. The children's
 * CPU is summed by SQLite per window: a stretch asks once, and a job has a handful of workers. */
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

struct store_host {
    sqlite3 *db;
    int has_tables, rate_recorded;
    int64_t sample_hz;
    sqlite3_stmt *pid_query, *thread_query, *process_query, *stack_query, *children_query, *own_cpu_query;
};

/* The meta row host_sample_hz: 1 when present, with its value (0 unless a positive number) in hz. */
static int read_sample_hz(sqlite3 *db, int64_t *hz)
{
    sqlite3_stmt *query = NULL;
    int present = 0;
    *hz = 0;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'host_sample_hz'", -1, &query, NULL) ==
            SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW) {
        present = 1;
        const char *text = (const char *)sqlite3_column_text(query, 0);
        char *end = NULL;
        long long value = text ? strtoll(text, &end, 10) : 0;
        *hz = text && end != text && *end == '\0' && value > 0 ? value : 0;
    }
    sqlite3_finalize(query);
    return present;
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
        /* The analysis's rule (read_sample_hz below): only a whole positive number is a rate, so info
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

store_host *store_host_open(sqlite3 *db, error_info *err)
{
    store_host *queries = calloc(1, sizeof *queries);
    if (!queries) {
        error_set(err, "out of memory");
        return NULL;
    }
    queries->db = db;
    queries->has_tables = store_db_has_table(db, "host_samples") && store_db_has_table(db, "host_stacks") &&
                          store_db_has_table(db, "process_cpu_samples");
    if (!queries->has_tables)
        return queries;
    queries->rate_recorded = read_sample_hz(db, &queries->sample_hz);
    static const char *const sql[] = {
        "SELECT pid FROM processes WHERE process_id = ?1",
        "SELECT tid, time_ns, cpu_ns, stack_id, state FROM host_samples"
        " WHERE pid = ?1 AND tid = ?2 AND time_ns >= ?3 AND time_ns < ?4 ORDER BY time_ns, rowid LIMIT ?5",
        "SELECT tid, time_ns, cpu_ns, stack_id, state FROM host_samples"
        " WHERE pid = ?1 AND time_ns >= ?3 AND time_ns < ?4 ORDER BY time_ns, tid, rowid LIMIT ?5",
        "SELECT frames FROM host_stacks WHERE id = ?1",
        /* TOTAL of the non-negative values: a hostile cpu_ns (negative, or summing past INT64_MAX, where
         * SUM fails) neither flips nor drops the verdict; the real value saturates on reading. */
        "SELECT pid, TOTAL(MAX(cpu_ns, 0)), COUNT(*), SUM(state = 'S'), SUM(state = 'D'), MAX(name)"
        " FROM process_cpu_samples WHERE parent_pid = ?1 AND time_ns > ?2 AND time_ns <= ?3"
        " GROUP BY pid ORDER BY pid LIMIT ?4",
        "SELECT TOTAL(MAX(cpu_ns, 0)) FROM process_cpu_samples WHERE pid = ?1 AND time_ns > ?2 AND time_ns "
        "<= ?3"};
    sqlite3_stmt **slots[] = {&queries->pid_query,   &queries->thread_query,   &queries->process_query,
                              &queries->stack_query, &queries->children_query, &queries->own_cpu_query};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (sqlite3_prepare_v2(db, sql[i], -1, slots[i], NULL) != SQLITE_OK) {
            error_set(err, "cannot read the host samples: %s", sqlite3_errmsg(db));
            store_host_close(queries);
            return NULL;
        }
    return queries;
}

void store_host_close(store_host *queries)
{
    if (!queries)
        return;
    sqlite3_finalize(queries->pid_query);
    sqlite3_finalize(queries->thread_query);
    sqlite3_finalize(queries->process_query);
    sqlite3_finalize(queries->stack_query);
    sqlite3_finalize(queries->children_query);
    sqlite3_finalize(queries->own_cpu_query);
    free(queries);
}

int64_t store_host_sample_hz(const store_host *queries)
{
    return queries ? queries->sample_hz : 0;
}

int store_host_rate_recorded(const store_host *queries)
{
    return queries ? queries->rate_recorded : 0;
}

int64_t store_host_pid_of(store_host *queries, int64_t process_id)
{
    if (!queries || !queries->pid_query)
        return STORE_NULL;
    sqlite3_stmt *query = queries->pid_query;
    sqlite3_bind_int64(query, 1, process_id);
    int64_t pid = sqlite3_step(query) == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL
                      ? sqlite3_column_int64(query, 0)
                      : STORE_NULL;
    sqlite3_reset(query);
    return pid;
}

long store_host_samples(store_host *queries, int64_t pid, int64_t tid, int64_t from_ns, int64_t to_ns,
                        struct store_host_sample *samples, size_t capacity, error_info *err)
{
    if (!queries || !queries->sample_hz || capacity == 0)
        return 0;
    sqlite3_stmt *query = tid == STORE_NULL ? queries->process_query : queries->thread_query;
    sqlite3_bind_int64(query, 1, pid);
    sqlite3_bind_int64(query, 2, tid);
    sqlite3_bind_int64(query, 3, from_ns);
    sqlite3_bind_int64(query, 4, to_ns);
    sqlite3_bind_int64(query, 5, (sqlite3_int64)capacity);
    long count = 0;
    int rc;
    while ((rc = sqlite3_step(query)) == SQLITE_ROW) {
        const unsigned char *state = sqlite3_column_text(query, 4);
        samples[count++] = (struct store_host_sample){.pid = pid,
                                                      .tid = sqlite3_column_int64(query, 0),
                                                      .time_ns = sqlite3_column_int64(query, 1),
                                                      .cpu_ns = sqlite3_column_int64(query, 2),
                                                      .stack_id = sqlite3_column_type(query, 3) == SQLITE_NULL
                                                                      ? STORE_NULL
                                                                      : sqlite3_column_int64(query, 3),
                                                      .state = state && state[0] ? (char)state[0] : '?'};
    }
    if (rc != SQLITE_DONE)
        count = error_set(err, "cannot read the host samples: %s", sqlite3_errmsg(queries->db));
    sqlite3_reset(query);
    return count;
}

int store_host_stack(store_host *queries, int64_t stack_id, char *frames, size_t size)
{
    if (size)
        frames[0] = '\0';
    if (!queries || !queries->stack_query || stack_id == STORE_NULL)
        return 0;
    sqlite3_stmt *query = queries->stack_query;
    sqlite3_bind_int64(query, 1, stack_id);
    int found = sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 0);
    if (found && size)
        snprintf(frames, size, "%s", (const char *)sqlite3_column_text(query, 0));
    sqlite3_reset(query);
    return found;
}

long store_host_children(store_host *queries, int64_t parent_pid, int64_t from_ns, int64_t to_ns,
                         struct store_host_child *children, size_t capacity, error_info *err)
{
    if (!queries || !queries->sample_hz || capacity == 0)
        return 0;
    sqlite3_stmt *query = queries->children_query;
    sqlite3_bind_int64(query, 1, parent_pid);
    sqlite3_bind_int64(query, 2, from_ns);
    sqlite3_bind_int64(query, 3, to_ns);
    sqlite3_bind_int64(query, 4, (sqlite3_int64)capacity);
    long count = 0;
    int rc;
    while ((rc = sqlite3_step(query)) == SQLITE_ROW) {
        struct store_host_child *child = &children[count++];
        *child = (struct store_host_child){.pid = sqlite3_column_int64(query, 0),
                                           .cpu_ns = sqlite3_column_int64(query, 1),
                                           .samples = sqlite3_column_int64(query, 2),
                                           .sleeping = sqlite3_column_int64(query, 3),
                                           .disk_wait = sqlite3_column_int64(query, 4)};
        const unsigned char *name = sqlite3_column_text(query, 5);
        snprintf(child->name, sizeof child->name, "%s", name ? (const char *)name : "");
    }
    if (rc != SQLITE_DONE)
        count = error_set(err, "cannot read the process CPU samples: %s", sqlite3_errmsg(queries->db));
    sqlite3_reset(query);
    return count;
}

int store_host_process_cpu(store_host *queries, int64_t pid, int64_t from_ns, int64_t to_ns, int64_t *cpu_ns,
                           error_info *err)
{
    *cpu_ns = 0;
    if (!queries || !queries->sample_hz)
        return 0;
    sqlite3_stmt *query = queries->own_cpu_query;
    sqlite3_bind_int64(query, 1, pid);
    sqlite3_bind_int64(query, 2, from_ns);
    sqlite3_bind_int64(query, 3, to_ns);
    int rc = sqlite3_step(query);
    if (rc == SQLITE_ROW)
        *cpu_ns = sqlite3_column_int64(query, 0);
    int status = rc == SQLITE_ROW || rc == SQLITE_DONE
                     ? 0
                     : error_set(err, "cannot read the process CPU samples: %s", sqlite3_errmsg(queries->db));
    sqlite3_reset(query);
    return status;
}
