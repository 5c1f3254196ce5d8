/* analysis_walk.c: one device's walk (analysis_parts.h): reads its operations in start order
 * (op_source), feeds each to the sweep (metrics), the explainer (waits), the accountant (idle and
 * exposed communication) and the exposed copies, keeps the selected ones for the replay (whatif/)
 * and the overlap cost, and leaves the device's part of the result in a fragment. A walker serves
 * one thread on its own connection; everything a walk changes is the walker's or the fragment's.
 * Memory per device: its streams, open intervals, selected operations and its process's correlated
 * host calls (launches.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_parts.h"
#include "device_state.h"
#include "overlap_cost.h"
#include "thread_calls.h"
#include "whatif.h"

/* The selected operations' buffer grows from 1,024 straight to 27 MB (2^18 kept_ops), which glibc's malloc
 * serves by mmap, whose pages cost nothing until written, and grows by mremap, without copying (grown by
 * doubling and copying, the ResNet-50 recording's 210k operations faulted 4,000 pages more in). A
 * small trace (a fuzzer's input, run under ASan, which writes the shadow of every byte allocated)
 * stays small. */
#define ANALYSIS_SMALL_SELECTED_OPS 1024u
#define ANALYSIS_LARGE_SELECTED_OPS (1u << 18)

int analysis_walker_init(struct analysis_walker *walker, store *trace, const struct run *run, error_info *err)
{
    *walker = (struct analysis_walker){
        .trace = trace, .db = store_db(trace), .run = run, .selection_process_id = INT64_MIN};
    selection_init_everything(&walker->selection);
    sqlite3 *db = walker->db;
    const struct analysis_result *result = run->result;
    size_t max_waits = run->options.max_waits ? run->options.max_waits : ANALYSIS_DEFAULT_MAX_WAITS;
    int status = -1;
    if (!(walker->names = kernel_names_new(db, err)) || !(walker->source = op_source_new(db, err)))
        goto done;
    walker->line = sweep_new();
    walker->copies = copy_exposure_new();
    if (!walker->line || !walker->copies) {
        error_set(err, "out of memory");
        goto done;
    }
    if (!(walker->explain = explainer_new(db, walker->names, max_waits, err)) ||
        !(walker->accountant = accountant_new(db, walker->names, result->steps, result->step_count, err)) ||
        !(walker->reader = store_analysis_reader_open(db, err)))
        goto done;
    explainer_record_arrivals(walker->explain);
    explainer_share_thread_calls(walker->explain, accountant_thread_calls(walker->accountant));
    status = 0;
done:
    if (status != 0)
        analysis_walker_free(walker);
    return status;
}

void analysis_walker_free(struct analysis_walker *walker)
{
    store_analysis_reader_free(walker->reader);
    explainer_free(walker->explain);
    accountant_free(walker->accountant);
    sweep_free(walker->line);
    copy_exposure_free(walker->copies);
    op_source_free(walker->source);
    kernel_names_free(walker->names);
    selection_free(&walker->selection);
    free(walker->selected_ops);
    *walker = (struct analysis_walker){0};
}

void device_fragment_free(struct device_fragment *fragment)
{
    free(fragment->part.lanes);
    free(fragment->part.devices);
    free(fragment->part.stream_pairs);
    free(fragment->part.overlap_costs);
    accounting_breakdown_free(&fragment->copy_breakdown);
    free(fragment->copy_intervals);
    accountant_device_free(&fragment->books);
    free(fragment->waits.arrivals);
    memset(fragment, 0, sizeof *fragment);
}

/* The walk of one device, with the fragment it fills. */
struct walk {
    struct analysis_walker *walker;
    struct device_fragment *out;
    error_info *err;
};

/* --- the device and its streams --- */

/* Builds the selection of a process (ranges and steps are per process). */
static int select_process(struct walk *walk, int64_t process_id)
{
    struct analysis_walker *walker = walk->walker;
    if (walker->selection_process_id == process_id)
        return 0;
    selection_free(&walker->selection);
    walker->selection_process_id = process_id;
    return analysis_select_process(walker->trace, walker->run->result, &walker->run->options, process_id,
                                   &walker->selection, &walk->out->ranges_found, walk->err);
}

/* A device limit no GPU has would overflow the occupancy arithmetic: the trace is damaged. */
static int check_device_limits(struct walk *walk, const struct device_state *device, int64_t threads_per_sm)
{
    const struct occupancy_device *limits = &device->limits;
    const struct {
        const char *name;
        int64_t value, max;
    } checks[] = {
        {"sm_count", limits->sm_count, STORE_MAX_SM_COUNT},
        {"compute_capability_major", limits->compute_capability_major, STORE_MAX_COMPUTE_CAPABILITY},
        {"compute_capability_minor", limits->compute_capability_minor, STORE_MAX_COMPUTE_CAPABILITY},
        {"max_blocks_per_sm", limits->max_blocks_per_sm, STORE_MAX_THREADS},
        {"max_warps_per_sm", limits->max_warps_per_sm, STORE_MAX_THREADS},
        {"max_threads_per_sm", threads_per_sm, STORE_MAX_THREADS},
        {"max_threads_per_block", limits->max_threads_per_block, STORE_MAX_THREADS},
        {"max_registers_per_sm", limits->max_registers_per_sm, STORE_MAX_REGISTERS},
        {"max_registers_per_block", limits->max_registers_per_block, STORE_MAX_REGISTERS},
        {"max_shared_memory_per_sm", limits->max_shared_memory_per_sm, STORE_MAX_SHARED_MEMORY_BYTES},
        {"copy_engine_count", device->copy_engine_count == STORE_NULL ? 0 : device->copy_engine_count,
         STORE_MAX_THREADS},
        {"warp_size", limits->warp_size, STORE_MAX_WARP_SIZE},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (!store_count_plausible(checks[i].value, checks[i].max))
            return error_set(walk->err,
                             "the trace is damaged: device %" PRId64 " of process %" PRId64 " has %s %" PRId64
                             ", beyond any GPU",
                             device->device_id, device->process_id, checks[i].name, checks[i].value);
    return 0;
}

static int load_device_limits(struct walk *walk, struct device_state *device)
{
    struct occupancy_device *limits = &device->limits;
    struct store_device_row row;
    if (store_analysis_device(walk->walker->reader, device->process_id, device->device_id, &row)) {
        snprintf(device->device_name, sizeof device->device_name, "%s", row.name);
        limits->sm_count = row.sm_count;
        limits->compute_capability_major = row.compute_capability_major;
        limits->compute_capability_minor = row.compute_capability_minor;
        limits->max_blocks_per_sm = row.max_blocks_per_sm;
        limits->max_warps_per_sm = row.max_warps_per_sm;
        limits->max_threads_per_block = row.max_threads_per_block;
        limits->max_registers_per_sm = row.max_registers_per_sm;
        limits->max_registers_per_block = row.max_registers_per_block;
        limits->max_shared_memory_per_sm = row.max_shared_memory_per_sm;
        device->copy_engine_count = row.copy_engine_count;
        limits->warp_size = row.warp_size;
        if (check_device_limits(walk, device, row.max_threads_per_sm) != 0)
            return -1;
        if (limits->max_warps_per_sm <= 0 && row.max_threads_per_sm > 0)
            limits->max_warps_per_sm =
                row.max_threads_per_sm / (limits->warp_size > 0 ? limits->warp_size : 32);
    }
    device->limits_known = limits->sm_count > 0 && occupancy_device_complete(limits) == 0;
    return 0;
}

static int add_result_lane(struct walk *walk, const struct device_state *device,
                           const struct lane_state *lane)
{
    struct analysis_result *part = &walk->out->part;
    if (part->lane_count == walk->out->lane_capacity) {
        size_t capacity = walk->out->lane_capacity ? walk->out->lane_capacity * 2 : 32;
        struct analysis_lane *grown = realloc(part->lanes, capacity * sizeof *grown);
        if (!grown)
            return -1;
        part->lanes = grown;
        walk->out->lane_capacity = capacity;
    }
    struct analysis_lane *out = &part->lanes[part->lane_count++];
    *out = (struct analysis_lane){.process_id = device->process_id,
                                  .pid = device->pid,
                                  .rank = device->rank,
                                  .device_id = device->device_id,
                                  .stream_id = lane->stream_id,
                                  .is_legacy_default = lane->is_legacy_default,
                                  .priority = lane->priority,
                                  .selected = lane->selected};
    snprintf(out->role, sizeof out->role, "idle");
    return 0;
}

static void load_stream(struct walk *walk, const struct device_state *device, struct lane_state *lane)
{
    struct store_stream_row row;
    lane->priority = lane->flags = STORE_NULL;
    if (store_analysis_stream(walk->walker->reader, device->process_id, lane->stream_id, device->device_id,
                              &row)) {
        lane->is_legacy_default = row.is_legacy_default;
        lane->is_per_thread_default = row.is_per_thread_default;
        lane->priority = row.priority;
        lane->flags = row.flags;
    }
}

struct lane_key {
    const struct device_state *device;
    int64_t stream_id;
};

static int lane_matches(const void *context, size_t position)
{
    const struct lane_key *key = context;
    return key->device->lanes[position].stream_id == key->stream_id;
}

/* The lane of a stream, created on first sight. Returns its index or -1 when out of memory. */
static long lane_of(struct walk *walk, struct device_state *device, int64_t stream_id)
{
    if (device->last_lane_hit < device->lane_count &&
        device->lanes[device->last_lane_hit].stream_id == stream_id)
        return (long)device->last_lane_hit;
    struct lane_key key = {device, stream_id};
    uint64_t hash = key_index_hash(stream_id, 0, 0, 0);
    long found = key_index_find(&device->lane_index, hash, lane_matches, &key);
    if (found >= 0) {
        device->last_lane_hit = (size_t)found;
        return found;
    }
    if (device->lane_count == device->lane_capacity) {
        size_t capacity = device->lane_capacity ? device->lane_capacity * 2 : 16;
        struct lane_state *grown = realloc(device->lanes, capacity * sizeof *grown);
        if (!grown)
            return -1;
        device->lanes = grown;
        device->lane_capacity = capacity;
    }
    if (key_index_add(&device->lane_index, hash, device->lane_count) != 0)
        return -1;
    const struct analysis_options *options = &walk->walker->run->options;
    struct lane_state *lane = &device->lanes[device->lane_count];
    *lane = (struct lane_state){.stream_id = stream_id,
                                .previous_end_ns = INT64_MIN,
                                .result_lane = walk->out->part.lane_count,
                                .selected = options->stream_id < 0 || options->stream_id == stream_id};
    load_stream(walk, device, lane);
    struct device_fragment *out = walk->out;
    out->wanted_stream_seen |= stream_id == options->stream_id;
    if (out->streams_seen_count < ANALYSIS_STREAMS_SEEN)
        out->streams_seen[out->streams_seen_count++] = stream_id;
    if (add_result_lane(walk, device, lane) != 0)
        return -1;
    device->last_lane_hit = device->lane_count;
    return (long)device->lane_count++;
}

/* Keeps op for the replay and the overlap cost (device->selected_ops). Returns 0 or -1 when out of
 * memory. */
static int keep_selected(struct device_state *device, const struct model_op *op)
{
    if (device->selected_op_count == device->selected_op_capacity) {
        size_t capacity = device->selected_op_capacity == 0 ? ANALYSIS_SMALL_SELECTED_OPS
                          : device->selected_op_capacity < ANALYSIS_LARGE_SELECTED_OPS
                              ? ANALYSIS_LARGE_SELECTED_OPS
                              : device->selected_op_capacity * 2;
        struct kept_op *grown = realloc(device->selected_ops, capacity * sizeof *grown);
        if (!grown)
            return -1;
        device->selected_ops = grown;
        device->selected_op_capacity = capacity;
    }
    whatif_keep_op(device, op, &device->selected_ops[device->selected_op_count++]);
    return 0;
}

/* --- the walk --- */

/* Opens the device's operations that can matter to its selection (those ending a little before it
 * too: a wait's blocking op). Returns 0 or -1 with err filled. */
static int open_device_ops(struct walk *walk, const struct device_state *device)
{
    int64_t first = selection_first_ns(device->selection), last = selection_last_ns(device->selection);
    int64_t end_after = first == INT64_MIN ? INT64_MIN : first - EXPLAIN_START_TOLERANCE_NS;
    return op_source_open(walk->walker->source, device->process_id, device->device_id, end_after, last,
                          walk->err);
}

/* The next operation, counted for progress, an NCCL kernel classed as communication. */
static int next_device_op(struct walk *walk, struct model_op *op)
{
    struct analysis_walker *walker = walk->walker;
    int status = op_source_next(walker->source, op, walk->err);
    if (status == 1) {
        /* a count handed on per 4,096 operations, not per operation */
        if ((++walker->ops_walked & 4095) == 0 && walker->tick)
            walker->tick(walker->tick_context, 4096);
        if (op->kind == MODEL_KERNEL && kernel_names_is_communication(walker->names, op->name_id, op->rowid))
            op->category = ANALYSIS_COMMUNICATION;
    }
    return status;
}

/* Reads, sweeps and explains every operation of the device. Returns the number counted or -1. */
static int64_t walk_operations(struct walk *walk, struct device_state *device)
{
    struct analysis_walker *walker = walk->walker;
    struct selection *selection = device->selection;
    int64_t first = selection_first_ns(selection);
    if (open_device_ops(walk, device) != 0)
        return -1;
    sweep_reset(walker->line, device);
    struct model_op op;
    int64_t counted = 0;
    int status;
    while ((status = next_device_op(walk, &op)) == 1) {
        long lane = lane_of(walk, device, op.stream_id);
        if (lane < 0 || sweep_advance(walker->line, device, op.start_ns) != 0)
            return error_set(walk->err, "out of memory");
        int in_selection = selection_overlaps(selection, op.start_ns, op.end_ns);
        if (in_selection && op.end_ns > first && keep_selected(device, &op) != 0)
            return error_set(walk->err, "out of memory");
        if (explainer_consider(walker->explain, device, (size_t)lane, &op,
                               in_selection && selection_contains(selection, op.start_ns)) != 0)
            return error_set(walk->err, "out of memory");
        if (in_selection && device->lanes[lane].selected) {
            if (sweep_add(walker->line, device, (size_t)lane, &op) != 0)
                return error_set(walk->err, "out of memory");
            if (accountant_observe(walker->accountant, device, &op, walk->err) != 0)
                return -1;
            if (copy_exposure_observe(walker->copies, &op) != 0)
                return error_set(walk->err, "out of memory");
            counted++;
        }
    }
    return status < 0 ? -1 : counted;
}

static int64_t max_lane_busy(const struct walk *walk, const struct device_state *device)
{
    int64_t most = 0;
    for (size_t i = 0; i < device->lane_count; i++) {
        const struct analysis_lane *lane = &walk->out->part.lanes[device->lanes[i].result_lane];
        if (lane->busy_ns > most)
            most = lane->busy_ns;
    }
    return most;
}

/* Headroom: the explained losses, but never more than the span minus the busiest stream's busy
 * time (each stream runs its work in order, so the span cannot shrink below that). */
static int64_t headroom(const struct device_state *device, const struct analysis_device *out, int64_t busiest)
{
    int64_t span = out->busy_ns + out->idle_ns;
    int64_t bound = span - busiest;
    int64_t value = device->explained_lost_ns < bound ? device->explained_lost_ns : bound;
    return value > 0 ? value : 0;
}

/* A device the selection does not show (another rank than --rank's, another device than
 * --device's): its collectives are matched with the shown devices' as the whole trace's analysis
 * matches them (who arrived last, how late, what it did meanwhile, its compute for load
 * imbalance), so that selecting never changes the answer; the result gets nothing else of it. */
static int walk_peer(struct walk *walk, struct device_state *device)
{
    struct analysis_walker *walker = walk->walker;
    walk->out->books.began = 1;
    if (accountant_begin_device(walker->accountant, device) != 0)
        return error_set(walk->err, "out of memory");
    if (launches_load(walker->db, device->process_id, &device->launches, walk->err) != 0)
        return -1;
    struct selection *selection = device->selection;
    if (open_device_ops(walk, device) != 0)
        return -1;
    struct model_op op;
    int status;
    while ((status = next_device_op(walk, &op)) == 1) {
        if (selection_overlaps(selection, op.start_ns, op.end_ns) &&
            accountant_observe(walker->accountant, device, &op, walk->err) != 0)
            return -1;
    }
    if (status < 0)
        return -1;
    int ended = accountant_end_device(walker->accountant, device, ACCOUNTANT_PEER, walk->err);
    thread_calls_release(accountant_thread_calls(walker->accountant));
    return ended;
}

/* The device's figures beyond the sweep's, its what-if replay and its overlap cost. */
static int finish_shown(struct walk *walk, struct device_state *device, struct analysis_device *out,
                        int64_t waits)
{
    struct analysis_walker *walker = walk->walker;
    const struct analysis_result *result = walker->run->result;
    out->process_id = device->process_id;
    out->pid = device->pid;
    out->rank = device->rank;
    out->device_id = device->device_id;
    snprintf(out->device_name, sizeof out->device_name, "%s", device->device_name);
    out->sm_count = device->limits.sm_count;
    out->limits = device->limits;
    out->limits_known = device->limits_known;
    out->lost_ns = device->lost_ns;
    out->wait_count = waits;
    out->headroom_ns = headroom(device, out, max_lane_busy(walk, device));
    struct accounting_breakdown *copies = &walk->out->copy_breakdown;
    if (copy_exposure_end_device(walker->copies, copies, 0) != 0)
        return error_set(walk->err, "out of memory");
    walk->out->copy_stretch_count = copy_exposure_device_stretches(walker->copies);
    walk->out->copy_intervals = copy_exposure_take_intervals(walker->copies, &walk->out->copy_interval_count);
    struct device_idle idle;
    accountant_device_idle(walker->accountant, &idle);
    /* The exposed copies' causes too: an exposed pageable copy asks for pinning (whatif.h). */
    for (size_t k = 0; k < copies->entry_count; k++)
        idle.ns[copies->entries[k].cause] += copies->entries[k].ns;
    /* The overlap cost first: the replay is the selected operations' and the launches' last reader
     * and lets go of them as it takes them in (whatif.h), so they are not held beside its own. */
    if (overlap_cost_device(walker->names, device, 0, out, &walk->out->part, walk->err) != 0 ||
        whatif_device(walker->db, device, &idle, result->steps, result->step_count, out, walk->err) !=
            0) /* the replay's figure */
        return -1;
    for (size_t i = 0; i < device->lane_count; i++)
        out->stream_count += device->lanes[i].has_counted;
    return 0;
}

static int walk_shown(struct walk *walk, struct device_state *device)
{
    struct analysis_walker *walker = walk->walker;
    struct device_fragment *fragment = walk->out;
    if (load_device_limits(walk, device) != 0)
        return -1;
    int64_t waits_before = explainer_wait_count(walker->explain);
    struct analysis_device *out = calloc(1, sizeof *out);
    fragment->part.devices = out;
    fragment->books.began = out != NULL;
    if (out && (accountant_begin_device(walker->accountant, device) != 0 ||
                launches_load(walker->db, device->process_id, &device->launches, walk->err) != 0))
        out = NULL;
    if (out)
        copy_exposure_begin_device(walker->copies, device, &device->launches);
    int64_t counted = out ? walk_operations(walk, device) : error_set(walk->err, "out of memory");
    if (counted < 0)
        return -1;
    if (sweep_finish(walker->line, device, out, &fragment->part) != 0)
        return error_set(walk->err, "out of memory");
    int64_t waits = explainer_wait_count(walker->explain) - waits_before;
    int dropped = counted == 0 && waits == 0;
    if (accountant_end_device(walker->accountant, device, dropped ? SIZE_MAX : 0, walk->err) != 0)
        return -1;
    thread_calls_release(accountant_thread_calls(walker->accountant)); /* the walk's alone */
    if (dropped) {
        fragment->books.dropped = 1;
        fragment->part.lane_count = 0; /* nothing of this device is in the selection */
        fragment->part.stream_pair_count = 0;
        return 0;
    }
    if (finish_shown(walk, device, out, waits) != 0)
        return -1;
    fragment->part.interval_count = counted;
    fragment->part.device_count = 1;
    return 0;
}

/* Hands the device's books and waits over to the fragment. */
static int hand_over(struct walk *walk)
{
    struct device_fragment *fragment = walk->out;
    if (accountant_take_device(walk->walker->accountant, &fragment->books) != 0 ||
        explainer_take_device(walk->walker->explain, &fragment->waits) != 0)
        return error_set(walk->err, "out of memory");
    return 0;
}

void analysis_walk_device(struct analysis_walker *walker, struct store_gpu_device key, int shown,
                          size_t prior_copy_intervals, struct device_fragment *out)
{
    memset(out, 0, sizeof *out);
    struct walk walk = {walker, out, &out->err};
    out->books.process_id = key.process_id;
    if (select_process(&walk, key.process_id) != 0) {
        out->status = -1;
        return;
    }
    if (!walker->selection.everything && walker->selection.count == 0) {
        out->skipped = 1;
        return;
    }
    const struct analysis_options *options = &walker->run->options;
    struct device_state device = {.process_id = key.process_id,
                                  .device_id = key.device_id,
                                  .pid = -1,
                                  .rank = -1,
                                  .copy_engine_count = STORE_NULL,
                                  .selection = &walker->selection,
                                  .selected_ops = walker->selected_ops,
                                  .selected_op_capacity = walker->selected_op_capacity};
    store_analysis_process(walker->reader, device.process_id, &device.pid, &device.rank);
    copy_exposure_set_prior_intervals(walker->copies, prior_copy_intervals);
    int status;
    if (!shown || (options->rank >= 0 && device.rank != options->rank))
        status = walk_peer(&walk, &device);
    else
        status = walk_shown(&walk, &device);
    if (status == 0)
        status = hand_over(&walk);
    out->status = status;
    free(device.lanes);
    walker->selected_ops = device.selected_ops; /* grown, maybe: the next device's */
    walker->selected_op_capacity = device.selected_op_capacity;
    launches_free(&device.launches);
    key_index_free(&device.lane_index);
    free(device.channels);
    key_index_free(&device.channel_index);
}
