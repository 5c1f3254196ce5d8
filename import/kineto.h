/* kineto.h: importing PyTorch profiler (Kineto) Chrome traces into an overlapscope store.
 *
 * One trace file is one profiled process (one rank): it becomes one row of processes, with the
 * rank and world size of distributedInfo. traceEvents become kernels, memcpys, memsets, API calls
 * (cuda_runtime, cuda_driver), synchronizations (cuda_sync), NVTX rows (user_annotation,
 * gpu_user_annotation, ProfilerStep#N among them) and NCCL collectives (from the kernel args
 * Kineto records: "Collective name", "In msg nelems", "dtype", "Group size", "Process Group
 * Name"...). deviceProperties become devices. Timestamps: microsecond decimals converted to
 * integer nanoseconds exactly, plus baseTimeNanoseconds. What does not apply (another vendor's
 * fields, CPU-only traces, unknown categories) is skipped and reported in the warnings table.
 * Column-by-column mapping: docs/overlapscope-import.md. */
#ifndef OVERLAPSCOPE_KINETO_H
#define OVERLAPSCOPE_KINETO_H

#include <stddef.h>

#include "error.h"
#include "json_stream.h"
#include "store.h"

/* progress(context, fraction of this file consumed) may be NULL. */
struct kineto_progress {
    void (*report)(void *context, double fraction);
    void *context;
};

/* Imports the trace at path (.json or .json.gz) into s, inside the caller's transaction
 * (store_begin before). Returns 0, or -1 with err naming the file and the byte offset (malformed
 * JSON) or the event index (an event with a missing or ill-typed required field). On failure the
 * store holds partial rows: the caller discards the output file. */
int kineto_import_file(store *s, const char *path, const struct kineto_progress *progress, error_info *err);

/* Same, reading size bytes of uncompressed JSON from memory; name is used in messages. */
int kineto_import_memory(store *s, const void *data, size_t size, const char *name, error_info *err);

#endif
