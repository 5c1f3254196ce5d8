/* pipeline.c: the pipelined fix (pipeline.h): one stream's event-ordered work on two streams.
 *
 * A program that records an event on a stream and waits for it on the same stream has declared a
 * dependency its stream order already enforces: the work it brackets was written for two streams
 * (seed 003's serial pipeline: the decoder waits for "features ready", the encoder for "features
 * free", both on one stream). A stream's segments begin at its cudaStreamWaitEvent calls; the
 * segment that recorded an event and the segment that waited for it belong on different streams,
 * so the segments are two-coloured (a union-find with parity) and the second colour's work moves to
 * a stream and hardware queue of its own, keeping the recorded event edges and each colour's
 * order. A stream whose waits cannot be two-coloured keeps its order. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "pipeline.h"
#include "queries_whatif.h"
#include "store.h"

/* The op's segment: the last wait of its stream launched before it, wait_count + its stream's index
 * when none was. */
static size_t segment_of_op(const struct stream_wait *waits, size_t wait_count, const struct replay_op *op)
{
    const struct stream_wait *wait = graph_wait_before(waits, wait_count, op->stream_id, op->correlation_id);
    return wait ? (size_t)(wait - waits) : wait_count + op->stream_index;
}

/* Union-find with parity: *parity_out is the node's colour relative to its root's. */
static size_t chain_root(size_t *parent, unsigned char *parity, size_t node, unsigned char *parity_out)
{
    unsigned char total = 0;
    size_t root = node;
    while (parent[root] != root) {
        total ^= parity[root];
        root = parent[root];
    }
    unsigned char to_root = total;
    for (size_t x = node; parent[x] != root && x != root;) { /* path compression */
        size_t next = parent[x];
        unsigned char next_parity = to_root ^ parity[x];
        parent[x] = root;
        parity[x] = to_root;
        x = next;
        to_root = next_parity;
    }
    *parity_out = total;
    return root;
}

/* Puts segments a and b on different colours; -1 when they are already on the same one. */
static int chain_apart(size_t *parent, unsigned char *parity, size_t a, size_t b)
{
    unsigned char parity_a, parity_b;
    size_t root_a = chain_root(parent, parity, a, &parity_a),
           root_b = chain_root(parent, parity, b, &parity_b);
    if (root_a == root_b)
        return parity_a != parity_b ? 0 : -1;
    parent[root_a] = root_b;
    parity[root_a] = parity_a ^ parity_b ^ 1;
    return 0;
}

/* Fills colour[op] (0 stays, 1 moves) from the same-stream event pairs; returns how many
 * same-stream pairs were found (0: nothing to split), or a negative status. */
static int colour_segments(sqlite3 *db, const struct replay *replay, int64_t process_id,
                           const struct stream_wait *waits, size_t wait_count, unsigned char *colour,
                           error_info *err)
{
    size_t nodes = wait_count + replay->stream_count;
    size_t *parent = malloc(nodes * sizeof *parent);
    unsigned char *parity = calloc(nodes, 1), *broken = calloc(replay->stream_count, 1);
    store_event_records *records = NULL;
    int pairs = 0;
    if (!parent || !parity || !broken) {
        pairs = WHATIF_OUT_OF_MEMORY;
        goto done;
    }
    for (size_t k = 0; k < nodes; k++)
        parent[k] = k;
    if (!(records = store_event_records_open(db, err))) {
        pairs = -1;
        goto done;
    }
    for (size_t w = 0; w < wait_count; w++) {
        long stream = graph_stream_of(replay, waits[w].stream_id);
        int64_t stream_id, recorded;
        if (stream < 0 ||
            store_event_record_before(records, process_id, waits[w].event_id, waits[w].correlation_id,
                                      &stream_id, &recorded, err) != 1 ||
            stream_id != waits[w].stream_id)
            continue;
        long producer = graph_last_before(replay, (size_t)stream, recorded);
        if (producer < 0)
            continue;
        size_t from = segment_of_op(waits, wait_count, &replay->ops[producer]);
        if (from != w && chain_apart(parent, parity, from, w) != 0)
            broken[stream] = 1;
        pairs += from != w;
    }
    for (size_t i = 0; i < replay->op_count; i++) {
        unsigned char parity_of;
        chain_root(parent, parity, segment_of_op(waits, wait_count, &replay->ops[i]), &parity_of);
        colour[i] = broken[replay->ops[i].stream_index] ? 0 : parity_of;
    }
done:
    store_event_records_free(records);
    free(parent);
    free(parity);
    free(broken);
    return pairs;
}

/* Builds *split from replay with the second colour's ops on streams of their own; returns 1 when
 * built, 0 when the device has nothing to split, or a negative status. The split shares replay's
 * host calls (replay owns them). */
int pipeline_split_streams(sqlite3 *db, const struct replay *replay, int64_t process_id,
                           const struct stream_wait *waits, size_t wait_count, struct replay *split,
                           error_info *err)
{
    unsigned char *colour = calloc(replay->op_count + 1, 1);
    int status = colour ? 0 : WHATIF_OUT_OF_MEMORY;
    if (status == 0 && wait_count > 0)
        status = colour_segments(db, replay, process_id, waits, wait_count, colour, err);
    size_t moved = 0;
    for (size_t i = 0; status > 0 && i < replay->op_count; i++)
        moved += colour[i];
    if (status > 0 && moved > 0) {
        *split = (struct replay){.op_count = replay->op_count,
                                 .calls = replay->calls,
                                 .call_count = replay->call_count,
                                 .call_order = replay->call_order,
                                 /* the same ops at the same places: the same launches */
                                 .op_removed_at = replay->op_removed_at,
                                 .host_removed = replay->host_removed,
                                 .host_removed_count = replay->host_removed_count,
                                 .first_launch_ns = replay->first_launch_ns,
                                 .graph_gap_ns = replay->graph_gap_ns,
                                 .graph_gap_work_ns = replay->graph_gap_work_ns,
                                 .wrapper_ns = replay->wrapper_ns};
        memcpy(split->pinned_bytes_per_s, replay->pinned_bytes_per_s, sizeof split->pinned_bytes_per_s);
        split->ops = malloc(replay->op_count * sizeof *split->ops);
        split->edges = malloc((replay->edge_count + 1) * sizeof *split->edges);
        status = split->ops && split->edges ? 1 : WHATIF_OUT_OF_MEMORY;
        if (status == 1) {
            memcpy(split->ops, replay->ops, replay->op_count * sizeof *split->ops);
            memcpy(split->edges, replay->edges, replay->edge_count * sizeof *split->edges);
            split->op_count = split->op_capacity = replay->op_count;
            split->edge_count = split->edge_capacity = replay->edge_count;
            for (size_t i = 0; i < split->op_count; i++) {
                split->ops[i].channel_previous = -1;
                if (colour[i]) { /* a stream id no recording uses, and a hardware queue of its own */
                    split->ops[i].stream_id = -1 - split->ops[i].stream_id;
                    split->ops[i].channel_id = STORE_NULL;
                }
            }
            if (graph_link_by(split, 0) != 0 || graph_link_by(split, 1) != 0)
                status = WHATIF_OUT_OF_MEMORY;
        }
    } else if (status > 0) {
        status = 0;
    }
    free(colour);
    return status;
}
