/* gpu_devices.c: see gpu_devices.h. */
#include "gpu_devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

static const char *const gpu_tables[3] = {"kernels", "memcpys", "memsets"};

/* Appends (process, device, start); sort_devices orders and merges the list once at the end (a
 * sorted insert per device was quadratic: 80k devices took minutes). */
static int append_device(struct store_gpu_device **devices, size_t *count, size_t *capacity,
                         struct store_gpu_device device)
{
    if (*count == *capacity) {
        size_t grown = *capacity ? *capacity * 2 : 8;
        struct store_gpu_device *resized = realloc(*devices, grown * sizeof *resized);
        if (!resized)
            return -1;
        *devices = resized;
        *capacity = grown;
    }
    (*devices)[(*count)++] = device;
    return 0;
}

static int compare_devices(const void *left, const void *right)
{
    const struct store_gpu_device *a = left, *b = right;
    if (a->process_id != b->process_id)
        return a->process_id < b->process_id ? -1 : 1;
    if (a->device_id != b->device_id)
        return a->device_id < b->device_id ? -1 : 1;
    return (a->first_start_ns > b->first_start_ns) - (a->first_start_ns < b->first_start_ns);
}

/* Sorts by (process, device) and keeps one entry per device, with its earliest start (a device
 * that ran more than one kind of work was listed once per table). */
static void sort_devices(struct store_gpu_device *devices, size_t *count)
{
    if (*count == 0)
        return;
    qsort(devices, *count, sizeof *devices, compare_devices);
    size_t kept = 1;
    for (size_t i = 1; i < *count; i++)
        if (devices[i].process_id != devices[kept - 1].process_id ||
            devices[i].device_id != devices[kept - 1].device_id)
            devices[kept++] = devices[i];
    *count = kept;
}

int store_list_gpu_devices(store *trace, struct store_gpu_device **devices, size_t *count, error_info *err)
{
    /* The first index entry after (p, d) is the next device's earliest interval. Two seeks:
     * a row-value (p, d) > (?, ?) seeks on p alone and walks every entry of p. */
    static const char hop_sql[] =
        "SELECT * FROM (SELECT process_id, device_id, start_ns FROM %s WHERE process_id = ?1 AND device_id > "
        "?2"
        " ORDER BY device_id, start_ns LIMIT 1) UNION ALL SELECT * FROM (SELECT process_id, device_id, "
        "start_ns"
        " FROM %s WHERE process_id > ?1 ORDER BY process_id, device_id, start_ns LIMIT 1) LIMIT 1";
    sqlite3 *db = store_db(trace);
    sqlite3_stmt *hop = NULL;
    size_t capacity = 0;
    *devices = NULL;
    *count = 0;
    for (int table = 0; table < 3; table++) {
        char sql[sizeof hop_sql + 16];
        snprintf(sql, sizeof sql, hop_sql, gpu_tables[table], gpu_tables[table]);
        if (sqlite3_prepare_v2(db, sql, -1, &hop, NULL) != SQLITE_OK)
            goto sql_failed;
        int64_t process_id = INT64_MIN, device_id = INT64_MIN;
        int step;
        for (;;) {
            sqlite3_bind_int64(hop, 1, process_id);
            sqlite3_bind_int64(hop, 2, device_id);
            if ((step = sqlite3_step(hop)) != SQLITE_ROW)
                break;
            struct store_gpu_device device = {sqlite3_column_int64(hop, 0), sqlite3_column_int64(hop, 1),
                                              sqlite3_column_int64(hop, 2)};
            sqlite3_reset(hop);
            /* A corrupted index can answer a device that is not after the last one: stop, or this loops
             * forever. */
            if (device.process_id < process_id ||
                (device.process_id == process_id && device.device_id <= device_id)) {
                error_set(err, "the %s index is corrupted (keys out of order); the trace is damaged",
                          gpu_tables[table]);
                goto failed;
            }
            if (append_device(devices, count, &capacity, device) != 0) {
                error_set(err, "out of memory");
                goto failed;
            }
            process_id = device.process_id;
            device_id = device.device_id;
        }
        if (step != SQLITE_DONE)
            goto sql_failed;
        sqlite3_finalize(hop);
        hop = NULL;
    }
    sort_devices(*devices, count);
    return 0;
sql_failed:
    error_set(err, "cannot read the devices: %s", sqlite3_errmsg(db));
failed:
    sqlite3_finalize(hop);
    free(*devices);
    *devices = NULL;
    *count = 0;
    return -1;
}

int64_t store_gpu_devices_first_start(const struct store_gpu_device *devices, size_t count)
{
    int64_t first = STORE_NULL;
    for (size_t i = 0; i < count; i++)
        if (first == STORE_NULL || devices[i].first_start_ns < first)
            first = devices[i].first_start_ns;
    return first;
}

int store_gpu_devices_estimate_last_end(store *trace, int64_t *last_end_ns, error_info *err)
{
    sqlite3 *db = store_db(trace);
    struct store_gpu_device *devices = NULL;
    size_t count = 0;
    if (store_list_gpu_devices(trace, &devices, &count, err) != 0)
        return -1;
    *last_end_ns = STORE_NULL;
    int status = 0;
    for (int table = 0; table < 3 && status == 0; table++) {
        /* The latest end among each device's last starts, through the by-lane indexes. */
        char sql[192];
        snprintf(sql, sizeof sql,
                 "SELECT MAX(end_ns) FROM (SELECT end_ns FROM %s WHERE process_id = ?1 AND device_id = ?2"
                 " ORDER BY start_ns DESC LIMIT 64)",
                 gpu_tables[table]);
        sqlite3_stmt *tail = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &tail, NULL) != SQLITE_OK) {
            status = error_set(err, "cannot read the GPU span: %s", sqlite3_errmsg(db));
            break;
        }
        for (size_t i = 0; i < count; i++) {
            sqlite3_bind_int64(tail, 1, devices[i].process_id);
            sqlite3_bind_int64(tail, 2, devices[i].device_id);
            if (sqlite3_step(tail) == SQLITE_ROW && sqlite3_column_type(tail, 0) != SQLITE_NULL &&
                (*last_end_ns == STORE_NULL || sqlite3_column_int64(tail, 0) > *last_end_ns))
                *last_end_ns = sqlite3_column_int64(tail, 0);
            sqlite3_reset(tail);
        }
        sqlite3_finalize(tail);
    }
    free(devices);
    if (status == 0 && *last_end_ns == STORE_NULL)
        status = error_set(err, "no GPU activity in the trace");
    return status;
}

int store_gpu_devices_span(store *trace, const struct store_gpu_device *devices, size_t count,
                           int64_t *first_start_ns, int64_t *last_end_ns, error_info *err)
{
    sqlite3 *db = store_db(trace);
    int found = 0;
    for (int table = 0; table < 3 && found >= 0; table++) {
        char sql[160];
        snprintf(sql, sizeof sql,
                 "SELECT MIN(start_ns), MAX(end_ns) FROM %s WHERE process_id = ?1 AND device_id = ?2",
                 gpu_tables[table]);
        sqlite3_stmt *span = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &span, NULL) != SQLITE_OK) {
            found = error_set(err, "cannot read the GPU span: %s", sqlite3_errmsg(db));
            break;
        }
        for (size_t i = 0; i < count && found >= 0; i++) {
            sqlite3_bind_int64(span, 1, devices[i].process_id);
            sqlite3_bind_int64(span, 2, devices[i].device_id);
            int step = sqlite3_step(span);
            if (step == SQLITE_ROW && sqlite3_column_type(span, 0) != SQLITE_NULL) {
                int64_t first = sqlite3_column_int64(span, 0), last = sqlite3_column_int64(span, 1);
                *first_start_ns = found && *first_start_ns < first ? *first_start_ns : first;
                *last_end_ns = found && *last_end_ns > last ? *last_end_ns : last;
                found = 1;
            } else if (step != SQLITE_ROW) {
                found = error_set(err, "cannot read the GPU span: %s", sqlite3_errmsg(db));
            }
            sqlite3_reset(span);
        }
        sqlite3_finalize(span);
    }
    return found;
}

/* One row of two integers from sql (its parameters, if any, ?1 and ?2: first and second). Returns 1,
 * 0 when the first is NULL (no rows; a NULL second reads 0, as store_gpu_span reads it), or -1 with
 * err filled. */
static int read_pair(sqlite3 *db, const char *sql, int64_t first, int64_t second, int64_t *a, int64_t *b,
                     error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read the GPU span: %s", sqlite3_errmsg(db));
    if (sqlite3_bind_parameter_count(query) == 2) {
        sqlite3_bind_int64(query, 1, first);
        sqlite3_bind_int64(query, 2, second);
    }
    int step = sqlite3_step(query), found = 0;
    if (step == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL) {
        *a = sqlite3_column_int64(query, 0);
        *b = sqlite3_column_int64(query, 1);
        found = 1;
    } else if (step != SQLITE_ROW) {
        found = error_set(err, "cannot read the GPU span: %s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(query);
    return found;
}

int store_gpu_table_rowids(store *trace, int table, int64_t *first_rowid, int64_t *last_rowid,
                           error_info *err)
{
    char sql[160];
    snprintf(sql, sizeof sql,
             "SELECT (SELECT rowid FROM %s ORDER BY rowid LIMIT 1), (SELECT rowid FROM %s ORDER BY rowid DESC"
             " LIMIT 1)",
             gpu_tables[table], gpu_tables[table]);
    return read_pair(store_db(trace), sql, 0, 0, first_rowid, last_rowid, err);
}

int store_gpu_rows_span(store *trace, int table, int64_t first_rowid, int64_t last_rowid,
                        int64_t *first_start_ns, int64_t *last_end_ns, error_info *err)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT MIN(start_ns), MAX(end_ns) FROM %s WHERE rowid BETWEEN ?1 AND ?2",
             gpu_tables[table]);
    return read_pair(store_db(trace), sql, first_rowid, last_rowid, first_start_ns, last_end_ns, err);
}
