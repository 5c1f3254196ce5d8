/* launch_watch.c: the collector's CUPTI callback subscriber (see launch_watch.h).
 *
 * Parameter structs are CUDA 13.0's generated_cuda_runtime_api_meta.h and generated_cuda_meta.h
 * (included by cupti.h). */
#include "launch_watch.h"

#include "cuda_api.h"

#include <stdio.h>
#include <string.h>

/* The per-thread default stream handle (cuda_runtime_api.h cudaStreamPerThread, cuda.h
 * CU_STREAM_PER_THREAD): both are 0x2. */
#define PER_THREAD_STREAM_HANDLE ((uintptr_t)0x2)

/* Per-thread caches, so that a thread's later launches cost no lock and no CUPTI call: the context
 * whose per-thread stream this thread already reported, and under which generation of the watch (a fork child
 * starts a new one). Thread-local, not shared state. */
static _Thread_local CUcontext reported_context;
static _Thread_local unsigned reported_generation;

void launch_watch_init(struct launch_watch *watch)
{
    memset(watch, 0, sizeof *watch);
    pthread_mutex_init(&watch->lock, NULL);
    atomic_store(&watch->generation, 1);
}

void launch_watch_reset(struct launch_watch *watch)
{
    unsigned generation = atomic_load(&watch->generation) + 1;
    CUpti_SubscriberHandle subscriber = watch->subscriber; /* CUPTI keeps calling it in the child */
    int subscribed = watch->subscribed, watching_launches = watch->watching_launches;
    void (*launch_exited)(uint32_t) = watch->launch_exited;
    void (*api_called)(void *, CUpti_CallbackDomain, CUpti_CallbackId, const CUpti_CallbackData *) =
        watch->api_called;
    void *api_called_context = watch->api_called_context;
    void (*nvtx_called)(CUpti_CallbackId, const CUpti_NvtxData *) = watch->nvtx_called;
    launch_watch_init(watch);
    watch->launch_exited = launch_exited;
    watch->api_called = api_called;
    watch->api_called_context = api_called_context;
    watch->nvtx_called = nvtx_called;
    watch->subscriber = subscriber;
    watch->subscribed = subscribed;
    watch->watching_launches = watching_launches;
    atomic_store(&watch->generation, generation ? generation : 1);
}

int64_t launch_watch_launches(struct launch_watch *watch)
{
    int64_t runtime = atomic_load_explicit(&watch->runtime_launches, memory_order_relaxed);
    int64_t driver = atomic_load_explicit(&watch->driver_launches, memory_order_relaxed);
    return runtime > driver ? runtime : driver;
}

/* The stream a launch call names, and whether the API is a `_ptsz` one (built with
 * --default-stream per-thread, where stream 0 means the per-thread stream). Returns 0 for a
 * callback id that is not a launch. */
static int launch_stream(CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *params,
                         uintptr_t *stream, int *ptsz)
{
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        switch (id) {
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
            *ptsz = 1; /* fall through */
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
            *stream = (uintptr_t)((const cudaLaunchKernel_v7000_params *)params)->stream;
            return 1;
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
            *ptsz = 1; /* fall through */
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
            *stream = (uintptr_t)((const cudaLaunchCooperativeKernel_v9000_params *)params)->stream;
            return 1;
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
            *ptsz = 1; /* fall through */
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060: {
            const cudaLaunchConfig_t *config = ((const cudaLaunchKernelExC_v11060_params *)params)->config;
            *stream = config ? (uintptr_t)config->stream : 0;
            return 1;
        }
        default:
            return 0;
        }
    }
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        *ptsz = 1; /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        *stream = (uintptr_t)((const cuLaunchKernel_params *)params)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        *ptsz = 1; /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        *stream = (uintptr_t)((const cuLaunchCooperativeKernel_params *)params)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        *ptsz = 1; /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
        const CUlaunchConfig *config = ((const cuLaunchKernelEx_params *)params)->config;
        *stream = config ? (uintptr_t)config->hStream : 0;
        return 1;
    }
    default:
        return 0;
    }
}

static void remember_per_thread_stream(struct launch_watch *watch, CUcontext context)
{
    uint32_t context_id = 0, stream_id = 0;
    if (!context || cuptiGetContextId(context, &context_id) != CUPTI_SUCCESS ||
        cuptiGetStreamIdEx(context, NULL, 1, &stream_id) != CUPTI_SUCCESS)
        return;
    reported_context = context;
    reported_generation = atomic_load_explicit(&watch->generation, memory_order_relaxed);
    pthread_mutex_lock(&watch->lock);
    int known = 0;
    for (int i = 0; i < watch->per_thread_stream_count && !known; i++)
        known = watch->per_thread_streams[i].context_id == context_id &&
                watch->per_thread_streams[i].stream_id == stream_id;
    if (!known && watch->per_thread_stream_count < LAUNCH_WATCH_MAX_STREAMS)
        watch->per_thread_streams[watch->per_thread_stream_count++] =
            (struct launch_watch_stream){context_id, stream_id};
    pthread_mutex_unlock(&watch->lock);
}

static void on_launch(struct launch_watch *watch, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                      const CUpti_CallbackData *call)
{
    if (call->callbackSite != CUPTI_API_EXIT || !call->functionReturnValue ||
        *(const int *)call->functionReturnValue != 0) /* cudaSuccess and CUDA_SUCCESS are 0 */
        return;
    uintptr_t stream = 0;
    int ptsz = 0;
    if (!launch_stream(domain, id, call->functionParams, &stream, &ptsz))
        return; /* a call enabled only by the cost probe */
    if (watch->launch_exited)
        watch->launch_exited(call->correlationId);
    atomic_fetch_add_explicit(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? &watch->runtime_launches
                                                                    : &watch->driver_launches,
                              1, memory_order_relaxed);
    int per_thread_default = stream == PER_THREAD_STREAM_HANDLE || (ptsz && stream == 0);
    if (!per_thread_default)
        return;
    if (reported_context == call->context &&
        reported_generation == atomic_load_explicit(&watch->generation, memory_order_relaxed))
        return;
    remember_per_thread_stream(watch, call->context);
}

static void on_state(struct launch_watch *watch, const CUpti_StateData *state)
{
    atomic_fetch_add(&watch->state_notices, 1);
    if (state->notification.result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        atomic_fetch_add(&watch->refused_subscribers, 1);
    pthread_mutex_lock(&watch->lock);
    if (!watch->first_notice[0])
        snprintf(watch->first_notice, sizeof watch->first_notice, "CUPTI notice %d: %s",
                 (int)state->notification.result,
                 state->notification.message ? state->notification.message : "(no message)");
    pthread_mutex_unlock(&watch->lock);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                 const void *data)
{
    struct launch_watch *watch = userdata;
    if (domain == CUPTI_CB_DOMAIN_STATE) {
        on_state(watch, data);
        return;
    }
    if (domain == CUPTI_CB_DOMAIN_NVTX) { /* no launch, and another data type */
        if (watch->nvtx_called)
            watch->nvtx_called(id, data);
        return;
    }
    on_launch(watch, domain, id, data);
    if (watch->api_called)
        watch->api_called(watch->api_called_context, domain, id, data);
}

int launch_watch_enable_api_ids(struct launch_watch *watch, CUpti_CallbackDomain domain,
                                const CUpti_CallbackId *ids, int count)
{
    int enabled = 0;
    for (int i = 0; watch->subscribed && i < count; i++)
        enabled += cuptiEnableCallback(1, watch->subscriber, domain, ids[i]) == CUPTI_SUCCESS;
    return enabled;
}

/* The cost probe (OVERLAPSCOPE_LAUNCH_CALLBACKS=probe, bench/torch_overhead's record-probe): a
 * callback on every call of the default API record set, doing nothing but returning. What it costs
 * a job is what recording those calls from callbacks, instead of CUPTI's API activity kinds,
 * would cost at least. */
int launch_watch_analysis_api_ids(CUpti_CallbackDomain domain, CUpti_CallbackId *ids, int capacity)
{
    CUpti_CallbackId end =
        domain == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_RUNTIME_TRACE_CBID_SIZE : CUPTI_DRIVER_TRACE_CBID_SIZE;
    int count = 0;
    for (CUpti_CallbackId cbid = 1; cbid < end && count < capacity; cbid++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && cuda_api_recorded_by_default(name))
            ids[count++] = cbid;
    }
    return count;
}

static void enable_probe_callbacks(struct launch_watch *watch)
{
    const CUpti_CallbackDomain domains[] = {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API};
    CUpti_CallbackId ids[LAUNCH_WATCH_MAX_API_IDS];
    for (int d = 0; d < 2; d++)
        launch_watch_enable_api_ids(watch, domains[d], ids,
                                    launch_watch_analysis_api_ids(domains[d], ids, LAUNCH_WATCH_MAX_API_IDS));
}

CUptiResult launch_watch_subscribe(struct launch_watch *watch, int watch_launches, char *earlier_subscriber,
                                   size_t size)
{
    static const CUpti_CallbackId runtime_launches[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000};
    static const CUpti_CallbackId driver_launches[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
    earlier_subscriber[0] = '\0';
    CUpti_SubscriberParams params = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
                                     .subscriberName = "overlapscope",
                                     .oldSubscriberName = earlier_subscriber,
                                     .oldSubscriberSize = size - 1};
    CUptiResult result = cuptiSubscribe_v2(&watch->subscriber, on_callback, watch, &params);
    earlier_subscriber[size - 1] = '\0';
    if (result != CUPTI_SUCCESS)
        return result;
    watch->subscribed = 1;
    watch->watching_launches = watch_launches;
    for (size_t i = 0; watch_launches && i < sizeof runtime_launches / sizeof runtime_launches[0]; i++)
        cuptiEnableCallback(1, watch->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_launches[i]);
    for (size_t i = 0; watch_launches && i < sizeof driver_launches / sizeof driver_launches[0]; i++)
        cuptiEnableCallback(1, watch->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, driver_launches[i]);
    if (watch_launches == LAUNCH_WATCH_PROBE_API_CALLS)
        enable_probe_callbacks(watch);
    cuptiEnableDomain(1, watch->subscriber, CUPTI_CB_DOMAIN_STATE);
    return CUPTI_SUCCESS;
}
