/* ledger.h: the accountant's books, private to analyzer/accounting/. idle.c (idle gaps) and
 * exposed_comm.c (communication with no compute under it) give time to a cause here; accounting.c,
 * the driver, opens a device's books, walks its operations and turns the books into the result.
 * The ledger calls none of them. */
#ifndef OVERLAPSCOPE_LEDGER_H
#define OVERLAPSCOPE_LEDGER_H

#include <string.h>

#include "accountant.h"

/* Copies text into buffer as snprintf("%s") would, without its cost: on a host-bound trace this runs
 * for every host call named and every stretch of idle time kept around every idle gap. */
static inline void ledger_copy_text(char *buffer, size_t size, const char *text)
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
    /* host samples (host_samples.h): the launching thread's samples in the stretches, how many of them
     * showed the label's line, how many found it waiting (not running); the children's CPU time
     * over their sampled time (a DataLoader's workers) and how many of their samples were in disk
     * wait */
    int64_t samples, line_samples, waiting_samples;
    int64_t worker_cpu_ns, worker_span_ns, worker_samples, worker_disk_samples, workers;
    const char *detail; /* a sentence kept from the first stretch (may be NULL) */
    /* Or, when detail is NULL, what writes that sentence (snprintf-style, into a buffer of size),
     * called only where it is kept: a sentence per stretch cost a host-bound trace's every gap. */
    void (*write_detail)(const void *context, char *buffer, size_t size);
    const void *detail_context;
};

/* A bucket's texts: "" is ledger_no_text, never allocated. */
extern const char ledger_no_text[1];

struct bucket {
    enum accounting_cause cause;
    /* On the heap, cut to 63 and 127 bytes as accounting_entry's label and source hold them (or
     * ledger_no_text): 192 bytes in every bucket, five buckets a step, were 35 of the bytes per
     * operation at the analysis's peak (issue 33). ledger_set_text writes them. */
    const char *label, *source;
    int64_t ns, count, last_counted;
    int64_t largest_ns; /* the largest stretch given to it, whose source it names (not host-sync) */
    struct evidence_figures figures;
    /* Said after the evidence: the first stretch's that had one (at most LEDGER_DETAIL_BYTES - 1
     * characters), NULL while none had; the bucket's. On the heap, not a 256-byte buffer in each of
     * a trace of 100,000 steps' buckets, where it is rare. */
    char *detail;
};
enum { LEDGER_DETAIL_BYTES = 256 };

/* Sets *text to text cut to size - 1 bytes, freeing the old one. Returns 0, or -1 when out of
 * memory (*text untouched). */
int ledger_set_text(const char **text, const char *value, size_t size);
/* Frees *text (ledger_no_text, NULL: nothing) and sets it NULL. */
void ledger_free_text(const char **text);
enum { LEDGER_LABEL_BYTES = 64, LEDGER_SOURCE_BYTES = 128 };

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

/* One device's books. */
struct device_books {
    size_t result_index; /* ACCOUNTANT_PEER: a device of another rank, only for matching */
    int64_t process_id, device_id, rank, pid;
    int64_t compute_ns; /* union of its compute kernels on the selection's clock (load imbalance) */
    int64_t compute_end_ns;
    struct breakdown_builder idle, comm;
    struct breakdown_builder *step_idle, *step_comm; /* per step of the process */
    size_t first_step, step_count;                   /* those steps: acc->steps[first_step ...] */
    /* Those steps' indexes (k) by start then k, the latest end among the first i of that order,
     * and the indexes by end then k: a stretch finds the steps around it by binary search, not by a
     * scan of every step (built at the first stretch; ledger.c). */
    size_t *by_start, *by_end;
    int64_t *reach;
    struct comm_kernel *kernels;
    size_t kernel_count, kernel_capacity;
    /* Idle time outside every step's GPU activity while the host was still in the step (step-end),
     * by the cause it would have had: a fix proved by that cause applies to it too
     * (accountant_device_idle). */
    int64_t between_steps_ns[ACCOUNTING_CAUSE_COUNT];
    struct host_work *host_work; /* its host-cpu stretches (accountant_device_idle) */
    size_t host_work_count, host_work_capacity;
    int64_t interval_first; /* its first interval in acc->intervals */
    size_t interval_end;    /* and the end of its idle intervals (its walk) */
    /* What the trace holds for the device's process (accounting.c: unchecked causes). */
    int has_api, lacks_sync_events, has_sources, first_of_process;
    int has_python_sources; /* some call source names a line (Python or native), not only operators */
    enum trace_origin { ORIGIN_RECORD, ORIGIN_KINETO, ORIGIN_NSYS } origin;
};

/* An interval of the books (32 bytes): struct accounting_interval with its label (the same for
 * most of them: a few dozen causes and call names) one of the ledger's labels, not 64 bytes of
 * its own; the books hold up to ACCOUNTING_MAX_INTERVALS of them through the what-if replay
 * (issue 33). ledger_interval_out gives the result's. */
struct ledger_interval {
    int64_t start_ns, end_ns;
    uint32_t device; /* a book, as accounting_interval.device */
    uint32_t label;  /* into the ledger's labels */
    enum accounting_cause cause;
};

/* The distinct labels of the ledger's intervals, each as accounting_interval.label holds it (cut
 * to 63 bytes), found by a hash of open addressing (slots: 1 + a label's index, 0 empty). */
struct ledger_labels {
    char (*texts)[64];
    size_t count, capacity;
    uint32_t *slots;
    size_t slot_count; /* a power of two, at least twice count; 0 before the first */
};

/* Every device's books and the intervals of idle time and exposed communication, in the order
 * given. */
struct ledger {
    const struct analysis_step *steps; /* the run's steps (result->steps) */
    size_t step_count;
    struct device_books *books;
    size_t book_count, book_capacity;
    size_t current_book; /* the books ledger_attribute writes to */
    int64_t next_mark;   /* a stretch's mark: the stretches of one gap or instance count once */
    struct ledger_interval *intervals;
    size_t interval_count, interval_capacity;
    struct ledger_labels labels;
};

/* The result's form of interval, device as given. */
void ledger_interval_out(const struct ledger *ledger, const struct ledger_interval *interval, size_t device,
                         struct accounting_interval *out);
/* Appends in's intervals (those of the device whose book is `device`) as the ledger's, up to
 * room for count (the caller made it). Returns 0 or -1 when out of memory. */
int ledger_interval_in(struct ledger *ledger, const struct accounting_interval *in, size_t device);
/* Makes room for count intervals in all. Returns 0 or -1 when out of memory. */
int ledger_reserve_intervals(struct ledger *ledger, size_t count);
/* Frees the intervals and their labels. */
void ledger_intervals_free(struct ledger *ledger);

/* The books being written (the device being walked), or NULL. */
struct device_books *ledger_current(struct ledger *ledger);
/* Frees a device's books (not the struct itself). */
void ledger_books_free(struct device_books *books);
/* Gives [start_ns, end_ns) (length_c on the selection's clock) to cause on the current device and
 * to each of its steps the stretch meets; idle time outside every step of a process that has steps
 * goes to ACCOUNTING_IDLE_STEP_BOUNDARY, labelled with the cause it would have had. selection may
 * be NULL (the stretch is measured as is). Returns 0 or -1 (out of memory). */
int ledger_attribute(struct ledger *ledger, struct selection *selection, enum accounting_cause cause,
                     const char *label, const char *source, int64_t start_ns, int64_t end_ns,
                     int64_t length_c, const struct evidence_figures *figures);
/* ledger_attribute for host-cpu time (cause: host-cpu or the verdict its host samples gave it),
 * whose part inside the steps (all of it without steps) is also kept as the device's host work
 * (accountant_device_idle): the what-if removes exactly that. */
int ledger_attribute_host_work(struct ledger *ledger, struct selection *selection,
                               enum accounting_cause cause, const char *label, const char *source,
                               int64_t start_ns, int64_t end_ns, int64_t length_c,
                               const struct evidence_figures *figures, int64_t launch_ns);
struct device_books *accountant_current(struct ledger *ledger);
/* Adds figures to the current device's (cause, label) over its whole span, without time. Returns 0 or -1. */
int ledger_add_figures(struct ledger *ledger, enum accounting_cause cause, const char *label,
                       const struct evidence_figures *figures);

/* Puts a breakdown's entries in the order every report lists them: most time first, then by
 * cause, then by label. */
/* Frees a builder's buckets and leaves it empty (freeing it again is harmless). */
void ledger_builder_free(struct breakdown_builder *builder);
void ledger_sort_entries(struct accounting_breakdown *breakdown);

/* *sum += value, stopping at int64's ends instead of overflowing (a hostile trace's figures). */
void ledger_add_saturating(int64_t *sum, int64_t value);

#endif
