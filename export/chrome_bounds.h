/* chrome_bounds.h: the bounds the Chrome trace-event export keeps and the counts it reports
 * (chrome_export.h says what they mean for the user). In a header of their own because the
 * exporter's public header and its writer (chrome_writer.h) both need them: the writer then
 * depends on the bounds, not back on the exporter that uses it. */
#ifndef OVERLAPSCOPE_CHROME_BOUNDS_H
#define OVERLAPSCOPE_CHROME_BOUNDS_H

#include <stdint.h>

#define CHROME_EXPORT_NAME_BYTES 256
#define CHROME_EXPORT_TEXT_BYTES 4096
#define CHROME_EXPORT_BYTES_PER_ROW 8192
#define CHROME_EXPORT_BASE_BYTES 65536

struct chrome_export_counts {
    int64_t complete_events, instant_events, flow_events, metadata_events;
    int64_t launch_arrows, wait_slices, wait_arrows;
    int64_t origin_ns;              /* time zero, absolute nanoseconds */
    int64_t left_out_before_origin; /* slices that ended before time zero (or outside from/to) */
    int64_t cut_at_origin;          /* slices that began before time zero, cut at it */
    int64_t implausible_rows;       /* rows whose times no recording has (store_interval_plausible) */
    int64_t overflow_tracks;        /* tracks added so that no slice partially overlaps another (waits'
                                       second tracks, normal, not counted) */
    int64_t shared_correlation_ids; /* ids several API calls of one process carry: linked to the first */
    int64_t launches_before_call;   /* GPU ops that began before their launch call (clock skew): no arrow */
    int64_t waits_without_arrow;    /* waits whose ops are not slices of the export */
    int64_t texts_cut;              /* names and texts cut to their bound */
    int64_t bytes;                  /* size of the JSON written */
    int64_t byte_limit;             /* the bound it was checked against */
};

#endif
