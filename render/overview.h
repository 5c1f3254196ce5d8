/* overview.h: a trace's whole GPU timeline reduced once, when the trace is written, to a canvas
 * of OVERVIEW_COLUMNS columns stored in the trace (table render_overview), so that a picture of
 * the whole span of a huge trace reads a few hundred kilobytes instead of every row.
 *
 * Pictures are aggregated per pixel column anyway (canvas.h); the overview keeps that
 * aggregation at a resolution at least OVERVIEW_MIN_RATIO times finer than the picture's, and
 * a picture column becomes the time-weighted sum of the overview columns it spans. Where an
 * overview column straddles a picture column's edge its coverage is split in proportion to
 * time, as if spread evenly: a picture column's coverage is within 2 / ratio of the exact one
 * (ratio = overview columns per picture column, 20 for the whole span of a 1600 px picture),
 * and exact wherever the lane is wholly busy or wholly idle. Coverage is stored in steps of
 * 1/255 (what an 8-bit pixel shows), and anything that ran in a column keeps a non-zero step.
 * Intervals wide enough to get an outline and a label are stored as they are.
 *
 * The overview is used only when it is current (the GPU tables have not grown since it was
 * built), covers the picture's window, is fine enough for it, and no host or NVTX lanes are
 * asked for; otherwise the renderer scans the trace as before. Traces with fewer than
 * OVERVIEW_MIN_ROWS GPU rows get none: scanning them takes milliseconds. */
#ifndef OVERLAPSCOPE_OVERVIEW_H
#define OVERLAPSCOPE_OVERVIEW_H

#include <stdint.h>

#include "canvas.h"
#include "error.h"
#include "store.h"

#define OVERVIEW_COLUMNS 32768
#define OVERVIEW_MIN_ROWS 100000
#define OVERVIEW_MIN_RATIO 8
/* Kept intervals: 3 picture pixels (timeline.c's outline width) at the coarsest ratio. */
#define OVERVIEW_KEEP_MIN_COLUMNS (3.0 * OVERVIEW_MIN_RATIO)
/* Fewer columns when the trace has many lanes, so building stays within this much memory (the
 * canvas's own budget): down to 1024 columns; past that no overview is built, and the tools that
 * finish a trace say why in an `overview-skipped` warning (render then scans). */
#define OVERVIEW_BUILD_BUDGET_BYTES CANVAS_BUDGET_BYTES

/* Builds (or rebuilds) the overview of a finalized trace opened for writing, when it has at
 * least min_rows GPU rows (pass OVERVIEW_MIN_ROWS; tests pass less); otherwise removes any
 * older one. columns: 0 for OVERVIEW_COLUMNS (tests and fuzz seeds ask for as few as 1024);
 * fewer when the trace has so many lanes that building would pass OVERVIEW_BUILD_BUDGET_BYTES.
 * One scan of the GPU tables. Returns 0, or -1 with err filled (the trace is then left without
 * an overview, its rows untouched). */
int overview_build(store *trace, int64_t min_rows, int columns, error_info *err);

/* overview_build for the tools that finish a trace (record, import, merge): the overview is a
 * cache, so failing to build it must not cost the trace. On failure the trace keeps no
 * overview and gets a warning row (code `overview-skipped`) saying why. Returns 0, or -1 with
 * err filled only when even the warning cannot be written. */
int overview_build_or_warn(store *trace, error_info *err);

/* The span of the trace's current overview: returns 1 and its first GPU start and last GPU end,
 * 0 when there is no current overview, -1 with err filled when it is damaged. */
int overview_span(store *trace, int64_t *start_ns, int64_t *end_ns, error_info *err);

/* Fills a new canvas's GPU lanes from the overview, for the processes of `rank` (-1: all), and
 * finishes it, when the overview is current, covers the canvas's window and has at least
 * OVERVIEW_MIN_RATIO columns per canvas column. Returns 1 when filled (*trace_end_ns: the
 * trace's last GPU end), 0 when the overview cannot serve (canvas untouched), -1 with err
 * filled when it is damaged or the trace cannot be read. */
int overview_fill(struct canvas *canvas, store *trace, int64_t rank, int64_t *trace_end_ns, error_info *err);

#endif
