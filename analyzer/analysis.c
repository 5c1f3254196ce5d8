/* analysis.c: analysis_run: checks the trace and the selection, has every device walked
 * (analysis_walk.c; on a pool of threads, analysis_pool.c, with --jobs above 1) and merged in
 * device order, then does the cross-device parts from the devices' results: the kept waits, the
 * collectives matched across ranks with the skew, straggler and imbalance (the accountant), the
 * lanes' order, the world totals and the what-if predictions. Memory per trace: the result itself
 * (devices, streams, pairs, the kept waits, steps), and per worker one device's walk at a time. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis_parts.h"
#include "describe.h"
#include "overlap_cost.h"
#include "steady_state.h"
#include "steps.h"
#include "units.h"
#include "whatif.h"

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

int analysis_device_shown(const struct analysis_options *options, struct store_gpu_device key)
{
    return options->device_id < 0 || key.device_id == options->device_id;
}

/* --- progress --- */

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

/* A walker on this thread hands its count here. */
static void walked_ops(void *context, int64_t ops)
{
    struct run *run = context;
    run->progress_done_ops += ops;
    if (run->progress_done_ops < run->progress_total_ops)
        report_progress(run, 0.9 * (double)run->progress_done_ops / (double)run->progress_total_ops);
}

/* --- checks of the selection --- */

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
        const struct analysis_share *share = run->options.share;
        if (share && share->local) /* keys are share->devices' */
            rank = share->devices[i].rank;
        else
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

int analysis_walk_here(struct run *run, const struct store_gpu_device *keys, size_t count)
{
    struct analysis_walker walker;
    if (analysis_walker_init(&walker, run->trace, run, run->err) != 0)
        return -1;
    walker.tick = walked_ops;
    walker.tick_context = run;
    int status = 0;
    for (size_t i = 0; status == 0 && i < count; i++) {
        struct device_fragment fragment;
        analysis_walk_device(&walker, keys[i], analysis_device_shown(&run->options, keys[i]),
                             run->copy_interval_count, &fragment);
        status = analysis_merge_device(run, &fragment);
        device_fragment_free(&fragment);
    }
    analysis_walker_free(&walker);
    return status;
}

static int walk_devices(struct run *run, const struct store_gpu_device *keys, size_t count)
{
    if (run->options.share)
        return analysis_share_run(run, keys, count);
    if (run->jobs > 1 && count > 1) {
        int status = analysis_pool_run(run, keys, count);
        if (status <= 0)
            return status;
    }
    return analysis_walk_here(run, keys, count);
}

static int run_all_devices(struct run *run)
{
    struct store_gpu_device *keys = NULL;
    size_t count = 0;
    if (store_list_gpu_devices(run->trace, &keys, &count, run->err) != 0)
        return -1;
    if (store_check_device_spans(run->db, keys, count, run->err) != 0) {
        free(keys);
        return -1;
    }
    const struct analysis_share *share = run->options.share;
    if (share && share->local) { /* the trace holds its own devices: the run's are every process's */
        free(keys);
        count = share->device_count;
        keys = malloc((count ? count : 1) * sizeof *keys);
        if (!keys)
            return error_set(run->err, "out of memory");
        for (size_t i = 0; i < count; i++)
            keys[i] = share->devices[i].key;
    }
    /* The first GPU start of the trace: the zero of relative windows. */
    run->result->origin_ns = count ? store_gpu_devices_first_start(keys, count) : 0;
    window_of(&run->options, run->result->origin_ns, &run->window_start_ns, &run->window_end_ns);
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
    if (status != 0 && share) /* every process holds the same steps and devices: all fail alike */
        run->options.share->agreed = 1;
    if (status == 0)
        status = walk_devices(run, keys, count);
    free(keys);
    if (status == 2) /* another process's walks: sent to process 0, which finishes the run */
        return error_set(run->err, "this process's devices went to process 0");
    if (status != 0 || run->inexact)
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

/* Hands each device's exposed-copy breakdown to its whole-span accounting (the owner from then on),
 * and appends the exposed copies' intervals to the accounting's (a device's copy time is neither
 * idle nor exposed communication: its stretches never overlap theirs). Returns 0 or -1. */
static int attach_copy_breakdowns(struct run *run)
{
    struct analysis_result *result = run->result;
    size_t count = run->copy_interval_count;
    if (count) {
        struct accounting_interval *grown = realloc(
            result->accounting_intervals, (result->accounting_interval_count + count) * sizeof *grown);
        if (!grown)
            return -1;
        memcpy(grown + result->accounting_interval_count, run->copy_intervals, count * sizeof *grown);
        result->accounting_intervals = grown;
        result->accounting_interval_count += count;
    }
    for (size_t i = 0; i < result->accounting_count; i++) {
        struct analysis_accounting *accounting = &result->accountings[i];
        if (accounting->step >= 0 || accounting->device >= result->device_count)
            continue;
        accounting->exposed_copy = run->copy_breakdowns[accounting->device];
        run->copy_breakdowns[accounting->device] = (struct accounting_breakdown){0};
    }
    return 0;
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

static int prepare_run(struct run *run)
{
    run->names = kernel_names_new(run->db, run->err);
    if (!run->names)
        return -1;
    size_t max_waits = run->options.max_waits ? run->options.max_waits : ANALYSIS_DEFAULT_MAX_WAITS;
    run->explain = explainer_new(run->db, run->names, max_waits, run->err);
    return run->explain ? 0 : -1;
}

static void finish_run(struct run *run)
{
    explainer_free(run->explain);
    accountant_free(run->accountant);
    for (size_t i = 0; run->copy_breakdowns && i < run->result->device_count; i++)
        accounting_breakdown_free(&run->copy_breakdowns[i]); /* those not handed over (a failed run) */
    free(run->copy_breakdowns);
    free(run->copy_intervals);
    kernel_names_free(run->names);
}

/* Devices walked at once: --jobs, or one per online processor. */
static int jobs_of(const struct analysis_options *options)
{
    if (options->jobs > 0)
        return options->jobs;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online < 1 ? 1 : online > 1024 ? 1024 : (int)online;
}

/* Workers for the run: jobs of them, no more than the devices (a quick count: run_all_devices
 * lists them again and says what is wrong with them), none with --jobs 1. Under --mpi a process
 * walks on one thread; process 0 alone finishes the run (the devices' books) after the others sent
 * their part and went to sleep (cli/mpi_driver.c), so it has workers for that. */
static crew *crew_of(store *trace, const struct analysis_options *options, int jobs)
{
    if (jobs <= 1 || (options->share && options->share->index != 0))
        return NULL;
    struct store_gpu_device *keys = NULL;
    size_t count = 0;
    error_info ignored;
    if (store_list_gpu_devices(trace, &keys, &count, &ignored) != 0)
        return NULL;
    free(keys);
    return count > 1 ? crew_new(trace, (size_t)jobs < count ? (size_t)jobs : count) : NULL;
}

/* from's steps into result (its own copy). Returns 0, or -1 with err filled. */
static int copy_steps(const struct analysis_result *from, struct analysis_result *result, error_info *err)
{
    if (from->step_count == 0)
        return 0;
    result->steps = malloc(from->step_count * sizeof *result->steps);
    if (!result->steps)
        return error_set(err, "out of memory");
    memcpy(result->steps, from->steps, from->step_count * sizeof *result->steps);
    result->step_count = from->step_count;
    return 0;
}

/* Adds the phase since *mark to options.timing (the workers' CPU since *workers_ns), and starts
 * the next. */
static void timed(struct run *run, const char *name, struct phase_mark *mark, int64_t *workers_ns)
{
    if (!run->options.timing)
        return;
    int64_t now_ns = run->crew ? crew_cpu_ns(run->crew) : *workers_ns;
    *mark = phase_timing_add(run->options.timing, name, *mark, now_ns - *workers_ns, now_ns > *workers_ns);
    *workers_ns = now_ns;
}

/* One analysis; *again when the run must be walked again on one thread (run.inexact). */
static struct analysis_result *analyze(store *trace, const struct analysis_options *options, int jobs,
                                       error_info *err, int *again, struct analysis_steady *steady)
{
    struct run run = {.trace = trace, .db = store_db(trace), .err = err, .options = *options, .jobs = jobs};
    struct phase_mark mark = phase_timing_now();
    int64_t workers_ns = 0;
    run.crew = crew_of(trace, options, jobs);
    run.result = calloc(1, sizeof *run.result);
    int status = run.result ? 0 : error_set(err, "out of memory");
    int own_transaction = store_read_transaction_begin(run.db);
    count_progress_ops(&run);
    if (status == 0)
        status = prepare_run(&run);
    timed(&run, "set-up (names, explainer)", &mark, &workers_ns);
    int choose_steady = wants_steady_state(&run.options) && !run.options.steady_chosen;
    struct analysis_share_span span = {0};
    if (status == 0 && run.options.share)
        status = analysis_share_setup(&run, choose_steady, &span);
    else if (status == 0 && run.options.steps_from)
        status = copy_steps(run.options.steps_from, run.result, err);
    else if (status == 0)
        status = steps_find(trace, run.crew, &run.result->steps, &run.result->step_count, err);
    timed(&run, "steps", &mark, &workers_ns);
    if (status == 0 && wants_steady_state(&run.options)) {
        if (run.options.steady_chosen)
            run.result->steady = *run.options.steady_chosen;
        else if (run.options.share) {
            const struct analysis_share *share = run.options.share;
            struct steady_state_peers peers = {share->share_all, share->context};
            status = steady_state_choose_in_span(trace, run.crew, share->local ? &peers : NULL,
                                                 run.result->steps, run.result->step_count, span.found,
                                                 span.start_ns, span.end_ns, &run.result->steady, err);
        } else
            status = steady_state_choose(trace, run.crew, run.result->steps, run.result->step_count,
                                         &run.result->steady, err);
        run.options = with_steady_window(&run.options, &run.result->steady);
    }
    timed(&run, "steady state", &mark, &workers_ns);
    if (status == 0) {
        run.accountant = accountant_new(run.db, run.names, run.result->steps, run.result->step_count, err);
        status = run.accountant ? 0 : -1;
        if (status == 0 && run.options.share && run.options.share->local && run.options.share->index == 0)
            analysis_share_ask_remote(&run);
    }
    timed(&run, "accountant set-up", &mark, &workers_ns);
    if (status == 0)
        status = run_all_devices(&run);
    *again = run.inexact;
    timed(&run, "devices: walks and merge", &mark, &workers_ns);
    if (status == 0 && (explainer_collect(run.explain, run.result) != 0 || attach_full_names(&run) != 0))
        status = error_set(err, "out of memory");
    timed(&run, "waits: collect, names", &mark, &workers_ns);
    if (status == 0)
        status = accountant_collect(run.accountant, run.result, run.crew, err);
    if (run.options.share && analysis_share_release(&run) != 0 && status == 0)
        status = -1;
    timed(&run, "accountant: cross-device", &mark, &workers_ns);
    if (status == 0 && attach_copy_breakdowns(&run) != 0)
        status = error_set(err, "out of memory");
    if (status == 0)
        status = sort_lanes(run.result, err);
    if (status == 0) {
        add_totals(run.result);
        whatif_collect(run.result);
        overlap_cost_totals(run.result);
    }
    timed(&run, "lanes, totals, what-if", &mark, &workers_ns);
    finish_run(&run);
    crew_free(run.crew, trace);
    run.crew = NULL;
    if (own_transaction)
        store_read_transaction_end(run.db);
    timed(&run, "end (workers, connections)", &mark, &workers_ns);
    if (!*again)
        report_progress(&run, 1);
    if (run.result)
        *steady = run.result->steady; /* also where this process's part went to process 0 */
    if (status != 0) {
        analysis_free(run.result);
        return NULL;
    }
    return run.result;
}

static int has_setup(const struct analysis_steady *steady)
{
    return steady->trimmed && steady->start_ns > steady->span_start_ns;
}

static void clear_setup_causes(struct analysis_steady *steady)
{
    for (size_t i = 0; i < 2; i++)
        steady->setup_causes[i].cause = ACCOUNTING_CAUSE_COUNT;
}

/* The set-up's own largest idle causes (analysis_steady.setup_causes): the same analysis of the time
 * before the steady window (chosen), summed over its devices, into result. Best effort: a set-up
 * the analysis cannot read (no GPU work of the devices shown) leaves them unsaid. Under a share,
 * every process takes part and result is NULL but on process 0. */
static void explain_setup(store *trace, const struct analysis_options *options,
                          const struct analysis_steady *chosen, struct analysis_result *result)
{
    struct analysis_steady *steady = result ? &result->steady : NULL;
    if (steady)
        clear_setup_causes(steady);
    if (!has_setup(chosen))
        return;
    struct analysis_options setup = *options;
    setup.steady_state = 0;
    setup.window_start_ns = chosen->span_start_ns;
    setup.window_end_ns = chosen->start_ns;
    setup.window_is_relative = 0;
    setup.max_waits = 1;
    setup.progress = NULL;
    setup.steps_from = result; /* the same trace's: found once (a share's processes find theirs) */
    error_info ignored;
    struct analysis_result *before = analysis_run(trace, &setup, &ignored);
    if (!before || !steady) {
        analysis_free(before);
        return;
    }
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

struct analysis_result *analysis_run(store *trace, const struct analysis_options *options, error_info *err)
{
    struct analysis_options chosen;
    if (options)
        chosen = *options;
    else
        analysis_options_init(&chosen);
    int again = 0;
    struct analysis_steady steady = {0};
    struct analysis_result *result = analyze(trace, &chosen, jobs_of(&chosen), err, &again, &steady);
    struct analysis_share *share = chosen.share;
    if (again && share && share->local) {
        /* process 0's trace holds its own devices alone: it cannot walk the others' again */
        again = 0;
        error_set(err,
                  "over %d exposed copy stretches: --mpi on rank files cannot count them exactly; import "
                  "the files first (overlapscope import DIR -o job.db) and run --mpi on job.db",
                  ACCOUNTING_MAX_INTERVALS);
    } else if (again) {
        chosen.share = NULL; /* process 0 alone: the others sent their part */
        result = analyze(trace, &chosen, 1, err, &again, &steady);
        chosen.share = share;
    }
    if (chosen.timing)
        chosen.timing->nested = 1; /* the set-up's phases apart from the run's */
    if (share && share->exchanged) {
        /* Every process that sent its part takes part in the set-up's analysis too, when process 0
         * (whose run may still have failed) says so. */
        share->exchanged = 0;
        int go = share->index == 0 && result && has_setup(&steady);
        error_info ignored;
        if (analysis_share_agree(share, &go, &ignored) == 0 && go)
            explain_setup(trace, &chosen, &steady, result);
        else if (result)
            clear_setup_causes(&result->steady);
    } else if (result) {
        explain_setup(trace, &chosen, &steady, result);
    }
    if (chosen.timing)
        chosen.timing->nested = 0;
    return result;
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
