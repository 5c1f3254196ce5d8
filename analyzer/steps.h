/* steps.h: iterations and named ranges, turned into GPU time. Steps come from NVTX ranges named
 * "ProfilerStep#N" (PyTorch's profiler) or, failing those, from a repeating range name that ends
 * in a number and says "step" or "iter" ("step 3", "iteration_12"). A host range is mapped to the
 * GPU time of the work launched inside it (first start to last end of the kernels, copies and
 * memsets whose launch call began in the range, on its thread); a range already on the GPU
 * timeline (a GPU annotation with a device) is taken as is; without launch records the host
 * range's own times are used. Everything is per process: each rank keeps its own clock. */
#ifndef OVERLAPSCOPE_STEPS_H
#define OVERLAPSCOPE_STEPS_H

#include <sqlite3.h>
#include <stddef.h>

#include "analysis_result.h"
#include "crew.h"
#include "error.h"
#include "selection.h"

/* Finds every step of every process. *steps is malloc'd (caller frees), sorted by process then
 * number; *count may be 0. The steps' GPU times are mapped process by process on team's workers
 * (crew.h; NULL: on trace's connection alone; the steps are the same). Returns 0 or -1 with err
 * filled. */
int steps_find(store *trace, crew *team, struct analysis_step **steps, size_t *count, error_info *err);
/* The same for the processes keep keeps (keep(keep_context, process_id) != 0): steps_find's steps
 * of those processes, without mapping the other processes' ranges to their GPU work (a process of
 * --mpi finds the steps of its share alone: analysis_share.c). The step prefix is still chosen from
 * every process's range names, so that every share counts the same steps. */
typedef int steps_keep_process(void *context, int64_t process_id);
int steps_find_of(store *trace, crew *team, steps_keep_process *keep, void *keep_context,
                  struct analysis_step **steps, size_t *count, error_info *err);
/* Sorts steps as steps_find returns them (steps of several steps_find_of calls put together). */
void steps_sort(struct analysis_step *steps, size_t count);

/* Adds to selection the GPU time of every NVTX range of process_id whose message is name,
 * clipped to [clip_start, clip_end). *found is incremented per range. Returns 0 or -1. */
int steps_select_range(sqlite3 *db, int64_t process_id, const char *name, int64_t clip_start_ns,
                       int64_t clip_end_ns, struct selection *selection, size_t *found, error_info *err);

#endif
