/* reader.h: fills a canvas from a trace: the GPU intervals of every device (kernels, memcpys,
 * memsets, each table scanned once in storage order with only the columns drawn), and
 * optionally the CUDA API calls and NVTX ranges of every host thread. Rows are streamed;
 * nothing but the canvas's accumulators stays in memory. */
#ifndef OVERLAPSCOPE_READER_H
#define OVERLAPSCOPE_READER_H

#include "canvas.h"
#include "error.h"
#include "store.h"

struct reader_selection {
    int64_t rank;                 /* -1: every process */
    int64_t device_id, stream_id; /* -1: every device, every stream */
    int host_calls;               /* 1: add a lane per host thread with its CUDA API calls */
    int nvtx_ranges; /* 1: add lanes per host thread with its NVTX ranges, one per nesting level */
};

/* The processes a --rank selects (all when rank < 0): a small sorted list of process ids. */
struct reader_process_filter {
    int64_t rank;
    int64_t *process_ids;
    size_t count;
    int64_t last_process_id; /* the last answer, for runs of rows of one process */
    int last_selected;
};
/* Loads rank's processes. Returns 0, or -1 with err filled; free with reader_process_filter_free. */
int reader_process_filter_load(struct reader_process_filter *filter, store *trace, int64_t rank,
                               error_info *err);
int reader_process_selected(struct reader_process_filter *filter, int64_t process_id);
void reader_process_filter_free(struct reader_process_filter *filter);

/* Reads the canvas's window of the trace into it and finishes it (canvas_finish). last_end_ns
 * receives the latest end of any GPU interval in the trace (every rank; STORE_NULL when none),
 * seen on the way. Returns 0, or -1 with err filled. */
int reader_fill(struct canvas *canvas, store *trace, const struct reader_selection *selection,
                int64_t *last_end_ns, error_info *err);

/* A new canvas of `columns` over [start_ns, end_ns), filled by reader_fill. When end_is_estimate
 * and an interval outlasted end_ns, reads again up to the true end (one scan in the usual case,
 * two at worst). Returns the canvas, or NULL with err filled. */
struct canvas *reader_read(store *trace, const struct reader_selection *selection, int64_t start_ns,
                           int64_t end_ns, int end_is_estimate, int columns, double keep_min_columns,
                           int64_t *last_end_ns, error_info *err);

#endif
