/* salvage.h: reading what survives of a damaged per-process trace (a process killed while SQLite
 * wrote a page, a truncated copy) that store_append_trace refuses: record/record_merge.c copies its
 * rows into a fresh trace, then appends that. The table list is the schema's (store/schema.sql: a
 * per-process file is always of this build's version). */
#ifndef OVERLAPSCOPE_SALVAGE_H
#define OVERLAPSCOPE_SALVAGE_H

#include <stdint.h>

#include "store.h"

/* Copies every table of the trace at source_path (opened read-only, on its own connection: a read
 * that meets a damaged page must not roll back the copy's transaction) into copy, row by row with
 * rowids kept (collectives point at kernel rowids), each table until its first row that cannot be
 * read. Tables go in an order that keeps references valid (strings and kernel shapes before the
 * rows naming them). Returns the rows copied; *processes: those of the processes table. Nothing is
 * copied (0) when the source cannot be opened. */
int64_t store_salvage_rows(store *copy, const char *source_path, int64_t *processes);

/* The totals a recording's summary prints, of the whole trace. */
struct store_trace_totals {
    int64_t processes, kernels, collectives, dropped_records, warnings, competing_profiler_warnings;
};
void store_trace_totals(store *trace, struct store_trace_totals *totals);

/* The process_id the next appended trace's first process will get: one past the largest. */
int64_t store_next_process_id(store *trace);

#endif
