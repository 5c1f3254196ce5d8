/* gpu_devices.h: the (process, device) pairs of a trace that ran GPU work, each with its first
 * start, found by hopping through the by-lane indexes (a few index seeks per device, not a scan).
 * The analyzer, the renderer and the overview all start from this list. */
#ifndef OVERLAPSCOPE_GPU_DEVICES_H
#define OVERLAPSCOPE_GPU_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct store_gpu_device {
    int64_t process_id, device_id;
    int64_t first_start_ns; /* its earliest kernel, copy or memset */
};

/* Every device with kernels, memcpys or memsets, sorted by (process, device). Returns 0 and a
 * malloc'd array the caller frees (NULL when there is none), or -1 with err filled (also when an
 * index is corrupted so that its keys come out of order: walking it would never end). */
int store_list_gpu_devices(store *trace, struct store_gpu_device **devices, size_t *count, error_info *err);

/* The earliest first start among devices: the trace's first GPU activity; STORE_NULL when count
 * is 0. */
int64_t store_gpu_devices_first_start(const struct store_gpu_device *devices, size_t count);

/* The GPU tables of store_gpu_table_rowids and store_gpu_rows_span: 0 kernels, 1 memcpys, 2 memsets. */
#define STORE_GPU_TABLES 3

/* The first and last rowid of GPU table table (two index seeks). Returns 1, 0 when it has no row,
 * or -1 with err filled. */
int store_gpu_table_rowids(store *trace, int table, int64_t *first_rowid, int64_t *last_rowid,
                           error_info *err);

/* First start and last end of the rows of GPU table table whose rowids lie in [first_rowid,
 * last_rowid] (a range of the table read in its order: the chunks of one scan split across
 * workers cost what the one scan costs, where a process's rows through an index cost half as much
 * again; unchecked, see store_gpu_span_check). Returns 1, 0 when the range holds no row, or -1
 * with err filled. */
int store_gpu_rows_span(store *trace, int table, int64_t first_rowid, int64_t last_rowid,
                        int64_t *first_start_ns, int64_t *last_end_ns, error_info *err);

/* A quick estimate of the trace's last GPU end: the latest end among each device's last 64
 * starts (index lookups, no scan). An interval that started earlier can still end later: a
 * reader that scans sees it (reader_fill's last_end_ns). Returns 0, or -1 with err filled (no
 * GPU activity, a read error). */
int store_gpu_devices_estimate_last_end(store *trace, int64_t *last_end_ns, error_info *err);

/* The exact GPU span of devices alone: their earliest start and latest end over kernels, copies
 * and memsets (store_gpu_span's figures for these devices; a scan of their rows, no more). For a
 * process that analyses a share of the devices (analysis_share): the spans of all shares together
 * are the trace's, judged by store_gpu_span_check. Returns 1, 0 when they have no GPU activity,
 * or -1 with err filled. */
int store_gpu_devices_span(store *trace, const struct store_gpu_device *devices, size_t count,
                           int64_t *first_start_ns, int64_t *last_end_ns, error_info *err);

#endif
