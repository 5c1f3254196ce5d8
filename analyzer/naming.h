/* naming.h: the one home of how overlapscope names the things it reports, for the analyzer, the
 * text/JSON/Markdown reports, the pictures and the export alike: a copy's label ("HtoD 64.0 MiB
 * (pageable)"), a process's label ("rank 3", "pid 1685") and a stretch of idle or
 * exposed-communication time's ("host blocked in cudaDeviceSynchronize"). Kernel names:
 * common/kernel_name.h and kernel_names.h; a copy's category and a stream's role, which the
 * importers share: store/op_category.h. Pure functions, no state. */
#ifndef OVERLAPSCOPE_NAMING_H
#define OVERLAPSCOPE_NAMING_H

#include <stddef.h>
#include <stdint.h>

#include "analysis_result.h"

/* "HtoD 64.0 MiB (pageable)", "DtoD 8 B" into buffer; returns buffer. */
char *naming_copy(char *buffer, size_t size, int64_t copy_kind, int64_t bytes, int pageable);

/* How every output names a process: "rank 3", or "pid 1685" when the trace has no rank (rank < 0),
 * or "process 2" (the store's process_id) when neither is known. Returns buffer. */
char *naming_process(char *buffer, size_t size, int64_t rank, int64_t pid, int64_t process_id);

/* How the pictures and the export name one stretch of idle or exposed-communication time
 * (accounting.h: its cause and its entry's label): "host blocked in cudaDeviceSynchronize",
 * "waiting for rank 0", "unexplained (no API records)"; the cause's title where the label adds
 * nothing ("host busy outside CUDA (CPU, Python, data loading)"). Returns buffer. */
char *naming_accounting(char *buffer, size_t size, enum accounting_cause cause, const char *label);

#endif
