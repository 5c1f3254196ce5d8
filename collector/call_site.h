/* call_site.h: where in the program each blocking CUDA call was made (issue 16, "where in the
 * program"), captured by the collector and written into the trace's call_sources table.
 *
 * At the entry of a call that holds the calling thread until the GPU is done
 * (cuda_api_blocks_host: device, stream and event synchronize, synchronous copies such as the D2H
 * readback of `.item()`, cudaMalloc/cudaFree), the CUDA callback calls call_site_enter with the
 * call's correlation id. Only there: those calls wait anyway, and at their entry the GPU is
 * usually still running the work they wait for, so the few microseconds of the capture come out
 * of the wait, not out of the job. The source is
 *   - in a process that runs CPython, the calling thread's Python line (python_frames.h);
 *   - otherwise, or on a thread that runs no Python code, the native caller (native_caller.h).
 * A call made inside another blocking call of the same thread (the runtime's cudaDeviceSynchronize
 * calls the driver's cuCtxSynchronize) is not walked again: it gets the outer call's source when
 * the trace records inner calls too (record_inner_calls: CUPTI's API activity kinds do; the
 * collector's own callback records, host_calls.h, keep only the outer call), and no row otherwise. Captured
 * rows wait in memory (one mutex, no I/O) until the writer thread moves them into the trace with
 * call_site_write. Sources are interned: a row costs 16 bytes. */
#ifndef OVERLAPSCOPE_CALL_SITE_H
#define OVERLAPSCOPE_CALL_SITE_H

#include <pthread.h>
#include <stdint.h>

#include "error.h"
#include "python_frames.h"
#include "store.h"

#define CALL_SITE_MAX_SOURCES 16384   /* distinct sources kept; later new ones are dropped */
#define CALL_SITE_MAX_PENDING 1048576 /* rows waiting for the writer; later ones are dropped */

struct call_site_row {
    int64_t correlation_id;
    int32_t kind;    /* STORE_SOURCE_PYTHON or STORE_SOURCE_NATIVE */
    uint32_t source; /* index into sources */
};

struct call_site {
    int enabled;
    int record_inner_calls; /* blocking calls inside a blocking call get rows too (see above) */
    struct python_frames python;
    char python_unsupported[256]; /* why Python frames are not read ("" when they are, or no Python) */
    pthread_mutex_t lock;         /* guards everything below */
    char **sources;               /* CALL_SITE_MAX_SOURCES slots; a set slot never changes */
    uint32_t *source_index;       /* open-addressing hash of sources: slot + 1, 0 empty */
    uint32_t source_count;
    struct call_site_row *rows;
    size_t row_count, row_capacity;
    int64_t python_rows, native_rows, unknown_calls, dropped_rows;
};

/* Sets sites up: detects Python (python_frames_detect) and prepares the unwinder. enabled 0
 * (OVERLAPSCOPE_CALL_SOURCES=0) makes call_site_enter do nothing. Returns 0, or -1 with err
 * filled when out of memory (sites is then disabled, and safe to use and free). */
int call_site_init(struct call_site *sites, int enabled, error_info *err);

/* At the entry of a blocking call on this thread: captures its source and keeps a row for
 * correlation_id. Every call_site_enter is paired with one call_site_exit on the same thread. */
void call_site_enter(struct call_site *sites, int64_t correlation_id);
void call_site_exit(struct call_site *sites);

/* The rows kept so far, handed over: the caller frees them (free). NULL when there are none;
 * *count gets how many. */
struct call_site_row *call_site_take(struct call_site *sites, size_t *count);

/* Writes count rows (of call_site_take) into trace as call_sources rows of process_id, on the
 * writer thread inside its transaction. Returns 0, or -1 with err filled. */
int call_site_write_rows(struct call_site *sites, store *trace, int64_t process_id,
                         const struct call_site_row *rows, size_t count, error_info *err);

/* call_site_take, call_site_write_rows, free: for a caller that is its own writer. */
int call_site_write(struct call_site *sites, store *trace, int64_t process_id, error_info *err);

/* In a fork child: the rows kept are the parent's calls; drop them (not freed, as a parent thread
 * may have held the lock). */
void call_site_forget_after_fork(struct call_site *sites);

/* Frees the sources and rows. */
void call_site_free(struct call_site *sites);

#endif
