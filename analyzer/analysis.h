/* analysis.h: the analyzer's public contract: what overlap a trace shows, lane by lane and device
 * by device, and why every missed overlap happened.
 *
 * analysis_run reads a trace through the store (streaming, ordered by time; memory grows with the
 * number of lanes and of intervals open at once, not with the trace's length) and returns one
 * analysis_result that the caller owns and frees with analysis_free. The analyzer never prints:
 * reports (text, JSON, Markdown) and pictures (render/) are built from this structure.
 *
 * The result's types are in analysis_result.h (included here), which the analyzer's steps include
 * instead of this header. Stability: render/ and the report writers depend on the names of both.
 * Fields may be added; none is renamed or removed without changing both. Metric definitions:
 * docs/metrics.md. */
#ifndef OVERLAPSCOPE_ANALYSIS_H
#define OVERLAPSCOPE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis_result.h"
#include "error.h"
#include "gpu_devices.h"
#include "phase_timing.h"
#include "store.h"

/* Filters; a field left at its "all" value selects everything. */
struct analysis_options {
    int64_t rank;            /* -1: all ranks */
    int64_t device_id;       /* -1: all devices */
    int64_t stream_id;       /* -1: all streams */
    int64_t window_start_ns; /* STORE_NULL: from the first interval */
    int64_t window_end_ns;   /* STORE_NULL: to the last interval */
    const char *range_name;  /* NULL: none; else only time inside NVTX ranges with this message (with
                                step: those inside step N) */
    int64_t step;            /* -1: all; else the N-th iteration (ProfilerStep#N or a repeating NVTX range) */
    /* Added after the first contract: */
    int window_is_relative; /* 1: window_start/end_ns are offsets from result->origin_ns (the CLI's
                               "10ms:20ms"); 0: absolute trace times */
    size_t max_waits;       /* waits kept in result->waits (largest losses); 0: ANALYSIS_DEFAULT_MAX_WAITS.
                               Cause totals always cover every wait. */
    /* NULL, or called with the fraction of the work done (0 first, 1 once the analysis ends, also
     * when it fails), a few times a second at most on a large trace: the CLI's progress line. */
    void (*progress)(void *context, double fraction);
    void *progress_context;
    /* 1: when no --window, --range or --step chooses time, analyse the steady state
     * (steady_state.h; the CLI's default); 0: the whole run (the CLI's --all; the library's
     * default). */
    int steady_state;
    /* NULL, or the steady window the caller already chose for this trace (steady_state_of_trace):
     * used as it is, not chosen again (render chooses it before the analysis). */
    const struct analysis_steady *steady_chosen;
    /* Devices analysed at once, each by its own thread on its own connection to the trace (the
     * result is the same for every count); 0: one per online processor; 1: on the calling thread
     * alone, device after device. */
    int jobs;
    /* NULL, or the devices shared among several processes (analysis_share below). */
    struct analysis_share *share;
    /* NULL, or an analysis of the same trace whose steps are taken as they are, not found again
     * (the set-up's analysis inside analysis_run takes the run's). */
    const struct analysis_result *steps_from;
    /* NULL, or where the run adds the time of each of its phases (OVERLAPSCOPE_TIMING=1). */
    struct phase_timing *timing;
};
#define ANALYSIS_DEFAULT_MAX_WAITS 1000

/* The devices of one trace shared among count processes (the CLI's --mpi: cli/mpi_driver.c), each
 * running analysis_run on the same trace: process index walks its block of devices (in device
 * order, [index * n / count, (index + 1) * n / count)); process 0 merges its own as it walks them,
 * the others encode their fragments (fragment_wire.h) and send them to process 0, which receives
 * and merges them process after process, in device order, and finishes the analysis, so its result
 * is byte for byte the one process's. The others' analysis_run returns NULL with sent set: their
 * part is done. The library knows nothing of how the bytes travel. */
struct analysis_share {
    int index, count;
    /* Sends this process's bytes to every process: *all (the caller frees) receives every
     * process's, process after process, *all_size their total, on every process. Returns 0, or -1
     * with err filled. The run's set-up (the steps of every process, the GPU span) travels this
     * way: each process reads those of its own devices, not the whole trace's. */
    int (*share_all)(void *context, const unsigned char *bytes, size_t size, unsigned char **all,
                     size_t *all_size, error_info *err);
    /* Every process calls it once, after its walks: *before receives the sum of value over the
     * processes before this one (0 on process 0). The devices' accounting intervals are counted
     * this way, so that a process sends only those the merge keeps. Returns 0, or -1 with err
     * filled. */
    int (*sum_before)(void *context, uint64_t value, uint64_t *before, error_info *err);
    /* A process other than 0: its fragments' bytes to process 0. Returns 0, or -1 with err filled. */
    int (*send)(void *context, const unsigned char *bytes, size_t size, error_info *err);
    /* Process 0: process's bytes (sent once by it) into *bytes, *size of them: *bytes (the caller
     * frees it) holds *capacity bytes and grows (realloc) where they need more, so that one buffer
     * serves every process. Process 0 receives from every other process once, in process order.
     * Returns 0, or -1 with err filled. */
    int (*receive)(void *context, int process, unsigned char **bytes, size_t *capacity, size_t *size,
                   error_info *err);
    void *context;
    /* Set by the caller: each process's trace holds its own devices alone (each process imported
     * its block of the rank files with the ids of the whole folder's import: store/names.h).
     * Process index's block is then its own devices, the devices of all are listed to all through
     * share_all, and what process 0 reads of another process's trace after the merge (a wait's
     * source line, what a late rank's GPU ran: accountant_remote) it asks that process (ask),
     * which answers (serve) until process 0 is done (release). */
    int local;
    /* local, process 0: the request's bytes to process, its reply into reply (reply_size bytes).
     * Returns 0, or -1 with err filled. */
    int (*ask)(void *context, int process, const void *request, size_t size, void *reply, size_t reply_size,
               error_info *err);
    /* local, the others: answers each of process 0's requests (at most request_size bytes; answer
     * fills reply_size bytes of reply) until process 0 releases them. Returns 0, or -1 with err
     * filled. */
    int (*serve)(void *context, size_t request_size, size_t reply_size,
                 void (*answer)(void *answer_context, const void *request, size_t size, void *reply),
                 void *answer_context, error_info *err);
    /* local, process 0: ends every other process's serve. Returns 0, or -1 with err filled. */
    int (*release)(void *context, error_info *err);
    /* local, set by analysis_run: the devices of every process in device order, each with the
     * process that holds it and its rank (-1: none), this process's [first, end) of them. Free them
     * with analysis_share_free. */
    struct analysis_share_device *devices;
    size_t device_count, first, end;
    int sent;      /* set by analysis_run: this process's part went to process 0 (0 on process 0) */
    int agreed;    /* set by analysis_run: the run failed on every process alike (the set-up of one
                      process failed, and every process got its error) */
    int exchanged; /* set by analysis_run while it runs: this process's fragments were sent (on
                      process 0: every process's received) */
    /* Added up by analysis_run: what this process read of the trace for the set-up (the steps it
     * mapped to their GPU work, the devices whose GPU span it read) of the run's totals: the
     * CLI's OVERLAPSCOPE_MPI_SHARES line shows that each process read its share alone. */
    size_t steps_read, steps_total, devices_read, devices_total;
};
struct analysis_share_device {
    struct store_gpu_device key;
    int64_t rank, process;
};
/* Frees what analysis_run left in share (its devices). */
void analysis_share_free(struct analysis_share *share);

void analysis_options_init(struct analysis_options *options);

/* Analyzes the trace. options may be NULL (everything). Returns NULL with err filled on failure
 * (including "no GPU intervals in the selected window"). Caller frees with analysis_free. */
struct analysis_result *analysis_run(store *trace, const struct analysis_options *options, error_info *err);
void analysis_free(struct analysis_result *result);

struct selection;
/* The time the filters of options keep on process_id's devices (--window, the GPU time of the
 * --range ranges, --step N), as the analysis that produced result measured it: the one road from
 * those options to time, for every reader that counts operations beside the analysis (stats).
 * Fills selection (free it with selection_free; "everything" when nothing restricts time) and adds
 * the ranges met to *ranges_found. Returns 0, or -1 with err filled. */
int analysis_select_process(store *trace, const struct analysis_result *result,
                            const struct analysis_options *options, int64_t process_id,
                            struct selection *selection, size_t *ranges_found, error_info *err);

/* The devices' spans (busy + idle) summed. */
int64_t analysis_spans_ns(const struct analysis_result *result);

/* The span a what-if saving is a share of (the report's percentages, check's headroom_ratio): the
 * devices' spans summed; where the selection cut the run in time and the replay ran longer, the
 * replay's span instead, since it replays the whole operations the selection met (a 17.3 ms window
 * of copy_pageable replays 48.6 ms of work: against the window, its saving read as 98%). */
int64_t analysis_what_if_base_ns(const struct analysis_result *result);

/* Parses a duration: "250ns", "12us", "1.5 ms", "2s". A bare number is nanoseconds (the trace's
 * unit) and sets *unitless to 1 (when not NULL) so the CLI can say so. Returns 0, or -1 with err
 * filled. */
int analysis_parse_duration(const char *text, int64_t *nanoseconds, int *unitless, error_info *err);
/* Parses "START:END" (either side may be empty: from the start / to the end; spaces around the
 * numbers are allowed) into relative window bounds of options (sets window_is_relative). The one
 * parser of --window for every command. Returns 0, or -1 with err filled. */
int analysis_parse_window(const char *text, struct analysis_options *options, int *unitless, error_info *err);

#endif
