/* nsys_gpu.c: GPU activity of an Nsight Systems export (see nsys_parts.h): kernels, copies, memsets,
 * synchronizations and CUDA event records. Enumerations (copyKind, srcKind, memKind, syncType) are
 * CUPTI's, as in the store; ids nsys writes as 0xFFFFFFFF read as unknown. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cuda_api.h"
#include "nccl_kernel_name.h"
#include "nsys_parts.h"
#include "op_category.h"

/* One record for kernels, copies and memsets: the three store rows begin with the same fields
 * (process_id to end_ns), which C11 lets a union's members share (6.5.2.3, common initial
 * sequence), so what every GPU row does is written once, on row.kernel's names. */
struct gpu_record {
    union {
        struct store_kernel kernel;
        struct store_memcpy copy;
        struct store_memset set;
    } row;
    int64_t global_pid;
};

#define GPU(member) NSYS_INT64_AT(struct gpu_record, row.member)

/* clang-format off */
#define GPU_ACTIVITY_COLUMNS(table)                                                                          \
    {"start", NSYS_TIME, GPU(kernel.start_ns), 1},                                                           \
    {"end", NSYS_TIME, GPU(kernel.end_ns), 1},                                                               \
    {"deviceId", NSYS_INTEGER, GPU(kernel.device_id), 1},                                                    \
    {"contextId", NSYS_INTEGER, GPU(kernel.context_id), 0},                                                  \
    {"streamId", NSYS_INTEGER, GPU(kernel.stream_id), 1},                                                    \
    {"correlationId", NSYS_INTEGER, GPU(kernel.correlation_id), 0},                                          \
    {"globalPid", NSYS_INTEGER, NSYS_INT64_AT(struct gpu_record, global_pid), 0},                            \
    {"graphId", NSYS_INTEGER, GPU(table.graph_id), 0},                                                       \
    {"graphNodeId", NSYS_INTEGER, GPU(table.graph_node_id), 0}
/* clang-format on */

/* Every kernel, copy and memset: its process (from globalPid), its stream's busy time, the count
 * of GPU rows, where its context lives. Returns 0 or -1 with err filled. */
static int place_gpu_row(struct nsys_state *state, struct gpu_record *record, enum analysis_category category,
                         error_info *err)
{
    struct store_kernel *row = &record->row.kernel; /* the fields all three share */
    row->process_id = nsys_process_of_global(state, record->global_pid, err);
    if (!row->process_id)
        return -1;
    state->gpu_rows++;
    if (stream_set_note(&state->streams, row->process_id, row->device_id, row->context_id, row->stream_id,
                        category, row->start_ns, row->end_ns) != 0 ||
        nsys_note_context(state, row->process_id, row->context_id, row->device_id) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return 0;
}

static int import_kernel_row(struct nsys_state *state, void *record, error_info *err)
{
    struct store_kernel *kernel = &((struct gpu_record *)record)->row.kernel;
    if (!kernel->name)
        kernel->name = "(unnamed kernel)";
    struct nccl_kernel_info from_name;
    int is_nccl = nccl_kernel_name_parse(kernel->name, &from_name);
    int64_t rowid = 0;
    if (place_gpu_row(state, record, is_nccl ? ANALYSIS_COMMUNICATION : ANALYSIS_COMPUTE, err) != 0 ||
        store_insert_kernel(state->s, kernel, &rowid, err) != 0)
        return -1;
    state->kernels_with_channel += kernel->channel_id != STORE_NULL;
    if (!is_nccl)
        return 0;
    int64_t bytes = nsys_nccl_bytes(state, nsys_pid_of_global(((struct gpu_record *)record)->global_pid),
                                    kernel->correlation_id);
    struct store_collective collective = {.process_id = kernel->process_id,
                                          .device_id = kernel->device_id,
                                          .stream_id = kernel->stream_id,
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
                                          .start_ns = kernel->start_ns,
                                          .end_ns = kernel->end_ns,
                                          .detail_source = bytes == STORE_NULL ? STORE_DETAIL_KERNEL_NAME
                                                                               : STORE_DETAIL_NVTX_PAYLOAD};
    return store_insert_collective(state->s, &collective, err);
}

static const struct nsys_column kernel_columns[] = {
    GPU_ACTIVITY_COLUMNS(kernel),
    {"gridX", NSYS_INTEGER, GPU(kernel.grid_x), 0},
    {"gridY", NSYS_INTEGER, GPU(kernel.grid_y), 0},
    {"gridZ", NSYS_INTEGER, GPU(kernel.grid_z), 0},
    {"blockX", NSYS_INTEGER, GPU(kernel.block_x), 0},
    {"blockY", NSYS_INTEGER, GPU(kernel.block_y), 0},
    {"blockZ", NSYS_INTEGER, GPU(kernel.block_z), 0},
    {"clusterX", NSYS_INTEGER, GPU(kernel.cluster_x), 0},
    {"clusterY", NSYS_INTEGER, GPU(kernel.cluster_y), 0},
    {"clusterZ", NSYS_INTEGER, GPU(kernel.cluster_z), 0},
    {"registersPerThread", NSYS_INTEGER, GPU(kernel.registers_per_thread), 0},
    {"staticSharedMemory", NSYS_INTEGER, GPU(kernel.static_shared_bytes), 0},
    {"dynamicSharedMemory", NSYS_INTEGER, GPU(kernel.dynamic_shared_bytes), 0},
    {"localMemoryPerThread", NSYS_INTEGER, GPU(kernel.local_memory_per_thread_bytes), 0},
    {"localMemoryTotal", NSYS_INTEGER, GPU(kernel.local_memory_total_bytes), 0},
    {"sharedMemoryExecuted", NSYS_INTEGER, GPU(kernel.shared_memory_executed_bytes), 0},
    {"launchType", NSYS_INTEGER, GPU(kernel.launch_type), 0},
    {"channelId", NSYS_INTEGER, GPU(kernel.channel_id), 0},
    {"channelType", NSYS_INTEGER, GPU(kernel.channel_type), 0},
    /* The demangled name when exported, else the short or mangled one. */
    {"@demangledName|@shortName|@mangledName", NSYS_TEXT, NSYS_TEXT_AT(struct gpu_record, row.kernel.name),
     0}};

static const struct gpu_record kernel_defaults = {.row.kernel = {.queued_ns = STORE_NULL,
                                                                 .submitted_ns = STORE_NULL,
                                                                 .shared_memory_config = STORE_NULL,
                                                                 .is_device_launched = STORE_NULL,
                                                                 .priority = STORE_NULL}};

static int import_memcpy_row(struct nsys_state *state, void *record, error_info *err)
{
    struct store_memcpy *copy = &((struct gpu_record *)record)->row.copy;
    if (copy->copy_kind == STORE_NULL)
        copy->copy_kind = STORE_COPY_UNKNOWN;
    if (copy->bytes == STORE_NULL)
        copy->bytes = 0;
    if (copy->copy_count == STORE_NULL || copy->copy_count <= 0)
        copy->copy_count = 1; /* nsys 2025.5: copies folded into one row; before, one row each */
    if (place_gpu_row(state, record,
                      store_copy_category(copy->copy_kind, copy->src_device_id, copy->dst_device_id),
                      err) != 0)
        return -1;
    return store_insert_memcpy(state->s, copy, err);
}

static const struct nsys_column memcpy_columns[] = {GPU_ACTIVITY_COLUMNS(copy),
                                                    {"bytes", NSYS_INTEGER, GPU(copy.bytes), 0},
                                                    {"copyKind", NSYS_INTEGER, GPU(copy.copy_kind), 0},
                                                    {"srcKind", NSYS_INTEGER, GPU(copy.src_kind), 0},
                                                    {"dstKind", NSYS_INTEGER, GPU(copy.dst_kind), 0},
                                                    {"srcDeviceId", NSYS_INTEGER, GPU(copy.src_device_id), 0},
                                                    {"dstDeviceId", NSYS_INTEGER, GPU(copy.dst_device_id), 0},
                                                    {"copyCount", NSYS_INTEGER, GPU(copy.copy_count), 0}};

static const struct gpu_record memcpy_defaults = {
    .row.copy = {.is_async = STORE_NULL, .channel_id = STORE_NULL, .channel_type = STORE_NULL}};

static int import_memset_row(struct nsys_state *state, void *record, error_info *err)
{
    struct store_memset *set = &((struct gpu_record *)record)->row.set;
    if (set->bytes == STORE_NULL)
        set->bytes = 0;
    if (place_gpu_row(state, record, ANALYSIS_MEMSET, err) != 0)
        return -1;
    return store_insert_memset(state->s, set, err);
}

static const struct nsys_column memset_columns[] = {GPU_ACTIVITY_COLUMNS(set),
                                                    {"value", NSYS_INTEGER, GPU(set.value), 0},
                                                    {"bytes", NSYS_INTEGER, GPU(set.bytes), 0},
                                                    {"memKind", NSYS_INTEGER, GPU(set.memory_kind), 0}};

static const struct gpu_record memset_defaults = {
    .row.set = {.is_async = STORE_NULL, .channel_id = STORE_NULL, .channel_type = STORE_NULL}};

static const struct nsys_table gpu_tables[] = {
    NSYS_TABLE("CUPTI_ACTIVITY_KIND_KERNEL", kernel_columns, "ORDER BY t.start", kernel_defaults, NULL,
               import_kernel_row),
    NSYS_TABLE("CUPTI_ACTIVITY_KIND_MEMCPY", memcpy_columns, "ORDER BY t.start", memcpy_defaults, NULL,
               import_memcpy_row),
    NSYS_TABLE("CUPTI_ACTIVITY_KIND_MEMSET", memset_columns, "ORDER BY t.start", memset_defaults, NULL,
               import_memset_row)};

struct sync_record {
    struct store_synchronization sync;
    int64_t global_pid;
    const char *call; /* the runtime call that made the record, when known */
};

#define SYNC(member) NSYS_INT64_AT(struct sync_record, sync.member)

static int import_sync_row(struct nsys_state *state, void *record, error_info *err)
{
    struct sync_record *row = record;
    struct store_synchronization *sync = &row->sync;
    sync->process_id = nsys_process_of_global(state, row->global_pid, err);
    if (!sync->process_id)
        return -1;
    /* The call that made the record says what it was: nsys 2024.5 exports cudaDeviceSynchronize's
     * records as event synchronizations (syncType 1); 2025.5 exports 4, CUPTI's value. */
    int call_type = cuda_api_sync_type(row->call);
    int64_t type = sync->sync_type;
    sync->sync_type = call_type                                    ? call_type
                      : type == STORE_NULL || type < 0 || type > 4 ? STORE_SYNC_UNKNOWN
                                                                   : type;
    state->stream_waits += sync->sync_type == STORE_SYNC_STREAM_WAIT_EVENT;
    return store_insert_synchronization(state->s, sync, err);
}

/* The runtime calls that make synchronization records, by process and correlation id, gathered
 * once into an indexed temporary table (a lookup per record in the export's own unindexed table
 * would be quadratic). Returns 1 when made, 0 when the export cannot say, -1 on failure. */
static int gather_sync_calls(struct nsys_state *state, error_info *err)
{
    static const char *const needed[] = {"globalTid", "correlationId", "nameId"};
    if (!store_db_has_table(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
        return 0;
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!store_db_has_column(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME", needed[i]))
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
    if (!store_db_has_table(state->db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"))
        return 0;
    int calls = gather_sync_calls(state, err);
    if (calls < 0)
        return -1;
    const struct nsys_column columns[] = {
        {"start", NSYS_TIME, SYNC(start_ns), 1},
        {"end", NSYS_TIME, SYNC(end_ns), 1},
        {"contextId", NSYS_INTEGER, SYNC(context_id), 0},
        {"streamId", NSYS_ID, SYNC(stream_id), 0},
        {"correlationId", NSYS_INTEGER, SYNC(correlation_id), 0},
        {"globalPid", NSYS_INTEGER, NSYS_INT64_AT(struct sync_record, global_pid), 0},
        {"syncType", NSYS_INTEGER, SYNC(sync_type), 0},
        {"eventId", NSYS_ID, SYNC(event_id), 0},
        {calls ? "=(SELECT c.name FROM temp.overlapscope_sync_calls c"
                 " WHERE c.pid = (t.globalPid >> 24) & 16777215 AND c.correlation = t.correlationId)"
               : "=NULL",
         NSYS_TEXT, NSYS_TEXT_AT(struct sync_record, call), 0}};
    static const struct sync_record defaults;
    const struct nsys_table table = NSYS_TABLE("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", columns,
                                               "ORDER BY t.start", defaults, NULL, import_sync_row);
    int status = nsys_read_table(state, &table, err);
    if (calls)
        sqlite3_exec(state->db, "DROP TABLE IF EXISTS temp.overlapscope_sync_calls", NULL, NULL, NULL);
    return status;
}

struct event_record {
    struct store_cuda_event event;
    int64_t global_pid;
};

#define EVENT(member) NSYS_INT64_AT(struct event_record, event.member)

/* cudaEventRecord: which stream recorded which event, what the event-dependency cause pairs a
 * stream wait with (CUPTI_ACTIVITY_KIND_CUDA_EVENT; nsys records it with --cuda-event-trace). */
static int import_event_row(struct nsys_state *state, void *record, error_info *err)
{
    struct event_record *row = record;
    row->event.process_id = nsys_process_of_global(state, row->global_pid, err);
    if (!row->event.process_id)
        return -1;
    state->event_records++;
    return store_insert_cuda_event(state->s, &row->event, err);
}

static const struct nsys_column event_columns[] = {
    {"deviceId", NSYS_INTEGER, EVENT(device_id), 0},
    {"contextId", NSYS_INTEGER, EVENT(context_id), 0},
    {"streamId", NSYS_ID, EVENT(stream_id), 0},
    {"correlationId", NSYS_INTEGER, EVENT(correlation_id), 0},
    {"globalPid", NSYS_INTEGER, NSYS_INT64_AT(struct event_record, global_pid), 0},
    {"eventId", NSYS_ID, EVENT(event_id), 1}};

static const struct event_record event_defaults = {.event = {.record_ns = STORE_NULL}};

static int import_events(struct nsys_state *state, error_info *err)
{
    static const struct nsys_table table =
        NSYS_TABLE("CUPTI_ACTIVITY_KIND_CUDA_EVENT", event_columns, "ORDER BY t.correlationId",
                   event_defaults, NULL, import_event_row);
    state->has_event_table = store_db_has_table(state->db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT");
    return nsys_read_table(state, &table, err);
}

int nsys_import_gpu_activity(struct nsys_state *state, error_info *err)
{
    int status = 0;
    for (size_t i = 0; status == 0 && i < sizeof gpu_tables / sizeof gpu_tables[0]; i++)
        status = nsys_read_table(state, &gpu_tables[i], err);
    if (status == 0)
        status = import_syncs(state, err);
    if (status == 0)
        status = import_events(state, err);
    return status;
}
