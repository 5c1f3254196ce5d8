/* analysis_selection.h: the one resolved selection (which rank, device and stream; which stretch of
 * GPU time) that every output of a command shares. The analyzer resolves it once, in analysis_run,
 * from the options the CLI parsed (a --window relative to the first GPU activity, a --step or a
 * --range turned into GPU time), and hands it over in analysis_result.selection: the report prints
 * it, the picture draws it (timeline_options.selection) and the export cuts its slices to it.
 * Before an analysis has run (a picture's steady state is chosen first) the ids alone are known
 * and the window is open (analysis_selection_of). */
#ifndef OVERLAPSCOPE_ANALYSIS_SELECTION_H
#define OVERLAPSCOPE_ANALYSIS_SELECTION_H

#include <stdint.h>

struct analysis_options;

struct analysis_selection {
    int64_t rank;                           /* -1: every rank */
    int64_t device_id, stream_id;           /* -1: every device, every stream */
    int64_t window_start_ns, window_end_ns; /* absolute trace times of the GPU time analyzed; STORE_NULL:
                                               open (the first / last GPU activity), before an analysis */
    int time_restricted; /* the selection cut the run in time (a window, a step, a range): the devices'
                            spans are the selection's, the what-if's replay is of the whole operations
                            it met, which may reach outside it */
};

/* The selection options name before any analysis: their rank, device and stream, the window open.
 * options may be NULL (everything). */
struct analysis_selection analysis_selection_of(const struct analysis_options *options);

#endif
