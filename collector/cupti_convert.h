/* cupti_convert.h: turning CUPTI activity records into rows of the overlapscope trace store.
 *
 * One converter writes the records of one process into one store (its per-process file). It
 * owns the little state the conversion needs across records: which device a context is on
 * (stream records do not say), the priority of each stream (kernel records do not say), NVTX
 * ranges still open (CUPTI reports a range's start and end as two records), and the names of
 * API callback ids. It needs the CUPTI headers only, never libcupti, so it is tested on
 * machines without a GPU with hand-made records (tests/collector/test_cupti_convert.c).
 *
 * Mapping rules (docs/trace-format.md): CUPTI's "unknown" values (timestamp 0, stream
 * 0xFFFFFFFF, graph id 0) become NULL; the legacy default stream is the stream whose
 * CUpti_ActivityStream flag is CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL, or the context's
 * nullStreamId; the per-thread default stream is the one cupti_convert_mark_per_thread_default
 * names; a kernel whose name is an NCCL kernel also gets a collectives row linked by
 * kernel_rowid (detail_source 1, kernel name). */
#ifndef OVERLAPSCOPE_CUPTI_CONVERT_H
#define OVERLAPSCOPE_CUPTI_CONVERT_H

#include <stdint.h>

#include <cupti_activity.h>

#include "error.h"
#include "host_call_record.h"
#include "store.h"

typedef struct cupti_convert cupti_convert;

/* Rows written so far, by kind. */
struct cupti_convert_counts {
    int64_t kernels, collectives, memcpys, memsets, synchronizations, devices, contexts, streams;
    int64_t cuda_events, api_calls, nvtx, skipped_records;
    /* Of the skipped: records of kinds the collector never enables (EXTERNAL_CORRELATION,
     * OVERHEAD): another CUPTI client in the process turned them on (competing_profiler.h). */
    int64_t foreign_records;
    /* Kernels, copies and memsets without both timestamps (start 0, end 0 or end before start):
     * a forced flush hands over records of work still running; they are skipped, not stored. */
    int64_t incomplete_records;
};

/* Returns the name of a CUPTI callback id of one API domain (STORE_API_RUNTIME or
 * STORE_API_DRIVER), or NULL when unknown. The collector passes a wrapper of
 * cuptiGetCallbackName; tests their own table. The string must stay valid until the next call. */
typedef const char *(*cupti_convert_api_namer)(void *context, int64_t api_domain, uint32_t callback_id);

/* A converter writing into trace (not owned) for the process with store id process_id. namer may
 * be NULL (API rows are then named "runtime#ID" / "driver#ID"). Free with cupti_convert_free. */
cupti_convert *cupti_convert_new(store *trace, int64_t process_id, cupti_convert_api_namer namer,
                                 void *namer_context);
void cupti_convert_free(cupti_convert *converter);

/* enabled 0: NCCL kernels get no collectives row (record --no-nccl). Default 1. */
void cupti_convert_set_nccl(cupti_convert *converter, int enabled);

/* Converts any record; kinds without a table (overhead, names ...) are counted as skipped.
 * Returns 0 or -1 with err filled (a store failure). */
int cupti_convert_record(cupti_convert *converter, const CUpti_Activity *record, error_info *err);

int cupti_convert_kernel(cupti_convert *converter, const CUpti_ActivityKernel10 *record, error_info *err);
int cupti_convert_memcpy(cupti_convert *converter, const CUpti_ActivityMemcpy6 *record, error_info *err);
int cupti_convert_memset(cupti_convert *converter, const CUpti_ActivityMemset4 *record, error_info *err);
int cupti_convert_synchronization(cupti_convert *converter, const CUpti_ActivitySynchronization2 *record,
                                  error_info *err);
int cupti_convert_device(cupti_convert *converter, const CUpti_ActivityDevice5 *record, error_info *err);
int cupti_convert_context(cupti_convert *converter, const CUpti_ActivityContext3 *record, error_info *err);
int cupti_convert_stream(cupti_convert *converter, const CUpti_ActivityStream *record, error_info *err);
int cupti_convert_cuda_event(cupti_convert *converter, const CUpti_ActivityCudaEvent2 *record,
                             error_info *err);
/* record->kind says the domain: CUPTI_ACTIVITY_KIND_RUNTIME or CUPTI_ACTIVITY_KIND_DRIVER. */
int cupti_convert_api(cupti_convert *converter, const CUpti_ActivityAPI *record, error_info *err);
/* One call the collector's callbacks saw (host_calls.h): its api_calls, synchronizations and
 * cuda_events rows, as CUPTI's RUNTIME/DRIVER, SYNCHRONIZATION and CUDA_EVENT records would give
 * them, except that the event id is the event's handle value and cuda_events.record_ns is NULL. */
int cupti_convert_host_call(cupti_convert *converter, const struct host_call_record *call, error_info *err);
int cupti_convert_marker(cupti_convert *converter, const CUpti_ActivityMarker2 *record, error_info *err);
int cupti_convert_marker_data(cupti_convert *converter, const CUpti_ActivityMarkerData2 *record,
                              error_info *err);

/* Marks stream stream_id of context context_id as its thread's per-thread default stream
 * (streams.is_per_thread_default = 1). CUPTI's records never say so: the collector learns it from
 * its launch callbacks (launch_watch.h). A stream without a stream record gets a row of its own
 * (flags and priority NULL). Call after the last record, before cupti_convert_finish. Returns 0
 * or -1 with err filled. */
int cupti_convert_mark_per_thread_default(cupti_convert *converter, uint32_t context_id, uint32_t stream_id,
                                          error_info *err);

/* Writes what is still held back: streams whose context never said its device (device NULL)
 * and NVTX ranges never closed (ended at the last time seen). Call once, after the last
 * record. */
int cupti_convert_finish(cupti_convert *converter, error_info *err);

const struct cupti_convert_counts *cupti_convert_counts(const cupti_convert *converter);

#endif
