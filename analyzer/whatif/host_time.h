/* host_time.h: the host's time in the what-if replay, one home for it: what each fix gives back to
 * the host and when, on the replay's clock, each launch and each kept sync happens. The set-up
 * half fills the model once per device (model.h: call_order, the removal places, the shared
 * removals, the graph gaps, the drained starts), in the order whatif_device calls it; the replay
 * half answers one replay's questions (engine.c). Private to analyzer/whatif/. */
#ifndef OVERLAPSCOPE_WHATIF_HOST_TIME_H
#define OVERLAPSCOPE_WHATIF_HOST_TIME_H

#include "accountant.h"
#include "analysis.h"
#include "model.h"

struct run_state;

/* --- set-up, once per device; each returns 0 or WHATIF_OUT_OF_MEMORY --- */

/* The host work the idle accounting found (idle->host_work), as the host-work fix removes it from
 * every thread: by time, summed (replay->host_removed). */
int host_time_work_removals(struct replay *replay, const struct device_idle *idle);

/* Gives the launching threads that take turns one host timeline (one thread id in the calls and
 * the ops). Needs the ops linked to their calls (load_ops); before host_time_order_calls. */
int host_time_join_timelines(struct replay *replay);

/* Fills call_order: the calls by (thread, end). */
int host_time_order_calls(struct replay *replay);

/* Fills graph_gap_ns (and graph_gap_work_ns): the host's time between two captured calls that a
 * CUDA graph removes too; steps: the run's, where a user would capture. Needs call_order. */
int host_time_graph_gaps(struct replay *replay, int64_t process_id, const struct analysis_step *steps,
                         size_t step_count);

/* Fills first_launch_ns: the earliest launch of the ops, where removals begin to count. */
void host_time_first_launch(struct replay *replay);

/* Fills op_removed_at. After the last change of a call's kind. */
int host_time_positions(struct replay *replay);

/* Marks the ops a removed sync lets start without the launch latency of a drained device. Only
 * for a device whose replays remove a sync. Needs call_order and first_launch_ns. */
int host_time_mark_drained_starts(struct replay *replay);

/* The synchronizing calls the remove-host-sync fix removes (CALL_SYNC, ended after the first
 * launch, begun before the last), as recorded: how many, and their time split at the recorded end of the work
 * launched before each (by correlation id) on this device: before it, the wait; after it, the call's own host
 * time, the part that is the host's however fast the GPU; and wrapper_ns, the time their library wrappers
 * took beyond them (replay->wrapper_ns), which the fix removes too. Needs launch_order (graph_link_by) and
 * first_launch_ns. */
void host_time_sync_split(const struct replay *replay, int64_t *calls, int64_t *wait_ns, int64_t *host_ns,
                          int64_t *wrapper_ns);

/* --- one replay (struct run_state: engine_state.h) --- */

/* The host side of a replay's inputs for state->fixes: the host time each thread's calls give back
 * (prefix sums in call order), the removals every thread shares, and the kept syncs (found once
 * per device, reset for each replay). Returns 0 or -1 when out of memory. */
int host_time_prepare(struct run_state *state);

/* When launched op i is ready at the replay's start: its launch less the host time removed before
 * it, or INT64_MAX while a kept sync of its thread holds it (host_time_resolve_syncs sets it then).
 * Needs host_time_prepare. */
int64_t host_time_ready_ns(const struct run_state *state, size_t i);

/* After a start: each kept sync whose launched work has all started returns, and the launches it
 * held get their ready times (engine_note_ready). */
void host_time_resolve_syncs(struct run_state *state);

#endif
