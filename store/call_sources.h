/* call_sources.h: where in the program each host API call was made, the optional table
 * call_sources (docs/trace-format.md). Writers that know a call's place write it: an importer from
 * the trace's own stack (Kineto's python_function and cpu_op events enclosing the runtime call),
 * the collector from the calling thread (a Python file:line, or the native caller's symbol). The
 * analyzer reads it to say "300x at train.py:17" (analyzer/idle.c). */
#ifndef OVERLAPSCOPE_CALL_SOURCES_H
#define OVERLAPSCOPE_CALL_SOURCES_H

#include <stdint.h>

#include "store.h"

/* call_sources.kind: what the source names. */
enum {
    STORE_SOURCE_PYTHON = 1, /* a Python frame: "train.py:17 step" */
    STORE_SOURCE_CPU_OP = 2, /* a CPU operator or a record_function range: "aten::item" */
    STORE_SOURCE_NATIVE = 3  /* a native caller's symbol: "main+0x4f" */
};

/* One call's source (the collector's road). Returns 0 or -1 with err filled. */
int store_insert_call_source(store *s, int64_t process_id, int64_t correlation_id, int64_t kind,
                             const char *source, error_info *err);

/* An importer's road: host ranges (a Python frame, a CPU operator) of one process are collected,
 * then each API call of the process gets the innermost Python frame enclosing it on its thread,
 * or failing one the innermost CPU operator. Ranges live in a temporary table until
 * store_frames_free. */
typedef struct store_frames store_frames;

/* A host frame's kind besides STORE_SOURCE_PYTHON and STORE_SOURCE_CPU_OP: a Python function of a
 * package or of Python itself, never a source, but the wrapper of the blocking calls it holds
 * when it is their innermost Python frame (store_frames_derive writes framework_calls). */
enum { STORE_FRAME_LIBRARY = 100 };

struct store_host_frame {
    int64_t thread_id, start_ns, end_ns;
    int64_t kind;     /* STORE_SOURCE_PYTHON, STORE_SOURCE_CPU_OP or STORE_FRAME_LIBRARY */
    const char *name; /* the source text */
};

/* NULL with err filled on failure. */
store_frames *store_frames_new(store *s, error_info *err);
int store_frames_add(store_frames *frames, const struct store_host_frame *frame, error_info *err);
/* Writes call_sources for the API calls of process_id that have a correlation id and no source
 * yet, and framework_calls: each STORE_FRAME_LIBRARY frame that is the innermost Python frame of
 * a call that blocks the host (common/cuda_api.h), once. Returns 0 or -1 with err filled. */
int store_frames_derive(store_frames *frames, int64_t process_id, error_info *err);
/* Drops the ranges. NULL is a no-op. */
void store_frames_free(store_frames *frames);

#endif
