/* canvas.c: see canvas.h. */
#include "canvas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Zero-length intervals (NVTX marks, kernels shorter than the clock's tick) still cover this
 * much of a column, so that they show (a column with any coverage is drawn at least 30%
 * opaque); anything longer counts for exactly what it covers, however narrow: a floor for
 * every narrow interval would add up, and a million 0.6 us kernels in 1 ms columns would read
 * as fully busy instead of half. */
#define MINIMUM_COLUMNS 1e-6

struct canvas *canvas_new(int64_t window_start_ns, int64_t window_end_ns, int columns,
                          double keep_min_columns)
{
    if (columns < 1 || window_end_ns <= window_start_ns)
        return NULL;
    struct canvas *canvas = calloc(1, sizeof *canvas);
    if (!canvas)
        return NULL;
    canvas->window_start_ns = window_start_ns;
    canvas->window_end_ns = window_end_ns;
    canvas->columns = columns;
    /* The difference first: two trace times of ~1.7e18 ns converted apart lose 1 ns windows to 0. */
    int64_t span_ns;
    double width_ns = __builtin_sub_overflow(window_end_ns, window_start_ns, &span_ns)
                          ? (double)window_end_ns - (double)window_start_ns
                          : (double)span_ns;
    canvas->columns_per_ns = (double)columns / width_ns;
    canvas->keep_min_columns = keep_min_columns;
    canvas->budget_bytes = CANVAS_BUDGET_BYTES;
    return canvas;
}

void canvas_set_budget(struct canvas *canvas, size_t budget_bytes)
{
    canvas->budget_bytes = budget_bytes;
}

size_t canvas_lane_bytes(int columns, int kind_count)
{
    return sizeof(struct canvas_lane) + (size_t)columns * (size_t)kind_count * sizeof(float);
}

size_t canvas_device_bytes(int columns)
{
    size_t slots = (size_t)columns * CANVAS_SLOTS_PER_COLUMN;
    return sizeof(struct canvas_device) + (size_t)columns * 4 * sizeof(float) +
           (slots + 1) * sizeof(int32_t) + slots * sizeof(float);
}

int canvas_over_budget(const struct canvas *canvas)
{
    return canvas->over_budget;
}

int canvas_budget_error(const struct canvas *canvas, error_info *err)
{
    size_t gpu_lanes = 0;
    for (size_t i = 0; i < canvas->lane_count; i++)
        gpu_lanes += canvas->lanes[i]->kind == CANVAS_LANE_GPU;
    return error_set(
        err,
        "more lanes than one picture holds: %zu stream lanes on %zu devices (and %zu host lanes) at %d"
        " columns reach the limit of %zu MiB (docs/security.md); draw fewer with --rank or --window",
        gpu_lanes, canvas->device_count, canvas->lane_count - gpu_lanes, canvas->columns,
        canvas->budget_bytes >> 20);
}

/* Takes bytes from the budget; 0 when they do not fit (the canvas is then over budget). */
static int take_budget(struct canvas *canvas, size_t bytes)
{
    if (bytes > canvas->budget_bytes - canvas->used_bytes) {
        canvas->over_budget = 1;
        return 0;
    }
    canvas->used_bytes += bytes;
    return 1;
}

static void device_free(struct canvas_device *device)
{
    free(device->level_fraction);
    free(device->slot_steps);
    free(device->slot_partial);
    free(device);
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
    for (size_t i = 0; i < canvas->device_count; i++)
        device_free(canvas->devices[i]);
    free(canvas->lanes);
    free(canvas->devices);
    free(canvas->lane_slots);
    key_index_free(&canvas->device_index);
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

static int lane_matches(const struct canvas_lane *lane, enum canvas_lane_kind kind, int64_t process_id,
                        int64_t a, int64_t b)
{
    if (lane->kind != kind || lane->process_id != process_id)
        return 0;
    if (kind == CANVAS_LANE_GPU)
        return lane->device_id == a && lane->stream_id == b;
    return lane->thread_id == a && lane->depth == b;
}

static size_t lane_hash(enum canvas_lane_kind kind, int64_t process_id, int64_t a, int64_t b)
{
    uint64_t h = (uint64_t)kind * 0x9E3779B97F4A7C15ull;
    h = (h ^ (uint64_t)process_id) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (uint64_t)a) * 0x94D049BB133111EBull;
    h = (h ^ (uint64_t)b) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29));
}

static size_t lane_key_hash(const struct canvas_lane *lane)
{
    return lane->kind == CANVAS_LANE_GPU
               ? lane_hash(lane->kind, lane->process_id, lane->device_id, lane->stream_id)
               : lane_hash(lane->kind, lane->process_id, lane->thread_id, lane->depth);
}

/* Rebuilds the lane table at twice the size, keeping it at most half full. */
static int grow_lane_slots(struct canvas *canvas)
{
    size_t capacity = canvas->lane_slot_capacity ? canvas->lane_slot_capacity * 2 : 64;
    size_t *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < canvas->lane_count; i++) {
        size_t slot = lane_key_hash(canvas->lanes[i]) & (capacity - 1);
        while (slots[slot])
            slot = (slot + 1) & (capacity - 1);
        slots[slot] = i + 1;
    }
    free(canvas->lane_slots);
    canvas->lane_slots = slots;
    canvas->lane_slot_capacity = capacity;
    return 0;
}

struct device_key {
    const struct canvas *canvas;
    int64_t process_id, device_id;
};

static int device_matches(const void *context, size_t position)
{
    const struct device_key *key = context;
    const struct canvas_device *device = key->canvas->devices[position];
    return device->process_id == key->process_id && device->device_id == key->device_id;
}

struct canvas_device *canvas_find_device(const struct canvas *canvas, int64_t process_id, int64_t device_id)
{
    struct device_key key = {canvas, process_id, device_id};
    long found = key_index_find(&canvas->device_index, key_index_hash(process_id, device_id, 0, 0),
                                device_matches, &key);
    return found >= 0 ? canvas->devices[found] : NULL;
}

static struct canvas_device *find_or_add_device(struct canvas *canvas, int64_t process_id, int64_t device_id)
{
    struct canvas_device *found = canvas_find_device(canvas, process_id, device_id);
    if (found)
        return found;
    if (!take_budget(canvas, canvas_device_bytes(canvas->columns)))
        return NULL;
    struct canvas_device *device = calloc(1, sizeof *device);
    if (!device)
        return NULL;
    size_t slots = (size_t)canvas->columns * CANVAS_SLOTS_PER_COLUMN;
    device->process_id = process_id;
    device->device_id = device_id;
    device->level_fraction = calloc((size_t)canvas->columns * 4, sizeof *device->level_fraction);
    device->slot_steps = calloc(slots + 1, sizeof *device->slot_steps);
    device->slot_partial = calloc(slots, sizeof *device->slot_partial);
    if (!device->level_fraction || !device->slot_steps || !device->slot_partial ||
        append_pointer((void ***)&canvas->devices, &canvas->device_count, &canvas->device_capacity, device) !=
            0) {
        device_free(device);
        return NULL;
    }
    if (key_index_add(&canvas->device_index, key_index_hash(process_id, device_id, 0, 0),
                      canvas->device_count - 1) != 0) {
        canvas->device_count--;
        device_free(device);
        return NULL;
    }
    return device;
}

static struct canvas_lane *new_lane(struct canvas *canvas, enum canvas_lane_kind kind, int64_t process_id,
                                    int64_t a, int64_t b)
{
    if (!take_budget(canvas, canvas_lane_bytes(canvas->columns,
                                               kind == CANVAS_LANE_GPU ? ANALYSIS_CATEGORY_COUNT : 1)))
        return NULL;
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
        lane->device = find_or_add_device(canvas, process_id, a);
    } else {
        lane->thread_id = a;
        lane->depth = b;
        lane->kind_offset = kind == CANVAS_LANE_HOST ? PALETTE_HOST_API : PALETTE_NVTX;
        lane->kind_count = 1;
    }
    lane->coverage = calloc((size_t)canvas->columns * (size_t)lane->kind_count, sizeof *lane->coverage);
    if (!lane->coverage || (kind == CANVAS_LANE_GPU && !lane->device)) {
        free(lane->coverage);
        free(lane);
        return NULL;
    }
    return lane;
}

static struct canvas_lane *find_or_add_lane(struct canvas *canvas, enum canvas_lane_kind kind,
                                            int64_t process_id, int64_t a, int64_t b)
{
    if (canvas->last_lane < canvas->lane_count &&
        lane_matches(canvas->lanes[canvas->last_lane], kind, process_id, a, b))
        return canvas->lanes[canvas->last_lane];
    size_t mask = canvas->lane_slot_capacity - 1, slot = lane_hash(kind, process_id, a, b) & mask;
    for (; canvas->lane_slot_capacity && canvas->lane_slots[slot]; slot = (slot + 1) & mask) {
        size_t index = canvas->lane_slots[slot] - 1;
        if (lane_matches(canvas->lanes[index], kind, process_id, a, b)) {
            canvas->last_lane = index;
            return canvas->lanes[index];
        }
    }
    if ((canvas->lane_count + 1) * 2 > canvas->lane_slot_capacity && grow_lane_slots(canvas) != 0)
        return NULL;
    struct canvas_lane *lane = new_lane(canvas, kind, process_id, a, b);
    if (!lane ||
        append_pointer((void ***)&canvas->lanes, &canvas->lane_count, &canvas->lane_capacity, lane) != 0) {
        if (lane)
            free(lane->coverage);
        free(lane);
        return NULL;
    }
    mask = canvas->lane_slot_capacity - 1;
    for (slot = lane_hash(kind, process_id, a, b) & mask; canvas->lane_slots[slot]; slot = (slot + 1) & mask)
        ;
    canvas->lane_slots[slot] = canvas->lane_count;
    canvas->last_lane = canvas->lane_count - 1;
    return lane;
}

struct canvas_lane *canvas_gpu_lane(struct canvas *canvas, int64_t process_id, int64_t device_id,
                                    int64_t stream_id)
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
    int64_t offset_ns;
    if (__builtin_sub_overflow(time_ns, canvas->window_start_ns, &offset_ns))
        return time_ns > canvas->window_start_ns ? HUGE_VAL : -HUGE_VAL; /* far outside the picture */
    return (double)offset_ns * canvas->columns_per_ns;
}

/* Adds to cells[column * stride + offset] the part of each column that [x0, x1) covers. */
static void spread(float *cells, int stride, int offset, int columns, double x0, double x1)
{
    if (x0 < 0)
        x0 = 0;
    if (x1 > columns)
        x1 = columns;
    if (!(x1 > x0))
        return; /* also NaN */
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

int canvas_keep(struct canvas *canvas, struct canvas_lane *lane, const struct canvas_interval *interval)
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

/* Adds [x0, x1) (in columns, already clipped to the picture) to the device's slots: whole
 * slots through the difference array, the partial ones at either end directly. */
static void count_busy(struct canvas_device *device, int columns, double x0, double x1)
{
    double s0 = x0 * CANVAS_SLOTS_PER_COLUMN, s1 = x1 * CANVAS_SLOTS_PER_COLUMN;
    long slots = (long)columns * CANVAS_SLOTS_PER_COLUMN;
    long first = (long)s0, last = (long)ceil(s1) - 1;
    if (last >= slots)
        last = slots - 1;
    if (first >= slots || last < first)
        return;
    if (first == last) {
        device->slot_partial[first] += (float)(s1 - s0);
        return;
    }
    device->slot_partial[first] += (float)(first + 1 - s0);
    device->slot_partial[last] += (float)(s1 - last);
    if (last > first + 1) {
        device->slot_steps[first + 1]++;
        device->slot_steps[last]--;
    }
}

int canvas_add(struct canvas *canvas, struct canvas_lane *lane, const struct canvas_interval *interval)
{
    int64_t start =
        interval->start_ns > canvas->window_start_ns ? interval->start_ns : canvas->window_start_ns;
    int64_t end = interval->end_ns < canvas->window_end_ns ? interval->end_ns : canvas->window_end_ns;
    if (end < start || interval->end_ns < canvas->window_start_ns ||
        interval->start_ns > canvas->window_end_ns)
        return 0;
    int offset = interval->kind - lane->kind_offset;
    if (offset < 0 || offset >= lane->kind_count)
        offset = 0;
    double x0 = canvas_column_of(canvas, start), x1 = canvas_column_of(canvas, end);
    if (lane->device) {
        count_busy(lane->device, canvas->columns, x0 < 0 ? 0 : x0, x1);
        lane->device->interval_count++;
    }
    if (x1 <= x0)
        x1 = x0 + MINIMUM_COLUMNS;
    spread(lane->coverage, lane->kind_count, offset, canvas->columns, x0, x1);
    int kind = interval->kind < PALETTE_KIND_COUNT ? interval->kind : 0;
    lane->busy_ns[kind] += end - start;
    lane->intervals_by_kind[kind]++;
    lane->interval_count++;
    if (x1 - x0 >= canvas->keep_min_columns)
        return canvas_keep(canvas, lane, interval);
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

/* --- concurrency --- */

void canvas_finish(struct canvas *canvas)
{
    const float slot_fraction = 1.0f / CANVAS_SLOTS_PER_COLUMN;
    for (size_t d = 0; d < canvas->device_count; d++) {
        struct canvas_device *device = canvas->devices[d];
        int32_t whole = 0;
        for (int column = 0; column < canvas->columns; column++) {
            float *levels = device->level_fraction + (size_t)column * 4;
            memset(levels, 0, 4 * sizeof *levels);
            for (int i = 0; i < CANVAS_SLOTS_PER_COLUMN; i++) {
                size_t slot = (size_t)column * CANVAS_SLOTS_PER_COLUMN + (size_t)i;
                whole += device->slot_steps[slot];
                long busy = lroundf((float)whole + device->slot_partial[slot]);
                levels[busy < 0 ? 0 : busy > 3 ? 3 : busy] += slot_fraction;
            }
        }
    }
}
