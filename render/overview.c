/* overview.c: see overview.h.
 *
 * Table render_overview (created with the trace: store/schema.sql; written and read through
 * store/queries_overview.h), one row per part (docs/trace-format.md):
 *   what 0, the header: start_ns, end_ns (the trace's first GPU start and last GPU end),
 *     columns, and kernels_rowid, memcpys_rowid, memsets_rowid: each table's largest rowid when
 *     the overview was built (a trace that grew since has a stale overview);
 *   what 1, a device: process_id, device_id, interval_count, cells = columns x 4 bytes, the
 *     share of each column (in 255ths) with 0, 1, 2, 3+ of its streams busy;
 *   what 2, a stream lane: process_id, device_id, stream_id, interval_count, kinds (bit k: the
 *     lane ran category k), busy and counts (little-endian int64 per kind present, in bit
 *     order: busy ns and intervals), cells = columns x kinds present bytes (coverage in 255ths),
 *     kept = the wide intervals, KEPT_RECORD_BYTES each. */
#include "overview.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_devices.h"
#include "queries_overview.h"
#include "reader.h"

enum { LEVELS = 4 };
#define KEPT_RECORD_BYTES 34 /* start, end, detail_a, detail_b (int64 each), kind, detail (a byte each) */
#define MIN_COLUMNS 1024
#define MAX_COLUMNS (1 << 20)

static void put_int64(unsigned char *out, int64_t value)
{
    uint64_t bits = (uint64_t)value;
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(bits >> (8 * i));
}

static int64_t get_int64(const unsigned char *in)
{
    uint64_t bits = 0;
    for (int i = 7; i >= 0; i--)
        bits = bits << 8 | in[i];
    return (int64_t)bits;
}

/* A coverage fraction in 255ths; anything that ran keeps at least one step. */
static unsigned char quantize(float fraction)
{
    if (!(fraction > 0))
        return 0;
    long steps = lroundf((fraction > 1 ? 1 : fraction) * 255.0f);
    return (unsigned char)(steps < 1 ? 1 : steps);
}

/* --- building --- */

/* The whole GPU span read into a canvas of `columns` columns (reader_read: one scan, two when
 * the estimated end was short). */
static struct canvas *read_whole(store *trace, int columns, int64_t start_ns, error_info *err)
{
    int64_t end_ns = 0, last_end_ns = STORE_NULL;
    if (store_gpu_devices_estimate_last_end(trace, &end_ns, err) != 0)
        return NULL;
    struct reader_selection selection = {.rank = -1, .device_id = -1, .stream_id = -1};
    return reader_read(trace, &selection, start_ns, end_ns > start_ns ? end_ns : start_ns + 1, 1, columns,
                       OVERVIEW_KEEP_MIN_COLUMNS, &last_end_ns, err);
}

/* Columns for this many lanes and devices within the memory budget, halving from the most; 0
 * when even MIN_COLUMNS would pass it (the stored cells shrink with the columns too). */
static int columns_for(int columns, int64_t lanes, int64_t devices)
{
    for (; columns >= MIN_COLUMNS; columns /= 2) {
        double bytes = (double)lanes * (double)canvas_lane_bytes(columns, ANALYSIS_CATEGORY_COUNT) +
                       (double)devices * (double)canvas_device_bytes(columns);
        if (bytes <= OVERVIEW_BUILD_BUDGET_BYTES)
            return columns;
    }
    return 0;
}

static int write_device(struct store_overview_writer *w, const struct canvas *canvas,
                        const struct canvas_device *device, unsigned char *buffer, error_info *err)
{
    for (size_t i = 0; i < (size_t)canvas->columns * LEVELS; i++)
        buffer[i] = quantize(device->level_fraction[i]);
    struct store_overview_part part = {.what = STORE_OVERVIEW_DEVICE,
                                       .process_id = device->process_id,
                                       .device_id = device->device_id,
                                       .interval_count = device->interval_count,
                                       .cells = buffer,
                                       .cells_bytes = (size_t)canvas->columns * LEVELS};
    return store_overview_write_part(w, &part, err);
}

static int write_lane(struct store_overview_writer *w, const struct canvas *canvas,
                      const struct canvas_lane *lane, unsigned char *buffer, error_info *err)
{
    int kinds[ANALYSIS_CATEGORY_COUNT], kind_count = 0;
    unsigned mask = 0;
    for (int k = 0; k < ANALYSIS_CATEGORY_COUNT && k < lane->kind_count; k++)
        if (lane->intervals_by_kind[k] > 0) {
            kinds[kind_count++] = k;
            mask |= 1u << k;
        }
    unsigned char busy[8 * ANALYSIS_CATEGORY_COUNT], counts[8 * ANALYSIS_CATEGORY_COUNT];
    for (int i = 0; i < kind_count; i++) {
        put_int64(busy + 8 * i, lane->busy_ns[kinds[i]]);
        put_int64(counts + 8 * i, lane->intervals_by_kind[kinds[i]]);
    }
    for (int column = 0; column < canvas->columns; column++)
        for (int i = 0; i < kind_count; i++)
            buffer[(size_t)column * (size_t)kind_count + (size_t)i] =
                quantize(lane->coverage[(size_t)column * (size_t)lane->kind_count + (size_t)kinds[i]]);
    unsigned char *kept = malloc(lane->kept_count * KEPT_RECORD_BYTES + 1);
    if (!kept)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < lane->kept_count; i++) {
        const struct canvas_interval *interval = &lane->kept[i];
        unsigned char *record = kept + i * KEPT_RECORD_BYTES;
        put_int64(record, interval->start_ns);
        put_int64(record + 8, interval->end_ns);
        put_int64(record + 16, interval->detail_a);
        put_int64(record + 24, interval->detail_b);
        record[32] = interval->kind;
        record[33] = interval->detail;
    }
    struct store_overview_part part = {.what = STORE_OVERVIEW_LANE,
                                       .process_id = lane->process_id,
                                       .device_id = lane->device_id,
                                       .stream_id = lane->stream_id,
                                       .interval_count = lane->interval_count,
                                       .kinds = mask,
                                       .busy = busy,
                                       .counts = counts,
                                       .cells = buffer,
                                       .kept = kept,
                                       .busy_bytes = 8 * (size_t)kind_count,
                                       .counts_bytes = 8 * (size_t)kind_count,
                                       .cells_bytes = (size_t)canvas->columns * (size_t)kind_count,
                                       .kept_bytes = lane->kept_count * KEPT_RECORD_BYTES};
    int status = store_overview_write_part(w, &part, err);
    free(kept);
    return status;
}

static int write_overview(store *trace, const struct canvas *canvas, const int64_t rowids[3], error_info *err)
{
    unsigned char *buffer = malloc((size_t)canvas->columns * ANALYSIS_CATEGORY_COUNT);
    if (!buffer)
        return error_set(err, "out of memory");
    struct store_overview_writer *w = NULL;
    struct store_overview_header header = {
        .start_ns = canvas->window_start_ns, .end_ns = canvas->window_end_ns, .columns = canvas->columns};
    for (int i = 0; i < 3; i++)
        header.gpu_rowids[i] = rowids[i];
    int status = store_overview_writer_open(trace, &w, err);
    if (status == 0)
        status = store_overview_write_header(w, &header, err);
    for (size_t i = 0; i < canvas->device_count && status == 0; i++)
        status = write_device(w, canvas, canvas->devices[i], buffer, err);
    for (size_t i = 0; i < canvas->lane_count && status == 0; i++)
        if (canvas->lanes[i]->kind == CANVAS_LANE_GPU)
            status = write_lane(w, canvas, canvas->lanes[i], buffer, err);
    store_overview_writer_close(w);
    free(buffer);
    return status;
}

int overview_build(store *trace, int64_t min_rows, int columns, error_info *err)
{
    if (columns == 0)
        columns = OVERVIEW_COLUMNS;
    if (columns < MIN_COLUMNS || columns > MAX_COLUMNS)
        return error_set(err, "an overview of %d columns (%d to %d)", columns, MIN_COLUMNS, MAX_COLUMNS);
    /* The table is the store's (store/schema.sql); a trace written before it was has none. */
    if (store_overview_clear(trace, err) != 0)
        return -1;
    int64_t rowids[3];
    store_overview_gpu_rowids(trace, rowids);
    if (rowids[0] + rowids[1] + rowids[2] < min_rows)
        return 0;
    struct store_gpu_device *devices = NULL;
    size_t device_count = 0;
    if (store_list_gpu_devices(trace, &devices, &device_count, err) != 0)
        return -1;
    int64_t start_ns = store_gpu_devices_first_start(devices, device_count);
    free(devices);
    if (device_count == 0)
        return 0;
    int64_t lanes = store_overview_stream_count(trace);
    if (lanes <= 0)
        lanes = 64;
    int fitting = columns_for(columns, lanes, (int64_t)device_count);
    if (fitting == 0)
        return error_set(err,
                         "%" PRId64 " streams on %zu devices pass the limit of %zu MiB even at %d columns"
                         " (docs/security.md)",
                         lanes, device_count, OVERVIEW_BUILD_BUDGET_BYTES >> 20, MIN_COLUMNS);
    /* The canvas enforces the same budget, should the streams table have undercounted. */
    struct canvas *canvas = read_whole(trace, fitting, start_ns, err);
    if (!canvas)
        return -1;
    int status = -1;
    if (store_begin(trace, err) == 0) {
        status = write_overview(trace, canvas, rowids, err);
        if (status == 0)
            status = store_commit(trace, err);
        else
            store_rollback(trace);
    }
    canvas_free(canvas);
    return status;
}

int overview_build_or_warn(store *trace, error_info *err)
{
    error_info why;
    if (overview_build(trace, OVERVIEW_MIN_ROWS, 0, &why) == 0)
        return 0;
    store_overview_clear(trace, NULL);
    char message[sizeof why.message + 64];
    snprintf(message, sizeof message, "no overview for fast pictures: %s", why.message);
    struct store_warning warning = {
        .process_id = STORE_NULL, .time_ns = STORE_NULL, .code = "overview-skipped", .message = message};
    if (store_begin(trace, err) != 0 || store_insert_warning(trace, &warning, err) != 0)
        return -1;
    return store_commit(trace, err);
}

/* --- reading --- */

struct header {
    int64_t start_ns, end_ns;
    int columns;
};

/* 1 and the header when the trace has a current overview, 0 when none (or stale), -1 damaged. */
static int read_header(store *trace, struct header *header, error_info *err)
{
    struct store_overview_header stored;
    int status = store_overview_read_header(trace, &stored, err);
    if (status != 1)
        return status;
    header->start_ns = stored.start_ns;
    header->end_ns = stored.end_ns;
    if (stored.columns < MIN_COLUMNS || stored.columns > MAX_COLUMNS || header->end_ns <= header->start_ns ||
        !store_interval_plausible(header->start_ns, header->end_ns))
        return error_set(err,
                         "the trace is damaged: its overview header is impossible (%" PRId64
                         " columns from %" PRId64 " ns to %" PRId64 " ns)",
                         stored.columns, header->start_ns, header->end_ns);
    header->columns = (int)stored.columns;
    int64_t now[3];
    store_overview_gpu_rowids(trace, now);
    return stored.gpu_rowids[0] == now[0] && stored.gpu_rowids[1] == now[1] && stored.gpu_rowids[2] == now[2];
}

int overview_span(store *trace, int64_t *start_ns, int64_t *end_ns, error_info *err)
{
    struct header header = {0, 0, 0};
    int status = read_header(trace, &header, err);
    if (status == 1) {
        *start_ns = header.start_ns;
        *end_ns = header.end_ns;
    }
    return status;
}

/* An overview column that does not lie wholly inside one canvas column: at an edge between two
 * (an overview column is at most 1/8 of a canvas column, so it meets two at most), or at an end
 * of the window. */
struct straddler {
    int column;        /* the overview column */
    int first;         /* the canvas column it starts in */
    float part_first;  /* the part of that canvas column it covers */
    float part_second; /* and of the next one */
    float inside;      /* the part of the overview column inside the window (0 to 1) */
};

/* Where the overview's columns fall on the canvas, worked out once per picture. */
struct mapping {
    double column_ns; /* ns per overview column */
    int columns;      /* overview columns */
    int whole;        /* the canvas window holds the overview's whole span */
    float step_x;     /* canvas columns per overview column */
    int canvas_columns;
    int *plain_from, *plain_to; /* per canvas column: the overview columns wholly inside it */
    struct straddler *straddlers;
    int straddler_count;
};

static int mapping_init(struct mapping *map, const struct canvas *canvas, int64_t start_ns)
{
    map->canvas_columns = canvas->columns;
    map->plain_from = calloc((size_t)canvas->columns, sizeof *map->plain_from);
    map->plain_to = calloc((size_t)canvas->columns, sizeof *map->plain_to);
    map->straddlers = malloc((size_t)map->columns * sizeof *map->straddlers);
    map->straddler_count = 0;
    if (!map->plain_from || !map->plain_to || !map->straddlers)
        return -1;
    double first_x = canvas_column_of(canvas, start_ns), step_x = map->column_ns * canvas->columns_per_ns;
    map->step_x = (float)step_x;
    for (int column = 0; column < map->columns; column++) {
        double x0 = first_x + column * step_x, x1 = x0 + step_x;
        x0 = x0 < 0 ? 0 : x0;
        x1 = x1 > canvas->columns ? canvas->columns : x1;
        int first = (int)x0;
        if (x1 <= x0 || first >= canvas->columns)
            continue; /* outside the window */
        int split = x1 > first + 1 && first + 1 < canvas->columns;
        float inside = (float)((x1 - x0) / step_x);
        if (split || inside != 1.0f) {
            map->straddlers[map->straddler_count++] =
                (struct straddler){column, first, (float)(split ? first + 1 - x0 : x1 - x0),
                                   (float)(split ? x1 - first - 1 : 0), inside};
        } else { /* overview columns grow with the canvas's: each canvas column's plain ones are a range */
            if (map->plain_to[first] == 0)
                map->plain_from[first] = column;
            map->plain_to[first] = column + 1;
        }
    }
    return 0;
}

static void mapping_free(struct mapping *map)
{
    free(map->plain_from);
    free(map->plain_to);
    free(map->straddlers);
}

/* Adds one stored row of overview cells (cells[column * stride], in 255ths) to canvas cells
 * (out[canvas column * out_stride]), each overview column in proportion to the part of the
 * canvas columns it covers. Most overview columns lie wholly inside one canvas column: their
 * steps are summed as integers over each canvas column's range (a float sum per overview column
 * was most of the time of a whole picture); the few straddlers are split. Returns how many
 * overview columns inside the window held anything; *steps_inside (when not NULL) receives
 * their steps times the part of each inside the window. */
static long resample(const unsigned char *cells, int stride, const struct mapping *map, float *out,
                     int out_stride, double *steps_inside)
{
    long shown = 0;
    double inside = 0;
    const float plain_weight = map->step_x * (1 / 255.0f);
    for (int column = 0; column < map->canvas_columns; column++) {
        unsigned sum = 0, nonzero = 0;
        for (int o = map->plain_from[column]; o < map->plain_to[column]; o++) {
            unsigned steps = cells[(size_t)o * (size_t)stride];
            sum += steps;
            nonzero += steps != 0;
        }
        if (sum) {
            out[(size_t)column * (size_t)out_stride] += (float)sum * plain_weight;
            inside += sum;
            shown += nonzero;
        }
    }
    for (int i = 0; i < map->straddler_count; i++) {
        const struct straddler *edge = &map->straddlers[i];
        unsigned steps = cells[(size_t)edge->column * (size_t)stride];
        if (!steps)
            continue;
        float weight = (float)steps * (1 / 255.0f);
        out[(size_t)edge->first * (size_t)out_stride] += weight * edge->part_first;
        if (edge->part_second > 0)
            out[(size_t)(edge->first + 1) * (size_t)out_stride] += weight * edge->part_second;
        inside += steps * (double)edge->inside;
        shown++;
    }
    if (steps_inside)
        *steps_inside = inside;
    return shown;
}

static int damaged(error_info *err, int64_t part, const char *what)
{
    return error_set(err, "the trace is damaged: render_overview part %lld: %s", (long long)part, what);
}

static int blob_size_is(const unsigned char *data, size_t bytes, size_t size)
{
    return bytes == size && (size == 0 || data != NULL);
}

/* One stream lane's row into the canvas (skipped when nothing of it is in the window). */
static int fill_lane(struct canvas *canvas, const struct store_overview_part *row, const struct mapping *map,
                     error_info *err)
{
    int64_t part = row->part;
    int64_t mask = row->kinds;
    if (mask < 0 || mask >= (1 << ANALYSIS_CATEGORY_COUNT))
        return damaged(err, part, "impossible categories");
    int kinds[ANALYSIS_CATEGORY_COUNT], kind_count = 0;
    for (int k = 0; k < ANALYSIS_CATEGORY_COUNT; k++)
        if (mask & (1 << k))
            kinds[kind_count++] = k;
    size_t kept_bytes = row->kept_bytes;
    if (!blob_size_is(row->busy, row->busy_bytes, 8 * (size_t)kind_count) ||
        !blob_size_is(row->counts, row->counts_bytes, 8 * (size_t)kind_count) ||
        !blob_size_is(row->cells, row->cells_bytes, (size_t)map->columns * (size_t)kind_count) ||
        kept_bytes % KEPT_RECORD_BYTES != 0 || (kept_bytes > 0 && !row->kept))
        return damaged(err, part, "a stream lane's data has the wrong size");
    const unsigned char *busy = row->busy, *counts = row->counts;
    const unsigned char *cells = row->cells, *kept = row->kept;

    /* Into a scratch row first: the lane is added to the canvas only if it shows something. */
    float *coverage = calloc((size_t)canvas->columns * ANALYSIS_CATEGORY_COUNT, sizeof *coverage);
    if (!coverage)
        return error_set(err, "out of memory");
    int64_t busy_ns[ANALYSIS_CATEGORY_COUNT] = {0}, count[ANALYSIS_CATEGORY_COUNT] = {0};
    double busy_steps[ANALYSIS_CATEGORY_COUNT] = {0};
    int shown = 0;
    for (int i = 0; i < kind_count; i++) {
        long columns_shown = resample(cells + i, kind_count, map, coverage + kinds[i],
                                      ANALYSIS_CATEGORY_COUNT, map->whole ? NULL : &busy_steps[i]);
        shown |= columns_shown > 0;
        /* Outside the whole span, estimates (overwritten by the stored exact figures below when
         * the window holds it): busy from the steps, and the columns that ran it for the count. */
        busy_ns[kinds[i]] = llround(busy_steps[i] / 255.0 * map->column_ns);
        count[kinds[i]] = columns_shown;
    }
    for (int i = 0; i < kind_count && map->whole; i++) {
        busy_ns[kinds[i]] = get_int64(busy + 8 * i);
        count[kinds[i]] = get_int64(counts + 8 * i);
        if (busy_ns[kinds[i]] < 0 || count[kinds[i]] < 0) {
            free(coverage);
            return damaged(err, part, "negative busy time or count");
        }
    }
    size_t kept_count = kept_bytes / KEPT_RECORD_BYTES;
    for (size_t i = 0; i < kept_count; i++) {
        const unsigned char *record = kept + i * KEPT_RECORD_BYTES;
        int64_t start = get_int64(record), end = get_int64(record + 8);
        if (!store_interval_plausible(start, end) || record[32] >= ANALYSIS_CATEGORY_COUNT ||
            record[33] > CANVAS_DETAIL_STRING) {
            free(coverage);
            return damaged(err, part, "an impossible interval");
        }
        if (end >= canvas->window_start_ns && start <= canvas->window_end_ns)
            shown = 1;
    }
    int status = 0;
    struct canvas_lane *lane = NULL;
    if (shown) {
        lane = canvas_gpu_lane(canvas, row->process_id, row->device_id, row->stream_id);
        if (!lane)
            status = canvas_over_budget(canvas) ? canvas_budget_error(canvas, err)
                                                : error_set(err, "out of memory");
    }
    if (lane) {
        memcpy(lane->coverage, coverage,
               (size_t)canvas->columns * ANALYSIS_CATEGORY_COUNT * sizeof *coverage);
        for (int k = 0; k < ANALYSIS_CATEGORY_COUNT; k++) {
            lane->busy_ns[k] += busy_ns[k];
            lane->intervals_by_kind[k] += count[k];
            lane->interval_count += count[k];
            lane->device->interval_count += count[k];
        }
        for (size_t i = 0; i < kept_count && status == 0; i++) {
            const unsigned char *record = kept + i * KEPT_RECORD_BYTES;
            struct canvas_interval interval = {get_int64(record),
                                               get_int64(record + 8),
                                               get_int64(record + 16),
                                               get_int64(record + 24),
                                               record[32],
                                               record[33]};
            /* As canvas_add: the width inside the window decides. */
            int64_t start =
                interval.start_ns > canvas->window_start_ns ? interval.start_ns : canvas->window_start_ns;
            int64_t end = interval.end_ns < canvas->window_end_ns ? interval.end_ns : canvas->window_end_ns;
            double x0 = canvas_column_of(canvas, start), x1 = canvas_column_of(canvas, end);
            if (interval.end_ns >= canvas->window_start_ns && interval.start_ns <= canvas->window_end_ns &&
                x1 - x0 >= canvas->keep_min_columns && canvas_keep(canvas, lane, &interval) != 0)
                status = error_set(err, "out of memory");
        }
    }
    free(coverage);
    return status;
}

/* One device's concurrency row into the canvas device of the same key (when a lane made one). */
static int fill_device(struct canvas *canvas, const struct store_overview_part *row,
                       const struct mapping *map, error_info *err)
{
    if (!blob_size_is(row->cells, row->cells_bytes, (size_t)map->columns * LEVELS))
        return damaged(err, row->part, "a device's data has the wrong size");
    struct canvas_device *device = canvas_find_device(canvas, row->process_id, row->device_id);
    if (!device)
        return 0;
    const unsigned char *cells = row->cells;
    for (int level = 0; level < LEVELS; level++)
        resample(cells + level, LEVELS, map, device->level_fraction + level, LEVELS, NULL);
    /* Where the window reaches beyond the trace nothing ran: level 0. */
    for (int column = 0; column < canvas->columns; column++) {
        float *levels = device->level_fraction + (size_t)column * LEVELS;
        float total = levels[0] + levels[1] + levels[2] + levels[3];
        if (total < 1)
            levels[0] += 1 - total;
    }
    return 0;
}

/* What overview_fill hands each stored row to. */
struct fill {
    struct canvas *canvas;
    const struct mapping *map;
    struct reader_process_filter filter;
    error_info *err;
};

static int fill_part(void *context, const struct store_overview_part *row)
{
    struct fill *fill = context;
    if (!reader_process_selected(&fill->filter, row->process_id))
        return 0;
    return row->what == STORE_OVERVIEW_LANE ? fill_lane(fill->canvas, row, fill->map, fill->err)
                                            : fill_device(fill->canvas, row, fill->map, fill->err);
}

int overview_fill(struct canvas *canvas, store *trace, int64_t rank, int64_t *trace_end_ns, error_info *err)
{
    struct header header = {0, 0, 0};
    int usable = read_header(trace, &header, err);
    if (usable != 1)
        return usable;
    double canvas_column_ns =
        ((double)canvas->window_end_ns - (double)canvas->window_start_ns) / canvas->columns;
    struct mapping map = {0};
    map.columns = header.columns;
    map.column_ns = ((double)header.end_ns - (double)header.start_ns) / header.columns;
    if (map.column_ns * OVERVIEW_MIN_RATIO > canvas_column_ns)
        return 0; /* too coarse for this picture: scan */
    map.whole = canvas->window_start_ns <= header.start_ns && canvas->window_end_ns >= header.end_ns;
    if (mapping_init(&map, canvas, header.start_ns) != 0) {
        mapping_free(&map);
        return error_set(err, "out of memory");
    }

    struct fill fill = {.canvas = canvas, .map = &map, .err = err};
    if (reader_process_filter_load(&fill.filter, trace, rank, err) != 0) {
        mapping_free(&map);
        return -1;
    }
    /* Lanes first: they create the canvas devices the device rows then fill. */
    int status = store_overview_each_part(trace, STORE_OVERVIEW_LANE, fill_part, &fill, err);
    if (status == 0)
        status = store_overview_each_part(trace, STORE_OVERVIEW_DEVICE, fill_part, &fill, err);
    reader_process_filter_free(&fill.filter);
    mapping_free(&map);
    if (status != 0)
        return -1;
    *trace_end_ns = header.end_ns;
    return 1;
}
