/* detect.c: finds the op X waited for (see explain.h) and owns the explainer. For every op the
 * sweep meets on a stream that was free, the strongest proof first: a communicator or a channel
 * FIFO names the op X queued behind; then the other stream's op X started right after (or in whose
 * drain); then a kernel whose blocks held the SM resources X needed; then, for a blocking host
 * call, the op that ended last before X. The checks are O(streams + channels) per op, on the
 * device's recent lanes; rules.c proves the wait's cause. */
#include <stdlib.h>
#include <string.h>

#include "explain_parts.h"
#include "store.h"

explainer *explainer_new(sqlite3 *db, kernel_names *names, size_t max_waits, error_info *err)
{
    explainer *explain = calloc(1, sizeof *explain);
    if (!explain) {
        error_set(err, "out of memory");
        return NULL;
    }
    explain->db = db;
    explain->names = names;
    thread_names_open(&explain->threads, db);
    explain->max_waits = max_waits;
    explain->kept = calloc(max_waits ? max_waits : 1, sizeof *explain->kept);
    if (!explain->kept) {
        error_set(err, "out of memory");
        explainer_free(explain);
        return NULL;
    }
    if (explain_host_open(explain, err) != 0) {
        explainer_free(explain);
        return NULL;
    }
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++)
        explain->causes[cause].cause = (enum analysis_cause)cause;
    explain->stream_waits_process_id = INT64_MIN;
    explain->blocking_process_id = INT64_MIN;
    return explain;
}

void explainer_free(explainer *explain)
{
    if (!explain)
        return;
    explain_host_close(explain);
    free(explain->kept);
    free(explain->arrivals);
    thread_names_close(&explain->threads);
    free(explain);
}

/* --- the blocking operation --- */

/* How long the last wave of the lane's last kernel took (duration / waves), or 0 when the
 * kernel is not known to have filled the device in more than one wave. */
int64_t explain_last_wave_ns(const struct device_state *device, struct lane_state *lane)
{
    const struct model_op *op = &lane->last;
    if (op->kind != MODEL_KERNEL || !device->limits_known)
        return 0;
    if (lane->last_occupancy_state == 0)
        lane->last_occupancy_state =
            occupancy_compute(&device->limits, &op->launch, &lane->last_occupancy) == 0 &&
                    lane->last_occupancy.blocks_per_sm > 0
                ? 1
                : -1;
    if (lane->last_occupancy_state < 0 || !lane->last_occupancy.fills_device ||
        lane->last_occupancy.waves < 2)
        return 0;
    return (op->end_ns - op->start_ns) / lane->last_occupancy.waves;
}

/* The other stream's last operation that X started right after (or in whose drain), or -1. */
static long find_blocker(struct device_state *device, size_t waiting_lane, const struct model_op *waiting,
                         int64_t previous_end_ns)
{
    long best = -1;
    int64_t best_distance = INT64_MAX;
    for (size_t k = 0; k < device->recent_count; k++) {
        size_t i = device->recent[k];
        struct lane_state *lane = &device->lanes[i];
        const struct model_op *other = &lane->last;
        if (i == waiting_lane || !lane->has_last || other->end_ns <= other->start_ns ||
            other->start_ns >= waiting->start_ns ||
            waiting->start_ns > other->end_ns + EXPLAIN_START_TOLERANCE_NS)
            continue;
        /* The waiting stream must have been free while the other ran. */
        if (previous_end_ns != INT64_MIN && other->end_ns <= previous_end_ns + EXPLAIN_START_TOLERANCE_NS)
            continue;
        if (waiting->start_ns < other->end_ns - START_JITTER_NS) {
            int64_t drain_ns = explain_last_wave_ns(device, lane);
            if (drain_ns <= 0 || waiting->start_ns < other->end_ns - drain_ns)
                continue;
        }
        int64_t distance = waiting->start_ns > other->end_ns ? waiting->start_ns - other->end_ns
                                                             : other->end_ns - waiting->start_ns;
        if (distance < best_distance) {
            best_distance = distance;
            best = (long)i;
        }
    }
    return best;
}

/* --- finding the op X waited for --- */

static int lane_index_of(const struct device_state *device, const struct lane_state *lane)
{
    return (int)(lane - device->lanes);
}

/* The waiting stream was free while `other` ran (it had not just finished its own work). */
static int stream_free_during(const struct model_op *other, int64_t previous_end_ns)
{
    return previous_end_ns == INT64_MIN || other->end_ns > previous_end_ns + EXPLAIN_START_TOLERANCE_NS;
}

/* What the strongest proofs found, before a wait_case is made of it: a wait_case is large (its
 * evidence and host figures) and zeroing one for each op whose stream was free cost a host-bound
 * trace, where nearly every op is one, more than the proofs. */
struct proof_found {
    struct lane_state *blocking_lane;
    const struct model_op *blocking;
    const struct model_op *queue_head;
    int same_communicator_candidate;
};

/* X is an NCCL kernel that started when the device's previous NCCL kernel, on another stream,
 * ended. */
static int find_communicator_blocker(struct device_state *device, size_t waiting_lane,
                                     const struct model_op *op, int64_t previous_end_ns,
                                     struct proof_found *item)
{
    const struct model_op *other = &device->last_communication;
    if (op->category != ANALYSIS_COMMUNICATION || !device->has_last_communication ||
        device->last_communication_lane == waiting_lane || other->end_ns <= other->start_ns ||
        other->start_ns >= op->start_ns || op->start_ns < other->end_ns - START_JITTER_NS ||
        op->start_ns > other->end_ns + EXPLAIN_START_TOLERANCE_NS ||
        !stream_free_during(other, previous_end_ns))
        return 0;
    item->blocking_lane = &device->lanes[device->last_communication_lane];
    item->blocking = other;
    item->same_communicator_candidate = 1;
    return 1;
}

struct channel_key {
    const struct device_state *device;
    int64_t channel_id;
    int is_copy;
};

static int channel_matches(const void *context, size_t position)
{
    const struct channel_key *key = context;
    const struct channel_state *channel = &key->device->channels[position];
    return channel->channel_id == key->channel_id && channel->is_copy == key->is_copy;
}

static uint64_t channel_hash(const struct model_op *op)
{
    return key_index_hash(op->channel_id, op->kind != MODEL_KERNEL, 0, 0);
}

static struct channel_state *channel_of(struct device_state *device, const struct model_op *op)
{
    if (op->channel_id == STORE_NULL)
        return NULL;
    struct channel_key key = {device, op->channel_id, op->kind != MODEL_KERNEL};
    if (device->last_channel_hit < device->channel_count && channel_matches(&key, device->last_channel_hit))
        return &device->channels[device->last_channel_hit];
    long found = key_index_find(&device->channel_index, channel_hash(op), channel_matches, &key);
    if (found < 0)
        return NULL;
    device->last_channel_hit = (size_t)found;
    return &device->channels[found];
}

/* X is on a channel whose latest dispatched op (the head, of another stream, enqueued before X)
 * had waited for its own stream's previous op, and X was dispatched right after the head. */
static int find_queue_blocker(struct device_state *device, size_t waiting_lane, const struct model_op *op,
                              int64_t previous_end_ns, struct proof_found *item)
{
    struct channel_state *channel = channel_of(device, op);
    if (!channel || channel->lane == waiting_lane || !channel->has_held_by)
        return 0;
    const struct model_op *head = &channel->head, *held_by = &channel->held_by;
    if (head->correlation_id == STORE_NULL || op->correlation_id == STORE_NULL ||
        head->correlation_id > op->correlation_id || op->start_ns < head->start_ns ||
        op->start_ns > head->start_ns + EXPLAIN_QUEUE_DISPATCH_NS ||
        head->start_ns > held_by->end_ns + EXPLAIN_START_TOLERANCE_NS ||
        held_by->end_ns <= held_by->start_ns || !stream_free_during(held_by, previous_end_ns))
        return 0;
    item->blocking_lane = &device->lanes[channel->lane];
    item->blocking = held_by;
    item->queue_head = head;
    return 1;
}

/* For a host-sync check: the other stream's op that ended last before X started, while X's
 * stream was free. */
static long find_drained_before(const struct device_state *device, size_t waiting_lane,
                                const struct model_op *op, int64_t previous_end_ns)
{
    long best = -1;
    for (size_t k = 0; k < device->recent_count; k++) {
        size_t i = device->recent[k];
        const struct lane_state *lane = &device->lanes[i];
        const struct model_op *other = &lane->last;
        if (i == waiting_lane || !lane->has_last || other->end_ns <= other->start_ns ||
            other->end_ns > op->start_ns || !stream_free_during(other, previous_end_ns))
            continue;
        if (best < 0 || other->end_ns > device->lanes[best].last.end_ns)
            best = (long)i;
    }
    return best;
}

/* X (a kernel) started while another stream's kernel B was still running, well after B began and
 * after X's own stream had drained: a candidate for "B's blocks held the SM resources X needed"
 * (explain_sm_saturation proves it or the case is dropped). Of several, the one running longest. */
static long find_resource_holder(const struct device_state *device, size_t waiting_lane,
                                 const struct model_op *op, int64_t previous_end_ns)
{
    long best = -1;
    if (op->kind != MODEL_KERNEL)
        return -1;
    for (size_t k = 0; k < device->recent_count; k++) {
        size_t i = device->recent[k];
        const struct lane_state *lane = &device->lanes[i];
        const struct model_op *other = &lane->last;
        if (i == waiting_lane || !lane->has_last || other->kind != MODEL_KERNEL ||
            other->start_ns + EXPLAIN_START_TOLERANCE_NS >= op->start_ns ||
            op->start_ns + START_JITTER_NS >= other->end_ns || !stream_free_during(other, previous_end_ns))
            continue;
        if (best < 0 || other->start_ns < device->lanes[best].last.start_ns)
            best = (long)i;
    }
    return best;
}

/* Whether no block of op fits beside the blocks the lane's last kernel put on every SM. */
static int holds_resources_for(const struct device_state *device, struct lane_state *lane,
                               const struct model_op *op)
{
    if (op->kind != MODEL_KERNEL || !device->limits_known)
        return 0;
    explain_last_wave_ns(device, lane); /* computes the lane's cached occupancy */
    if (lane->last_occupancy_state != 1)
        return 0;
    const struct occupancy_result *resident = &lane->last_occupancy;
    int64_t on_every_sm = occupancy_blocks_on_every_sm(&device->limits, &lane->last.launch, resident);
    return on_every_sm > 0 && occupancy_shortage_beside(&device->limits, resident, on_every_sm,
                                                        &op->launch) != OCCUPANCY_LIMIT_UNKNOWN;
}

/* Remembers op as its channel's head (with the op it followed on its stream) and as the device's
 * latest NCCL kernel. Returns 0, or -1 when out of memory. */
static int remember_dispatch(struct device_state *device, size_t lane_index, const struct model_op *op)
{
    if (op->category == ANALYSIS_COMMUNICATION) {
        device->last_communication = *op;
        device->last_communication_lane = lane_index;
        device->has_last_communication = 1;
    }
    if (op->channel_id == STORE_NULL)
        return 0;
    struct channel_state *channel = channel_of(device, op);
    if (!channel) {
        if (device->channel_count == device->channel_capacity) {
            size_t capacity = device->channel_capacity ? device->channel_capacity * 2 : 8;
            struct channel_state *grown = realloc(device->channels, capacity * sizeof *grown);
            if (!grown)
                return -1;
            device->channels = grown;
            device->channel_capacity = capacity;
        }
        if (key_index_add(&device->channel_index, channel_hash(op), device->channel_count) != 0)
            return -1;
        channel = &device->channels[device->channel_count++];
        *channel = (struct channel_state){.channel_id = op->channel_id, .is_copy = op->kind != MODEL_KERNEL};
    }
    const struct lane_state *lane = &device->lanes[lane_index];
    channel->lane = lane_index;
    channel->head = *op;
    channel->has_held_by = lane->has_last;
    if (lane->has_last)
        channel->held_by = lane->last;
    return 0;
}

/* Lists the lane among the device's recent ones (device_state.h), in lane order; when the list
 * is full, the lane that started work longest ago leaves it. O(DEVICE_RECENT_LANES) per
 * operation at most, nothing while the device has no more lanes than the list holds. */
static void note_recent(struct device_state *device, size_t lane_index)
{
    struct lane_state *lane = &device->lanes[lane_index];
    lane->last_turn = ++device->turn;
    if (lane->is_recent)
        return;
    if (device->recent_count == DEVICE_RECENT_LANES) {
        size_t oldest = 0;
        for (size_t k = 1; k < device->recent_count; k++)
            if (device->lanes[device->recent[k]].last_turn < device->lanes[device->recent[oldest]].last_turn)
                oldest = k;
        device->lanes[device->recent[oldest]].is_recent = 0;
        memmove(&device->recent[oldest], &device->recent[oldest + 1],
                (device->recent_count - oldest - 1) * sizeof device->recent[0]);
        device->recent_count--;
    }
    size_t at = device->recent_count;
    while (at > 0 && device->recent[at - 1] > lane_index)
        at--;
    memmove(&device->recent[at + 1], &device->recent[at],
            (device->recent_count - at) * sizeof device->recent[0]);
    device->recent[at] = lane_index;
    device->recent_count++;
    lane->is_recent = 1;
}

int explainer_consider(explainer *explain, struct device_state *device, size_t lane_index,
                       const struct model_op *op, int reportable)
{
    struct lane_state *lane = &device->lanes[lane_index];
    int64_t previous_end_ns = lane->has_last ? max64(lane->previous_end_ns, lane->last.end_ns) : INT64_MIN;
    int own_stream_was_free =
        previous_end_ns == INT64_MIN || previous_end_ns + EXPLAIN_START_TOLERANCE_NS < op->start_ns;
    if (reportable && op->end_ns > op->start_ns && own_stream_was_free) {
        /* The strongest proof first: a communicator or a channel FIFO names the op X queued
         * behind; then the op X started right after; then a blocking host call. */
        struct proof_found proof = {0};
        int found = find_communicator_blocker(device, lane_index, op, previous_end_ns, &proof) ||
                    find_queue_blocker(device, lane_index, op, previous_end_ns, &proof);
        long blocker = found ? lane_index_of(device, proof.blocking_lane)
                             : find_blocker(device, lane_index, op, previous_end_ns);
        int host_sync = 0, other_running = 0, resources_held = 0;
        if (blocker < 0) {
            /* Only when B's blocks provably leave no room for X: the check is pure arithmetic on
             * the lane's cached occupancy, the launch lookup that follows is a query. */
            blocker = find_resource_holder(device, lane_index, op, previous_end_ns);
            other_running = blocker >= 0;
            if (blocker >= 0 && !holds_resources_for(device, &device->lanes[blocker], op))
                blocker = -1;
            resources_held = blocker >= 0;
        }
        if (blocker < 0) {
            blocker = find_drained_before(device, lane_index, op, previous_end_ns);
            host_sync = blocker >= 0;
        }
        if (blocker >= 0 && (lane->selected || device->lanes[blocker].selected)) {
            struct wait_case item = {.device = device,
                                     .waiting_lane = lane,
                                     .waiting = op,
                                     .previous_end_ns = previous_end_ns,
                                     .previous = lane->has_last ? &lane->last : NULL,
                                     .blocking_lane = found ? proof.blocking_lane : &device->lanes[blocker],
                                     .blocking = found ? proof.blocking : &device->lanes[blocker].last,
                                     .queue_head = proof.queue_head,
                                     .same_communicator_candidate = proof.same_communicator_candidate,
                                     .other_running = other_running,
                                     .resources_held = resources_held};
            if (host_sync)
                explain_prove_host_sync(explain, &item);
            else
                explain_prove(explain, &item);
        }
    }
    if (remember_dispatch(device, lane_index, op) != 0)
        return -1;
    lane->previous_end_ns = previous_end_ns;
    lane->last = *op;
    lane->has_last = 1;
    lane->last_occupancy_state = 0;
    note_recent(device, lane_index);
    return 0;
}
