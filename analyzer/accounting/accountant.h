/* accountant.h: the analyzer's side of accounting.h. analysis.c hands the accountant every
 * operation the sweep counts, in start order, device by device; the accountant finds the idle
 * gaps (idle.c proves each gap's cause from the host's API records) and the stretches of
 * communication with no compute running (exposed_comm.c), and at the end matches collective
 * instances across ranks and writes the breakdowns into the result. Memory: per device, its
 * causes and its NCCL kernels' exposed stretches; per trace, the result's breakdowns. */
#ifndef OVERLAPSCOPE_ACCOUNTANT_H
#define OVERLAPSCOPE_ACCOUNTANT_H

#include <sqlite3.h>

#include "analysis.h"
#include "crew.h"
#include "device_state.h"
#include "kernel_names.h"

typedef struct accountant accountant;

/* steps: the run's steps (result->steps, found before any device); they must outlive the accountant. */
accountant *accountant_new(sqlite3 *db, kernel_names *names, const struct analysis_step *steps,
                           size_t step_count, error_info *err);
void accountant_free(accountant *acc);

/* The threads' calls the accountant holds in memory (thread_calls.h), for the explainer to share;
 * NULL when none (out of memory). Owned by the accountant. */
struct thread_calls *accountant_thread_calls(accountant *acc);

/* Starts a device. Returns 0 or -1 (out of memory). */
int accountant_begin_device(accountant *acc, struct device_state *device);
/* One counted operation (start order). Returns 0, or -1 with err filled. */
int accountant_observe(accountant *acc, struct device_state *device, const struct model_op *op,
                       error_info *err);
/* Ends the device: result_index is its index in result->devices, SIZE_MAX when the device was
 * dropped (nothing selected), or ACCOUNTANT_PEER for a device of another rank than the one
 * selected (--rank): its books stay for matching collectives across ranks (who arrived last, how
 * late, its compute for load imbalance), and give the result nothing of their own. Returns 0, or
 * -1 with err filled. */
#define ACCOUNTANT_PEER (SIZE_MAX - 1)
int accountant_end_device(accountant *acc, struct device_state *device, size_t result_index, error_info *err);
/* A stretch of the host's own work (host-cpu) that kept the device idle: ns, before the launch of
 * the operation that ended the gap (launch_ns). */
struct host_work {
    int64_t launch_ns, ns;
};
/* The idle time of the device ended last (kept, not dropped), over its whole selection: final once
 * the device ends (no other device changes it), so the what-if replay can ask for the fixes it
 * proves before replaying. */
struct device_idle {
    int64_t ns[ACCOUNTING_CAUSE_COUNT]; /* by cause */
    /* Time outside every step's GPU activity while the host was still in the step (in ns[] as
     * step-end), by the cause it would have had inside it: what a fix would remove there too. */
    int64_t between_steps_ns[ACCOUNTING_CAUSE_COUNT];
    const struct host_work *host_work; /* the accountant's, in the order found */
    size_t host_work_count;
};
void accountant_device_idle(accountant *acc, struct device_idle *idle);
/* --- a device's books between accountants (handover.c) ---
 * A worker of the analysis (analysis_pool.h) walks devices with its own accountant on its own
 * connection and hands each device's books to the run's accountant, device by device in device
 * order, so that the run's books are those one accountant walking every device would hold. */
struct accountant_device {
    struct device_books *books;            /* NULL: the device began no books, or dropped them */
    struct accounting_interval *intervals; /* its intervals, device field unset */
    size_t interval_count;
    int64_t next_mark; /* the worker's ledger mark after the device */
    int began, dropped;
    int64_t process_id;
};
/* Takes the books of the device ended last (after accountant_end_device and
 * accountant_device_idle) out of a worker's accountant. Returns 0, or -1 when out of memory. */
int accountant_take_device(accountant *worker, struct accountant_device *out);
/* Appends a device's books to the run's accountant with their result index (ACCOUNTANT_PEER for
 * a peer), as the device after those adopted so far; takes ownership of in's memory (freed, in
 * zeroed). Returns 0, or -1 when out of memory. */
int accountant_adopt_device(accountant *run, struct accountant_device *in, size_t result_index);
/* Frees what a device's books hold (one not adopted). */
void accountant_device_free(struct accountant_device *device);

/* Splits exposed communication across ranks, names the straggler and moves everything into
 * result (which must hold its devices and waits); the devices' breakdowns are built on team's
 * workers (crew.h; NULL: on this thread; the result is the same). Returns 0, or -1 with err
 * filled. */
int accountant_collect(accountant *acc, struct analysis_result *result, crew *team, error_info *err);

/* What accountant_collect reads of a process's trace where another process holds it (process 0
 * of a share whose processes each imported their own rank files: analysis_share.local). Each
 * returns 1 with the answer filled, or 0 when this process's trace holds process_id (the
 * accountant reads it itself). */
struct accountant_remote {
    int (*call_source)(void *context, int64_t process_id, int64_t correlation_id, char *source, size_t size);
    int (*kernel_covering)(void *context, int64_t process_id, int64_t device_id, int64_t from_ns,
                           int64_t to_ns, int64_t *name_id, int64_t *covered_ns);
    void *context;
};
/* remote (may be NULL: none) must outlive acc's accountant_collect. */
void accountant_set_remote(accountant *acc, const struct accountant_remote *remote);
/* The owner's answers to those, from acc's trace: the source line of a waiting op's launch (as a
 * wait's source), and the kernel (not communication) that covered most of [from_ns, to_ns) on the
 * device (*name_id -1: none) with how long. */
void accountant_call_source(accountant *acc, int64_t process_id, int64_t correlation_id, char *source,
                            size_t size);
void accountant_kernel_covering(accountant *acc, int64_t process_id, int64_t device_id, int64_t from_ns,
                                int64_t to_ns, int64_t *name_id, int64_t *covered_ns);
/* Frees what accountant_collect put into result (analysis_free calls it). */
void accountant_free_result(struct analysis_result *result);

#endif
