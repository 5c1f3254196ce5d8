/* whatif.h: the resource-aware replay of one device's recorded work, and what each fix would save.
 *
 * The recorded operations are replayed in their streams' order with their recorded durations, from
 * their launch times (the host call that enqueued each one), behind the event waits the program
 * asked for, the legacy default stream's implicit synchronization, the hardware queue each stream
 * was mapped to (a FIFO), one copy engine per direction, and the SMs: a kernel takes its share of
 * the device from the occupancy code (resident blocks of its first wave), so two kernels that each
 * fill the GPU run side by side only in the last wave's tail. A fix changes the inputs (a pinned
 * copy runs at the pinned speed measured in the trace and no longer holds the host; a removed host
 * sync or a CUDA graph gives the host its time back, shifting later launches earlier) and the
 * replay is run again: the saving is the difference of the two replayed spans, so the model's own
 * error cancels where the fix does not touch it. Assumptions: docs/metrics.md, "What-if".
 *
 * Built in analyzer/whatif/, a file per job: load.c (the model's inputs), graph.c (stream and queue
 * orders, dependency edges), host_time.c (what a fix gives back to the host, and the host's clock in
 * the replay), engine.c (the discrete-event replay), pipeline.c (the split streams of the pipelined
 * fix) and predict.c (this contract: the savings and the trace's what-if list). */
#ifndef OVERLAPSCOPE_WHATIF_H
#define OVERLAPSCOPE_WHATIF_H

#include <sqlite3.h>

#include "accountant.h"
#include "analysis_result.h"
#include "device_state.h"
#include "kernel_names.h"

/* Replays the device's operations (those of device->selection) as recorded and with each fix whose
 * cause device->cause_count or the device's idle time (idle: by cause, and the host work the
 * host-work fix removes) proves, and fills out->replay_span_ns, out->fix_saving_ns and
 * out->headroom_ns (the saving of every proved fix together, dependencies by design excepted).
 * steps: the run's (result->steps), where the CUDA-graph fix finds what a user would capture.
 * Leaves out untouched (headroom as before) when the device has more than WHATIF_MAX_OPS
 * operations. The last reader of device->launches and device->selected_ops: frees the launches and
 * takes the operations once copied (so they are not held beside the replay's copies). Returns 0, or
 * -1 with err filled. */
int whatif_device(sqlite3 *db, struct device_state *device, const struct device_idle *idle,
                  const struct analysis_step *steps, size_t step_count, struct analysis_device *out,
                  error_info *err);

/* kept: op as the walk keeps it for the replay and the overlap cost (device_state.h), its SM
 * footprint worked out with device's limits (loaded before the walk). */
void whatif_keep_op(const struct device_state *device, const struct model_op *op, struct kept_op *kept);

/* Builds result->what_if from the devices' fix savings and the trace's cause totals. */
void whatif_collect(struct analysis_result *result);

/* Operations of one device the replay holds in memory at most (docs/metrics.md, "What-if"). */
#define WHATIF_MAX_OPS 4000000

#endif
