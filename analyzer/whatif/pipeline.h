/* pipeline.h: the pipelined fix of the what-if replay: the work a stream brackets with an event it
 * records and waits for itself, moved to two streams. Private to analyzer/whatif/. */
#ifndef OVERLAPSCOPE_WHATIF_PIPELINE_H
#define OVERLAPSCOPE_WHATIF_PIPELINE_H

#include <sqlite3.h>

#include "error.h"
#include "graph.h"
#include "model.h"

/* Builds *split from replay with the second colour's ops on streams of their own (waits: the
 * process's, graph_load_waits); returns 1 when built, 0 when the device has nothing to split, or a
 * negative status (-1 with err filled, WHATIF_OUT_OF_MEMORY). The split shares replay's host calls
 * (replay owns them): free it with replay_free_ops, whatever the status. */
int pipeline_split_streams(sqlite3 *db, const struct replay *replay, int64_t process_id,
                           const struct stream_wait *waits, size_t wait_count, struct replay *split,
                           error_info *err);

#endif
