/* accountant_state.h: the accountant's state, private to analyzer/accounting/: its ledger (ledger.h),
 * what it knows of the trace's current process and the device being walked. accounting.c, the
 * driver, fills it; idle.c (idle gaps) reads the process's host records through it and
 * exposed_comm.c keeps its open NCCL kernels and collective instances in it. */
#ifndef OVERLAPSCOPE_ACCOUNTANT_STATE_H
#define OVERLAPSCOPE_ACCOUNTANT_STATE_H

#include "accountant.h"
#include "cuda_api.h"
#include "host_samples.h"
#include "ledger.h"
#include "queries_idle.h"
#include "thread_calls.h"
#include "thread_names.h"

/* The starts of the NCCL kernels the waits found held behind compute (comm-behind-compute), sorted,
 * for each collective instance asks in log time. */
struct behind_start {
    int64_t process_id, device_id, start_ns;
};

/* A row of call_sources: the string source_id names where the call correlation_id was made. */
struct call_source_row {
    int64_t correlation_id, source_id;
};

/* A stream-wait-event record of the process (synchronizations, sync_type 2). */
struct stream_wait {
    int64_t start_ns, stream_id, event_id;
};

/* What cuda_api.h says of a host call's name (idle.c), kept per name id. */
struct call_kind {
    int64_t name_id; /* 0: an empty slot */
    int blocks_host;
    enum cuda_api_class api_class;
};
#define ACCOUNTANT_CALL_KINDS 64 /* slots, by name id: a trace calls a few dozen API functions */

/* The context a synchronization record (by its call's correlation id) waited on. */
struct sync_context {
    int64_t correlation_id, context_id;
};

struct accountant {
    sqlite3 *db;
    kernel_names *names;
    const struct accountant_remote *remote; /* NULL, or where other processes' traces are asked */
    struct ledger ledger;                   /* the books, and the intervals the picture marks */
    /* The device being walked. */
    struct selection *selection;
    int started;
    int64_t busy_until_ns;
    /* The launch rate (idle.c): operations seen, idle time so far, and the last gap the host ended
     * with a launch, to measure the host's issue period against the GPU's time per operation. */
    int64_t ops_seen, idle_seen_ns;
    struct {
        int64_t thread_id, launch_start_ns, op_start_ns, ops_seen, idle_seen_ns;
    } last_launch;
    size_t step_cursor;
    int64_t sweep_time_ns, compute_end_ns;
    struct comm_kernel *open;
    size_t open_count, open_capacity;
    int64_t open_end_min_ns; /* the earliest end of the open ones */
    int64_t ordinal;
    /* What the trace holds for the device's process. */
    int64_t known_process;
    int process_has_api, process_has_syncs, process_has_collectives, process_has_sources, has_call_sources;
    int process_lacks_sync_events;
    int process_has_python_sources; /* a call source naming a line (Python or native), not an operator */
    enum trace_origin process_origin;
    /* PYTORCH_NO_CUDA_MEMORY_CACHING's value in the process's recorded environment ("" when not
     * set or not recorded): PyTorch's caching allocator is off, every free a cudaFree (idle.c). */
    char process_uncached_allocator[32];
    store_idle *queries; /* the store's questions (queries_idle.h) */
    /* Warm-up (warmup.c): the device's kernel names with their first start and run count, read on
     * the device's first host gap (warmup_read). */
    struct store_kernel_runs *warmup_names;
    size_t warmup_name_count;
    int warmup_read;
    thread_calls *threads; /* the launching threads' calls in memory; NULL: the two queries above */
    size_t call_hint;      /* where the last gap's calls began in its thread's (a search's start) */
    size_t launch_hint;    /* where the last gap's launch was in its device's launches (the same) */
    struct call_kind call_kinds[ACCOUNTANT_CALL_KINDS];
    /* The call sources of sources_process (sources_held), by correlation id, ties in the order of the
     * source query's index: each idle gap asks for its launch's, and a query per gap was a tenth of
     * a host-bound trace's analysis. Not held (the query serves): another process, out of memory. */
    struct call_source_row *sources;
    size_t source_count;
    int64_t sources_process;
    int sources_held;
    /* Let go of when a device's walk ended (16 bytes per call of the process held through the
     * what-if replay otherwise: issue 33), read again for the process's next device. */
    int sources_released;
    /* The process's stream-wait-event records in the order of the wait query's index (start, then
     * rowid): a queued gap asks for the last one on its stream before its launch, which the query
     * found by walking back over every synchronization (2 M instructions a gap on a ResNet-50
     * recording). Not held (the query serves): out of memory, a read error. */
    struct stream_wait *stream_waits;
    size_t stream_wait_count;
    int stream_waits_held;
    /* Which context each synchronization of the process waited on (by correlation id, sorted), and
     * the contexts of the current device's streams: a blocking call whose synchronization names
     * none of them waited for another device (idle.c). Not held: no call is told apart. */
    struct sync_context *sync_contexts;
    size_t sync_context_count;
    int sync_contexts_held;
    int64_t *device_contexts;
    size_t device_context_count;
    int device_contexts_held;
    host_samples *host; /* the host-sample verdicts of host-cpu stretches (host_samples.h) */
    /* A blocking call whose source is an anonymous native frame is named with its thread. */
    struct thread_names thread_names;
    struct accounting_instance *instances; /* handed to the result */
    size_t instance_count, instance_capacity;
    struct behind_start *behind; /* while collecting */
    size_t behind_count;
};

#endif
