/* host_call_record.h: one host API call as the collector's own CUPTI callbacks saw it.
 *
 * By default the collector does not enable CUPTI's RUNTIME, DRIVER, SYNCHRONIZATION and
 * CUDA_EVENT activity kinds: measured on an H100 (bench/torch_overhead, docs/collector.md), each
 * of them cost a PyTorch job 20-25% on its own, while callbacks on the same calls cost nothing
 * measurable. host_calls.c fills these records at the exit of each call of the analysis API set
 * (common/cuda_api.h); cupti_convert_host_call turns one into the rows CUPTI's records would
 * have given: an api_calls row, and for a synchronizing call a synchronizations row, and for an
 * event record a cuda_events row. Pure C: tests build records by hand. */
#ifndef OVERLAPSCOPE_HOST_CALL_RECORD_H
#define OVERLAPSCOPE_HOST_CALL_RECORD_H

#include <stdint.h>

/* What a record stands for: any mix of these bits. */
enum {
    HOST_CALL_API = 1 << 0,   /* an api_calls row */
    HOST_CALL_SYNC = 1 << 1,  /* a synchronizations row (sync_type, stream_id, event) */
    HOST_CALL_EVENT = 1 << 2, /* a cuda_events row: event recorded on stream_id */
};

enum { HOST_CALL_RUNTIME = 0, HOST_CALL_DRIVER = 1 };

#define HOST_CALL_NO_STREAM UINT32_MAX
#define HOST_CALL_NO_DEVICE UINT32_MAX

struct host_call_record {
    uint64_t start_ns, end_ns; /* cuptiGetTimestamp at the call's entry and exit */
    /* The event's identity: its handle value. CUPTI's own event ids cannot be asked for from a
     * callback; a handle names one event from its creation to its destruction, which is all the
     * analysis needs (it pairs a wait with the latest record of the same event before it). */
    uint64_t event;
    uint32_t correlation_id; /* the callback's, the same id CUPTI gives the call's GPU work */
    uint32_t thread_id;      /* OS thread id */
    uint32_t callback_id;
    uint32_t context_id, device_id; /* device_id: HOST_CALL_NO_DEVICE when unknown */
    uint32_t stream_id;             /* CUPTI's stream id, or HOST_CALL_NO_STREAM */
    int32_t return_value;
    uint8_t domain;    /* HOST_CALL_RUNTIME or HOST_CALL_DRIVER */
    uint8_t what;      /* HOST_CALL_* bits */
    uint8_t sync_type; /* CUpti_ActivitySynchronizationType when what has HOST_CALL_SYNC */
};

#endif
