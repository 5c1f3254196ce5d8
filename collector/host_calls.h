/* host_calls.h: host API calls, synchronizations and event records taken from the collector's own
 * CUPTI callbacks (the default), instead of CUPTI's RUNTIME, DRIVER, SYNCHRONIZATION and
 * CUDA_EVENT activity kinds (`OVERLAPSCOPE_CALLS_FROM=activity`, and `record --api all`).
 *
 * Why: measured on an H100 with PyTorch (docs/collector.md, "What recording costs"), enabling any
 * of those four activity kinds slowed ResNet-50 training by 20-25% on its own, while a callback on
 * every call of the analysis API set (common/cuda_api.h) cost nothing measurable. The rows are
 * the same ones (host_call_record.h): the call's entry and exit timestamps from cuptiGetTimestamp
 * (the activity clock), its correlation id (the id CUPTI gives its kernels and copies), OS thread
 * id and return value; for a synchronizing call its type, stream and event; for an event record its
 * stream. A driver call made inside a recorded runtime call on the same thread is not recorded:
 * the runtime call carries the correlation id of the work, and the inner call would only double
 * the rows.
 *
 * The callback does no I/O and takes no lock (call_buffers.h): two timestamps, a few reads of the
 * call's parameters, one CUPTI id lookup for a stream or context, one append. */
#ifndef OVERLAPSCOPE_HOST_CALLS_H
#define OVERLAPSCOPE_HOST_CALLS_H

#include <cupti.h>

#include "call_buffers.h"

typedef struct host_calls host_calls;

struct host_calls_options {
    int runtime_rows, driver_rows; /* api_calls rows of each domain */
    int sync_rows, event_rows;     /* synchronizations and cuda_events rows */
};

/* Appends into buffers (not owned). Looks up the callback names of both domains once (cuptiGet-
 * CallbackName, common/cuda_api.h). NULL when out of memory. */
host_calls *host_calls_new(const struct host_calls_options *options, call_buffers *buffers);
void host_calls_free(host_calls *calls);

/* The callback ids of domain the recording needs callbacks on: at most capacity of them into ids;
 * returns how many. */
int host_calls_callback_ids(const host_calls *calls, CUpti_CallbackDomain domain, CUpti_CallbackId *ids,
                            int capacity);

/* The subscriber's entry and exit callback for a runtime or driver API call (launch_watch.c calls
 * it for every API callback; ids not chosen above return at once). */
void host_calls_on_api(host_calls *calls, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                       const CUpti_CallbackData *call);

/* In a fork child, on the forking thread: its cached thread id and nesting depth are the parent's. */
void host_calls_forget_after_fork(void);

#endif
