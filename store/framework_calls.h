/* framework_calls.h: the optional table framework_calls (docs/trace-format.md): when a library's
 * function that wrapped one of the program's blocking CUDA calls ran, on which thread, entry to
 * return. torch.cuda.synchronize(device) is such a wrapper: its own Python around
 * cudaDeviceSynchronize (a device guard) costs the program about as much as the CUDA call when the
 * GPU has nothing left, and removing the sync removes the whole function (analyzer/whatif). The
 * collector times them (collector/python_calls.h); the Kineto importer takes them from the
 * python_function events that enclose a blocking runtime call. */
#ifndef OVERLAPSCOPE_FRAMEWORK_CALLS_H
#define OVERLAPSCOPE_FRAMEWORK_CALLS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct store_framework_call {
    int64_t thread_id, start_ns, end_ns;
    const char *function; /* "FILE:LINE NAME"; on reading, not filled (function_id is) */
    int64_t function_id;  /* strings.id of its name (reading) */
};

/* Writes count calls of process_id. Returns 0 or -1 with err filled. */
int store_insert_framework_calls(store *s, int64_t process_id, const struct store_framework_call *calls,
                                 size_t count, error_info *err);

/* The framework calls of process_id by (thread_id, start_ns) into *calls (malloc'd, the caller
 * frees; NULL and 0 when none or the trace has no such table). Returns 0, or -1 with err filled. */
int store_framework_calls_of(sqlite3 *db, int64_t process_id, struct store_framework_call **calls,
                             size_t *count, error_info *err);

#endif
