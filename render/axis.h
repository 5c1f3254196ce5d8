/* axis.h: the time axis of a timeline: tick steps of 1, 2 or 5 times a power of ten
 * nanoseconds, and tick labels that share one unit and show as many decimals as the step
 * needs ("0.2 ms", "0.4 ms", ... or "5.0001 s", "5.0002 s"). */
#ifndef OVERLAPSCOPE_AXIS_H
#define OVERLAPSCOPE_AXIS_H

#include <stddef.h>
#include <stdint.h>

/* The smallest 1-2-5 step (in ns, at least 1) that shows at most max_ticks ticks over span_ns. */
int64_t axis_tick_step_ns(int64_t span_ns, int max_ticks);

/* Formats a tick's value on an axis whose largest value is largest_ns (this picks the unit:
 * ns, us, ms or s, the same for every tick) and whose step is step_ns (this picks the
 * decimals). Returns buffer. */
char *axis_format_tick(char *buffer, size_t size, int64_t value_ns, int64_t step_ns, int64_t largest_ns);

#endif
