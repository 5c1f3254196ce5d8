/* parts.h: the parts of a parallel import (`import --jobs N`): each file of a folder is read by a
 * worker of its own into a trace of its own (a part, store_create with STORE_FAST_UNSAFE), then
 * one writer appends the parts to the output in the order of the files. The append is the serial
 * step that bounds how many workers help, so it does no per-row work that a map can do once per
 * part: it reads the part's base tables (kernel_runs, api_call_runs, not the views that join them
 * back), maps kernel shapes, API functions, processes and strings through small tables keyed by
 * the part's ids, gives the kernels the part's rowids plus one offset, and keeps the indexes as it
 * goes (store_parts_begin). */
#ifndef OVERLAPSCOPE_PARTS_H
#define OVERLAPSCOPE_PARTS_H

#include "store.h"

/* Before the first part: creates the readers' indexes (store_finalize's) on destination, so that
 * each part's rows enter them as they are appended. Every index leads with the process id (or the
 * kernel rowid), which each part's rows have above the earlier parts', so each index grows at its
 * end; built by store_finalize instead, they sort all the trace's rows in one serial step at the
 * end (3 parts of 500,000 activities: the writer's CPU 2.17 s with the indexes at the end, 1.66 s
 * with them here). store_finalize then finds them made. Returns 0, or -1 with err filled. */
int store_parts_begin(store *destination, error_info *err);

/* Appends the part at part_path to destination, as store_append_trace(destination, part_path, 0,
 * NULL, err) would, but with ids (processes, strings, kernel shapes, API functions) assigned in
 * the order of their first use in the part, as a sequential import assigns them. part_path is a
 * finished part of this program's schema version whose kernels are numbered without gaps (a
 * writer never deletes one). Runs in one transaction: on failure nothing of the part is left in
 * destination. Returns 0, or -1 with err filled; a part that would lose a row (a reference to
 * nothing) fails rather than lose it. */
int store_append_part(store *destination, const char *part_path, error_info *err);

#endif
