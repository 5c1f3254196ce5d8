/* analysis_parts.h: the parts of analysis_run, private to the analyzer's top: analysis.c (the run:
 * its checks, the cross-device collection and the result), analysis_walk.c (one device's walk into
 * a fragment of the result) and analysis_pool.c (the devices' walks on a pool of threads, merged in
 * device order). A fragment indexes its own lanes and its one device from 0; the merge moves them
 * to the run's places, so that the run holds what one walk of every device in order would give. */
#ifndef OVERLAPSCOPE_ANALYSIS_PARTS_H
#define OVERLAPSCOPE_ANALYSIS_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "accountant.h"
#include "analysis.h"
#include "crew.h"
#include "explain.h"
#include "exposed_copy.h"
#include "gpu_devices.h"
#include "kernel_names.h"
#include "op_source.h"
#include "queries_analysis.h"
#include "selection.h"
#include "sweep.h"

#define ANALYSIS_STREAMS_SEEN 256

/* Everything one analysis_run holds. */
struct run {
    store *trace;
    sqlite3 *db;
    struct analysis_options options;
    struct analysis_result *result;
    kernel_names *names;
    explainer *explain;     /* the run's: the kept waits of every device, in device order */
    accountant *accountant; /* the run's: every device's books, then the cross-device matching */
    /* Each result device's exposed-copy breakdown, handed to its whole-span accounting once the
     * accountant has made them (index: analysis_result.devices), and their intervals. */
    struct accounting_breakdown *copy_breakdowns;
    size_t copy_breakdown_capacity;
    struct accounting_interval *copy_intervals;
    size_t copy_interval_count, copy_interval_capacity;
    size_t lane_capacity, device_capacity, stream_pair_capacity;
    int64_t window_start_ns, window_end_ns; /* absolute; INT64_MIN / INT64_MAX when open */
    size_t ranges_found;
    /* The streams met (for --stream S naming one the selection lacks), at most as many as fit. */
    int64_t streams_seen[ANALYSIS_STREAMS_SEEN];
    size_t streams_seen_count;
    int wanted_stream_seen;
    /* options.progress's count: operations walked of all the trace's kernels, copies and memsets */
    int64_t progress_done_ops, progress_total_ops;
    int jobs;    /* devices walked at once (1: on this thread, no other) */
    crew *crew;  /* the workers of jobs above 1 (NULL: this thread alone), from the start to the end */
    int inexact; /* a worker kept copy stretches past the cap it could not know: walk again on one */
    /* The accounting intervals the merged devices offered the accountant (which keeps
     * ACCOUNTING_MAX_INTERVALS of them): a share's processes send only what it keeps. */
    uint64_t intervals_offered;
    /* A local share's process 0: where its accountant asks the other processes' traces, and
     * whether an ask failed (the result would lack what it asked: the run fails). */
    struct accountant_remote remote;
    int remote_failed;
    error_info *err;
};

/* One device's part of the result, as its walk left it. */
struct device_fragment {
    int status; /* 0, or -1 with err filled */
    error_info err;
    int skipped;                 /* its process has nothing selected: the device began nothing */
    struct analysis_result part; /* lanes, the device (device_count 0 or 1), stream pairs, overlap costs */
    size_t lane_capacity;
    struct accounting_breakdown copy_breakdown; /* of the device, when part has it */
    struct accounting_interval *copy_intervals; /* device 0 */
    size_t copy_interval_count, copy_stretch_count;
    struct accountant_device books;
    struct explainer_device waits;
    size_t ranges_found;
    int wanted_stream_seen;
    int64_t streams_seen[ANALYSIS_STREAMS_SEEN];
    size_t streams_seen_count;
};

/* What walks devices: its connection, its own readers and analyzers, its process's selection. */
struct analysis_walker {
    store *trace;
    sqlite3 *db;
    const struct run *run; /* options, steps, window: read only while walkers run */
    kernel_names *names;
    op_source *source;
    sweep *line;
    explainer *explain;
    accountant *accountant;
    copy_exposure *copies;
    store_analysis_reader *reader;
    int64_t selection_process_id;
    struct selection selection; /* of selection_process_id */
    /* The selected operations' buffer (device_state.selected_ops), lent to each device in turn: its
     * pages, once written, serve the devices after (page faults were a sixth of the analysis's CPU
     * time), unless the replay took them (whatif_device shrinks it as it reads them: memory before
     * speed, docs/security.md). */
    struct kept_op *selected_ops;
    size_t selected_op_capacity;
    /* Operations walked; every 4,096 handed to tick (the progress line's count). */
    int64_t ops_walked;
    void (*tick)(void *context, int64_t ops);
    void *tick_context;
};

/* A walker on trace's connection db. Returns 0, or -1 with err filled (the walker is then freed). */
int analysis_walker_init(struct analysis_walker *walker, store *trace, const struct run *run,
                         error_info *err);
void analysis_walker_free(struct analysis_walker *walker);
/* Walks device key into out (zeroed first; out->status says how it went). shown: the selection
 * shows it (else its collectives alone are matched: a peer). prior_copy_intervals: the run's
 * exposed-copy intervals before this device, when known (0 when not). */
void analysis_walk_device(struct analysis_walker *walker, struct store_gpu_device key, int shown,
                          size_t prior_copy_intervals, struct device_fragment *out);
void device_fragment_free(struct device_fragment *fragment);

/* Moves fragment into the run as the device after those merged so far. Returns 0, or -1 with the
 * run's err filled (the fragment's own error, or out of memory). */
int analysis_merge_device(struct run *run, struct device_fragment *fragment);

/* Walks and merges every device of keys on run->jobs threads (each with its own connection), in
 * device order. Returns 0, 1 when a worker could not be started (nothing merged: walk on this
 * thread), or -1 with run->err filled. */
int analysis_pool_run(struct run *run, const struct store_gpu_device *keys, size_t count);

/* The GPU span of every share's devices together (store_gpu_span's answer: found 1, 0 or -1). */
struct analysis_share_span {
    int found;
    int64_t start_ns, end_ns;
};
/* The set-up of a shared run (analysis_share in analysis.h): each process reads the steps of its
 * block's processes and, with want_span, its devices' GPU span; all are exchanged, so that every
 * process holds the run's steps (run->result->steps, as steps_find gives them) and the trace's
 * GPU span without reading the whole trace. Returns 0, or -1 with run->err filled (then on every
 * process alike when a process failed: share->agreed). */
int analysis_share_setup(struct run *run, int want_span, struct analysis_share_span *span);

/* Process 0's *go becomes every process's (share_all: every process calls it alike). Returns 0, or
 * -1 with err filled (then *go is 0). */
int analysis_share_agree(struct analysis_share *share, int *go, error_info *err);

/* Walks this process's block of keys and exchanges the fragments (analysis_share in analysis.h;
 * analysis_share.c). Returns 0 (process 0: every device merged), 2 (another process: its part was
 * sent, the run ends here), or -1 with run->err filled. */
int analysis_share_run(struct run *run, const struct store_gpu_device *keys, size_t count);

/* A local share's process 0 (analysis_share.local): has run's accountant ask the process that
 * holds a trace for what it reads of it after the merge (accountant_remote). */
void analysis_share_ask_remote(struct run *run);
/* A local share's process 0, once its accountant has asked all it asks: ends the other processes'
 * answering (nothing elsewhere). Returns 0, or -1 with run->err filled (also when an ask failed). */
int analysis_share_release(struct run *run);

/* Walks keys in order on this thread, each merged as soon as it is walked (--jobs 1, a pool that
 * could not start, a share's process 0 on its block). Returns 0, or -1 with run->err filled. */
int analysis_walk_here(struct run *run, const struct store_gpu_device *keys, size_t count);

/* 1 when options show device key's walk (else its collectives alone are matched: a peer). */
int analysis_device_shown(const struct analysis_options *options, struct store_gpu_device key);

#endif
