/* queries_calls.h: the questions the analyzer asks of a process's CUDA API calls (api_calls): a
 * thread's calls in start order (analyzer/thread_calls.c, which holds them for the idle
 * accounting), a process's calls with a correlation id (analyzer/launches.c). The statements are prepared
 * once and re-bound per question: the accounting asks them per thread, many times. */
#ifndef OVERLAPSCOPE_QUERIES_CALLS_H
#define OVERLAPSCOPE_QUERIES_CALLS_H

#include <sqlite3.h>
#include <stdint.h>

#include "error.h"

typedef struct store_calls store_calls;

/* Prepares the questions on db (which must outlive them). NULL when out of memory or the trace
 * cannot be read (err filled when given). */
store_calls *store_calls_open(sqlite3 *db, error_info *err);
void store_calls_close(store_calls *calls);

/* One API call. correlation_id STORE_NULL when the row has none; name_id meaningful only when
 * has_name. */
struct store_thread_call {
    int64_t start_ns, end_ns, correlation_id, name_id, api_domain;
    int has_name;
};

/* Each call of thread_id of process_id in start order (the (process_id, thread_id, start_ns)
 * index's order: by start, then rowid), handed to visit. A visit returning non-zero stops the walk.
 * Returns 0 when every row was visited, non-zero when the walk stopped early (a visit asked, or a
 * read error). */
typedef int store_thread_call_visit(void *context, const struct store_thread_call *call);
int store_calls_of_thread(store_calls *calls, int64_t process_id, int64_t thread_id,
                          store_thread_call_visit *visit, void *context);

/* --- a process's correlated calls (analyzer/launches.c: every launch, copy and sync call) --- */

/* One call with a correlation id. name_id 0 and api_domain 0 when unknown (has_name 0). */
struct store_correlated_call {
    int64_t thread_id, start_ns, end_ns, correlation_id, name_id, rowid, api_domain;
    int has_name;
};
/* Each call of process_id with a correlation id, in the order the store's plan gives them (a scan:
 * the order written, nearly that of the ids; or the (process_id, correlation_id) index), handed to
 * visit. A version 2 trace is read from its runs with each function read once (the view api_calls
 * joins each row to its function, as costly as the rest of the row); a version 1 trace from the
 * table: the same rows, order and values either way. Returns 0 when every row was visited, the
 * visit's non-zero (positive) value when it stopped the walk, -1 on a read error. */
typedef int store_correlated_call_visit(void *context, const struct store_correlated_call *call);
int store_each_correlated_call(sqlite3 *db, int64_t process_id, store_correlated_call_visit *visit,
                               void *context);
/* 1 when process_id has a call without a correlation id, or it cannot be told; 0 otherwise. */
int store_calls_any_uncorrelated(sqlite3 *db, int64_t process_id);

#endif
