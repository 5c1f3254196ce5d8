/* accountant_parts.h: the accountant's state, private to accounting.c (books and results),
 * idle.c (idle gaps) and exposed_comm.c (communication with no compute under it). */
#ifndef OVERLAPSCOPE_ACCOUNTANT_PARTS_H
#define OVERLAPSCOPE_ACCOUNTANT_PARTS_H

#include <string.h>

#include "accountant.h"
#include "cuda_api.h"
#include "thread_calls.h"
#include "thread_names.h"

/* Copies text into buffer as snprintf("%s") would, without its cost: on a host-bound trace this runs
 * for every host call named and every stretch of idle time kept around every idle gap. */
static inline void accountant_copy_text(char *buffer, size_t size, const char *text)
{
    size_t length = strnlen(text, size - 1);
    memcpy(buffer, text, length);
    buffer[length] = '\0';
}

/* Figures a cause's evidence is written from, summed over its stretches. */
struct evidence_figures {
    int64_t calls;       /* host calls (launch-bound: launches) */
    int64_t call_ns;     /* time inside them */
    int64_t longest_ns;  /* the longest single stretch */
    int64_t bytes;       /* communication: bytes moved */
    int64_t transfer_ns; /* communication: transfer time of the instances */
    int64_t late_ns;     /* communication: how late the last rank was, summed over instances */
    /* launch-bound: between two gaps the host filled one launch at a time, the operations it issued,
     * the host time it took (from launch to launch) and the GPU time they ran */
    int64_t issued, issue_ns, issued_busy_ns;
    /* communication: the instances covered, by sequence number (or order on each device) */
    int64_t first_instance, last_instance;
    int has_instance, instance_by_order;
    int64_t nranks;
    const char *detail; /* a sentence kept from the first stretch (may be NULL) */
    /* Or, when detail is NULL, what writes that sentence (snprintf-style, into a buffer of size),
     * called only where it is kept: a sentence per stretch cost a host-bound trace's every gap. */
    void (*write_detail)(const void *context, char *buffer, size_t size);
    const void *detail_context;
};

struct bucket {
    enum accounting_cause cause;
    char label[64], source[128];
    int64_t ns, count, last_counted;
    int64_t largest_ns; /* the largest stretch given to it, whose source it names (not host-sync) */
    struct evidence_figures figures;
    char detail[256];
};

struct breakdown_builder {
    struct bucket *buckets;
    size_t count, capacity;
    int64_t ns;
};

/* A stretch of an NCCL kernel with no compute running. length_c on the selection's clock. */
struct piece {
    int64_t start_ns, end_ns, length_c;
};

struct comm_kernel {
    int64_t rowid, start_ns, end_ns, name_id;
    struct piece *pieces;
    size_t piece_count, piece_capacity;
    int has_collective;
    char op[24], communicator[48];
    int64_t sequence, bytes, nranks, ordinal;
};

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

/* One device's books. */
struct device_books {
    size_t result_index;
    int64_t process_id, device_id, rank;
    struct breakdown_builder idle, comm;
    struct breakdown_builder *step_idle, *step_comm; /* per step of the process */
    size_t first_step, step_count;                   /* those steps: acc->steps[first_step ...] */
    struct comm_kernel *kernels;
    size_t kernel_count, kernel_capacity;
    struct host_work *host_work; /* its host-cpu stretches (accountant_device_idle) */
    size_t host_work_count, host_work_capacity;
    int64_t interval_first; /* its first interval in acc->intervals */
    size_t interval_end;    /* and the end of its idle intervals (its walk) */
    /* What the trace holds for the device's process (accounting.c: unchecked causes). */
    int has_api, lacks_sync_events, has_sources, first_of_process;
    enum trace_origin { ORIGIN_RECORD, ORIGIN_KINETO, ORIGIN_NSYS } origin;
};

/* What cuda_api.h says of a host call's name (idle.c), kept per name id. */
struct call_kind {
    int64_t name_id; /* 0: an empty slot */
    int blocks_host;
    enum cuda_api_class api_class;
};
#define ACCOUNTANT_CALL_KINDS 64 /* slots, by name id: a trace calls a few dozen API functions */

struct accountant {
    sqlite3 *db;
    kernel_names *names;
    const struct analysis_step *steps;
    size_t step_count;
    struct device_books *books;
    size_t book_count, book_capacity;
    size_t current_book; /* the books accountant_attribute writes to */
    /* The device being walked. */
    struct selection *selection;
    int started;
    int64_t busy_until_ns, next_mark;
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
    enum trace_origin process_origin;
    sqlite3_stmt *launch_query, *covering_query, *calls_query, *memcpy_query, *wait_query, *source_query,
        *collective_query, *late_gpu_query;
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
    /* The process's stream-wait-event records in the order of the wait query's index (start, then
     * rowid): a queued gap asks for the last one on its stream before its launch, which the query
     * found by walking back over every synchronization (2 M instructions a gap on a ResNet-50
     * recording). Not held (the query serves): out of memory, a read error. */
    struct stream_wait *stream_waits;
    size_t stream_wait_count;
    int stream_waits_held;
    /* A blocking call whose source is an anonymous native frame is named with its thread. */
    struct thread_names thread_names;
    struct accounting_interval *intervals;
    size_t interval_count, interval_capacity;
    struct accounting_instance *instances; /* handed to the result */
    size_t instance_count, instance_capacity;
    struct behind_start *behind; /* while collecting */
    size_t behind_count;
};

/* Gives [start_ns, end_ns) (length_c on the selection's clock) to cause on the current device and
 * to each of its steps the stretch meets; idle time outside every step of a process that has steps
 * goes to ACCOUNTING_IDLE_STEP_BOUNDARY, labelled with the cause it would have had. selection may
 * be NULL (the stretch is measured as is). Returns 0 or -1 (out of memory). */
int accountant_attribute(accountant *acc, struct selection *selection, enum accounting_cause cause,
                         const char *label, const char *source, int64_t start_ns, int64_t end_ns,
                         int64_t length_c, const struct evidence_figures *figures);
/* accountant_attribute for host-cpu time, whose part inside the steps (all of it without steps) is
 * also kept as the device's host work (accountant_device_idle): the what-if removes exactly that. */
int accountant_attribute_host_work(accountant *acc, struct selection *selection, const char *label,
                                   const char *source, int64_t start_ns, int64_t end_ns, int64_t length_c,
                                   const struct evidence_figures *figures, int64_t launch_ns);
struct device_books *accountant_current(accountant *acc);
/* Adds figures to the current device's (cause, label) over its whole span, without time. Returns 0 or -1. */
int accountant_add_figures(accountant *acc, enum accounting_cause cause, const char *label,
                           const struct evidence_figures *figures);

/* The host-cpu label of a stretch outside CUDA calls with no OS runtime wait in it; a stretch the
 * thread spent in one (nsys imports hold them) is labelled with the call and what it waited for,
 * "pthread_cond_wait (waiting for another thread)". */
#define IDLE_NO_CUDA_CALL "no CUDA call"

/* idle.c: attributes the idle gap [gap_start, gap_end) that `next` ended. Returns 0 or -1. */
int idle_attribute_gap(accountant *acc, struct device_state *device, int64_t gap_start_ns, int64_t gap_end_ns,
                       const struct model_op *next, error_info *err);

/* Fills source with the place in the program of the API call (process, correlation), "" if unknown;
 * a native frame without a function ("libtorch_cuda.so+0xd44816") gets the name of thread_id
 * (STORE_NULL: unknown) where the trace has one: " on thread pt_autograd_0", PyTorch's backward. */
void idle_call_source(accountant *acc, int64_t process_id, int64_t thread_id, int64_t correlation_id,
                      char *source, size_t size);

/* exposed_comm.c */
int exposed_comm_advance(accountant *acc, int64_t time_ns);
int exposed_comm_add(accountant *acc, const struct model_op *op);
int exposed_comm_end_device(accountant *acc, struct device_books *books, error_info *err);
int exposed_comm_collect(accountant *acc, struct analysis_result *result, error_info *err);
void exposed_comm_free_kernels(struct device_books *books);

#endif
