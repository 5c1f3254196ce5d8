/* launches.h: the host calls of one process that have a correlation id (the launches of its GPU
 * work, and every other call CUPTI correlates), read once per device before the walk and shared by
 * the explainer (a waiting op's launch) and the replay (its host calls): one read of the rows
 * where each had a query of its own, the explainer one per wait. Sorted by correlation id, stably: the
 * first of a correlation id is the row the explainer's lookup by it returns first (the same index,
 * read in the same order). Memory: one record per call, at most WHATIF_MAX_OPS (whatif.h). */
#ifndef OVERLAPSCOPE_LAUNCHES_H
#define OVERLAPSCOPE_LAUNCHES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* A host call as the analysis reads it: the launches' and a thread's (thread_calls.h) element, 40
 * bytes. api_domain is the store's, clamped to 32 bits (the readers compare it with the store's
 * small domains only, STORE_API_*). */
struct thread_call {
    int64_t start_ns, end_ns;
    int64_t correlation_id; /* STORE_NULL when none */
    int64_t name_id;        /* meaningful when has_name; 0 when unknown */
    int32_t api_domain;
    int32_t has_name;
};

/* The store's api_domain as struct thread_call holds it. */
static inline int32_t thread_call_domain(int64_t api_domain)
{
    return api_domain > INT32_MAX ? INT32_MAX : api_domain < INT32_MIN ? INT32_MIN : (int32_t)api_domain;
}

/* Where a launch came from: its thread, and its row (thread_calls.h orders a thread's ties by it). */
struct call_origin {
    int64_t thread_id, rowid;
};

/* 56 bytes a correlated call of the process (docs/security.md), in two arrays of count: the calls
 * themselves, so that a thread's calls can be these when the process has that one thread
 * (thread_calls.h: not a copy beside them), and their origins. */
struct launches {
    struct thread_call *calls;
    struct call_origin *origins;
    size_t count, capacity;
    int complete;   /* every call of the process is here (not cut at WHATIF_MAX_OPS) */
    int every_call; /* complete, and the process has no call without a correlation id: these are all
                       its host calls (thread_calls.h takes its threads' calls from here) */
    int read_error; /* the rows could not be read: no call is here */
};

/* Reads the calls of process_id with a correlation id, the first WHATIF_MAX_OPS in the index's
 * order (those the replay keeps), into *launches (emptied first). Returns 0 (a read error only
 * sets read_error), or -1 with err filled when out of memory. */
int launches_load(sqlite3 *db, int64_t process_id, struct launches *launches, error_info *err);

/* The first call with correlation_id, NULL when none. Only for a complete list (else the caller
 * asks the store). */
const struct thread_call *launches_find(const struct launches *launches, int64_t correlation_id);
/* The thread of call, one of launches' calls. */
static inline int64_t launches_thread_of(const struct launches *launches, const struct thread_call *call)
{
    return launches->origins[call - launches->calls].thread_id;
}

/* Of the calls with correlation_id, the one that started first (the first of them on a tie), NULL
 * when none: what a query ordered by start returns. Only for a complete list. *near: where the
 * caller's last answer was, set to this one's (any value gives the same answer; the last one, for
 * ids asked in rising order, a cheaper search). */
const struct thread_call *launches_find_earliest(const struct launches *launches, int64_t correlation_id,
                                                 size_t *near);

void launches_free(struct launches *launches);

#endif
