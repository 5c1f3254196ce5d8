/* graph.c: the order the program and the hardware impose on the what-if model's operations
 * (graph.h): each stream's order and each hardware queue's (graph_link_by, with a stable radix sort of
 * the launches), the event waits the program asked for (cudaStreamWaitEvent, relayed through
 * NCCL's internal streams) and the legacy default stream's implicit synchronization, as edges
 * indexed by the op they hold back. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "key_index.h"
#include "queries_whatif.h"
#include "whatif.h"

/* 24 bytes: graph_link_by sorts one per operation, the peak of a replay's set-up (issue 33). */
struct order_item {
    int64_t key;
    int64_t correlation_id;
    replay_index op;
    int32_t sub; /* a channel's kind (copy or compute) */
};

static int compare_order(const void *a, const void *b)
{
    const struct order_item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->sub != y->sub)
        return x->sub - y->sub;
    if (x->correlation_id != y->correlation_id)
        return x->correlation_id < y->correlation_id ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

static int keep_streams(struct replay *replay, const struct order_item *items, size_t count)
{
    replay->stream_ops = malloc((count ? count : 1) * sizeof *replay->stream_ops);
    replay->stream_first = malloc((replay->stream_count + 1) * sizeof *replay->stream_first);
    replay->stream_legacy = calloc(replay->stream_count + 1, sizeof *replay->stream_legacy);
    if (!replay->stream_ops || !replay->stream_first || !replay->stream_legacy)
        return -1;
    size_t stream = 0;
    for (size_t i = 0; i < count; i++) {
        replay->stream_ops[i] = items[i].op;
        if (i == 0 || items[i - 1].key != items[i].key)
            replay->stream_first[stream++] = i;
    }
    replay->stream_first[stream] = count;
    return 0;
}

/* A (key, sub) group of order items, and where its items go. */
struct order_group {
    int64_t key;
    int sub;
    size_t count, next;
};

struct group_key {
    const struct order_group *groups;
    int64_t key;
    int sub;
};

static int group_matches(const void *context, size_t position)
{
    const struct group_key *wanted = context;
    return wanted->groups[position].key == wanted->key && wanted->groups[position].sub == wanted->sub;
}

static int by_group(const void *a, const void *b)
{
    const struct order_group *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->sub - y->sub;
}

/* The items in compare_order (a total order: the ops differ), as qsort would leave them, without
 * sorting all of them: a stable bucket by (key, sub), the few groups sorted, then each group sorted
 * by (correlation id, op) only where it did not come so (a stream's ops come in start order, a
 * channel's mostly in launch order). The bucket moves the items in place, each to the position its
 * group and order give it (place): a sorted copy was 32 bytes per operation at the replay's peak.
 * Returns 0 or -1 when out of memory. */
static int sort_order_items(struct order_item *items, size_t count)
{
    struct order_group *groups = NULL;
    size_t group_count = 0, group_capacity = 0;
    replay_index *place = malloc((count ? count : 1) * sizeof *place); /* its group, then its position */
    struct key_index index = {0};
    int status = place ? 0 : -1;
    size_t last = SIZE_MAX;
    for (size_t i = 0; status == 0 && i < count; i++) {
        if (last != SIZE_MAX && groups[last].key == items[i].key && groups[last].sub == items[i].sub) {
            place[i] = (replay_index)last;
            groups[last].count++;
            continue;
        }
        struct group_key wanted = {groups, items[i].key, items[i].sub};
        uint64_t hash = key_index_hash(items[i].key, items[i].sub, 0, 0);
        long found = key_index_find(&index, hash, group_matches, &wanted);
        if (found < 0) {
            if (replay_grow((void **)&groups, &group_capacity, group_count, sizeof *groups) != 0 ||
                key_index_add(&index, hash, group_count) != 0) {
                status = -1;
                break;
            }
            groups[group_count] = (struct order_group){items[i].key, items[i].sub, 0, 0};
            found = (long)group_count++;
        }
        last = (size_t)found;
        place[i] = (replay_index)last;
        groups[last].count++;
    }
    if (status == 0 && group_count > 0) {
        /* Sorting the groups moves them: their places in sorted order, by their first position. */
        size_t *rank = malloc(group_count * sizeof *rank);
        struct order_group *ordered = malloc(group_count * sizeof *ordered);
        if (!rank || !ordered) {
            status = -1;
        } else {
            for (size_t g = 0; g < group_count; g++)
                ordered[g] = (struct order_group){groups[g].key, groups[g].sub, groups[g].count, g};
            qsort(ordered, group_count, sizeof *ordered, by_group); /* (key, sub) differ: a total order */
            size_t next = 0;
            for (size_t g = 0; g < group_count; g++) {
                rank[ordered[g].next] = g;
                ordered[g].next = next;
                next += ordered[g].count;
            }
            for (size_t i = 0; i < count; i++)
                place[i] = (replay_index)ordered[rank[place[i]]].next++;
            for (size_t i = 0; i < count; i++) /* each swap puts one item where it goes */
                while (place[i] != i) {
                    size_t to = place[i];
                    struct order_item item = items[to];
                    items[to] = items[i];
                    items[i] = item;
                    place[i] = place[to];
                    place[to] = (replay_index)to;
                }
            for (size_t g = 0, begin = 0; g < group_count; begin += ordered[g++].count) {
                size_t end = begin + ordered[g].count;
                for (size_t i = begin + 1; i < end; i++)
                    if (compare_order(&items[i - 1], &items[i]) > 0) {
                        qsort(items + begin, end - begin, sizeof *items, compare_order);
                        break;
                    }
            }
        }
        free(rank);
        free(ordered);
    }
    free(groups);
    free(place);
    key_index_free(&index);
    return status;
}

/* One stable counting pass of a radix sort on byte `shift / 8` of high (of_high) or low. Returns
 * 0 when every key has the same byte there (nothing moved), 1 when sorted into to. */
static int radix_pass(const struct radix_key *from, struct radix_key *to, size_t n, int of_high, int shift)
{
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++)
        count[(((of_high ? from[i].high : from[i].low) >> shift) & 0xff) + 1]++;
    for (int b = 1; b <= 256; b++)
        if (count[b] == n)
            return 0;
    for (int b = 1; b <= 256; b++)
        count[b] += count[b - 1];
    for (size_t i = 0; i < n; i++)
        to[count[((of_high ? from[i].high : from[i].low) >> shift) & 0xff]++] = from[i];
    return 1;
}

/* Sorts n keys by low (passes 8) or by (high, low) (passes 16), stably: ties keep the order they
 * came in. spare holds n keys too. Returns the one of the two that holds the sorted keys. */
const struct radix_key *graph_radix_sort(struct radix_key *keys, struct radix_key *spare, size_t n,
                                         int passes)
{
    for (int pass = 0; pass < passes; pass++) {
        if (radix_pass(keys, spare, n, pass >= 8, (pass % 8) * 8)) {
            struct radix_key *swap = keys;
            keys = spare;
            spare = swap;
        }
    }
    return keys;
}

/* Fills launch_order: the ops by correlation id. Returns 0 or -1 when out of memory. */
static int order_launches(struct replay *replay)
{
    size_t n = replay->op_count;
    struct radix_key *keys = malloc((n ? n : 1) * sizeof *keys), *spare = malloc((n ? n : 1) * sizeof *spare);
    free(replay->launch_order);
    replay->launch_order = malloc((n ? n : 1) * sizeof *replay->launch_order);
    if (!keys || !spare || !replay->launch_order) {
        free(keys);
        free(spare);
        return -1;
    }
    /* Ops without a launch first (STORE_NULL is the least id), in index order; then the others by
     * (correlation id, index), the order compare_order gives: a stable sort of them in index order
     * by id (a radix sort: a comparison sort of a real trace's ops, their ids nearly but not quite
     * in start order, was a third of the replay's set-up). */
    size_t unknown = 0, count = 0;
    int in_order = 1;
    for (size_t i = 0; i < n; i++) {
        if (replay->ops[i].correlation_id == STORE_NULL) {
            replay->launch_order[unknown++] = i;
            continue;
        }
        keys[count] = (struct radix_key){0, graph_radix_of(replay->ops[i].correlation_id), i};
        in_order &= count == 0 || keys[count - 1].low <= keys[count].low;
        count++;
    }
    const struct radix_key *sorted = in_order ? keys : graph_radix_sort(keys, spare, count, 8);
    for (size_t i = 0; i < count; i++)
        replay->launch_order[unknown + i] = sorted[i].index;
    free(keys);
    free(spare);
    return 0;
}

/* Sorts ops by (key, correlation id); fills each op's previous of the same key. By stream, it
 * also orders the launches (order_launches). */
int graph_link_by(struct replay *replay, int by_channel)
{
    if (!by_channel && order_launches(replay) != 0)
        return -1;
    struct order_item *items = malloc((replay->op_count ? replay->op_count : 1) * sizeof *items);
    if (!items)
        return -1;
    size_t count = 0;
    for (size_t i = 0; i < replay->op_count; i++) {
        const struct replay_op *op = &replay->ops[i];
        int64_t key = by_channel ? op->channel_id : op->stream_id;
        if (by_channel && key == STORE_NULL)
            continue;
        /* Stream order is the recorded start order; a channel's order is the launch order. */
        items[count++] = (struct order_item){.key = key,
                                             .correlation_id = by_channel ? op->correlation_id : (int64_t)i,
                                             .op = (replay_index)i,
                                             .sub = by_channel && op->on_copy_channel};
    }
    if (sort_order_items(items, count) != 0) {
        free(items);
        return -1;
    }
    size_t streams = 0;
    for (size_t i = 0; i < count; i++) {
        struct replay_op *op = &replay->ops[items[i].op];
        int same = i > 0 && items[i - 1].key == items[i].key && items[i - 1].sub == items[i].sub;
        if (by_channel) {
            op->channel_previous = same ? (long)items[i - 1].op : -1;
        } else {
            op->stream_previous = same ? (long)items[i - 1].op : -1;
            if (!same)
                streams++;
            op->stream_index = streams - 1;
        }
    }
    int status = 0;
    if (!by_channel) {
        replay->stream_count = streams;
        status = keep_streams(replay, items, count);
    }
    free(items);
    return status;
}

/* Position in stream_ops of the first op of stream s launched at or after correlation_id: a
 * stream's ops are launched in their start order. */
static size_t position_from(const struct replay *replay, size_t stream, int64_t correlation_id)
{
    size_t low = replay->stream_first[stream], high = replay->stream_first[stream + 1];
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (replay->ops[replay->stream_ops[middle]].correlation_id < correlation_id)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* The last op of stream s launched before correlation_id, -1 when none. */
long graph_last_before(const struct replay *replay, size_t stream, int64_t correlation_id)
{
    size_t position = position_from(replay, stream, correlation_id);
    return position > replay->stream_first[stream] ? (long)replay->stream_ops[position - 1] : -1;
}

/* The first op of stream s launched after correlation_id, -1 when none. */
static long first_after(const struct replay *replay, size_t stream, int64_t correlation_id)
{
    if (correlation_id == INT64_MAX) /* no id is larger; + 1 overflowed (UBSan, a trace's own id) */
        return -1;
    size_t position = position_from(replay, stream, correlation_id + 1);
    return position < replay->stream_first[stream + 1] ? (long)replay->stream_ops[position] : -1;
}

long graph_stream_of(const struct replay *replay, int64_t stream_id)
{
    size_t low = 0, high = replay->stream_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int64_t id = replay->ops[replay->stream_ops[replay->stream_first[middle]]].stream_id;
        if (id == stream_id)
            return (long)middle;
        if (id < stream_id)
            low = middle + 1;
        else
            high = middle;
    }
    return -1;
}

static int add_edge(struct replay *replay, long from, long to, enum edge_kind kind)
{
    if (from < 0 || to < 0 || from == to)
        return 0;
    if (replay->edge_count >= UINT32_MAX) /* replay_op's edge_first: out of memory long before */
        return -1;
    if (replay_grow((void **)&replay->edges, &replay->edge_capacity, replay->edge_count,
                    sizeof *replay->edges) != 0)
        return -1;
    replay->edges[replay->edge_count++] = (struct edge){(size_t)from, (size_t)to, kind};
    return 0;
}

static int by_stream_then_correlation(const void *a, const void *b)
{
    const struct stream_wait *x = a, *y = b;
    if (x->stream_id != y->stream_id)
        return x->stream_id < y->stream_id ? -1 : 1;
    return (x->correlation_id > y->correlation_id) - (x->correlation_id < y->correlation_id);
}

/* Every cudaStreamWaitEvent of the process (streams without work in the replay included: NCCL's
 * internal stream orders a communicator's collectives through them), by stream then launch. */
int graph_load_waits(sqlite3 *db, int64_t process_id, struct stream_wait **out, size_t *count,
                     error_info *err)
{
    store_stream_waits *rows = store_stream_waits_open(db, process_id, err);
    if (!rows)
        return -1;
    size_t capacity = 0;
    int status = 0;
    struct store_stream_wait_row row;
    /* a read error ends the waits read so far: the replay keeps those */
    while (status == 0 && *count < WHATIF_MAX_OPS && store_stream_waits_next(rows, &row, err) == 1) {
        if (replay_grow((void **)out, &capacity, *count, sizeof **out) != 0)
            status = WHATIF_OUT_OF_MEMORY;
        else
            (*out)[(*count)++] = (struct stream_wait){row.stream_id, row.correlation_id, row.event_id};
    }
    store_stream_waits_free(rows);
    if (*count)
        qsort(*out, *count, sizeof **out, by_stream_then_correlation);
    return status;
}

/* The last wait on stream_id launched before correlation_id, NULL when none. */
const struct stream_wait *graph_wait_before(const struct stream_wait *waits, size_t wait_count,
                                            int64_t stream_id, int64_t correlation_id)
{
    struct stream_wait key = {stream_id, correlation_id, 0};
    size_t low = 0, high = wait_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (by_stream_then_correlation(&waits[middle], &key) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    return low > 0 && waits[low - 1].stream_id == stream_id ? &waits[low - 1] : NULL;
}

/* The op that the record of an event on stream_id at correlation `recorded` waits for: the last op
 * the stream launched before it, -1 when none. *relay is set to the stream's last wait before the
 * record when no op came between that wait and the record (the stream only relays the event: NCCL's
 * internal stream of a communicator, which waits for the previous launch and is waited for by the
 * next, NCCL src/enqueue.cc), else NULL. */
static long recorded_after(const struct replay *replay, const struct stream_wait *waits, size_t wait_count,
                           int64_t stream_id, int64_t recorded, const struct stream_wait **relay)
{
    long stream = graph_stream_of(replay, stream_id);
    long producer = stream >= 0 ? graph_last_before(replay, (size_t)stream, recorded) : -1;
    const struct stream_wait *through = graph_wait_before(waits, wait_count, stream_id, recorded);
    *relay = through && (producer < 0 || replay->ops[producer].correlation_id < through->correlation_id)
                 ? through
                 : NULL;
    return producer;
}

/* cudaStreamWaitEvent: the waiting stream's first op launched after the wait runs after the last op
 * the recording stream had launched before the event's record, and, when that stream only relayed
 * the event, after what the relay waited for (one hop). A relayed edge between two NCCL kernels is
 * the ordering of one communicator (EDGE_COMMUNICATOR), which ANALYSIS_FIX_OWN_COMMUNICATOR drops. */
int graph_add_event_edges(sqlite3 *db, struct replay *replay, int64_t process_id,
                          const struct stream_wait *waits, size_t wait_count, error_info *err)
{
    store_event_records *records = store_event_records_open(db, err);
    if (!records)
        return -1;
    int status = 0;
    for (size_t w = 0; status == 0 && w < wait_count; w++) {
        long waiting = graph_stream_of(replay, waits[w].stream_id);
        int64_t stream_id, recorded;
        if (waiting < 0)
            continue;
        long consumer = first_after(replay, (size_t)waiting, waits[w].correlation_id);
        int found = store_event_record_before(records, process_id, waits[w].event_id, waits[w].correlation_id,
                                              &stream_id, &recorded, err);
        const struct stream_wait *relay = NULL;
        long producer =
            found == 1 ? recorded_after(replay, waits, wait_count, stream_id, recorded, &relay) : -1;
        if (found == 1 && relay)
            found = store_event_record_before(records, process_id, relay->event_id, relay->correlation_id,
                                              &stream_id, &recorded, err);
        long relayed = -1;
        if (found == 1 && relay) {
            const struct stream_wait *ignored;
            relayed = recorded_after(replay, waits, wait_count, stream_id, recorded, &ignored);
        }
        int communicator = relayed >= 0 && consumer >= 0 &&
                           replay->ops[relayed].category == ANALYSIS_COMMUNICATION &&
                           replay->ops[consumer].category == ANALYSIS_COMMUNICATION;
        if (found < 0)
            status = -1; /* err filled by the store */
        else if (add_edge(replay, producer, consumer, EDGE_EVENT) != 0 ||
                 add_edge(replay, relayed, consumer, communicator ? EDGE_COMMUNICATOR : EDGE_EVENT) != 0)
            status = WHATIF_OUT_OF_MEMORY;
    }
    store_event_records_free(records);
    return status;
}

/* The legacy default stream waits for the blocking streams' work launched before its op, and
 * blocking streams wait for its work launched before theirs (CUDA Runtime API, "Stream
 * synchronization behavior"). */
int graph_add_legacy_edges(struct replay *replay, const struct device_state *device)
{
    long legacy = -1;
    for (size_t i = 0; i < device->lane_count; i++) {
        const struct lane_state *lane = &device->lanes[i];
        long stream = graph_stream_of(replay, lane->stream_id);
        if (stream < 0)
            continue;
        if (lane->is_legacy_default) {
            replay->stream_legacy[stream] = 1;
            legacy = stream;
        } else if (lane->flags == 1 || lane->is_per_thread_default) {
            replay->stream_legacy[stream] = 2;
        }
    }
    if (legacy < 0)
        return 0;
    for (size_t i = 0; i < replay->op_count; i++) {
        const struct replay_op *op = &replay->ops[i];
        if (op->correlation_id == STORE_NULL)
            continue;
        int role = replay->stream_legacy[op->stream_index];
        if (role == 2 && add_edge(replay, graph_last_before(replay, (size_t)legacy, op->correlation_id),
                                  (long)i, EDGE_LEGACY) != 0)
            return -1;
        for (size_t s = 0; role == 1 && s < replay->stream_count; s++)
            if (replay->stream_legacy[s] == 2 &&
                add_edge(replay, graph_last_before(replay, s, op->correlation_id), (long)i, EDGE_LEGACY) != 0)
                return -1;
    }
    return 0;
}

static int by_edge_target(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    return (x->to > y->to) - (x->to < y->to);
}

void graph_index_edges(struct replay *replay)
{
    if (replay->edge_count)
        qsort(replay->edges, replay->edge_count, sizeof *replay->edges, by_edge_target);
    for (size_t e = 0; e < replay->edge_count; e++) {
        struct replay_op *op = &replay->ops[replay->edges[e].to];
        if (op->edge_count++ == 0)
            op->edge_first = e;
    }
}
