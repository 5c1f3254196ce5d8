/* chrome_writer.c: the Chrome exporter's output primitives, clipping, string cache and event
 * shapes (see chrome_writer.h). */
#include "chrome_writer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_name.h"
#include "naming.h"
#include "text_safe.h"
#include "units.h"

/* --- output: every byte goes through these, so counts.bytes is exact --- */

void chrome_emit(struct chrome_writer *w, const char *text)
{
    size_t length = strlen(text);
    fwrite(text, 1, length, w->out);
    w->counts.bytes += (int64_t)length;
}

void chrome_emitf(struct chrome_writer *w, const char *format, ...)
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
void chrome_emit_string(struct chrome_writer *w, const char *text, size_t cap, int cut_before)
{
    static const char ellipsis[] = "\xe2\x80\xa6";
    char safe[CHROME_EXPORT_TEXT_BYTES + 1];
    int cut = cut_before || text_safe_copy(safe, cap + 1, text, TEXT_SAFE_JSON) > cap;
    if (cut) {
        text_safe_copy(safe, cap + 1 - (sizeof ellipsis - 1), text, TEXT_SAFE_JSON);
        w->counts.texts_cut++;
    }
    chrome_emit(w, "\"");
    chrome_emit(w, safe);
    if (cut)
        chrome_emit(w, ellipsis);
    chrome_emit(w, "\"");
}

/* Nanoseconds as microseconds with exactly three decimals, from integers. */
void chrome_emit_microseconds(struct chrome_writer *w, uint64_t nanoseconds)
{
    chrome_emitf(w, "%" PRIu64 ".%03u", nanoseconds / 1000, (unsigned)(nanoseconds % 1000));
}

/* A time at or after time zero, relative to it. */
void chrome_emit_time(struct chrome_writer *w, int64_t absolute_ns)
{
    chrome_emit_microseconds(w, (uint64_t)absolute_ns - (uint64_t)w->origin_ns);
}

void chrome_emit_key(struct chrome_writer *w, const char *key)
{
    chrome_emitf(w, "%s\"%s\":", w->first_arg ? "" : ",", key);
    w->first_arg = 0;
}

void chrome_emit_int(struct chrome_writer *w, const char *key, int64_t value)
{
    chrome_emit_key(w, key);
    chrome_emitf(w, "%" PRId64, value);
}

/* ,"key":value for a column that is not NULL. */
void chrome_arg_int(struct chrome_writer *w, const char *key, sqlite3_stmt *row, int column)
{
    if (sqlite3_column_type(row, column) != SQLITE_NULL)
        chrome_emit_int(w, key, (int64_t)sqlite3_column_int64(row, column));
}

void chrome_arg_text(struct chrome_writer *w, const char *key, sqlite3_stmt *row, int column)
{
    const unsigned char *text = sqlite3_column_text(row, column);
    if (text) {
        chrome_emit_key(w, key);
        chrome_emit_string(w, (const char *)text, CHROME_EXPORT_NAME_BYTES, 0);
    }
}

int64_t chrome_column(sqlite3_stmt *row, int index)
{
    return (int64_t)sqlite3_column_int64(row, index);
}

int64_t chrome_column_or(sqlite3_stmt *row, int index, int64_t otherwise)
{
    return sqlite3_column_type(row, index) == SQLITE_NULL ? otherwise : chrome_column(row, index);
}

int64_t chrome_middle(int64_t start, int64_t end)
{
    return start + (int64_t)(((uint64_t)end - (uint64_t)start) / 2);
}

/* --- what is exported --- */

/* Whether [start, end] lies on the clock (+-2^61 ns at its start) and within its kind's length. */
int chrome_slice_plausible(int64_t start, int64_t end, int kind)
{
    uint64_t max_ns = (uint64_t)(kind == ROW_SLICE ? STORE_MAX_DURATION_NS : STORE_MAX_SPAN_NS);
    return store_interval_plausible(start, start) &&
           (end <= start || (uint64_t)end - (uint64_t)start <= max_ns);
}

/* Cuts [*start, *end] to the exported part (from time zero, within from/to). Returns 0 when
 * nothing of it is left. */
int chrome_clip_interval(const struct chrome_writer *w, int64_t *start, int64_t *end, int kind)
{
    if (!chrome_slice_plausible(*start, *end, kind))
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
int chrome_clip_slice(struct chrome_writer *w, int64_t *start, int64_t *end, int kind)
{
    int64_t original_start = *start;
    if (!chrome_slice_plausible(*start, *end, kind)) {
        w->counts.implausible_rows++;
        return 0;
    }
    if (!chrome_clip_interval(w, start, end, kind)) {
        w->counts.left_out_before_origin++;
        return 0;
    }
    if (*start != original_start)
        w->counts.cut_at_origin++;
    return 1;
}

/* Cuts text in place to at most max bytes, between characters. Returns 1 when it cut. */
int chrome_cut_text(char *text, size_t max)
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

const struct cached_string *chrome_string_of(struct chrome_writer *w, int64_t id)
{
    struct cached_string *entry = &w->cache[(uint64_t)id % STRING_CACHE_SLOTS];
    if (entry->used && entry->id == id)
        return entry;
    /* One byte more than is kept tells whether the text was longer. */
    store_lookup_string(w->strings, id, entry->text, sizeof entry->text);
    entry->cut = chrome_cut_text(entry->text, CHROME_EXPORT_TEXT_BYTES);
    entry->id = id;
    entry->used = 1;
    entry->demangled_ready = 0;
    return entry;
}

/* The demangled full name of a kernel (the name itself when it is not mangled). */
const struct cached_string *chrome_kernel_full_name(struct chrome_writer *w, int64_t name_id)
{
    struct cached_string *entry = (struct cached_string *)chrome_string_of(w, name_id);
    if (!entry->demangled_ready) {
        char *full = kernel_name_demangle(entry->text);
        snprintf(entry->demangled, sizeof entry->demangled, "%s", full ? full : entry->text);
        entry->demangled_cut = entry->cut || (full && strlen(full) >= sizeof entry->demangled);
        chrome_cut_text(entry->demangled, CHROME_EXPORT_TEXT_BYTES);
        free(full);
        entry->demangled_ready = 1;
    }
    return entry;
}

/* --- events --- */

/* ,\n{"ph":"X","cat":..,"name":..,"pid":..,"tid":..,"ts":..,"dur":..,"args":{ -- the caller
 * writes the args (emit_key and the functions using it) and closes with end_event. */
void chrome_begin_slice(struct chrome_writer *w, const char *category, const char *name, int cut_before,
                        int64_t pid, int64_t tid, int64_t start_ns, int64_t end_ns)
{
    chrome_emitf(w, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", category);
    chrome_emit_string(w, name, CHROME_EXPORT_NAME_BYTES, cut_before);
    chrome_emitf(w, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", pid, tid);
    chrome_emit_time(w, start_ns);
    chrome_emit(w, ",\"dur\":");
    chrome_emit_microseconds(w, (uint64_t)end_ns - (uint64_t)start_ns);
    chrome_emit(w, ",\"args\":{");
    w->first_arg = 1;
    w->counts.complete_events++;
}

void chrome_end_event(struct chrome_writer *w)
{
    chrome_emit(w, "}}");
}

void chrome_emit_flow_point(struct chrome_writer *w, char phase, const char *category, const char *name,
                            int64_t id, int64_t pid, int64_t tid, int64_t time_ns)
{
    chrome_emitf(w,
                 ",\n{\"ph\":\"%c\",\"cat\":\"%s\",\"name\":\"%s\",\"id\":%" PRId64 ",\"pid\":%" PRId64
                 ",\"tid\":%" PRId64 ",\"ts\":",
                 phase, category, name, id, pid, tid);
    chrome_emit_time(w, time_ns);
    chrome_emit(w, phase == 'f' ? ",\"bp\":\"e\"}" : "}");
    w->counts.flow_events++;
}

int chrome_out_of_memory(struct chrome_writer *w)
{
    return error_set(w->err, "out of memory");
}

/* Places a slice on its logical track (chrome_tracks.h). Returns 0 and the tid, or -1. */
int chrome_place(struct chrome_writer *w, struct chrome_track_key key, int64_t start_ns, int64_t end_ns,
                 int64_t *tid)
{
    return chrome_tracks_place(w->tracks, &key, start_ns, end_ns, tid) == 0 ? 0 : chrome_out_of_memory(w);
}

int chrome_check_bound(struct chrome_writer *w)
{
    w->counts.byte_limit = CHROME_EXPORT_BYTES_PER_ROW * w->rows + CHROME_EXPORT_BASE_BYTES;
    if (w->counts.bytes <= w->counts.byte_limit)
        return 0;
    return error_set(w->err,
                     "the export grew past its bound (%d bytes per row read, docs/overlapscope-export.md)",
                     CHROME_EXPORT_BYTES_PER_ROW);
}
