/* analysis_pool.c: the devices' walks (analysis_walk.c) on the run's crew of threads (crew.h), and
 * the merge of their fragments into the run in device order (analysis_parts.h). Each worker reads
 * the trace through its own read-only connection with its own walker; the run's thread
 * merges fragment i as soon as it is done and all before it are merged, and says the progress in
 * between, so the output is byte for byte that of one thread walking every device in order. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_parts.h"

/* --- the merge --- */

static int grow(void **array, size_t *capacity, size_t needed, size_t size)
{
    if (needed <= *capacity)
        return 0;
    size_t wanted = *capacity ? *capacity : 8;
    while (wanted < needed)
        wanted *= 2;
    void *grown = realloc(*array, wanted * size);
    if (!grown)
        return -1;
    *array = grown;
    *capacity = wanted;
    return 0;
}

static void merge_streams_seen(struct run *run, const struct device_fragment *fragment)
{
    run->ranges_found += fragment->ranges_found;
    run->wanted_stream_seen |= fragment->wanted_stream_seen;
    for (size_t i = 0; i < fragment->streams_seen_count && run->streams_seen_count < ANALYSIS_STREAMS_SEEN;
         i++)
        run->streams_seen[run->streams_seen_count++] = fragment->streams_seen[i];
}

/* The fragment's device as result device device_count: its row, overlap costs, exposed copies. */
static int merge_result_device(struct run *run, struct device_fragment *fragment)
{
    struct analysis_result *result = run->result, *part = &fragment->part;
    size_t index = result->device_count;
    if (grow((void **)&result->devices, &run->device_capacity, index + 1, sizeof *result->devices) != 0 ||
        grow((void **)&run->copy_breakdowns, &run->copy_breakdown_capacity, index + 1,
             sizeof *run->copy_breakdowns) != 0 ||
        grow((void **)&result->overlap_costs, &result->overlap_cost_capacity,
             result->overlap_cost_count + part->overlap_cost_count, sizeof *result->overlap_costs) != 0 ||
        grow((void **)&run->copy_intervals, &run->copy_interval_capacity,
             run->copy_interval_count + fragment->copy_interval_count, sizeof *run->copy_intervals) != 0)
        return -1;
    /* A worker (or another process) that did not know how many copy intervals the run had kept may
     * have kept stretches past the cap (ACCOUNTING_MAX_INTERVALS in all): those devices are walked
     * again on one thread. */
    if ((run->jobs > 1 || run->options.share) &&
        run->copy_interval_count + fragment->copy_stretch_count > ACCOUNTING_MAX_INTERVALS)
        run->inexact = 1;
    result->devices[index] = part->devices[0];
    for (size_t i = 0; i < part->overlap_cost_count; i++) {
        result->overlap_costs[result->overlap_cost_count] = part->overlap_costs[i];
        result->overlap_costs[result->overlap_cost_count++].device = index;
    }
    for (size_t i = 0; i < fragment->copy_interval_count; i++) {
        run->copy_intervals[run->copy_interval_count] = fragment->copy_intervals[i];
        run->copy_intervals[run->copy_interval_count++].device = index;
    }
    run->copy_breakdowns[index] = fragment->copy_breakdown;
    fragment->copy_breakdown = (struct accounting_breakdown){0};
    result->interval_count += part->interval_count;
    result->device_count++;
    return 0;
}

int analysis_merge_device(struct run *run, struct device_fragment *fragment)
{
    if (fragment->status != 0) {
        *run->err = fragment->err;
        return -1;
    }
    merge_streams_seen(run, fragment);
    if (fragment->skipped)
        return 0;
    /* a shown device with nothing in the window: said with it (steady_state.h) */
    run->result->steady.devices_left_out += fragment->books.dropped && run->result->steady.trimmed;
    struct analysis_result *result = run->result, *part = &fragment->part;
    size_t lane_offset = result->lane_count;
    int shown = part->device_count == 1;
    size_t result_index = shown ? result->device_count : ACCOUNTANT_PEER;
    run->intervals_offered += fragment->books.books ? fragment->books.interval_count : 0;
    if (accountant_adopt_device(run->accountant, &fragment->books, result_index) != 0 ||
        grow((void **)&result->lanes, &run->lane_capacity, lane_offset + part->lane_count,
             sizeof *result->lanes) != 0 ||
        grow((void **)&result->stream_pairs, &run->stream_pair_capacity,
             result->stream_pair_count + part->stream_pair_count, sizeof *result->stream_pairs) != 0)
        return error_set(run->err, "out of memory");
    if (part->lane_count) /* a peer's or a skipped device's fragment has none (NULL) */
        memcpy(result->lanes + lane_offset, part->lanes, part->lane_count * sizeof *part->lanes);
    result->lane_count += part->lane_count;
    for (size_t i = 0; i < part->stream_pair_count; i++) {
        struct analysis_stream_pair pair = part->stream_pairs[i];
        pair.lane_a += lane_offset;
        pair.lane_b += lane_offset;
        result->stream_pairs[result->stream_pair_count++] = pair;
    }
    explainer_adopt_device(run->explain, &fragment->waits, lane_offset);
    if (shown && merge_result_device(run, fragment) != 0)
        return error_set(run->err, "out of memory");
    return 0;
}

/* --- the pool --- */

struct pool {
    struct run *run;
    const struct store_gpu_device *keys;
    struct device_fragment *fragments;
    /* each worker's walker, made on its first device (on its own connection) */
    struct analysis_walker *walkers;
    unsigned char *walker_ready;
    atomic_int_fast64_t ops_walked;
};

static void count_ops(void *context, int64_t ops)
{
    struct pool *pool = context;
    atomic_fetch_add_explicit(&pool->ops_walked, ops, memory_order_relaxed);
}

static void walk_one(void *context, size_t index, size_t worker, store *reader)
{
    struct pool *pool = context;
    struct analysis_walker *walker = &pool->walkers[worker];
    struct device_fragment *fragment = &pool->fragments[index];
    if (!pool->walker_ready[worker]) {
        if (analysis_walker_init(walker, reader, pool->run, &fragment->err) != 0) {
            fragment->status = -1;
            return;
        }
        walker->tick = count_ops;
        walker->tick_context = pool;
        pool->walker_ready[worker] = 1;
    }
    analysis_walk_device(walker, pool->keys[index],
                         analysis_device_shown(&pool->run->options, pool->keys[index]), 0, fragment);
}

static void report_progress(struct pool *pool)
{
    struct run *run = pool->run;
    int64_t done = (int64_t)atomic_load_explicit(&pool->ops_walked, memory_order_relaxed);
    if (run->options.progress && done < run->progress_total_ops)
        run->options.progress(run->options.progress_context,
                              0.9 * (double)done / (double)run->progress_total_ops);
}

/* Merges every fragment in device order as the workers finish them, saying the progress a few
 * times a second meanwhile. Returns 0 or -1. */
static int merge_all(struct pool *pool, size_t count)
{
    int status = 0;
    for (size_t i = 0; i < count; i++) {
        while (!crew_wait_for(pool->run->crew, i, 200 * 1000 * 1000))
            report_progress(pool);
        status = analysis_merge_device(pool->run, &pool->fragments[i]);
        device_fragment_free(&pool->fragments[i]);
        if (status != 0 || pool->run->inexact) {
            crew_stop(pool->run->crew);
            break;
        }
    }
    return status;
}

int analysis_pool_run(struct run *run, const struct store_gpu_device *keys, size_t count)
{
    size_t workers = run->crew ? crew_size(run->crew) : 0;
    if (workers == 0)
        return 1;
    struct pool pool = {.run = run, .keys = keys};
    pool.fragments = calloc(count, sizeof *pool.fragments);
    pool.walkers = calloc(workers, sizeof *pool.walkers);
    pool.walker_ready = calloc(workers, 1);
    atomic_init(&pool.ops_walked, run->progress_done_ops);
    int status = pool.fragments && pool.walkers && pool.walker_ready ? 0 : 1;
    if (status == 0 && crew_start(run->crew, count, walk_one, &pool) != 0)
        status = 1;
    if (status == 0) {
        status = merge_all(&pool, count);
        crew_finish(run->crew);
    }
    for (size_t i = 0; pool.walker_ready && i < workers; i++)
        if (pool.walker_ready[i])
            analysis_walker_free(&pool.walkers[i]);
    for (size_t i = 0; pool.fragments && i < count; i++)
        device_fragment_free(&pool.fragments[i]);
    run->progress_done_ops = (int64_t)atomic_load(&pool.ops_walked);
    free(pool.fragments);
    free(pool.walkers);
    free(pool.walker_ready);
    return status;
}
