/* graph.h: the dependency graph of the what-if model (model.h): the orders of streams and
 * hardware queues, the edges of event waits and of the legacy default stream, and the lookups on
 * them the split replay reuses. Private to analyzer/whatif/. */
#ifndef OVERLAPSCOPE_WHATIF_GRAPH_H
#define OVERLAPSCOPE_WHATIF_GRAPH_H

#include <sqlite3.h>

#include "device_state.h"
#include "error.h"
#include "model.h"

/* A key of graph_radix_sort: two words compared in turn, and the index of what it sorts. */
struct radix_key {
    uint64_t high, low;
    size_t index;
};

/* A signed value as an unsigned radix key in the same order. */
static inline uint64_t graph_radix_of(int64_t value)
{
    return (uint64_t)value ^ (UINT64_C(1) << 63);
}

/* Sorts n keys by low (passes 8) or by (high, low) (passes 16), stably: ties keep the order they
 * came in. spare holds n keys too. Returns the one of the two that holds the sorted keys. */
const struct radix_key *graph_radix_sort(struct radix_key *keys, struct radix_key *spare, size_t n,
                                         int passes);

/* By stream (by_channel 0): sorts the ops into streams (stream_ops, stream_first, stream_index,
 * stream_previous) and orders the launches (launch_order); by channel (1): each op's previous on
 * its hardware queue (channel_previous). Returns 0 or -1 when out of memory. */
int graph_link_by(struct replay *replay, int by_channel);

/* The stream index of stream_id, -1 when the replay has no op on it. Needs graph_link_by. */
long graph_stream_of(const struct replay *replay, int64_t stream_id);

/* The last op of stream s launched before correlation_id, -1 when none. */
long graph_last_before(const struct replay *replay, size_t stream, int64_t correlation_id);

/* One cudaStreamWaitEvent of the process. */
struct stream_wait {
    int64_t stream_id, correlation_id, event_id;
};

/* Every cudaStreamWaitEvent of the process, into *out (*count of them; the caller frees *out), by
 * stream then launch (a read error ends them there). Returns 0, -1 when the store cannot read them
 * (err filled) or WHATIF_OUT_OF_MEMORY. */
int graph_load_waits(sqlite3 *db, int64_t process_id, struct stream_wait **out, size_t *count,
                     error_info *err);

/* The last wait on stream_id launched before correlation_id, NULL when none. */
const struct stream_wait *graph_wait_before(const struct stream_wait *waits, size_t wait_count,
                                            int64_t stream_id, int64_t correlation_id);

/* The edges of the process's event waits (waits: graph_load_waits). Returns 0, -1 on a read error
 * (err filled) or WHATIF_OUT_OF_MEMORY. Needs graph_link_by. */
int graph_add_event_edges(sqlite3 *db, struct replay *replay, int64_t process_id,
                          const struct stream_wait *waits, size_t wait_count, error_info *err);

/* The edges of the legacy default stream's implicit synchronization (the device's lanes say which
 * streams block). Returns 0 or -1 when out of memory. Needs graph_link_by. */
int graph_add_legacy_edges(struct replay *replay, const struct device_state *device);

/* Sorts the edges by the op they hold back and fills each op's edge_first and edge_count. After
 * the last edge is added. */
void graph_index_edges(struct replay *replay);

#endif
