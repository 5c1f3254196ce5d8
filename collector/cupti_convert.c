/* cupti_convert.c: CUPTI activity records -> overlapscope store rows (see cupti_convert.h).
 *
 * Field meanings are CUPTI 13.0's (cupti_activity.h). Owns: the context->device map, the stream
 * priorities, the held-back streams, the open NVTX ranges and the API name cache. */
#include "cupti_convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_kernel_name.h"

#define API_NAME_CACHE 2048 /* callback ids of both domains are below this (cupti_*_cbid.h) */

struct context_device {
    uint32_t context_id, device_id;
};

struct stream_info {
    struct store_stream row;
    int held_back; /* waiting for its context's device */
};

struct open_range {
    uint32_t id;
    int64_t thread_id, start_ns, category, color, depth;
    char *message, *domain;
};

struct cupti_convert {
    store *trace;
    int64_t process_id;
    cupti_convert_api_namer namer;
    void *namer_context;
    struct cupti_convert_counts counts;
    struct context_device *contexts;
    size_t context_count, context_capacity;
    struct stream_info *streams;
    size_t stream_count, stream_capacity;
    struct open_range *ranges;
    size_t range_count, range_capacity;
    char *api_names[2][API_NAME_CACHE];
    char uncached_api_name[256]; /* for callback ids beyond the cache */
    int64_t last_time_ns;
    int nccl;
};

/* Grows *array (of element_size) to hold one more; returns 0 or -1 when out of memory. */
static int reserve_one(void **array, size_t *capacity, size_t count, size_t element_size)
{
    if (count < *capacity)
        return 0;
    size_t grown = *capacity ? *capacity * 2 : 16;
    void *bigger = realloc(*array, grown * element_size);
    if (!bigger)
        return -1;
    *array = bigger;
    *capacity = grown;
    return 0;
}

cupti_convert *cupti_convert_new(store *trace, int64_t process_id, cupti_convert_api_namer namer,
                                 void *namer_context)
{
    cupti_convert *converter = calloc(1, sizeof *converter);
    if (!converter)
        return NULL;
    converter->trace = trace;
    converter->process_id = process_id;
    converter->namer = namer;
    converter->namer_context = namer_context;
    converter->nccl = 1;
    return converter;
}

void cupti_convert_set_nccl(cupti_convert *converter, int enabled)
{
    converter->nccl = enabled;
}

static void free_range(struct open_range *range)
{
    free(range->message);
    free(range->domain);
}

void cupti_convert_free(cupti_convert *converter)
{
    if (!converter)
        return;
    for (size_t i = 0; i < converter->range_count; i++)
        free_range(&converter->ranges[i]);
    for (int domain = 0; domain < 2; domain++)
        for (int i = 0; i < API_NAME_CACHE; i++)
            free(converter->api_names[domain][i]);
    free(converter->ranges);
    free(converter->streams);
    free(converter->contexts);
    free(converter);
}

const struct cupti_convert_counts *cupti_convert_counts(const cupti_convert *converter)
{
    return &converter->counts;
}

/* --- value mapping --- */

static int64_t timestamp_or_null(uint64_t timestamp)
{
    return timestamp == (uint64_t)CUPTI_TIMESTAMP_UNKNOWN ? STORE_NULL : (int64_t)timestamp;
}

static int64_t id_or_null(uint32_t id)
{
    return id == CUPTI_INVALID_STREAM_ID ? STORE_NULL : (int64_t)id;
}

/* CUPTI uses 0 for "not launched from a graph". */
static int64_t graph_or_null(uint64_t id)
{
    return id == 0 ? STORE_NULL : (int64_t)id;
}

static void note_time(cupti_convert *converter, uint64_t end)
{
    if ((int64_t)end > converter->last_time_ns)
        converter->last_time_ns = (int64_t)end;
}

/* --- contexts and streams --- */

static int64_t device_of_context(const cupti_convert *converter, uint32_t context_id)
{
    for (size_t i = 0; i < converter->context_count; i++)
        if (converter->contexts[i].context_id == context_id)
            return converter->contexts[i].device_id;
    return STORE_NULL;
}

static struct stream_info *find_stream(cupti_convert *converter, uint32_t context_id, uint32_t stream_id)
{
    for (size_t i = 0; i < converter->stream_count; i++)
        if (converter->streams[i].row.context_id == context_id &&
            converter->streams[i].row.stream_id == stream_id)
            return &converter->streams[i];
    return NULL;
}

static int release_held_streams(cupti_convert *converter, uint32_t context_id, int64_t device_id,
                                error_info *err)
{
    for (size_t i = 0; i < converter->stream_count; i++) {
        struct stream_info *stream = &converter->streams[i];
        if (!stream->held_back || stream->row.context_id != context_id)
            continue;
        stream->row.device_id = device_id;
        stream->held_back = 0;
        if (store_insert_stream(converter->trace, &stream->row, err) != 0)
            return -1;
        converter->counts.streams++;
    }
    return 0;
}

/* Device records of activity rows teach where a context lives, for stream rows. */
static int learn_context(cupti_convert *converter, uint32_t context_id, uint32_t device_id, error_info *err)
{
    if (context_id == CUPTI_INVALID_CONTEXT_ID || device_of_context(converter, context_id) != STORE_NULL)
        return 0;
    if (reserve_one((void **)&converter->contexts, &converter->context_capacity, converter->context_count,
                    sizeof *converter->contexts) != 0)
        return error_set(err, "out of memory");
    converter->contexts[converter->context_count++] = (struct context_device){context_id, device_id};
    return release_held_streams(converter, context_id, device_id, err);
}

/* Remembers a stream and writes it now when its device is known, else at the context record
 * or at finish. A later record for the same stream replaces the earlier one. */
static int add_stream(cupti_convert *converter, const struct store_stream *row, error_info *err)
{
    struct stream_info *stream = find_stream(converter, (uint32_t)row->context_id, (uint32_t)row->stream_id);
    if (!stream) {
        if (reserve_one((void **)&converter->streams, &converter->stream_capacity, converter->stream_count,
                        sizeof *converter->streams) != 0)
            return error_set(err, "out of memory");
        stream = &converter->streams[converter->stream_count++];
    } else if (!stream->held_back) {
        converter->counts.streams--; /* written before; INSERT OR REPLACE rewrites it */
    }
    stream->row = *row;
    stream->row.label = NULL;
    stream->row.device_id = device_of_context(converter, (uint32_t)row->context_id);
    stream->held_back = stream->row.device_id == STORE_NULL;
    if (stream->held_back)
        return 0;
    converter->counts.streams++;
    return store_insert_stream(converter->trace, &stream->row, err);
}

int cupti_convert_stream(cupti_convert *converter, const CUpti_ActivityStream *record, error_info *err)
{
    int64_t flag = (int64_t)(record->flag & CUPTI_ACTIVITY_STREAM_CREATE_MASK);
    struct store_stream row = {
        .process_id = converter->process_id,
        .context_id = record->contextId,
        .stream_id = record->streamId,
        .is_legacy_default = flag == CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL,
        .is_per_thread_default = 0, /* CUPTI's stream record does not tell */
        .priority = (int32_t)record->priority,
        .flags = flag,
    };
    return add_stream(converter, &row, err);
}

int cupti_convert_context(cupti_convert *converter, const CUpti_ActivityContext3 *record, error_info *err)
{
    converter->counts.contexts++;
    if (learn_context(converter, record->contextId, record->deviceId, err) != 0)
        return -1;
    if (find_stream(converter, record->contextId, record->nullStreamId))
        return 0;
    /* The context names its NULL stream even when no stream record comes for it. */
    struct store_stream row = {.process_id = converter->process_id,
                               .context_id = record->contextId,
                               .stream_id = record->nullStreamId,
                               .is_legacy_default = 1,
                               .is_per_thread_default = 0,
                               .priority = STORE_NULL,
                               .flags = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL};
    return add_stream(converter, &row, err);
}

int cupti_convert_mark_per_thread_default(cupti_convert *converter, uint32_t context_id, uint32_t stream_id,
                                          error_info *err)
{
    struct stream_info *stream = find_stream(converter, context_id, stream_id);
    struct store_stream row = {.process_id = converter->process_id,
                               .context_id = context_id,
                               .stream_id = stream_id,
                               .is_legacy_default = 0,
                               .priority = STORE_NULL,
                               .flags = STORE_NULL};
    if (stream)
        row = stream->row;
    row.is_per_thread_default = 1;
    row.is_legacy_default = 0; /* a launch said so: the per-thread stream is never the legacy one */
    return add_stream(converter, &row, err);
}

static int64_t stream_priority(cupti_convert *converter, uint32_t context_id, uint32_t stream_id)
{
    struct stream_info *stream = find_stream(converter, context_id, stream_id);
    return stream ? stream->row.priority : STORE_NULL;
}

/* --- GPU activity --- */

static int insert_collective(cupti_convert *converter, const struct store_kernel *kernel,
                             int64_t kernel_rowid, const struct nccl_kernel_info *info, error_info *err)
{
    struct store_collective row = {.process_id = converter->process_id,
                                   .device_id = kernel->device_id,
                                   .stream_id = kernel->stream_id,
                                   .op = info->op,
                                   .bytes = STORE_NULL,
                                   .element_count = STORE_NULL,
                                   .dtype = info->dtype,
                                   .root = STORE_NULL,
                                   .algorithm = info->algorithm,
                                   .protocol = info->protocol,
                                   .communicator = NULL,
                                   .rank = STORE_NULL,
                                   .nranks = STORE_NULL,
                                   .sequence_number = STORE_NULL,
                                   .kernel_rowid = kernel_rowid,
                                   .start_ns = kernel->start_ns,
                                   .end_ns = kernel->end_ns,
                                   .detail_source = STORE_DETAIL_KERNEL_NAME};
    if (store_insert_collective(converter->trace, &row, err) != 0)
        return -1;
    converter->counts.collectives++;
    return 0;
}

int cupti_convert_kernel(cupti_convert *converter, const CUpti_ActivityKernel10 *record, error_info *err)
{
    if (learn_context(converter, record->contextId, record->deviceId, err) != 0)
        return -1;
    struct store_kernel row = {
        .process_id = converter->process_id,
        .device_id = record->deviceId,
        .context_id = record->contextId,
        .stream_id = record->streamId,
        .correlation_id = record->correlationId,
        .start_ns = (int64_t)record->start,
        .end_ns = (int64_t)record->end,
        .queued_ns = timestamp_or_null(record->queued),
        .submitted_ns = timestamp_or_null(record->submitted),
        .grid_x = record->gridX,
        .grid_y = record->gridY,
        .grid_z = record->gridZ,
        .block_x = record->blockX,
        .block_y = record->blockY,
        .block_z = record->blockZ,
        .cluster_x = record->clusterX,
        .cluster_y = record->clusterY,
        .cluster_z = record->clusterZ,
        .registers_per_thread = record->registersPerThread,
        .static_shared_bytes = record->staticSharedMemory,
        .dynamic_shared_bytes = record->dynamicSharedMemory,
        .local_memory_per_thread_bytes = record->localMemoryPerThread,
        /* localMemoryTotal is the 32-bit field CUPTI keeps for old readers; _v2 is the full one. */
        .local_memory_total_bytes = (int64_t)record->localMemoryTotal_v2,
        .shared_memory_executed_bytes = record->sharedMemoryExecuted,
        .shared_memory_config = record->sharedMemoryConfig,
        .launch_type = record->launchType,
        .is_device_launched = record->isDeviceLaunched,
        .graph_id = graph_or_null(record->graphId),
        .graph_node_id = graph_or_null(record->graphNodeId),
        .channel_id = id_or_null(record->channelID),
        .channel_type = record->channelType,
        .priority = stream_priority(converter, record->contextId, record->streamId),
        .name = record->name ? record->name : "(unnamed kernel)",
    };
    int64_t rowid = 0;
    if (store_insert_kernel(converter->trace, &row, &rowid, err) != 0)
        return -1;
    converter->counts.kernels++;
    note_time(converter, record->end);
    struct nccl_kernel_info info;
    if (converter->nccl && nccl_kernel_name_parse(record->name, &info))
        return insert_collective(converter, &row, rowid, &info, err);
    return 0;
}

int cupti_convert_memcpy(cupti_convert *converter, const CUpti_ActivityMemcpy6 *record, error_info *err)
{
    if (learn_context(converter, record->contextId, record->deviceId, err) != 0)
        return -1;
    struct store_memcpy row = {
        .process_id = converter->process_id,
        .device_id = record->deviceId,
        .context_id = record->contextId,
        .stream_id = record->streamId,
        .correlation_id = record->correlationId,
        .start_ns = (int64_t)record->start,
        .end_ns = (int64_t)record->end,
        .copy_kind = record->copyKind,
        .src_kind = record->srcKind,
        .dst_kind = record->dstKind,
        .bytes = (int64_t)record->bytes,
        .src_device_id = STORE_NULL, /* only peer copies (CUpti_ActivityMemcpyPtoP4) name them */
        .dst_device_id = STORE_NULL,
        .is_async = (record->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0,
        .channel_id = id_or_null(record->channelID),
        .channel_type = record->channelType,
        .copy_count = record->copyCount ? (int64_t)record->copyCount : 1,
        .graph_id = graph_or_null(record->graphId),
        .graph_node_id = graph_or_null(record->graphNodeId),
    };
    if (store_insert_memcpy(converter->trace, &row, err) != 0)
        return -1;
    converter->counts.memcpys++;
    note_time(converter, record->end);
    return 0;
}

int cupti_convert_memset(cupti_convert *converter, const CUpti_ActivityMemset4 *record, error_info *err)
{
    if (learn_context(converter, record->contextId, record->deviceId, err) != 0)
        return -1;
    struct store_memset row = {
        .process_id = converter->process_id,
        .device_id = record->deviceId,
        .context_id = record->contextId,
        .stream_id = record->streamId,
        .correlation_id = record->correlationId,
        .start_ns = (int64_t)record->start,
        .end_ns = (int64_t)record->end,
        .value = record->value,
        .bytes = (int64_t)record->bytes,
        .memory_kind = record->memoryKind,
        .is_async = (record->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0,
        .channel_id = id_or_null(record->channelID),
        .channel_type = record->channelType,
        .graph_id = graph_or_null(record->graphId),
        .graph_node_id = graph_or_null(record->graphNodeId),
    };
    if (store_insert_memset(converter->trace, &row, err) != 0)
        return -1;
    converter->counts.memsets++;
    note_time(converter, record->end);
    return 0;
}

int cupti_convert_synchronization(cupti_convert *converter, const CUpti_ActivitySynchronization2 *record,
                                  error_info *err)
{
    struct store_synchronization row = {
        .process_id = converter->process_id,
        .context_id = id_or_null(record->contextId),
        .stream_id = id_or_null(record->streamId),
        .event_id = record->cudaEventId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? STORE_NULL
                                                                               : (int64_t)record->cudaEventId,
        .sync_type = record->type,
        .correlation_id = record->correlationId,
        .start_ns = (int64_t)record->start,
        .end_ns = (int64_t)record->end,
    };
    if (store_insert_synchronization(converter->trace, &row, err) != 0)
        return -1;
    converter->counts.synchronizations++;
    note_time(converter, record->end);
    return 0;
}

int cupti_convert_cuda_event(cupti_convert *converter, const CUpti_ActivityCudaEvent2 *record,
                             error_info *err)
{
    if (learn_context(converter, record->contextId, record->deviceId, err) != 0)
        return -1;
    struct store_cuda_event row = {
        .process_id = converter->process_id,
        .device_id = record->deviceId,
        .context_id = record->contextId,
        .stream_id = id_or_null(record->streamId),
        .event_id = record->eventId,
        .correlation_id = record->correlationId,
        .record_ns = timestamp_or_null(record->deviceTimestamp),
    };
    if (store_insert_cuda_event(converter->trace, &row, err) != 0)
        return -1;
    converter->counts.cuda_events++;
    return 0;
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L prints it. */
static void format_uuid(const CUuuid *uuid, char *text, size_t size)
{
    const unsigned char *b = (const unsigned char *)uuid->bytes;
    snprintf(text, size, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

int cupti_convert_device(cupti_convert *converter, const CUpti_ActivityDevice5 *record, error_info *err)
{
    char uuid[64];
    format_uuid(&record->uuid, uuid, sizeof uuid);
    struct store_device row = {
        .process_id = converter->process_id,
        .device_id = record->id,
        .name = record->name,
        .uuid = uuid,
        .pci_bus_id = STORE_NULL, /* not in CUPTI's device record */
        .sm_count = record->numMultiprocessors,
        .compute_capability_major = record->computeCapabilityMajor,
        .compute_capability_minor = record->computeCapabilityMinor,
        .max_blocks_per_sm = record->maxBlocksPerMultiprocessor,
        .max_warps_per_sm = record->maxWarpsPerMultiprocessor,
        .max_threads_per_sm = (int64_t)record->maxWarpsPerMultiprocessor * record->numThreadsPerWarp,
        .max_threads_per_block = record->maxThreadsPerBlock,
        .max_registers_per_sm = record->maxRegistersPerMultiprocessor,
        .max_registers_per_block = record->maxRegistersPerBlock,
        .max_shared_memory_per_sm = record->maxSharedMemoryPerMultiprocessor,
        .max_shared_memory_per_block = record->maxSharedMemoryPerBlock,
        .max_shared_memory_per_block_optin = STORE_NULL, /* not in CUPTI's device record */
        .global_memory_bytes = (int64_t)record->globalMemorySize,
        .global_memory_bandwidth_kbps = (int64_t)record->globalMemoryBandwidth,
        .l2_cache_bytes = record->l2CacheSize,
        .core_clock_khz = record->coreClockRate,
        .copy_engine_count = record->numMemcpyEngines,
        .warp_size = record->numThreadsPerWarp,
    };
    if (store_insert_device(converter->trace, &row, err) != 0)
        return -1;
    converter->counts.devices++;
    return 0;
}

/* --- host activity --- */

/* cuptiGetCallbackName gives runtime names with the version they appeared in
 * ("cudaLaunchKernel_v7000"); the user called cudaLaunchKernel. Driver names keep their
 * suffix: cuMemcpyHtoDAsync_v2 is the real symbol. */
static void strip_runtime_version(char *name)
{
    char *suffix = strrchr(name, '_');
    if (!suffix || suffix[1] != 'v' || strlen(suffix + 2) < 4)
        return;
    for (const char *digit = suffix + 2; *digit; digit++)
        if (*digit < '0' || *digit > '9')
            return;
    *suffix = '\0';
}

static const char *api_name(cupti_convert *converter, int64_t api_domain, uint32_t callback_id)
{
    int domain_index = api_domain == STORE_API_RUNTIME ? 0 : 1;
    char **cached = callback_id < API_NAME_CACHE ? &converter->api_names[domain_index][callback_id] : NULL;
    if (cached && *cached)
        return *cached;
    const char *known =
        converter->namer ? converter->namer(converter->namer_context, api_domain, callback_id) : NULL;
    char fallback[64];
    if (!known) {
        snprintf(fallback, sizeof fallback, "%s#%u", domain_index == 0 ? "runtime" : "driver", callback_id);
        known = fallback;
    }
    char *copy = strdup(known);
    if (!copy)
        return "(out of memory)";
    if (domain_index == 0)
        strip_runtime_version(copy);
    if (!cached) {
        snprintf(converter->uncached_api_name, sizeof converter->uncached_api_name, "%s", copy);
        free(copy);
        return converter->uncached_api_name;
    }
    *cached = copy;
    return copy;
}

int cupti_convert_api(cupti_convert *converter, const CUpti_ActivityAPI *record, error_info *err)
{
    int64_t api_domain = record->kind == CUPTI_ACTIVITY_KIND_DRIVER ? STORE_API_DRIVER : STORE_API_RUNTIME;
    struct store_api_call row = {
        .process_id = converter->process_id,
        .thread_id = record->threadId,
        .api_domain = api_domain,
        .callback_id = record->cbid,
        .correlation_id = record->correlationId,
        .start_ns = (int64_t)record->start,
        .end_ns = (int64_t)record->end,
        .return_value = record->returnValue,
        .name = api_name(converter, api_domain, record->cbid),
    };
    if (store_insert_api_call(converter->trace, &row, err) != 0)
        return -1;
    converter->counts.api_calls++;
    note_time(converter, record->end);
    return 0;
}

/* --- host calls from the collector's callbacks (host_call_record.h) --- */

int cupti_convert_host_call(cupti_convert *converter, const struct host_call_record *call, error_info *err)
{
    int64_t stream_id = call->stream_id == HOST_CALL_NO_STREAM ? STORE_NULL : (int64_t)call->stream_id;
    if (call->what & HOST_CALL_API) {
        CUpti_ActivityAPI api = {
            .kind =
                call->domain == HOST_CALL_DRIVER ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME,
            .cbid = call->callback_id,
            .start = call->start_ns,
            .end = call->end_ns,
            .threadId = call->thread_id,
            .correlationId = call->correlation_id,
            .returnValue = (uint32_t)call->return_value,
        };
        if (cupti_convert_api(converter, &api, err) != 0)
            return -1;
    }
    if (call->what & HOST_CALL_SYNC) {
        struct store_synchronization row = {
            .process_id = converter->process_id,
            .context_id = id_or_null(call->context_id),
            .stream_id = stream_id,
            .event_id = call->event ? (int64_t)call->event : STORE_NULL,
            .sync_type = call->sync_type,
            .correlation_id = call->correlation_id,
            .start_ns = (int64_t)call->start_ns,
            .end_ns = (int64_t)call->end_ns,
        };
        if (store_insert_synchronization(converter->trace, &row, err) != 0)
            return -1;
        converter->counts.synchronizations++;
        note_time(converter, call->end_ns);
    }
    if ((call->what & HOST_CALL_EVENT) && call->event) {
        int device_known = call->device_id != HOST_CALL_NO_DEVICE;
        if (device_known && learn_context(converter, call->context_id, call->device_id, err) != 0)
            return -1;
        struct store_cuda_event row = {
            .process_id = converter->process_id,
            .device_id =
                device_known ? (int64_t)call->device_id : device_of_context(converter, call->context_id),
            .context_id = call->context_id,
            .stream_id = stream_id,
            .event_id = (int64_t)call->event,
            .correlation_id = call->correlation_id,
            .record_ns = STORE_NULL, /* the GPU-side time needs CUPTI's CUDA_EVENT kind */
        };
        if (store_insert_cuda_event(converter->trace, &row, err) != 0)
            return -1;
        converter->counts.cuda_events++;
    }
    return 0;
}

/* --- NVTX: CUPTI reports a range as a start and an end record sharing an id --- */

static struct open_range *find_range(cupti_convert *converter, uint32_t id)
{
    for (size_t i = converter->range_count; i-- > 0;)
        if (converter->ranges[i].id == id)
            return &converter->ranges[i];
    return NULL;
}

/* CUPTI does not say whether a range came from push/pop or start/end. A range that closes while
 * it is the innermost open range of its thread behaved like push/pop (and has a depth); any
 * other is a start/end range. */
static int write_range(cupti_convert *converter, struct open_range *range, int64_t end_ns, int is_innermost,
                       error_info *err)
{
    struct store_nvtx row = {
        .process_id = converter->process_id,
        .thread_id = range->thread_id,
        .device_id = STORE_NULL,
        .stream_id = STORE_NULL,
        .kind = is_innermost ? STORE_NVTX_PUSH_POP : STORE_NVTX_START_END,
        .domain = range->domain,
        .message = range->message ? range->message : "",
        .category = range->category,
        .color = range->color,
        .start_ns = range->start_ns,
        .end_ns = end_ns,
        .depth = is_innermost ? range->depth : STORE_NULL,
    };
    if (store_insert_nvtx(converter->trace, &row, err) != 0)
        return -1;
    converter->counts.nvtx++;
    return 0;
}

static int is_innermost_on_thread(const cupti_convert *converter, const struct open_range *range)
{
    for (const struct open_range *later = range + 1; later < converter->ranges + converter->range_count;
         later++)
        if (later->thread_id == range->thread_id)
            return 0;
    return 1;
}

static void remove_range(cupti_convert *converter, struct open_range *range)
{
    free_range(range);
    size_t index = (size_t)(range - converter->ranges);
    memmove(range, range + 1, (converter->range_count - index - 1) * sizeof *range);
    converter->range_count--;
}

static int64_t marker_thread(const CUpti_ActivityMarker2 *record)
{
    return record->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
                   record->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS
               ? (int64_t)record->objectId.pt.threadId
               : STORE_NULL;
}

static const char *domain_or_null(const char *domain)
{
    return domain && *domain ? domain : NULL;
}

static int open_range(cupti_convert *converter, const CUpti_ActivityMarker2 *record, error_info *err)
{
    if (reserve_one((void **)&converter->ranges, &converter->range_capacity, converter->range_count,
                    sizeof *converter->ranges) != 0)
        return error_set(err, "out of memory");
    struct open_range range = {.id = record->id,
                               .thread_id = marker_thread(record),
                               .start_ns = (int64_t)record->timestamp,
                               .category = STORE_NULL,
                               .color = STORE_NULL,
                               .depth = 0,
                               .message = record->name ? strdup(record->name) : NULL,
                               .domain = domain_or_null(record->domain) ? strdup(record->domain) : NULL};
    for (size_t i = 0; i < converter->range_count; i++)
        if (converter->ranges[i].thread_id == range.thread_id)
            range.depth++;
    converter->ranges[converter->range_count++] = range;
    return 0;
}

int cupti_convert_marker(cupti_convert *converter, const CUpti_ActivityMarker2 *record, error_info *err)
{
    note_time(converter, record->timestamp);
    if (record->flags & CUPTI_ACTIVITY_FLAG_MARKER_START)
        return open_range(converter, record, err);
    if (record->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        struct open_range *range = find_range(converter, record->id);
        if (!range) {
            converter->counts.skipped_records++; /* its start was lost (dropped or before enable) */
            return 0;
        }
        int status = write_range(converter, range, (int64_t)record->timestamp,
                                 is_innermost_on_thread(converter, range), err);
        remove_range(converter, range);
        return status;
    }
    if (record->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
        struct store_nvtx row = {.process_id = converter->process_id,
                                 .thread_id = marker_thread(record),
                                 .device_id = STORE_NULL,
                                 .stream_id = STORE_NULL,
                                 .kind = STORE_NVTX_MARK,
                                 .domain = domain_or_null(record->domain),
                                 .message = record->name ? record->name : "",
                                 .category = STORE_NULL,
                                 .color = STORE_NULL,
                                 .start_ns = (int64_t)record->timestamp,
                                 .end_ns = (int64_t)record->timestamp,
                                 .depth = STORE_NULL};
        if (store_insert_nvtx(converter->trace, &row, err) != 0)
            return -1;
        converter->counts.nvtx++;
        return 0;
    }
    converter->counts.skipped_records++; /* sync markers (acquire/release) have no table */
    return 0;
}

int cupti_convert_marker_data(cupti_convert *converter, const CUpti_ActivityMarkerData2 *record,
                              error_info *err)
{
    (void)err;
    struct open_range *range = find_range(converter, record->id);
    if (!range) {
        converter->counts.skipped_records++;
        return 0;
    }
    if (record->flags & CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB)
        range->color = record->color;
    range->category = record->category;
    return 0;
}

/* A record of work that had not finished when its buffer was handed over (forced flush). */
static int incomplete(uint64_t start, uint64_t end)
{
    return start == 0 || end == 0 || end < start;
}

int cupti_convert_record(cupti_convert *converter, const CUpti_Activity *record, error_info *err)
{
    int unfinished = 0;
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        unfinished = incomplete(((const CUpti_ActivityKernel10 *)record)->start,
                                ((const CUpti_ActivityKernel10 *)record)->end);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        unfinished = incomplete(((const CUpti_ActivityMemcpy6 *)record)->start,
                                ((const CUpti_ActivityMemcpy6 *)record)->end);
        break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        unfinished = incomplete(((const CUpti_ActivityMemset4 *)record)->start,
                                ((const CUpti_ActivityMemset4 *)record)->end);
        break;
    default:
        break;
    }
    if (unfinished) {
        converter->counts.incomplete_records++;
        converter->counts.skipped_records++;
        return 0;
    }
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return cupti_convert_kernel(converter, (const CUpti_ActivityKernel10 *)record, err);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return cupti_convert_memcpy(converter, (const CUpti_ActivityMemcpy6 *)record, err);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return cupti_convert_memset(converter, (const CUpti_ActivityMemset4 *)record, err);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return cupti_convert_synchronization(converter, (const CUpti_ActivitySynchronization2 *)record, err);
    case CUPTI_ACTIVITY_KIND_DEVICE:
        return cupti_convert_device(converter, (const CUpti_ActivityDevice5 *)record, err);
    case CUPTI_ACTIVITY_KIND_CONTEXT:
        return cupti_convert_context(converter, (const CUpti_ActivityContext3 *)record, err);
    case CUPTI_ACTIVITY_KIND_STREAM:
        return cupti_convert_stream(converter, (const CUpti_ActivityStream *)record, err);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
        return cupti_convert_cuda_event(converter, (const CUpti_ActivityCudaEvent2 *)record, err);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
        return cupti_convert_api(converter, (const CUpti_ActivityAPI *)record, err);
    case CUPTI_ACTIVITY_KIND_MARKER:
        return cupti_convert_marker(converter, (const CUpti_ActivityMarker2 *)record, err);
    case CUPTI_ACTIVITY_KIND_MARKER_DATA:
        return cupti_convert_marker_data(converter, (const CUpti_ActivityMarkerData2 *)record, err);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
        converter->counts.foreign_records++;
        converter->counts.skipped_records++;
        return 0;
    default:
        converter->counts.skipped_records++;
        return 0;
    }
}

int cupti_convert_finish(cupti_convert *converter, error_info *err)
{
    for (size_t i = 0; i < converter->stream_count; i++) {
        struct stream_info *stream = &converter->streams[i];
        if (!stream->held_back)
            continue;
        stream->held_back = 0;
        if (store_insert_stream(converter->trace, &stream->row, err) != 0)
            return -1;
        converter->counts.streams++;
    }
    while (converter->range_count > 0) {
        struct open_range *range = &converter->ranges[converter->range_count - 1];
        int64_t end_ns =
            converter->last_time_ns > range->start_ns ? converter->last_time_ns : range->start_ns;
        if (write_range(converter, range, end_ns, 1, err) != 0)
            return -1;
        remove_range(converter, range);
    }
    return 0;
}
