/* host_calls.c: host call records from the collector's CUPTI callbacks (see host_calls.h).
 *
 * Parameter structs are CUDA 13.0's generated_cuda_runtime_api_meta.h and generated_cuda_meta.h
 * (included by cupti.h); the synchronization types are CUPTI's (cupti_activity.h,
 * CUpti_ActivitySynchronizationType), so the rows read as CUPTI's own would. */
#include "host_calls.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch_watch.h"
#include "thread_names.h"

/* The stream handles with a fixed meaning (cuda_runtime_api.h cudaStreamLegacy and
 * cudaStreamPerThread; cuda.h CU_STREAM_LEGACY and CU_STREAM_PER_THREAD). */
#define LEGACY_STREAM_HANDLE ((uintptr_t)0x1)
#define PER_THREAD_STREAM_HANDLE ((uintptr_t)0x2)

/* What a callback id is, per domain: bits below, 0 for an id not recorded. */
enum {
    CALL_RECORDED = 1 << 0, /* in the analysis API set */
    CALL_SPECIAL = 1 << 1,  /* a synchronization or an event record: parameters decoded below */
};

struct host_calls {
    struct host_calls_options options;
    call_buffers *buffers;
    unsigned char runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE];
    unsigned char driver[CUPTI_DRIVER_TRACE_CBID_SIZE];
};

/* Per thread: the OS thread id (asked once), and how many recorded runtime calls are open on this
 * thread (a driver call inside one is the runtime's own work, not recorded). */
static _Thread_local uint32_t thread_id;
static _Thread_local int runtime_depth;

/* The synchronization or event record a call is, with its stream and event handles. Returns 0 for
 * any other call. ptsz: a `_ptsz` API (stream 0 is the per-thread stream there). */
struct special_call {
    int sync_type; /* CUpti_ActivitySynchronizationType, 0 for an event record */
    int records_event;
    uintptr_t stream, event;
    int ptsz;
};

static int runtime_special(CUpti_CallbackId id, const void *params, struct special_call *out)
{
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020:
        out->sync_type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
        out->ptsz = 1; /* fall through */
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
        out->sync_type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
        out->stream = (uintptr_t)((const cudaStreamSynchronize_v3020_params *)params)->stream;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
        out->sync_type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
        out->event = (uintptr_t)((const cudaEventSynchronize_v3020_params *)params)->event;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
        out->ptsz = 1; /* fall through */
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020: {
        const cudaStreamWaitEvent_v3020_params *p = params;
        out->sync_type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
        out->stream = (uintptr_t)p->stream;
        out->event = (uintptr_t)p->event;
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
        out->ptsz = 1; /* fall through */
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020: {
        const cudaEventRecord_v3020_params *p = params;
        out->records_event = 1;
        out->stream = (uintptr_t)p->stream;
        out->event = (uintptr_t)p->event;
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010:
        out->ptsz = 1; /* fall through */
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010: {
        const cudaEventRecordWithFlags_v11010_params *p = params;
        out->records_event = 1;
        out->stream = (uintptr_t)p->stream;
        out->event = (uintptr_t)p->event;
        return 1;
    }
    default:
        return 0;
    }
}

static int driver_special(CUpti_CallbackId id, const void *params, struct special_call *out)
{
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
        out->sync_type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
        out->ptsz = 1; /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
        out->sync_type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
        out->stream = (uintptr_t)((const cuStreamSynchronize_params *)params)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
        out->sync_type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
        out->event = (uintptr_t)((const cuEventSynchronize_params *)params)->hEvent;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
        out->ptsz = 1; /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent: {
        const cuStreamWaitEvent_params *p = params;
        out->sync_type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
        out->stream = (uintptr_t)p->hStream;
        out->event = (uintptr_t)p->hEvent;
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
        out->ptsz = 1; /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord: {
        const cuEventRecord_params *p = params;
        out->records_event = 1;
        out->stream = (uintptr_t)p->hStream;
        out->event = (uintptr_t)p->hEvent;
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
        out->ptsz = 1; /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags: {
        const cuEventRecordWithFlags_params *p = params;
        out->records_event = 1;
        out->stream = (uintptr_t)p->hStream;
        out->event = (uintptr_t)p->hEvent;
        return 1;
    }
    default:
        return 0;
    }
}

static void classify_domain(unsigned char *table, CUpti_CallbackDomain domain, CUpti_CallbackId end,
                            int (*special)(CUpti_CallbackId, const void *, struct special_call *))
{
    /* The analysis API set: the same ids the activity switches and the cost probe enable. */
    CUpti_CallbackId ids[LAUNCH_WATCH_MAX_API_IDS];
    int count = launch_watch_analysis_api_ids(domain, ids, LAUNCH_WATCH_MAX_API_IDS);
    for (int i = 0; i < count; i++)
        if (ids[i] < end)
            table[ids[i]] |= CALL_RECORDED;
    for (CUpti_CallbackId id = 1; id < end; id++) {
        /* Decoding needs no parameters to tell the id: a dummy params block big enough for any of
         * the structs above. */
        struct special_call probe = {0};
        uint64_t params[8] = {0};
        if (special(id, params, &probe))
            table[id] |= CALL_SPECIAL | CALL_RECORDED;
    }
}

host_calls *host_calls_new(const struct host_calls_options *options, call_buffers *buffers)
{
    host_calls *calls = calloc(1, sizeof *calls);
    if (!calls)
        return NULL;
    calls->options = *options;
    calls->buffers = buffers;
    classify_domain(calls->runtime, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE,
                    runtime_special);
    classify_domain(calls->driver, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, driver_special);
    return calls;
}

void host_calls_free(host_calls *calls)
{
    free(calls);
}

int host_calls_callback_ids(const host_calls *calls, CUpti_CallbackDomain domain, CUpti_CallbackId *ids,
                            int capacity)
{
    int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    const unsigned char *table = runtime ? calls->runtime : calls->driver;
    CUpti_CallbackId end = runtime ? CUPTI_RUNTIME_TRACE_CBID_SIZE : CUPTI_DRIVER_TRACE_CBID_SIZE;
    int rows = runtime ? calls->options.runtime_rows : calls->options.driver_rows;
    int specials = calls->options.sync_rows || calls->options.event_rows;
    int count = 0;
    for (CUpti_CallbackId id = 1; id < end && count < capacity; id++)
        if ((rows && (table[id] & CALL_RECORDED)) || (specials && (table[id] & CALL_SPECIAL)))
            ids[count++] = id;
    return count;
}

void host_calls_forget_after_fork(void)
{
    thread_id = 0;
    runtime_depth = 0;
}

static uint64_t timestamp(void)
{
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    return now;
}

/* CUPTI's id of a stream handle as a call named it. */
static uint32_t stream_id_of(CUcontext context, uintptr_t handle, int ptsz)
{
    uint32_t id = HOST_CALL_NO_STREAM;
    if (!context)
        return id;
    int per_thread = handle == PER_THREAD_STREAM_HANDLE || (ptsz && handle == 0);
    if (handle == LEGACY_STREAM_HANDLE || handle == PER_THREAD_STREAM_HANDLE)
        handle = 0;
    if (cuptiGetStreamIdEx(context, (CUstream)handle, per_thread ? 1 : 0, &id) != CUPTI_SUCCESS)
        id = HOST_CALL_NO_STREAM;
    return id;
}

void host_calls_on_api(host_calls *calls, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                       const CUpti_CallbackData *call)
{
    int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    if (runtime ? id >= CUPTI_RUNTIME_TRACE_CBID_SIZE : id >= CUPTI_DRIVER_TRACE_CBID_SIZE)
        return;
    unsigned char what = runtime ? calls->runtime[id] : calls->driver[id];
    if (!what)
        return;
    if (call->callbackSite == CUPTI_API_ENTER) {
        if (runtime)
            runtime_depth++;
        else if (runtime_depth > 0)
            return;
        *call->correlationData = timestamp();
        return;
    }
    if (runtime)
        runtime_depth--;
    else if (runtime_depth > 0)
        return; /* the runtime call around it is the one recorded */
    struct host_call_record record = {
        .start_ns = *call->correlationData,
        .end_ns = timestamp(),
        .correlation_id = call->correlationId,
        .callback_id = id,
        .context_id = call->contextUid,
        .device_id = HOST_CALL_NO_DEVICE,
        .stream_id = HOST_CALL_NO_STREAM,
        .return_value = call->functionReturnValue ? *(const int *)call->functionReturnValue : 0,
        .domain = runtime ? HOST_CALL_RUNTIME : HOST_CALL_DRIVER,
    };
    if ((what & CALL_RECORDED) && (runtime ? calls->options.runtime_rows : calls->options.driver_rows))
        record.what |= HOST_CALL_API;
    struct special_call special = {0};
    if ((what & CALL_SPECIAL) &&
        (runtime ? runtime_special : driver_special)(id, call->functionParams, &special)) {
        if (special.sync_type && calls->options.sync_rows) {
            record.what |= HOST_CALL_SYNC;
            record.sync_type = (uint8_t)special.sync_type;
        }
        if (special.records_event && calls->options.event_rows) {
            record.what |= HOST_CALL_EVENT;
            if (!call->context || cuptiGetDeviceId(call->context, &record.device_id) != CUPTI_SUCCESS)
                record.device_id = HOST_CALL_NO_DEVICE;
        }
        if (record.what & (HOST_CALL_SYNC | HOST_CALL_EVENT)) {
            record.event = special.event;
            if (special.stream || special.ptsz || special.records_event ||
                special.sync_type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE ||
                special.sync_type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
                record.stream_id = stream_id_of(call->context, special.stream, special.ptsz);
        }
    }
    if (!record.what)
        return;
    if (!thread_id) {
        thread_id = (uint32_t)gettid();
        thread_names_note(thread_id); /* once per thread: its name, for the threads table */
    }
    record.thread_id = thread_id;
    call_buffers_append(calls->buffers, &record);
}
