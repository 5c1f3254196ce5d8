/* chrome_writer.h: the Chrome exporter's own writer, shared by its files (chrome_export.c: the
 * trace's rows and the document; chrome_analysis.c: the analyzer's waits and time accounting;
 * chrome_writer.c: the output primitives, clipping and the string cache). Private to export/:
 * nothing outside includes it. Every byte goes through chrome_emit*, so counts.bytes is exact. */
#ifndef OVERLAPSCOPE_CHROME_WRITER_H
#define OVERLAPSCOPE_CHROME_WRITER_H

#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "chrome_bounds.h"
#include "chrome_tracks.h"
#include "describe.h"
#include "kernel_names.h"
#include "queries_export.h"
#include "store.h"

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

struct chrome_writer {
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

/* How long a slice may last: a row of the trace is one operation (STORE_MAX_DURATION_NS), while
 * what the analysis found (a wait, a stretch of idle time) may last up to a device's span
 * (STORE_MAX_SPAN_NS). */
enum { ROW_SLICE, ANALYSIS_SLICE };

/* Text as it is, and printf-formatted text, into the output. */
void chrome_emit(struct chrome_writer *w, const char *text);

__attribute__((format(printf, 2, 3))) void chrome_emitf(struct chrome_writer *w, const char *format, ...);

/* A JSON string of text (text_safe.h's JSON style: escaped, invalid UTF-8 repaired) holding at
 * most cap bytes between its quotes: when the text does not fit (or was already cut, cut_before)
 * it is cut between characters and ends with an ellipsis. cap is at most CHROME_EXPORT_TEXT_BYTES. */
void chrome_emit_string(struct chrome_writer *w, const char *text, size_t cap, int cut_before);

/* Nanoseconds as microseconds with exactly three decimals, from integers. */
void chrome_emit_microseconds(struct chrome_writer *w, uint64_t nanoseconds);

/* A time at or after time zero, relative to it. */
void chrome_emit_time(struct chrome_writer *w, int64_t absolute_ns);

void chrome_emit_key(struct chrome_writer *w, const char *key);

void chrome_emit_int(struct chrome_writer *w, const char *key, int64_t value);

/* ,"key":value for a column that is not NULL. */
void chrome_arg_int(struct chrome_writer *w, const char *key, sqlite3_stmt *row, int column);

void chrome_arg_text(struct chrome_writer *w, const char *key, sqlite3_stmt *row, int column);

int64_t chrome_column(sqlite3_stmt *row, int index);

int64_t chrome_column_or(sqlite3_stmt *row, int index, int64_t otherwise);

int64_t chrome_middle(int64_t start, int64_t end);

/* Whether [start, end] lies on the clock (+-2^61 ns at its start) and within its kind's length. */
int chrome_slice_plausible(int64_t start, int64_t end, int kind);

/* Cuts [*start, *end] to the exported part (from time zero, within from/to). Returns 0 when
 * nothing of it is left. */
int chrome_clip_interval(const struct chrome_writer *w, int64_t *start, int64_t *end, int kind);

/* clip_interval for a slice about to be written, counting what it leaves out or cuts. */
int chrome_clip_slice(struct chrome_writer *w, int64_t *start, int64_t *end, int kind);

/* Cuts text in place to at most max bytes, between characters. Returns 1 when it cut. */
int chrome_cut_text(char *text, size_t max);

const struct cached_string *chrome_string_of(struct chrome_writer *w, int64_t id);

/* The demangled full name of a kernel (the name itself when it is not mangled). */
const struct cached_string *chrome_kernel_full_name(struct chrome_writer *w, int64_t name_id);

/* ,\n{"ph":"X","cat":..,"name":..,"pid":..,"tid":..,"ts":..,"dur":..,"args":{ -- the caller
 * writes the args (emit_key and the functions using it) and closes with end_event. */
void chrome_begin_slice(struct chrome_writer *w, const char *category, const char *name, int cut_before,
                        int64_t pid, int64_t tid, int64_t start_ns, int64_t end_ns);

void chrome_end_event(struct chrome_writer *w);

void chrome_emit_flow_point(struct chrome_writer *w, char phase, const char *category, const char *name,
                            int64_t id, int64_t pid, int64_t tid, int64_t time_ns);

int chrome_out_of_memory(struct chrome_writer *w);

/* Places a slice on its logical track (chrome_tracks.h). Returns 0 and the tid, or -1. */
int chrome_place(struct chrome_writer *w, struct chrome_track_key key, int64_t start_ns, int64_t end_ns,
                 int64_t *tid);

/* Whether the export stays within its bound (CHROME_EXPORT_BYTES_PER_ROW per row read): 0, or -1
 * with w->err set. */
int chrome_check_bound(struct chrome_writer *w);

/* The analyzer's layers (chrome_analysis.c): its waits as slices with flow arrows, and where each
 * device's idle time and exposed communication went. Each returns 0, or -1 with w->err set. */
int chrome_write_waits(struct chrome_writer *w);
int chrome_write_accounting(struct chrome_writer *w);

#endif
