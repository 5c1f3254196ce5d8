/* chrome_export.h: writing a trace as Chrome trace-event JSON, for Perfetto (ui.perfetto.dev) and
 * chrome://tracing.
 *
 * Layout: each process (rank) is a pid, named "rank R pid P (host)"; each GPU stream is a tid
 * ("stream S, GPU D"), each host thread a tid. Kernels, copies, memsets, synchronizations, CUDA
 * API calls and NVTX ranges are complete ("X") events; NVTX marks are instant events; NCCL
 * collectives appear as args of their kernel (op, bytes, dtype, communicator, ranks); every GPU op
 * is linked to its launching API call by a flow arrow (Kineto's "ac2g"). Times are microseconds
 * relative to the trace's first activity, written from integer nanoseconds with three decimals,
 * so nothing is lost to floating point; the origin is in otherData.origin_ns.
 *
 * The output is written to a temporary file and renamed into place (output_file.h). */
#ifndef OVERLAPSCOPE_CHROME_EXPORT_H
#define OVERLAPSCOPE_CHROME_EXPORT_H

#include <stdint.h>

#include "error.h"
#include "store.h"

struct chrome_export_counts {
    int64_t complete_events, instant_events, flow_events, metadata_events;
};

/* Writes trace to output_path ("-" for stdout, written directly). Returns 0 and fills counts
 * (may be NULL), or -1 with err filled. */
int chrome_export_write(store *trace, const char *output_path, int force, struct chrome_export_counts *counts,
                        error_info *err);

#endif
