/* nsys_gpu.c: GPU activity of an Nsight Systems export (see nsys_parts.h): kernels, copies, memsets,
 * synchronizations and CUDA event records. Enumerations (copyKind, srcKind, memKind, syncType) are
 * CUPTI's, as in the store; ids nsys writes as 0xFFFFFFFF read as unknown. */
#include <stdio.h>
#include <string.h>

#include "cuda_api.h"
#include "naming.h"
#include "nccl_kernel_name.h"
#include "nsys_parts.h"

/* Every kernel, copy and memset: its stream's busy time, the count of GPU rows, where its context
 * lives. Returns 0 or -1 with err filled. */
static int note_gpu_row(struct nsys_state *state, int64_t process_id, int64_t device_id, int64_t context_id,
                        int64_t stream_id, enum analysis_category category, int64_t start_ns, int64_t end_ns,
                        error_info *err)
{
    state->gpu_rows++;
    if (stream_set_note(&state->streams, process_id, device_id, context_id, stream_id, category, start_ns,
                        end_ns) != 0 ||
        nsys_note_context(state, process_id, context_id, device_id) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return 0;
}

/* Demangled name when exported, else the short or mangled one. */
static const char *kernel_name_expression(sqlite3 *db, char *buffer, size_t size)
{
    static const char *const candidates[] = {"demangledName", "shortName", "mangledName"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (nsys_column_exists(db, "CUPTI_ACTIVITY_KIND_KERNEL", candidates[i])) {
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
    int64_t pid = nsys_pid_of_global(nsys_column_or_null(row, K_PID));
    int64_t process_id = nsys_process_for_pid(state, pid, err);
    if (!process_id)
        return -1;
    const unsigned char *name = sqlite3_column_text(row, K_NAME);
    struct store_kernel kernel = {.process_id = process_id,
                                  .device_id = nsys_column_or_null(row, K_DEVICE),
                                  .context_id = nsys_column_or_null(row, K_CONTEXT),
                                  .stream_id = nsys_column_or_null(row, K_STREAM),
                                  .correlation_id = nsys_column_or_null(row, K_CORRELATION),
                                  .start_ns = nsys_shifted(state, nsys_column_or_null(row, K_START)),
                                  .end_ns = nsys_shifted(state, nsys_column_or_null(row, K_END)),
                                  .queued_ns = STORE_NULL,
                                  .submitted_ns = STORE_NULL,
                                  .grid_x = nsys_column_or_null(row, K_GRID_X),
                                  .grid_y = nsys_column_or_null(row, K_GRID_Y),
                                  .grid_z = nsys_column_or_null(row, K_GRID_Z),
                                  .block_x = nsys_column_or_null(row, K_BLOCK_X),
                                  .block_y = nsys_column_or_null(row, K_BLOCK_Y),
                                  .block_z = nsys_column_or_null(row, K_BLOCK_Z),
                                  .cluster_x = nsys_column_or_null(row, K_CLUSTER_X),
                                  .cluster_y = nsys_column_or_null(row, K_CLUSTER_Y),
                                  .cluster_z = nsys_column_or_null(row, K_CLUSTER_Z),
                                  .registers_per_thread = nsys_column_or_null(row, K_REGISTERS),
                                  .static_shared_bytes = nsys_column_or_null(row, K_STATIC_SHARED),
                                  .dynamic_shared_bytes = nsys_column_or_null(row, K_DYNAMIC_SHARED),
                                  .local_memory_per_thread_bytes = nsys_column_or_null(row, K_LOCAL_THREAD),
                                  .local_memory_total_bytes = nsys_column_or_null(row, K_LOCAL_TOTAL),
                                  .shared_memory_executed_bytes = nsys_column_or_null(row, K_SHARED_EXECUTED),
                                  .shared_memory_config = STORE_NULL,
                                  .launch_type = nsys_column_or_null(row, K_LAUNCH_TYPE),
                                  .is_device_launched = STORE_NULL,
                                  .graph_id = nsys_column_or_null(row, K_GRAPH),
                                  .graph_node_id = nsys_column_or_null(row, K_GRAPH_NODE),
                                  .channel_id = nsys_column_or_null(row, K_CHANNEL),
                                  .channel_type = nsys_column_or_null(row, K_CHANNEL_TYPE),
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
    state->kernels_with_channel += kernel.channel_id != STORE_NULL;
    struct nccl_kernel_info from_name;
    int is_nccl = nccl_kernel_name_parse(kernel.name, &from_name);
    if (note_gpu_row(state, process_id, kernel.device_id, kernel.context_id, kernel.stream_id,
                     is_nccl ? ANALYSIS_COMMUNICATION : ANALYSIS_COMPUTE, kernel.start_ns, kernel.end_ns,
                     err) != 0)
        return -1;
    if (!is_nccl)
        return 0;
    int64_t bytes = nsys_nccl_bytes(state, pid, kernel.correlation_id);
    struct store_collective collective = {.process_id = process_id,
                                          .device_id = kernel.device_id,
                                          .stream_id = kernel.stream_id,
                                          .op = from_name.op,
                                          .bytes = bytes,
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
                                          .detail_source = bytes == STORE_NULL ? STORE_DETAIL_KERNEL_NAME
                                                                               : STORE_DETAIL_NVTX_PAYLOAD};
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
    return nsys_for_each_row(state, "CUPTI_ACTIVITY_KIND_KERNEL", columns, K_COUNT, "ORDER BY t.start",
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
    C_GRAPH,
    C_GRAPH_NODE,
    C_COPY_COUNT,
    C_COUNT
};

static int import_memcpy_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id =
        nsys_process_for_pid(state, nsys_pid_of_global(nsys_column_or_null(row, C_PID)), err);
    if (!process_id)
        return -1;
    int64_t copy_kind = nsys_column_or_null(row, C_COPY_KIND), bytes = nsys_column_or_null(row, C_BYTES);
    int64_t copy_count = nsys_column_or_null(row, C_COPY_COUNT); /* nsys 2025.5: copies folded into one row */
    struct store_memcpy copy = {.process_id = process_id,
                                .device_id = nsys_column_or_null(row, C_DEVICE),
                                .context_id = nsys_column_or_null(row, C_CONTEXT),
                                .stream_id = nsys_column_or_null(row, C_STREAM),
                                .correlation_id = nsys_column_or_null(row, C_CORRELATION),
                                .start_ns = nsys_shifted(state, nsys_column_or_null(row, C_START)),
                                .end_ns = nsys_shifted(state, nsys_column_or_null(row, C_END)),
                                .copy_kind = copy_kind == STORE_NULL ? STORE_COPY_UNKNOWN : copy_kind,
                                .src_kind = nsys_column_or_null(row, C_SRC_KIND),
                                .dst_kind = nsys_column_or_null(row, C_DST_KIND),
                                .bytes = bytes == STORE_NULL ? 0 : bytes,
                                .src_device_id = nsys_column_or_null(row, C_SRC_DEVICE),
                                .dst_device_id = nsys_column_or_null(row, C_DST_DEVICE),
                                .is_async = STORE_NULL,
                                .channel_id = STORE_NULL,
                                .channel_type = STORE_NULL,
                                .copy_count = copy_count > 0 ? copy_count : 1,
                                .graph_id = nsys_column_or_null(row, C_GRAPH),
                                .graph_node_id = nsys_column_or_null(row, C_GRAPH_NODE)};
    if (copy.device_id == STORE_NULL || copy.stream_id == STORE_NULL || copy.start_ns == STORE_NULL ||
        copy.end_ns == STORE_NULL)
        return error_set(err,
                         "%s: CUPTI_ACTIVITY_KIND_MEMCPY: a row without start, end, deviceId or streamId",
                         state->name);
    if (note_gpu_row(state, process_id, copy.device_id, copy.context_id, copy.stream_id,
                     naming_copy_category(copy.copy_kind, copy.src_device_id, copy.dst_device_id),
                     copy.start_ns, copy.end_ns, err) != 0)
        return -1;
    return store_insert_memcpy(state->s, &copy, err);
}

static int import_memcpys(struct nsys_state *state, error_info *err)
{
    static const char *const columns[C_COUNT] = {"start",       "end",           "deviceId",    "contextId",
                                                 "streamId",    "correlationId", "globalPid",   "bytes",
                                                 "copyKind",    "srcKind",       "dstKind",     "srcDeviceId",
                                                 "dstDeviceId", "graphId",       "graphNodeId", "copyCount"};
    return nsys_for_each_row(state, "CUPTI_ACTIVITY_KIND_MEMCPY", columns, C_COUNT, "ORDER BY t.start",
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
    S_GRAPH,
    S_GRAPH_NODE,
    S_COUNT
};

static int import_memset_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id =
        nsys_process_for_pid(state, nsys_pid_of_global(nsys_column_or_null(row, S_PID)), err);
    if (!process_id)
        return -1;
    int64_t bytes = nsys_column_or_null(row, S_BYTES);
    struct store_memset set = {.process_id = process_id,
                               .device_id = nsys_column_or_null(row, S_DEVICE),
                               .context_id = nsys_column_or_null(row, S_CONTEXT),
                               .stream_id = nsys_column_or_null(row, S_STREAM),
                               .correlation_id = nsys_column_or_null(row, S_CORRELATION),
                               .start_ns = nsys_shifted(state, nsys_column_or_null(row, S_START)),
                               .end_ns = nsys_shifted(state, nsys_column_or_null(row, S_END)),
                               .value = nsys_column_or_null(row, S_VALUE),
                               .bytes = bytes == STORE_NULL ? 0 : bytes,
                               .memory_kind = nsys_column_or_null(row, S_MEM_KIND),
                               .is_async = STORE_NULL,
                               .channel_id = STORE_NULL,
                               .channel_type = STORE_NULL,
                               .graph_id = nsys_column_or_null(row, S_GRAPH),
                               .graph_node_id = nsys_column_or_null(row, S_GRAPH_NODE)};
    if (set.device_id == STORE_NULL || set.stream_id == STORE_NULL || set.start_ns == STORE_NULL ||
        set.end_ns == STORE_NULL)
        return error_set(err,
                         "%s: CUPTI_ACTIVITY_KIND_MEMSET: a row without start, end, deviceId or streamId",
                         state->name);
    if (note_gpu_row(state, process_id, set.device_id, set.context_id, set.stream_id, ANALYSIS_MEMSET,
                     set.start_ns, set.end_ns, err) != 0)
        return -1;
    return store_insert_memset(state->s, &set, err);
}

static int import_memsets(struct nsys_state *state, error_info *err)
{
    static const char *const columns[S_COUNT] = {"start",    "end",           "deviceId",  "contextId",
                                                 "streamId", "correlationId", "globalPid", "value",
                                                 "bytes",    "memKind",       "graphId",   "graphNodeId"};
    return nsys_for_each_row(state, "CUPTI_ACTIVITY_KIND_MEMSET", columns, S_COUNT, "ORDER BY t.start",
                             import_memset_row, err);
}

enum sync_column {
    Y_START,
    Y_END,
    Y_CONTEXT,
    Y_STREAM,
    Y_CORRELATION,
    Y_PID,
    Y_TYPE,
    Y_EVENT,
    Y_CALL,
    Y_COUNT
};

static int import_sync_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id =
        nsys_process_for_pid(state, nsys_pid_of_global(nsys_column_or_null(row, Y_PID)), err);
    if (!process_id)
        return -1;
    int64_t type = nsys_column_or_null(row, Y_TYPE);
    /* The call that made the record says what it was: nsys 2024.5 exports cudaDeviceSynchronize's
     * records as event synchronizations (syncType 1); 2025.5 exports 4, CUPTI's value. */
    int call_type = cuda_api_sync_type((const char *)sqlite3_column_text(row, Y_CALL));
    struct store_synchronization sync = {.process_id = process_id,
                                         .context_id = nsys_column_or_null(row, Y_CONTEXT),
                                         .stream_id = nsys_id_or_null(nsys_column_or_null(row, Y_STREAM)),
                                         .event_id = nsys_id_or_null(nsys_column_or_null(row, Y_EVENT)),
                                         .sync_type = call_type ? call_type
                                                      : type == STORE_NULL || type < 0 || type > 4
                                                          ? STORE_SYNC_UNKNOWN
                                                          : type,
                                         .correlation_id = nsys_column_or_null(row, Y_CORRELATION),
                                         .start_ns = nsys_shifted(state, nsys_column_or_null(row, Y_START)),
                                         .end_ns = nsys_shifted(state, nsys_column_or_null(row, Y_END))};
    if (sync.start_ns == STORE_NULL || sync.end_ns == STORE_NULL)
        return error_set(err, "%s: CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: a row without start or end",
                         state->name);
    state->stream_waits += sync.sync_type == STORE_SYNC_STREAM_WAIT_EVENT;
    return store_insert_synchronization(state->s, &sync, err);
}

/* The runtime calls that make synchronization records, by process and correlation id, gathered
 * once into an indexed temporary table (a lookup per record in the export's own unindexed table
 * would be quadratic). Returns 1 when made, 0 when the export cannot say, -1 on failure. */
static int gather_sync_calls(struct nsys_state *state, error_info *err)
{
    static const char *const needed[] = {"globalTid", "correlationId", "nameId"};
    if (!nsys_table_exists(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
        return 0;
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!nsys_column_exists(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME", needed[i]))
            return 0;
    static const char *const sql =
        "DROP TABLE IF EXISTS temp.overlapscope_sync_calls;"
        "CREATE TEMP TABLE overlapscope_sync_calls (pid INTEGER, correlation INTEGER, name TEXT,"
        " PRIMARY KEY (pid, correlation));"
        "INSERT OR IGNORE INTO temp.overlapscope_sync_calls"
        " SELECT (r.globalTid >> 24) & 16777215, r.correlationId, s.value"
        " FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId"
        " WHERE s.value LIKE '%Synchronize%' OR s.value LIKE '%WaitEvent%'";
    return nsys_exec(state, sql, "the synchronizing calls", err) == 0 ? 1 : -1;
}

static int import_syncs(struct nsys_state *state, error_info *err)
{
    if (!nsys_table_exists(state->db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"))
        return 0;
    int calls = gather_sync_calls(state, err);
    if (calls < 0)
        return -1;
    const char *const columns[Y_COUNT] = {
        "start",
        "end",
        "contextId",
        "streamId",
        "correlationId",
        "globalPid",
        "syncType",
        "eventId",
        calls ? "=(SELECT c.name FROM temp.overlapscope_sync_calls c"
                " WHERE c.pid = (t.globalPid >> 24) & 16777215 AND c.correlation = t.correlationId)"
              : "=NULL"};
    int status = nsys_for_each_row(state, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", columns, Y_COUNT,
                                   "ORDER BY t.start", import_sync_row, err);
    if (calls)
        sqlite3_exec(state->db, "DROP TABLE IF EXISTS temp.overlapscope_sync_calls", NULL, NULL, NULL);
    return status;
}

enum event_column { E_DEVICE, E_CONTEXT, E_STREAM, E_CORRELATION, E_PID, E_EVENT, E_COUNT };

/* cudaEventRecord: which stream recorded which event, what the event-dependency cause pairs a
 * stream wait with (CUPTI_ACTIVITY_KIND_CUDA_EVENT; nsys records it with --cuda-event-trace). */
static int import_event_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id =
        nsys_process_for_pid(state, nsys_pid_of_global(nsys_column_or_null(row, E_PID)), err);
    if (!process_id)
        return -1;
    struct store_cuda_event event = {.process_id = process_id,
                                     .device_id = nsys_column_or_null(row, E_DEVICE),
                                     .context_id = nsys_column_or_null(row, E_CONTEXT),
                                     .stream_id = nsys_id_or_null(nsys_column_or_null(row, E_STREAM)),
                                     .event_id = nsys_id_or_null(nsys_column_or_null(row, E_EVENT)),
                                     .correlation_id = nsys_column_or_null(row, E_CORRELATION),
                                     .record_ns = STORE_NULL};
    if (event.event_id == STORE_NULL)
        return error_set(err, "%s: CUPTI_ACTIVITY_KIND_CUDA_EVENT: a row without eventId", state->name);
    state->event_records++;
    return store_insert_cuda_event(state->s, &event, err);
}

static int import_events(struct nsys_state *state, error_info *err)
{
    static const char *const columns[E_COUNT] = {"deviceId",      "contextId", "streamId",
                                                 "correlationId", "globalPid", "eventId"};
    state->has_event_table = nsys_table_exists(state->db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT");
    return nsys_for_each_row(state, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", columns, E_COUNT,
                             "ORDER BY t.correlationId", import_event_row, err);
}

int nsys_import_gpu_activity(struct nsys_state *state, error_info *err)
{
    int status = import_kernels(state, err);
    if (status == 0)
        status = import_memcpys(state, err);
    if (status == 0)
        status = import_memsets(state, err);
    if (status == 0)
        status = import_syncs(state, err);
    if (status == 0)
        status = import_events(state, err);
    return status;
}
