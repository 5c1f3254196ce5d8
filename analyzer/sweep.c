/* sweep.c: see sweep.h. Between two consecutive events the state is constant, so each segment
 * adds its (selected) length to a few buckets: time per set of busy categories, per set of
 * categories with two or more intervals open, per number of busy streams, per set of busy
 * streams. The overlap matrices come out of those buckets at the end, so a segment costs O(1)
 * however many categories and streams there are. */
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naming.h"

#define CATEGORY_MASKS (1u << ANALYSIS_CATEGORY_COUNT)
#define COPY_CATEGORY_BITS                                                                                   \
    ((1u << ANALYSIS_COPY_HTOD) | (1u << ANALYSIS_COPY_DTOH) | (1u << ANALYSIS_COPY_DTOD) |                  \
     (1u << ANALYSIS_COPY_PEER) | (1u << ANALYSIS_COPY_OTHER))

struct open_interval {
    int64_t end_ns;
    uint32_t lane;
    uint8_t category;
};

struct sweep {
    struct open_interval *heap;
    size_t heap_count, heap_capacity;
    int64_t now_ns, now_c;
    int started;
    int64_t category_count[ANALYSIS_CATEGORY_COUNT];
    unsigned category_mask, multi_mask;
    int64_t time_by_category_mask[CATEGORY_MASKS], time_by_multi_mask[CATEGORY_MASKS];
    int64_t busy_streams;
    int64_t concurrency_c[4];
    /* Pair overlap by prefix sums: when lane a turns busy, every later lane b's busy time so far;
     * when a turns idle, the busy time b gained meanwhile is time both were busy. O(lanes) per
     * busy/idle turn, in a table that stays in cache (a table of busy sets did not). */
    int64_t *pair_start;     /* [a][b], b > a: b's busy time when a last turned busy */
    int64_t *pair_overlap;   /* [a][b], b > a: time a and b were both busy */
    int64_t *first_snapshot; /* [lane][other]: other's busy time when lane first started */
    int64_t *end_snapshot;   /* [lane][other]: other's busy time when lane last ended */
    /* The pair lanes' busy time as of now, without touching their lane_state (16 of them on
     * every busy or idle turn): pair_offset[b] + (now_c & pair_mask[b]), the mask all ones
     * while b is busy (offset: busy time minus when it turned busy) and 0 while idle (offset:
     * busy time). Contiguous, so the loops over them vectorize. */
    int64_t pair_offset[DEVICE_PAIR_LANES], pair_mask[DEVICE_PAIR_LANES];
    int any_counted;
    int64_t first_start_ns, last_end_ns;
};

sweep *sweep_new(void)
{
    sweep *line = calloc(1, sizeof *line);
    if (!line)
        return NULL;
    line->first_snapshot = calloc(DEVICE_PAIR_LANES * DEVICE_PAIR_LANES, sizeof(int64_t));
    line->end_snapshot = calloc(DEVICE_PAIR_LANES * DEVICE_PAIR_LANES, sizeof(int64_t));
    line->pair_start = calloc(DEVICE_PAIR_LANES * DEVICE_PAIR_LANES, sizeof(int64_t));
    line->pair_overlap = calloc(DEVICE_PAIR_LANES * DEVICE_PAIR_LANES, sizeof(int64_t));
    if (!line->first_snapshot || !line->end_snapshot || !line->pair_start || !line->pair_overlap) {
        sweep_free(line);
        return NULL;
    }
    return line;
}

void sweep_free(sweep *line)
{
    if (!line)
        return;
    free(line->heap);
    free(line->pair_start);
    free(line->pair_overlap);
    free(line->first_snapshot);
    free(line->end_snapshot);
    free(line);
}

void sweep_reset(sweep *line, struct device_state *device)
{
    line->heap_count = 0;
    line->now_ns = INT64_MIN;
    line->now_c = 0;
    line->started = 0;
    memset(line->category_count, 0, sizeof line->category_count);
    line->category_mask = line->multi_mask = 0;
    memset(line->time_by_category_mask, 0, sizeof line->time_by_category_mask);
    memset(line->time_by_multi_mask, 0, sizeof line->time_by_multi_mask);
    line->busy_streams = 0;
    memset(line->concurrency_c, 0, sizeof line->concurrency_c);
    /* A stream appears when its first op does, possibly while others are busy: the snapshots an
     * older lane took hold nothing for it, and its busy time then was 0. Left from the previous
     * device they made pair overlaps negative (issue 17). */
    size_t table_bytes = DEVICE_PAIR_LANES * DEVICE_PAIR_LANES * sizeof(int64_t);
    memset(line->pair_overlap, 0, table_bytes);
    memset(line->pair_start, 0, table_bytes);
    memset(line->first_snapshot, 0, table_bytes);
    memset(line->end_snapshot, 0, table_bytes);
    line->any_counted = 0;
    line->first_start_ns = line->last_end_ns = 0;
    memset(line->pair_offset, 0, sizeof line->pair_offset);
    memset(line->pair_mask, 0, sizeof line->pair_mask);
    selection_rewind(device->selection);
}

/* --- the heap of open intervals, smallest end first --- */

static int heap_push(sweep *line, struct open_interval item)
{
    if (line->heap_count == line->heap_capacity) {
        size_t capacity = line->heap_capacity ? line->heap_capacity * 2 : 64;
        struct open_interval *grown = realloc(line->heap, capacity * sizeof *grown);
        if (!grown)
            return -1;
        line->heap = grown;
        line->heap_capacity = capacity;
    }
    size_t i = line->heap_count++;
    while (i > 0 && line->heap[(i - 1) / 2].end_ns > item.end_ns) {
        line->heap[i] = line->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    line->heap[i] = item;
    return 0;
}

static struct open_interval heap_pop(sweep *line)
{
    struct open_interval top = line->heap[0], last = line->heap[--line->heap_count];
    size_t i = 0, count = line->heap_count;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= count)
            break;
        if (child + 1 < count && line->heap[child + 1].end_ns < line->heap[child].end_ns)
            child++;
        if (line->heap[child].end_ns >= last.end_ns)
            break;
        line->heap[i] = line->heap[child];
        i = child;
    }
    if (count)
        line->heap[i] = last;
    return top;
}

/* --- segments and events --- */

static void accumulate_to(sweep *line, struct device_state *device, int64_t time_ns)
{
    if (line->started && time_ns <= line->now_ns)
        return;
    int64_t clock_c = selection_clock(device->selection, time_ns);
    int64_t elapsed_c = line->started ? clock_c - line->now_c : 0;
    line->now_ns = time_ns;
    line->now_c = clock_c;
    line->started = 1;
    if (elapsed_c <= 0)
        return;
    line->time_by_category_mask[line->category_mask] += elapsed_c;
    line->time_by_multi_mask[line->multi_mask] += elapsed_c;
    if (line->busy_streams > 0)
        line->concurrency_c[line->busy_streams < 3 ? line->busy_streams : 3] += elapsed_c;
}

/* A pair lane's busy time so far (its lane_state's busy_c, plus the open stretch while busy),
 * from the sweep's own arrays. */
static inline int64_t pair_busy_now(const sweep *line, size_t b)
{
    return line->pair_offset[b] + (line->now_c & line->pair_mask[b]);
}

static size_t pair_lane_limit(const struct device_state *device)
{
    return device->lane_count < DEVICE_PAIR_LANES ? device->lane_count : DEVICE_PAIR_LANES;
}

static void snapshot(sweep *line, const struct device_state *device, size_t lane_index, int64_t *table)
{
    if (lane_index >= DEVICE_PAIR_LANES)
        return;
    size_t limit = pair_lane_limit(device);
    for (size_t other = 0; other < limit; other++)
        table[lane_index * DEVICE_PAIR_LANES + other] = pair_busy_now(line, other);
}

static void lane_turns_busy(sweep *line, const struct device_state *device, size_t a)
{
    size_t limit = pair_lane_limit(device);
    int64_t *start = &line->pair_start[a * DEVICE_PAIR_LANES];
    for (size_t b = a + 1; b < limit; b++)
        start[b] = pair_busy_now(line, b);
}

/* Also takes the end snapshot: the lane's last end is always a turn to idle (every interval of
 * it has ended), so the last snapshot taken here is the one at its last end. */
static void lane_turns_idle(sweep *line, const struct device_state *device, size_t a)
{
    size_t limit = pair_lane_limit(device);
    const int64_t *start = &line->pair_start[a * DEVICE_PAIR_LANES];
    int64_t *overlap = &line->pair_overlap[a * DEVICE_PAIR_LANES];
    int64_t *at_end = &line->end_snapshot[a * DEVICE_PAIR_LANES];
    for (size_t b = 0; b < limit; b++)
        at_end[b] = pair_busy_now(line, b);
    for (size_t b = a + 1; b < limit; b++)
        overlap[b] += at_end[b] - start[b];
}

static void close_interval(sweep *line, struct device_state *device, struct open_interval item)
{
    struct lane_state *lane = &device->lanes[item.lane];
    int category = item.category;
    if (--lane->category_active[category] == 0)
        lane->category_c[category] += line->now_c - lane->category_since_c[category];
    if (item.end_ns > lane->last_end_ns)
        lane->last_end_ns = item.end_ns;
    if (item.end_ns > line->last_end_ns)
        line->last_end_ns = item.end_ns;
    if (--lane->active == 0) {
        lane->busy_c += line->now_c - lane->busy_since_c;
        line->busy_streams--;
        if (item.lane < DEVICE_PAIR_LANES) {
            line->pair_offset[item.lane] = lane->busy_c;
            line->pair_mask[item.lane] = 0;
            lane_turns_idle(line, device, item.lane);
        }
    }
    line->category_count[category]--;
    if (line->category_count[category] == 0)
        line->category_mask &= ~(1u << category);
    if (line->category_count[category] == 1)
        line->multi_mask &= ~(1u << category);
}

int sweep_advance(sweep *line, struct device_state *device, int64_t time_ns)
{
    while (line->heap_count > 0 && line->heap[0].end_ns <= time_ns) {
        struct open_interval item = heap_pop(line);
        accumulate_to(line, device, item.end_ns);
        close_interval(line, device, item);
    }
    accumulate_to(line, device, time_ns);
    return 0;
}

int sweep_add(sweep *line, struct device_state *device, size_t lane_index, const struct model_op *op)
{
    struct lane_state *lane = &device->lanes[lane_index];
    int category = op->category;
    if (!lane->has_counted) {
        lane->has_counted = 1;
        lane->first_start_ns = op->start_ns;
        lane->last_end_ns = op->end_ns;
        snapshot(line, device, lane_index, line->first_snapshot);
    }
    if (!line->any_counted) {
        line->any_counted = 1;
        line->first_start_ns = op->start_ns;
        line->last_end_ns = op->end_ns;
    }
    lane->interval_count++;
    if (lane->category_active[category]++ == 0)
        lane->category_since_c[category] = line->now_c;
    if (lane->active++ == 0) {
        lane->busy_since_c = line->now_c;
        line->busy_streams++;
        if (lane_index < DEVICE_PAIR_LANES) {
            line->pair_offset[lane_index] = lane->busy_c - line->now_c;
            line->pair_mask[lane_index] = -1;
            lane_turns_busy(line, device, lane_index);
        }
    }
    if (line->category_count[category]++ == 0)
        line->category_mask |= 1u << category;
    if (line->category_count[category] == 2)
        line->multi_mask |= 1u << category;
    return heap_push(line, (struct open_interval){op->end_ns, (uint32_t)lane_index, (uint8_t)category});
}

/* --- results --- */

static void category_metrics(const sweep *line, struct analysis_device *out)
{
    memset(out->category_overlap_ns, 0, sizeof out->category_overlap_ns);
    memset(out->category_busy_ns, 0, sizeof out->category_busy_ns);
    memset(out->exposed_copy_direction_ns, 0, sizeof out->exposed_copy_direction_ns);
    out->busy_ns = out->copy_ns = out->copy_compute_overlap_ns = out->kernel_busy_ns = out->exposed_copy_ns =
        0;
    const unsigned kernel_bits = (1u << ANALYSIS_COMPUTE) | (1u << ANALYSIS_COMMUNICATION);
    const unsigned direction_bits[ANALYSIS_COPY_DIRECTION_COUNT] = {
        [ANALYSIS_COPY_DIRECTION_HTOD] = 1u << ANALYSIS_COPY_HTOD,
        [ANALYSIS_COPY_DIRECTION_DTOH] = 1u << ANALYSIS_COPY_DTOH,
        [ANALYSIS_COPY_DIRECTION_OTHER] =
            (1u << ANALYSIS_COPY_DTOD) | (1u << ANALYSIS_COPY_PEER) | (1u << ANALYSIS_COPY_OTHER)};
    for (unsigned mask = 1; mask < CATEGORY_MASKS; mask++) {
        int64_t time_c = line->time_by_category_mask[mask];
        if (time_c == 0)
            continue;
        out->busy_ns += time_c;
        if (mask & kernel_bits)
            out->kernel_busy_ns += time_c;
        if (mask & COPY_CATEGORY_BITS) {
            out->copy_ns += time_c;
            if (mask & (1u << ANALYSIS_COMPUTE))
                out->copy_compute_overlap_ns += time_c;
            if (!(mask & kernel_bits)) {
                out->exposed_copy_ns += time_c;
                for (int d = 0; d < ANALYSIS_COPY_DIRECTION_COUNT; d++)
                    if (mask & direction_bits[d])
                        out->exposed_copy_direction_ns[d] += time_c;
            }
        }
        for (int a = 0; a < ANALYSIS_CATEGORY_COUNT; a++) {
            if (!(mask & (1u << a)))
                continue;
            out->category_busy_ns[a] += time_c;
            for (int b = 0; b < ANALYSIS_CATEGORY_COUNT; b++)
                if (b != a && (mask & (1u << b)))
                    out->category_overlap_ns[a][b] += time_c;
        }
    }
    for (unsigned mask = 1; mask < CATEGORY_MASKS; mask++)
        for (int a = 0; a < ANALYSIS_CATEGORY_COUNT; a++)
            if (mask & (1u << a))
                out->category_overlap_ns[a][a] += line->time_by_multi_mask[mask];
    out->communication_ns = out->category_busy_ns[ANALYSIS_COMMUNICATION];
    out->compute_communication_overlap_ns =
        out->category_overlap_ns[ANALYSIS_COMPUTE][ANALYSIS_COMMUNICATION];
    out->exposed_communication_ns = out->communication_ns - out->compute_communication_overlap_ns;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The most copies could have overlapped compute kernels: a copy runs beside the kernels of other
 * streams only (a stream runs its work in order), so each stream's copies count up to the compute
 * time of the others (a sum: at least their union), and the whole up to both unions. A program
 * that copies and computes on one stream has nothing possible ("-"), not 0% of something. */
static int64_t copy_compute_possible(const struct device_state *device, const struct analysis_device *out)
{
    int64_t compute_ns = 0, possible_ns = 0;
    for (size_t i = 0; i < device->lane_count; i++)
        compute_ns += device->lanes[i].category_c[ANALYSIS_COMPUTE];
    for (size_t i = 0; i < device->lane_count; i++) {
        const struct lane_state *lane = &device->lanes[i];
        int64_t copy_ns = 0;
        for (int category = 0; category < ANALYSIS_CATEGORY_COUNT; category++)
            if (COPY_CATEGORY_BITS & (1u << category))
                copy_ns += lane->category_c[category];
        possible_ns += min64(copy_ns, compute_ns - lane->category_c[ANALYSIS_COMPUTE]);
    }
    return min64(possible_ns, min64(out->copy_ns, out->category_busy_ns[ANALYSIS_COMPUTE]));
}

static void lane_metrics(const struct lane_state *lane, struct analysis_lane *out)
{
    out->busy_ns = lane->busy_c;
    out->interval_count = lane->interval_count;
    for (int category = 0; category < ANALYSIS_CATEGORY_COUNT; category++)
        out->category_ns[category] = lane->category_c[category];
    snprintf(out->role, sizeof out->role, "%s", store_stream_role(lane->category_c, lane->is_legacy_default));
}

/* min(busy a, busy b), each counted inside [later first start, earlier last end]. */
static int64_t pair_possible(const sweep *line, const struct device_state *device, size_t a, size_t b)
{
    const struct lane_state *lane_a = &device->lanes[a], *lane_b = &device->lanes[b];
    int64_t window_start =
        lane_a->first_start_ns > lane_b->first_start_ns ? lane_a->first_start_ns : lane_b->first_start_ns;
    int64_t window_end =
        lane_a->last_end_ns < lane_b->last_end_ns ? lane_a->last_end_ns : lane_b->last_end_ns;
    if (window_end <= window_start)
        return 0;
    int64_t a_before = lane_a->first_start_ns >= lane_b->first_start_ns
                           ? 0
                           : line->first_snapshot[b * DEVICE_PAIR_LANES + a];
    int64_t b_before = lane_b->first_start_ns >= lane_a->first_start_ns
                           ? 0
                           : line->first_snapshot[a * DEVICE_PAIR_LANES + b];
    int64_t a_until = lane_a->last_end_ns <= lane_b->last_end_ns
                          ? lane_a->busy_c
                          : line->end_snapshot[b * DEVICE_PAIR_LANES + a];
    int64_t b_until = lane_b->last_end_ns <= lane_a->last_end_ns
                          ? lane_b->busy_c
                          : line->end_snapshot[a * DEVICE_PAIR_LANES + b];
    int64_t busy_a = a_until - a_before, busy_b = b_until - b_before;
    int64_t possible = busy_a < busy_b ? busy_a : busy_b;
    return possible > 0 ? possible : 0;
}

static int append_pairs(const sweep *line, const struct device_state *device, struct analysis_device *out,
                        struct analysis_result *result)
{
    size_t limit = pair_lane_limit(device);
    out->stream_pair_overlap_ns = out->stream_pair_possible_ns = 0;
    size_t count = 0;
    for (size_t a = 0; a < limit; a++)
        for (size_t b = a + 1; b < limit; b++)
            count += device->lanes[a].has_counted && device->lanes[b].has_counted;
    if (count == 0)
        return 0;
    struct analysis_stream_pair *grown =
        realloc(result->stream_pairs, (result->stream_pair_count + count) * sizeof *grown);
    if (!grown)
        return -1;
    result->stream_pairs = grown;
    const int64_t *overlap = line->pair_overlap;
    for (size_t a = 0; a < limit; a++) {
        for (size_t b = a + 1; b < limit; b++) {
            if (!device->lanes[a].has_counted || !device->lanes[b].has_counted)
                continue;
            struct analysis_stream_pair *pair = &result->stream_pairs[result->stream_pair_count++];
            pair->lane_a = device->lanes[a].result_lane;
            pair->lane_b = device->lanes[b].result_lane;
            pair->overlap_ns = overlap[a * DEVICE_PAIR_LANES + b];
            pair->possible_ns = pair_possible(line, device, a, b);
            out->stream_pair_overlap_ns += pair->overlap_ns;
            out->stream_pair_possible_ns += pair->possible_ns;
        }
    }
    return 0;
}

int sweep_finish(sweep *line, struct device_state *device, struct analysis_device *out,
                 struct analysis_result *result)
{
    while (line->heap_count > 0) {
        struct open_interval item = heap_pop(line);
        accumulate_to(line, device, item.end_ns);
        close_interval(line, device, item);
    }
    category_metrics(line, out);
    if (line->any_counted) {
        out->span_start_ns = selection_clip_start(device->selection, line->first_start_ns);
        out->span_end_ns = selection_clip_end(device->selection, line->last_end_ns);
        int64_t span_c = selection_clock(device->selection, line->last_end_ns) -
                         selection_clock(device->selection, line->first_start_ns);
        out->idle_ns = span_c - out->busy_ns;
        if (out->idle_ns < 0)
            out->idle_ns = 0;
    } else {
        out->span_start_ns = out->span_end_ns = 0;
        out->idle_ns = 0;
    }
    out->concurrency_ns[0] = out->idle_ns;
    for (int k = 1; k < 4; k++)
        out->concurrency_ns[k] = line->concurrency_c[k];
    for (size_t i = 0; i < device->lane_count; i++)
        lane_metrics(&device->lanes[i], &result->lanes[device->lanes[i].result_lane]);
    out->copy_compute_possible_ns = copy_compute_possible(device, out);
    return append_pairs(line, device, out, result);
}
