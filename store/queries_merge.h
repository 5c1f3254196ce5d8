/* queries_merge.h: the store's query for the multi-node merge's clock alignment (import/clock_align.c):
 * the collectives whose ends two hosts' traces are matched by. On a bare sqlite3 connection, as
 * clock_align_estimate is handed one per trace. */
#ifndef OVERLAPSCOPE_STORE_QUERIES_MERGE_H
#define OVERLAPSCOPE_STORE_QUERIES_MERGE_H

#include <sqlite3.h>
#include <stdint.h>

#include "error.h"

/* One collective's end: communicator is the communicator, or "stream N" when the source named none;
 * sequence and bytes are -1 when unknown. Strings live until the visit returns. */
struct store_collective_end {
    int64_t process_id;
    const char *communicator, *op;
    int64_t sequence, end_ns, bytes;
};

/* Every collective with an end, by process, communicator and start; point-to-point operations
 * (Send, Recv, SendRecv) only when the trace has no other kind. A non-zero return of visit stops
 * the walk and is returned (its message is the visit's); -1 with err filled ("cannot read
 * collectives of 'PATH': ...") when db cannot be read. */
typedef int store_collective_end_visit(void *context, const struct store_collective_end *row);
int store_each_collective_end(sqlite3 *db, store_collective_end_visit *visit, void *context, error_info *err);

/* The span of one clock's rows: kernels' starts to ends, and collectives' ends (those with one).
 * count is 0 when there are none. Returns 0, or -1 with err filled ("PATH: cannot read its times:
 * ...", input names the trace). */
struct store_time_span {
    int64_t first_ns, last_ns, count;
};
int store_clock_spans(sqlite3 *db, const char *input, struct store_time_span *kernels,
                      struct store_time_span *collective_ends, error_info *err);

#endif
