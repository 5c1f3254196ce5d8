/* canvas.h: what a timeline shows, reduced to pixel columns before anything is drawn.
 *
 * Every interval of the window lands in per-lane accumulators of one cell per pixel column:
 * the fraction of the column each category covered. Intervals narrower than a pixel therefore
 * add up (a burst of 10,000 short kernels fills its column) instead of being dropped, and
 * memory grows with lanes x columns, not with the trace. Intervals wide enough to be told
 * apart are also kept (up to what the width can show) so they get an outline and a label.
 *
 * Intervals may arrive in any order (the reader scans tables in storage order: sorting ten
 * million rows would cost more than drawing them). Per device, how many streams were busy at
 * once (the concurrency strip) is accumulated without a sweep: each column is cut into
 * CANVAS_SLOTS_PER_COLUMN slots, and a difference array over the slots (plus the partial
 * slots at each interval's ends) gives the summed stream coverage of every slot. A slot's
 * level is that sum rounded (a stream is serial, so the sum is the number of streams busy
 * whenever the intervals fill whole slots; below a slot's width it is the average). */
#ifndef OVERLAPSCOPE_CANVAS_H
#define OVERLAPSCOPE_CANVAS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "key_index.h"
#include "palette.h"

/* What a canvas's lanes and devices may take (their per-column accumulators, the only part that
 * grows with the input): lanes x columns is chosen by whoever wrote the trace, a stream per
 * kernel or a device per kernel (issue 20 item 15: 80k devices took 16.9 GB). A canvas refuses
 * the lane that would pass its budget (canvas_over_budget tells), and the reader fails with one
 * line (canvas_budget_error). docs/security.md states the number. */
#define CANVAS_BUDGET_BYTES ((size_t)256 << 20)
enum canvas_lane_kind { CANVAS_LANE_GPU = 0, CANVAS_LANE_HOST = 1, CANVAS_LANE_NVTX = 2 };

/* Where a kept interval's label comes from (looked up only when it is drawn). */
enum canvas_detail { CANVAS_DETAIL_KERNEL, CANVAS_DETAIL_MEMCPY, CANVAS_DETAIL_MEMSET, CANVAS_DETAIL_STRING };

struct canvas_interval {
    int64_t start_ns, end_ns;
    int64_t detail_a, detail_b; /* kernel: rowid, name_id; memcpy: bytes, copy_kind | pageable << 8;
                                   memset: bytes; string: -, strings.id */
    uint8_t kind;               /* palette kind */
    uint8_t detail;             /* enum canvas_detail */
};

struct canvas_lane {
    enum canvas_lane_kind kind;
    int64_t process_id;
    int64_t device_id, stream_id; /* GPU lanes */
    int64_t thread_id, depth;     /* host and NVTX lanes (depth: NVTX nesting level) */
    float *coverage;              /* columns x kind_count: fraction of the column each kind covered */
    int kind_offset, kind_count;  /* coverage holds kinds kind_offset .. kind_offset + kind_count - 1 */
    int64_t busy_ns[PALETTE_KIND_COUNT]; /* clipped to the window */
    int64_t intervals_by_kind[PALETTE_KIND_COUNT];
    int64_t interval_count;
    struct canvas_interval *kept; /* the wide ones, in the order they came */
    size_t kept_count, kept_capacity;
    struct canvas_device *device; /* GPU lanes: their device's concurrency accumulators */
};

#define CANVAS_SLOTS_PER_COLUMN 16

struct canvas_device {
    int64_t process_id, device_id;
    float *level_fraction; /* columns x 4: fraction of the column with 0, 1, 2, 3+ streams busy
                              (filled by canvas_finish) */
    int32_t *slot_steps;   /* difference array of whole slots covered, columns x slots + 1 */
    float *slot_partial;   /* coverage of the slots an interval only partly covers */
    int64_t interval_count;
};

struct canvas {
    int64_t window_start_ns, window_end_ns;
    int columns;
    double columns_per_ns;
    double keep_min_columns; /* intervals at least this wide are kept for outlines and labels */
    struct canvas_lane **lanes;
    size_t lane_count, lane_capacity;
    struct canvas_device **devices;
    size_t device_count, device_capacity;
    size_t *lane_slots; /* open-addressing table of lane index + 1 (0: empty) by lane key */
    size_t lane_slot_capacity;
    size_t last_lane;              /* lookups often hit the lane of the previous interval */
    struct key_index device_index; /* (process, device) to devices[] */
    size_t budget_bytes, used_bytes;
    int over_budget; /* a lane or device was refused for the budget */
};

/* A canvas of `columns` pixel columns over [window_start_ns, window_end_ns), with a budget of
 * CANVAS_BUDGET_BYTES (canvas_set_budget changes it). Returns NULL when out of memory. Free with
 * canvas_free. */
struct canvas *canvas_new(int64_t window_start_ns, int64_t window_end_ns, int columns,
                          double keep_min_columns);
void canvas_free(struct canvas *canvas);

void canvas_set_budget(struct canvas *canvas, size_t budget_bytes);

/* What a lane of `kind_count` kinds, and a device, cost on a canvas of `columns` columns. */
size_t canvas_lane_bytes(int columns, int kind_count);
size_t canvas_device_bytes(int columns);

/* 1 when a lane was refused for the budget; canvas_budget_error then fills err with the line
 * that says so ("... over the limit of 256 MiB ... (docs/security.md)") and returns -1. */
int canvas_over_budget(const struct canvas *canvas);
int canvas_budget_error(const struct canvas *canvas, error_info *err);

/* The device with this key, or NULL. */
struct canvas_device *canvas_find_device(const struct canvas *canvas, int64_t process_id, int64_t device_id);

/* The lane with this key, created on first use; NULL when out of memory or over the budget
 * (canvas_over_budget). For GPU lanes pass
 * (process, device, stream); host lanes (process, thread); NVTX lanes (process, thread, depth). */
struct canvas_lane *canvas_gpu_lane(struct canvas *canvas, int64_t process_id, int64_t device_id,
                                    int64_t stream_id);
struct canvas_lane *canvas_thread_lane(struct canvas *canvas, enum canvas_lane_kind kind, int64_t process_id,
                                       int64_t thread_id, int64_t depth);

/* Adds one interval to a lane, in any order; a GPU lane's interval also counts in its device's
 * concurrency. Returns -1 when out of memory. */
int canvas_add(struct canvas *canvas, struct canvas_lane *lane, const struct canvas_interval *interval);

/* Keeps an interval for its outline and label without adding it to the columns (render/overview.c
 * fills the columns itself). Returns -1 when out of memory. */
int canvas_keep(struct canvas *canvas, struct canvas_lane *lane, const struct canvas_interval *interval);

/* Turns the devices' slot accumulators into level_fraction; call once, after the last add. */
void canvas_finish(struct canvas *canvas);

/* Fraction of column `column` covered on a lane (all kinds, at most 1) and the kind covering
 * most of it (-1 when empty). */
double canvas_column_coverage(const struct canvas_lane *lane, int column, int *dominant_kind);
/* Column x of time t (may fall outside [0, columns]). */
double canvas_column_of(const struct canvas *canvas, int64_t time_ns);

#endif
