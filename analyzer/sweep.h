/* sweep.h: the per-device sweep line that turns time-ordered GPU intervals into the overlap
 * metrics of docs/metrics.md: busy and idle time, busy time per stream and per category, the
 * concurrency profile, the category overlap matrix and stream-pair overlap. It holds the open
 * intervals in a heap and constant-size counters; every duration is measured on the selection's
 * clock (selection.h), so windows and ranges cost nothing extra. */
#ifndef OVERLAPSCOPE_SWEEP_H
#define OVERLAPSCOPE_SWEEP_H

#include "device_state.h"

typedef struct sweep sweep;

sweep *sweep_new(void);
void sweep_free(sweep *line);

/* Starts a device. */
void sweep_reset(sweep *line, struct device_state *device);
/* Moves the sweep to time_ns (non-decreasing): closes the intervals that end by then. Returns 0
 * or -1 when out of memory. */
int sweep_advance(sweep *line, struct device_state *device, int64_t time_ns);
/* Opens a counted interval starting at the current time. Returns 0 or -1 when out of memory. */
int sweep_add(sweep *line, struct device_state *device, size_t lane_index, const struct model_op *op);
/* Closes everything and writes the device's metrics into out (fields of analysis_device other
 * than identity, lost and headroom) and each lane's into result lanes; appends the stream pairs.
 * Returns 0, or -1 when out of memory. */
int sweep_finish(sweep *line, struct device_state *device, struct analysis_device *out,
                 struct analysis_result *result);

#endif
