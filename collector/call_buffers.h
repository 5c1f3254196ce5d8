/* call_buffers.h: per-thread buffers of host call records, and handing them to the writer.
 *
 * Each thread that makes a recorded CUDA call appends to a buffer of its own without a lock (one
 * relaxed write of the record and one release store of the count). Records leave a buffer as a
 * copy, under the registry's lock, in three cases: the buffer is full (its own thread copies),
 * the periodic flush, and the final flush at exit (both copy every registered buffer's records
 * not yet taken). A copy goes to `submit`, which owns it from then on. Buffers are never freed
 * while the process records (a thread that ended leaves its buffer registered: its last records
 * are still flushed); call_buffers_free frees them once no thread can append.
 *
 * Pure C, no CUDA: tests/collector/test_call_buffers.c drives it from several threads. */
#ifndef OVERLAPSCOPE_CALL_BUFFERS_H
#define OVERLAPSCOPE_CALL_BUFFERS_H

#include <stddef.h>

#include "host_call_record.h"

typedef struct call_buffers call_buffers;

/* Takes records (count of them, malloc'd) and owns them from the call on: returns 0 when they
 * will be written, -1 when they will not (counted as lost). */
typedef int (*call_buffers_submit)(void *context, struct host_call_record *records, size_t count);

/* capacity: records per thread buffer (0: the default, 4096). NULL when out of memory. */
call_buffers *call_buffers_new(size_t capacity, call_buffers_submit submit, void *context);

/* Appends one record to the calling thread's buffer (first call of a thread: one allocation and
 * a locked registration). Returns 0, or -1 when no buffer could be had (the record is lost and
 * counted). Never blocks on I/O. */
int call_buffers_append(call_buffers *buffers, const struct host_call_record *record);

/* Hands every record appended so far and not yet taken to submit. Safe from any thread, also
 * while others append (records appended meanwhile wait for the next flush). */
void call_buffers_flush(call_buffers *buffers);

/* Records lost so far (no buffer memory, or submit refused). */
long long call_buffers_lost(call_buffers *buffers);

/* In a fork child: forgets every buffer (the parent's threads do not exist here; their memory is
 * left alone) and starts over with new ones. */
void call_buffers_forget_after_fork(call_buffers *buffers);

/* Frees every buffer and buffers itself: only when no thread can append any more. */
void call_buffers_free(call_buffers *buffers);

#endif
