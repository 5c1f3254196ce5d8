/* chrome_export.c: a trace and its analysis as Chrome trace-event JSON (see chrome_export.h). The
 * format is the "Trace Event Format" document (Google,
 * docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU): ph X complete events
 * with ts/dur in microseconds, ph i instants, ph s/t/f flows sharing an id (each point bound to the
 * slice that encloses it on its track, "bp":"e" for the end), ph M metadata naming processes and
 * threads. tests/import/check_trace_events.py checks those rules on every export the tests make.
 * This file: the trace's rows and the document around them; the writer's primitives are in
 * chrome_writer.c, the analyzer's layers in chrome_analysis.c, the gzip stream in gzip_stream.c.
 * Owns: the output FILE while writing, the track placement and a cache of the trace's strings. */
#include "chrome_export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_source.h"
#include "chrome_tracks.h"
#include "chrome_writer.h"
#include "describe.h"
#include "gzip_stream.h"
#include "kernel_name.h"
#include "kernel_names.h"
#include "naming.h"
#include "output_file.h"
#include "queries_export.h"
#include "text_safe.h"
#include "units.h"

void chrome_export_options_init(struct chrome_export_options *options)
{
    *options = (struct chrome_export_options){
        .origin = CHROME_EXPORT_ORIGIN_REPORT, .from_ns = INT64_MIN, .to_ns = INT64_MAX};
}

static int write_metadata(struct chrome_writer *w, const char *what, int64_t pid, int64_t tid,
                          const char *name, int64_t sort_index)
{
    chrome_emitf(w,
                 ",\n{\"ph\":\"M\",\"name\":\"%s_name\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
                 ",\"args\":{\"name\":",
                 what, pid, tid);
    chrome_emit_string(w, name, CHROME_EXPORT_NAME_BYTES, 0);
    chrome_emitf(w,
                 "}},\n{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
                 ",\"args\":{\"sort_index\":%" PRId64 "}}",
                 what, pid, tid, sort_index);
    w->counts.metadata_events += 2;
    return 0;
}

typedef int (*row_writer)(struct chrome_writer *w, sqlite3_stmt *row);

struct row_pass {
    struct chrome_writer *w;
    row_writer write_row;
};

static int write_counted_row(void *context, sqlite3_stmt *row)
{
    struct row_pass *pass = context;
    pass->w->rows++;
    int status = pass->write_row(pass->w, row);
    return status == 0 ? chrome_check_bound(pass->w) : status;
}

static int for_each_row(struct chrome_writer *w, enum store_export_pass pass, row_writer write_row)
{
    struct row_pass context = {w, write_row};
    return store_export_each_row(w->trace, pass, write_counted_row, &context, w->err);
}

static int remember_process_name(struct chrome_writer *w, int64_t process_id)
{
    if (w->named_count == w->named_capacity) {
        size_t capacity = w->named_capacity ? w->named_capacity * 2 : 16;
        int64_t *grown = realloc(w->named_processes, capacity * sizeof *grown);
        if (!grown)
            return chrome_out_of_memory(w);
        w->named_processes = grown;
        w->named_capacity = capacity;
    }
    w->named_processes[w->named_count++] = process_id;
    return 0;
}

/* A sort index placed after the ranks (0, 1, ...): id + offset, or id itself when that sum would
 * overflow (an id no recording holds). */
static int64_t sort_after_ranks(int64_t id, int64_t offset)
{
    return id >= 0 && id <= INT64_MAX - offset ? id + offset : id;
}

/* The process as every output names it (naming_process: "rank 3", "pid 1685"), then its pid when
 * the rank named it, and its host. */
static int write_process(struct chrome_writer *w, sqlite3_stmt *row)
{
    char name[256], who[48];
    int64_t rank = chrome_column_or(row, 2, -1), pid = chrome_column_or(row, 1, -1);
    const char *host = (const char *)sqlite3_column_text(row, 3);
    naming_process(who, sizeof who, rank, pid, chrome_column(row, 0));
    int length = snprintf(name, sizeof name, "%s", who);
    if (rank >= 0 && pid >= 0)
        length += snprintf(name + length, sizeof name - (size_t)length, " pid %" PRId64, pid);
    snprintf(name + length, sizeof name - (size_t)length, "%s%.160s%s", host ? " (" : "", host ? host : "",
             host ? ")" : "");
    write_metadata(w, "process", chrome_column(row, 0), 0, name,
                   rank >= 0 ? rank : sort_after_ranks(chrome_column(row, 0), 1000000));
    return remember_process_name(w, chrome_column(row, 0));
}

enum {
    API_PROCESS,
    API_THREAD,
    API_DOMAIN,
    API_NAME,
    API_CORRELATION,
    API_START,
    API_END,
    API_CBID,
    API_RETURN
};

static int write_api_call(struct chrome_writer *w, sqlite3_stmt *row)
{
    int64_t start = chrome_column(row, API_START), end = chrome_column(row, API_END), tid;
    if (!chrome_clip_slice(w, &start, &end, ROW_SLICE))
        return 0;
    int64_t process = chrome_column(row, API_PROCESS), thread = chrome_column(row, API_THREAD);
    if (chrome_place(w, (struct chrome_track_key){process, CHROME_TRACK_API, CHROME_TRACK_HOST, thread},
                     start, end, &tid))
        return -1;
    const struct cached_string *name = chrome_string_of(w, chrome_column(row, API_NAME));
    chrome_begin_slice(w, chrome_column(row, API_DOMAIN) == STORE_API_DRIVER ? "cuda_driver" : "cuda_runtime",
                       name->text, name->cut, process, tid, start, end);
    chrome_emit_int(w, "thread", thread);
    chrome_arg_int(w, "correlation", row, API_CORRELATION);
    chrome_arg_int(w, "cbid", row, API_CBID);
    chrome_arg_int(w, "return", row, API_RETURN);
    chrome_end_event(w);
    return 0;
}

enum {
    NVTX_PROCESS,
    NVTX_THREAD,
    NVTX_DEVICE,
    NVTX_STREAM,
    NVTX_KIND,
    NVTX_MESSAGE,
    NVTX_DOMAIN,
    NVTX_START,
    NVTX_END
};

/* Ranges the profiler put on a GPU stream go on that stream's annotation track, the others on
 * their thread's NVTX track; marks are instants there. */
static int write_nvtx(struct chrome_writer *w, sqlite3_stmt *row)
{
    int on_gpu = sqlite3_column_type(row, NVTX_STREAM) != SQLITE_NULL;
    int is_mark = chrome_column(row, NVTX_KIND) == STORE_NVTX_MARK;
    int64_t start = chrome_column(row, NVTX_START), end = is_mark ? start : chrome_column(row, NVTX_END), tid;
    if (!chrome_clip_slice(w, &start, &end, ROW_SLICE))
        return 0;
    int64_t process = chrome_column(row, NVTX_PROCESS);
    struct chrome_track_key key = {process, CHROME_TRACK_NVTX, CHROME_TRACK_HOST,
                                   chrome_column_or(row, NVTX_THREAD, 0)};
    if (on_gpu)
        key = (struct chrome_track_key){process, CHROME_TRACK_STREAM_RANGES,
                                        chrome_column_or(row, NVTX_DEVICE, -1),
                                        chrome_column(row, NVTX_STREAM)};
    if (chrome_place(w, key, start, end, &tid) != 0)
        return -1;
    const struct cached_string *message = chrome_string_of(w, chrome_column(row, NVTX_MESSAGE));
    const char *category = on_gpu ? "gpu_user_annotation" : "nvtx";
    if (is_mark) {
        chrome_emitf(w, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"%s\",\"name\":", category);
        chrome_emit_string(w, message->text, CHROME_EXPORT_NAME_BYTES, message->cut);
        chrome_emitf(w, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", process, tid);
        chrome_emit_time(w, start);
        chrome_emit(w, ",\"args\":{");
        w->first_arg = 1;
        w->counts.instant_events++;
    } else {
        chrome_begin_slice(w, category, message->text, message->cut, process, tid, start, end);
    }
    chrome_emit_key(w, "domain");
    if (sqlite3_column_type(row, NVTX_DOMAIN) == SQLITE_NULL) {
        chrome_emit(w, "\"default\"");
    } else {
        const struct cached_string *domain = chrome_string_of(w, chrome_column(row, NVTX_DOMAIN));
        chrome_emit_string(w, domain->text, CHROME_EXPORT_NAME_BYTES, domain->cut);
    }
    chrome_end_event(w);
    return 0;
}

enum { SYNC_PROCESS, SYNC_STREAM, SYNC_EVENT, SYNC_TYPE, SYNC_CORRELATION, SYNC_START, SYNC_END };

static int write_sync(struct chrome_writer *w, sqlite3_stmt *row)
{
    int64_t start = chrome_column(row, SYNC_START), end = chrome_column(row, SYNC_END), tid;
    if (!chrome_clip_slice(w, &start, &end, ROW_SLICE))
        return 0;
    int64_t process = chrome_column(row, SYNC_PROCESS);
    if (chrome_place(w, (struct chrome_track_key){process, CHROME_TRACK_SYNC, CHROME_TRACK_HOST, 0}, start,
                     end, &tid))
        return -1;
    const char *type = store_sync_type_name(chrome_column(row, SYNC_TYPE));
    chrome_begin_slice(w, "cuda_sync", type, 0, process, tid, start, end);
    chrome_emit_key(w, "sync_type");
    chrome_emit_string(w, type, CHROME_EXPORT_NAME_BYTES, 0);
    chrome_arg_int(w, "stream", row, SYNC_STREAM);
    chrome_arg_int(w, "event", row, SYNC_EVENT);
    chrome_arg_int(w, "correlation", row, SYNC_CORRELATION);
    chrome_end_event(w);
    return 0;
}

/* GPU ops of all three tables in one stream order (a stream's track holds them all), each with the
 * first API call of its correlation id: one launch arrow per op at most, however often an id
 * repeats (issue 20, item 16). */
enum {
    GPU_KIND,
    GPU_ROWID,
    GPU_PROCESS,
    GPU_DEVICE,
    GPU_STREAM,
    GPU_CORRELATION,
    GPU_START,
    GPU_END,
    CALL_THREAD,
    CALL_START,
    CALL_END
};
enum { GPU_KERNEL = 0, GPU_MEMCPY = 1, GPU_MEMSET = 2 };

enum {
    KERNEL_NAME,
    KERNEL_GRID_X,
    KERNEL_GRID_Y,
    KERNEL_GRID_Z,
    KERNEL_BLOCK_X,
    KERNEL_BLOCK_Y,
    KERNEL_BLOCK_Z,
    KERNEL_REGISTERS,
    KERNEL_STATIC_SHARED,
    KERNEL_DYNAMIC_SHARED,
    COLLECTIVE_OP,
    COLLECTIVE_BYTES,
    COLLECTIVE_COUNT,
    COLLECTIVE_DTYPE,
    COLLECTIVE_COMMUNICATOR,
    COLLECTIVE_RANK,
    COLLECTIVE_NRANKS,
    COLLECTIVE_ALGORITHM,
    COLLECTIVE_PROTOCOL,
    COLLECTIVE_SEQUENCE
};

static void begin_gpu_slice(struct chrome_writer *w, sqlite3_stmt *op, const char *category, const char *name,
                            int cut_before, int64_t tid, int64_t start, int64_t end)
{
    chrome_begin_slice(w, category, name, cut_before, chrome_column(op, GPU_PROCESS), tid, start, end);
    chrome_emit_int(w, "device", chrome_column(op, GPU_DEVICE));
    chrome_emit_int(w, "stream", chrome_column(op, GPU_STREAM));
    chrome_arg_int(w, "correlation", op, GPU_CORRELATION);
}

static void write_kernel(struct chrome_writer *w, sqlite3_stmt *op, int64_t tid, int64_t start, int64_t end)
{
    sqlite3_stmt *k = store_export_detail(w->details, STORE_EXPORT_KERNEL, chrome_column(op, GPU_ROWID));
    if (!k)
        return;
    int64_t name_id = chrome_column(k, KERNEL_NAME);
    /* The short name the report gives the kernel (one rule: the analyzer's name cache). */
    const char *display = kernel_names_short(w->kernel_names, name_id);
    const struct cached_string *full = chrome_kernel_full_name(w, name_id);
    begin_gpu_slice(w, op, "kernel", display, 0, tid, start, end);
    chrome_emit_key(w, "full name");
    chrome_emit_string(w, full->demangled, CHROME_EXPORT_TEXT_BYTES, full->demangled_cut);
    if (strcmp(full->demangled, full->text) != 0) {
        chrome_emit_key(w, "mangled name");
        chrome_emit_string(w, full->text, CHROME_EXPORT_TEXT_BYTES, full->cut);
    }
    if (sqlite3_column_type(k, KERNEL_GRID_X) != SQLITE_NULL) {
        chrome_emit_key(w, "grid");
        chrome_emitf(w, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", chrome_column(k, KERNEL_GRID_X),
                     chrome_column(k, KERNEL_GRID_Y), chrome_column(k, KERNEL_GRID_Z));
        chrome_emit_key(w, "block");
        chrome_emitf(w, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", chrome_column(k, KERNEL_BLOCK_X),
                     chrome_column(k, KERNEL_BLOCK_Y), chrome_column(k, KERNEL_BLOCK_Z));
    }
    /* The launch's resources, and an NCCL kernel's collective. */
    static const struct {
        const char *key;
        int column, is_text;
    } args[] = {{"registers per thread", KERNEL_REGISTERS, 0},
                {"static shared memory", KERNEL_STATIC_SHARED, 0},
                {"dynamic shared memory", KERNEL_DYNAMIC_SHARED, 0},
                {"collective", COLLECTIVE_OP, 1},
                {"bytes", COLLECTIVE_BYTES, 0},
                {"elements", COLLECTIVE_COUNT, 0},
                {"dtype", COLLECTIVE_DTYPE, 1},
                {"communicator", COLLECTIVE_COMMUNICATOR, 1},
                {"rank", COLLECTIVE_RANK, 0},
                {"nranks", COLLECTIVE_NRANKS, 0},
                {"algorithm", COLLECTIVE_ALGORITHM, 1},
                {"protocol", COLLECTIVE_PROTOCOL, 1},
                {"sequence", COLLECTIVE_SEQUENCE, 0}};
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        (args[i].is_text ? chrome_arg_text : chrome_arg_int)(w, args[i].key, k, args[i].column);
    chrome_end_event(w);
}

static void write_memcpy(struct chrome_writer *w, sqlite3_stmt *op, int64_t tid, int64_t start, int64_t end)
{
    sqlite3_stmt *c = store_export_detail(w->details, STORE_EXPORT_MEMCPY, chrome_column(op, GPU_ROWID));
    if (!c)
        return;
    /* Named as the report and the picture name it (naming_copy: "HtoD 64.0 MiB (pageable)"); both
     * sides' memory in args. */
    char name[96];
    int64_t source = chrome_column_or(c, 1, 0), destination = chrome_column_or(c, 2, 0);
    naming_copy(name, sizeof name, chrome_column(c, 0), chrome_column(c, 3),
                store_copy_is_pageable(source, destination));
    begin_gpu_slice(w, op, "gpu_memcpy", name, 0, tid, start, end);
    chrome_emit_int(w, "bytes", chrome_column(c, 3));
    chrome_emit_key(w, "source memory");
    chrome_emit_string(w, store_memory_kind_name(source), CHROME_EXPORT_NAME_BYTES, 0);
    chrome_emit_key(w, "destination memory");
    chrome_emit_string(w, store_memory_kind_name(destination), CHROME_EXPORT_NAME_BYTES, 0);
    chrome_end_event(w);
}

static void write_memset(struct chrome_writer *w, sqlite3_stmt *op, int64_t tid, int64_t start, int64_t end)
{
    sqlite3_stmt *s = store_export_detail(w->details, STORE_EXPORT_MEMSET, chrome_column(op, GPU_ROWID));
    if (!s)
        return;
    char name[64];
    snprintf(name, sizeof name, "Memset (%s)", store_memory_kind_name(chrome_column_or(s, 0, 0)));
    begin_gpu_slice(w, op, "gpu_memset", name, 0, tid, start, end);
    chrome_emit_int(w, "bytes", chrome_column(s, 1));
    chrome_end_event(w);
}

/* Launch (API call) to GPU op, as PyTorch's profiler links them ("ac2g"): the start at the call's
 * start, the end inside the op. */
static void write_launch_arrow(struct chrome_writer *w, sqlite3_stmt *op, int64_t op_tid, int64_t start,
                               int64_t end)
{
    if (sqlite3_column_type(op, CALL_THREAD) == SQLITE_NULL)
        return;
    int64_t call_start = chrome_column(op, CALL_START), call_end = chrome_column(op, CALL_END);
    if (!chrome_clip_interval(w, &call_start, &call_end, ROW_SLICE))
        return;
    int64_t process = chrome_column(op, GPU_PROCESS);
    struct chrome_track_key key = {process, CHROME_TRACK_API, CHROME_TRACK_HOST,
                                   chrome_column(op, CALL_THREAD)};
    int64_t call_tid = chrome_tracks_find(w->tracks, &key, call_start, call_end),
            op_point = chrome_middle(start, end);
    if (!call_tid)
        return;
    if (op_point < call_start) {
        w->counts.launches_before_call++;
        return;
    }
    int64_t id = ++w->next_flow_id;
    chrome_emit_flow_point(w, 's', "ac2g", "launch", id, process, call_tid, call_start);
    chrome_emit_flow_point(w, 'f', "ac2g", "launch", id, process, op_tid, op_point);
    w->counts.launch_arrows++;
}

static int write_gpu_op(struct chrome_writer *w, sqlite3_stmt *op)
{
    int64_t start = chrome_column(op, GPU_START), end = chrome_column(op, GPU_END), tid;
    if (!chrome_clip_slice(w, &start, &end, ROW_SLICE))
        return 0;
    struct chrome_track_key key = {chrome_column(op, GPU_PROCESS), CHROME_TRACK_STREAM,
                                   chrome_column(op, GPU_DEVICE), chrome_column(op, GPU_STREAM)};
    if (chrome_place(w, key, start, end, &tid) != 0)
        return -1;
    int64_t kind = chrome_column(op, GPU_KIND);
    if (kind == GPU_KERNEL)
        write_kernel(w, op, tid, start, end);
    else if (kind == GPU_MEMCPY)
        write_memcpy(w, op, tid, start, end);
    else
        write_memset(w, op, tid, start, end);
    write_launch_arrow(w, op, tid, start, end);
    return 0;
}

/* --- track names --- */

static int compare_process_ids(const void *left, const void *right)
{
    int64_t a = *(const int64_t *)left, b = *(const int64_t *)right;
    return a < b ? -1 : a > b;
}

/* The analyzer's tracks: their slices overlap by nature (two ops waiting at once), so a second
 * track is no sign of a clock problem. */
static int analysis_track(enum chrome_track_kind kind)
{
    return kind == CHROME_TRACK_WAITS || kind == CHROME_TRACK_IDLE || kind == CHROME_TRACK_EXPOSED_COMM ||
           kind == CHROME_TRACK_EXPOSED_COPY;
}

static void track_name(struct chrome_writer *w, const struct chrome_track *track, char *name, size_t size)
{
    const struct chrome_track_key *key = &track->key;
    int length = 0;
    switch (key->kind) {
    case CHROME_TRACK_WAITS:
        length = snprintf(name, size, "GPU %" PRId64 " waits (analysis)", key->device_id);
        break;
    case CHROME_TRACK_IDLE:
        length = snprintf(name, size, "GPU %" PRId64 " idle causes (analysis)", key->device_id);
        break;
    case CHROME_TRACK_EXPOSED_COMM:
        length = snprintf(name, size, "GPU %" PRId64 " exposed communication (analysis)", key->device_id);
        break;
    case CHROME_TRACK_EXPOSED_COPY:
        length = snprintf(name, size, "GPU %" PRId64 " exposed copies (analysis)", key->device_id);
        break;
    case CHROME_TRACK_STREAM: {
        char label[64];
        int legacy = 0;
        store_stream_description(w->trace, key->process_id, key->device_id, key->id, &legacy, label,
                                 sizeof label);
        length = snprintf(name, size, "stream %" PRId64 ", GPU %" PRId64 "%s%s%s", key->id, key->device_id,
                          label[0] ? " " : "", label, legacy ? " (legacy default stream)" : "");
        break;
    }
    case CHROME_TRACK_STREAM_RANGES:
        length = snprintf(name, size, "stream %" PRId64 " annotations", key->id);
        break;
    case CHROME_TRACK_SYNC:
        length = snprintf(name, size, "CUDA synchronizations");
        break;
    case CHROME_TRACK_API:
        length = snprintf(name, size, "thread %" PRId64 " CUDA API", key->id);
        break;
    default:
        length = snprintf(name, size, "thread %" PRId64 " NVTX", key->id);
        break;
    }
    /* Waits of one device overlap by nature (two ops waiting at once); anything else that needs a
     * second track overlapped on its own (clock skew, or a hostile trace). */
    if (track->overflow > 0 && length > 0 && (size_t)length < size)
        snprintf(name + length, size - (size_t)length,
                 analysis_track(key->kind) ? " (%" PRId64 ")" : " (overlapping slices, %" PRId64 ")",
                 track->overflow + 1);
}

/* Names every track, in display order, and every process that has tracks but no processes row. */
static int write_track_names(struct chrome_writer *w)
{
    size_t count = 0;
    struct chrome_track *list = chrome_tracks_list(w->tracks, &count);
    qsort(w->named_processes, w->named_count, sizeof *w->named_processes, compare_process_ids);
    for (size_t i = 0; i < count; i++) {
        char name[256];
        track_name(w, &list[i], name, sizeof name);
        write_metadata(w, "thread", list[i].key.process_id, list[i].tid, name, (int64_t)i);
        w->counts.overflow_tracks += list[i].overflow > 0 && !analysis_track(list[i].key.kind);
        if ((i == 0 || list[i - 1].key.process_id != list[i].key.process_id) &&
            !bsearch(&list[i].key.process_id, w->named_processes, w->named_count, sizeof *w->named_processes,
                     compare_process_ids)) {
            naming_process(name, sizeof name, -1, -1, list[i].key.process_id); /* no processes row */
            write_metadata(w, "process", list[i].key.process_id, 0, name,
                           sort_after_ranks(list[i].key.process_id, 2000000));
        }
    }
    free(list);
    return count > 0 && !list ? chrome_out_of_memory(w) : 0;
}

/* --- the document --- */

static int write_events(struct chrome_writer *w)
{
    static const struct {
        enum store_export_pass pass;
        row_writer write_row;
    } passes[] = {
        {STORE_EXPORT_PROCESSES, write_process}, {STORE_EXPORT_API_CALLS, write_api_call},
        {STORE_EXPORT_NVTX, write_nvtx},         {STORE_EXPORT_SYNCHRONIZATIONS, write_sync},
        {STORE_EXPORT_GPU_OPS, write_gpu_op},
    };
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
        if (for_each_row(w, passes[i].pass, passes[i].write_row) != 0)
            return -1;
    if (chrome_write_waits(w) != 0 || chrome_write_accounting(w) != 0)
        return -1;
    return write_track_names(w);
}

static int prepare_queries(struct chrome_writer *w)
{
    if (!(w->strings = store_lookup_new(w->trace, w->err)) ||
        !(w->kernel_names = kernel_names_new(w->db, w->err)) ||
        !(w->details = store_export_details_new(w->trace, w->err)))
        return -1;
    return 0;
}

static void finalize_queries(struct chrome_writer *w)
{
    store_lookup_free(w->strings);
    kernel_names_free(w->kernel_names);
    store_export_details_free(w->details);
}

static void write_origin_note(struct chrome_writer *w)
{
    chrome_emit(w, ",\"origin\":");
    if (w->report_origin_ns == STORE_NULL)
        chrome_emit(w, "\"the trace's first activity (it has no GPU activity, so no report)\"");
    else if (w->origin_ns == w->report_origin_ns)
        chrome_emit(
            w,
            "\"report: time 0 is the report's +0 (the trace's first GPU activity), so '+166 ms' in"
            " `overlapscope report` is at 166 ms here; activity before it is left out (export --origin trace"
            " keeps it)\"");
    else
        chrome_emit(
            w, "\"trace: time 0 is the trace's first activity; the report's +0 is at report_origin_us\"");
    chrome_emitf(w, ",\"origin_ns\":\"%" PRId64 "\"", w->origin_ns);
    if (w->report_origin_ns != STORE_NULL) {
        chrome_emitf(w, ",\"report_origin_ns\":\"%" PRId64 "\",\"report_origin_us\":", w->report_origin_ns);
        chrome_emit_time(w, w->report_origin_ns);
    }
}

static void write_other_data(struct chrome_writer *w)
{
    const struct chrome_export_counts *c = &w->counts;
    char *source = store_get_meta(w->trace, "source");
    chrome_emit(w, "\n],\n\"otherData\":{\"producer\":\"overlapscope\",\"source\":");
    chrome_emit_string(w, source ? source : "unknown", CHROME_EXPORT_NAME_BYTES, 0);
    free(source);
    write_origin_note(w);
    if (w->analysis)
        chrome_emitf(w, ",\"waits_found\":%" PRId64 ",\"waits_exported\":%" PRId64 ",\"lost_ns\":%" PRId64,
                     w->analysis->wait_total_count, c->wait_slices, w->analysis->total_lost_ns);
    chrome_emitf(w,
                 ",\"left_out_before_origin\":%" PRId64 ",\"cut_at_origin\":%" PRId64
                 ",\"implausible_rows\":%" PRId64 ",\"overflow_tracks\":%" PRId64
                 ",\"shared_correlation_ids\":%" PRId64 ",\"launches_before_call\":%" PRId64
                 ",\"waits_without_arrow\":%" PRId64 ",\"texts_cut\":%" PRId64
                 ",\"bytes_per_row_bound\":%d}}\n",
                 c->left_out_before_origin, c->cut_at_origin, c->implausible_rows, c->overflow_tracks,
                 c->shared_correlation_ids, c->launches_before_call, c->waits_without_arrow, c->texts_cut,
                 CHROME_EXPORT_BYTES_PER_ROW);
}

static int write_document(struct chrome_writer *w)
{
    if (prepare_queries(w) != 0) {
        finalize_queries(w);
        return -1;
    }
    w->counts.shared_correlation_ids = store_count_shared_correlation_ids(w->trace);
    /* No displayTimeUnit: Perfetto takes it as the unit of ts (json_trace_tokenizer.cc,
     * MaybeParseDisplayTimeUnit), chrome://tracing as a display preference only, so with "ns" the
     * two viewers disagreed 1000-fold. Without it both read microseconds. */
    chrome_emit(w, "{\"traceEvents\":[\n");
    /* A global instant at the report's +0 (a mark the viewer shows); it also keeps every later
     * event free to start with a comma. */
    int64_t mark = w->report_origin_ns != STORE_NULL ? w->report_origin_ns : w->origin_ns;
    chrome_emit(
        w, "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"report +0\",\"cat\":\"origin\",\"pid\":0,\"tid\":0,\"ts\":");
    chrome_emit_time(w, mark < w->origin_ns ? w->origin_ns : mark);
    chrome_emit(w, "}");
    w->counts.instant_events++;
    int status = write_events(w);
    finalize_queries(w);
    if (status != 0)
        return -1;
    write_other_data(w);
    return chrome_check_bound(w);
}

/* Write errors are the caller's to report: output_file_commit names the file and the reason. */
static int export_to(struct chrome_writer *w, FILE *out)
{
    w->out = out;
    return write_document(w);
}

static struct chrome_writer *writer_new(store *trace, const struct analysis_result *analysis,
                                        const struct chrome_export_options *options, error_info *err)
{
    struct chrome_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->tracks = chrome_tracks_new())) {
        free(w);
        error_set(err, "out of memory");
        return NULL;
    }
    w->trace = trace;
    w->db = store_db(trace);
    w->analysis = analysis;
    w->err = err;
    w->report_origin_ns = analysis ? analysis->origin_ns : STORE_NULL;
    w->origin_ns = analysis && options->origin == CHROME_EXPORT_ORIGIN_REPORT
                       ? analysis->origin_ns
                       : store_export_first_activity(w->trace);
    w->from_ns = options->from_ns > w->origin_ns ? options->from_ns : w->origin_ns;
    w->to_ns = options->to_ns;
    w->counts.origin_ns = w->origin_ns;
    return w;
}

static void writer_free(struct chrome_writer *w)
{
    chrome_tracks_free(w->tracks);
    free(w->named_processes);
    free(w);
}

static int ends_with_gz(const char *path)
{
    size_t length = strlen(path);
    return length > 3 && strcmp(path + length - 3, ".gz") == 0;
}

int chrome_export_write(store *trace, const struct analysis_result *analysis,
                        const struct chrome_export_options *options, const char *output_path, int force,
                        struct chrome_export_counts *counts, error_info *err)
{
    struct chrome_export_options defaults;
    chrome_export_options_init(&defaults);
    int to_stdout = strcmp(output_path, "-") == 0;
    const char *input = store_path(trace);
    output_file *output = to_stdout ? NULL : output_file_begin(output_path, force, &input, 1, err);
    if (!to_stdout && !output)
        return -1;
    FILE *out = to_stdout ? stdout : output_file_stream(output, err);
    struct chrome_writer *w = out ? writer_new(trace, analysis, options ? options : &defaults, err) : NULL;
    if (!w) {
        output_file_discard(output);
        return -1;
    }
    FILE *json = !to_stdout && ends_with_gz(output_path) ? gzip_stream_open(out) : out;
    if (!json) {
        writer_free(w);
        output_file_discard(output);
        return error_set(err, "out of memory");
    }
    char *buffer = to_stdout ? NULL : malloc(1 << 20);
    if (buffer)
        setvbuf(json, buffer, _IOFBF, 1 << 20);
    int status = export_to(w, json);
    if (json != out && fclose(json) != 0 && status == 0) /* the gzip end, into out */
        status = error_set(err, "cannot write '%s': %s", output_path, strerror(errno));
    if (to_stdout) {
        if ((fflush(stdout) != 0 || ferror(stdout)) && status == 0)
            status = error_set(err, "cannot write to stdout");
    } else if (status == 0) {
        status = output_file_commit(output, err); /* closes out, before its buffer goes */
    } else {
        output_file_discard(output);
    }
    free(buffer);
    if (status == 0 && counts)
        *counts = w->counts;
    writer_free(w);
    return status;
}
