/* steady.h: what a whole-trace picture shows by default: the steady state, not the set-up.
 * A DDP program spends seconds in NCCL initialisation before its first step, and a workload may
 * end in one long verification copy; drawn whole, the work is squeezed into a few pixels. The
 * rules (docs/overlapscope-render.md, "What the default picture shows"), in order:
 *
 *   1. Steps found (steps.h: ProfilerStep#N or a repeating "step N" range): from the first
 *      steady step's start to the last step's end; leading steps longer than twice the median
 *      step (among 3 steps or more) are warm-up and left out with the set-up.
 *   2. Else a leading (trailing) stretch where the GPU was mostly idle is left out: among those
 *      busy at most a quarter of the window's average busy density, the one that falls furthest
 *      below that average (it ends where the density rises above it), when it is at least 20%
 *      of the span; then one operation at least half the window long that runs alone at either
 *      end of it (nothing else runs during or after it, or during or before it); then rule 2's
 *      idle stretches again, in what is left.
 *
 * Nothing is left out when the result would cover more than 95% of the span. The busy time of
 * a pixel column is the summed coverage of its streams, at most 1. */
#ifndef OVERLAPSCOPE_STEADY_H
#define OVERLAPSCOPE_STEADY_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "canvas.h"

struct steady_window {
    int64_t span_start_ns, span_end_ns; /* the whole GPU span drawn */
    int64_t start_ns, end_ns;           /* the window to draw */
    int by_steps;                       /* 1: rule 1 chose it */
    int warmup_steps;                   /* rule 1: leading warm-up steps left out (distinct numbers) */
    int trimmed;                        /* 0: the whole span (nothing left out) */
};

/* Chooses the window from a finished canvas of the whole trace (window = the GPU span) and the
 * steps of the processes drawn (may be NULL when count is 0). */
void steady_choose(const struct canvas *whole, const struct analysis_step *steps, size_t step_count,
                   struct steady_window *out);

#endif
