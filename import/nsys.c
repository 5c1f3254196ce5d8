/* nsys.c: Nsight Systems SQLite exports into the store (see nsys.h).
 *
 * Table and column names are those of the Nsight Systems export schema ("SQLite Export Schema
 * Reference" in the nsys documentation). nsys creates tables lazily and adds columns between
 * versions, so every SELECT is built from the columns the file has: a missing optional column
 * reads as NULL. Enumerations (copyKind, srcKind, memKind, syncType) are CUPTI's, as in the store.
 * Owns: the pid-to-process map and the stream set, freed before returning. */
#include "nsys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "key_index.h"
#include "naming.h"
#include "nccl_kernel_name.h"
#include "stream_set.h"

/* CUPTI's "no stream / no event" (0xFFFFFFFF), as nsys exports it. */
#define NSYS_NO_ID 4294967295LL

/* NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE). */
enum { NSYS_NVTX_MARK = 34, NSYS_NVTX_PUSH_POP = 59, NSYS_NVTX_START_END = 60, NSYS_NVTX_DOMAIN_CREATE = 75 };

struct pid_entry {
    int64_t pid, process_id;
};

struct nsys_state {
    store *s;
    sqlite3 *db;
    const char *name;
    int64_t time_offset_ns; /* TARGET_INFO_SESSION_START_TIME.utcEpochNs: nsys times are session-relative */
    struct pid_entry *pids;
    size_t pid_count, pid_capacity;
    struct key_index pid_index; /* a hostile export can give every row a pid of its own */
    struct stream_set streams;
};

static int table_exists(sqlite3 *db, const char *table)
{
    sqlite3_stmt *query = NULL;
    int exists = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1,
                           &query, NULL) == SQLITE_OK) {
        sqlite3_bind_text(query, 1, table, -1, SQLITE_STATIC);
        exists = sqlite3_step(query) == SQLITE_ROW;
    }
    sqlite3_finalize(query);
    return exists;
}

static int column_exists(sqlite3 *db, const char *table, const char *column)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('%s') WHERE name = ?", table);
    sqlite3_stmt *query = NULL;
    int exists = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_text(query, 1, column, -1, SQLITE_STATIC);
        exists = sqlite3_step(query) == SQLITE_ROW;
    }
    sqlite3_finalize(query);
    return exists;
}

int nsys_is_export(sqlite3 *db)
{
    static const char *const activity_tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                                  "CUPTI_ACTIVITY_KIND_MEMCPY",
                                                  "CUPTI_ACTIVITY_KIND_MEMSET",
                                                  "CUPTI_ACTIVITY_KIND_RUNTIME",
                                                  "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                                  "NVTX_EVENTS",
                                                  "TARGET_INFO_GPU"};
    if (!table_exists(db, "StringIds"))
        return 0;
    for (size_t i = 0; i < sizeof activity_tables / sizeof activity_tables[0]; i++)
        if (table_exists(db, activity_tables[i]))
            return 1;
    return 0;
}

/* ",a,b,c," : the table's column names, for membership tests by strstr. Caller frees. */
static char *column_list(sqlite3 *db, const char *table)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT ',' || group_concat(name, ',') || ',' FROM pragma_table_info('%s')",
             table);
    sqlite3_stmt *query = NULL;
    char *list = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW &&
        sqlite3_column_text(query, 0))
        list = strdup((const char *)sqlite3_column_text(query, 0));
    sqlite3_finalize(query);
    return list ? list : strdup(",");
}

static int listed(const char *list, const char *column)
{
    size_t length = strlen(column);
    for (const char *p = strstr(list, column); p; p = strstr(p + 1, column))
        if (p[-1] == ',' && p[length] == ',')
            return 1;
    return 0;
}

/* "SELECT a, b, NULL, ... FROM table t": every wanted column the table lacks reads as NULL. An
 * entry starting with '=' is an expression used as written. Returns a malloc'd string. */
static char *build_select(sqlite3 *db, const char *table, const char *const *columns, size_t count,
                          const char *tail)
{
    char *existing = column_list(db, table);
    size_t size = 256 + strlen(tail);
    for (size_t i = 0; i < count; i++)
        size += strlen(columns[i]) + 8;
    char *sql = existing ? malloc(size) : NULL;
    if (!sql) {
        free(existing);
        return NULL;
    }
    size_t length = (size_t)snprintf(sql, size, "SELECT ");
    for (size_t i = 0; i < count; i++) {
        const char *column = columns[i], *separator = i ? ", " : "";
        if (column[0] == '=')
            length += (size_t)snprintf(sql + length, size - length, "%s%s", separator, column + 1);
        else if (listed(existing, column))
            length += (size_t)snprintf(sql + length, size - length, "%st.\"%s\"", separator, column);
        else
            length += (size_t)snprintf(sql + length, size - length, "%sNULL", separator);
    }
    snprintf(sql + length, size - length, " FROM \"%s\" t %s", table, tail);
    free(existing);
    return sql;
}

static int64_t column_or_null(sqlite3_stmt *row, int column)
{
    return sqlite3_column_type(row, column) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(row, column);
}

/* Session-relative to the host clock; STORE_NULL (then refused as missing) when out of range. */
static int64_t shifted(const struct nsys_state *state, int64_t time_ns)
{
    int64_t result;
    if (time_ns == STORE_NULL || __builtin_add_overflow(time_ns, state->time_offset_ns, &result))
        return STORE_NULL;
    return result;
}

struct pid_key {
    const struct nsys_state *state;
    int64_t pid;
};

static int pid_matches(const void *context, size_t position)
{
    const struct pid_key *key = context;
    return key->state->pids[position].pid == key->pid;
}

/* The store's process for an OS pid, inserted on first sight. 0 when out of memory. */
static int64_t process_for_pid(struct nsys_state *state, int64_t pid, error_info *err)
{
    struct pid_key key = {state, pid};
    uint64_t hash = key_index_hash(pid, 0, 0, 0);
    long found = key_index_find(&state->pid_index, hash, pid_matches, &key);
    if (found >= 0)
        return state->pids[found].process_id;
    if (state->pid_count == state->pid_capacity) {
        size_t capacity = state->pid_capacity ? state->pid_capacity * 2 : 8;
        struct pid_entry *grown = realloc(state->pids, capacity * sizeof *grown);
        if (!grown) {
            error_set(err, "%s: out of memory", state->name);
            return 0;
        }
        state->pids = grown;
        state->pid_capacity = capacity;
    }
    struct store_process process = {.pid = pid,
                                    .parent_pid = STORE_NULL,
                                    .rank = STORE_NULL,
                                    .local_rank = STORE_NULL,
                                    .world_size = STORE_NULL,
                                    .start_ns = STORE_NULL,
                                    .end_ns = STORE_NULL,
                                    .exit_status = STORE_NULL,
                                    .term_signal = STORE_NULL,
                                    .dropped_records = 0,
                                    .source_file = state->name};
    if (store_insert_process(state->s, &process, err) != 0)
        return 0;
    if (key_index_add(&state->pid_index, hash, state->pid_count) != 0) {
        error_set(err, "%s: out of memory", state->name);
        return 0;
    }
    state->pids[state->pid_count++] = (struct pid_entry){pid, process.process_id};
    return process.process_id;
}

/* globalPid / globalTid: (hostId << 48) | (pid << 24) | tid ("Serialized process and thread
 * identifiers" in the nsys export documentation). */
static int64_t pid_of_global(int64_t global_id)
{
    return global_id == STORE_NULL ? 0 : (global_id >> 24) & 0xFFFFFF;
}

static int64_t tid_of_global(int64_t global_id)
{
    return global_id == STORE_NULL ? 0 : global_id & 0xFFFFFF;
}

static int64_t id_or_null(int64_t id)
{
    return id == NSYS_NO_ID || id < 0 ? STORE_NULL : id;
}

typedef int (*row_handler)(struct nsys_state *state, sqlite3_stmt *row, error_info *err);

/* Runs the SELECT for table (skipped when nsys did not create it) and hands each row over. */
static int for_each_row(struct nsys_state *state, const char *table, const char *const *columns, size_t count,
                        const char *tail, row_handler handle, error_info *err)
{
    if (!table_exists(state->db, table))
        return 0;
    char *sql = build_select(state->db, table, columns, count, tail);
    if (!sql)
        return error_set(err, "%s: out of memory", state->name);
    sqlite3_stmt *row = NULL;
    int rc = sqlite3_prepare_v2(state->db, sql, -1, &row, NULL);
    free(sql);
    if (rc != SQLITE_OK)
        return error_set(err, "%s: cannot read %s: %s", state->name, table, sqlite3_errmsg(state->db));
    int status = 0;
    while (status == 0 && (rc = sqlite3_step(row)) == SQLITE_ROW)
        status = handle(state, row, err);
    if (status == 0 && rc != SQLITE_DONE)
        status = error_set(err, "%s: cannot read %s: %s", state->name, table, sqlite3_errmsg(state->db));
    sqlite3_finalize(row);
    return status;
}

/* Demangled name when exported, else the short or mangled one. */
static const char *kernel_name_expression(sqlite3 *db, char *buffer, size_t size)
{
    static const char *const candidates[] = {"demangledName", "shortName", "mangledName"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (column_exists(db, "CUPTI_ACTIVITY_KIND_KERNEL", candidates[i])) {
            snprintf(buffer, size, "=(SELECT value FROM StringIds WHERE id = t.\"%s\")", candidates[i]);
            return buffer;
        }
    }
    return "=NULL";
}

enum kernel_column {
    K_START,
    K_END,
    K_DEVICE,
    K_CONTEXT,
    K_STREAM,
    K_CORRELATION,
    K_PID,
    K_GRID_X,
    K_GRID_Y,
    K_GRID_Z,
    K_BLOCK_X,
    K_BLOCK_Y,
    K_BLOCK_Z,
    K_CLUSTER_X,
    K_CLUSTER_Y,
    K_CLUSTER_Z,
    K_REGISTERS,
    K_STATIC_SHARED,
    K_DYNAMIC_SHARED,
    K_LOCAL_THREAD,
    K_LOCAL_TOTAL,
    K_SHARED_EXECUTED,
    K_LAUNCH_TYPE,
    K_GRAPH,
    K_GRAPH_NODE,
    K_CHANNEL,
    K_CHANNEL_TYPE,
    K_NAME,
    K_COUNT
};

static int import_kernel_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id = process_for_pid(state, pid_of_global(column_or_null(row, K_PID)), err);
    if (!process_id)
        return -1;
    const unsigned char *name = sqlite3_column_text(row, K_NAME);
    struct store_kernel kernel = {.process_id = process_id,
                                  .device_id = column_or_null(row, K_DEVICE),
                                  .context_id = column_or_null(row, K_CONTEXT),
                                  .stream_id = column_or_null(row, K_STREAM),
                                  .correlation_id = column_or_null(row, K_CORRELATION),
                                  .start_ns = shifted(state, column_or_null(row, K_START)),
                                  .end_ns = shifted(state, column_or_null(row, K_END)),
                                  .queued_ns = STORE_NULL,
                                  .submitted_ns = STORE_NULL,
                                  .grid_x = column_or_null(row, K_GRID_X),
                                  .grid_y = column_or_null(row, K_GRID_Y),
                                  .grid_z = column_or_null(row, K_GRID_Z),
                                  .block_x = column_or_null(row, K_BLOCK_X),
                                  .block_y = column_or_null(row, K_BLOCK_Y),
                                  .block_z = column_or_null(row, K_BLOCK_Z),
                                  .cluster_x = column_or_null(row, K_CLUSTER_X),
                                  .cluster_y = column_or_null(row, K_CLUSTER_Y),
                                  .cluster_z = column_or_null(row, K_CLUSTER_Z),
                                  .registers_per_thread = column_or_null(row, K_REGISTERS),
                                  .static_shared_bytes = column_or_null(row, K_STATIC_SHARED),
                                  .dynamic_shared_bytes = column_or_null(row, K_DYNAMIC_SHARED),
                                  .local_memory_per_thread_bytes = column_or_null(row, K_LOCAL_THREAD),
                                  .local_memory_total_bytes = column_or_null(row, K_LOCAL_TOTAL),
                                  .shared_memory_executed_bytes = column_or_null(row, K_SHARED_EXECUTED),
                                  .shared_memory_config = STORE_NULL,
                                  .launch_type = column_or_null(row, K_LAUNCH_TYPE),
                                  .is_device_launched = STORE_NULL,
                                  .graph_id = column_or_null(row, K_GRAPH),
                                  .graph_node_id = column_or_null(row, K_GRAPH_NODE),
                                  .channel_id = column_or_null(row, K_CHANNEL),
                                  .channel_type = column_or_null(row, K_CHANNEL_TYPE),
                                  .priority = STORE_NULL,
                                  .name = name ? (const char *)name : "(unnamed kernel)"};
    if (kernel.device_id == STORE_NULL || kernel.stream_id == STORE_NULL || kernel.start_ns == STORE_NULL ||
        kernel.end_ns == STORE_NULL)
        return error_set(err,
                         "%s: CUPTI_ACTIVITY_KIND_KERNEL: a row without start, end, deviceId or streamId",
                         state->name);
    int64_t rowid = 0;
    if (store_insert_kernel(state->s, &kernel, &rowid, err) != 0)
        return -1;
    struct nccl_kernel_info from_name;
    int is_nccl = nccl_kernel_name_parse(kernel.name, &from_name);
    if (stream_set_note(&state->streams, process_id, kernel.device_id, kernel.context_id, kernel.stream_id,
                        is_nccl ? ANALYSIS_COMMUNICATION : ANALYSIS_COMPUTE, kernel.start_ns,
                        kernel.end_ns) != 0)
        return error_set(err, "%s: out of memory", state->name);
    if (!is_nccl)
        return 0;
    struct store_collective collective = {.process_id = process_id,
                                          .device_id = kernel.device_id,
                                          .stream_id = kernel.stream_id,
                                          .op = from_name.op,
                                          .bytes = STORE_NULL,
                                          .element_count = STORE_NULL,
                                          .dtype = from_name.dtype,
                                          .root = STORE_NULL,
                                          .algorithm = from_name.algorithm,
                                          .protocol = from_name.protocol,
                                          .rank = STORE_NULL,
                                          .nranks = STORE_NULL,
                                          .sequence_number = STORE_NULL,
                                          .kernel_rowid = rowid,
                                          .start_ns = kernel.start_ns,
                                          .end_ns = kernel.end_ns,
                                          .detail_source = STORE_DETAIL_KERNEL_NAME};
    return store_insert_collective(state->s, &collective, err);
}

static int import_kernels(struct nsys_state *state, error_info *err)
{
    char name_expression[128];
    const char *const columns[K_COUNT] = {
        "start",
        "end",
        "deviceId",
        "contextId",
        "streamId",
        "correlationId",
        "globalPid",
        "gridX",
        "gridY",
        "gridZ",
        "blockX",
        "blockY",
        "blockZ",
        "clusterX",
        "clusterY",
        "clusterZ",
        "registersPerThread",
        "staticSharedMemory",
        "dynamicSharedMemory",
        "localMemoryPerThread",
        "localMemoryTotal",
        "sharedMemoryExecuted",
        "launchType",
        "graphId",
        "graphNodeId",
        "channelId",
        "channelType",
        kernel_name_expression(state->db, name_expression, sizeof name_expression)};
    return for_each_row(state, "CUPTI_ACTIVITY_KIND_KERNEL", columns, K_COUNT, "ORDER BY t.start",
                        import_kernel_row, err);
}

enum copy_column {
    C_START,
    C_END,
    C_DEVICE,
    C_CONTEXT,
    C_STREAM,
    C_CORRELATION,
    C_PID,
    C_BYTES,
    C_COPY_KIND,
    C_SRC_KIND,
    C_DST_KIND,
    C_SRC_DEVICE,
    C_DST_DEVICE,
    C_GRAPH_NODE,
    C_COUNT
};

static int import_memcpy_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id = process_for_pid(state, pid_of_global(column_or_null(row, C_PID)), err);
    if (!process_id)
        return -1;
    int64_t copy_kind = column_or_null(row, C_COPY_KIND), bytes = column_or_null(row, C_BYTES);
    struct store_memcpy copy = {.process_id = process_id,
                                .device_id = column_or_null(row, C_DEVICE),
                                .context_id = column_or_null(row, C_CONTEXT),
                                .stream_id = column_or_null(row, C_STREAM),
                                .correlation_id = column_or_null(row, C_CORRELATION),
                                .start_ns = shifted(state, column_or_null(row, C_START)),
                                .end_ns = shifted(state, column_or_null(row, C_END)),
                                .copy_kind = copy_kind == STORE_NULL ? STORE_COPY_UNKNOWN : copy_kind,
                                .src_kind = column_or_null(row, C_SRC_KIND),
                                .dst_kind = column_or_null(row, C_DST_KIND),
                                .bytes = bytes == STORE_NULL ? 0 : bytes,
                                .src_device_id = column_or_null(row, C_SRC_DEVICE),
                                .dst_device_id = column_or_null(row, C_DST_DEVICE),
                                .is_async = STORE_NULL,
                                .channel_id = STORE_NULL,
                                .channel_type = STORE_NULL,
                                .copy_count = 1,
                                .graph_id = STORE_NULL,
                                .graph_node_id = column_or_null(row, C_GRAPH_NODE)};
    if (copy.device_id == STORE_NULL || copy.stream_id == STORE_NULL || copy.start_ns == STORE_NULL ||
        copy.end_ns == STORE_NULL)
        return error_set(err,
                         "%s: CUPTI_ACTIVITY_KIND_MEMCPY: a row without start, end, deviceId or streamId",
                         state->name);
    if (stream_set_note(&state->streams, process_id, copy.device_id, copy.context_id, copy.stream_id,
                        naming_copy_category(copy.copy_kind, copy.src_device_id, copy.dst_device_id),
                        copy.start_ns, copy.end_ns) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return store_insert_memcpy(state->s, &copy, err);
}

static int import_memcpys(struct nsys_state *state, error_info *err)
{
    static const char *const columns[C_COUNT] = {
        "start", "end",      "deviceId", "contextId", "streamId",    "correlationId", "globalPid",
        "bytes", "copyKind", "srcKind",  "dstKind",   "srcDeviceId", "dstDeviceId",   "graphNodeId"};
    return for_each_row(state, "CUPTI_ACTIVITY_KIND_MEMCPY", columns, C_COUNT, "ORDER BY t.start",
                        import_memcpy_row, err);
}

enum memset_column {
    S_START,
    S_END,
    S_DEVICE,
    S_CONTEXT,
    S_STREAM,
    S_CORRELATION,
    S_PID,
    S_VALUE,
    S_BYTES,
    S_MEM_KIND,
    S_GRAPH_NODE,
    S_COUNT
};

static int import_memset_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id = process_for_pid(state, pid_of_global(column_or_null(row, S_PID)), err);
    if (!process_id)
        return -1;
    int64_t bytes = column_or_null(row, S_BYTES);
    struct store_memset set = {.process_id = process_id,
                               .device_id = column_or_null(row, S_DEVICE),
                               .context_id = column_or_null(row, S_CONTEXT),
                               .stream_id = column_or_null(row, S_STREAM),
                               .correlation_id = column_or_null(row, S_CORRELATION),
                               .start_ns = shifted(state, column_or_null(row, S_START)),
                               .end_ns = shifted(state, column_or_null(row, S_END)),
                               .value = column_or_null(row, S_VALUE),
                               .bytes = bytes == STORE_NULL ? 0 : bytes,
                               .memory_kind = column_or_null(row, S_MEM_KIND),
                               .is_async = STORE_NULL,
                               .channel_id = STORE_NULL,
                               .channel_type = STORE_NULL,
                               .graph_id = STORE_NULL,
                               .graph_node_id = column_or_null(row, S_GRAPH_NODE)};
    if (set.device_id == STORE_NULL || set.stream_id == STORE_NULL || set.start_ns == STORE_NULL ||
        set.end_ns == STORE_NULL)
        return error_set(err,
                         "%s: CUPTI_ACTIVITY_KIND_MEMSET: a row without start, end, deviceId or streamId",
                         state->name);
    if (stream_set_note(&state->streams, process_id, set.device_id, set.context_id, set.stream_id,
                        ANALYSIS_MEMSET, set.start_ns, set.end_ns) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return store_insert_memset(state->s, &set, err);
}

static int import_memsets(struct nsys_state *state, error_info *err)
{
    static const char *const columns[S_COUNT] = {"start",    "end",           "deviceId",   "contextId",
                                                 "streamId", "correlationId", "globalPid",  "value",
                                                 "bytes",    "memKind",       "graphNodeId"};
    return for_each_row(state, "CUPTI_ACTIVITY_KIND_MEMSET", columns, S_COUNT, "ORDER BY t.start",
                        import_memset_row, err);
}

enum sync_column { Y_START, Y_END, Y_CONTEXT, Y_STREAM, Y_CORRELATION, Y_PID, Y_TYPE, Y_EVENT, Y_COUNT };

static int import_sync_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id = process_for_pid(state, pid_of_global(column_or_null(row, Y_PID)), err);
    if (!process_id)
        return -1;
    int64_t type = column_or_null(row, Y_TYPE);
    struct store_synchronization sync = {
        .process_id = process_id,
        .context_id = column_or_null(row, Y_CONTEXT),
        .stream_id = id_or_null(column_or_null(row, Y_STREAM)),
        .event_id = id_or_null(column_or_null(row, Y_EVENT)),
        .sync_type = type == STORE_NULL || type < 0 || type > 4 ? STORE_SYNC_UNKNOWN : type,
        .correlation_id = column_or_null(row, Y_CORRELATION),
        .start_ns = shifted(state, column_or_null(row, Y_START)),
        .end_ns = shifted(state, column_or_null(row, Y_END))};
    if (sync.start_ns == STORE_NULL || sync.end_ns == STORE_NULL)
        return error_set(err, "%s: CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: a row without start or end",
                         state->name);
    return store_insert_synchronization(state->s, &sync, err);
}

static int import_syncs(struct nsys_state *state, error_info *err)
{
    static const char *const columns[Y_COUNT] = {"start",         "end",       "contextId", "streamId",
                                                 "correlationId", "globalPid", "syncType",  "eventId"};
    return for_each_row(state, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", columns, Y_COUNT, "ORDER BY t.start",
                        import_sync_row, err);
}

enum api_column { A_START, A_END, A_TID, A_CORRELATION, A_RETURN, A_CALLBACK, A_NAME, A_COUNT };

static int import_api_row(struct nsys_state *state, sqlite3_stmt *row, int64_t api_domain, const char *table,
                          error_info *err)
{
    int64_t global_tid = column_or_null(row, A_TID);
    int64_t process_id = process_for_pid(state, pid_of_global(global_tid), err);
    if (!process_id)
        return -1;
    const unsigned char *name = sqlite3_column_text(row, A_NAME);
    struct store_api_call call = {.process_id = process_id,
                                  .thread_id = tid_of_global(global_tid),
                                  .api_domain = api_domain,
                                  .callback_id = column_or_null(row, A_CALLBACK),
                                  .correlation_id = column_or_null(row, A_CORRELATION),
                                  .start_ns = shifted(state, column_or_null(row, A_START)),
                                  .end_ns = shifted(state, column_or_null(row, A_END)),
                                  .return_value = column_or_null(row, A_RETURN),
                                  .name = name ? (const char *)name : "(unnamed call)"};
    if (call.start_ns == STORE_NULL || call.end_ns == STORE_NULL)
        return error_set(err, "%s: %s: a row without start or end", state->name, table);
    return store_insert_api_call(state->s, &call, err);
}

static int import_runtime_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    return import_api_row(state, row, STORE_API_RUNTIME, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
}

static int import_driver_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    return import_api_row(state, row, STORE_API_DRIVER, "CUPTI_ACTIVITY_KIND_DRIVER", err);
}

static int import_api_calls(struct nsys_state *state, error_info *err)
{
    static const char *const columns[A_COUNT] = {"start",
                                                 "end",
                                                 "globalTid",
                                                 "correlationId",
                                                 "returnValue",
                                                 "callbackId",
                                                 "=(SELECT value FROM StringIds WHERE id = t.nameId)"};
    if (table_exists(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME") &&
        !column_exists(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME", "nameId"))
        return error_set(err, "%s: CUPTI_ACTIVITY_KIND_RUNTIME has no nameId column", state->name);
    if (for_each_row(state, "CUPTI_ACTIVITY_KIND_RUNTIME", columns, A_COUNT, "ORDER BY t.start",
                     import_runtime_row, err) != 0)
        return -1;
    if (table_exists(state->db, "CUPTI_ACTIVITY_KIND_DRIVER") &&
        !column_exists(state->db, "CUPTI_ACTIVITY_KIND_DRIVER", "nameId"))
        return error_set(err, "%s: CUPTI_ACTIVITY_KIND_DRIVER has no nameId column", state->name);
    return for_each_row(state, "CUPTI_ACTIVITY_KIND_DRIVER", columns, A_COUNT, "ORDER BY t.start",
                        import_driver_row, err);
}

enum nvtx_column { N_START, N_END, N_TYPE, N_TID, N_CATEGORY, N_COLOR, N_TEXT, N_DOMAIN, N_COUNT };

static int import_nvtx_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t type = column_or_null(row, N_TYPE);
    int64_t kind = type == NSYS_NVTX_PUSH_POP    ? STORE_NVTX_PUSH_POP
                   : type == NSYS_NVTX_START_END ? STORE_NVTX_START_END
                   : type == NSYS_NVTX_MARK      ? STORE_NVTX_MARK
                                                 : 0;
    const unsigned char *text = sqlite3_column_text(row, N_TEXT);
    if (!kind || !text)
        return 0; /* domain and category registrations, payload-only ranges */
    int64_t global_tid = column_or_null(row, N_TID);
    int64_t process_id = process_for_pid(state, pid_of_global(global_tid), err);
    if (!process_id)
        return -1;
    const unsigned char *domain = sqlite3_column_text(row, N_DOMAIN);
    struct store_nvtx range = {.process_id = process_id,
                               .thread_id = tid_of_global(global_tid),
                               .device_id = STORE_NULL,
                               .stream_id = STORE_NULL,
                               .kind = kind,
                               .domain = domain ? (const char *)domain : NULL,
                               .message = (const char *)text,
                               .category = column_or_null(row, N_CATEGORY),
                               .color = column_or_null(row, N_COLOR),
                               .start_ns = shifted(state, column_or_null(row, N_START)),
                               .end_ns = shifted(state, column_or_null(row, N_END)),
                               .depth = STORE_NULL};
    if (range.start_ns == STORE_NULL)
        return error_set(err, "%s: NVTX_EVENTS: a row without start", state->name);
    if (range.end_ns == STORE_NULL || kind == STORE_NVTX_MARK)
        range.end_ns = range.start_ns; /* a mark, or a range never closed */
    return store_insert_nvtx(state->s, &range, err);
}

/* Domain names are the text of the domain's NvtxDomainCreate row (the first one, as the export
 * lists them). Looked up per row in the export itself that was a scan of NVTX_EVENTS per row,
 * quadratic (40k rows in a named domain took 48 s): they are gathered once into an indexed
 * temporary table, dropped again by drop_nvtx_domains. */
static int load_nvtx_domains(struct nsys_state *state, error_info *err)
{
    char sql[400];
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS temp.overlapscope_nvtx_domains;"
             "CREATE TEMP TABLE overlapscope_nvtx_domains (id INTEGER UNIQUE, text TEXT);"
             "INSERT OR IGNORE INTO temp.overlapscope_nvtx_domains SELECT domainId, text FROM NVTX_EVENTS"
             " WHERE eventType = %d AND domainId != 0",
             NSYS_NVTX_DOMAIN_CREATE);
    if (sqlite3_exec(state->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return error_set(err, "%s: cannot read the NVTX domains: %s", state->name, sqlite3_errmsg(state->db));
    return 0;
}

static void drop_nvtx_domains(struct nsys_state *state)
{
    sqlite3_exec(state->db, "DROP TABLE IF EXISTS temp.overlapscope_nvtx_domains", NULL, NULL, NULL);
}

static int import_nvtx(struct nsys_state *state, error_info *err)
{
    if (!table_exists(state->db, "NVTX_EVENTS"))
        return 0;
    char text_expression[160];
    const char *domain_expression = "=NULL";
    int has_text = column_exists(state->db, "NVTX_EVENTS", "text");
    int has_text_id = column_exists(state->db, "NVTX_EVENTS", "textId");
    snprintf(text_expression, sizeof text_expression, "=COALESCE(%s, %s)", has_text ? "t.text" : "NULL",
             has_text_id ? "(SELECT value FROM StringIds WHERE id = t.textId)" : "NULL");
    int has_domains = has_text && column_exists(state->db, "NVTX_EVENTS", "domainId");
    if (has_domains) {
        if (load_nvtx_domains(state, err) != 0)
            return -1;
        domain_expression = "=(SELECT d.text FROM temp.overlapscope_nvtx_domains d WHERE d.id = t.domainId)";
    }
    const char *const columns[N_COUNT] = {"start",    "end",   "eventType",     "globalTid",
                                          "category", "color", text_expression, domain_expression};
    int status =
        for_each_row(state, "NVTX_EVENTS", columns, N_COUNT, "ORDER BY t.start", import_nvtx_row, err);
    if (has_domains)
        drop_nvtx_domains(state);
    return status;
}

enum gpu_column {
    G_CUDA_ID,
    G_PID,
    G_NAME,
    G_UUID,
    G_SM_COUNT,
    G_MAJOR,
    G_MINOR,
    G_BLOCKS_PER_SM,
    G_WARPS_PER_SM,
    G_THREADS_PER_BLOCK,
    G_REGISTERS_PER_SM,
    G_REGISTERS_PER_BLOCK,
    G_SHARED_PER_SM,
    G_SHARED_PER_BLOCK,
    G_SHARED_OPTIN,
    G_MEMORY,
    G_BANDWIDTH,
    G_L2,
    G_CLOCK,
    G_ENGINES,
    G_WARP_SIZE,
    G_COUNT
};

static int64_t divided(int64_t value, int64_t divisor)
{
    return value == STORE_NULL ? STORE_NULL : value / divisor;
}

static int import_device_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t pid = column_or_null(row, G_PID);
    int64_t process_id = pid == STORE_NULL ? (state->pid_count ? state->pids[0].process_id : 0)
                                           : process_for_pid(state, pid, err);
    if (!process_id)
        return pid == STORE_NULL ? 0 : -1;
    int64_t warps = column_or_null(row, G_WARPS_PER_SM), warp_size = column_or_null(row, G_WARP_SIZE);
    int64_t threads_per_sm = STORE_NULL;
    if (warps != STORE_NULL && warp_size != STORE_NULL &&
        __builtin_mul_overflow(warps, warp_size, &threads_per_sm))
        threads_per_sm = STORE_NULL;
    const unsigned char *name = sqlite3_column_text(row, G_NAME), *uuid = sqlite3_column_text(row, G_UUID);
    struct store_device device = {.process_id = process_id,
                                  .device_id = column_or_null(row, G_CUDA_ID),
                                  .name = (const char *)name,
                                  .uuid = (const char *)uuid,
                                  .pci_bus_id = STORE_NULL,
                                  .sm_count = column_or_null(row, G_SM_COUNT),
                                  .compute_capability_major = column_or_null(row, G_MAJOR),
                                  .compute_capability_minor = column_or_null(row, G_MINOR),
                                  .max_blocks_per_sm = column_or_null(row, G_BLOCKS_PER_SM),
                                  .max_warps_per_sm = warps,
                                  .max_threads_per_sm = threads_per_sm,
                                  .max_threads_per_block = column_or_null(row, G_THREADS_PER_BLOCK),
                                  .max_registers_per_sm = column_or_null(row, G_REGISTERS_PER_SM),
                                  .max_registers_per_block = column_or_null(row, G_REGISTERS_PER_BLOCK),
                                  .max_shared_memory_per_sm = column_or_null(row, G_SHARED_PER_SM),
                                  .max_shared_memory_per_block = column_or_null(row, G_SHARED_PER_BLOCK),
                                  .max_shared_memory_per_block_optin = column_or_null(row, G_SHARED_OPTIN),
                                  .global_memory_bytes = column_or_null(row, G_MEMORY),
                                  .global_memory_bandwidth_kbps =
                                      divided(column_or_null(row, G_BANDWIDTH), 1000), /* B/s */
                                  .l2_cache_bytes = column_or_null(row, G_L2),
                                  .core_clock_khz = divided(column_or_null(row, G_CLOCK), 1000), /* Hz */
                                  .copy_engine_count = column_or_null(row, G_ENGINES),
                                  .warp_size = warp_size};
    if (device.device_id == STORE_NULL)
        return 0;
    return store_insert_device(state->s, &device, err);
}

/* TARGET_INFO_CUDA_DEVICE says which GPU (gpuId) each process saw as which CUDA ordinal (cudaId);
 * without it every GPU is given to every process under its own id. */
static int import_devices(struct nsys_state *state, error_info *err)
{
    static const char *const limits[] = {"name",
                                         "uuid",
                                         "smCount",
                                         "computeMajor",
                                         "computeMinor",
                                         "maxBlocksPerSm",
                                         "maxWarpsPerSm",
                                         "maxThreadsPerBlock",
                                         "maxRegistersPerSm",
                                         "maxRegistersPerBlock",
                                         "maxShmemPerSm",
                                         "maxShmemPerBlock",
                                         "maxShmemPerBlockOptin",
                                         "totalMemory",
                                         "memoryBandwidth",
                                         "l2CacheSize",
                                         "clockRate",
                                         "asyncEngines",
                                         "threadsPerWarp"};
    if (!table_exists(state->db, "TARGET_INFO_GPU") || !column_exists(state->db, "TARGET_INFO_GPU", "id"))
        return 0;
    int mapped = table_exists(state->db, "TARGET_INFO_CUDA_DEVICE") &&
                 column_exists(state->db, "TARGET_INFO_CUDA_DEVICE", "gpuId") &&
                 column_exists(state->db, "TARGET_INFO_CUDA_DEVICE", "cudaId") &&
                 column_exists(state->db, "TARGET_INFO_CUDA_DEVICE", "pid");
    const char *columns[G_COUNT];
    columns[G_CUDA_ID] = mapped ? "=m.cudaId" : "id";
    columns[G_PID] = mapped ? "=m.pid" : "=NULL";
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        columns[G_NAME + i] = limits[i];
    if (mapped)
        return for_each_row(state, "TARGET_INFO_GPU", columns, G_COUNT,
                            "JOIN TARGET_INFO_CUDA_DEVICE m ON m.gpuId = t.id ORDER BY m.pid, m.cudaId",
                            import_device_row, err);
    /* Unmapped: one copy per process already seen. */
    size_t processes = state->pid_count;
    for (size_t p = 0; p < processes; p++) {
        struct pid_entry first = state->pids[0];
        state->pids[0] = state->pids[p];
        int status =
            for_each_row(state, "TARGET_INFO_GPU", columns, G_COUNT, "ORDER BY t.id", import_device_row, err);
        state->pids[p] = state->pids[0];
        state->pids[0] = first;
        if (status != 0)
            return -1;
    }
    return 0;
}

static void read_session_start(struct nsys_state *state)
{
    if (!table_exists(state->db, "TARGET_INFO_SESSION_START_TIME") ||
        !column_exists(state->db, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs"))
        return;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(state->db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", -1,
                           &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        state->time_offset_ns = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
}

static int refuse_foreign(sqlite3 *db, const char *name, error_info *err)
{
    if (table_exists(db, "meta") && column_exists(db, "meta", "key") && table_exists(db, "kernels"))
        return error_set(
            err, "%s: already an overlapscope trace (use 'overlapscope merge' to combine traces)", name);
    return error_set(
        err,
        "%s: an SQLite database but not an Nsight Systems export (no StringIds and CUPTI_ACTIVITY_KIND_*"
        " / NVTX_EVENTS tables; make one with 'nsys export --type sqlite')",
        name);
}

int nsys_import_db(store *s, sqlite3 *db, const char *name, error_info *err)
{
    sqlite3_stmt *probe = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master", -1, &probe, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(probe);
    sqlite3_finalize(probe);
    if (rc != SQLITE_ROW)
        return error_set(err, "%s: cannot read the SQLite database: %s", name, sqlite3_errmsg(db));
    if (!nsys_is_export(db))
        return refuse_foreign(db, name, err);
    /* A view in place of a table the import reads could run forever (issue 20, reproduction 12). */
    static const char *const read_tables[] = {"StringIds",
                                              "CUPTI_ACTIVITY_KIND_KERNEL",
                                              "CUPTI_ACTIVITY_KIND_MEMCPY",
                                              "CUPTI_ACTIVITY_KIND_MEMSET",
                                              "CUPTI_ACTIVITY_KIND_RUNTIME",
                                              "CUPTI_ACTIVITY_KIND_DRIVER",
                                              "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                              "NVTX_EVENTS",
                                              "TARGET_INFO_GPU",
                                              "TARGET_INFO_CUDA_DEVICE",
                                              "TARGET_INFO_SESSION_START_TIME",
                                              "ENUM_NSYS_EVENT_TYPE",
                                              NULL};
    if (store_check_real_tables(db, name, read_tables, "Nsight Systems export", err) != 0)
        return -1;
    struct nsys_state state = {.s = s, .db = db, .name = name};
    read_session_start(&state);
    int status = import_kernels(&state, err);
    if (status == 0)
        status = import_memcpys(&state, err);
    if (status == 0)
        status = import_memsets(&state, err);
    if (status == 0)
        status = import_syncs(&state, err);
    if (status == 0)
        status = import_api_calls(&state, err);
    if (status == 0)
        status = import_nvtx(&state, err);
    if (status == 0)
        status = import_devices(&state, err);
    if (status == 0)
        status = stream_set_write(&state.streams, s, err);
    stream_set_free(&state.streams);
    free(state.pids);
    key_index_free(&state.pid_index);
    return status;
}

int nsys_import_file(store *s, const char *path, error_info *err)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        error_set(err, "cannot open '%s': %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    struct stat info;
    struct store_work_limit limit;
    store_work_limit_install(db, &limit, stat(path, &info) == 0 ? (int64_t)info.st_size : 0);
    int status = nsys_import_db(s, db, path, err);
    if (status != 0)
        store_work_limit_error(&limit, path, err);
    sqlite3_close(db);
    return status;
}
