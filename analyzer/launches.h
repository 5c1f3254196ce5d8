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

/* 64 bytes, one per correlated call of the process (docs/security.md): position in 32 bits, as
 * launches stop at WHATIF_MAX_OPS. */
struct correlated_call {
    int64_t correlation_id, thread_id, start_ns, end_ns;
    uint32_t position; /* in the order the rows came: ties of correlation ids keep it */
    int32_t has_name;
    int64_t name_id;           /* 0 when unknown (has_name 0) */
    int64_t rowid, api_domain; /* the row, and its domain (thread_calls.h builds threads from these) */
};

struct launches {
    struct correlated_call *calls;
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
const struct correlated_call *launches_find(const struct launches *launches, int64_t correlation_id);

/* Of the calls with correlation_id, the one that started first (the first of them on a tie), NULL
 * when none: what a query ordered by start returns. Only for a complete list. *near: where the
 * caller's last answer was, set to this one's (any value gives the same answer; the last one, for
 * ids asked in rising order, a cheaper search). */
const struct correlated_call *launches_find_earliest(const struct launches *launches, int64_t correlation_id,
                                                     size_t *near);

void launches_free(struct launches *launches);

#endif
