/* reader.c: see reader.h. */
#include "reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "demangle.h"
#include "gpu_devices.h"

/* Kernel category per strings.id: kernels repeat a few hundred names millions of times. An
 * open-addressing table keyed by name id, filled on first sight of each id. */
struct name_kinds {
    int64_t *ids; /* 0: empty slot (string ids start at 1) */
    uint8_t *kinds;
    size_t capacity, count;
    sqlite3_stmt *lookup;
};

enum analysis_category reader_kernel_category(const char *kernel_name)
{
    char short_name[256];
    demangle_short_name(kernel_name, short_name, sizeof short_name);
    /* NCCL's kernels are ncclKernel_* / ncclDevKernel_* (RCCL keeps the prefix). */
    return strncasecmp(short_name, "nccl", 4) == 0 || strncasecmp(short_name, "rccl", 4) == 0
               ? ANALYSIS_COMMUNICATION
               : ANALYSIS_COMPUTE;
}

enum analysis_category reader_copy_category(int64_t copy_kind, int64_t src_device_id, int64_t dst_device_id)
{
    switch (copy_kind) {
    case STORE_COPY_HTOD:
        return ANALYSIS_COPY_HTOD;
    case STORE_COPY_DTOH:
        return ANALYSIS_COPY_DTOH;
    case STORE_COPY_DTOD:
        if (src_device_id != STORE_NULL && dst_device_id != STORE_NULL && src_device_id != dst_device_id)
            return ANALYSIS_COPY_PEER;
        return ANALYSIS_COPY_DTOD;
    case STORE_COPY_PTOP:
        return ANALYSIS_COPY_PEER;
    default:
        return ANALYSIS_COPY_OTHER;
    }
}

static int name_kinds_grow(struct name_kinds *table)
{
    size_t capacity = table->capacity ? table->capacity * 2 : 1024;
    int64_t *ids = calloc(capacity, sizeof *ids);
    uint8_t *kinds = calloc(capacity, sizeof *kinds);
    if (!ids || !kinds) {
        free(ids);
        free(kinds);
        return -1;
    }
    for (size_t i = 0; i < table->capacity; i++) {
        if (!table->ids[i])
            continue;
        size_t slot = (size_t)table->ids[i] & (capacity - 1);
        while (ids[slot])
            slot = (slot + 1) & (capacity - 1);
        ids[slot] = table->ids[i];
        kinds[slot] = table->kinds[i];
    }
    free(table->ids);
    free(table->kinds);
    table->ids = ids;
    table->kinds = kinds;
    table->capacity = capacity;
    return 0;
}

static int kernel_kind(struct name_kinds *table, int64_t name_id)
{
    if (table->capacity) {
        for (size_t slot = (size_t)name_id & (table->capacity - 1); table->ids[slot];
             slot = (slot + 1) & (table->capacity - 1))
            if (table->ids[slot] == name_id)
                return table->kinds[slot];
    }
    if ((table->count + 1) * 2 > table->capacity && name_kinds_grow(table) != 0)
        return -1;
    sqlite3_bind_int64(table->lookup, 1, name_id);
    const char *name = NULL;
    if (sqlite3_step(table->lookup) == SQLITE_ROW)
        name = (const char *)sqlite3_column_text(table->lookup, 0);
    int kind = (int)reader_kernel_category(name ? name : "");
    sqlite3_reset(table->lookup);
    size_t slot = (size_t)name_id & (table->capacity - 1);
    while (table->ids[slot])
        slot = (slot + 1) & (table->capacity - 1);
    table->ids[slot] = name_id;
    table->kinds[slot] = (uint8_t)kind;
    table->count++;
    return kind;
}

static int sqlite_failed(sqlite3 *db, error_info *err, const char *what)
{
    return error_set(err, "cannot read %s: %s", what, sqlite3_errmsg(db));
}

/* Storage (rowid) order, only the columns drawn: a scan reads the table's pages once, in order,
 * where walking the by-lane index in time order would fetch every row by a random lookup. */
static const char *const table_names[3] = {"kernels", "memcpys", "memsets"};
static const char *const gpu_scans[3] = {
    "SELECT process_id, device_id, stream_id, start_ns, end_ns, name_id, rowid FROM kernels",
    ("SELECT process_id, device_id, stream_id, start_ns, end_ns, bytes, copy_kind, src_kind, dst_kind,"
     " src_device_id, dst_device_id FROM memcpys"),
    "SELECT process_id, device_id, stream_id, start_ns, end_ns, bytes FROM memsets",
};

static int64_t column_or_null(sqlite3_stmt *query, int column)
{
    return sqlite3_column_type(query, column) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, column);
}

int reader_process_filter_load(struct reader_process_filter *filter, sqlite3 *db, int64_t rank, error_info *err)
{
    memset(filter, 0, sizeof *filter);
    filter->rank = rank;
    filter->last_process_id = STORE_NULL;
    if (rank < 0)
        return 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, "SELECT process_id FROM processes WHERE rank = ?1 ORDER BY process_id", -1, &query,
                           NULL) != SQLITE_OK)
        return sqlite_failed(db, err, "the processes");
    sqlite3_bind_int64(query, 1, rank);
    size_t capacity = 0;
    int step;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        if (filter->count == capacity) {
            capacity = capacity ? capacity * 2 : 8;
            int64_t *grown = realloc(filter->process_ids, capacity * sizeof *grown);
            if (!grown) {
                sqlite3_finalize(query);
                return error_set(err, "out of memory");
            }
            filter->process_ids = grown;
        }
        filter->process_ids[filter->count++] = sqlite3_column_int64(query, 0);
    }
    sqlite3_finalize(query);
    return step == SQLITE_DONE ? 0 : sqlite_failed(db, err, "the processes");
}

int reader_process_selected(struct reader_process_filter *filter, int64_t process_id)
{
    if (filter->rank < 0)
        return 1;
    if (process_id != filter->last_process_id) {
        filter->last_process_id = process_id;
        filter->last_selected = 0;
        for (size_t i = 0; i < filter->count; i++)
            filter->last_selected |= filter->process_ids[i] == process_id;
    }
    return filter->last_selected;
}

void reader_process_filter_free(struct reader_process_filter *filter)
{
    free(filter->process_ids);
    filter->process_ids = NULL;
    filter->count = 0;
}

/* Decodes the current row of table `index` (0 kernels, 1 memcpys, 2 memsets). */
static int decode_gpu_row(sqlite3_stmt *q, int index, struct name_kinds *names, struct canvas_interval *interval)
{
    interval->start_ns = sqlite3_column_int64(q, 3);
    interval->end_ns = sqlite3_column_int64(q, 4);
    if (index == 0) {
        interval->detail = CANVAS_DETAIL_KERNEL;
        interval->detail_a = sqlite3_column_int64(q, 6);
        interval->detail_b = sqlite3_column_int64(q, 5);
        int kind = kernel_kind(names, interval->detail_b);
        if (kind < 0)
            return -1;
        interval->kind = (uint8_t)kind;
    } else if (index == 1) {
        int64_t copy_kind = sqlite3_column_int64(q, 6);
        int pageable = column_or_null(q, 7) == STORE_MEMORY_PAGEABLE || column_or_null(q, 8) == STORE_MEMORY_PAGEABLE;
        interval->detail = CANVAS_DETAIL_MEMCPY;
        interval->detail_a = sqlite3_column_int64(q, 5);
        interval->detail_b = copy_kind | (int64_t)pageable << 8;
        interval->kind = (uint8_t)reader_copy_category(copy_kind, column_or_null(q, 9), column_or_null(q, 10));
    } else {
        interval->detail = CANVAS_DETAIL_MEMSET;
        interval->detail_a = sqlite3_column_int64(q, 5);
        interval->detail_b = 0;
        interval->kind = ANALYSIS_MEMSET;
    }
    return 0;
}

/* Scans one GPU table into the canvas. first_start_ns: the first start read (STORE_NULL before
 * any), which every other must lie near. last_end_ns: raised to the latest end seen (any rank,
 * any time), so the caller can tell whether a guessed window end was short. */
static int scan_gpu_table(struct canvas *canvas, sqlite3 *db, int index, struct name_kinds *names,
                          struct reader_process_filter *filter, const struct reader_selection *selection,
                          int64_t *first_start_ns, int64_t *last_end_ns, error_info *err)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db, gpu_scans[index], -1, &q, NULL) != SQLITE_OK)
        return sqlite_failed(db, err, "the GPU intervals");
    int64_t window_start_ns = canvas->window_start_ns, window_end_ns = canvas->window_end_ns;
    int step, status = 0;
    while ((step = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t start_ns = sqlite3_column_int64(q, 3), end_ns = sqlite3_column_int64(q, 4);
        /* Times no recording holds: refused before the per-lane sums of them overflow. */
        if (!store_interval_plausible(start_ns, end_ns) || (*first_start_ns != STORE_NULL &&
                                                            (start_ns - *first_start_ns > STORE_MAX_SPAN_NS ||
                                                             *first_start_ns - start_ns > STORE_MAX_SPAN_NS))) {
            status = error_set(err, "the trace is damaged: a %s row runs from %" PRId64 " ns to %" PRId64
                                    " ns, outside any recording", table_names[index], start_ns, end_ns);
            break;
        }
        if (*first_start_ns == STORE_NULL)
            *first_start_ns = start_ns;
        if (end_ns > *last_end_ns)
            *last_end_ns = end_ns;
        if (start_ns > window_end_ns || end_ns < window_start_ns)
            continue;
        int64_t process_id = sqlite3_column_int64(q, 0);
        int64_t device_id = sqlite3_column_int64(q, 1), stream_id = sqlite3_column_int64(q, 2);
        if (!reader_process_selected(filter, process_id) ||
            (selection->device_id >= 0 && device_id != selection->device_id) ||
            (selection->stream_id >= 0 && stream_id != selection->stream_id))
            continue;
        struct canvas_interval interval;
        struct canvas_lane *lane = canvas_gpu_lane(canvas, process_id, device_id, stream_id);
        if (!lane || decode_gpu_row(q, index, names, &interval) != 0 || canvas_add(canvas, lane, &interval) != 0) {
            status = canvas_over_budget(canvas) ? canvas_budget_error(canvas, err) : error_set(err, "out of memory");
            break;
        }
    }
    if (status == 0 && step != SQLITE_DONE)
        status = sqlite_failed(db, err, "the GPU intervals");
    sqlite3_finalize(q);
    return status;
}

static int fill_devices(struct canvas *canvas, sqlite3 *db, const struct reader_selection *selection,
                        int64_t *last_end_ns, error_info *err)
{
    struct name_kinds names = {0};
    struct reader_process_filter filter;
    int status = -1;
    if (reader_process_filter_load(&filter, db, selection->rank, err) != 0)
        goto done;
    if (sqlite3_prepare_v2(db, "SELECT value FROM strings WHERE id = ?1", -1, &names.lookup, NULL) != SQLITE_OK) {
        sqlite_failed(db, err, "the kernel names");
        goto done;
    }
    int64_t first_start_ns = STORE_NULL;
    for (int table = 0; table < 3; table++)
        if (scan_gpu_table(canvas, db, table, &names, &filter, selection, &first_start_ns, last_end_ns, err) != 0)
            goto done;
    status = 0;
done:
    sqlite3_finalize(names.lookup);
    free(names.ids);
    free(names.kinds);
    reader_process_filter_free(&filter);
    return status;
}

struct canvas *reader_read(store *trace, const struct reader_selection *selection, int64_t start_ns, int64_t end_ns,
                           int end_is_estimate, int columns, double keep_min_columns, int64_t *last_end_ns,
                           error_info *err)
{
    for (;;) {
        struct canvas *canvas = canvas_new(start_ns, end_ns, columns, keep_min_columns);
        if (!canvas) {
            error_set(err, "out of memory");
            return NULL;
        }
        if (reader_fill(canvas, trace, selection, last_end_ns, err) != 0) {
            canvas_free(canvas);
            return NULL;
        }
        if (!end_is_estimate || *last_end_ns <= end_ns) /* STORE_NULL (nothing read) is below any end */
            return canvas;
        canvas_free(canvas);
        end_ns = *last_end_ns;
        end_is_estimate = 0;
    }
}

int reader_estimate_last_end(store *trace, int64_t *last_end_ns, error_info *err)
{
    sqlite3 *db = store_db(trace);
    /* The latest end among each device's last starts, through the by-lane indexes. */
    static const char *const tails[3] = {
        "SELECT MAX(end_ns) FROM (SELECT end_ns FROM kernels WHERE process_id = ?1 AND device_id = ?2"
        " ORDER BY start_ns DESC LIMIT 64)",
        "SELECT MAX(end_ns) FROM (SELECT end_ns FROM memcpys WHERE process_id = ?1 AND device_id = ?2"
        " ORDER BY start_ns DESC LIMIT 64)",
        "SELECT MAX(end_ns) FROM (SELECT end_ns FROM memsets WHERE process_id = ?1 AND device_id = ?2"
        " ORDER BY start_ns DESC LIMIT 64)",
    };
    struct store_gpu_device *devices = NULL;
    size_t count = 0;
    if (store_list_gpu_devices(trace, &devices, &count, err) != 0)
        return -1;
    *last_end_ns = STORE_NULL;
    int status = 0;
    for (int table = 0; table < 3 && status == 0; table++) {
        sqlite3_stmt *tail = NULL;
        if (sqlite3_prepare_v2(db, tails[table], -1, &tail, NULL) != SQLITE_OK) {
            status = sqlite_failed(db, err, "the GPU span");
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

/* Host API calls (kind HOST) or NVTX ranges (kind NVTX), one lane per thread (and nesting
 * level, capped so a deep stack stays a few rows). Order does not matter here. */
#define NVTX_MAX_DEPTH 3
static int fill_threads(struct canvas *canvas, sqlite3 *db, enum canvas_lane_kind kind, int64_t rank, error_info *err)
{
    static const char api_sql[] =
        "SELECT a.process_id, a.thread_id, 0, a.start_ns, a.end_ns, a.name_id FROM api_calls a"
        " LEFT JOIN processes p USING (process_id)"
        " WHERE a.start_ns <= ?2 AND a.end_ns >= ?1 AND (?3 < 0 OR p.rank = ?3)";
    static const char nvtx_sql[] =
        "SELECT n.process_id, COALESCE(n.thread_id, -1), COALESCE(n.depth, 0), n.start_ns, n.end_ns, n.message_id"
        " FROM nvtx n LEFT JOIN processes p USING (process_id)"
        " WHERE n.start_ns <= ?2 AND n.end_ns >= ?1 AND (?3 < 0 OR p.rank = ?3)";
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, kind == CANVAS_LANE_HOST ? api_sql : nvtx_sql, -1, &query, NULL) != SQLITE_OK)
        return sqlite_failed(db, err, kind == CANVAS_LANE_HOST ? "the API calls" : "the NVTX ranges");
    sqlite3_bind_int64(query, 1, canvas->window_start_ns);
    sqlite3_bind_int64(query, 2, canvas->window_end_ns);
    sqlite3_bind_int64(query, 3, rank);
    int step;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        int64_t depth = sqlite3_column_int64(query, 2);
        int64_t start_ns = sqlite3_column_int64(query, 3), end_ns = sqlite3_column_int64(query, 4);
        if (!store_interval_plausible(start_ns, end_ns)) {
            error_set(err, "the trace is damaged: %s row runs from %" PRId64 " ns to %" PRId64 " ns, outside any recording",
                      kind == CANVAS_LANE_HOST ? "an API call" : "an NVTX", start_ns, end_ns);
            sqlite3_finalize(query);
            return -1;
        }
        struct canvas_interval interval = {
            .start_ns = sqlite3_column_int64(query, 3),
            .end_ns = sqlite3_column_int64(query, 4),
            .detail_b = sqlite3_column_int64(query, 5),
            .kind = kind == CANVAS_LANE_HOST ? PALETTE_HOST_API : PALETTE_NVTX,
            .detail = CANVAS_DETAIL_STRING,
        };
        struct canvas_lane *lane =
            canvas_thread_lane(canvas, kind, sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1),
                               depth < 0 ? 0 : depth > NVTX_MAX_DEPTH ? NVTX_MAX_DEPTH : depth);
        if (!lane || canvas_add(canvas, lane, &interval) != 0) {
            sqlite3_finalize(query);
            return canvas_over_budget(canvas) ? canvas_budget_error(canvas, err) : error_set(err, "out of memory");
        }
    }
    sqlite3_finalize(query);
    if (step != SQLITE_DONE)
        return sqlite_failed(db, err, kind == CANVAS_LANE_HOST ? "the API calls" : "the NVTX ranges");
    return 0;
}

int reader_fill(struct canvas *canvas, store *trace, const struct reader_selection *selection, int64_t *last_end_ns,
                error_info *err)
{
    sqlite3 *db = store_db(trace);
    *last_end_ns = STORE_NULL;
    if (fill_devices(canvas, db, selection, last_end_ns, err) != 0)
        return -1;
    if (selection->host_calls && fill_threads(canvas, db, CANVAS_LANE_HOST, selection->rank, err) != 0)
        return -1;
    if (selection->nvtx_ranges && fill_threads(canvas, db, CANVAS_LANE_NVTX, selection->rank, err) != 0)
        return -1;
    canvas_finish(canvas);
    return 0;
}
