/* launch_watch.h: the collector's CUPTI callback subscriber, and what it learns.
 *
 * CUPTI allows one callback subscriber per process (cupti_callbacks.h, cuptiSubscribe). The
 * collector takes it at InitializeInjection, for three reasons:
 *   - counting successful kernel launches (runtime and driver launch APIs, at API exit), so the
 *     collector can tell at exit whether kernel records went missing (competing_profiler.h);
 *   - finding each thread's per-thread default stream: CUPTI's stream records do not say which
 *     stream that is, but a launch through a `_ptsz` API with stream 0, or through any launch API
 *     with cudaStreamPerThread (0x2), runs on it; cuptiGetStreamIdEx(context, NULL, 1) names it;
 *   - CUPTI's STATE domain notices (warnings and errors CUPTI reports to the subscriber).
 * Holding the subscriber also means a profiler started later inside the program (torch.profiler)
 * is refused by CUPTI instead of silently taking the activity buffers (docs/collector.md).
 *
 * Per launch the callback does one relaxed atomic add and, on the first per-thread-default launch
 * of a thread in a context, one short locked append; no allocation, no I/O. The state lives in
 * the collector's one struct (collector.c) and is passed to CUPTI as the callback's userdata. */
#ifndef OVERLAPSCOPE_LAUNCH_WATCH_H
#define OVERLAPSCOPE_LAUNCH_WATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <cupti.h>

#define LAUNCH_WATCH_MAX_STREAMS 256

struct launch_watch_stream {
    uint32_t context_id, stream_id;
};

struct launch_watch {
    pthread_mutex_t lock; /* guards streams and the notice text */
    atomic_llong runtime_launches, driver_launches;
    atomic_llong state_notices, refused_subscribers;
    atomic_uint generation; /* bumped in a fork child: threads' cached "already seen" marks expire */
    struct launch_watch_stream per_thread_streams[LAUNCH_WATCH_MAX_STREAMS];
    int per_thread_stream_count;
    char first_notice[256];
    CUpti_SubscriberHandle subscriber;
    int subscribed;
    int watching_launches;
    /* Called at the exit of every successful launch with its correlation id, innermost call first
     * (a runtime launch's driver call, then the runtime call itself), so the last call a thread
     * makes names the kernel record's id; NULL: nothing. Set after launch_watch_init; kept by
     * launch_watch_reset. The NCCL profiler plugin uses it to link collectives to kernels. */
    void (*launch_exited)(uint32_t correlation_id);
    /* Called for every runtime and driver API callback (entry and exit), after the launch
     * bookkeeping; NULL: nothing. The collector's host call records (host_calls.h). Set after
     * launch_watch_init; kept by launch_watch_reset. */
    void (*api_called)(void *context, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                       const CUpti_CallbackData *call);
    void *api_called_context;
    /* Called for every enabled NVTX callback (CUPTI_CB_DOMAIN_NVTX: data is a CUpti_NvtxData); NULL:
     * nothing. The capture ranges of record --capture-range=nvtx:NAME (collector.c). */
    void (*nvtx_called)(CUpti_CallbackId id, const CUpti_NvtxData *data);
};

/* Initialises watch (all counts zero). */
void launch_watch_init(struct launch_watch *watch);

/* Forgets every count and stream (in a fork child, where the parent's threads do not exist); the
 * subscription stays. */
void launch_watch_reset(struct launch_watch *watch);

/* Subscribes as "overlapscope" and enables the STATE domain and, when watch_launches, the launch
 * callbacks (without them launch_watch_launches stays 0 and no per-thread stream is found). Returns
 * CUPTI's result; on CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, earlier_subscriber (size
 * bytes, at least CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1) holds the name of the client that was
 * first, or "" when CUPTI does not know it. */
/* The callback ids of the analysis API set (common/cuda_api.h) in a domain, by CUPTI's names: at
 * most capacity of them written to ids; returns how many. The collector's activity switches and
 * the cost probe both enable these. */
#define LAUNCH_WATCH_MAX_API_IDS 1024 /* CUDA 13: 525 runtime, 809 driver ids, a few hundred chosen */
int launch_watch_analysis_api_ids(CUpti_CallbackDomain domain, CUpti_CallbackId *ids, int capacity);

#define LAUNCH_WATCH_PROBE_API_CALLS 2 /* watch_launches: launches, plus the cost probe (launch_watch.c) */

CUptiResult launch_watch_subscribe(struct launch_watch *watch, int watch_launches, char *earlier_subscriber,
                                   size_t size);

/* Successful kernel launches seen: the larger of the runtime and driver counts (a runtime launch
 * may also appear as a driver call, so the two are not added). */
int64_t launch_watch_launches(struct launch_watch *watch);

/* Turns on the callbacks of ids (count of them) of domain, for api_called. Returns how many CUPTI
 * accepted. */
int launch_watch_enable_api_ids(struct launch_watch *watch, CUpti_CallbackDomain domain,
                                const CUpti_CallbackId *ids, int count);

#endif
