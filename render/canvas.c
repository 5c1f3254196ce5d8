/* canvas.c: see canvas.h. */
#include "canvas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Zero-length intervals (NVTX marks, kernels shorter than the clock's tick) still cover this
 * much of a column, so that they show (a column with any coverage is drawn at least 30%
 * opaque); anything longer counts for exactly what it covers. */
#define MINIMUM_COLUMNS 0.001

/* Open intervals of the device being swept: a binary min-heap on end time. */
struct open_interval {
    int64_t end_ns;
    struct canvas_lane *lane;
};
struct canvas_sweep {
    struct canvas_device *device;
    struct open_interval *heap;
    size_t count, capacity;
    int64_t time_ns;       /* how far the sweep has accounted */
    int64_t busy_streams;  /* lanes with an open interval */
};

struct canvas *canvas_new(int64_t window_start_ns, int64_t window_end_ns, int columns, double keep_min_columns)
{
    if (columns < 1 || window_end_ns <= window_start_ns)
        return NULL;
    struct canvas *canvas = calloc(1, sizeof *canvas);
    if (!canvas)
        return NULL;
    canvas->sweep = calloc(1, sizeof *canvas->sweep);
    if (!canvas->sweep) {
        free(canvas);
        return NULL;
    }
    canvas->window_start_ns = window_start_ns;
    canvas->window_end_ns = window_end_ns;
    canvas->columns = columns;
    canvas->columns_per_ns = (double)columns / (double)(window_end_ns - window_start_ns);
    canvas->keep_min_columns = keep_min_columns;
    return canvas;
}

void canvas_free(struct canvas *canvas)
{
    if (!canvas)
        return;
    for (size_t i = 0; i < canvas->lane_count; i++) {
        free(canvas->lanes[i]->coverage);
        free(canvas->lanes[i]->kept);
        free(canvas->lanes[i]);
    }
    for (size_t i = 0; i < canvas->device_count; i++) {
        free(canvas->devices[i]->level_fraction);
        free(canvas->devices[i]);
    }
    free(canvas->lanes);
    free(canvas->devices);
    free(canvas->sweep->heap);
    free(canvas->sweep);
    free(canvas);
}

/* Appends item to a growable array of pointers. */
static int append_pointer(void ***items, size_t *count, size_t *capacity, void *item)
{
    if (*count == *capacity) {
        size_t grown = *capacity ? *capacity * 2 : 16;
        void **resized = realloc(*items, grown * sizeof *resized);
        if (!resized)
            return -1;
        *items = resized;
        *capacity = grown;
    }
    (*items)[(*count)++] = item;
    return 0;
}

static int lane_matches(const struct canvas_lane *lane, enum canvas_lane_kind kind, int64_t process_id, int64_t a,
                        int64_t b)
{
    if (lane->kind != kind || lane->process_id != process_id)
        return 0;
    if (kind == CANVAS_LANE_GPU)
        return lane->device_id == a && lane->stream_id == b;
    return lane->thread_id == a && lane->depth == b;
}

static struct canvas_lane *find_or_add_lane(struct canvas *canvas, enum canvas_lane_kind kind, int64_t process_id,
                                            int64_t a, int64_t b)
{
    if (canvas->last_lane < canvas->lane_count &&
        lane_matches(canvas->lanes[canvas->last_lane], kind, process_id, a, b))
        return canvas->lanes[canvas->last_lane];
    for (size_t i = canvas->lane_count; i-- > 0;) {
        if (lane_matches(canvas->lanes[i], kind, process_id, a, b)) {
            canvas->last_lane = i;
            return canvas->lanes[i];
        }
    }
    struct canvas_lane *lane = calloc(1, sizeof *lane);
    if (!lane)
        return NULL;
    lane->kind = kind;
    lane->process_id = process_id;
    if (kind == CANVAS_LANE_GPU) {
        lane->device_id = a;
        lane->stream_id = b;
        lane->kind_offset = 0;
        lane->kind_count = ANALYSIS_CATEGORY_COUNT;
    } else {
        lane->thread_id = a;
        lane->depth = b;
        lane->kind_offset = kind == CANVAS_LANE_HOST ? PALETTE_HOST_API : PALETTE_NVTX;
        lane->kind_count = 1;
    }
    lane->coverage = calloc((size_t)canvas->columns * (size_t)lane->kind_count, sizeof *lane->coverage);
    if (!lane->coverage ||
        append_pointer((void ***)&canvas->lanes, &canvas->lane_count, &canvas->lane_capacity, lane) != 0) {
        free(lane->coverage);
        free(lane);
        return NULL;
    }
    canvas->last_lane = canvas->lane_count - 1;
    return lane;
}

struct canvas_lane *canvas_gpu_lane(struct canvas *canvas, int64_t process_id, int64_t device_id, int64_t stream_id)
{
    return find_or_add_lane(canvas, CANVAS_LANE_GPU, process_id, device_id, stream_id);
}

struct canvas_lane *canvas_thread_lane(struct canvas *canvas, enum canvas_lane_kind kind, int64_t process_id,
                                       int64_t thread_id, int64_t depth)
{
    return find_or_add_lane(canvas, kind, process_id, thread_id, kind == CANVAS_LANE_NVTX ? depth : 0);
}

double canvas_column_of(const struct canvas *canvas, int64_t time_ns)
{
    return (double)(time_ns - canvas->window_start_ns) * canvas->columns_per_ns;
}

/* Adds to cells[column * stride + offset] the part of each column that [x0, x1) covers. */
static void spread(float *cells, int stride, int offset, int columns, double x0, double x1)
{
    if (x0 < 0)
        x0 = 0;
    if (x1 > columns)
        x1 = columns;
    if (x1 <= x0)
        return;
    int first = (int)x0, last = (int)ceil(x1) - 1;
    if (last >= columns)
        last = columns - 1;
    if (first == last) {
        cells[first * stride + offset] += (float)(x1 - x0);
        return;
    }
    cells[first * stride + offset] += (float)(first + 1 - x0);
    for (int column = first + 1; column < last; column++)
        cells[column * stride + offset] += 1.0f;
    cells[last * stride + offset] += (float)(x1 - last);
}

static int keep_interval(struct canvas *canvas, struct canvas_lane *lane, const struct canvas_interval *interval)
{
    /* Non-overlapping intervals this wide fit at most columns / keep_min_columns times. */
    size_t limit = (size_t)(2.0 * canvas->columns / canvas->keep_min_columns) + 16;
    if (lane->kept_count == lane->kept_capacity) {
        if (lane->kept_capacity >= limit)
            return 0; /* still drawn through the columns, only without its own outline */
        size_t grown = lane->kept_capacity ? lane->kept_capacity * 2 : 32;
        if (grown > limit)
            grown = limit;
        struct canvas_interval *resized = realloc(lane->kept, grown * sizeof *resized);
        if (!resized)
            return -1;
        lane->kept = resized;
        lane->kept_capacity = grown;
    }
    lane->kept[lane->kept_count++] = *interval;
    return 0;
}

int canvas_add(struct canvas *canvas, struct canvas_lane *lane, const struct canvas_interval *interval)
{
    int64_t start = interval->start_ns > canvas->window_start_ns ? interval->start_ns : canvas->window_start_ns;
    int64_t end = interval->end_ns < canvas->window_end_ns ? interval->end_ns : canvas->window_end_ns;
    if (end < start || interval->end_ns < canvas->window_start_ns || interval->start_ns > canvas->window_end_ns)
        return 0;
    int offset = interval->kind - lane->kind_offset;
    if (offset < 0 || offset >= lane->kind_count)
        offset = 0;
    double x0 = canvas_column_of(canvas, start), x1 = canvas_column_of(canvas, end);
    if (x1 - x0 < MINIMUM_COLUMNS)
        x1 = x0 + MINIMUM_COLUMNS;
    spread(lane->coverage, lane->kind_count, offset, canvas->columns, x0, x1);
    int kind = interval->kind < PALETTE_KIND_COUNT ? interval->kind : 0;
    lane->busy_ns[kind] += end - start;
    lane->intervals_by_kind[kind]++;
    lane->interval_count++;
    if (x1 - x0 >= canvas->keep_min_columns)
        return keep_interval(canvas, lane, interval);
    return 0;
}

double canvas_column_coverage(const struct canvas_lane *lane, int column, int *dominant_kind)
{
    const float *cells = lane->coverage + (size_t)column * (size_t)lane->kind_count;
    double total = 0, best = 0;
    int best_kind = -1;
    for (int k = 0; k < lane->kind_count; k++) {
        total += cells[k];
        if (cells[k] > best) {
            best = cells[k];
            best_kind = lane->kind_offset + k;
        }
    }
    if (dominant_kind)
        *dominant_kind = best_kind;
    return total > 1 ? 1 : total;
}

/* --- the concurrency sweep --- */

static void account_until(struct canvas *canvas, int64_t time_ns)
{
    struct canvas_sweep *sweep = canvas->sweep;
    if (time_ns <= sweep->time_ns)
        return;
    int level = sweep->busy_streams > 3 ? 3 : (int)sweep->busy_streams;
    spread(sweep->device->level_fraction, 4, level, canvas->columns, canvas_column_of(canvas, sweep->time_ns),
           canvas_column_of(canvas, time_ns));
    sweep->time_ns = time_ns;
}

static void heap_pop(struct canvas_sweep *sweep)
{
    struct open_interval *heap = sweep->heap;
    heap[0] = heap[--sweep->count];
    for (size_t i = 0;;) {
        size_t left = 2 * i + 1, right = left + 1, smallest = i;
        if (left < sweep->count && heap[left].end_ns < heap[smallest].end_ns)
            smallest = left;
        if (right < sweep->count && heap[right].end_ns < heap[smallest].end_ns)
            smallest = right;
        if (smallest == i)
            break;
        struct open_interval swap = heap[i];
        heap[i] = heap[smallest];
        heap[smallest] = swap;
        i = smallest;
    }
}

static int heap_push(struct canvas_sweep *sweep, struct open_interval item)
{
    if (sweep->count == sweep->capacity) {
        size_t grown = sweep->capacity ? sweep->capacity * 2 : 64;
        struct open_interval *resized = realloc(sweep->heap, grown * sizeof *resized);
        if (!resized)
            return -1;
        sweep->heap = resized;
        sweep->capacity = grown;
    }
    size_t i = sweep->count++;
    while (i > 0 && sweep->heap[(i - 1) / 2].end_ns > item.end_ns) {
        sweep->heap[i] = sweep->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    sweep->heap[i] = item;
    return 0;
}

/* Closes every open interval that ended by time_ns, accounting the time before each end. */
static void close_until(struct canvas *canvas, int64_t time_ns)
{
    struct canvas_sweep *sweep = canvas->sweep;
    while (sweep->count > 0 && sweep->heap[0].end_ns <= time_ns) {
        struct open_interval ending = sweep->heap[0];
        account_until(canvas, ending.end_ns);
        heap_pop(sweep);
        if (--ending.lane->active == 0)
            sweep->busy_streams--;
    }
}

int canvas_device_begin(struct canvas *canvas, int64_t process_id, int64_t device_id)
{
    struct canvas_device *device = calloc(1, sizeof *device);
    if (!device)
        return -1;
    device->process_id = process_id;
    device->device_id = device_id;
    device->level_fraction = calloc((size_t)canvas->columns * 4, sizeof *device->level_fraction);
    if (!device->level_fraction ||
        append_pointer((void ***)&canvas->devices, &canvas->device_count, &canvas->device_capacity, device) != 0) {
        free(device->level_fraction);
        free(device);
        return -1;
    }
    struct canvas_sweep *sweep = canvas->sweep;
    sweep->device = device;
    sweep->count = 0;
    sweep->busy_streams = 0;
    sweep->time_ns = canvas->window_start_ns;
    return 0;
}

int canvas_add_gpu(struct canvas *canvas, struct canvas_lane *lane, const struct canvas_interval *interval)
{
    struct canvas_sweep *sweep = canvas->sweep;
    close_until(canvas, interval->start_ns);
    account_until(canvas, interval->start_ns);
    if (interval->end_ns > interval->start_ns) {
        if (heap_push(sweep, (struct open_interval){interval->end_ns, lane}) != 0)
            return -1;
        if (lane->active++ == 0)
            sweep->busy_streams++;
    }
    sweep->device->interval_count++;
    return canvas_add(canvas, lane, interval);
}

void canvas_device_end(struct canvas *canvas)
{
    close_until(canvas, INT64_MAX);
    account_until(canvas, canvas->window_end_ns);
    canvas->sweep->device = NULL;
}
