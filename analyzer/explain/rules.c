/* rules.c: proves the cause of a wait detect.c found (see explain_parts.h). The cause rules are
 * one table (`rules`, near the end), in the order of proof strength: what the host did comes first
 * (a late launch makes every GPU-side cause moot), then dependencies the program asked for, then
 * the hardware's reasons. Each rule is one function that either proves its cause from recorded
 * fields or passes; a missing field (no API records, no device limits) only removes the rules that
 * need it. The causes' names and what to do about each are their rows in causes/causes.def. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cuda_api.h"
#include "explain_parts.h"
#include "store.h"
#include "units.h"

static int name_has(const char *name, const char *part)
{
    return strstr(name, part) != NULL;
}

/* --- rules of the late road: X's launch returned after (or just before) B ended, so the GPU had
 * nothing to overlap; they name what the launching thread did instead --- */

/* The thread was in a memcpy with a pageable side, which the driver stages synchronously. */
static int rule_late_pageable_copy(explainer *explain, struct wait_case *item)
{
    const struct host_activity *held = explain_holding_call(explain, item);
    struct model_op copy;
    if (!held || cuda_api_classify(held->call_name) != CUDA_API_COPY ||
        !explain_copy_of_call(explain, item->device->process_id, held->call_correlation_id, &copy) ||
        !is_pageable_copy(&copy))
        return 0;
    char waited[32], name[128], bytes[32];
    explain_held_for(item, held, waited, sizeof waited);
    explain_op_name(explain, item->waiting, name, sizeof name);
    explain_describe(item,
                     "%s was in %s (%s %s from/to pageable memory, staged synchronously) for %s;"
                     " %s %s on stream %" PRId64 " was launched when it returned",
                     explain_thread_label(explain, item), held->call_name,
                     store_copy_kind_name(copy.copy_kind),
                     units_format_bytes(bytes, sizeof bytes, copy.bytes), waited,
                     explain_op_kind_word(item->waiting), name, item->waiting->stream_id);
    return 1;
}

/* A blocking call that began while X's stream still had work of its own is a barrier over both
 * streams, and an X issued by a blocking call is a read-back the thread waits for anyway: no work
 * was held back, the wait is dropped (docs/metrics.md, "(no wait)"). */
static int rule_barrier(explainer *explain, struct wait_case *item)
{
    const struct host_activity *held = explain_holding_call(explain, item);
    if (!held || !cuda_api_blocks_host(held->call_name))
        return 0;
    if ((item->previous_end_ns == INT64_MIN || held->call_start_ns >= item->previous_end_ns) &&
        !cuda_api_blocks_host(item->launch.name))
        return 0;
    return 1;
}

static int rule_late_host_sync(explainer *explain, struct wait_case *item)
{
    const struct host_activity *held = explain_holding_call(explain, item);
    if (!held || !cuda_api_blocks_host(held->call_name))
        return 0;
    char waited[32], name[128], other[128], when[96];
    explain_held_for(item, held, waited, sizeof waited);
    explain_op_name(explain, item->waiting, name, sizeof name);
    explain_op_name(explain, item->blocking, other, sizeof other);
    explain_launch_timing(item, when, sizeof when);
    explain_describe(item,
                     "%s was blocked in %s for %s; %s for %s on stream %" PRId64 " %s %s on stream %" PRId64
                     " ended",
                     explain_thread_label(explain, item), held->call_name, waited, item->launch.name, name,
                     item->waiting->stream_id, when, other, item->blocking->stream_id);
    return 1;
}

/* Whatever else the thread did: the launch call itself held it, or CUDA calls, or CPU time. */
static int rule_late_launch(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    char waited[32], name[128], other[128], when[96], took[32], idle[32];
    explain_op_name(explain, waiting, name, sizeof name);
    explain_op_name(explain, blocking, other, sizeof other);
    explain_launch_timing(item, when, sizeof when);
    if (item->launch.start_ns <= item->wait.wait_start_ns) {
        /* The call began before the GPU could have run the op: the call itself held the thread. */
        explain_describe(
            item,
            "%s for %s on stream %" PRId64 " began before %s on stream %" PRId64 " ended but took %s and %s"
            " it: the call itself held the thread",
            item->launch.name, name, waiting->stream_id, other, blocking->stream_id,
            explain_duration(took, sizeof took, item->launch.end_ns - item->launch.start_ns), when);
        return 1;
    }
    const struct host_activity *activity = explain_activity_before_launch(explain, item);
    int64_t outside_ns = activity->window_ns - activity->cuda_ns;
    if (activity->has_call && activity->cuda_ns * 2 >= activity->window_ns)
        explain_describe(item,
                         "%s for %s on stream %" PRId64 " %s %s on stream %" PRId64 " ended; %s"
                         " spent %s of the %s before it in CUDA calls (longest: %s)",
                         item->launch.name, name, waiting->stream_id, when, other, blocking->stream_id,
                         explain_thread_label(explain, item),
                         explain_duration(waited, sizeof waited, activity->cuda_ns),
                         explain_duration(idle, sizeof idle, activity->window_ns), activity->call_name);
    else
        explain_describe(item,
                         "%s for %s on stream %" PRId64 " %s %s on stream %" PRId64 " ended; %s"
                         " made no CUDA call for %s of the %s before it (CPU or interpreter time)",
                         item->launch.name, name, waiting->stream_id, when, other, blocking->stream_id,
                         explain_thread_label(explain, item),
                         explain_duration(waited, sizeof waited, outside_ns),
                         explain_duration(idle, sizeof idle, activity->window_ns));
    return 1;
}

/* --- dependencies the program asked for --- */

/* cudaStreamWaitEvent on the waiting stream, issued after its previous op and before its launch,
 * for an event recorded on the blocking stream after the blocking op. */
static int explain_event_dependency(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    int64_t event_id;
    if (!explain_find_event_wait(explain, item, &event_id))
        return 0;
    char name[128];
    explain_op_name(explain, blocking, name, sizeof name);
    explain_describe(item,
                     "stream %" PRId64 " waits (cudaStreamWaitEvent) on event %" PRId64
                     " recorded on stream %" PRId64 " after %s %s: serialized by design",
                     waiting->stream_id, event_id, blocking->stream_id, explain_op_kind_word(blocking), name);
    return 1;
}

static int synchronizes_with_legacy(const struct lane_state *lane)
{
    return lane->flags == 1 || lane->is_per_thread_default; /* CUpti_ActivityStreamFlag 1: blocking */
}

static int explain_legacy_default(explainer *explain, struct wait_case *item)
{
    (void)explain;
    const struct lane_state *legacy = NULL, *other = NULL;
    if (item->waiting_lane->is_legacy_default && synchronizes_with_legacy(item->blocking_lane)) {
        legacy = item->waiting_lane;
        other = item->blocking_lane;
    } else if (item->blocking_lane->is_legacy_default && synchronizes_with_legacy(item->waiting_lane)) {
        legacy = item->blocking_lane;
        other = item->waiting_lane;
    } else {
        return 0;
    }
    explain_describe(item,
                     "stream %" PRId64 " is the legacy default stream and stream %" PRId64
                     " is a blocking stream: each waits for the other's earlier work",
                     legacy->stream_id, other->stream_id);
    return 1;
}

/* --- the hardware's reasons --- */

/* An NCCL kernel held back by a compute kernel's blocks is the communication's delay, not the
 * compute's: same proof, its own cause. */
static int is_comm_behind_compute(const struct wait_case *item)
{
    return item->waiting->category == ANALYSIS_COMMUNICATION &&
           item->blocking->category != ANALYSIS_COMMUNICATION;
}

static int explain_pageable_copy(explainer *explain, struct wait_case *item)
{
    if (!is_pageable_copy(item->blocking))
        return 0;
    char name[128];
    explain_op_name(explain, item->blocking, name, sizeof name);
    explain_describe(item,
                     "copy %s on stream %" PRId64
                     " uses pageable host memory: the driver stages it synchronously, and"
                     " stream %" PRId64 " started only when it ended",
                     name, item->blocking->stream_id, item->waiting->stream_id);
    return 1;
}

static int explain_copy_engine(explainer *explain, struct wait_case *item)
{
    (void)explain;
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    if (waiting->kind != MODEL_MEMCPY || blocking->kind != MODEL_MEMCPY)
        return 0;
    int same_direction = waiting->category == blocking->category &&
                         (waiting->category == ANALYSIS_COPY_HTOD || waiting->category == ANALYSIS_COPY_DTOH);
    int one_engine = item->device->copy_engine_count == 1;
    if (!same_direction && !one_engine)
        return 0;
    if (same_direction)
        explain_describe(item,
                         "%s copies on streams %" PRId64 " and %" PRId64
                         " use the same copy engine: copies in one direction run one at a time",
                         store_copy_kind_name(waiting->copy_kind), blocking->stream_id, waiting->stream_id);
    else
        explain_describe(item,
                         "the device has one copy engine: the copies on streams %" PRId64 " and %" PRId64
                         " ran one after the other",
                         blocking->stream_id, waiting->stream_id);
    return 1;
}

/* X was queued on the same hardware channel behind `queue_head`, an op of another stream enqueued
 * before it (correlation order) that was dispatched only after X was ready, because it waited for
 * the blocking op on its own stream: the channel's FIFO held X. */
static int explain_shared_queue(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking, *head = item->queue_head;
    if (!head || head->start_ns <= item->ready_ns)
        return 0;
    char name[128], other[128], ahead[128];
    explain_op_name(explain, waiting, name, sizeof name);
    explain_op_name(explain, blocking, other, sizeof other);
    explain_op_name(explain, head, ahead, sizeof ahead);
    explain_describe(
        item,
        "streams %" PRId64 " and %" PRId64 " share hardware channel %" PRId64
        " (more streams than CUDA_DEVICE_MAX_CONNECTIONS), which dispatches in launch order: %s on "
        "stream %" PRId64 " was queued behind %s on stream %" PRId64
        ", which waited for %s on its own stream",
        head->stream_id, waiting->stream_id, waiting->channel_id, name, waiting->stream_id, ahead,
        head->stream_id, other);
    return 1;
}

/* X and B are NCCL kernels of one communicator: NCCL chains a communicator's operations through
 * its internal stream, so they run one at a time whatever the user streams (NCCL src/enqueue.cc,
 * "Create dependency for device stream on user streams"). Without communicator ids in the trace,
 * the NCCL kernels of one process and device are taken as one communicator's, and the evidence
 * says so. */
static int explain_shared_communicator(explainer *explain, struct wait_case *item)
{
    if (!item->same_communicator_candidate)
        return 0;
    char waiting_comm[64], blocking_comm[64], name[128], other[128], which[128];
    int waiting_known = explain_communicator_of(explain, item->waiting, waiting_comm, sizeof waiting_comm);
    int blocking_known =
        explain_communicator_of(explain, item->blocking, blocking_comm, sizeof blocking_comm);
    if (waiting_known && blocking_known && strcmp(waiting_comm, blocking_comm) != 0)
        return 0;
    if (waiting_known && blocking_known)
        snprintf(which, sizeof which, "communicator %s", waiting_comm);
    else
        snprintf(which, sizeof which,
                 "one communicator (the trace does not name it; one device's NCCL kernels"
                 " are taken as one communicator's)");
    explain_op_name(explain, item->waiting, name, sizeof name);
    explain_op_name(explain, item->blocking, other, sizeof other);
    explain_describe(item,
                     "%s on stream %" PRId64 " and %s on stream %" PRId64
                     " are collectives of %s: NCCL runs a communicator's"
                     " operations one at a time whatever the streams, so the second waited for the first",
                     other, item->blocking->stream_id, name, item->waiting->stream_id, which);
    return 1;
}

static int64_t op_priority(const struct model_op *op, const struct lane_state *lane)
{
    return op->priority != STORE_NULL ? op->priority : lane->priority;
}

/* B's grid is less than a full wave, yet it put grid / SMs blocks on every SM, and one block of X
 * does not fit beside them: not for lack of block slots but of a resource B's blocks hold, often
 * shared memory, because the SM's carve-out (split with L1) is the one B ran with (CUPTI's
 * sharedMemoryExecuted) and too small for X. X starts only as B's blocks retire. */
static int explain_resources_held(explainer *explain, struct wait_case *item,
                                  const struct occupancy_result *resident)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    const struct occupancy_device *limits = &item->device->limits;
    int64_t on_every_sm = occupancy_blocks_on_every_sm(limits, &blocking->launch, resident);
    if (on_every_sm <= 0)
        return 0;
    enum occupancy_limiter shortage =
        occupancy_shortage_beside(limits, resident, on_every_sm, &waiting->launch);
    if (shortage == OCCUPANCY_LIMIT_UNKNOWN)
        return 0;
    int communication = is_comm_behind_compute(item);
    if (!item->describe)
        return 1; /* the evidence only for a kept wait */
    char name[128], other[128], need[384], gap[32], when[192];
    explain_op_name(explain, waiting, name, sizeof name);
    explain_op_name(explain, blocking, other, sizeof other);
    int64_t threads = waiting->launch.threads_per_block;
    switch (shortage) {
    case OCCUPANCY_LIMIT_SHARED_MEMORY:
        snprintf(need, sizeof need,
                 "shared memory: the SM's carve-out while it ran was %" PRId64
                 " KiB, its blocks held %" PRId64 " KiB and a block of %s needs %" PRId64 " KiB",
                 resident->shared_bytes_per_sm / 1024, on_every_sm * resident->shared_bytes_per_block / 1024,
                 name, occupancy_shared_bytes_per_block(limits, &waiting->launch) / 1024);
        break;
    case OCCUPANCY_LIMIT_REGISTERS:
        snprintf(need, sizeof need,
                 "registers: its blocks held %" PRId64 " of the SM's %" PRId64
                 ", which left room for %" PRId64 " warps of %s (%" PRId64
                 " registers per thread) across the SM's 4 register sub-partitions; a"
                 " block needs %" PRId64,
                 on_every_sm * resident->registers_per_block, limits->max_registers_per_sm,
                 occupancy_register_room_warps(limits, resident, on_every_sm, &waiting->launch), name,
                 waiting->launch.registers_per_thread, (threads + limits->warp_size - 1) / limits->warp_size);
        break;
    default:
        snprintf(need, sizeof need, "%s: no block of %s (%" PRId64 " threads) fit beside them",
                 occupancy_limiter_name(shortage), name, threads);
        break;
    }
    if (waiting->start_ns < blocking->end_ns)
        snprintf(when, sizeof when, "%s started as its blocks retired, %s before it ended", name,
                 explain_duration(gap, sizeof gap, blocking->end_ns - waiting->start_ns));
    else
        snprintf(when, sizeof when, "%s started when it ended", name);
    explain_describe(item,
                     "%skernel %s on stream %" PRId64 " had %" PRId64 " block(s) on each of the %" PRId64
                     " SMs (%" PRId64
                     " blocks) and no block of the waiting kernel fit beside them for lack of %s; %s",
                     communication ? "NCCL kernel waited for SM resources: " : "", other, blocking->stream_id,
                     on_every_sm, limits->sm_count, blocking->launch.grid_blocks, need, when);
    return 1;
}

/* The blocking op started after the waiting op was ready and its stream has the higher priority
 * (a lower number): the scheduler chose it first. */
static int explain_priority(explainer *explain, struct wait_case *item)
{
    int64_t ready_ns = item->ready_ns;
    int64_t waiting_priority = op_priority(item->waiting, item->waiting_lane);
    int64_t blocking_priority = op_priority(item->blocking, item->blocking_lane);
    if (!item->launch.known || waiting_priority == STORE_NULL || blocking_priority == STORE_NULL ||
        blocking_priority >= waiting_priority || item->blocking->start_ns <= ready_ns)
        return 0;
    char name[128], other[128], early[32], second[160];
    explain_op_name(explain, item->waiting, name, sizeof name);
    explain_op_name(explain, item->blocking, other, sizeof other);
    explain_describe(item,
                     "stream %" PRId64 " has priority %" PRId64 ", above stream %" PRId64 "'s %" PRId64
                     ": %s went first although %s was ready %s before it started",
                     item->blocking->stream_id, blocking_priority, item->waiting->stream_id, waiting_priority,
                     other, explain_second_name(second, sizeof second, other, name, item->waiting->stream_id),
                     explain_duration(early, sizeof early, item->blocking->start_ns - ready_ns));
    return 1;
}

static int explain_sm_saturation(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    struct device_state *device = item->device;
    if (waiting->kind != MODEL_KERNEL || blocking->kind != MODEL_KERNEL || !device->limits_known)
        return 0;
    /* The blocking op is its stream's last one (occupancy cached) or, behind a channel or a
     * communicator, an earlier one (computed here). */
    struct occupancy_result earlier;
    const struct occupancy_result *resident = &earlier;
    if (blocking == &item->blocking_lane->last) {
        explain_last_wave_ns(device, item->blocking_lane);
        resident = &item->blocking_lane->last_occupancy;
        if (item->blocking_lane->last_occupancy_state != 1)
            return 0;
    } else if (occupancy_compute(&device->limits, &blocking->launch, &earlier) != 0 ||
               earlier.blocks_per_sm <= 0) {
        return 0;
    }
    if (resident->fills_device) {
        if (occupancy_fits_beside(&device->limits, resident, &waiting->launch))
            return 0;
    } else {
        return explain_resources_held(explain, item, resident);
    }
    int communication = is_comm_behind_compute(item);
    if (!item->describe)
        return 1; /* the evidence only for a kept wait */
    char name[128], other[128], tail[160], gap[32];
    explain_op_name(explain, waiting, name, sizeof name);
    explain_op_name(explain, blocking, other, sizeof other);
    if (item->resources_held)
        snprintf(tail, sizeof tail, "%s started %s after it was ready, as a block of it retired", name,
                 explain_duration(gap, sizeof gap,
                                  item->wait.lost_ns > 0 ? waiting->start_ns - item->wait.wait_start_ns : 0));
    else if (waiting->start_ns < blocking->end_ns)
        snprintf(tail, sizeof tail,
                 "%s started %s before it ended, in the last wave's tail (%" PRId64 " blocks)", name,
                 explain_duration(gap, sizeof gap, blocking->end_ns - waiting->start_ns),
                 resident->last_wave_blocks);
    else if (waiting->launch.threads_per_block > 0)
        snprintf(tail, sizeof tail, "no block of %s (%" PRId64 " threads) fit beside it", name,
                 waiting->launch.threads_per_block);
    else
        snprintf(tail, sizeof tail, "not even a one-warp block of %s fit beside it", name);
    explain_describe(item,
                     "%s%s on stream %" PRId64 " held all %" PRId64 " SMs (%" PRId64 " blocks, %" PRId64
                     " resident per SM, limited by %s: %" PRId64 " waves); %s",
                     communication ? "NCCL kernel waited for SMs: kernel " : "kernel ", other,
                     blocking->stream_id, device->limits.sm_count, blocking->launch.grid_blocks,
                     resident->blocks_per_sm, occupancy_limiter_name(resident->limiter), resident->waves,
                     tail);
    return 1;
}

static int explain_compute_saturation(explainer *explain, struct wait_case *item)
{
    return !is_comm_behind_compute(item) && explain_sm_saturation(explain, item);
}

static int explain_comm_behind_compute(explainer *explain, struct wait_case *item)
{
    return is_comm_behind_compute(item) && explain_sm_saturation(explain, item);
}

static int explain_unexplained(explainer *explain, struct wait_case *item)
{
    char name[128], other[128], gap[32];
    explain_op_name(explain, item->waiting, name, sizeof name);
    explain_op_name(explain, item->blocking, other, sizeof other);
    int64_t delay = item->waiting->start_ns - item->blocking->end_ns;
    const char *why =
        item->in_graph        ? "; both may be nodes of one CUDA graph, whose edges the trace does not hold"
        : !item->launch.known ? "; the trace has no launch record for it (no API records), so a late"
                                " launch cannot be ruled out"
                              : "; it was enqueued before and no recorded cause applies";
    explain_describe(item, "%s on stream %" PRId64 " started %s %s %s on stream %" PRId64 " ended%s", name,
                     item->waiting->stream_id, explain_duration(gap, sizeof gap, delay < 0 ? -delay : delay),
                     delay < 0 ? "before" : "after", other, item->blocking->stream_id, why);
    return 1;
}

/* --- rules of the held road (detection rule 4): a blocking call held the launching thread when
 * B ended --- */

/* The call that held the thread was the asynchronous one that issued B, a copy with a pageable
 * side: the driver staged it synchronously. */
static int rule_held_pageable_copy(explainer *explain, struct wait_case *item)
{
    const struct blocking_call *call = &item->call;
    if (!call->issued_pageable_copy)
        return 0;
    char name[128], other[128], held[32], after[32];
    explain_op_name(explain, item->waiting, name, sizeof name);
    explain_op_name(explain, item->blocking, other, sizeof other);
    explain_describe(
        item,
        "%s was in %s for %s: it issued copy %s on stream %" PRId64 " from pageable host"
        " memory and staged it synchronously; %s for %s was called %s after it returned (enqueued before"
        " the copy, %s could have run beside it)",
        explain_thread_label(explain, item), call->name,
        explain_duration(held, sizeof held, call->end_ns - call->start_ns), other, item->blocking->stream_id,
        item->launch.name, name, explain_duration(after, sizeof after, item->launch.start_ns - call->end_ns),
        name);
    return 1;
}

static int rule_held_host_sync(explainer *explain, struct wait_case *item)
{
    const struct blocking_call *call = &item->call;
    char name[128], other[128], held[32], after[32], beside[160];
    explain_op_name(explain, item->waiting, name, sizeof name);
    explain_op_name(explain, item->blocking, other, sizeof other);
    explain_describe(
        item,
        "%s was blocked in %s for %s until %s on stream %" PRId64 " ended; stream %" PRId64
        " sat idle meanwhile and %s for %s was called %s after the call returned (enqueued before"
        " it, %s could have run beside %s)",
        explain_thread_label(explain, item), call->name,
        explain_duration(held, sizeof held, call->end_ns - call->start_ns), other, item->blocking->stream_id,
        item->waiting->stream_id, item->launch.name, name,
        explain_duration(after, sizeof after, item->launch.start_ns - call->end_ns), name,
        explain_second_name(beside, sizeof beside, name, other, item->blocking->stream_id));
    return 1;
}

/* --- the rules, in proof order --- */

/* One rule: tried on the waits of its roads, `proves` proves the rule's cause from recorded
 * fields (and writes the evidence) and returns 1, or passes (0) when the trace does not prove it.
 * The first rule of a wait's road that proves its cause names it; the docs/metrics.md cause table
 * lists the same rows in the same order; what to do about each cause is in causes/causes.def. */
struct cause_rule {
    const char *name;
    enum analysis_cause cause; /* NO_WAIT: proves that there is no missed overlap */
    unsigned roads;            /* enum wait_road bits */
    int (*proves)(explainer *explain, struct wait_case *item);
};
#define NO_WAIT ANALYSIS_CAUSE_COUNT

/* What the host did comes first (a late launch makes every GPU-side cause moot), then the
 * dependencies the program asked for, then the hardware's reasons; `unexplained` last, said so,
 * never guessed. A wait on the resources road that no rule proves is no wait. */
static const struct cause_rule rules[] = {
    {"pageable copy held the launching thread", ANALYSIS_CAUSE_PAGEABLE_COPY, ROAD_LATE,
     rule_late_pageable_copy},
    {"barrier over both streams: no wait", NO_WAIT, ROAD_LATE, rule_barrier},
    {"blocking call held the launching thread", ANALYSIS_CAUSE_HOST_SYNC, ROAD_LATE, rule_late_host_sync},
    {"launch blocking", ANALYSIS_CAUSE_LAUNCH_BLOCKING, ROAD_LATE, explain_launch_blocking},
    {"late launch", ANALYSIS_CAUSE_LATE_LAUNCH, ROAD_LATE, rule_late_launch},
    {"pageable copy staged by the blocking call", ANALYSIS_CAUSE_PAGEABLE_COPY, ROAD_HELD,
     rule_held_pageable_copy},
    {"host synchronization", ANALYSIS_CAUSE_HOST_SYNC, ROAD_HELD, rule_held_host_sync},
    {"event dependency", ANALYSIS_CAUSE_EVENT_DEPENDENCY, ROAD_READY, explain_event_dependency},
    {"one NCCL communicator", ANALYSIS_CAUSE_SHARED_COMMUNICATOR, ROAD_READY, explain_shared_communicator},
    {"legacy default stream", ANALYSIS_CAUSE_LEGACY_DEFAULT_STREAM, ROAD_READY, explain_legacy_default},
    {"pageable copy", ANALYSIS_CAUSE_PAGEABLE_COPY, ROAD_READY, explain_pageable_copy},
    {"copy engine", ANALYSIS_CAUSE_COPY_ENGINE, ROAD_READY, explain_copy_engine},
    {"shared hardware queue", ANALYSIS_CAUSE_SHARED_QUEUE, ROAD_READY, explain_shared_queue},
    {"stream priority", ANALYSIS_CAUSE_STREAM_PRIORITY, ROAD_READY, explain_priority},
    {"SM saturation", ANALYSIS_CAUSE_SM_SATURATION, ROAD_READY | ROAD_RESOURCES, explain_compute_saturation},
    {"communication behind compute", ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE, ROAD_READY | ROAD_RESOURCES,
     explain_comm_behind_compute},
    {"unexplained", ANALYSIS_CAUSE_UNEXPLAINED, ROAD_READY, explain_unexplained},
};

/* Proves the wait's cause with the first rule of its road that applies, and records the wait
 * unless that rule proved there is none. */
static void apply_rules(explainer *explain, struct wait_case *item)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if (!(rules[i].roads & item->road) || !rules[i].proves(explain, item))
            continue;
        if (rules[i].cause != NO_WAIT) {
            item->wait.cause = rules[i].cause;
            explain_record_wait(explain, item);
        }
        return;
    }
}

/* The time lost: how much of X could have run under the other op had it started at wait_start
 * (docs/metrics.md, "time lost"), counting the wait only until held_until_ns (INT64_MAX: X's
 * start). */
static int set_wait_time(explainer *explain, struct wait_case *item, int64_t wait_start_ns,
                         int64_t held_until_ns)
{
    const struct model_op *waiting = item->waiting;
    item->wait.wait_start_ns = wait_start_ns;
    item->wait.wait_end_ns = waiting->start_ns;
    item->wait.lost_ns =
        min64(min64(waiting->start_ns, held_until_ns) - wait_start_ns, waiting->end_ns - waiting->start_ns);
    item->describe = explain_would_keep(explain, item->wait.lost_ns);
    explain->describing = item->describe;
    return item->wait.lost_ns > 0;
}

/* X waited for B, found by detection rules 1 to 3b: sets the wait's road and time, then proves. */
void explain_prove(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    explain_find_launch(explain, item);
    item->in_graph =
        waiting->graph_id != STORE_NULL || (item->launch.known && name_has(item->launch.name, "Graph"));
    /* A graph node is enqueued somewhere inside its graph's launch call, and a pageable copy's DMA
     * starts while its call is still staging the data: only the call's start bounds when they
     * became ready. */
    int enqueued_in_call = item->in_graph || is_pageable_copy(waiting);
    int64_t ready_ns = item->previous_end_ns;
    int64_t enqueued_ns = enqueued_in_call ? item->launch.start_ns : item->launch.end_ns;
    if (item->launch.known)
        ready_ns = max64(ready_ns, enqueued_ns);
    item->ready_ns = ready_ns;
    if (item->resources_held) {
        /* X started in the middle of B: a wait only when its launch proves it was ready well
         * before, and only SM resources held by B's blocks explain it (else no case at all). */
        int64_t wait_start = max64(ready_ns, blocking->start_ns);
        if (!item->launch.known || item->in_graph ||
            waiting->start_ns - wait_start <= EXPLAIN_START_TOLERANCE_NS ||
            !set_wait_time(explain, item, wait_start, INT64_MAX))
            return;
        item->road = ROAD_RESOURCES;
    } else if (item->launch.known && !item->in_graph &&
               enqueued_ns >= blocking->end_ns - EXPLAIN_LAUNCH_LATENCY_NS) {
        /* A graph's kernels have no launch call of their own: the graph launch tells nothing
         * about when each node became ready, so none of them is called late. */
        if (!set_wait_time(explain, item, max64(item->previous_end_ns, blocking->start_ns), INT64_MAX))
            return;
        item->road = ROAD_LATE;
    } else {
        if (!set_wait_time(explain, item, max64(ready_ns, blocking->start_ns), INT64_MAX))
            return;
        item->road = ROAD_READY;
    }
    apply_rules(explain, item);
}

/* X ran after B although its stream sat idle, because X's launch came only after a blocking call
 * (a synchronization, cudaMalloc/cudaFree, a synchronous copy) that held the thread until B
 * ended, a call begun after X's stream had drained: enqueued before the call, X could have run
 * beside B (docs/metrics.md, "host-sync"). Detection rule 4: sets the road and time, then proves. */
void explain_prove_host_sync(explainer *explain, struct wait_case *item)
{
    explain_find_launch(explain, item);
    /* A graph node has no launch of its own; an op issued by a blocking call (cudaMemcpy) is the
     * program reading results back: the thread waits for it anyway, it is no work held back. */
    if (!item->launch.known || item->waiting->graph_id != STORE_NULL ||
        name_has(item->launch.name, "Graph") || cuda_api_blocks_host(item->launch.name))
        return;
    struct blocking_call *call = &item->call;
    if (!explain_find_blocking_call(explain, item, call) || call->end_ns > item->launch.start_ns) {
        /* No call held the thread when B ended, X's launch returned only after B ended (or just
         * before) and X started soon after B's end: the GPU idled a moment until the host
         * enqueued X (a launch-bound loop). Longer idle gaps are host phases (start-up, data
         * loading), shown as idle time, not as a missed overlap. */
        if (item->other_running || item->launch.end_ns < item->blocking->end_ns - EXPLAIN_LAUNCH_LATENCY_NS ||
            item->waiting->start_ns > item->blocking->end_ns + EXPLAIN_LATE_LAUNCH_GAP_NS ||
            !set_wait_time(explain, item, max64(item->previous_end_ns, item->blocking->start_ns), INT64_MAX))
            return;
        item->road = ROAD_LATE;
        apply_rules(explain, item);
        return;
    }
    int64_t wait_start_ns = max64(max64(item->previous_end_ns, item->blocking->start_ns), call->start_ns);
    /* The call must be what kept the launch back: the thread was held in it for at least half of
     * the time from the stream going idle to the launch (as for late launches). */
    int64_t held_ns = call->end_ns - wait_start_ns;
    if (held_ns * 2 < item->launch.start_ns - wait_start_ns)
        return;
    if (!set_wait_time(explain, item, wait_start_ns, call->end_ns))
        return;
    item->road = ROAD_HELD;
    apply_rules(explain, item);
}
