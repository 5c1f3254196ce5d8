/* exposed_copy.h: where a device's exposed copy time went (docs/metrics.md, "Exposed copies"):
 * the copy time during which no kernel of the device ran, the time its SMs waited for copies,
 * given copy by copy to the first cause the trace proves (the COPY_CAUSE rows of
 * causes/causes.def, in order): pageable host memory, a copy the host waited for, a copy on a
 * stream that also runs the compute, many small copies, or no kernel queued beside it.
 *
 * The walk of a device (analysis.c) hands it the selected operations in start order; the parts
 * of each copy with no kernel running are measured on the selection's clock, as the sweep measures
 * exposed_copy_ns, so the causes sum to that figure exactly. Memory: the copies open at once and
 * one bucket per cause, direction and stream. */
#ifndef OVERLAPSCOPE_EXPOSED_COPY_H
#define OVERLAPSCOPE_EXPOSED_COPY_H

#include "accounting.h"
#include "device_state.h"
#include "launches.h"
#include "op_source.h"

typedef struct copy_exposure copy_exposure;

/* NULL when out of memory. */
copy_exposure *copy_exposure_new(void);
void copy_exposure_free(copy_exposure *exposure);

/* Starts a device: launches are its process's correlated host calls (the copies' own calls). */
void copy_exposure_begin_device(copy_exposure *exposure, struct device_state *device,
                                const struct launches *launches);
/* One selected operation of the device, in start order. Returns 0, or -1 when out of memory. */
int copy_exposure_observe(copy_exposure *exposure, const struct model_op *op);
/* Ends the device, result device device_index: fills out (entries malloc'd, largest first, caller
 * frees out->entries) and keeps the device's exposed stretches as accounting intervals of their
 * entries' causes and labels (the picture's lane). Returns 0, or -1 when out of memory. */
int copy_exposure_end_device(copy_exposure *exposure, struct accounting_breakdown *out, size_t device_index);
/* Every device's intervals so far, in device then time order; the caller owns them (free). */
struct accounting_interval *copy_exposure_take_intervals(copy_exposure *exposure, size_t *count);

/* A worker's exposure (analysis_pool.h) keeps its intervals under the cap with count more kept
 * before its own (the run's, when known; 0 when not). */
void copy_exposure_set_prior_intervals(copy_exposure *exposure, size_t count);
/* The stretches of the device ended last, before they became intervals: with more than the cap
 * left, a worker that did not know the run's count kept some the run would not. */
size_t copy_exposure_device_stretches(const copy_exposure *exposure);

#endif
