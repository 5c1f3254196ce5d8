/* load.h: filling the what-if model (model.h) of one device: its host calls, its operations, and
 * the facts about them every replay reads (which allocations waited, the pinned copy speeds).
 * Private to analyzer/whatif/. Each returns 0, -1 on a read error (err filled) or
 * WHATIF_OUT_OF_MEMORY. */
#ifndef OVERLAPSCOPE_WHATIF_LOAD_H
#define OVERLAPSCOPE_WHATIF_LOAD_H

#include <sqlite3.h>

#include "device_state.h"
#include "kernel_names.h"
#include "model.h"

/* The host calls of the device's process that have a correlation id, by correlation id (from the
 * launches the walk read, device->launches, when complete: taken, and left empty; else from the
 * store), each with its kind (CALL_*). Calls no recording could hold are left out. First of the
 * loaders. */
int load_host_calls(sqlite3 *db, struct replay *replay, struct device_state *device, error_info *err);

/* The device's selected operations (device->selected_ops), at most WHATIF_MAX_OPS, each linked to
 * its launch call (whose kind a read-back or a pageable copy adds to), with its SM footprint and
 * the fastest pinned copy per direction. Needs the calls (load_host_calls). Takes them: the walk's
 * array shrinks as they are read (selected_op_count is 0 after). Returns 0 or WHATIF_OUT_OF_MEMORY. */
int load_ops(struct replay *replay, struct device_state *device);

/* Keeps as a synchronizing call only the allocations and frees that waited for the work launched
 * before them. Needs launch_order (graph_link_by). Returns 0 or -1 when out of memory. */
int load_keep_allocations_that_waited(struct replay *replay);

/* Fills each HtoD copy's ahead_ns (model.h): the kernel time of its stream since that stream's
 * HtoD copy before it. Needs the streams (graph_link_by). */
void load_copy_ahead(struct replay *replay);

/* Fills the pinned speed of each host-link direction the trace has no pinned copy to measure. */
void load_nominal_speeds(struct replay *replay, const struct device_state *device);

#endif
