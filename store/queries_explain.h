/* queries_explain.h: the questions the analyzer's explainer (analyzer/explain/host.c) asks of the
 * trace, about the thread that launched a waiting operation: its launch call, the CUDA calls it
 * made around it, the copy a call issued, the stream waits and events the program recorded and an
 * NCCL kernel's communicator. Each question is one statement prepared once and reused (the
 * explainer asks them only for candidate waits, by index). Rows that can be many are streamed to a
 * callback; a row's text is valid only inside the callback. */
#ifndef OVERLAPSCOPE_QUERIES_EXPLAIN_H
#define OVERLAPSCOPE_QUERIES_EXPLAIN_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* At most this many of the launching thread's CUDA calls are read in one host window. */
#define STORE_EXPLAIN_HOST_CALLS_MAX 4096
/* At most this many synchronization records are read back from the waiting op's launch. */
#define STORE_EXPLAIN_SYNC_LOOKBACK_ROWS 256
/* At most this many of the thread's calls are walked back from a launch. */
#define STORE_EXPLAIN_CALLS_BACK_MAX 64

typedef struct store_explain store_explain;

/* Prepares the questions on db (which must outlive them). NULL with err filled on failure. */
store_explain *store_explain_open(sqlite3 *db, error_info *err);
void store_explain_close(store_explain *queries);

/* An API call as recorded. correlation_id is STORE_NULL when the record has none; name is NULL when
 * the call's name is unknown. */
struct store_explain_call {
    int64_t start_ns, end_ns, thread_id, correlation_id;
    const unsigned char *name;
};
/* Returns non-zero to stop the walk. */
typedef int store_explain_call_visit(void *context, const struct store_explain_call *call);

/* The API call of (process_id, correlation_id) (CUPTI gives runtime and driver calls their own
 * correlation ids: one row at most), handed to visit. Returns 1 when found, else 0. */
int store_explain_launch(store_explain *queries, int64_t process_id, int64_t correlation_id,
                         store_explain_call_visit *visit, void *context);
/* The host rules read CUDA calls (api_domain < 3): an OS runtime wait an import holds (a poll
 * inside cudaDeviceSynchronize, a pthread_cond_wait) is no CUDA call (store.h).
 * store_explain_host_calls: the thread's last CUDA call that began before from_ns, then its CUDA
 * calls that began in [from_ns, to_ns) in start order (at most STORE_EXPLAIN_HOST_CALLS_MAX). */
void store_explain_host_calls(store_explain *queries, int64_t process_id, int64_t thread_id, int64_t from_ns,
                              int64_t to_ns, store_explain_call_visit *visit, void *context);
/* The thread's CUDA calls that began before before_ns, latest first (at most
 * STORE_EXPLAIN_CALLS_BACK_MAX), until visit returns non-zero. */
void store_explain_calls_back(store_explain *queries, int64_t process_id, int64_t thread_id,
                              int64_t before_ns, store_explain_call_visit *visit, void *context);

/* The memcpy a call issued (src_kind, dst_kind STORE_NULL when unknown). Returns 1 when found. */
struct store_explain_copy {
    int64_t src_kind, dst_kind, bytes, copy_kind;
};
int store_explain_copy_of_call(store_explain *queries, int64_t process_id, int64_t correlation_id,
                               struct store_explain_copy *copy);

/* Whether the process has any cudaStreamWaitEvent record (synchronizations, sync_type 2). */
int store_explain_has_stream_waits(store_explain *queries, int64_t process_id);

/* A synchronization record: stream_id and correlation_id STORE_NULL when the record has none. */
struct store_explain_sync {
    int64_t sync_type, stream_id, event_id, correlation_id;
};
typedef int store_explain_sync_visit(void *context, const struct store_explain_sync *sync);
/* The process's synchronization records that began at or before at_ns, latest first (at most
 * STORE_EXPLAIN_SYNC_LOOKBACK_ROWS), until visit returns non-zero. */
void store_explain_syncs_before(store_explain *queries, int64_t process_id, int64_t at_ns,
                                store_explain_sync_visit *visit, void *context);

/* The latest record of event_id in the process (before correlation_id unless it is STORE_NULL):
 * 1 and its stream and correlation id (STORE_NULL when unknown) filled when found. */
int store_explain_event_record(store_explain *queries, int64_t process_id, int64_t event_id,
                               int64_t before_correlation_id, int64_t *stream_id, int64_t *correlation_id);

/* The communicator of an NCCL kernel (collectives.communicator), copied into buffer (cut at
 * size - 1 bytes): 1, or 0 when the trace does not name it. */
int store_explain_communicator(store_explain *queries, int64_t kernel_rowid, char *buffer, size_t size);

#endif
