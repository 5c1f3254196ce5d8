/* chrome_export.h: writing a trace and its analysis as Chrome trace-event JSON, for Perfetto
 * (ui.perfetto.dev) and chrome://tracing. docs/overlapscope-export.md is the user's description.
 *
 * Layout: each process (rank) is a pid, named "rank R pid P (host)". Its tracks (tids, numbered by
 * the export) are, per GPU: "GPU D waits" (one slice per wait the analyzer found, named by its
 * cause), "GPU D idle and exposed communication" (the analyzer's time accounting, one slice per
 * stretch of one cause), then one track per stream (kernels, copies, memsets) and its NVTX annotations; then
 * the process's CUDA synchronizations; then per host thread its CUDA API calls and its NVTX ranges. No two
 * slices of one track partially overlap (chrome_tracks.h adds overflow tracks when the data would). Every GPU
 * op is linked to the API call that launched it by a flow arrow ("ac2g"), and every wait by a flow from the
 * blocking op through the wait's slice to the waiting op.
 *
 * Time zero is the report's (the analyzer's origin, the trace's first GPU activity) unless the
 * caller asks for the trace's first activity of any kind; activity before time zero is left out or
 * cut at it, and counted. Times are microseconds written from integer nanoseconds with three
 * decimals, so nothing is lost to floating point.
 *
 * Bounds (issue 20, Must 3; the figures in chrome_bounds.h): every text is cut to
 * CHROME_EXPORT_NAME_BYTES (names) or CHROME_EXPORT_TEXT_BYTES (full names, evidence) of JSON; a GPU op gets
 * at most one launch arrow (from the first API call of its correlation id), so the output never exceeds
 * CHROME_EXPORT_BYTES_PER_ROW bytes per row read from the trace (and per wait) plus
 * CHROME_EXPORT_BASE_BYTES; the writer checks it as it goes.
 *
 * The output is written to a temporary file and renamed into place (output_file.h); a name ending
 * in ".gz" is written gzip-compressed. */
#ifndef OVERLAPSCOPE_CHROME_EXPORT_H
#define OVERLAPSCOPE_CHROME_EXPORT_H

#include <stdint.h>

#include "analysis.h"
#include "chrome_bounds.h"
#include "error.h"
#include "store.h"

/* Waits the CLI asks the analyzer to keep for the export (the largest; totals count all). */
#define CHROME_EXPORT_MAX_WAITS 10000

enum chrome_export_origin {
    CHROME_EXPORT_ORIGIN_REPORT = 0, /* the analyzer's origin: "+166 ms" in the report is at 166 ms */
    CHROME_EXPORT_ORIGIN_TRACE = 1   /* the first activity of any kind: nothing left out */
};

struct chrome_export_options {
    enum chrome_export_origin origin;
    /* Hook for the shared --window/--range options: the part of the trace exported, in absolute
     * nanoseconds (INT64_MIN / INT64_MAX: all of it after time zero). Slices are cut to it. */
    int64_t from_ns, to_ns;
};
void chrome_export_options_init(struct chrome_export_options *options);

/* Writes trace to output_path ("-" for stdout, written directly). analysis is the analyzer's
 * result for the whole trace (NULL when the trace has no GPU activity: then time zero is its first
 * activity and there are no waits); options may be NULL (defaults). Returns 0 and fills counts (may
 * be NULL), or -1 with err filled. */
int chrome_export_write(store *trace, const struct analysis_result *analysis,
                        const struct chrome_export_options *options, const char *output_path, int force,
                        struct chrome_export_counts *counts, error_info *err);

#endif
