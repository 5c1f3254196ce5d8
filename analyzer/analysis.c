/* analysis.c: analysis_run: walks the trace device by device (each device's operations in start
 * order, through op_source), feeds every operation to the sweep (metrics) and the explainer
 * (waits), keeps the selected ones for the replay (whatif/) and the overlap cost, and assembles
 * the analysis_result. Memory per device: its streams, open intervals, selected operations and
 * its process's correlated host calls (launches.h);
 * per trace: the result itself (devices, streams, pairs, the kept waits, steps). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accountant.h"
#include "analysis.h"
#include "describe.h"
#include "explain.h"
#include "exposed_copy.h"
#include "gpu_devices.h"
#include "kernel_names.h"
#include "op_source.h"
#include "overlap_cost.h"
#include "steady_state.h"
#include "steps.h"
#include "sweep.h"
#include "units.h"
#include "whatif.h"

/* Everything one analysis_run holds. */
struct run {
    store *trace;
    sqlite3 *db;
    struct analysis_options options;
    struct analysis_result *result;
    kernel_names *names;
    op_source *source;
    sweep *line;
    explainer *explain;
    accountant *accountant;
    copy_exposure *copies;
    /* Each result device's exposed-copy breakdown, handed to its whole-span accounting once the
     * accountant has made them (index: analysis_result.devices). */
    struct accounting_breakdown *copy_breakdowns;
    size_t copy_breakdown_capacity;
    sqlite3_stmt *process_query, *device_query, *stream_query;
    size_t lane_capacity, device_capacity;
    int64_t window_start_ns, window_end_ns; /* absolute; INT64_MIN / INT64_MAX when open */
    int64_t selection_process_id;
    struct selection selection; /* of selection_process_id */
    size_t ranges_found;
    /* The streams met (for --stream S naming one the selection lacks), at most as many as fit. */
    int64_t streams_seen[256];
    size_t streams_seen_count;
    int wanted_stream_seen;
    /* The selected operations' buffer (device_state.selected_ops), lent to each device in turn: its
     * pages, once written, serve every device after, where a buffer per device faulted its pages in
     * again (page faults were a sixth of the analysis's CPU time). */
    struct model_op *selected_ops;
    size_t selected_op_capacity;
    /* options.progress's count: operations walked of all the trace's kernels, copies and memsets */
    int64_t progress_done_ops, progress_total_ops;
    error_info *err;
};

/* The selected operations' buffer grows from 1,024 straight to 46 MB, which glibc's malloc serves by
 * mmap, whose pages cost nothing until written, and grows by mremap, without copying (grown by
 * doubling and copying, the ResNet-50 recording's 210k operations faulted 4,000 pages more in). A
 * small trace (a fuzzer's input, run under ASan, which writes the shadow of every byte allocated)
 * stays small. */
#define ANALYSIS_SMALL_SELECTED_OPS 1024u
#define ANALYSIS_LARGE_SELECTED_OPS (1u << 18)

/* --- devices in the trace (store_list_gpu_devices) --- */

/* A device whose first and last starts lie further apart than any recording: the trace is
 * damaged, and sums of its times could overflow. Two index seeks per table per device. */
static int check_device_spans(struct run *run, const struct store_gpu_device *keys, size_t count)
{
    static const char *const tables[] = {"kernels", "memcpys", "memsets"};
    for (size_t t = 0; t < 3; t++) {
        /* MIN and MAX each alone in their query: only then does SQLite seek the index, not walk it. */
        char sql[256];
        snprintf(sql, sizeof sql,
                 "SELECT (SELECT MIN(start_ns) FROM %s WHERE process_id = ?1 AND device_id = ?2),"
                 " (SELECT MAX(start_ns) FROM %s WHERE process_id = ?1 AND device_id = ?2)",
                 tables[t], tables[t]);
        sqlite3_stmt *query = NULL;
        if (sqlite3_prepare_v2(run->db, sql, -1, &query, NULL) != SQLITE_OK)
            return error_set(run->err, "cannot read GPU activity: %s", sqlite3_errmsg(run->db));
        for (size_t i = 0; i < count; i++) {
            sqlite3_bind_int64(query, 1, keys[i].process_id);
            sqlite3_bind_int64(query, 2, keys[i].device_id);
            int step = sqlite3_step(query);
            if (step == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL) {
                int64_t first = sqlite3_column_int64(query, 0), last = sqlite3_column_int64(query, 1);
                if (first < -STORE_MAX_ABS_TIME_NS || last > STORE_MAX_ABS_TIME_NS ||
                    last - first > STORE_MAX_SPAN_NS) {
                    sqlite3_finalize(query);
                    return error_set(run->err,
                                     "the trace is damaged: device %" PRId64 " of process %" PRId64
                                     " has %s from %" PRId64 " ns to %" PRId64
                                     " ns, longer than any recording",
                                     keys[i].device_id, keys[i].process_id, tables[t], first, last);
                }
            } else if (step != SQLITE_ROW) {
                error_set(run->err, "cannot read GPU activity: %s", sqlite3_errmsg(run->db));
                sqlite3_finalize(query);
                return -1;
            }
            sqlite3_reset(query);
        }
        sqlite3_finalize(query);
    }
    return 0;
}

/* --- what is selected --- */

/* The window of options in absolute trace time (INT64_MIN / INT64_MAX where open), relative
 * windows counted from origin_ns. */
static void window_of(const struct analysis_options *options, int64_t origin_ns, int64_t *start_ns,
                      int64_t *end_ns)
{
    int64_t base = options->window_is_relative ? origin_ns : 0;
    *start_ns = options->window_start_ns == STORE_NULL ? INT64_MIN : base + options->window_start_ns;
    *end_ns = options->window_end_ns == STORE_NULL ? INT64_MAX : base + options->window_end_ns;
}

static void resolve_window(struct run *run)
{
    window_of(&run->options, run->result->origin_ns, &run->window_start_ns, &run->window_end_ns);
}

static int restricted(const struct analysis_options *options, int64_t window_start_ns, int64_t window_end_ns)
{
    return window_start_ns != INT64_MIN || window_end_ns != INT64_MAX || options->range_name ||
           options->step >= 0;
}

/* Step N of the process, clipped to the window [window_start_ns, window_end_ns); with --range, the
 * named ranges inside it. */
static int select_steps(sqlite3 *db, const struct analysis_result *result,
                        const struct analysis_options *options, int64_t process_id, int64_t window_start_ns,
                        int64_t window_end_ns, struct selection *selection, size_t *ranges_found,
                        error_info *err)
{
    for (size_t i = 0; i < result->step_count; i++) {
        const struct analysis_step *step = &result->steps[i];
        if (step->process_id != process_id || step->number != options->step)
            continue;
        int64_t start = step->start_ns > window_start_ns ? step->start_ns : window_start_ns;
        int64_t end = step->end_ns < window_end_ns ? step->end_ns : window_end_ns;
        if (options->range_name) {
            if (steps_select_range(db, process_id, options->range_name, start, end, selection, ranges_found,
                                   err) != 0)
                return -1;
        } else if (selection_add(selection, start, end) != 0) {
            return error_set(err, "out of memory");
        }
    }
    return 0;
}

/* Whether options leave the window to the steady state: they ask for it and choose no time. */
static int wants_steady_state(const struct analysis_options *options)
{
    return options->steady_state && options->window_start_ns == STORE_NULL &&
           options->window_end_ns == STORE_NULL && !options->range_name && options->step < 0;
}

/* options with the steady window the run chose, when it chose one. */
static struct analysis_options with_steady_window(const struct analysis_options *options,
                                                  const struct analysis_steady *steady)
{
    struct analysis_options chosen = *options;
    if (wants_steady_state(options) && steady->trimmed) {
        chosen.window_start_ns = steady->start_ns;
        chosen.window_end_ns = steady->end_ns;
        chosen.window_is_relative = 0;
    }
    return chosen;
}

int analysis_select_process(store *trace, const struct analysis_result *result,
                            const struct analysis_options *given, int64_t process_id,
                            struct selection *selection, size_t *ranges_found, error_info *err)
{
    /* From the options, not result's window: after the run, that holds the GPU work's own edges
     * where the window was open. */
    struct analysis_options steady_options = with_steady_window(given, &result->steady);
    const struct analysis_options *options = &steady_options;
    int64_t window_start_ns, window_end_ns;
    window_of(options, result->origin_ns, &window_start_ns, &window_end_ns);
    if (!restricted(options, window_start_ns, window_end_ns)) {
        selection_init_everything(selection);
        return 0;
    }
    selection_init_empty(selection);
    sqlite3 *db = store_db(trace);
    int status = 0;
    if (options->step >= 0)
        status = select_steps(db, result, options, process_id, window_start_ns, window_end_ns, selection,
                              ranges_found, err);
    else if (options->range_name)
        status = steps_select_range(db, process_id, options->range_name, window_start_ns, window_end_ns,
                                    selection, ranges_found, err);
    else if (selection_add(selection, window_start_ns, window_end_ns) != 0)
        status = error_set(err, "out of memory");
    if (status == 0 && selection_finish(selection) != 0)
        status = error_set(err, "out of memory");
    return status;
}

/* Builds the selection of a process (ranges and steps are per process). */
static int select_process(struct run *run, int64_t process_id)
{
    if (run->selection_process_id == process_id)
        return 0;
    selection_free(&run->selection);
    run->selection_process_id = process_id;
    return analysis_select_process(run->trace, run->result, &run->options, process_id, &run->selection,
                                   &run->ranges_found, run->err);
}

/* --- one device --- */

static int64_t column_or(sqlite3_stmt *query, int column, int64_t fallback)
{
    return sqlite3_column_type(query, column) == SQLITE_NULL ? fallback : sqlite3_column_int64(query, column);
}

static void load_process(struct run *run, struct device_state *device)
{
    sqlite3_stmt *query = run->process_query;
    sqlite3_bind_int64(query, 1, device->process_id);
    if (sqlite3_step(query) == SQLITE_ROW) {
        device->pid = column_or(query, 0, -1);
        device->rank = column_or(query, 1, -1);
    }
    sqlite3_reset(query);
}

/* A device limit no GPU has would overflow the occupancy arithmetic: the trace is damaged. */
static int check_device_limits(struct run *run, const struct device_state *device, int64_t threads_per_sm)
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
            return error_set(run->err,
                             "the trace is damaged: device %" PRId64 " of process %" PRId64 " has %s %" PRId64
                             ", beyond any GPU",
                             device->device_id, device->process_id, checks[i].name, checks[i].value);
    return 0;
}

static int load_device_limits(struct run *run, struct device_state *device)
{
    sqlite3_stmt *query = run->device_query;
    sqlite3_bind_int64(query, 1, device->process_id);
    sqlite3_bind_int64(query, 2, device->device_id);
    struct occupancy_device *limits = &device->limits;
    if (sqlite3_step(query) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(query, 0);
        snprintf(device->device_name, sizeof device->device_name, "%s", name ? (const char *)name : "");
        limits->sm_count = column_or(query, 1, 0);
        limits->compute_capability_major = column_or(query, 2, 0);
        limits->compute_capability_minor = column_or(query, 3, 0);
        limits->max_blocks_per_sm = column_or(query, 4, 0);
        limits->max_warps_per_sm = column_or(query, 5, 0);
        limits->max_threads_per_block = column_or(query, 7, 0);
        limits->max_registers_per_sm = column_or(query, 8, 0);
        limits->max_registers_per_block = column_or(query, 9, 0);
        limits->max_shared_memory_per_sm = column_or(query, 10, 0);
        device->copy_engine_count = column_or(query, 11, STORE_NULL);
        limits->warp_size = column_or(query, 12, 0);
        int64_t threads_per_sm = column_or(query, 6, 0);
        if (check_device_limits(run, device, threads_per_sm) != 0) {
            sqlite3_reset(query);
            return -1;
        }
        if (limits->max_warps_per_sm <= 0 && threads_per_sm > 0)
            limits->max_warps_per_sm = threads_per_sm / (limits->warp_size > 0 ? limits->warp_size : 32);
    }
    sqlite3_reset(query);
    device->limits_known = limits->sm_count > 0 && occupancy_device_complete(limits) == 0;
    return 0;
}

static int add_result_lane(struct run *run, const struct device_state *device, const struct lane_state *lane)
{
    struct analysis_result *result = run->result;
    if (result->lane_count == run->lane_capacity) {
        size_t capacity = run->lane_capacity ? run->lane_capacity * 2 : 32;
        struct analysis_lane *grown = realloc(result->lanes, capacity * sizeof *grown);
        if (!grown)
            return -1;
        result->lanes = grown;
        run->lane_capacity = capacity;
    }
    struct analysis_lane *out = &result->lanes[result->lane_count++];
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

static void load_stream(struct run *run, const struct device_state *device, struct lane_state *lane)
{
    sqlite3_stmt *query = run->stream_query;
    sqlite3_bind_int64(query, 1, device->process_id);
    sqlite3_bind_int64(query, 2, lane->stream_id);
    sqlite3_bind_int64(query, 3, device->device_id);
    lane->priority = lane->flags = STORE_NULL;
    if (sqlite3_step(query) == SQLITE_ROW) {
        lane->is_legacy_default = (int)column_or(query, 0, 0);
        lane->is_per_thread_default = (int)column_or(query, 1, 0);
        lane->priority = column_or(query, 2, STORE_NULL);
        lane->flags = column_or(query, 3, STORE_NULL);
    }
    sqlite3_reset(query);
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
static long lane_of(struct run *run, struct device_state *device, int64_t stream_id)
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
    struct lane_state *lane = &device->lanes[device->lane_count];
    *lane =
        (struct lane_state){.stream_id = stream_id,
                            .previous_end_ns = INT64_MIN,
                            .result_lane = run->result->lane_count,
                            .selected = run->options.stream_id < 0 || run->options.stream_id == stream_id};
    load_stream(run, device, lane);
    run->wanted_stream_seen |= stream_id == run->options.stream_id;
    if (run->streams_seen_count < sizeof run->streams_seen / sizeof run->streams_seen[0])
        run->streams_seen[run->streams_seen_count++] = stream_id;
    if (add_result_lane(run, device, lane) != 0)
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
        struct model_op *grown = realloc(device->selected_ops, capacity * sizeof *grown);
        if (!grown)
            return -1;
        device->selected_ops = grown;
        device->selected_op_capacity = capacity;
    }
    device->selected_ops[device->selected_op_count++] = *op;
    return 0;
}

/* Reads, sweeps and explains every operation of the device. Returns the number counted or -1. */
/* The walk of the operations is most of an analysis's time: it reports up to 90%, the rest (the
 * what-if replays, the totals) the last 10%. */
static void report_progress(struct run *run, double fraction)
{
    if (run->options.progress)
        run->options.progress(run->options.progress_context, fraction);
}

static void count_progress_ops(struct run *run)
{
    if (!run->options.progress)
        return;
    static const enum store_table tables[] = {STORE_TABLE_KERNELS, STORE_TABLE_MEMCPYS, STORE_TABLE_MEMSETS};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        int64_t rows = store_count_rows(run->trace, tables[i]);
        run->progress_total_ops += rows > 0 ? rows : 0;
    }
    report_progress(run, 0);
}

static void walked_op(struct run *run)
{
    /* a clock read per 4,096 operations, not per operation */
    if (run->options.progress && (++run->progress_done_ops & 4095) == 0 &&
        run->progress_done_ops < run->progress_total_ops)
        report_progress(run, 0.9 * (double)run->progress_done_ops / (double)run->progress_total_ops);
}

/* Opens the device's operations that can matter to its selection (those ending a little before it
 * too: a wait's blocking op). Returns 0 or -1 with err filled. */
static int open_device_ops(struct run *run, const struct device_state *device)
{
    int64_t first = selection_first_ns(device->selection), last = selection_last_ns(device->selection);
    int64_t end_after = first == INT64_MIN ? INT64_MIN : first - EXPLAIN_START_TOLERANCE_NS;
    return op_source_open(run->source, device->process_id, device->device_id, end_after, last, run->err);
}

/* The next operation, counted for progress, an NCCL kernel classed as communication. */
static int next_device_op(struct run *run, struct model_op *op)
{
    int status = op_source_next(run->source, op, run->err);
    if (status == 1) {
        walked_op(run);
        if (op->kind == MODEL_KERNEL && kernel_names_is_communication(run->names, op->name_id, op->rowid))
            op->category = ANALYSIS_COMMUNICATION;
    }
    return status;
}

static int64_t walk_device(struct run *run, struct device_state *device)
{
    struct selection *selection = device->selection;
    int64_t first = selection_first_ns(selection);
    if (open_device_ops(run, device) != 0)
        return -1;
    sweep_reset(run->line, device);
    struct model_op op;
    int64_t counted = 0;
    int status;
    while ((status = next_device_op(run, &op)) == 1) {
        long lane = lane_of(run, device, op.stream_id);
        if (lane < 0 || sweep_advance(run->line, device, op.start_ns) != 0)
            return error_set(run->err, "out of memory");
        int in_selection = selection_overlaps(selection, op.start_ns, op.end_ns);
        if (in_selection && op.end_ns > first && keep_selected(device, &op) != 0)
            return error_set(run->err, "out of memory");
        if (explainer_consider(run->explain, device, (size_t)lane, &op,
                               in_selection && selection_contains(selection, op.start_ns)) != 0)
            return error_set(run->err, "out of memory");
        if (in_selection && device->lanes[lane].selected) {
            if (sweep_add(run->line, device, (size_t)lane, &op) != 0)
                return error_set(run->err, "out of memory");
            if (accountant_observe(run->accountant, device, &op, run->err) != 0)
                return -1;
            if (copy_exposure_observe(run->copies, &op) != 0)
                return error_set(run->err, "out of memory");
            counted++;
        }
    }
    return status < 0 ? -1 : counted;
}

static int64_t max_lane_busy(const struct run *run, const struct device_state *device)
{
    int64_t most = 0;
    for (size_t i = 0; i < device->lane_count; i++) {
        const struct analysis_lane *lane = &run->result->lanes[device->lanes[i].result_lane];
        if (lane->busy_ns > most)
            most = lane->busy_ns;
    }
    return most;
}

static struct analysis_device *new_result_device(struct run *run)
{
    struct analysis_result *result = run->result;
    if (result->device_count == run->device_capacity) {
        size_t capacity = run->device_capacity ? run->device_capacity * 2 : 8;
        struct analysis_device *grown = realloc(result->devices, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        result->devices = grown;
        run->device_capacity = capacity;
    }
    struct analysis_device *out = &result->devices[result->device_count];
    memset(out, 0, sizeof *out);
    return out;
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

/* The device just walked (result device device_count): its exposed copies by cause. */
static int keep_copy_breakdown(struct run *run)
{
    size_t index = run->result->device_count;
    if (index >= run->copy_breakdown_capacity) {
        size_t capacity = run->copy_breakdown_capacity ? run->copy_breakdown_capacity * 2 : 8;
        struct accounting_breakdown *grown = realloc(run->copy_breakdowns, capacity * sizeof *grown);
        if (!grown)
            return -1;
        run->copy_breakdowns = grown;
        run->copy_breakdown_capacity = capacity;
    }
    return copy_exposure_end_device(run->copies, &run->copy_breakdowns[index], index);
}

/* Hands each device's exposed-copy breakdown to its whole-span accounting (the owner from then on),
 * and appends the exposed copies' intervals to the accounting's (a device's copy time is neither
 * idle nor exposed communication: its stretches never overlap theirs). Returns 0 or -1. */
static int attach_copy_breakdowns(struct run *run)
{
    struct analysis_result *result = run->result;
    size_t count = 0;
    struct accounting_interval *copies = copy_exposure_take_intervals(run->copies, &count);
    if (count) {
        struct accounting_interval *grown = realloc(
            result->accounting_intervals, (result->accounting_interval_count + count) * sizeof *grown);
        if (!grown) {
            free(copies);
            return -1;
        }
        memcpy(grown + result->accounting_interval_count, copies, count * sizeof *copies);
        result->accounting_intervals = grown;
        result->accounting_interval_count += count;
    }
    free(copies);
    for (size_t i = 0; i < result->accounting_count; i++) {
        struct analysis_accounting *accounting = &result->accountings[i];
        if (accounting->step >= 0 || accounting->device >= result->device_count)
            continue;
        accounting->exposed_copy = run->copy_breakdowns[accounting->device];
        run->copy_breakdowns[accounting->device] = (struct accounting_breakdown){0};
    }
    return 0;
}

/* A device the selection does not show (another rank than --rank's, another device than
 * --device's): its collectives are matched with the shown devices' as the whole trace's analysis
 * matches them (who arrived last, how late, what it did meanwhile, its compute for load
 * imbalance), so that selecting never changes the answer; the result gets nothing else of it. */
static int walk_peer(struct run *run, struct device_state *device)
{
    if (accountant_begin_device(run->accountant, device) != 0)
        return error_set(run->err, "out of memory");
    if (launches_load(run->db, device->process_id, &device->launches, run->err) != 0)
        return -1;
    struct selection *selection = device->selection;
    if (open_device_ops(run, device) != 0)
        return -1;
    struct model_op op;
    int status;
    while ((status = next_device_op(run, &op)) == 1) {
        if (selection_overlaps(selection, op.start_ns, op.end_ns) &&
            accountant_observe(run->accountant, device, &op, run->err) != 0)
            return -1;
    }
    if (status < 0)
        return -1;
    return accountant_end_device(run->accountant, device, ACCOUNTANT_PEER, run->err);
}

static int analyze_device(struct run *run, struct store_gpu_device key, int shown)
{
    if (select_process(run, key.process_id) != 0)
        return -1;
    if (!run->selection.everything && run->selection.count == 0)
        return 0;
    struct device_state device = {.process_id = key.process_id,
                                  .device_id = key.device_id,
                                  .pid = -1,
                                  .rank = -1,
                                  .copy_engine_count = STORE_NULL,
                                  .selection = &run->selection,
                                  .selected_ops = run->selected_ops,
                                  .selected_op_capacity = run->selected_op_capacity};
    load_process(run, &device);
    if (!shown || (run->options.rank >= 0 && device.rank != run->options.rank)) {
        int status = walk_peer(run, &device);
        launches_free(&device.launches);
        run->selected_ops = device.selected_ops;
        run->selected_op_capacity = device.selected_op_capacity;
        return status;
    }
    if (load_device_limits(run, &device) != 0)
        return -1;
    size_t lanes_before = run->result->lane_count, pairs_before = run->result->stream_pair_count;
    int64_t waits_before = explainer_wait_count(run->explain);
    struct analysis_device *out = new_result_device(run);
    if (out && (accountant_begin_device(run->accountant, &device) != 0 ||
                launches_load(run->db, device.process_id, &device.launches, run->err) != 0))
        out = NULL;
    if (out)
        copy_exposure_begin_device(run->copies, &device, &device.launches);
    int64_t counted = out ? walk_device(run, &device) : error_set(run->err, "out of memory");
    int status = counted < 0 ? -1 : 0;
    if (status == 0 && sweep_finish(run->line, &device, out, run->result) != 0)
        status = error_set(run->err, "out of memory");
    int64_t waits = explainer_wait_count(run->explain) - waits_before;
    int dropped = counted == 0 && waits == 0;
    if (status == 0 && accountant_end_device(run->accountant, &device,
                                             dropped ? SIZE_MAX : run->result->device_count, run->err) != 0)
        status = -1;
    if (status == 0 && dropped) {
        run->result->lane_count = lanes_before; /* nothing of this device is in the selection */
        run->result->stream_pair_count = pairs_before;
        run->result->steady.devices_left_out += run->result->steady.trimmed; /* said with the window */
    } else if (status == 0) {
        out->process_id = device.process_id;
        out->pid = device.pid;
        out->rank = device.rank;
        out->device_id = device.device_id;
        snprintf(out->device_name, sizeof out->device_name, "%s", device.device_name);
        out->sm_count = device.limits.sm_count;
        out->limits = device.limits;
        out->limits_known = device.limits_known;
        out->lost_ns = device.lost_ns;
        out->wait_count = waits;
        out->headroom_ns = headroom(&device, out, max_lane_busy(run, &device));
        if (keep_copy_breakdown(run) != 0)
            status = error_set(run->err, "out of memory");
        struct device_idle idle;
        accountant_device_idle(run->accountant, &idle);
        /* The exposed copies' causes too: an exposed pageable copy asks for pinning (whatif.h). */
        for (size_t k = 0; status == 0 && k < run->copy_breakdowns[run->result->device_count].entry_count;
             k++)
            idle.ns[run->copy_breakdowns[run->result->device_count].entries[k].cause] +=
                run->copy_breakdowns[run->result->device_count].entries[k].ns;
        if (whatif_device(run->db, run->names, &device, &idle, run->result->steps, run->result->step_count,
                          out, run->err) != 0 || /* the replay's figure */
            overlap_cost_device(run->names, &device, run->result->device_count, out, run->result, run->err) !=
                0)
            status = -1;
        for (size_t i = 0; i < device.lane_count; i++)
            out->stream_count += device.lanes[i].has_counted;
        run->result->interval_count += counted;
        run->result->device_count++;
    }
    free(device.lanes);
    run->selected_ops = device.selected_ops; /* grown, maybe: the next device's */
    run->selected_op_capacity = device.selected_op_capacity;
    launches_free(&device.launches);
    key_index_free(&device.lane_index);
    free(device.channels);
    key_index_free(&device.channel_index);
    return status;
}

/* --- the whole trace --- */

static void add_totals(struct analysis_result *result)
{
    int64_t overlap = 0, copy = 0, copy_overlap = 0;
    for (size_t i = 0; i < result->device_count; i++) {
        const struct analysis_device *device = &result->devices[i];
        result->total_communication_ns += device->communication_ns;
        result->total_exposed_communication_ns += device->exposed_communication_ns;
        result->total_exposed_copy_ns += device->exposed_copy_ns;
        overlap += device->compute_communication_overlap_ns;
        copy += device->copy_ns;
        copy_overlap += device->copy_compute_overlap_ns;
        result->total_lost_ns += device->lost_ns;
        result->total_headroom_ns += device->headroom_ns;
    }
    result->communication_overlap_ratio =
        result->total_communication_ns ? (double)overlap / (double)result->total_communication_ns : 0;
    result->copy_overlap_ratio = copy ? (double)copy_overlap / (double)copy : 0;
    result->device_total_count = (int64_t)result->device_count;
    struct analysis_selection *selection = &result->selection;
    if (selection->window_start_ns == INT64_MIN || selection->window_end_ns == INT64_MAX) {
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (size_t i = 0; i < result->device_count; i++) {
            if (result->devices[i].span_start_ns < first)
                first = result->devices[i].span_start_ns;
            if (result->devices[i].span_end_ns > last)
                last = result->devices[i].span_end_ns;
        }
        if (selection->window_start_ns == INT64_MIN)
            selection->window_start_ns = first;
        if (selection->window_end_ns == INT64_MAX)
            selection->window_end_ns = last;
    }
}

static int prepare_run(struct run *run)
{
    sqlite3 *db = run->db;
    run->names = kernel_names_new(db, run->err);
    if (!run->names)
        return -1;
    run->source = op_source_new(db, run->err);
    if (!run->source)
        return -1;
    run->line = sweep_new();
    run->copies = copy_exposure_new();
    if (!run->line || !run->copies)
        return error_set(run->err, "out of memory");
    size_t max_waits = run->options.max_waits ? run->options.max_waits : ANALYSIS_DEFAULT_MAX_WAITS;
    run->explain = explainer_new(db, run->names, max_waits, run->err);
    if (!run->explain)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT pid, rank FROM processes WHERE process_id = ?1", -1,
                           &run->process_query, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(
            db,
            "SELECT name, sm_count, compute_capability_major, compute_capability_minor,"
            " max_blocks_per_sm, max_warps_per_sm, max_threads_per_sm, max_threads_per_block,"
            " max_registers_per_sm, max_registers_per_block, max_shared_memory_per_sm,"
            " copy_engine_count, warp_size FROM devices WHERE process_id = ?1 AND device_id = ?2",
            -1, &run->device_query, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(
            db,
            "SELECT is_legacy_default, is_per_thread_default, priority, flags FROM streams"
            " WHERE process_id = ?1 AND stream_id = ?2 AND (device_id IS NULL OR device_id = ?3)"
            " LIMIT 1",
            -1, &run->stream_query, NULL) != SQLITE_OK)
        return error_set(run->err, "cannot read the trace: %s", sqlite3_errmsg(db));
    return 0;
}

static void finish_run(struct run *run)
{
    sqlite3_finalize(run->process_query);
    sqlite3_finalize(run->device_query);
    sqlite3_finalize(run->stream_query);
    explainer_free(run->explain);
    accountant_free(run->accountant);
    sweep_free(run->line);
    copy_exposure_free(run->copies);
    for (size_t i = 0; run->copy_breakdowns && i < run->result->device_count; i++)
        free(run->copy_breakdowns[i].entries); /* those not handed over (a failed run) */
    free(run->copy_breakdowns);
    op_source_free(run->source);
    kernel_names_free(run->names);
    selection_free(&run->selection);
    free(run->selected_ops);
}

static int check_step_exists(struct run *run)
{
    const struct analysis_result *result = run->result;
    int64_t low = INT64_MAX, high = INT64_MIN;
    for (size_t i = 0; i < result->step_count; i++) {
        if (result->steps[i].number == run->options.step)
            return 0;
        low = result->steps[i].number < low ? result->steps[i].number : low;
        high = result->steps[i].number > high ? result->steps[i].number : high;
    }
    if (result->step_count == 0)
        return error_set(run->err,
                         "no step %" PRId64 ": the trace has no ProfilerStep#N or step/iteration NVTX ranges",
                         run->options.step);
    return error_set(run->err, "no step %" PRId64 " (steps %" PRId64 " to %" PRId64 " are in the trace)",
                     run->options.step, low, high);
}

/* Says which window held nothing, in the report's relative times. */
static int no_intervals_error(struct run *run, size_t device_count)
{
    if (device_count == 0)
        return error_set(run->err, "no GPU intervals in the trace");
    if (run->window_start_ns == INT64_MIN && run->window_end_ns == INT64_MAX)
        return error_set(run->err, "no GPU intervals in the selected window");
    char from[32] = "the start", to[32] = "the end";
    if (run->window_start_ns != INT64_MIN)
        units_format_duration(from, sizeof from, run->window_start_ns - run->result->origin_ns);
    if (run->window_end_ns != INT64_MAX)
        units_format_duration(to, sizeof to, run->window_end_ns - run->result->origin_ns);
    return error_set(run->err,
                     "no GPU intervals in the selected window (%s to %s after the first GPU activity)", from,
                     to);
}

static int compare_ids(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ids (sorted in place) as "0, 1, 7", each once, into list. Returns how many distinct. */
static size_t format_ids(int64_t *ids, size_t count, char *list, size_t size)
{
    qsort(ids, count, sizeof *ids, compare_ids);
    size_t used = 0, distinct = 0;
    list[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (i > 0 && ids[i] == ids[i - 1])
            continue;
        if (used < size)
            used += (size_t)snprintf(list + used, size - used, "%s%" PRId64, distinct ? ", " : "", ids[i]);
        distinct++;
    }
    return distinct;
}

/* --device D, --rank R or --stream S names one the trace does not have: say so, with those it has
 * (sorted, each once), rather than "no GPU intervals in the selected window". ids is consumed. */
static int no_such(struct run *run, const char *what, int64_t wanted, int64_t *ids, size_t count,
                   const char *where)
{
    char list[256];
    size_t distinct = format_ids(ids, count, list, sizeof list);
    if (distinct == 0)
        return error_set(run->err, "no %s %" PRId64 " (%s none)", what, wanted, where);
    return error_set(run->err, "no %s %" PRId64 " (%s %s%s %s)", what, wanted, where, what,
                     distinct == 1 ? "" : "s", list);
}

static int check_device_exists(struct run *run, const struct store_gpu_device *keys, size_t count)
{
    int64_t wanted = run->options.device_id;
    for (size_t i = 0; i < count; i++)
        if (keys[i].device_id == wanted)
            return 0;
    if (count == 0)
        return 0; /* "no GPU intervals in the trace" says it */
    int64_t *ids = malloc(count * sizeof *ids);
    if (!ids)
        return error_set(run->err, "out of memory");
    for (size_t i = 0; i < count; i++)
        ids[i] = keys[i].device_id;
    int status = no_such(run, "device", wanted, ids, count, "the trace has");
    free(ids);
    return status;
}

/* The ranks of the processes that ran GPU work (those without a rank left out). */
static int check_rank_exists(struct run *run, const struct store_gpu_device *keys, size_t count)
{
    if (count == 0)
        return 0;
    int64_t *ranks = malloc(count * sizeof *ranks);
    if (!ranks)
        return error_set(run->err, "out of memory");
    size_t known = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t pid, rank;
        store_process_identity(run->trace, keys[i].process_id, &pid, &rank);
        if (rank == run->options.rank) {
            free(ranks);
            return 0;
        }
        if (rank >= 0)
            ranks[known++] = rank;
    }
    int status = no_such(run, "rank", run->options.rank, ranks, known, "the trace has");
    free(ranks);
    return status;
}

static int run_all_devices(struct run *run)
{
    struct store_gpu_device *keys = NULL;
    size_t count = 0;
    if (store_list_gpu_devices(run->trace, &keys, &count, run->err) != 0)
        return -1;
    if (check_device_spans(run, keys, count) != 0) {
        free(keys);
        return -1;
    }
    /* The first GPU start of the trace: the zero of relative windows. */
    run->result->origin_ns = count ? store_gpu_devices_first_start(keys, count) : 0;
    resolve_window(run);
    struct analysis_selection *selection = &run->result->selection;
    *selection = analysis_selection_of(&run->options);
    selection->window_start_ns = run->window_start_ns;
    selection->window_end_ns = run->window_end_ns;
    selection->time_restricted = restricted(&run->options, run->window_start_ns, run->window_end_ns);
    int status = 0;
    if (run->options.step >= 0)
        status = check_step_exists(run);
    if (status == 0 && run->options.device_id >= 0)
        status = check_device_exists(run, keys, count);
    if (status == 0 && run->options.rank >= 0)
        status = check_rank_exists(run, keys, count);
    for (size_t i = 0; status == 0 && i < count; i++)
        status = analyze_device(run, keys[i],
                                run->options.device_id < 0 || keys[i].device_id == run->options.device_id);
    free(keys);
    if (status != 0)
        return -1;
    if (run->options.range_name && run->ranges_found == 0)
        return error_set(run->err, "no NVTX range named '%s' in the selected processes",
                         run->options.range_name);
    if (run->result->device_count == 0 && run->options.stream_id >= 0 && !run->wanted_stream_seen &&
        count > 0)
        return no_such(run, "stream", run->options.stream_id, run->streams_seen, run->streams_seen_count,
                       run->window_start_ns == INT64_MIN && run->window_end_ns == INT64_MAX
                           ? "the selected devices have"
                       : run->result->steady.trimmed ? "the steady state (--all: the whole run) has"
                                                     : "the selected window has");
    if (run->result->device_count == 0)
        return no_intervals_error(run, count);
    return 0;
}

/* Gives every kernel op of the kept waits its demangled full name, one copy per distinct name. */
static int attach_full_names(struct run *run)
{
    struct analysis_result *result = run->result;
    size_t capacity = 2 * result->wait_count;
    int64_t *ids = calloc(capacity ? capacity : 1, sizeof *ids);
    result->full_names = calloc(capacity ? capacity : 1, sizeof *result->full_names);
    if (!ids || !result->full_names) {
        free(ids);
        return -1;
    }
    int status = 0;
    for (size_t i = 0; status == 0 && i < 2 * result->wait_count; i++) {
        struct analysis_op *op = i % 2 ? &result->waits[i / 2].blocking : &result->waits[i / 2].waiting;
        if (op->name_id <= 0)
            continue;
        size_t k = 0;
        while (k < result->full_name_count && ids[k] != op->name_id)
            k++;
        if (k == result->full_name_count) {
            result->full_names[k] = kernel_names_full(run->names, op->name_id);
            if (!result->full_names[k]) {
                status = -1;
                break;
            }
            ids[k] = op->name_id;
            result->full_name_count++;
        }
        op->full_name = result->full_names[k];
    }
    free(ids);
    return status;
}

/* Lanes in the order every output lists them: by process, device, then stream id (they were made
 * in the order of each device's first activity), and stream pairs by their lanes. The indexes into
 * lanes are moved with them. */
struct lane_place {
    const struct analysis_lane *lane;
    size_t before;
};

static int compare_lane_places(const void *a, const void *b)
{
    const struct analysis_lane *x = ((const struct lane_place *)a)->lane,
                               *y = ((const struct lane_place *)b)->lane;
    if (x->process_id != y->process_id)
        return x->process_id < y->process_id ? -1 : 1;
    if (x->device_id != y->device_id)
        return x->device_id < y->device_id ? -1 : 1;
    return (x->stream_id > y->stream_id) - (x->stream_id < y->stream_id);
}

static int compare_pairs(const void *a, const void *b)
{
    const struct analysis_stream_pair *x = a, *y = b;
    if (x->lane_a != y->lane_a)
        return x->lane_a < y->lane_a ? -1 : 1;
    return (x->lane_b > y->lane_b) - (x->lane_b < y->lane_b);
}

static int sort_lanes(struct analysis_result *result, error_info *err)
{
    size_t count = result->lane_count;
    struct lane_place *places = malloc((count ? count : 1) * sizeof *places);
    size_t *after = malloc((count ? count : 1) * sizeof *after);
    struct analysis_lane *sorted = malloc((count ? count : 1) * sizeof *sorted);
    if (!places || !after || !sorted) {
        free(places);
        free(after);
        free(sorted);
        return error_set(err, "out of memory");
    }
    for (size_t i = 0; i < count; i++)
        places[i] = (struct lane_place){&result->lanes[i], i};
    qsort(places, count, sizeof *places, compare_lane_places);
    for (size_t i = 0; i < count; i++) {
        sorted[i] = *places[i].lane;
        after[places[i].before] = i;
    }
    for (size_t i = 0; i < result->stream_pair_count; i++) { /* a pair is symmetric: a before b */
        struct analysis_stream_pair *pair = &result->stream_pairs[i];
        size_t a = after[pair->lane_a], b = after[pair->lane_b];
        pair->lane_a = a < b ? a : b;
        pair->lane_b = a < b ? b : a;
    }
    if (result->stream_pair_count > 1) /* stream_pairs is NULL without pairs */
        qsort(result->stream_pairs, result->stream_pair_count, sizeof *result->stream_pairs, compare_pairs);
    for (size_t i = 0; i < result->wait_count; i++) {
        result->waits[i].waiting.lane = after[result->waits[i].waiting.lane];
        result->waits[i].blocking.lane = after[result->waits[i].blocking.lane];
    }
    free(result->lanes);
    result->lanes = sorted;
    free(places);
    free(after);
    return 0;
}

static void explain_setup(store *trace, const struct analysis_options *options,
                          struct analysis_result *result);

struct analysis_result *analysis_run(store *trace, const struct analysis_options *options, error_info *err)
{
    struct run run = {.trace = trace, .db = store_db(trace), .err = err, .selection_process_id = INT64_MIN};
    if (options)
        run.options = *options;
    else
        analysis_options_init(&run.options);
    selection_init_everything(&run.selection);
    run.result = calloc(1, sizeof *run.result);
    int status = run.result ? 0 : error_set(err, "out of memory");
    /* One read transaction for the whole analysis: outside one, SQLite takes and drops its file
     * lock and checks for a hot journal on every query, a few per device (80k devices: 21 s). */
    int own_transaction =
        sqlite3_get_autocommit(run.db) && sqlite3_exec(run.db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    count_progress_ops(&run);
    if (status == 0)
        status = prepare_run(&run);
    if (status == 0)
        status = steps_find(run.db, &run.result->steps, &run.result->step_count, err);
    if (status == 0 && wants_steady_state(&run.options)) {
        status =
            steady_state_choose(trace, run.result->steps, run.result->step_count, &run.result->steady, err);
        run.options = with_steady_window(&run.options, &run.result->steady);
    }
    if (status == 0) {
        run.accountant = accountant_new(run.db, run.names, run.result->steps, run.result->step_count, err);
        status = run.accountant ? 0 : -1;
        if (run.accountant)
            explainer_share_thread_calls(run.explain, accountant_thread_calls(run.accountant));
    }
    if (status == 0)
        status = run_all_devices(&run);
    if (status == 0 && (explainer_collect(run.explain, run.result) != 0 || attach_full_names(&run) != 0))
        status = error_set(err, "out of memory");
    if (status == 0)
        status = accountant_collect(run.accountant, run.result, err);
    if (status == 0 && attach_copy_breakdowns(&run) != 0)
        status = error_set(err, "out of memory");
    if (status == 0)
        status = sort_lanes(run.result, err);
    if (status == 0) {
        add_totals(run.result);
        whatif_collect(run.result);
        overlap_cost_totals(run.result);
    }
    finish_run(&run);
    if (own_transaction)
        sqlite3_exec(run.db, "COMMIT", NULL, NULL, NULL);
    report_progress(&run, 1);
    if (status != 0) {
        analysis_free(run.result);
        return NULL;
    }
    explain_setup(trace, &run.options, run.result);
    return run.result;
}

/* The set-up's own largest idle causes (analysis_steady.setup_causes): the same analysis of the time
 * before the steady window, summed over its devices. Best effort: a set-up the analysis cannot
 * read (no GPU work of the devices shown) leaves them unsaid. */
static void explain_setup(store *trace, const struct analysis_options *options,
                          struct analysis_result *result)
{
    struct analysis_steady *steady = &result->steady;
    for (size_t i = 0; i < 2; i++)
        steady->setup_causes[i].cause = ACCOUNTING_CAUSE_COUNT;
    if (!steady->trimmed || steady->start_ns <= steady->span_start_ns)
        return;
    struct analysis_options setup = *options;
    setup.steady_state = 0;
    setup.window_start_ns = steady->span_start_ns;
    setup.window_end_ns = steady->start_ns;
    setup.window_is_relative = 0;
    setup.max_waits = 1;
    setup.progress = NULL;
    error_info ignored;
    struct analysis_result *before = analysis_run(trace, &setup, &ignored);
    if (!before)
        return;
    /* (cause, label) totals of the devices' whole-window entries; few distinct ones */
    struct analysis_setup_cause totals[64];
    size_t count = 0;
    for (size_t a = 0; a < before->accounting_count; a++) {
        const struct analysis_accounting *accounting = &before->accountings[a];
        if (accounting->step != -1)
            continue;
        steady->setup_idle_ns += accounting->idle.ns;
        steady->setup_devices++;
        for (size_t e = 0; e < accounting->idle.entry_count; e++) {
            const struct accounting_entry *entry = &accounting->idle.entries[e];
            size_t k = 0;
            while (k < count &&
                   !(totals[k].cause == entry->cause && strcmp(totals[k].label, entry->label) == 0))
                k++;
            if (k == count && count == sizeof totals / sizeof totals[0])
                continue;
            if (k == count) {
                totals[count].cause = entry->cause;
                snprintf(totals[count].label, sizeof totals[count].label, "%s", entry->label);
                totals[count++].ns = 0;
            }
            totals[k].ns += entry->ns;
        }
    }
    for (size_t i = 0; i < 2; i++) {
        size_t best = count;
        for (size_t k = 0; k < count; k++)
            if (totals[k].ns > 0 && (best == count || totals[k].ns > totals[best].ns))
                best = k;
        if (best == count)
            break;
        steady->setup_causes[i] = totals[best];
        totals[best].ns = 0;
    }
    analysis_free(before);
}

void analysis_free(struct analysis_result *result)
{
    if (!result)
        return;
    free(result->lanes);
    free(result->devices);
    free(result->stream_pairs);
    free(result->waits);
    free(result->steps);
    free(result->overlap_costs);
    accountant_free_result(result);
    for (size_t i = 0; i < result->full_name_count; i++)
        free(result->full_names[i]);
    free(result->full_names);
    free(result);
}

int64_t analysis_spans_ns(const struct analysis_result *result)
{
    int64_t spans = 0;
    for (size_t i = 0; i < result->device_count; i++)
        spans += result->devices[i].busy_ns + result->devices[i].idle_ns;
    return spans;
}

int64_t analysis_what_if_base_ns(const struct analysis_result *result)
{
    int64_t base = 0;
    for (size_t i = 0; i < result->device_count; i++) {
        const struct analysis_device *device = &result->devices[i];
        int64_t span = device->busy_ns + device->idle_ns;
        base += result->selection.time_restricted && device->replay_span_ns > span ? device->replay_span_ns
                                                                                   : span;
    }
    return base;
}
