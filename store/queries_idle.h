/* queries_idle.h: the questions the idle and exposed-communication accounting
 * (analyzer/accounting/) asks of a trace while it walks a device's gaps: the host call that
 * launched an operation, the launching thread's calls around a gap, a copy's kind, the stream wait
 * before a launch, a call's source, a kernel's collective, the kernels a late rank ran in a window;
 * and per process, once: whether it has API calls, syncs, collectives, call sources, and the rows
 * the accounting holds in memory (sources, stream waits, sync contexts, a device's contexts). The
 * statements are prepared once (store_idle_open) and re-bound per question: a host-bound trace
 * asks them for every gap. */
#ifndef OVERLAPSCOPE_QUERIES_IDLE_H
#define OVERLAPSCOPE_QUERIES_IDLE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct store_idle store_idle;

/* NULL with err filled ("cannot read the trace for idle accounting: ...") on failure. */
store_idle *store_idle_open(sqlite3 *db, error_info *err);
void store_idle_close(store_idle *queries);
/* Prepares the call-source question (a trace with the call_sources table). 1 when it can be asked. */
int store_idle_prepare_sources(store_idle *queries);

/* The host call of process_id with correlation_id that started first. Returns 1 with the row's
 * times and thread (*thread_known 0 when its thread_id is NULL), 0 when there is none. */
int store_idle_launch(store_idle *queries, int64_t process_id, int64_t correlation_id, int64_t *start_ns,
                      int64_t *end_ns, int64_t *thread_id, int *thread_known);

/* One call of a thread: name NULL when unknown, valid until the next store_idle_calls_next. */
struct store_idle_call {
    int64_t start_ns, end_ns, correlation_id, api_domain; /* correlation_id STORE_NULL when none */
    const char *name;
};
/* Starts a walk over thread_id's calls: forward, those that began in [from_ns, to_ns) in start
 * order, at most 100,000; backward (forward 0), those that began before from_ns, latest first, at
 * most 16 (to_ns unused). One walk of each direction at a time; store_idle_calls_end ends it. */
void store_idle_calls_begin(store_idle *queries, int forward, int64_t process_id, int64_t thread_id,
                            int64_t from_ns, int64_t to_ns);
/* 1 with *call the walk's next row, 0 at its end (or on a read error). */
int store_idle_calls_next(store_idle *queries, int forward, struct store_idle_call *call);
void store_idle_calls_end(store_idle *queries, int forward);

/* The copy of process_id with correlation_id: 1 with its kind, bytes and destination memory kind
 * (STORE_MEMORY_UNKNOWN when NULL), 0 when there is none. */
int store_idle_copy(store_idle *queries, int64_t process_id, int64_t correlation_id, int64_t *copy_kind,
                    int64_t *bytes, int64_t *dst_kind);

/* The latest cudaStreamWaitEvent of process_id on stream_id that started at or before at_ns: 1
 * with its event id, 0 when none. */
int store_idle_stream_wait(store_idle *queries, int64_t process_id, int64_t at_ns, int64_t stream_id,
                           int64_t *event_id);

/* The source (call_sources) of process_id's call correlation_id into source (cut to size); source
 * left as it is when none. Needs store_idle_prepare_sources. */
void store_idle_call_source(store_idle *queries, int64_t process_id, int64_t correlation_id, char *source,
                            size_t size);

/* The collective that kernel_rowid ran: 1 with its op and communicator (NULL-valued: "?" and "")
 * cut to their sizes, and bytes, sequence number and nranks each left as they are when NULL; 0 when
 * none. */
struct store_idle_collective {
    char op[24], communicator[48];
    int64_t bytes, sequence, nranks;
};
int store_idle_collective(store_idle *queries, int64_t kernel_rowid,
                          struct store_idle_collective *collective);

/* The kernels device_id of process_id ran that started in (from_ns - 10 ms, to_ns) and ended after
 * from_ns, latest first, at most 64, each handed to visit. */
typedef void store_idle_kernel_visit(void *context, int64_t name_id, int64_t start_ns, int64_t end_ns);
void store_idle_kernels_in(store_idle *queries, int64_t process_id, int64_t device_id, int64_t from_ns,
                           int64_t to_ns, store_idle_kernel_visit *visit, void *context);

/* --- per process, once --- */

/* What a process has, each 1 when at least one row says so (0 also when it cannot be read). */
enum store_process_probe {
    STORE_HAS_CUDA_CALLS,     /* api_calls of the runtime or driver (api_domain < 3) */
    STORE_HAS_SYNCS,          /* synchronizations */
    STORE_HAS_COLLECTIVES,    /* collectives */
    STORE_HAS_CALL_SOURCES,   /* call_sources (the table must exist) */
    STORE_HAS_PYTHON_SOURCES, /* call_sources other than an operator's name (STORE_SOURCE_CPU_OP) */
    STORE_LACKS_SYNC_EVENTS,  /* a warning import-no-cuda-sync of the process or the trace */
};
int store_process_has(sqlite3 *db, enum store_process_probe probe, int64_t process_id);

/* Rows the accounting holds in memory, each a record of int64 columns in order. */
enum store_process_rows {
    STORE_ROWS_CALL_SOURCES,    /* correlation_id, source_id by correlation id, then rowid */
    STORE_ROWS_STREAM_WAITS,    /* start_ns, stream_id, event_id of stream waits by start, then rowid */
    STORE_ROWS_SYNC_CONTEXTS,   /* correlation_id, context_id of synchronizations by correlation id */
    STORE_ROWS_DEVICE_CONTEXTS, /* the distinct context_id of device_id's streams */
};
/* The rows into rows (grown as needed: returned; *count of them, each `columns` int64s, which must
 * be the kind's). *complete is set when every row was read (not: a read error, out of memory). */
void *store_process_rows(sqlite3 *db, enum store_process_rows which, int64_t process_id, int64_t device_id,
                         size_t columns, void *rows, size_t *count, int *complete);

#endif
