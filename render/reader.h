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
    int64_t rank;     /* -1: every process */
    int host_calls;   /* 1: add a lane per host thread with its CUDA API calls */
    int nvtx_ranges;  /* 1: add lanes per host thread with its NVTX ranges, one per nesting level */
};

/* A (process, device) that ran GPU intervals, and its first start. */
struct reader_device {
    int64_t process_id, device_id, first_start_ns;
};

/* Every device of the trace with GPU intervals, sorted by (process, device), found by hopping
 * through the by-lane indexes (a few lookups per device, not a scan). Returns 0 and a malloc'd
 * array the caller frees (NULL when there is none), or -1 with err filled. */
int reader_list_devices(sqlite3 *db, struct reader_device **devices, size_t *count, error_info *err);

/* Reads the canvas's window of the trace into it and finishes it (canvas_finish). last_end_ns
 * receives the latest end of any GPU interval in the trace (every rank; STORE_NULL when none),
 * seen on the way. Returns 0, or -1 with err filled. */
int reader_fill(struct canvas *canvas, store *trace, const struct reader_selection *selection, int64_t *last_end_ns,
                error_info *err);

/* A quick estimate of the trace's last GPU end: the latest end among each device's last 64
 * starts (index lookups, no scan). An interval that started earlier can still end later:
 * reader_fill's last_end_ns tells. Returns 0, or -1 with err filled. */
int reader_estimate_last_end(sqlite3 *db, int64_t *last_end_ns, error_info *err);

/* The category of a kernel from its name: an NCCL (or RCCL) kernel is communication. */
enum analysis_category reader_kernel_category(const char *kernel_name);

/* The category of a copy (memcpys.copy_kind, src/dst device; STORE_NULL where unknown). */
enum analysis_category reader_copy_category(int64_t copy_kind, int64_t src_device_id, int64_t dst_device_id);

#endif
