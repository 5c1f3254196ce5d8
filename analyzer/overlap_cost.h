/* overlap_cost.h: the price of the overlap a device shows (issue 17, docs/metrics.md "Overlap
 * cost"). A compute kernel that ran while another operation ran on the device is compared with the
 * same kernel (name, grid, block) running alone in the same trace: the difference of its duration
 * and the median of those alone runs is what contention cost it. Per device and per kernel family
 * (the short name, common/kernel_name.h), and the net: the time the overlap saved (the operations'
 * summed durations minus the time the device was busy) minus that cost. Kernels with no alone run
 * of their own are counted apart: no twin, no price. */
#ifndef OVERLAPSCOPE_OVERLAP_COST_H
#define OVERLAPSCOPE_OVERLAP_COST_H

#include "analysis_result.h"
#include "device_state.h"
#include "kernel_names.h"

/* Measures device (its selected operations) and fills out's overlap_* fields; appends one
 * analysis_overlap_cost per kernel family that ran overlapped with an alone twin to
 * result->overlap_costs (device index device_index; the result owns the rows, analysis_free frees
 * them). Returns 0, or -1 with err filled (out of memory). */
int overlap_cost_device(kernel_names *names, const struct device_state *device, size_t device_index,
                        struct analysis_device *out, struct analysis_result *result, error_info *err);

/* Sums the devices' figures into the result's totals. */
void overlap_cost_totals(struct analysis_result *result);

#endif
