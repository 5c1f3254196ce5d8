/* reader.c: see reader.h. */
#include "reader.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "demangle.h"

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

/* One of the three GPU tables of one device, positioned on its next row. */
struct gpu_source {
    sqlite3_stmt *query;
    int has_row;
    int64_t stream_id;
    struct canvas_interval interval;
};

static const char *const gpu_queries[3] = {
    "SELECT stream_id, start_ns, end_ns, rowid, name_id FROM kernels"
    " WHERE process_id = ?1 AND device_id = ?2 AND start_ns <= ?4 AND end_ns >= ?3 ORDER BY start_ns",
    "SELECT stream_id, start_ns, end_ns, bytes, copy_kind, src_kind, dst_kind, src_device_id, dst_device_id"
    " FROM memcpys WHERE process_id = ?1 AND device_id = ?2 AND start_ns <= ?4 AND end_ns >= ?3 ORDER BY start_ns",
    "SELECT stream_id, start_ns, end_ns, bytes FROM memsets"
    " WHERE process_id = ?1 AND device_id = ?2 AND start_ns <= ?4 AND end_ns >= ?3 ORDER BY start_ns",
};

static int64_t column_or_null(sqlite3_stmt *query, int column)
{
    return sqlite3_column_type(query, column) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, column);
}

/* Steps source `index` (0 kernels, 1 memcpys, 2 memsets) to its next row and decodes it. */
static int gpu_source_next(struct gpu_source *source, int index, struct name_kinds *names)
{
    int status = sqlite3_step(source->query);
    source->has_row = status == SQLITE_ROW;
    if (!source->has_row)
        return status == SQLITE_DONE ? 0 : -1;
    sqlite3_stmt *q = source->query;
    struct canvas_interval *interval = &source->interval;
    source->stream_id = sqlite3_column_int64(q, 0);
    interval->start_ns = sqlite3_column_int64(q, 1);
    interval->end_ns = sqlite3_column_int64(q, 2);
    interval->detail_a = sqlite3_column_int64(q, 3);
    if (index == 0) {
        interval->detail = CANVAS_DETAIL_KERNEL;
        interval->detail_b = sqlite3_column_int64(q, 4);
        int kind = kernel_kind(names, interval->detail_b);
        if (kind < 0)
            return -1;
        interval->kind = (uint8_t)kind;
    } else if (index == 1) {
        int64_t copy_kind = sqlite3_column_int64(q, 4);
        int pageable = column_or_null(q, 5) == STORE_MEMORY_PAGEABLE || column_or_null(q, 6) == STORE_MEMORY_PAGEABLE;
        interval->detail = CANVAS_DETAIL_MEMCPY;
        interval->detail_b = copy_kind | (int64_t)pageable << 8;
        interval->kind = (uint8_t)reader_copy_category(copy_kind, column_or_null(q, 7), column_or_null(q, 8));
    } else {
        interval->detail = CANVAS_DETAIL_MEMSET;
        interval->detail_b = 0;
        interval->kind = ANALYSIS_MEMSET;
    }
    return 0;
}

static int sqlite_failed(sqlite3 *db, error_info *err, const char *what)
{
    return error_set(err, "cannot read %s: %s", what, sqlite3_errmsg(db));
}

static int fill_device(struct canvas *canvas, sqlite3 *db, struct gpu_source sources[3], struct name_kinds *names,
                       int64_t process_id, int64_t device_id, error_info *err)
{
    for (int i = 0; i < 3; i++) {
        sqlite3_reset(sources[i].query);
        sqlite3_bind_int64(sources[i].query, 1, process_id);
        sqlite3_bind_int64(sources[i].query, 2, device_id);
        sqlite3_bind_int64(sources[i].query, 3, canvas->window_start_ns);
        sqlite3_bind_int64(sources[i].query, 4, canvas->window_end_ns);
        if (gpu_source_next(&sources[i], i, names) != 0)
            return sqlite_failed(db, err, "the GPU intervals");
    }
    if (canvas_device_begin(canvas, process_id, device_id) != 0)
        return error_set(err, "out of memory");
    for (;;) {
        int next = -1;
        for (int i = 0; i < 3; i++)
            if (sources[i].has_row &&
                (next < 0 || sources[i].interval.start_ns < sources[next].interval.start_ns))
                next = i;
        if (next < 0)
            break;
        struct gpu_source *source = &sources[next];
        struct canvas_lane *lane = canvas_gpu_lane(canvas, process_id, device_id, source->stream_id);
        if (!lane || canvas_add_gpu(canvas, lane, &source->interval) != 0)
            return error_set(err, "out of memory");
        if (gpu_source_next(source, next, names) != 0)
            return sqlite_failed(db, err, "the GPU intervals");
    }
    canvas_device_end(canvas);
    return 0;
}

/* Adds (process, device, start) to a list sorted by (process, device), keeping the smaller
 * start when the device is already there. */
static int merge_device(struct reader_device **devices, size_t *count, size_t *capacity,
                        struct reader_device device)
{
    size_t at = 0;
    while (at < *count && ((*devices)[at].process_id < device.process_id ||
                           ((*devices)[at].process_id == device.process_id && (*devices)[at].device_id < device.device_id)))
        at++;
    if (at < *count && (*devices)[at].process_id == device.process_id && (*devices)[at].device_id == device.device_id) {
        if (device.first_start_ns < (*devices)[at].first_start_ns)
            (*devices)[at].first_start_ns = device.first_start_ns;
        return 0;
    }
    if (*count == *capacity) {
        size_t grown = *capacity ? *capacity * 2 : 8;
        struct reader_device *resized = realloc(*devices, grown * sizeof *resized);
        if (!resized)
            return -1;
        *devices = resized;
        *capacity = grown;
    }
    memmove(*devices + at + 1, *devices + at, (*count - at) * sizeof **devices);
    (*devices)[at] = device;
    (*count)++;
    return 0;
}

int reader_list_devices(sqlite3 *db, struct reader_device **devices, size_t *count, error_info *err)
{
    /* The first index entry after (p, d) is the next device's earliest interval. */
    static const char *const hops[3] = {
        "SELECT process_id, device_id, start_ns FROM kernels WHERE (process_id, device_id) > (?1, ?2)"
        " ORDER BY process_id, device_id, start_ns LIMIT 1",
        "SELECT process_id, device_id, start_ns FROM memcpys WHERE (process_id, device_id) > (?1, ?2)"
        " ORDER BY process_id, device_id, start_ns LIMIT 1",
        "SELECT process_id, device_id, start_ns FROM memsets WHERE (process_id, device_id) > (?1, ?2)"
        " ORDER BY process_id, device_id, start_ns LIMIT 1",
    };
    size_t capacity = 0;
    *devices = NULL;
    *count = 0;
    for (int table = 0; table < 3; table++) {
        sqlite3_stmt *hop = NULL;
        if (sqlite3_prepare_v2(db, hops[table], -1, &hop, NULL) != SQLITE_OK) {
            sqlite_failed(db, err, "the devices");
            goto failed;
        }
        int64_t process_id = INT64_MIN, device_id = INT64_MIN;
        int step;
        for (;;) {
            sqlite3_bind_int64(hop, 1, process_id);
            sqlite3_bind_int64(hop, 2, device_id);
            if ((step = sqlite3_step(hop)) != SQLITE_ROW)
                break;
            struct reader_device device = {sqlite3_column_int64(hop, 0), sqlite3_column_int64(hop, 1),
                                           sqlite3_column_int64(hop, 2)};
            sqlite3_reset(hop);
            if (merge_device(devices, count, &capacity, device) != 0) {
                sqlite3_finalize(hop);
                error_set(err, "out of memory");
                goto failed;
            }
            process_id = device.process_id;
            device_id = device.device_id;
        }
        sqlite3_finalize(hop);
        if (step != SQLITE_DONE) {
            sqlite_failed(db, err, "the devices");
            goto failed;
        }
    }
    return 0;
failed:
    free(*devices);
    *devices = NULL;
    *count = 0;
    return -1;
}

static int process_has_rank(sqlite3 *db, int64_t process_id, int64_t rank)
{
    sqlite3_stmt *query = NULL;
    int matches = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM processes WHERE process_id = ?1 AND rank = ?2", -1, &query, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        sqlite3_bind_int64(query, 2, rank);
        matches = sqlite3_step(query) == SQLITE_ROW;
    }
    sqlite3_finalize(query);
    return matches;
}

static int fill_devices(struct canvas *canvas, sqlite3 *db, int64_t rank, error_info *err)
{
    struct gpu_source sources[3] = {{0}};
    struct name_kinds names = {0};
    struct reader_device *devices = NULL;
    size_t device_count = 0;
    int status = -1;
    if (reader_list_devices(db, &devices, &device_count, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT value FROM strings WHERE id = ?1", -1, &names.lookup, NULL) != SQLITE_OK) {
        sqlite_failed(db, err, "the kernel names");
        goto done;
    }
    for (int i = 0; i < 3; i++) {
        if (sqlite3_prepare_v2(db, gpu_queries[i], -1, &sources[i].query, NULL) != SQLITE_OK) {
            sqlite_failed(db, err, "the GPU intervals");
            goto done;
        }
    }
    for (size_t i = 0; i < device_count; i++) {
        if (rank >= 0 && !process_has_rank(db, devices[i].process_id, rank))
            continue;
        if (devices[i].first_start_ns > canvas->window_end_ns)
            continue;
        if (fill_device(canvas, db, sources, &names, devices[i].process_id, devices[i].device_id, err) != 0)
            goto done;
    }
    status = 0;
done:
    for (int i = 0; i < 3; i++)
        sqlite3_finalize(sources[i].query);
    sqlite3_finalize(names.lookup);
    free(names.ids);
    free(names.kinds);
    free(devices);
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
            return error_set(err, "out of memory");
        }
    }
    sqlite3_finalize(query);
    if (step != SQLITE_DONE)
        return sqlite_failed(db, err, kind == CANVAS_LANE_HOST ? "the API calls" : "the NVTX ranges");
    return 0;
}

int reader_fill(struct canvas *canvas, store *trace, const struct reader_selection *selection, error_info *err)
{
    sqlite3 *db = store_db(trace);
    if (fill_devices(canvas, db, selection->rank, err) != 0)
        return -1;
    if (selection->host_calls && fill_threads(canvas, db, CANVAS_LANE_HOST, selection->rank, err) != 0)
        return -1;
    if (selection->nvtx_ranges && fill_threads(canvas, db, CANVAS_LANE_NVTX, selection->rank, err) != 0)
        return -1;
    return 0;
}
