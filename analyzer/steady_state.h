/* steady_state.h: the window every command analyses and draws by default: the steady state, not
 * the set-up. A DDP program spends seconds in imports and NCCL initialisation before its first
 * step, and a workload may end in one long verification copy; counted whole, that time dominates
 * every headline (headroom, what-if) and squeezes the work into a few pixels. report, check, diff,
 * render and export all take this one window unless --all, --window, --range or --step choose
 * another (docs/overlapscope-report.md, "The steady state"). The rules, in order:
 *
 *   1. Steps found (steps.h: ProfilerStep#N or a repeating "step N" range): from the first
 *      steady step's start to the last step's end; leading steps longer than twice the median
 *      step (among 3 steps or more) are warm-up and left out with the set-up.
 *   2. Else the set-up is left out: the run up to the end of its last gap (the GPU idle on every
 *      device) that is at least 5% of the span and twice every later gap, when the work before
 *      it is at most a quarter of the work after it (imports, NCCL initialisation, the DataLoader's
 *      first batch: one long wait, where a starved loop's gaps are alike and stay in);
 *      then the warm-up: the window starts at the last first run of a kernel that runs again
 *      and that ends a gap of at least 1% of the window (a module loaded, an algorithm chosen),
 *      when the work before it is at most a quarter of the work after it;
 *   3. then one operation at least half the window long that runs alone at either end of it
 *      (nothing else runs during or after it, or during or before it: a verification copy);
 *   4. then the tear-down, the same way from the other end: from the first gap of what is left
 *      that is at least 5% of the span and twice every earlier gap of it, with at most a quarter
 *      of the work after it.
 *
 * The GPU time is read in STEADY_STATE_BUCKETS equal buckets of the whole trace's GPU span (all
 * ranks: selecting a rank never moves the window); a bucket is idle when no stream of any device
 * ran in it. Nothing is left out when the result would cover more than 95% of the span. */
#ifndef OVERLAPSCOPE_STEADY_STATE_H
#define OVERLAPSCOPE_STEADY_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis_result.h"
#include "crew.h"
#include "error.h"
#include "store.h"

#define STEADY_STATE_BUCKETS 65536

/* Chooses the steady window of the trace from its GPU operations and its steps (may be NULL when
 * step_count is 0; steps of every process), its reads on team's workers (crew.h; NULL: on trace's
 * connection; the window is the same). out->trimmed is 0 when nothing is left out. Returns 0,
 * or -1 with err filled (a read error; out of memory). */
int steady_state_choose(store *trace, crew *team, const struct analysis_step *steps, size_t step_count,
                        struct analysis_steady *out, error_info *err);
/* The same in a GPU span read another way: span_found is store_gpu_span's answer for
 * [span_start_ns, span_end_ns] (1, 0 for none, -1 for a damaged span). A process of --mpi passes the
 * spans of every share together, so that it does not scan the whole trace; the trace itself is
 * read only where no steps are found (the activity rules 2 to 4), on team's workers (NULL: on the
 * trace's connection). */
/* The other processes of a share whose traces each hold their own devices (analysis_share.local):
 * the activity rules add up every process's (share_all as analysis_share's; every process calls it
 * alike, since they hold the same steps and span). */
struct steady_state_peers {
    int (*share_all)(void *context, const unsigned char *bytes, size_t size, unsigned char **all,
                     size_t *all_size, error_info *err);
    void *context;
};
int steady_state_choose_in_span(store *trace, crew *team, const struct steady_state_peers *peers,
                                const struct analysis_step *steps, size_t step_count, int span_found,
                                int64_t span_start_ns, int64_t span_end_ns, struct analysis_steady *out,
                                error_info *err);

/* The same, with the trace's own steps (steps.h): for a reader that wants the window before or
 * without an analysis (render draws it even when the analysis fails). */
int steady_state_of_trace(store *trace, struct analysis_steady *out, error_info *err);

/* What the window leaves out, in words, for a report line or a picture's note: "set-up 0 - 3.99 s",
 * "set-up and 1 warm-up step 0 - 120 ms, after them 5.00 s - 5.10 s" (en dashes); "" when nothing
 * is left out. */
void steady_state_describe(const struct analysis_steady *steady, char *text, size_t size);

#endif
