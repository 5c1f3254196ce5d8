/* chrome_export.c: a trace and its analysis as Chrome trace-event JSON (see chrome_export.h). The
 * format is the "Trace Event Format" document (Google,
 * docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU): ph X complete events
 * with ts/dur in microseconds, ph i instants, ph s/t/f flows sharing an id (each point bound to the
 * slice that encloses it on its track, "bp":"e" for the end), ph M metadata naming processes and
 * threads. tests/import/check_trace_events.py checks those rules on every export the tests make.
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
#include "describe.h"
#include "kernel_name.h"
#include "kernel_names.h"
#include "naming.h"
#include "output_file.h"
#include "queries_export.h"
#include "text_safe.h"
#include "units.h"

#include <zlib.h>

/* Kernels share a few names, and a hostile trace can give every row one name of megabytes:
 * strings are read once per cache slot, cut to what the export writes. */
#define STRING_CACHE_SLOTS 256

struct cached_string {
    int64_t id;
    int used, cut;
    char text[CHROME_EXPORT_TEXT_BYTES + 2];
    /* For kernel names: the demangled name (kernel_name_demangle), cut the same way. */
    int demangled_ready, demangled_cut;
    char demangled[CHROME_EXPORT_TEXT_BYTES + 1];
};

struct writer {
    FILE *out;
    store *trace;
    sqlite3 *db;
    const struct analysis_result *analysis;
    const size_t *whole_of;              /* device -> its whole-span accounting (write_accounting), or NULL */
    int64_t origin_ns, report_origin_ns; /* report_origin_ns: STORE_NULL without analysis */
    int64_t from_ns, to_ns;
    int64_t next_flow_id;
    int64_t rows;  /* rows read and waits written: the output bound grows with them */
    int first_arg; /* the next arg of the open event needs no comma */
    chrome_tracks *tracks;
    int64_t *named_processes;
    size_t named_count, named_capacity;
    store_lookup *strings;
    kernel_names *kernel_names;
    store_export_details *details; /* the kernel, copy and memset detail queries */
    struct chrome_export_counts counts;
    error_info *err;
    struct cached_string cache[STRING_CACHE_SLOTS];
};

void chrome_export_options_init(struct chrome_export_options *options)
{
    *options = (struct chrome_export_options){
        .origin = CHROME_EXPORT_ORIGIN_REPORT, .from_ns = INT64_MIN, .to_ns = INT64_MAX};
}

/* --- output: every byte goes through these, so counts.bytes is exact --- */

static void emit(struct writer *w, const char *text)
{
    size_t length = strlen(text);
    fwrite(text, 1, length, w->out);
    w->counts.bytes += (int64_t)length;
}

__attribute__((format(printf, 2, 3))) static void emitf(struct writer *w, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    int length = vfprintf(w->out, format, arguments);
    va_end(arguments);
    if (length > 0)
        w->counts.bytes += length;
}

/* A JSON string of text (text_safe.h's JSON style: escaped, invalid UTF-8 repaired) holding at
 * most cap bytes between its quotes: when the text does not fit (or was already cut, cut_before)
 * it is cut between characters and ends with an ellipsis. cap is at most CHROME_EXPORT_TEXT_BYTES. */
static void emit_string(struct writer *w, const char *text, size_t cap, int cut_before)
{
    static const char ellipsis[] = "\xe2\x80\xa6";
    char safe[CHROME_EXPORT_TEXT_BYTES + 1];
    int cut = cut_before || text_safe_copy(safe, cap + 1, text, TEXT_SAFE_JSON) > cap;
    if (cut) {
        text_safe_copy(safe, cap + 1 - (sizeof ellipsis - 1), text, TEXT_SAFE_JSON);
        w->counts.texts_cut++;
    }
    emit(w, "\"");
    emit(w, safe);
    if (cut)
        emit(w, ellipsis);
    emit(w, "\"");
}

/* Nanoseconds as microseconds with exactly three decimals, from integers. */
static void emit_microseconds(struct writer *w, uint64_t nanoseconds)
{
    emitf(w, "%" PRIu64 ".%03u", nanoseconds / 1000, (unsigned)(nanoseconds % 1000));
}

/* A time at or after time zero, relative to it. */
static void emit_time(struct writer *w, int64_t absolute_ns)
{
    emit_microseconds(w, (uint64_t)absolute_ns - (uint64_t)w->origin_ns);
}

static void emit_key(struct writer *w, const char *key)
{
    emitf(w, "%s\"%s\":", w->first_arg ? "" : ",", key);
    w->first_arg = 0;
}

static void emit_int(struct writer *w, const char *key, int64_t value)
{
    emit_key(w, key);
    emitf(w, "%" PRId64, value);
}

/* ,"key":value for a column that is not NULL. */
static void arg_int(struct writer *w, const char *key, sqlite3_stmt *row, int column)
{
    if (sqlite3_column_type(row, column) != SQLITE_NULL)
        emit_int(w, key, (int64_t)sqlite3_column_int64(row, column));
}

static void arg_text(struct writer *w, const char *key, sqlite3_stmt *row, int column)
{
    const unsigned char *text = sqlite3_column_text(row, column);
    if (text) {
        emit_key(w, key);
        emit_string(w, (const char *)text, CHROME_EXPORT_NAME_BYTES, 0);
    }
}

static int64_t column(sqlite3_stmt *row, int index)
{
    return (int64_t)sqlite3_column_int64(row, index);
}

static int64_t column_or(sqlite3_stmt *row, int index, int64_t otherwise)
{
    return sqlite3_column_type(row, index) == SQLITE_NULL ? otherwise : column(row, index);
}

static int64_t middle(int64_t start, int64_t end)
{
    return start + (int64_t)(((uint64_t)end - (uint64_t)start) / 2);
}

/* --- what is exported --- */

/* How long a slice may last: a row of the trace is one operation (STORE_MAX_DURATION_NS), while
 * what the analysis found (a wait, a stretch of idle time) may last up to a device's span
 * (STORE_MAX_SPAN_NS): a kernel 46 days after the one before it is no damage, the idle time between
 * them was left out as an impossible row. */
enum { ROW_SLICE, ANALYSIS_SLICE };

/* Whether [start, end] lies on the clock (+-2^61 ns at its start) and within its kind's length. */
static int slice_plausible(int64_t start, int64_t end, int kind)
{
    uint64_t max_ns = (uint64_t)(kind == ROW_SLICE ? STORE_MAX_DURATION_NS : STORE_MAX_SPAN_NS);
    return store_interval_plausible(start, start) &&
           (end <= start || (uint64_t)end - (uint64_t)start <= max_ns);
}

/* Cuts [*start, *end] to the exported part (from time zero, within from/to). Returns 0 when
 * nothing of it is left. */
static int clip_interval(const struct writer *w, int64_t *start, int64_t *end, int kind)
{
    if (!slice_plausible(*start, *end, kind))
        return 0;
    if (*end < *start)
        *end = *start;
    if (*end < w->from_ns || *start > w->to_ns)
        return 0;
    *start = *start < w->from_ns ? w->from_ns : *start;
    *end = *end > w->to_ns ? w->to_ns : *end;
    return 1;
}

/* clip_interval for a slice about to be written, counting what it leaves out or cuts. */
static int clip_slice(struct writer *w, int64_t *start, int64_t *end, int kind)
{
    int64_t original_start = *start;
    if (!slice_plausible(*start, *end, kind)) {
        w->counts.implausible_rows++;
        return 0;
    }
    if (!clip_interval(w, start, end, kind)) {
        w->counts.left_out_before_origin++;
        return 0;
    }
    if (*start != original_start)
        w->counts.cut_at_origin++;
    return 1;
}

/* Cuts text in place to at most max bytes, between characters. Returns 1 when it cut. */
static int cut_text(char *text, size_t max)
{
    size_t keep = strlen(text);
    if (keep <= max)
        return 0;
    keep = max;
    while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80)
        keep--; /* cut between characters, not inside one */
    text[keep] = '\0';
    return 1;
}

static const struct cached_string *string_of(struct writer *w, int64_t id)
{
    struct cached_string *entry = &w->cache[(uint64_t)id % STRING_CACHE_SLOTS];
    if (entry->used && entry->id == id)
        return entry;
    /* One byte more than is kept tells whether the text was longer. */
    store_lookup_string(w->strings, id, entry->text, sizeof entry->text);
    entry->cut = cut_text(entry->text, CHROME_EXPORT_TEXT_BYTES);
    entry->id = id;
    entry->used = 1;
    entry->demangled_ready = 0;
    return entry;
}

/* The demangled full name of a kernel (the name itself when it is not mangled). */
static const struct cached_string *kernel_full_name(struct writer *w, int64_t name_id)
{
    struct cached_string *entry = (struct cached_string *)string_of(w, name_id);
    if (!entry->demangled_ready) {
        char *full = kernel_name_demangle(entry->text);
        snprintf(entry->demangled, sizeof entry->demangled, "%s", full ? full : entry->text);
        entry->demangled_cut = entry->cut || (full && strlen(full) >= sizeof entry->demangled);
        cut_text(entry->demangled, CHROME_EXPORT_TEXT_BYTES);
        free(full);
        entry->demangled_ready = 1;
    }
    return entry;
}

/* --- events --- */

/* ,\n{"ph":"X","cat":..,"name":..,"pid":..,"tid":..,"ts":..,"dur":..,"args":{ -- the caller
 * writes the args (emit_key and the functions using it) and closes with end_event. */
static void begin_slice(struct writer *w, const char *category, const char *name, int cut_before, int64_t pid,
                        int64_t tid, int64_t start_ns, int64_t end_ns)
{
    emitf(w, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", category);
    emit_string(w, name, CHROME_EXPORT_NAME_BYTES, cut_before);
    emitf(w, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", pid, tid);
    emit_time(w, start_ns);
    emit(w, ",\"dur\":");
    emit_microseconds(w, (uint64_t)end_ns - (uint64_t)start_ns);
    emit(w, ",\"args\":{");
    w->first_arg = 1;
    w->counts.complete_events++;
}

static void end_event(struct writer *w)
{
    emit(w, "}}");
}

static void emit_flow_point(struct writer *w, char phase, const char *category, const char *name, int64_t id,
                            int64_t pid, int64_t tid, int64_t time_ns)
{
    emitf(w,
          ",\n{\"ph\":\"%c\",\"cat\":\"%s\",\"name\":\"%s\",\"id\":%" PRId64 ",\"pid\":%" PRId64
          ",\"tid\":%" PRId64 ",\"ts\":",
          phase, category, name, id, pid, tid);
    emit_time(w, time_ns);
    emit(w, phase == 'f' ? ",\"bp\":\"e\"}" : "}");
    w->counts.flow_events++;
}

static int out_of_memory(struct writer *w)
{
    return error_set(w->err, "out of memory");
}

/* Places a slice on its logical track (chrome_tracks.h). Returns 0 and the tid, or -1. */
static int place(struct writer *w, struct chrome_track_key key, int64_t start_ns, int64_t end_ns,
                 int64_t *tid)
{
    return chrome_tracks_place(w->tracks, &key, start_ns, end_ns, tid) == 0 ? 0 : out_of_memory(w);
}

static int write_metadata(struct writer *w, const char *what, int64_t pid, int64_t tid, const char *name,
                          int64_t sort_index)
{
    emitf(w,
          ",\n{\"ph\":\"M\",\"name\":\"%s_name\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"args\":{\"name\":",
          what, pid, tid);
    emit_string(w, name, CHROME_EXPORT_NAME_BYTES, 0);
    emitf(w,
          "}},\n{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
          ",\"args\":{\"sort_index\":%" PRId64 "}}",
          what, pid, tid, sort_index);
    w->counts.metadata_events += 2;
    return 0;
}

typedef int (*row_writer)(struct writer *w, sqlite3_stmt *row);

static int check_bound(struct writer *w)
{
    w->counts.byte_limit = CHROME_EXPORT_BYTES_PER_ROW * w->rows + CHROME_EXPORT_BASE_BYTES;
    if (w->counts.bytes <= w->counts.byte_limit)
        return 0;
    return error_set(w->err,
                     "the export grew past its bound (%d bytes per row read, docs/overlapscope-export.md)",
                     CHROME_EXPORT_BYTES_PER_ROW);
}

struct row_pass {
    struct writer *w;
    row_writer write_row;
};

static int write_counted_row(void *context, sqlite3_stmt *row)
{
    struct row_pass *pass = context;
    pass->w->rows++;
    int status = pass->write_row(pass->w, row);
    return status == 0 ? check_bound(pass->w) : status;
}

static int for_each_row(struct writer *w, enum store_export_pass pass, row_writer write_row)
{
    struct row_pass context = {w, write_row};
    return store_export_each_row(w->trace, pass, write_counted_row, &context, w->err);
}

static int remember_process_name(struct writer *w, int64_t process_id)
{
    if (w->named_count == w->named_capacity) {
        size_t capacity = w->named_capacity ? w->named_capacity * 2 : 16;
        int64_t *grown = realloc(w->named_processes, capacity * sizeof *grown);
        if (!grown)
            return out_of_memory(w);
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
static int write_process(struct writer *w, sqlite3_stmt *row)
{
    char name[256], who[48];
    int64_t rank = column_or(row, 2, -1), pid = column_or(row, 1, -1);
    const char *host = (const char *)sqlite3_column_text(row, 3);
    naming_process(who, sizeof who, rank, pid, column(row, 0));
    int length = snprintf(name, sizeof name, "%s", who);
    if (rank >= 0 && pid >= 0)
        length += snprintf(name + length, sizeof name - (size_t)length, " pid %" PRId64, pid);
    snprintf(name + length, sizeof name - (size_t)length, "%s%.160s%s", host ? " (" : "", host ? host : "",
             host ? ")" : "");
    write_metadata(w, "process", column(row, 0), 0, name,
                   rank >= 0 ? rank : sort_after_ranks(column(row, 0), 1000000));
    return remember_process_name(w, column(row, 0));
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

static int write_api_call(struct writer *w, sqlite3_stmt *row)
{
    int64_t start = column(row, API_START), end = column(row, API_END), tid;
    if (!clip_slice(w, &start, &end, ROW_SLICE))
        return 0;
    int64_t process = column(row, API_PROCESS), thread = column(row, API_THREAD);
    if (place(w, (struct chrome_track_key){process, CHROME_TRACK_API, CHROME_TRACK_HOST, thread}, start, end,
              &tid))
        return -1;
    const struct cached_string *name = string_of(w, column(row, API_NAME));
    begin_slice(w, column(row, API_DOMAIN) == STORE_API_DRIVER ? "cuda_driver" : "cuda_runtime", name->text,
                name->cut, process, tid, start, end);
    emit_int(w, "thread", thread);
    arg_int(w, "correlation", row, API_CORRELATION);
    arg_int(w, "cbid", row, API_CBID);
    arg_int(w, "return", row, API_RETURN);
    end_event(w);
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
static int write_nvtx(struct writer *w, sqlite3_stmt *row)
{
    int on_gpu = sqlite3_column_type(row, NVTX_STREAM) != SQLITE_NULL;
    int is_mark = column(row, NVTX_KIND) == STORE_NVTX_MARK;
    int64_t start = column(row, NVTX_START), end = is_mark ? start : column(row, NVTX_END), tid;
    if (!clip_slice(w, &start, &end, ROW_SLICE))
        return 0;
    int64_t process = column(row, NVTX_PROCESS);
    struct chrome_track_key key = {process, CHROME_TRACK_NVTX, CHROME_TRACK_HOST,
                                   column_or(row, NVTX_THREAD, 0)};
    if (on_gpu)
        key = (struct chrome_track_key){process, CHROME_TRACK_STREAM_RANGES, column_or(row, NVTX_DEVICE, -1),
                                        column(row, NVTX_STREAM)};
    if (place(w, key, start, end, &tid) != 0)
        return -1;
    const struct cached_string *message = string_of(w, column(row, NVTX_MESSAGE));
    const char *category = on_gpu ? "gpu_user_annotation" : "nvtx";
    if (is_mark) {
        emitf(w, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"%s\",\"name\":", category);
        emit_string(w, message->text, CHROME_EXPORT_NAME_BYTES, message->cut);
        emitf(w, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", process, tid);
        emit_time(w, start);
        emit(w, ",\"args\":{");
        w->first_arg = 1;
        w->counts.instant_events++;
    } else {
        begin_slice(w, category, message->text, message->cut, process, tid, start, end);
    }
    emit_key(w, "domain");
    if (sqlite3_column_type(row, NVTX_DOMAIN) == SQLITE_NULL) {
        emit(w, "\"default\"");
    } else {
        const struct cached_string *domain = string_of(w, column(row, NVTX_DOMAIN));
        emit_string(w, domain->text, CHROME_EXPORT_NAME_BYTES, domain->cut);
    }
    end_event(w);
    return 0;
}

enum { SYNC_PROCESS, SYNC_STREAM, SYNC_EVENT, SYNC_TYPE, SYNC_CORRELATION, SYNC_START, SYNC_END };

static int write_sync(struct writer *w, sqlite3_stmt *row)
{
    int64_t start = column(row, SYNC_START), end = column(row, SYNC_END), tid;
    if (!clip_slice(w, &start, &end, ROW_SLICE))
        return 0;
    int64_t process = column(row, SYNC_PROCESS);
    if (place(w, (struct chrome_track_key){process, CHROME_TRACK_SYNC, CHROME_TRACK_HOST, 0}, start, end,
              &tid))
        return -1;
    const char *type = store_sync_type_name(column(row, SYNC_TYPE));
    begin_slice(w, "cuda_sync", type, 0, process, tid, start, end);
    emit_key(w, "sync_type");
    emit_string(w, type, CHROME_EXPORT_NAME_BYTES, 0);
    arg_int(w, "stream", row, SYNC_STREAM);
    arg_int(w, "event", row, SYNC_EVENT);
    arg_int(w, "correlation", row, SYNC_CORRELATION);
    end_event(w);
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

static void begin_gpu_slice(struct writer *w, sqlite3_stmt *op, const char *category, const char *name,
                            int cut_before, int64_t tid, int64_t start, int64_t end)
{
    begin_slice(w, category, name, cut_before, column(op, GPU_PROCESS), tid, start, end);
    emit_int(w, "device", column(op, GPU_DEVICE));
    emit_int(w, "stream", column(op, GPU_STREAM));
    arg_int(w, "correlation", op, GPU_CORRELATION);
}

static void write_kernel(struct writer *w, sqlite3_stmt *op, int64_t tid, int64_t start, int64_t end)
{
    sqlite3_stmt *k = store_export_detail(w->details, STORE_EXPORT_KERNEL, column(op, GPU_ROWID));
    if (!k)
        return;
    int64_t name_id = column(k, KERNEL_NAME);
    /* The short name the report gives the kernel (one rule: the analyzer's name cache). */
    const char *display = kernel_names_short(w->kernel_names, name_id);
    const struct cached_string *full = kernel_full_name(w, name_id);
    begin_gpu_slice(w, op, "kernel", display, 0, tid, start, end);
    emit_key(w, "full name");
    emit_string(w, full->demangled, CHROME_EXPORT_TEXT_BYTES, full->demangled_cut);
    if (strcmp(full->demangled, full->text) != 0) {
        emit_key(w, "mangled name");
        emit_string(w, full->text, CHROME_EXPORT_TEXT_BYTES, full->cut);
    }
    if (sqlite3_column_type(k, KERNEL_GRID_X) != SQLITE_NULL) {
        emit_key(w, "grid");
        emitf(w, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", column(k, KERNEL_GRID_X), column(k, KERNEL_GRID_Y),
              column(k, KERNEL_GRID_Z));
        emit_key(w, "block");
        emitf(w, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", column(k, KERNEL_BLOCK_X),
              column(k, KERNEL_BLOCK_Y), column(k, KERNEL_BLOCK_Z));
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
        (args[i].is_text ? arg_text : arg_int)(w, args[i].key, k, args[i].column);
    end_event(w);
}

static void write_memcpy(struct writer *w, sqlite3_stmt *op, int64_t tid, int64_t start, int64_t end)
{
    sqlite3_stmt *c = store_export_detail(w->details, STORE_EXPORT_MEMCPY, column(op, GPU_ROWID));
    if (!c)
        return;
    /* Named as the report and the picture name it (naming_copy: "HtoD 64.0 MiB (pageable)"); both
     * sides' memory in args. */
    char name[96];
    int64_t source = column_or(c, 1, 0), destination = column_or(c, 2, 0);
    naming_copy(name, sizeof name, column(c, 0), column(c, 3), naming_copy_is_pageable(source, destination));
    begin_gpu_slice(w, op, "gpu_memcpy", name, 0, tid, start, end);
    emit_int(w, "bytes", column(c, 3));
    emit_key(w, "source memory");
    emit_string(w, store_memory_kind_name(source), CHROME_EXPORT_NAME_BYTES, 0);
    emit_key(w, "destination memory");
    emit_string(w, store_memory_kind_name(destination), CHROME_EXPORT_NAME_BYTES, 0);
    end_event(w);
}

static void write_memset(struct writer *w, sqlite3_stmt *op, int64_t tid, int64_t start, int64_t end)
{
    sqlite3_stmt *s = store_export_detail(w->details, STORE_EXPORT_MEMSET, column(op, GPU_ROWID));
    if (!s)
        return;
    char name[64];
    snprintf(name, sizeof name, "Memset (%s)", store_memory_kind_name(column_or(s, 0, 0)));
    begin_gpu_slice(w, op, "gpu_memset", name, 0, tid, start, end);
    emit_int(w, "bytes", column(s, 1));
    end_event(w);
}

/* Launch (API call) to GPU op, as PyTorch's profiler links them ("ac2g"): the start at the call's
 * start, the end inside the op. */
static void write_launch_arrow(struct writer *w, sqlite3_stmt *op, int64_t op_tid, int64_t start, int64_t end)
{
    if (sqlite3_column_type(op, CALL_THREAD) == SQLITE_NULL)
        return;
    int64_t call_start = column(op, CALL_START), call_end = column(op, CALL_END);
    if (!clip_interval(w, &call_start, &call_end, ROW_SLICE))
        return;
    int64_t process = column(op, GPU_PROCESS);
    struct chrome_track_key key = {process, CHROME_TRACK_API, CHROME_TRACK_HOST, column(op, CALL_THREAD)};
    int64_t call_tid = chrome_tracks_find(w->tracks, &key, call_start, call_end),
            op_point = middle(start, end);
    if (!call_tid)
        return;
    if (op_point < call_start) {
        w->counts.launches_before_call++;
        return;
    }
    int64_t id = ++w->next_flow_id;
    emit_flow_point(w, 's', "ac2g", "launch", id, process, call_tid, call_start);
    emit_flow_point(w, 'f', "ac2g", "launch", id, process, op_tid, op_point);
    w->counts.launch_arrows++;
}

static int write_gpu_op(struct writer *w, sqlite3_stmt *op)
{
    int64_t start = column(op, GPU_START), end = column(op, GPU_END), tid;
    if (!clip_slice(w, &start, &end, ROW_SLICE))
        return 0;
    struct chrome_track_key key = {column(op, GPU_PROCESS), CHROME_TRACK_STREAM, column(op, GPU_DEVICE),
                                   column(op, GPU_STREAM)};
    if (place(w, key, start, end, &tid) != 0)
        return -1;
    int64_t kind = column(op, GPU_KIND);
    if (kind == GPU_KERNEL)
        write_kernel(w, op, tid, start, end);
    else if (kind == GPU_MEMCPY)
        write_memcpy(w, op, tid, start, end);
    else
        write_memset(w, op, tid, start, end);
    write_launch_arrow(w, op, tid, start, end);
    return 0;
}

/* --- the analyzer's waits --- */

struct wait_order {
    const struct analysis_wait *wait;
    int64_t process_id, device_id;
};

static int compare_waits(const void *left, const void *right)
{
    const struct wait_order *a = left, *b = right;
    if (a->process_id != b->process_id)
        return a->process_id < b->process_id ? -1 : 1;
    if (a->device_id != b->device_id)
        return a->device_id < b->device_id ? -1 : 1;
    if (a->wait->wait_start_ns != b->wait->wait_start_ns)
        return a->wait->wait_start_ns < b->wait->wait_start_ns ? -1 : 1;
    return a->wait->wait_end_ns > b->wait->wait_end_ns ? -1 : a->wait->wait_end_ns < b->wait->wait_end_ns;
}

/* The exported slice of a GPU op the analyzer cites: its track and times; 0 when it has none. */
static int op_slice(struct writer *w, const struct analysis_op *op, int64_t *tid, int64_t *start,
                    int64_t *end)
{
    const struct analysis_lane *lane = &w->analysis->lanes[op->lane];
    *start = op->start_ns;
    *end = op->end_ns;
    if (!clip_interval(w, start, end, ROW_SLICE))
        return 0;
    struct chrome_track_key key = {lane->process_id, CHROME_TRACK_STREAM, lane->device_id, lane->stream_id};
    *tid = chrome_tracks_find(w->tracks, &key, *start, *end);
    return *tid != 0;
}

/* blocking op -> the wait's slice -> waiting op. A flow's points must come in time order (viewers
 * read them sorted by time), each inside its slice: the middle of each, moved earlier or later
 * where the order needs it. */
static void write_wait_arrow(struct writer *w, const struct analysis_wait *wait, int64_t process,
                             int64_t wait_tid, int64_t wait_start, int64_t wait_end)
{
    int64_t blocking_tid, blocking_start, blocking_end, waiting_tid, waiting_start, waiting_end;
    if (!op_slice(w, &wait->blocking, &blocking_tid, &blocking_start, &blocking_end) ||
        !op_slice(w, &wait->waiting, &waiting_tid, &waiting_start, &waiting_end)) {
        w->counts.waits_without_arrow++;
        return;
    }
    int64_t at_waiting = middle(waiting_start, waiting_end);
    int64_t at_wait = middle(wait_start, wait_end);
    at_wait = at_wait > at_waiting ? at_waiting : at_wait;
    at_wait = at_wait < wait_start ? wait_start : at_wait;
    at_waiting = at_waiting < at_wait ? at_wait : at_waiting;
    int64_t at_blocking = middle(blocking_start, blocking_end);
    at_blocking = at_blocking > at_wait ? at_wait : at_blocking;
    if (at_waiting > waiting_end || at_blocking < blocking_start) {
        w->counts.waits_without_arrow++;
        return;
    }
    const char *tag = analysis_cause_tag(wait->cause);
    const struct analysis_lane *blocking_lane = &w->analysis->lanes[wait->blocking.lane];
    int64_t id = ++w->next_flow_id;
    emit_flow_point(w, 's', "wait", tag, id, blocking_lane->process_id, blocking_tid, at_blocking);
    emit_flow_point(w, 't', "wait", tag, id, process, wait_tid, at_wait);
    emit_flow_point(w, 'f', "wait", tag, id, process, waiting_tid, at_waiting);
    w->counts.wait_arrows++;
}

static void emit_op_args(struct writer *w, const char *role, const struct analysis_op *op)
{
    char key[32];
    emit_key(w, role);
    emit_string(w, op->name, CHROME_EXPORT_NAME_BYTES, 0);
    snprintf(key, sizeof key, "%s stream", role);
    emit_int(w, key, w->analysis->lanes[op->lane].stream_id);
}

/* One wait: a slice on its device's waits track named by its cause. */
static int write_wait(struct writer *w, const struct wait_order *item)
{
    const struct analysis_wait *wait = item->wait;
    int64_t start = wait->wait_start_ns, end = wait->wait_end_ns, tid;
    if (!clip_slice(w, &start, &end, ANALYSIS_SLICE))
        return 0;
    if (place(w, (struct chrome_track_key){item->process_id, CHROME_TRACK_WAITS, item->device_id, 0}, start,
              end, &tid) != 0)
        return -1;
    char lost[32];
    begin_slice(w, "wait", analysis_cause_title(wait->cause), 0, item->process_id, tid, start, end);
    emit_key(w, "cause");
    emit_string(w, analysis_cause_tag(wait->cause), CHROME_EXPORT_NAME_BYTES, 0);
    emit_key(w, "lost");
    emit_string(w, units_format_duration(lost, sizeof lost, wait->lost_ns), CHROME_EXPORT_NAME_BYTES, 0);
    emit_int(w, "lost_ns", wait->lost_ns);
    emit_key(w, "evidence");
    emit_string(w, wait->evidence, CHROME_EXPORT_TEXT_BYTES, 0);
    emit_op_args(w, "waiting", &wait->waiting);
    emit_op_args(w, "blocking", &wait->blocking);
    end_event(w);
    w->counts.wait_slices++;
    write_wait_arrow(w, wait, item->process_id, tid, start, end);
    return 0;
}

static int write_waits(struct writer *w)
{
    const struct analysis_result *analysis = w->analysis;
    if (!analysis || analysis->wait_count == 0)
        return 0;
    struct wait_order *order = malloc(analysis->wait_count * sizeof *order);
    if (!order)
        return out_of_memory(w);
    for (size_t i = 0; i < analysis->wait_count; i++) {
        const struct analysis_lane *lane = &analysis->lanes[analysis->waits[i].waiting.lane];
        order[i] = (struct wait_order){&analysis->waits[i], lane->process_id, lane->device_id};
    }
    qsort(order, analysis->wait_count, sizeof *order, compare_waits);
    int status = 0;
    for (size_t i = 0; status == 0 && i < analysis->wait_count; i++) {
        w->rows++;
        status = write_wait(w, &order[i]);
        if (status == 0)
            status = check_bound(w);
    }
    free(order);
    return status;
}

/* --- the analyzer's time accounting (issue 16) --- */

/* The device's whole-span entry an interval went to (its cause and label), and whether it is the
 * only one: a blocking call seen at several places of the program has one entry per place, and
 * the interval does not say which. NULL when none (a step-only stretch). */
static const struct accounting_entry *interval_entry(const struct writer *w,
                                                     const struct accounting_interval *interval, int *only)
{
    const struct analysis_result *analysis = w->analysis;
    const struct accounting_entry *found = NULL;
    *only = 0;
    size_t first = 0, end = analysis->accounting_count;
    if (w->whole_of) { /* its one whole-span accounting, not a scan of every step's */
        first = w->whole_of[interval->device];
        end = first == SIZE_MAX ? first : first + 1;
    }
    for (size_t a = first; a < end; a++) {
        const struct analysis_accounting *books = &analysis->accountings[a];
        if (books->device != interval->device || books->step != -1)
            continue;
        const struct accounting_breakdown *breakdown =
            accounting_cause_is_idle(interval->cause) ? &books->idle : &books->exposed_communication;
        for (size_t e = 0; e < breakdown->entry_count; e++) {
            const struct accounting_entry *entry = &breakdown->entries[e];
            if (entry->cause != interval->cause || strcmp(entry->label, interval->label) != 0)
                continue;
            *only = !found;
            if (!found)
                found = entry; /* entries come largest first */
        }
    }
    return found;
}

/* Where a device's idle and exposed-communication time went: one slice per stretch of one cause
 * (accounting.h; the analyzer keeps the earliest ACCOUNTING_MAX_INTERVALS), named as the picture
 * names it ("idle: host blocked in cudaDeviceSynchronize", "exposed comm: waiting for rank 0"),
 * on the device's "idle causes" or "exposed communication" track, with the cause's evidence in
 * args. Stretches come in time order per device and never overlap (idle: nothing ran; exposed:
 * NCCL ran without compute), so each track is strict. */
static int write_accounting_interval(struct writer *w, const struct accounting_interval *interval)
{
    const struct analysis_device *device = &w->analysis->devices[interval->device];
    int64_t start = interval->start_ns, end = interval->end_ns, tid;
    if (!clip_slice(w, &start, &end, ANALYSIS_SLICE))
        return 0;
    int idle = accounting_cause_is_idle(interval->cause);
    struct chrome_track_key key = {device->process_id, idle ? CHROME_TRACK_IDLE : CHROME_TRACK_EXPOSED_COMM,
                                   device->device_id, 0};
    if (place(w, key, start, end, &tid) != 0)
        return -1;
    char what[160], name[192], total[32];
    naming_accounting(what, sizeof what, interval->cause, interval->label);
    snprintf(name, sizeof name, "%s: %s", idle ? "idle" : "exposed comm", what);
    begin_slice(w, idle ? "idle" : "exposed communication", name, 0, device->process_id, tid, start, end);
    emit_key(w, "cause");
    emit_string(w, accounting_cause_tag(interval->cause), CHROME_EXPORT_NAME_BYTES, 0);
    emit_key(w, "kind");
    emit(w, idle ? "\"idle\"" : "\"exposed communication\"");
    if (interval->label[0]) {
        emit_key(w, "label");
        emit_string(w, interval->label, CHROME_EXPORT_NAME_BYTES, 0);
    }
    int only = 0;
    const struct accounting_entry *entry = interval_entry(w, interval, &only);
    if (entry) {
        emit_key(w, "cause total");
        emit_string(w, units_format_duration(total, sizeof total, entry->ns), CHROME_EXPORT_NAME_BYTES, 0);
        emit_int(w, "cause count", entry->count);
        emit_key(w, "evidence");
        emit_string(w, entry->evidence, CHROME_EXPORT_TEXT_BYTES, 0);
        if (only && entry->source[0]) {
            /* a person reads it in the viewer: a native symbol demangled, as the report shows it */
            char *source = call_source_readable(entry->source, CALL_SOURCE_FULL);
            emit_key(w, "source");
            emit_string(w, source ? source : entry->source, CHROME_EXPORT_NAME_BYTES, 0);
            free(source);
        }
    }
    end_event(w);
    return 0;
}

static int compare_intervals(const void *left, const void *right)
{
    const struct accounting_interval *a = *(const struct accounting_interval *const *)left;
    const struct accounting_interval *b = *(const struct accounting_interval *const *)right;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    return a->end_ns > b->end_ns ? -1 : a->end_ns < b->end_ns;
}

/* The analyzer lists a device's idle stretches and its exposed ones apart: in one time order they
 * share one track. */
static int write_accounting(struct writer *w)
{
    const struct analysis_result *analysis = w->analysis;
    if (!analysis || analysis->accounting_interval_count == 0)
        return 0;
    const struct accounting_interval **order = malloc(analysis->accounting_interval_count * sizeof *order);
    if (!order)
        return out_of_memory(w);
    size_t count = 0;
    for (size_t i = 0; i < analysis->accounting_interval_count; i++)
        if (analysis->accounting_intervals[i].device < analysis->device_count)
            order[count++] = &analysis->accounting_intervals[i];
    qsort(order, count, sizeof *order, compare_intervals);
    /* Each device's whole-span accounting found once (an interval's cause total is read there):
     * a scan of every device's every step per interval was quadratic in steps. Where a device has
     * more than one (none does today), the scan stays. */
    size_t *whole_of = malloc((analysis->device_count ? analysis->device_count : 1) * sizeof *whole_of);
    if (!whole_of) {
        free(order);
        return out_of_memory(w);
    }
    int unique = 1;
    for (size_t d = 0; d < analysis->device_count; d++)
        whole_of[d] = SIZE_MAX;
    for (size_t a = 0; a < analysis->accounting_count; a++) {
        const struct analysis_accounting *books = &analysis->accountings[a];
        if (books->step != -1 || books->device >= analysis->device_count)
            continue;
        unique &= whole_of[books->device] == SIZE_MAX;
        whole_of[books->device] = a;
    }
    w->whole_of = unique ? whole_of : NULL;
    int status = 0;
    for (size_t i = 0; status == 0 && i < count; i++) {
        w->rows++;
        status = write_accounting_interval(w, order[i]);
        if (status == 0)
            status = check_bound(w);
    }
    w->whole_of = NULL;
    free(whole_of);
    free(order);
    return status;
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
    return kind == CHROME_TRACK_WAITS || kind == CHROME_TRACK_IDLE || kind == CHROME_TRACK_EXPOSED_COMM;
}

static void track_name(struct writer *w, const struct chrome_track *track, char *name, size_t size)
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
static int write_track_names(struct writer *w)
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
    return count > 0 && !list ? out_of_memory(w) : 0;
}

/* --- the document --- */

static int write_events(struct writer *w)
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
    if (write_waits(w) != 0 || write_accounting(w) != 0)
        return -1;
    return write_track_names(w);
}

static int prepare_queries(struct writer *w)
{
    if (!(w->strings = store_lookup_new(w->trace, w->err)) ||
        !(w->kernel_names = kernel_names_new(w->db, w->err)) ||
        !(w->details = store_export_details_new(w->trace, w->err)))
        return -1;
    return 0;
}

static void finalize_queries(struct writer *w)
{
    store_lookup_free(w->strings);
    kernel_names_free(w->kernel_names);
    store_export_details_free(w->details);
}

static void write_origin_note(struct writer *w)
{
    emit(w, ",\"origin\":");
    if (w->report_origin_ns == STORE_NULL)
        emit(w, "\"the trace's first activity (it has no GPU activity, so no report)\"");
    else if (w->origin_ns == w->report_origin_ns)
        emit(w,
             "\"report: time 0 is the report's +0 (the trace's first GPU activity), so '+166 ms' in"
             " `overlapscope report` is at 166 ms here; activity before it is left out (export --origin trace"
             " keeps it)\"");
    else
        emit(w, "\"trace: time 0 is the trace's first activity; the report's +0 is at report_origin_us\"");
    emitf(w, ",\"origin_ns\":\"%" PRId64 "\"", w->origin_ns);
    if (w->report_origin_ns != STORE_NULL) {
        emitf(w, ",\"report_origin_ns\":\"%" PRId64 "\",\"report_origin_us\":", w->report_origin_ns);
        emit_time(w, w->report_origin_ns);
    }
}

static void write_other_data(struct writer *w)
{
    const struct chrome_export_counts *c = &w->counts;
    char *source = store_get_meta(w->trace, "source");
    emit(w, "\n],\n\"otherData\":{\"producer\":\"overlapscope\",\"source\":");
    emit_string(w, source ? source : "unknown", CHROME_EXPORT_NAME_BYTES, 0);
    free(source);
    write_origin_note(w);
    if (w->analysis)
        emitf(w, ",\"waits_found\":%" PRId64 ",\"waits_exported\":%" PRId64 ",\"lost_ns\":%" PRId64,
              w->analysis->wait_total_count, c->wait_slices, w->analysis->total_lost_ns);
    emitf(w,
          ",\"left_out_before_origin\":%" PRId64 ",\"cut_at_origin\":%" PRId64
          ",\"implausible_rows\":%" PRId64 ",\"overflow_tracks\":%" PRId64
          ",\"shared_correlation_ids\":%" PRId64 ",\"launches_before_call\":%" PRId64
          ",\"waits_without_arrow\":%" PRId64 ",\"texts_cut\":%" PRId64 ",\"bytes_per_row_bound\":%d}}\n",
          c->left_out_before_origin, c->cut_at_origin, c->implausible_rows, c->overflow_tracks,
          c->shared_correlation_ids, c->launches_before_call, c->waits_without_arrow, c->texts_cut,
          CHROME_EXPORT_BYTES_PER_ROW);
}

static int write_document(struct writer *w)
{
    if (prepare_queries(w) != 0) {
        finalize_queries(w);
        return -1;
    }
    w->counts.shared_correlation_ids = store_count_shared_correlation_ids(w->trace);
    /* No displayTimeUnit: Perfetto takes it as the unit of ts (json_trace_tokenizer.cc,
     * MaybeParseDisplayTimeUnit), chrome://tracing as a display preference only, so with "ns" the
     * two viewers disagreed 1000-fold. Without it both read microseconds. */
    emit(w, "{\"traceEvents\":[\n");
    /* A global instant at the report's +0 (a mark the viewer shows); it also keeps every later
     * event free to start with a comma. */
    int64_t mark = w->report_origin_ns != STORE_NULL ? w->report_origin_ns : w->origin_ns;
    emit(w,
         "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"report +0\",\"cat\":\"origin\",\"pid\":0,\"tid\":0,\"ts\":");
    emit_time(w, mark < w->origin_ns ? w->origin_ns : mark);
    emit(w, "}");
    w->counts.instant_events++;
    int status = write_events(w);
    finalize_queries(w);
    if (status != 0)
        return -1;
    write_other_data(w);
    return check_bound(w);
}

/* Write errors are the caller's to report: output_file_commit names the file and the reason. */
static int export_to(struct writer *w, FILE *out)
{
    w->out = out;
    return write_document(w);
}

static struct writer *writer_new(store *trace, const struct analysis_result *analysis,
                                 const struct chrome_export_options *options, error_info *err)
{
    struct writer *w = calloc(1, sizeof *w);
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

static void writer_free(struct writer *w)
{
    chrome_tracks_free(w->tracks);
    free(w->named_processes);
    free(w);
}

/* --- OUT.json.gz: the JSON gzip-compressed on its way to the file (Perfetto, chrome://tracing and
 * Python's gzip open it; a plain JSON under a .gz name opens nowhere) --- */

struct gzip_sink {
    z_stream z;
    FILE *file;
    int failed;
};

/* Deflates data (flush: Z_NO_FLUSH, or Z_FINISH at the end) into the file. */
static int gzip_push(struct gzip_sink *sink, const char *data, size_t size, int flush)
{
    unsigned char chunk[1 << 16];
    sink->z.next_in = (Bytef *)data;
    sink->z.avail_in = (uInt)size; /* stdio hands over at most its buffer */
    do {
        sink->z.next_out = chunk;
        sink->z.avail_out = sizeof chunk;
        if (deflate(&sink->z, flush) == Z_STREAM_ERROR)
            return -1;
        size_t have = sizeof chunk - sink->z.avail_out;
        if (have > 0 && fwrite(chunk, 1, have, sink->file) != have)
            return -1;
    } while (sink->z.avail_out == 0);
    return 0;
}

static ssize_t gzip_write(void *cookie, const char *data, size_t size)
{
    struct gzip_sink *sink = cookie;
    if (sink->failed || gzip_push(sink, data, size, Z_NO_FLUSH) != 0) {
        sink->failed = 1;
        errno = EIO;
        return -1;
    }
    return (ssize_t)size;
}

static int gzip_close(void *cookie)
{
    struct gzip_sink *sink = cookie;
    int failed = sink->failed || gzip_push(sink, NULL, 0, Z_FINISH) != 0;
    deflateEnd(&sink->z);
    free(sink);
    return failed ? -1 : 0;
}

/* A stream whose bytes reach file gzip-compressed; fclose writes the end (file stays open).
 * NULL when out of memory. */
static FILE *gzip_stream(FILE *file)
{
    struct gzip_sink *sink = calloc(1, sizeof *sink);
    /* 15 + 16: a gzip header and trailer around the deflate data (zlib.h, deflateInit2) */
    if (!sink ||
        deflateInit2(&sink->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(sink);
        return NULL;
    }
    sink->file = file;
    FILE *stream = fopencookie(sink, "w", (cookie_io_functions_t){.write = gzip_write, .close = gzip_close});
    if (!stream)
        gzip_close(sink);
    return stream;
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
    struct writer *w = out ? writer_new(trace, analysis, options ? options : &defaults, err) : NULL;
    if (!w) {
        output_file_discard(output);
        return -1;
    }
    FILE *json = !to_stdout && ends_with_gz(output_path) ? gzip_stream(out) : out;
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
