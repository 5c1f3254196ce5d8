/* describe.c: see describe.h. */
#include "describe.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const table_names[] = {[STORE_TABLE_PROCESSES] = "processes",
                                          [STORE_TABLE_KERNELS] = "kernels",
                                          [STORE_TABLE_MEMCPYS] = "memcpys",
                                          [STORE_TABLE_MEMSETS] = "memsets",
                                          [STORE_TABLE_SYNCHRONIZATIONS] = "synchronizations",
                                          [STORE_TABLE_CUDA_EVENTS] = "cuda_events",
                                          [STORE_TABLE_API_CALLS] = "api_calls WHERE api_domain < 3",
                                          [STORE_TABLE_NVTX] = "nvtx",
                                          [STORE_TABLE_COLLECTIVES] = "collectives",
                                          [STORE_TABLE_STREAMS] = "streams",
                                          [STORE_TABLE_WARNINGS] = "warnings",
                                          [STORE_TABLE_OS_CALLS] = "api_calls WHERE api_domain = 3"};

static int64_t int_or(sqlite3_stmt *query, int column, int64_t fallback)
{
    return sqlite3_column_type(query, column) == SQLITE_NULL ? fallback : sqlite3_column_int64(query, column);
}

static const char *text_or_null(sqlite3_stmt *query, int column)
{
    return (const char *)sqlite3_column_text(query, column);
}

/* Prepares sql, or fills err naming what could not be read. */
static sqlite3_stmt *prepare(store *trace, const char *sql, const char *what, error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) != SQLITE_OK) {
        error_set(err, "cannot read the %s: %s", what, sqlite3_errmsg(store_db(trace)));
        sqlite3_finalize(query);
        return NULL;
    }
    return query;
}

/* Steps a query to its end; each row through `row`. Returns 0, a visitor's non-zero value, or
 * -1 with err filled on a read error. */
static int walk(store *trace, sqlite3_stmt *query, const char *what, int (*row)(sqlite3_stmt *, void *),
                void *state, error_info *err)
{
    int step, status = 0;
    while (status == 0 && (step = sqlite3_step(query)) == SQLITE_ROW)
        status = row(query, state);
    if (status == 0 && step != SQLITE_DONE)
        status = error_set(err, "cannot read the %s: %s", what, sqlite3_errmsg(store_db(trace)));
    sqlite3_finalize(query);
    return status;
}

static int64_t single_int(store *trace, const char *sql, int64_t fallback)
{
    sqlite3_stmt *query = NULL;
    int64_t value = fallback;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        value = int_or(query, 0, fallback);
    sqlite3_finalize(query);
    return value;
}

int64_t store_count_rows(store *trace, enum store_table table)
{
    if ((unsigned)table >= sizeof table_names / sizeof table_names[0])
        return 0;
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", table_names[table]);
    return single_int(trace, sql, 0);
}

int64_t store_count_dropped_records(store *trace)
{
    return single_int(trace, "SELECT SUM(dropped_records) FROM processes", 0);
}

int store_gpu_span_check(store *trace, int64_t first_start_ns, int64_t last_end_ns, error_info *err)
{
    int64_t first = first_start_ns, last = last_end_ns;
    /* Checked before any caller subtracts them (info printed "GPU span: -7427980757.667 s"). */
    if (!store_interval_plausible(first, first) || !store_interval_plausible(last, last) ||
        (last > first && last - first > STORE_MAX_SPAN_NS))
        return error_set(err,
                         "%s: the trace is damaged: GPU activity from %" PRId64 " ns to %" PRId64
                         " ns, outside any recording",
                         store_path(trace), first, last);
    return 1;
}

int store_gpu_span(store *trace, int64_t *first_start_ns, int64_t *last_end_ns, error_info *err)
{
    sqlite3_stmt *query = prepare(trace,
                                  "SELECT MIN(s), MAX(e) FROM ("
                                  " SELECT MIN(start_ns) s, MAX(end_ns) e FROM kernels UNION ALL"
                                  " SELECT MIN(start_ns), MAX(end_ns) FROM memcpys UNION ALL"
                                  " SELECT MIN(start_ns), MAX(end_ns) FROM memsets)",
                                  "GPU span", err);
    if (!query)
        return -1;
    int step = sqlite3_step(query), status = 0;
    if (step == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL) {
        int64_t first = sqlite3_column_int64(query, 0), last = sqlite3_column_int64(query, 1);
        status = store_gpu_span_check(trace, first, last, err);
        if (first_start_ns)
            *first_start_ns = first;
        if (last_end_ns)
            *last_end_ns = last;
    } else if (step != SQLITE_ROW) {
        status = error_set(err, "cannot read the GPU span: %s", sqlite3_errmsg(store_db(trace)));
    }
    sqlite3_finalize(query);
    return status;
}

struct visit {
    void *visit, *context;
};

static int process_row(sqlite3_stmt *query, void *state)
{
    const struct visit *visit = state;
    struct store_process row = store_process_unknown();
    row.process_id = sqlite3_column_int64(query, 0);
    row.pid = int_or(query, 1, STORE_NULL);
    row.rank = int_or(query, 2, STORE_NULL);
    row.world_size = int_or(query, 3, STORE_NULL);
    row.local_rank = int_or(query, 4, STORE_NULL);
    row.host = text_or_null(query, 5);
    row.exit_status = int_or(query, 6, STORE_NULL);
    row.term_signal = int_or(query, 7, STORE_NULL);
    row.dropped_records = int_or(query, 8, STORE_NULL);
    row.command_line = text_or_null(query, 9);
    return ((store_process_visit *)visit->visit)(visit->context, &row);
}

int store_each_process(store *trace, store_process_visit *visit, void *context, error_info *err)
{
    sqlite3_stmt *query =
        prepare(trace,
                "SELECT process_id, pid, rank, world_size, local_rank, host, exit_status, term_signal,"
                " dropped_records, command_line FROM processes ORDER BY rank, pid",
                "processes", err);
    struct visit state = {(void *)visit, context};
    return query ? walk(trace, query, "processes", process_row, &state, err) : -1;
}

static int device_row(sqlite3_stmt *query, void *state)
{
    const struct visit *visit = state;
    const int64_t N = STORE_NULL;
    struct store_device row = {N, N, NULL, NULL, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N};
    row.process_id = sqlite3_column_int64(query, 0);
    row.device_id = sqlite3_column_int64(query, 1);
    row.name = text_or_null(query, 2);
    row.sm_count = int_or(query, 3, STORE_NULL);
    row.compute_capability_major = int_or(query, 4, STORE_NULL);
    row.compute_capability_minor = int_or(query, 5, STORE_NULL);
    row.max_blocks_per_sm = int_or(query, 6, STORE_NULL);
    row.max_warps_per_sm = int_or(query, 7, STORE_NULL);
    row.max_registers_per_sm = int_or(query, 8, STORE_NULL);
    row.max_shared_memory_per_sm = int_or(query, 9, STORE_NULL);
    row.global_memory_bytes = int_or(query, 10, STORE_NULL);
    return ((store_device_visit *)visit->visit)(visit->context, &row, int_or(query, 11, STORE_NULL),
                                                int_or(query, 12, STORE_NULL));
}

int store_each_device(store *trace, store_device_visit *visit, void *context, error_info *err)
{
    sqlite3_stmt *query =
        prepare(trace,
                "SELECT d.process_id, d.device_id, d.name, d.sm_count, d.compute_capability_major,"
                " d.compute_capability_minor, d.max_blocks_per_sm, d.max_warps_per_sm,"
                " d.max_registers_per_sm, d.max_shared_memory_per_sm, d.global_memory_bytes,"
                " p.pid, p.rank FROM devices d LEFT JOIN processes p USING (process_id)"
                " ORDER BY p.rank, p.pid, d.device_id",
                "devices", err);
    struct visit state = {(void *)visit, context};
    return query ? walk(trace, query, "devices", device_row, &state, err) : -1;
}

static int warning_row(sqlite3_stmt *query, void *state)
{
    const struct visit *visit = state;
    struct store_warning row = {.process_id = int_or(query, 3, STORE_NULL),
                                .time_ns = STORE_NULL,
                                .code = text_or_null(query, 0),
                                .message = text_or_null(query, 1)};
    return ((store_warning_visit *)visit->visit)(visit->context, &row, int_or(query, 2, STORE_NULL));
}

int store_each_warning(store *trace, store_warning_visit *visit, void *context, error_info *err)
{
    sqlite3_stmt *query = prepare(trace,
                                  "SELECT w.code, w.message, p.pid, w.process_id FROM warnings w"
                                  " LEFT JOIN processes p USING (process_id) ORDER BY w.rowid",
                                  "warnings", err);
    struct visit state = {(void *)visit, context};
    return query ? walk(trace, query, "warnings", warning_row, &state, err) : -1;
}

static int collective_total_row(sqlite3_stmt *query, void *state)
{
    const struct visit *visit = state;
    return ((store_collective_total_visit *)visit->visit)(
        visit->context, text_or_null(query, 0), sqlite3_column_int64(query, 1), int_or(query, 2, STORE_NULL));
}

int store_each_collective_total(store *trace, store_collective_total_visit *visit, void *context,
                                error_info *err)
{
    /* TOTAL, not SUM: 8,193 collectives of 1 PiB (what one copy may move) overflow int64, and SUM's
     * overflow error made info print no collective line at all. TOTAL is exact below 2^53 bytes (8
     * PiB, every partial sum an integer a double holds); a total beyond int64 is unknown. */
    sqlite3_stmt *query = prepare(trace,
                                  "SELECT op, COUNT(*), CASE WHEN COUNT(bytes) > 0 AND TOTAL(bytes) < 9.2e18"
                                  " THEN CAST(TOTAL(bytes) AS INTEGER) END FROM collectives GROUP BY op"
                                  " ORDER BY COUNT(*) DESC",
                                  "collectives", err);
    struct visit state = {(void *)visit, context};
    return query ? walk(trace, query, "collectives", collective_total_row, &state, err) : -1;
}

void store_process_identity(store *trace, int64_t process_id, int64_t *pid, int64_t *rank)
{
    sqlite3_stmt *query = NULL;
    *pid = -1;
    *rank = -1;
    if (sqlite3_prepare_v2(store_db(trace), "SELECT pid, rank FROM processes WHERE process_id = ?1", -1,
                           &query, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        if (sqlite3_step(query) == SQLITE_ROW) {
            *pid = int_or(query, 0, -1);
            *rank = int_or(query, 1, -1);
        }
    }
    sqlite3_finalize(query);
}

int store_stream_description(store *trace, int64_t process_id, int64_t device_id, int64_t stream_id,
                             int *is_legacy_default, char *label, size_t size)
{
    sqlite3_stmt *query = NULL;
    int found = 0;
    *is_legacy_default = 0;
    label[0] = '\0';
    if (sqlite3_prepare_v2(
            store_db(trace),
            "SELECT is_legacy_default, label FROM streams WHERE process_id = ?1 AND stream_id = ?2"
            " AND (device_id IS NULL OR device_id = ?3) LIMIT 1",
            -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        sqlite3_bind_int64(query, 2, stream_id);
        sqlite3_bind_int64(query, 3, device_id);
        if (sqlite3_step(query) == SQLITE_ROW) {
            found = 1;
            *is_legacy_default = sqlite3_column_int(query, 0) != 0;
            if (sqlite3_column_text(query, 1))
                snprintf(label, size, "%s", (const char *)sqlite3_column_text(query, 1));
        }
    }
    sqlite3_finalize(query);
    return found;
}

int store_device_name(store *trace, int64_t process_id, int64_t device_id, char *name, size_t size)
{
    sqlite3_stmt *query = NULL;
    name[0] = '\0';
    if (sqlite3_prepare_v2(store_db(trace),
                           "SELECT name FROM devices WHERE process_id = ?1 AND device_id = ?2", -1, &query,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        sqlite3_bind_int64(query, 2, device_id);
        if (sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 0))
            snprintf(name, size, "%s", (const char *)sqlite3_column_text(query, 0));
    }
    sqlite3_finalize(query);
    return name[0] != '\0';
}

char *store_first_command_line(store *trace)
{
    sqlite3_stmt *query = NULL;
    char *line = NULL;
    if (sqlite3_prepare_v2(
            store_db(trace),
            "SELECT command_line FROM processes WHERE command_line IS NOT NULL ORDER BY rank, process_id"
            " LIMIT 1",
            -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 0))
        line = strdup((const char *)sqlite3_column_text(query, 0));
    sqlite3_finalize(query);
    return line;
}

char *store_process_hosts(store *trace)
{
    sqlite3_stmt *query = NULL;
    char *hosts = NULL;
    if (sqlite3_prepare_v2(store_db(trace),
                           "SELECT group_concat(host, ', ') FROM (SELECT DISTINCT host FROM processes"
                           " WHERE host IS NOT NULL AND host != '' ORDER BY host)",
                           -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 0))
        hosts = strdup((const char *)sqlite3_column_text(query, 0));
    sqlite3_finalize(query);
    return hosts;
}

struct store_lookup {
    sqlite3_stmt *string, *collective;
};

store_lookup *store_lookup_new(store *trace, error_info *err)
{
    store_lookup *lookup = calloc(1, sizeof *lookup);
    if (!lookup) {
        error_set(err, "out of memory");
        return NULL;
    }
    lookup->string = prepare(trace, "SELECT value FROM strings WHERE id = ?1", "strings", err);
    lookup->collective =
        lookup->string ? prepare(trace, "SELECT op, bytes FROM collectives WHERE kernel_rowid = ?1 LIMIT 1",
                                 "collectives", err)
                       : NULL;
    if (!lookup->collective) {
        store_lookup_free(lookup);
        return NULL;
    }
    return lookup;
}

void store_lookup_free(store_lookup *lookup)
{
    if (!lookup)
        return;
    sqlite3_finalize(lookup->string);
    sqlite3_finalize(lookup->collective);
    free(lookup);
}

char *store_lookup_string(store_lookup *lookup, int64_t id, char *buffer, size_t size)
{
    buffer[0] = '\0';
    sqlite3_bind_int64(lookup->string, 1, id);
    if (sqlite3_step(lookup->string) == SQLITE_ROW && sqlite3_column_text(lookup->string, 0))
        snprintf(buffer, size, "%s", (const char *)sqlite3_column_text(lookup->string, 0));
    sqlite3_reset(lookup->string);
    return buffer;
}

int store_lookup_collective(store_lookup *lookup, int64_t kernel_rowid, char *op, size_t size, int64_t *bytes)
{
    int found = 0;
    op[0] = '\0';
    *bytes = STORE_NULL;
    sqlite3_bind_int64(lookup->collective, 1, kernel_rowid);
    if (sqlite3_step(lookup->collective) == SQLITE_ROW) {
        found = 1;
        if (sqlite3_column_text(lookup->collective, 0))
            snprintf(op, size, "%s", (const char *)sqlite3_column_text(lookup->collective, 0));
        *bytes = int_or(lookup->collective, 1, STORE_NULL);
    }
    sqlite3_reset(lookup->collective);
    return found;
}

int store_processes_of_rank(store *trace, int64_t rank, int64_t **ids, size_t *count, error_info *err)
{
    *ids = NULL;
    *count = 0;
    sqlite3_stmt *query = prepare(
        trace, "SELECT process_id FROM processes WHERE rank = ?1 ORDER BY process_id", "processes", err);
    if (!query)
        return -1;
    sqlite3_bind_int64(query, 1, rank);
    size_t capacity = 0;
    int step;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        if (*count == capacity) {
            capacity = capacity ? capacity * 2 : 8;
            int64_t *grown = realloc(*ids, capacity * sizeof *grown);
            if (!grown) {
                sqlite3_finalize(query);
                return error_set(err, "out of memory");
            }
            *ids = grown;
        }
        (*ids)[(*count)++] = sqlite3_column_int64(query, 0);
    }
    sqlite3_finalize(query);
    if (step != SQLITE_DONE)
        return error_set(err, "cannot read the processes: %s", sqlite3_errmsg(store_db(trace)));
    return 0;
}

static int gpu_row(sqlite3_stmt *query, void *state)
{
    const struct visit *visit = state;
    const int64_t N = STORE_NULL;
    struct store_gpu_row row = {sqlite3_column_int64(query, 0),
                                sqlite3_column_int64(query, 1),
                                sqlite3_column_int64(query, 2),
                                sqlite3_column_int64(query, 3),
                                sqlite3_column_int64(query, 4),
                                N,
                                N,
                                N,
                                N,
                                N,
                                N,
                                N,
                                N};
    int columns = sqlite3_column_count(query);
    if (columns == 7) { /* kernels */
        row.name_id = sqlite3_column_int64(query, 5);
        row.rowid = sqlite3_column_int64(query, 6);
    } else {
        row.bytes = int_or(query, 5, N);
    }
    if (columns == 11) { /* memcpys */
        row.copy_kind = int_or(query, 6, N);
        row.src_kind = int_or(query, 7, N);
        row.dst_kind = int_or(query, 8, N);
        row.src_device_id = int_or(query, 9, N);
        row.dst_device_id = int_or(query, 10, N);
    }
    return ((store_gpu_row_visit *)visit->visit)(visit->context, &row);
}

int store_scan_gpu_table(store *trace, enum store_table table, store_gpu_row_visit *visit, void *context,
                         error_info *err)
{
    const char *sql =
        table == STORE_TABLE_KERNELS
            ? "SELECT process_id, device_id, stream_id, start_ns, end_ns, name_id, rowid FROM kernels"
        : table == STORE_TABLE_MEMCPYS
            ? "SELECT process_id, device_id, stream_id, start_ns, end_ns, bytes, copy_kind, src_kind,"
              " dst_kind, src_device_id, dst_device_id FROM memcpys"
        : table == STORE_TABLE_MEMSETS
            ? "SELECT process_id, device_id, stream_id, start_ns, end_ns, bytes FROM memsets"
            : NULL;
    if (!sql)
        return error_set(err, "not a GPU table");
    sqlite3_stmt *query = prepare(trace, sql, "GPU intervals", err);
    struct visit state = {(void *)visit, context};
    return query ? walk(trace, query, "GPU intervals", gpu_row, &state, err) : -1;
}

static int host_row(sqlite3_stmt *query, void *state)
{
    const struct visit *visit = state;
    struct store_host_row row = {sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1),
                                 sqlite3_column_int64(query, 2), sqlite3_column_int64(query, 3),
                                 sqlite3_column_int64(query, 4), sqlite3_column_int64(query, 5)};
    return ((store_host_row_visit *)visit->visit)(visit->context, &row);
}

int store_scan_host_rows(store *trace, enum store_table table, int64_t start_ns, int64_t end_ns, int64_t rank,
                         store_host_row_visit *visit, void *context, error_info *err)
{
    static const char api_sql[] =
        "SELECT a.process_id, a.thread_id, 0, a.start_ns, a.end_ns, a.name_id FROM api_calls a"
        " LEFT JOIN processes p USING (process_id)"
        " WHERE a.start_ns <= ?2 AND a.end_ns >= ?1 AND (?3 < 0 OR p.rank = ?3)";
    static const char nvtx_sql[] = "SELECT n.process_id, COALESCE(n.thread_id, -1), COALESCE(n.depth, 0), "
                                   "n.start_ns, n.end_ns, n.message_id"
                                   " FROM nvtx n LEFT JOIN processes p USING (process_id)"
                                   " WHERE n.start_ns <= ?2 AND n.end_ns >= ?1 AND (?3 < 0 OR p.rank = ?3)";
    if (table != STORE_TABLE_API_CALLS && table != STORE_TABLE_NVTX)
        return error_set(err, "not a host table");
    const char *what = table == STORE_TABLE_API_CALLS ? "API calls" : "NVTX ranges";
    sqlite3_stmt *query = prepare(trace, table == STORE_TABLE_API_CALLS ? api_sql : nvtx_sql, what, err);
    if (!query)
        return -1;
    sqlite3_bind_int64(query, 1, start_ns);
    sqlite3_bind_int64(query, 2, end_ns);
    sqlite3_bind_int64(query, 3, rank);
    struct visit state = {(void *)visit, context};
    return walk(trace, query, what, host_row, &state, err);
}
