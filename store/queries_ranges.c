/* queries_ranges.c: see queries_ranges.h. */
#include "queries_ranges.h"

#include <stdio.h>
#include <stdlib.h>

#include "store.h"
#include "store_internal.h"

/* The walk of a prepared range query: columns thread_id, device_id, start_ns, end_ns, process_id,
 * message_id (the last two may be absent: process_id then given). */
static int walk_ranges(sqlite3_stmt *query, int64_t process_id, store_nvtx_range_visit *visit, void *context)
{
    int stopped = 0;
    int columns = sqlite3_column_count(query);
    while (stopped == 0 && sqlite3_step(query) == SQLITE_ROW) {
        struct store_nvtx_range range = {
            .thread_id =
                sqlite3_column_type(query, 0) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 0),
            .on_device = sqlite3_column_type(query, 1) != SQLITE_NULL,
            .start_ns = sqlite3_column_int64(query, 2),
            .end_ns = sqlite3_column_int64(query, 3),
            .process_id = columns > 4 ? sqlite3_column_int64(query, 4) : process_id,
            .message_id = columns > 5 ? sqlite3_column_int64(query, 5) : 0};
        stopped = visit(context, &range);
    }
    sqlite3_finalize(query);
    return stopped;
}

int store_each_named_range(sqlite3 *db, int64_t process_id, const char *name, store_nvtx_range_visit *visit,
                           void *context, error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT n.thread_id, n.device_id, n.start_ns, n.end_ns FROM nvtx n"
                           " WHERE n.process_id = ?1 AND n.kind != 3"
                           " AND n.message_id = (SELECT id FROM strings WHERE value = ?2)",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read NVTX ranges: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_text(query, 2, name, -1, SQLITE_TRANSIENT);
    return walk_ranges(query, process_id, visit, context);
}

int store_each_range(sqlite3 *db, store_nvtx_range_visit *visit, void *context, error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, device_id, start_ns, end_ns, process_id, message_id FROM nvtx"
                           " WHERE kind != 3",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read NVTX ranges: %s", sqlite3_errmsg(db));
    return walk_ranges(query, STORE_NULL, visit, context);
}

int store_each_range_message(sqlite3 *db, store_range_message_visit *visit, void *context, error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT s.id, s.value FROM strings s WHERE s.id IN"
                           " (SELECT DISTINCT message_id FROM nvtx WHERE kind != 3)",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read NVTX ranges: %s", sqlite3_errmsg(db));
    int stopped = 0;
    while (stopped == 0 && sqlite3_step(query) == SQLITE_ROW)
        stopped = visit(context, sqlite3_column_int64(query, 0), (const char *)sqlite3_column_text(query, 1));
    sqlite3_finalize(query);
    return stopped;
}

/* --- the GPU time of host ranges --- */

/* One GPU op (or a launch: a call and the ops it launched), keyed by its process and correlation id
 * (or its process, thread and call start). */
struct launched_op {
    int64_t process_id, key, call_start_ns, start_ns, end_ns;
};

struct op_list {
    struct launched_op *items;
    size_t count, capacity;
};

static int op_list_add(struct op_list *list, struct launched_op op)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 1024;
        struct launched_op *grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown)
            return -1;
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = op;
    return 0;
}

/* Ordered by process, key, then call start: GPU ops by correlation id, launches by thread. */
static int compare_ops(const void *a, const void *b)
{
    const struct launched_op *x = a, *y = b;
    if (x->process_id != y->process_id)
        return x->process_id < y->process_id ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->call_start_ns > y->call_start_ns) - (x->call_start_ns < y->call_start_ns);
}

/* The first op at or after (process_id, key, call_start_ns) in a sorted list. */
static size_t first_op(const struct op_list *list, int64_t process_id, int64_t key, int64_t call_start_ns)
{
    struct launched_op probe = {.process_id = process_id, .key = key, .call_start_ns = call_start_ns};
    size_t low = 0, high = list->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (compare_ops(&list->items[middle], &probe) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* The kernels, copies and memsets of process_id that carry a correlation id (query: its one
 * parameter is the process), sorted. */
static int read_gpu_ops(sqlite3 *db, sqlite3_stmt *query, int64_t process_id, struct op_list *ops,
                        error_info *err)
{
    sqlite3_bind_int64(query, 1, process_id);
    int status = 0;
    while (status == 0 && sqlite3_step(query) == SQLITE_ROW) {
        struct launched_op op = {.process_id = process_id,
                                 .key = sqlite3_column_int64(query, 0),
                                 .start_ns = sqlite3_column_int64(query, 1),
                                 .end_ns = sqlite3_column_int64(query, 2)};
        if (op_list_add(ops, op) != 0)
            status = error_set(err, "out of memory");
    }
    if (status == 0 && sqlite3_reset(query) != SQLITE_OK)
        status = error_set(err, "cannot map ranges to GPU time: %s", sqlite3_errmsg(db));
    sqlite3_reset(query);
    if (status == 0 && ops->count > 1) /* none: items is NULL, which qsort must not be given */
        qsort(ops->items, ops->count, sizeof *ops->items, compare_ops);
    return status;
}

/* Each call of process_id that launched GPU ops (query: its one parameter is the process), as one
 * launch keyed by its thread (the first start and last end of its ops), sorted by thread and call
 * start. */
static int read_launches(sqlite3 *db, sqlite3_stmt *query, int64_t process_id, const struct op_list *ops,
                         struct op_list *launches, error_info *err)
{
    sqlite3_bind_int64(query, 1, process_id);
    int status = 0;
    while (status == 0 && sqlite3_step(query) == SQLITE_ROW) {
        if (sqlite3_column_type(query, 0) == SQLITE_NULL)
            continue; /* a version 1 trace's call of no known thread: on no range's thread */
        int64_t correlation_id = sqlite3_column_int64(query, 2);
        struct launched_op launch = {.process_id = process_id,
                                     .key = sqlite3_column_int64(query, 0),
                                     .call_start_ns = sqlite3_column_int64(query, 1)};
        size_t i = first_op(ops, process_id, correlation_id, INT64_MIN);
        int found = 0;
        for (; i < ops->count && ops->items[i].key == correlation_id; i++) {
            if (!found || ops->items[i].start_ns < launch.start_ns)
                launch.start_ns = ops->items[i].start_ns;
            if (!found || ops->items[i].end_ns > launch.end_ns)
                launch.end_ns = ops->items[i].end_ns;
            found = 1;
        }
        if (found && op_list_add(launches, launch) != 0)
            status = error_set(err, "out of memory");
    }
    if (status == 0 && sqlite3_reset(query) != SQLITE_OK)
        status = error_set(err, "cannot map ranges to GPU time: %s", sqlite3_errmsg(db));
    sqlite3_reset(query);
    if (status == 0 && launches->count > 1)
        qsort(launches->items, launches->count, sizeof *launches->items, compare_ops);
    return status;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

size_t store_sort_distinct(int64_t *values, size_t count)
{
    if (count > 1)
        qsort(values, count, sizeof *values, compare_int64);
    size_t distinct = 0;
    for (size_t i = 0; i < count; i++)
        if (distinct == 0 || values[distinct - 1] != values[i])
            values[distinct++] = values[i];
    return distinct;
}

/* The distinct processes of the spans to map, sorted; *count 0 when none. */
static int64_t *span_processes(const struct store_launched_span *spans, size_t span_count, size_t *count)
{
    *count = 0;
    int64_t *processes = malloc((span_count ? span_count : 1) * sizeof *processes);
    if (!processes)
        return NULL;
    for (size_t i = 0; i < span_count; i++)
        if (spans[i].thread_id != STORE_NULL)
            processes[(*count)++] = spans[i].process_id;
    *count = store_sort_distinct(processes, *count);
    return processes;
}

/* The spans of process_id from its sorted launches. */
static void map_spans(struct store_launched_span *spans, size_t count, int64_t process_id,
                      const struct op_list *launches)
{
    for (size_t i = 0; i < count; i++) {
        struct store_launched_span *span = &spans[i];
        if (span->thread_id == STORE_NULL || span->process_id != process_id)
            continue;
        for (size_t k = first_op(launches, process_id, span->thread_id, span->host_start_ns);
             k < launches->count && launches->items[k].key == span->thread_id &&
             launches->items[k].call_start_ns < span->host_end_ns;
             k++) {
            if (!span->found || launches->items[k].start_ns < span->start_ns)
                span->start_ns = launches->items[k].start_ns;
            if (!span->found || launches->items[k].end_ns > span->end_ns)
                span->end_ns = launches->items[k].end_ns;
            span->found = 1;
        }
    }
}

/* The GPU ops' and the launches' queries, each of one process (?1), through the by-correlation
 * indexes: a process's rows, not the whole trace's (a worker maps one process's spans). A version 2
 * trace's calls are read from their runs: the view api_calls joins each row to its function, which
 * is not asked here. */
static int prepare_launch_queries(sqlite3 *db, sqlite3_stmt **ops, sqlite3_stmt **calls, error_info *err)
{
    const char *table = store_db_has_table(db, "api_call_runs") ? "api_call_runs" : "api_calls";
    char sql[192];
    snprintf(
        sql, sizeof sql,
        "SELECT thread_id, start_ns, correlation_id FROM %s WHERE process_id = ?1 AND correlation_id IS NOT "
        "NULL",
        table);
    *calls = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT correlation_id, start_ns, end_ns FROM kernels"
                           " WHERE process_id = ?1 AND correlation_id IS NOT NULL UNION ALL"
                           " SELECT correlation_id, start_ns, end_ns FROM memcpys"
                           " WHERE process_id = ?1 AND correlation_id IS NOT NULL UNION ALL"
                           " SELECT correlation_id, start_ns, end_ns FROM memsets"
                           " WHERE process_id = ?1 AND correlation_id IS NOT NULL",
                           -1, ops, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, sql, -1, calls, NULL) != SQLITE_OK) {
        error_set(err, "cannot map ranges to GPU time: %s", sqlite3_errmsg(db));
        sqlite3_finalize(*ops);
        *ops = NULL;
        return -1;
    }
    return 0;
}

int store_launched_work_times_in(sqlite3 *db, struct store_launched_span *spans, size_t count,
                                 struct store_launch_buffers *buffers, error_info *err)
{
    for (size_t i = 0; i < count; i++)
        spans[i].found = 0;
    size_t process_count = 0;
    int64_t *processes = span_processes(spans, count, &process_count);
    if (!processes)
        return error_set(err, "out of memory");
    sqlite3_stmt *ops_query = NULL, *calls_query = NULL;
    int status = process_count ? prepare_launch_queries(db, &ops_query, &calls_query, err) : 0;
    struct op_list ops = {buffers->ops, 0, buffers->ops_capacity},
                   launches = {buffers->launches, 0, buffers->launches_capacity};
    for (size_t p = 0; status == 0 && p < process_count; p++) {
        ops.count = launches.count = 0;
        status = read_gpu_ops(db, ops_query, processes[p], &ops, err);
        if (status == 0)
            status = read_launches(db, calls_query, processes[p], &ops, &launches, err);
        if (status == 0)
            map_spans(spans, count, processes[p], &launches);
    }
    sqlite3_finalize(ops_query);
    sqlite3_finalize(calls_query);
    *buffers = (struct store_launch_buffers){ops.items, launches.items, ops.capacity, launches.capacity};
    free(processes);
    return status;
}

int store_launched_work_times(sqlite3 *db, struct store_launched_span *spans, size_t count, error_info *err)
{
    struct store_launch_buffers buffers = {0};
    int status = store_launched_work_times_in(db, spans, count, &buffers, err);
    store_launch_buffers_free(&buffers);
    return status;
}

void store_launch_buffers_free(struct store_launch_buffers *buffers)
{
    free(buffers->ops);
    free(buffers->launches);
    *buffers = (struct store_launch_buffers){0};
}

int store_process_rank(sqlite3 *db, int64_t process_id, int64_t *rank)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, "SELECT rank FROM processes WHERE process_id = ?1", -1, &query, NULL) !=
        SQLITE_OK)
        return -1;
    sqlite3_bind_int64(query, 1, process_id);
    *rank = sqlite3_step(query) == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL
                ? sqlite3_column_int64(query, 0)
                : -1;
    sqlite3_finalize(query);
    return 0;
}
