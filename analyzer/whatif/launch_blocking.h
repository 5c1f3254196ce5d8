/* launch_blocking.h: the what-if of unsetting CUDA_LAUNCH_BLOCKING (causes.def,
 * UNSET_LAUNCH_BLOCKING): which launch calls blocked until their kernel ended, and the host time
 * the fix removes from each. */
#ifndef OVERLAPSCOPE_WHATIF_LAUNCH_BLOCKING_H
#define OVERLAPSCOPE_WHATIF_LAUNCH_BLOCKING_H

#include "model.h"

/* A launch's normal latency when no launch call of the trace returned before its kernel ended:
 * about what a cudaLaunchKernel costs the host on current drivers (the launch_blocking_off golden's
 * median is 7 us; the what-if's floor for a removed call is 5 us). */
#define WHATIF_LAUNCH_REFERENCE_NS 5000

/* Marks CALL_BLOCKED_LAUNCH on each launch call that returned at or after its operation's end, and
 * sets replay->launch_reference_ns: the median duration of the launch calls that did not (the
 * trace's own normal latency), else WHATIF_LAUNCH_REFERENCE_NS. Needs the ops and calls loaded. */
void launch_blocking_mark(struct replay *replay);

/* The host time unsetting the variable removes from a call: a blocked launch's time beyond the
 * normal latency (0 for any other call). */
int64_t launch_blocking_removed_ns(const struct replay *replay, const struct host_call *call);

#endif
