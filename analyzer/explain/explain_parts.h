/* explain_parts.h: the explainer's state and the functions its files share, private to
 * analyzer/explain/ (explain.h is the contract). detect.c finds the op X waited for and owns the
 * explainer; rules.c proves the wait's cause, one function per rule; host.c reads what the
 * launching thread was doing from the trace; evidence.c words the evidence; kept_waits.c keeps the
 * waits that lost the most and the cause totals. */
#ifndef OVERLAPSCOPE_EXPLAIN_PARTS_H
#define OVERLAPSCOPE_EXPLAIN_PARTS_H

#include <stdint.h>

#include "explain.h"
#include "naming.h"
#include "queries_explain.h"
#include "queries_launch_blocking.h"
#include "thread_calls.h"
#include "thread_names.h"

/* A start this close before the blocking operation's end is still "when it ended" (clock jitter). */
#define START_JITTER_NS 1000

struct launch_call {
    int known;
    int64_t start_ns, end_ns, thread_id;
    char name[64];
};

struct host_activity {
    int64_t window_ns; /* the host window examined */
    int64_t cuda_ns;   /* time inside CUDA calls in it (nested calls counted once) */
    int has_call;      /* the longest call below */
    int64_t call_start_ns, call_end_ns, call_overlap_ns, call_correlation_id;
    char call_name[64];
};

struct explainer {
    sqlite3 *db;
    kernel_names *names;
    store_explain *queries; /* host.c asks the trace through them */
    thread_calls *calls;    /* borrowed (explainer_share_thread_calls), NULL: the queries serve */
    size_t call_hint;       /* where the last lookup in the held calls landed */
    /* Whether the process of the device being explained has any cudaStreamWaitEvent record: most
     * waits of a trace without them skip the event query (one probe per process instead). */
    int64_t stream_waits_process_id;
    int process_has_stream_waits;
    /* Whether the process of the device being explained ran under CUDA_LAUNCH_BLOCKING
     * (launch_blocking.c), asked once per process. */
    int64_t blocking_process_id;
    int process_blocking, blocking_by_environment;
    struct store_launch_blocking blocking;
    struct analysis_wait *kept; /* min-heap on lost_ns */
    size_t kept_count, max_waits;
    /* The current wait's `describe` (set with it in set_wait_time), for op_name, which is not
     * given the wait: op names, like the rest of the evidence, are formatted only for waits that
     * will be kept (most waits of a long trace are not, and their text was a tenth of the
     * analysis). */
    int describing;
    struct thread_names threads; /* the launching threads' names, for the evidence */
    char thread_text[64];        /* thread_label's */
    int64_t total_waits;
    struct analysis_cause_total causes[ANALYSIS_CAUSE_COUNT];
    /* A worker's explainer (explainer_record_arrivals): every wait that entered the kept waits, in
     * the order found, for the run's explainer to offer again (explainer_take_device). */
    int recording, arrivals_out_of_memory;
    struct analysis_wait *arrivals;
    size_t arrival_count, arrival_capacity;
};

/* A call the thread made when the blocking op ended. */
struct blocking_call {
    int64_t start_ns, end_ns;
    char name[64];
    int issued_pageable_copy; /* the call issued `blocking`, a copy with a pageable side */
};

/* How X came to wait, which decides the rules tried (docs/metrics.md, "Detection"). */
enum wait_road {
    ROAD_LATE = 1,     /* X's launch reached the GPU only after (or just before) B ended */
    ROAD_HELD = 2,     /* a blocking host call held the launching thread when B ended (rule 4) */
    ROAD_READY = 4,    /* X was enqueued while B ran, yet started only when B ended */
    ROAD_RESOURCES = 8 /* X started while B ran, well after it was ready (rule 3b) */
};

/* One wait being proved. */
struct wait_case {
    struct device_state *device;
    struct lane_state *waiting_lane, *blocking_lane;
    const struct model_op *waiting, *blocking;
    int64_t previous_end_ns;         /* of the waiting stream; INT64_MIN when none */
    const struct model_op *previous; /* the waiting stream's previous op, or NULL */
    struct launch_call launch;
    int in_graph;
    const struct model_op *queue_head; /* shared-queue candidate: the op ahead of X on its channel */
    int same_communicator_candidate;   /* X and B are NCCL kernels, B the device's latest one */
    int resources_held;                /* X started while B still ran: B's blocks held what X needed */
    int other_running;                 /* another stream's op was running when X started */
    int describe;                      /* 0: the wait will not be kept, skip writing its evidence */
    enum wait_road road;
    int64_t ready_ns;              /* when X could have started (docs/metrics.md, "ready time") */
    struct blocking_call call;     /* ROAD_HELD: the call that held the thread */
    int activity_read;             /* ROAD_LATE: `activity` has been read */
    struct host_activity activity; /* ROAD_LATE: the launching thread's calls before X's launch */
    struct analysis_wait wait;
};

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static inline int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int is_pageable_copy(const struct model_op *op)
{
    return op->kind == MODEL_MEMCPY && store_copy_is_pageable(op->src_kind, op->dst_kind);
}

/* --- detect.c --- */

/* How long the last wave of the lane's last kernel took (duration / waves), or 0 when the
 * kernel is not known to have filled the device in more than one wave. Computes the lane's cached
 * occupancy. */
int64_t explain_last_wave_ns(const struct device_state *device, struct lane_state *lane);

/* --- rules.c: proving a wait found by detect.c --- */

/* X waited for B, found by detection rules 1 to 3b: sets the wait's road and time, then proves. */
void explain_prove(explainer *explain, struct wait_case *item);
/* Detection rule 4: X's launch came only after a blocking call that held the thread until B ended. */
void explain_prove_host_sync(explainer *explain, struct wait_case *item);

/* --- host.c: what the launching thread was doing --- */

/* Prepares (finalizes) the queries host.c asks the trace. Returns 0, or -1 with err filled. */
int explain_host_open(explainer *explain, error_info *err);
void explain_host_close(explainer *explain);
/* Fills item->launch with X's launch call (launch.known 0 when the trace has none). */
void explain_find_launch(explainer *explain, struct wait_case *item);
/* The launching thread's CUDA calls from the wait's start to X's launch, read once per wait (none
 * when the launch call itself began before the wait: the window is empty). */
const struct host_activity *explain_activity_before_launch(explainer *explain, struct wait_case *item);
/* The activity when one call covered at least half of that time, else NULL. */
const struct host_activity *explain_holding_call(explainer *explain, struct wait_case *item);
/* Reads the memcpy a call issued: 1 when found. */
int explain_copy_of_call(explainer *explain, int64_t process_id, int64_t correlation_id,
                         struct model_op *copy);
/* Where the launching thread was when `blocking` ended (rule 4): 1 and call filled when found. */
int explain_find_blocking_call(explainer *explain, const struct wait_case *item, struct blocking_call *call);
/* A cudaStreamWaitEvent on X's stream, issued after its previous op and before its launch, for an
 * event recorded on B's stream after B: 1 and *event_id filled when the trace holds one. */
int explain_find_event_wait(explainer *explain, const struct wait_case *item, int64_t *event_id);
/* The communicator of an NCCL kernel (collectives.communicator), copied into buffer; 0 when the
 * trace does not name it. */
int explain_communicator_of(explainer *explain, const struct model_op *op, char *buffer, size_t size);

/* --- evidence.c: the evidence's words, written only for a wait that will be kept --- */

/* Writes the wait's evidence line, unless nobody will read it. */
void explain_describe(struct wait_case *item, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* "thread 1082 (python3)", or "thread 1082" where the trace names no thread. */
const char *explain_thread_label(explainer *explain, const struct wait_case *item);
/* launch_blocking.c: the rule of CUDA_LAUNCH_BLOCKING (a wait on the late road of a process whose
 * launches returned only after their kernels ended, or whose recorded environment sets it). */
int explain_launch_blocking(explainer *explain, struct wait_case *item);
/* A bounded copy, cut at size - 1 bytes ("?" for NULL). */
void explain_copy_text(char *buffer, size_t size, const unsigned char *text);
const char *explain_duration(char *buffer, size_t size, int64_t nanoseconds);
/* "sgemm_256x128", "HtoD 64.0 MiB (pageable)", "memset 1.00 MiB" ("" when not describing). */
void explain_op_name(explainer *explain, const struct model_op *op, char *buffer, size_t size);
/* An op's name in a sentence that has just named another op (the same name says its stream). */
const char *explain_second_name(char *buffer, size_t size, const char *first, const char *second,
                                int64_t stream_id);
const char *explain_op_kind_word(const struct model_op *op);
/* "returned 7.08 ms after" / "returned only 3.07 us before" the blocking op's end. */
void explain_launch_timing(const struct wait_case *item, char *when, size_t size);
/* How long the holding call held the thread, formatted only for a kept wait. */
const char *explain_held_for(const struct wait_case *item, const struct host_activity *held, char *buffer,
                             size_t size);

/* --- kept_waits.c --- */

/* Counts the wait in the totals and keeps it when it is among the largest. */
void explain_record_wait(explainer *explain, struct wait_case *item);
/* Whether a wait losing lost_ns would enter the kept waits. */
int explain_would_keep(const explainer *explain, int64_t lost_ns);

#endif
