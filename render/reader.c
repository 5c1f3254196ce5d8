/* reader.c: see reader.h. */
#include "reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "gpu_devices.h"
#include "kernel_names.h"
#include "naming.h"

static const char *const table_names[3] = {"kernels", "memcpys", "memsets"};
static const enum store_table gpu_tables[3] = {STORE_TABLE_KERNELS, STORE_TABLE_MEMCPYS, STORE_TABLE_MEMSETS};

int reader_process_filter_load(struct reader_process_filter *filter, store *trace, int64_t rank,
                               error_info *err)
{
    memset(filter, 0, sizeof *filter);
    filter->rank = rank;
    filter->last_process_id = STORE_NULL;
    return rank < 0 ? 0 : store_processes_of_rank(trace, rank, &filter->process_ids, &filter->count, err);
}

int reader_process_selected(struct reader_process_filter *filter, int64_t process_id)
{
    if (filter->rank < 0)
        return 1;
    if (process_id != filter->last_process_id) {
        filter->last_process_id = process_id;
        filter->last_selected = 0;
        for (size_t i = 0; i < filter->count; i++)
            filter->last_selected |= filter->process_ids[i] == process_id;
    }
    return filter->last_selected;
}

void reader_process_filter_free(struct reader_process_filter *filter)
{
    free(filter->process_ids);
    filter->process_ids = NULL;
    filter->count = 0;
}

/* Turns a row of table `index` (0 kernels, 1 memcpys, 2 memsets) into a canvas interval. */
static void decode_gpu_row(const struct store_gpu_row *row, int index, kernel_names *names,
                           struct canvas_interval *interval)
{
    interval->start_ns = row->start_ns;
    interval->end_ns = row->end_ns;
    if (index == 0) {
        interval->detail = CANVAS_DETAIL_KERNEL;
        interval->detail_a = row->rowid;
        interval->detail_b = row->name_id;
        interval->kind = kernel_names_is_communication(names, interval->detail_b, interval->detail_a)
                             ? ANALYSIS_COMMUNICATION
                             : ANALYSIS_COMPUTE;
    } else if (index == 1) {
        int pageable = store_copy_is_pageable(row->src_kind, row->dst_kind);
        int64_t copy_kind = row->copy_kind == STORE_NULL ? 0 : row->copy_kind;
        interval->detail = CANVAS_DETAIL_MEMCPY;
        interval->detail_a = row->bytes == STORE_NULL ? 0 : row->bytes;
        interval->detail_b = copy_kind | (int64_t)pageable << 8;
        interval->kind = (uint8_t)store_copy_category(copy_kind, row->src_device_id, row->dst_device_id);
    } else {
        interval->detail = CANVAS_DETAIL_MEMSET;
        interval->detail_a = row->bytes == STORE_NULL ? 0 : row->bytes;
        interval->detail_b = 0;
        interval->kind = ANALYSIS_MEMSET;
    }
}

/* One GPU table's scan into the canvas. first_start_ns: the first start read (STORE_NULL before
 * any), which every other must lie near. last_end_ns: raised to the latest end seen (any rank,
 * any time), so the caller can tell whether a guessed window end was short. */
struct gpu_scan {
    struct canvas *canvas;
    int index;
    kernel_names *names;
    struct reader_process_filter *filter;
    const struct reader_selection *selection;
    int64_t *first_start_ns, *last_end_ns;
    error_info *err;
};

static int scan_gpu_row(void *context, const struct store_gpu_row *row)
{
    struct gpu_scan *scan = context;
    struct canvas *canvas = scan->canvas;
    int64_t start_ns = row->start_ns, end_ns = row->end_ns, first = *scan->first_start_ns;
    /* Times no recording holds: refused before the per-lane sums of them overflow. */
    if (!store_interval_plausible(start_ns, end_ns) ||
        (first != STORE_NULL &&
         (start_ns - first > STORE_MAX_SPAN_NS || first - start_ns > STORE_MAX_SPAN_NS)))
        return error_set(scan->err,
                         "the trace is damaged: a %s row runs from %" PRId64 " ns to %" PRId64
                         " ns, outside any recording",
                         table_names[scan->index], start_ns, end_ns);
    if (first == STORE_NULL)
        *scan->first_start_ns = start_ns;
    if (end_ns > *scan->last_end_ns)
        *scan->last_end_ns = end_ns;
    if (start_ns > canvas->window_end_ns || end_ns < canvas->window_start_ns)
        return 0;
    const struct reader_selection *selection = scan->selection;
    if (!reader_process_selected(scan->filter, row->process_id) ||
        (selection->device_id >= 0 && row->device_id != selection->device_id) ||
        (selection->stream_id >= 0 && row->stream_id != selection->stream_id))
        return 0;
    struct canvas_interval interval;
    struct canvas_lane *lane = canvas_gpu_lane(canvas, row->process_id, row->device_id, row->stream_id);
    if (lane)
        decode_gpu_row(row, scan->index, scan->names, &interval);
    if (!lane || canvas_add(canvas, lane, &interval) != 0)
        return canvas_over_budget(canvas) ? canvas_budget_error(canvas, scan->err)
                                          : error_set(scan->err, "out of memory");
    return 0;
}

static int fill_devices(struct canvas *canvas, store *trace, const struct reader_selection *selection,
                        int64_t *last_end_ns, error_info *err)
{
    kernel_names *names = NULL;
    struct reader_process_filter filter;
    int status = -1;
    if (reader_process_filter_load(&filter, trace, selection->rank, err) != 0)
        goto done;
    if (!(names = kernel_names_new(store_db(trace), err)))
        goto done;
    int64_t first_start_ns = STORE_NULL;
    for (int table = 0; table < 3; table++) {
        struct gpu_scan scan = {canvas, table, names, &filter, selection, &first_start_ns, last_end_ns, err};
        if (store_scan_gpu_table(trace, gpu_tables[table], scan_gpu_row, &scan, err) != 0)
            goto done;
    }
    status = 0;
done:
    kernel_names_free(names);
    reader_process_filter_free(&filter);
    return status;
}

struct canvas *reader_read(store *trace, const struct reader_selection *selection, int64_t start_ns,
                           int64_t end_ns, int end_is_estimate, int columns, double keep_min_columns,
                           int64_t *last_end_ns, error_info *err)
{
    for (;;) {
        struct canvas *canvas = canvas_new(start_ns, end_ns, columns, keep_min_columns);
        if (!canvas) {
            error_set(err, "out of memory");
            return NULL;
        }
        if (reader_fill(canvas, trace, selection, last_end_ns, err) != 0) {
            canvas_free(canvas);
            return NULL;
        }
        if (!end_is_estimate || *last_end_ns <= end_ns) /* STORE_NULL (nothing read) is below any end */
            return canvas;
        canvas_free(canvas);
        end_ns = *last_end_ns;
        end_is_estimate = 0;
    }
}

/* Host API calls (kind HOST) or NVTX ranges (kind NVTX), one lane per thread (and nesting
 * level, capped so a deep stack stays a few rows). Order does not matter here. */
#define NVTX_MAX_DEPTH 3
struct thread_scan {
    struct canvas *canvas;
    enum canvas_lane_kind kind;
    error_info *err;
};

static int scan_thread_row(void *context, const struct store_host_row *row)
{
    struct thread_scan *scan = context;
    if (!store_interval_plausible(row->start_ns, row->end_ns))
        return error_set(
            scan->err,
            "the trace is damaged: %s row runs from %" PRId64 " ns to %" PRId64 " ns, outside any recording",
            scan->kind == CANVAS_LANE_HOST ? "an API call" : "an NVTX", row->start_ns, row->end_ns);
    struct canvas_interval interval = {
        .start_ns = row->start_ns,
        .end_ns = row->end_ns,
        .detail_b = row->string_id,
        .kind = scan->kind == CANVAS_LANE_HOST ? PALETTE_HOST_API : PALETTE_NVTX,
        .detail = CANVAS_DETAIL_STRING,
    };
    int64_t depth = row->depth < 0 ? 0 : row->depth > NVTX_MAX_DEPTH ? NVTX_MAX_DEPTH : row->depth;
    struct canvas_lane *lane =
        canvas_thread_lane(scan->canvas, scan->kind, row->process_id, row->thread_id, depth);
    if (!lane || canvas_add(scan->canvas, lane, &interval) != 0)
        return canvas_over_budget(scan->canvas) ? canvas_budget_error(scan->canvas, scan->err)
                                                : error_set(scan->err, "out of memory");
    return 0;
}

static int fill_threads(struct canvas *canvas, store *trace, enum canvas_lane_kind kind, int64_t rank,
                        error_info *err)
{
    struct thread_scan scan = {canvas, kind, err};
    return store_scan_host_rows(trace, kind == CANVAS_LANE_HOST ? STORE_TABLE_API_CALLS : STORE_TABLE_NVTX,
                                canvas->window_start_ns, canvas->window_end_ns, rank, scan_thread_row, &scan,
                                err) == 0
               ? 0
               : -1;
}

int reader_fill(struct canvas *canvas, store *trace, const struct reader_selection *selection,
                int64_t *last_end_ns, error_info *err)
{
    *last_end_ns = STORE_NULL;
    if (fill_devices(canvas, trace, selection, last_end_ns, err) != 0)
        return -1;
    if (selection->host_calls && fill_threads(canvas, trace, CANVAS_LANE_HOST, selection->rank, err) != 0)
        return -1;
    if (selection->nvtx_ranges && fill_threads(canvas, trace, CANVAS_LANE_NVTX, selection->rank, err) != 0)
        return -1;
    canvas_finish(canvas);
    return 0;
}
