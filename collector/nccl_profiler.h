/* nccl_profiler.h: NCCL collective details (op, bytes, count, dtype, root, algorithm, protocol,
 * communicator, rank, nranks, sequence number) through NCCL's profiler plugin interface, linked
 * to the kernel each collective ran as.
 *
 * The collector library is itself the plugin: it exports ncclProfiler_v5 (NCCL 2.28), _v4
 * (2.26-2.27) and _v3 (2.25), declared in nccl_profiler_abi.h, and `record` points
 * NCCL_PROFILER_PLUGIN at it. NCCL then dlopens the library CUDA already loaded as the injection
 * (same file, so the same state). Only Coll and P2p events are asked for (activation mask); a
 * start event is copied into a preallocated log under one short lock and nothing else happens
 * on NCCL's thread.
 *
 * The link to the kernel. NCCL (enqueue.cc, 2.23-2.28) launches a plan's kernel with
 * cuLaunchKernelEx and right after it, on the same thread (ncclLaunchKernelAfter_NoCuda ->
 * hostStreamPlanTask), starts the Coll/P2p events of every task of that plan. So a collective ran
 * as the kernel of the last kernel launch its thread made before its start event; the
 * collectives of one ncclGroupStart/End share that launch and that kernel. Two ways to find it:
 *   1. at the source: the collector's CUPTI launch callback tells nccl_profiler_note_launch the
 *      launch's correlation id on the launching thread; the start event takes the thread's last
 *      one. The kernel record has the same correlation id.
 *   2. afterwards, when no callback told (another CUPTI subscriber): the last kernel-launch API
 *      record (cuLaunch..., cudaLaunch...) of the event's thread that started before the event
 *      (same thread id as CUPTI records it, same clock), whose correlation id a kernel has.
 * A link is kept only when that kernel's name is an NCCL kernel. Events NCCL starts from its
 * host-stream callback (CUDA graphs, NCCL_LAUNCH_MODE/blocking launches) run on a thread that
 * launched nothing: they are stored with kernel_rowid NULL. A linked kernel's name-only row
 * (detail_source 1, from cupti_convert) is replaced by the plugin's rows (detail_source 2).
 *
 * Rows are written at the end (nccl_profiler_write), when every kernel and API record is in the
 * per-process file: a process that crashes keeps its name-only rows only. The log holds at most
 * NCCL_PROFILER_MAX_EVENTS events (64 bytes each); later ones are counted and reported as a
 * warning row.
 *
 * State: one struct of this module (the collector's rule: its mutable globals in one struct),
 * and a thread-local last launch correlation id. Needs no CUDA: tests drive the entry points. */
#ifndef OVERLAPSCOPE_NCCL_PROFILER_H
#define OVERLAPSCOPE_NCCL_PROFILER_H

#include <stdint.h>

#include "error.h"
#include "store.h"

#define NCCL_PROFILER_MAX_EVENTS (1 << 21)

/* How the collector reads time and thread ids: the clock of its activity records
 * (cuptiGetTimestamp) and the thread id CUPTI writes into API records. NULL members: the real-time
 * clock and gettid(). */
struct nccl_profiler_hooks {
    int64_t (*now_ns)(void);
    int64_t (*thread_id)(void);
};

/* Starts accepting NCCL events (until nccl_profiler_write or nccl_profiler_stop). Before it, or
 * when it was never called, the plugin's init asks NCCL for no events at all. hooks is copied;
 * it may be NULL. Returns 0, or -1 when out of memory. */
int nccl_profiler_start(const struct nccl_profiler_hooks *hooks);

/* Called on the launching thread by the collector's CUPTI launch callback: correlation_id is the
 * launch's. Lock-free (a thread-local store). */
void nccl_profiler_note_launch(uint32_t correlation_id);

struct nccl_profiler_counts {
    int64_t events;   /* Coll and P2p events logged */
    int64_t linked;   /* rows linked to their kernel */
    int64_t unlinked; /* rows with kernel_rowid NULL */
    int64_t dropped;  /* events beyond NCCL_PROFILER_MAX_EVENTS */
    int64_t replaced; /* name-only rows replaced by plugin rows */
};

/* Stops accepting events, links every logged event to its kernel in trace (rows of process_id,
 * which must hold that process's kernels and API calls: builds the store's indexes), writes the
 * collectives rows and a warning row when events were dropped or none could be linked, and
 * empties the log. counts may be NULL. Returns 0 or -1 with err filled. */
int nccl_profiler_write(store *trace, int64_t process_id, struct nccl_profiler_counts *counts,
                        error_info *err);

/* Stops accepting events and frees the log. */
void nccl_profiler_stop(void);

/* In a forked child: the parent's log and lock are not this process's. Forgets them without
 * touching them (freeing could meet a lock another parent thread held) and stops. */
void nccl_profiler_forget_after_fork(void);

#endif
