/* call_site_cupti.h: call_site.h's CUPTI side: which callback ids are blocking calls, and the
 * callback step that hands their entries and exits to call_site_enter / call_site_exit.
 *
 * A blocking call is one that cuda_api_blocks_host (common/cuda_api.h) names, asked once per
 * callback id with cuptiGetCallbackName: device, context, stream and event synchronize,
 * synchronous copies, cudaMalloc/cudaFree and their driver forms. The callback step is a table
 * lookup; only a blocking call goes further (call_site.h says what that costs and why there). */
#ifndef OVERLAPSCOPE_CALL_SITE_CUPTI_H
#define OVERLAPSCOPE_CALL_SITE_CUPTI_H

#include <cupti.h>

#include "call_site.h"

struct call_site_cupti {
    unsigned char runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE]; /* 1: the id blocks the host */
    unsigned char driver[CUPTI_DRIVER_TRACE_CBID_SIZE];
};

/* Fills the tables from CUPTI's callback names, for the domains whose API calls the trace records
 * (a source for a call that has no api_calls row would name nothing): the other table stays empty. */
void call_site_cupti_init(struct call_site_cupti *blocking, int runtime_recorded, int driver_recorded);

/* The blocking callback ids of domain: at most capacity of them into ids; returns how many. */
int call_site_cupti_ids(const struct call_site_cupti *blocking, CUpti_CallbackDomain domain,
                        CUpti_CallbackId *ids, int capacity);

/* The subscriber's step for a runtime or driver API callback: the entry of a blocking call is
 * call_site_enter with the call's correlation id, its exit call_site_exit; other ids return at
 * once. */
void call_site_cupti_on_api(const struct call_site_cupti *blocking, struct call_site *sites,
                            CUpti_CallbackDomain domain, CUpti_CallbackId id, const CUpti_CallbackData *call);

#endif
