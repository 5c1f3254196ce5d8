/* collector_writer.h: the collector's one writer thread and its queue.
 *
 * CUDA threads hand over completed activity buffers with collector_writer_submit, which only
 * takes a mutex and signals: it never waits for SQLite. The writer thread turns each buffer into
 * rows with the consume function, all buffers taken in one wake-up inside one transaction
 * (batched), and commits before it sleeps again, so a crash loses at most what was not yet
 * handed over. Knows nothing of CUPTI: the consume function does (collector.c), and tests and
 * the benchmark pass their own. */
#ifndef OVERLAPSCOPE_COLLECTOR_WRITER_H
#define OVERLAPSCOPE_COLLECTOR_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

typedef struct collector_writer collector_writer;

/* Called on the writer thread for each buffer: writes its rows into trace. Returns 0, or -1
 * with err filled (the writer keeps the first error and goes on with the next buffer). */
typedef int (*collector_writer_consume)(void *context, store *trace, const uint8_t *buffer,
                                        size_t valid_bytes, error_info *err);
/* Called on the writer thread after consume: the buffer is the callee's again (free it). */
typedef void (*collector_writer_release)(void *context, uint8_t *buffer);

/* Starts the thread writing into trace (not owned; the caller must not use it until
 * collector_writer_stop returned). Returns NULL with err filled on failure. */
collector_writer *collector_writer_start(store *trace, collector_writer_consume consume,
                                         collector_writer_release release, void *context, error_info *err);

/* Queues buffer (valid_bytes of records) for the writer; never blocks on I/O. Returns 0, or -1
 * when out of memory (the buffer is then released at once and counted as lost). */
int collector_writer_submit(collector_writer *writer, uint8_t *buffer, size_t valid_bytes);

/* The same, for a buffer of another format: consume and release (called with the writer's
 * context) replace the writer's own for this buffer only. The collector's host call records
 * (call_buffers.h) travel this way, in order with CUPTI's buffers through the one writer. */
int collector_writer_submit_with(collector_writer *writer, uint8_t *buffer, size_t valid_bytes,
                                 collector_writer_consume consume, collector_writer_release release);

/* Waits until everything submitted so far is written and committed. */
void collector_writer_drain(collector_writer *writer);

/* Drains, commits, joins the thread and frees the writer. Returns 0, or -1 with err holding the
 * first error any buffer or commit met. */
int collector_writer_stop(collector_writer *writer, error_info *err);

/* Buffers written, and buffers lost (consume failed or out of memory), so far. */
int64_t collector_writer_buffers_written(collector_writer *writer);
int64_t collector_writer_buffers_lost(collector_writer *writer);

#endif
