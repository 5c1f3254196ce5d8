/* whatif.c: the what-if replay (whatif.h): takes one device's operations (the walk's,
 * device_state.selected_ops), loads their launches and the dependencies the program asked for, replays them
 * as a discrete-event simulation, and replays them again with each proved cause's fix. Memory: the device's
 * operations and its process's host calls (bounded by WHATIF_MAX_OPS). */
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"
#include "explain.h"
#include "kernel_names.h"
#include "key_index.h"
#include "op_source.h"
#include "units.h"
#include "whatif.h"

/* A removed host call still costs the host this long: a launch reaching the driver. */
#define WHATIF_CALL_FLOOR_NS 5000
/* Copies smaller than this measure latency, not a link's speed. */
#define WHATIF_MIN_SPEED_BYTES (1 << 20)

enum edge_kind { EDGE_EVENT = 0, EDGE_LEGACY = 1, EDGE_COMMUNICATOR = 2 };

/* Loaders return this apart from -1 (a read error): a trace whose host calls cannot be read is
 * analyzed without the replay, but memory running out fails the analysis. */
#define WHATIF_OUT_OF_MEMORY (-2)
/* Host calls kept: times any recording can hold, each at most 2^38 ns (4.6 minutes) long. */
#define WHATIF_MAX_HOST_NS STORE_MAX_ABS_TIME_NS
#define WHATIF_MAX_CALL_NS (INT64_C(1) << 38)

struct replay_op {
    int64_t start_ns, duration_ns, correlation_id, stream_id;
    int64_t launch_ns, launch_end_ns, thread_id; /* STORE_NULL when the launch is unknown */
    int64_t channel_id;                          /* STORE_NULL: no channel recorded */
    int on_copy_channel;                         /* copy channels are numbered apart */
    int drained_start;                           /* mark_drained_starts */
    size_t stream_index;                         /* into the replay's streams */
    long stream_previous, channel_previous;      /* op indexes, -1 when none */
    size_t edge_first, edge_count;               /* into the replay's edges (by `to`) */
    enum analysis_category category;
    int pageable;
    int64_t bytes;
    double sm_share, tail_share; /* of the device's block slots: first wave, last wave */
    int64_t waves;
};

struct edge {
    size_t from, to;
    enum edge_kind kind;
};

struct host_call {
    int64_t thread_id, start_ns, end_ns, correlation_id;
    int kind; /* bit 1: synchronizing; bit 2: a launch */
};

/* The removals every thread shares (the host's own work, host_work_removals): at each launch a
 * stretch ended before, the sum of those up to it. */
struct shared_removal {
    int64_t at, removed_ns;
};

static int by_removal_time(const void *a, const void *b)
{
    const struct shared_removal *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

struct replay {
    struct replay_op *ops;
    size_t op_count, op_capacity;
    struct edge *edges;
    size_t edge_count, edge_capacity;
    struct host_call *calls; /* by correlation id */
    size_t call_count;
    size_t stream_count;
    int64_t pinned_bytes_per_s[ANALYSIS_CATEGORY_COUNT]; /* fastest pinned copy per direction, 0 unknown */
    size_t *stream_ops;   /* op indexes grouped by stream, each stream in start order */
    size_t *stream_first; /* stream_count + 1 offsets into stream_ops */
    int *stream_legacy;   /* per stream: 1 legacy default, 2 synchronizes with it, 0 neither */
    size_t *launch_order; /* op indexes by correlation id (launch order): the same for every fix */
    size_t *call_order;   /* call indexes by (thread, end): the order a fix's removals are kept in */
    /* Where the host time a fix removes is read (host_positions): per op with a launch, 1 + the
     * place in call_order of its thread's last call that ended by the launch (0: none); per
     * synchronizing call, the same for its start and its end. The same for every fix: a replay
     * reads its removed time there, not by a search per op. */
    size_t *op_removed_at, *call_start_removed_at, *call_end_removed_at;
    /* The host-work fix's removals (host_work_removals), shared by the split replay. */
    struct shared_removal *host_removed;
    size_t host_removed_count;
    /* The first launch of the ops replayed: host time a fix removes before it moves every later
     * launch alike and is not counted (first_launch_of). */
    int64_t first_launch_ns;
    /* Per call: the host's time after it that a CUDA graph removes as well (graph_gaps), NULL none;
     * of it, the host work the host-work fix removes too (not removed twice when both are made;
     * NULL when no gap can hold any). */
    int64_t *graph_gap_ns, *graph_gap_work_ns;
};

/* CALL_MAY_SYNC: an allocation or free, which synchronizes the device on most drivers, not all
 * (keep_allocations_that_waited). */
enum {
    CALL_SYNC = 1,
    CALL_LAUNCH = 2,
    CALL_ASYNC_COPY = 4,
    CALL_MAY_SYNC = 8,
    CALL_ASYNC_MEMSET = 16,
    CALL_PAGEABLE = 32 /* a copy to or from pageable memory: no graph captures it */
};

/* --- loading --- */

static int grow(void **items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 0;
    size_t next = *capacity ? *capacity * 2 : 256;
    void *grown = realloc(*items, next * size);
    if (!grown)
        return -1;
    *items = grown;
    *capacity = next;
    return 0;
}

static int call_kind(const char *name)
{
    if (!name)
        return 0;
    if (cuda_api_is_synchronizing(name)) {
        enum cuda_api_class api_class = cuda_api_classify(name);
        int allocation = api_class == CUDA_API_ALLOC || api_class == CUDA_API_FREE;
        /* Page-locked host memory (cudaMallocHost, cudaFreeHost) costs its own time, pinning
         * pages, which no removed synchronization gives back: the fix keeps those calls. */
        if (allocation && strstr(name, "Host"))
            return 0;
        return CALL_SYNC | (allocation ? CALL_MAY_SYNC : 0);
    }
    if (strstr(name, "LaunchKernel") || strstr(name, "LaunchCooperativeKernel"))
        return CALL_LAUNCH;
    if (strstr(name, "emcpy") && strstr(name, "Async"))
        return CALL_ASYNC_COPY;
    if (strstr(name, "emset") && strstr(name, "Async"))
        return CALL_ASYNC_MEMSET;
    return 0;
}

static int by_correlation(const void *a, const void *b)
{
    const struct host_call *x = a, *y = b;
    return (x->correlation_id > y->correlation_id) - (x->correlation_id < y->correlation_id);
}

/* The kind (call_kind) of each API name id met: a process's calls read each name's string once,
 * not once per call through a join. */
struct name_kind {
    int64_t name_id;
    int kind;
};

struct name_kinds {
    struct name_kind *items;
    size_t count, capacity;
    struct key_index index;
    sqlite3_stmt *lookup; /* the string of an id */
};

struct name_key {
    const struct name_kinds *kinds;
    int64_t name_id;
};

static int name_kind_matches(const void *context, size_t position)
{
    const struct name_key *key = context;
    return key->kinds->items[position].name_id == key->name_id;
}

/* The kind of name_id: 0, or -1 on a read error, WHATIF_OUT_OF_MEMORY, with *kind filled. */
static int kind_of_name(struct name_kinds *kinds, int64_t name_id, int *kind)
{
    struct name_key key = {kinds, name_id};
    uint64_t hash = key_index_hash(name_id, 0, 0, 0);
    long found = key_index_find(&kinds->index, hash, name_kind_matches, &key);
    if (found >= 0) {
        *kind = kinds->items[found].kind;
        return 0;
    }
    sqlite3_reset(kinds->lookup);
    sqlite3_bind_int64(kinds->lookup, 1, name_id);
    int step = sqlite3_step(kinds->lookup);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return -1;
    *kind = call_kind(step == SQLITE_ROW ? (const char *)sqlite3_column_text(kinds->lookup, 0) : NULL);
    if (grow((void **)&kinds->items, &kinds->capacity, kinds->count, sizeof *kinds->items) != 0 ||
        key_index_add(&kinds->index, hash, kinds->count) != 0)
        return WHATIF_OUT_OF_MEMORY;
    kinds->items[kinds->count++] = (struct name_kind){name_id, *kind};
    return 0;
}

/* A call no recording could hold (the trace is damaged there) is left out: the replay's sums of
 * host time stay far from overflow (calls x length <= 2^22 x 2^38). */
static int host_call_kept(int64_t start, int64_t end)
{
    return start >= -WHATIF_MAX_HOST_NS && end <= WHATIF_MAX_HOST_NS && end >= start &&
           end - start <= WHATIF_MAX_CALL_NS;
}

/* Reads the process's host calls that have a correlation id, by correlation id (the index's order:
 * sorted here only when the rows came otherwise). */
static int load_calls(sqlite3 *db, struct replay *replay, int64_t process_id, error_info *err)
{
    sqlite3_stmt *query = NULL;
    struct name_kinds kinds = {0};
    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, start_ns, end_ns, correlation_id, name_id FROM api_calls"
                           " WHERE process_id = ?1 AND correlation_id IS NOT NULL",
                           -1, &query, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT value FROM strings WHERE id = ?1", -1, &kinds.lookup, NULL) !=
            SQLITE_OK) {
        sqlite3_finalize(query);
        return error_set(err, "cannot read host calls: %s", sqlite3_errmsg(db));
    }
    sqlite3_bind_int64(query, 1, process_id);
    size_t capacity = 0;
    int status = 0, step, sorted = 1;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        if (replay->call_count >= WHATIF_MAX_OPS)
            break;
        int64_t start = sqlite3_column_int64(query, 1), end = sqlite3_column_int64(query, 2);
        if (!host_call_kept(start, end))
            continue;
        int kind = 0;
        if (sqlite3_column_type(query, 4) != SQLITE_NULL &&
            (status = kind_of_name(&kinds, sqlite3_column_int64(query, 4), &kind)) != 0)
            break;
        if (grow((void **)&replay->calls, &capacity, replay->call_count, sizeof *replay->calls) != 0) {
            status = WHATIF_OUT_OF_MEMORY;
            break;
        }
        struct host_call *call = &replay->calls[replay->call_count++];
        *call = (struct host_call){.thread_id = sqlite3_column_int64(query, 0),
                                   .start_ns = start,
                                   .end_ns = end,
                                   .correlation_id = sqlite3_column_int64(query, 3),
                                   .kind = kind};
        sorted &= replay->call_count == 1 || call[-1].correlation_id < call->correlation_id;
    }
    if (status == -1 || (status == 0 && step != SQLITE_ROW && step != SQLITE_DONE))
        status = error_set(err, "cannot read host calls: %s", sqlite3_errmsg(db));
    sqlite3_finalize(query);
    sqlite3_finalize(kinds.lookup);
    free(kinds.items);
    key_index_free(&kinds.index);
    /* Strictly increasing ids are the order qsort would give whatever its ties. */
    if (replay->call_count && !sorted)
        qsort(replay->calls, replay->call_count, sizeof *replay->calls, by_correlation);
    return status;
}

/* The host calls from the process's launches (read once for the device, launches.h), as load_calls
 * would read them: the same rows in the same order, the same calls left out. */
static int calls_of_launches(sqlite3 *db, struct replay *replay, const struct launches *launches,
                             error_info *err)
{
    struct name_kinds kinds = {0};
    if (sqlite3_prepare_v2(db, "SELECT value FROM strings WHERE id = ?1", -1, &kinds.lookup, NULL) !=
        SQLITE_OK)
        return error_set(err, "cannot read host calls: %s", sqlite3_errmsg(db));
    replay->calls = malloc((launches->count ? launches->count : 1) * sizeof *replay->calls);
    int status = replay->calls ? 0 : WHATIF_OUT_OF_MEMORY;
    for (size_t i = 0; status == 0 && i < launches->count; i++) {
        const struct correlated_call *call = &launches->calls[i];
        int kind = 0;
        if (!host_call_kept(call->start_ns, call->end_ns) ||
            (call->has_name && (status = kind_of_name(&kinds, call->name_id, &kind)) != 0))
            continue;
        replay->calls[replay->call_count++] = (struct host_call){.thread_id = call->thread_id,
                                                                 .start_ns = call->start_ns,
                                                                 .end_ns = call->end_ns,
                                                                 .correlation_id = call->correlation_id,
                                                                 .kind = kind};
    }
    if (status == -1)
        status = error_set(err, "cannot read host calls: %s", sqlite3_errmsg(db));
    sqlite3_finalize(kinds.lookup);
    free(kinds.items);
    key_index_free(&kinds.index);
    return status;
}

static const struct host_call *call_of(const struct replay *replay, int64_t correlation_id)
{
    struct host_call key = {.correlation_id = correlation_id};
    if (correlation_id == STORE_NULL || replay->call_count == 0)
        return NULL;
    return bsearch(&key, replay->calls, replay->call_count, sizeof key, by_correlation);
}

static void set_footprint(const struct device_state *device, struct replay_op *op,
                          const struct model_op *source)
{
    struct occupancy_result occupancy;
    if (source->kind != MODEL_KERNEL || !device->limits_known ||
        occupancy_compute(&device->limits, &source->launch, &occupancy) != 0 || occupancy.blocks_per_sm <= 0)
        return;
    double slots = (double)occupancy.blocks_per_sm * (double)device->limits.sm_count;
    double grid = (double)source->launch.grid_blocks;
    op->sm_share = grid >= slots ? 1.0 : grid / slots;
    op->waves = occupancy.waves > 0 ? occupancy.waves : 1;
    op->tail_share = op->waves > 1 ? (double)occupancy.last_wave_blocks / slots : op->sm_share;
}

static int is_pageable(const struct model_op *op)
{
    return op->kind == MODEL_MEMCPY &&
           (op->src_kind == STORE_MEMORY_PAGEABLE || op->dst_kind == STORE_MEMORY_PAGEABLE);
}

static int add_op(struct replay *replay, const struct device_state *device, kernel_names *names,
                  const struct model_op *source)
{
    if (grow((void **)&replay->ops, &replay->op_capacity, replay->op_count, sizeof *replay->ops) != 0)
        return -1;
    struct replay_op *op = &replay->ops[replay->op_count++];
    *op = (struct replay_op){.start_ns = source->start_ns,
                             .duration_ns =
                                 source->end_ns > source->start_ns ? source->end_ns - source->start_ns : 0,
                             .correlation_id = source->correlation_id,
                             .stream_id = source->stream_id,
                             .launch_ns = STORE_NULL,
                             .launch_end_ns = STORE_NULL,
                             .thread_id = STORE_NULL,
                             .channel_id = source->channel_id,
                             .on_copy_channel = source->kind != MODEL_KERNEL,
                             .stream_previous = -1,
                             .channel_previous = -1,
                             .category = source->category,
                             .pageable = is_pageable(source),
                             .bytes = source->bytes,
                             .waves = 1};
    if (source->kind == MODEL_KERNEL && kernel_names_is_communication(names, source->name_id, source->rowid))
        op->category = ANALYSIS_COMMUNICATION;
    const struct host_call *call = call_of(replay, source->correlation_id);
    /* A synchronous cudaMemcpy to pageable memory waits anyway: pinning pays where the program
     * asked for an asynchronous copy. */
    op->pageable = op->pageable && call && (call->kind & CALL_ASYNC_COPY);
    if (call) {
        op->launch_ns = call->start_ns;
        op->launch_end_ns = call->end_ns;
        op->thread_id = call->thread_id;
        /* A copy to host memory the call waits for (a synchronous one, or an asynchronous one to
         * pageable memory, which "will return only once the copy has completed", CUDA Runtime API
         * "API synchronization behavior") synchronizes the host like a stream synchronize: the
         * .item()-style read-back. */
        if (op->category == ANALYSIS_COPY_DTOH && (!(call->kind & CALL_ASYNC_COPY) || op->pageable))
            replay->calls[call - replay->calls].kind |= CALL_SYNC;
        if (op->pageable)
            replay->calls[call - replay->calls].kind |= CALL_PAGEABLE;
    }
    set_footprint(device, op, source);
    if (source->kind == MODEL_MEMCPY && !op->pageable && op->bytes >= WHATIF_MIN_SPEED_BYTES &&
        op->duration_ns > 0) {
        int64_t speed = (int64_t)((double)op->bytes * 1e9 / (double)op->duration_ns);
        if (speed > replay->pinned_bytes_per_s[op->category])
            replay->pinned_bytes_per_s[op->category] = speed;
    }
    return 0;
}

/* The device's selected operations, as the walk kept them, at most WHATIF_MAX_OPS. */
static int load_ops(struct replay *replay, kernel_names *names, const struct device_state *device)
{
    /* Their number is known: an array grown by doubling touched up to twice the memory (a page
     * fault per page first touched). */
    size_t count = device->selected_op_count < WHATIF_MAX_OPS ? device->selected_op_count : WHATIF_MAX_OPS;
    if (count > replay->op_capacity) {
        struct replay_op *ops = realloc(replay->ops, count * sizeof *ops);
        if (!ops)
            return WHATIF_OUT_OF_MEMORY;
        replay->ops = ops;
        replay->op_capacity = count;
    }
    for (size_t i = 0; i < device->selected_op_count && replay->op_count < WHATIF_MAX_OPS; i++)
        if (add_op(replay, device, names, &device->selected_ops[i]) != 0)
            return WHATIF_OUT_OF_MEMORY;
    return 0;
}

/* How many ops of `order` (op indexes in launch order) were launched before correlation_id. */
static size_t launched_before(const struct replay *replay, const size_t *order, int64_t correlation_id)
{
    size_t low = 0, high = replay->op_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (replay->ops[order[middle]].correlation_id < correlation_id)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* cudaMalloc and cudaFree may synchronize the device (CUDA Runtime API, "API synchronization
 * behavior"), and the recording says whether one did: a call that returned while work launched
 * before it was still running (by more than the clocks' tolerance) did not wait for it, and the
 * replay keeps it as an ordinary host call. Replaying it as a barrier made the replay of a trace
 * whose cudaMalloc never waited (tests/data/gpu-h100/host_sync_malloc.db) 44% longer than the
 * recorded span and promised that span back. Needs launch_order (order_launches). */
static int keep_allocations_that_waited(struct replay *replay)
{
    size_t n = replay->op_count;
    int64_t *ended_by = malloc((n ? n : 1) * sizeof *ended_by); /* latest end of the first k+1 launched */
    if (!ended_by)
        return -1;
    for (size_t k = 0; k < n; k++) {
        const struct replay_op *op = &replay->ops[replay->launch_order[k]];
        ended_by[k] = op->start_ns + op->duration_ns;
        if (k > 0 && ended_by[k - 1] > ended_by[k])
            ended_by[k] = ended_by[k - 1];
    }
    for (size_t c = 0; c < replay->call_count; c++) {
        struct host_call *call = &replay->calls[c];
        if (!(call->kind & CALL_MAY_SYNC) || !(call->kind & CALL_SYNC))
            continue;
        size_t low = launched_before(replay, replay->launch_order, call->correlation_id);
        if (low > 0 && ended_by[low - 1] > call->end_ns + EXPLAIN_START_TOLERANCE_NS)
            call->kind &= ~CALL_SYNC;
    }
    free(ended_by);
    return 0;
}

/* --- the order the program and the hardware impose --- */

struct order_item {
    int64_t key;
    int sub; /* a channel's kind (copy or compute) */
    int64_t correlation_id;
    size_t op;
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
 * channel's mostly in launch order). Returns 0 or -1 when out of memory. */
static int sort_order_items(struct order_item *items, size_t count)
{
    struct order_group *groups = NULL;
    size_t group_count = 0, group_capacity = 0, *group_of = malloc((count ? count : 1) * sizeof *group_of);
    struct order_item *sorted = malloc((count ? count : 1) * sizeof *sorted);
    struct key_index index = {0};
    int status = group_of && sorted ? 0 : -1;
    size_t last = SIZE_MAX;
    for (size_t i = 0; status == 0 && i < count; i++) {
        if (last != SIZE_MAX && groups[last].key == items[i].key && groups[last].sub == items[i].sub) {
            group_of[i] = last;
            groups[last].count++;
            continue;
        }
        struct group_key wanted = {groups, items[i].key, items[i].sub};
        uint64_t hash = key_index_hash(items[i].key, items[i].sub, 0, 0);
        long found = key_index_find(&index, hash, group_matches, &wanted);
        if (found < 0) {
            if (grow((void **)&groups, &group_capacity, group_count, sizeof *groups) != 0 ||
                key_index_add(&index, hash, group_count) != 0) {
                status = -1;
                break;
            }
            groups[group_count] = (struct order_group){items[i].key, items[i].sub, 0, 0};
            found = (long)group_count++;
        }
        last = (size_t)found;
        group_of[i] = last;
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
                sorted[ordered[rank[group_of[i]]].next++] = items[i];
            for (size_t g = 0, begin = 0; g < group_count; begin += ordered[g++].count) {
                size_t end = begin + ordered[g].count;
                for (size_t i = begin + 1; i < end; i++)
                    if (compare_order(&sorted[i - 1], &sorted[i]) > 0) {
                        qsort(sorted + begin, end - begin, sizeof *sorted, compare_order);
                        break;
                    }
            }
            memcpy(items, sorted, count * sizeof *items);
        }
        free(rank);
        free(ordered);
    }
    free(groups);
    free(group_of);
    free(sorted);
    key_index_free(&index);
    return status;
}

/* A key of radix_sort: two words compared in turn, and the index of what it sorts. */
struct radix_key {
    uint64_t high, low;
    size_t index;
};

/* A signed value as an unsigned key in the same order. */
static uint64_t radix_of(int64_t value)
{
    return (uint64_t)value ^ (UINT64_C(1) << 63);
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
static const struct radix_key *radix_sort(struct radix_key *keys, struct radix_key *spare, size_t n,
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
        keys[count] = (struct radix_key){0, radix_of(replay->ops[i].correlation_id), i};
        in_order &= count == 0 || keys[count - 1].low <= keys[count].low;
        count++;
    }
    const struct radix_key *sorted = in_order ? keys : radix_sort(keys, spare, count, 8);
    for (size_t i = 0; i < count; i++)
        replay->launch_order[unknown + i] = sorted[i].index;
    free(keys);
    free(spare);
    return 0;
}

/* Sorts ops by (key, correlation id); fills each op's previous of the same key. By stream, it
 * also orders the launches (order_launches). */
static int link_by(struct replay *replay, int by_channel)
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
        items[count++] = (struct order_item){key, by_channel && op->on_copy_channel,
                                             by_channel ? op->correlation_id : (int64_t)i, i};
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
static long last_before(const struct replay *replay, size_t stream, int64_t correlation_id)
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

static long stream_of(const struct replay *replay, int64_t stream_id)
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
    if (grow((void **)&replay->edges, &replay->edge_capacity, replay->edge_count, sizeof *replay->edges) != 0)
        return -1;
    replay->edges[replay->edge_count++] = (struct edge){(size_t)from, (size_t)to, kind};
    return 0;
}

struct stream_wait {
    int64_t stream_id, correlation_id, event_id;
};

static int by_stream_then_correlation(const void *a, const void *b)
{
    const struct stream_wait *x = a, *y = b;
    if (x->stream_id != y->stream_id)
        return x->stream_id < y->stream_id ? -1 : 1;
    return (x->correlation_id > y->correlation_id) - (x->correlation_id < y->correlation_id);
}

/* Every cudaStreamWaitEvent of the process (streams without work in the replay included: NCCL's
 * internal stream orders a communicator's collectives through them), by stream then launch. */
static int load_waits(sqlite3 *db, int64_t process_id, struct stream_wait **out, size_t *count,
                      error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT stream_id, correlation_id, event_id FROM synchronizations WHERE"
                           " process_id = ?1 AND sync_type = 2 AND stream_id IS NOT NULL AND"
                           " correlation_id IS NOT NULL",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read event dependencies: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(query, 1, process_id);
    size_t capacity = 0;
    int status = 0;
    while (status == 0 && *count < WHATIF_MAX_OPS && sqlite3_step(query) == SQLITE_ROW) {
        if (grow((void **)out, &capacity, *count, sizeof **out) != 0)
            status = WHATIF_OUT_OF_MEMORY;
        else
            (*out)[(*count)++] =
                (struct stream_wait){sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1),
                                     sqlite3_column_int64(query, 2)};
    }
    sqlite3_finalize(query);
    if (*count)
        qsort(*out, *count, sizeof **out, by_stream_then_correlation);
    return status;
}

/* The last wait on stream_id launched before correlation_id, NULL when none. */
static const struct stream_wait *wait_before(const struct stream_wait *waits, size_t wait_count,
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

/* The record of event_id last launched before correlation_id: 1 with *stream_id and *recorded
 * filled, 0 when none, -1 on a read error. */
static int record_before(sqlite3_stmt *record, int64_t process_id, int64_t event_id, int64_t correlation_id,
                         int64_t *stream_id, int64_t *recorded)
{
    sqlite3_reset(record);
    sqlite3_bind_int64(record, 1, process_id);
    sqlite3_bind_int64(record, 2, event_id);
    sqlite3_bind_int64(record, 3, correlation_id);
    int step = sqlite3_step(record);
    if (step == SQLITE_ROW && sqlite3_column_type(record, 0) != SQLITE_NULL) {
        *stream_id = sqlite3_column_int64(record, 0);
        *recorded = sqlite3_column_int64(record, 1);
        return 1;
    }
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : -1;
}

static int prepare_record(sqlite3 *db, sqlite3_stmt **record, error_info *err)
{
    if (sqlite3_prepare_v2(db,
                           "SELECT stream_id, correlation_id FROM cuda_events WHERE process_id = ?1 AND"
                           " event_id = ?2 AND correlation_id < ?3 ORDER BY correlation_id DESC LIMIT 1",
                           -1, record, NULL) != SQLITE_OK)
        return error_set(err, "cannot read event records: %s", sqlite3_errmsg(db));
    return 0;
}

/* The op that the record of an event on stream_id at correlation `recorded` waits for: the last op
 * the stream launched before it, -1 when none. *relay is set to the stream's last wait before the
 * record when no op came between that wait and the record (the stream only relays the event: NCCL's
 * internal stream of a communicator, which waits for the previous launch and is waited for by the
 * next, NCCL src/enqueue.cc), else NULL. */
static long recorded_after(const struct replay *replay, const struct stream_wait *waits, size_t wait_count,
                           int64_t stream_id, int64_t recorded, const struct stream_wait **relay)
{
    long stream = stream_of(replay, stream_id);
    long producer = stream >= 0 ? last_before(replay, (size_t)stream, recorded) : -1;
    const struct stream_wait *through = wait_before(waits, wait_count, stream_id, recorded);
    *relay = through && (producer < 0 || replay->ops[producer].correlation_id < through->correlation_id)
                 ? through
                 : NULL;
    return producer;
}

/* cudaStreamWaitEvent: the waiting stream's first op launched after the wait runs after the last op
 * the recording stream had launched before the event's record, and, when that stream only relayed
 * the event, after what the relay waited for (one hop). A relayed edge between two NCCL kernels is
 * the ordering of one communicator (EDGE_COMMUNICATOR), which ANALYSIS_FIX_OWN_COMMUNICATOR drops. */
static int add_event_edges(sqlite3 *db, struct replay *replay, int64_t process_id,
                           const struct stream_wait *waits, size_t wait_count, error_info *err)
{
    sqlite3_stmt *record = NULL;
    if (prepare_record(db, &record, err) != 0)
        return -1;
    int status = 0;
    for (size_t w = 0; status == 0 && w < wait_count; w++) {
        long waiting = stream_of(replay, waits[w].stream_id);
        int64_t stream_id, recorded;
        if (waiting < 0)
            continue;
        long consumer = first_after(replay, (size_t)waiting, waits[w].correlation_id);
        int found = record_before(record, process_id, waits[w].event_id, waits[w].correlation_id, &stream_id,
                                  &recorded);
        const struct stream_wait *relay = NULL;
        long producer =
            found == 1 ? recorded_after(replay, waits, wait_count, stream_id, recorded, &relay) : -1;
        if (found == 1 && relay)
            found = record_before(record, process_id, relay->event_id, relay->correlation_id, &stream_id,
                                  &recorded);
        long relayed = -1;
        if (found == 1 && relay) {
            const struct stream_wait *ignored;
            relayed = recorded_after(replay, waits, wait_count, stream_id, recorded, &ignored);
        }
        int communicator = relayed >= 0 && consumer >= 0 &&
                           replay->ops[relayed].category == ANALYSIS_COMMUNICATION &&
                           replay->ops[consumer].category == ANALYSIS_COMMUNICATION;
        if (found < 0)
            status = error_set(err, "cannot read event records: %s", sqlite3_errmsg(db));
        else if (add_edge(replay, producer, consumer, EDGE_EVENT) != 0 ||
                 add_edge(replay, relayed, consumer, communicator ? EDGE_COMMUNICATOR : EDGE_EVENT) != 0)
            status = WHATIF_OUT_OF_MEMORY;
    }
    sqlite3_finalize(record);
    return status;
}

/* The legacy default stream waits for the blocking streams' work launched before its op, and
 * blocking streams wait for its work launched before theirs (CUDA Runtime API, "Stream
 * synchronization behavior"). */
static int add_legacy_edges(struct replay *replay, const struct device_state *device)
{
    long legacy = -1;
    for (size_t i = 0; i < device->lane_count; i++) {
        const struct lane_state *lane = &device->lanes[i];
        long stream = stream_of(replay, lane->stream_id);
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
        if (role == 2 && add_edge(replay, last_before(replay, (size_t)legacy, op->correlation_id), (long)i,
                                  EDGE_LEGACY) != 0)
            return -1;
        for (size_t s = 0; role == 1 && s < replay->stream_count; s++)
            if (replay->stream_legacy[s] == 2 &&
                add_edge(replay, last_before(replay, s, op->correlation_id), (long)i, EDGE_LEGACY) != 0)
                return -1;
    }
    return 0;
}

static int by_edge_target(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    return (x->to > y->to) - (x->to < y->to);
}

static void index_edges(struct replay *replay)
{
    if (replay->edge_count)
        qsort(replay->edges, replay->edge_count, sizeof *replay->edges, by_edge_target);
    for (size_t e = 0; e < replay->edge_count; e++) {
        struct replay_op *op = &replay->ops[replay->edges[e].to];
        if (op->edge_count++ == 0)
            op->edge_first = e;
    }
}

/* --- the replay --- */

#define UNSET INT64_MIN
#define FIX_BIT(fix) (1u << (fix))

/* A synchronizing host call the fixes keep. */
struct sync_point {
    int64_t thread_id, start_ns, end_ns;
    size_t barrier; /* ops launched before it (a prefix of by_correlation) */
    int64_t own_ns; /* its recorded time not spent waiting for the GPU */
    long previous;  /* the kept sync before it on its thread, -1 none */
    int resolved;
    int64_t replay_end_ns;
    int64_t removed_by_end_ns; /* removed by its end on its thread: asked for every op of its segment */
    size_t call;               /* into the replay's calls */
};

/* A time something can change: an end or a tail of a started op, the ready time of a stream's head
 * (is_ready: still to come while the head has not started), or a head's gate. */
struct moment {
    int64_t at;
    size_t op, stream;
    int is_ready;
};

struct moments {
    struct moment *items;
    size_t count, capacity;
};

/* The buffers of a device's replays, kept from one replay to the next (a device is replayed
 * once per fix set): each replay allocating and first touching its own was a tenth of a real
 * trace's replays in page faults. One slot per array of run_state; grown, never shrunk, freed
 * with the device's replays (scratch_free). */
enum scratch_slot {
    SCRATCH_READY,
    SCRATCH_DURATION,
    SCRATCH_START,
    SCRATCH_END,
    SCRATCH_TAIL,
    SCRATCH_RUNNING,
    SCRATCH_HEAD,
    SCRATCH_GATE,
    SCRATCH_HEADS,
    SCRATCH_HELD_FLAG,
    SCRATCH_HELD,
    SCRATCH_HELD_PLACE,
    SCRATCH_LISTED,
    SCRATCH_WATCH,
    SCRATCH_REFRESHED,
    SCRATCH_CANDIDATES,
    SCRATCH_NEXT_CANDIDATES,
    SCRATCH_IN_WATCH,
    SCRATCH_BLOCKER,
    SCRATCH_SEEN,
    SCRATCH_GATE_KIND,
    SCRATCH_PAGEABLE_CALL,
    SCRATCH_REMOVALS,
    SCRATCH_SEGMENT,
    SCRATCH_LAUNCHED_END,
    SCRATCH_SYNCS,
    SCRATCH_RECORDED_END,
    SCRATCH_THREAD_NEXT,
    SCRATCH_THREAD_END,
    SCRATCH_SEGMENT_FIRST,
    SCRATCH_SEGMENT_OPS,
    SCRATCH_WAITERS,
    SCRATCH_WAIT_NEXT,
    SCRATCH_WAIT_PREVIOUS,
    SCRATCH_WAITING,
    SCRATCH_COUNT
};

struct moments;

struct replay_scratch {
    void *slots[SCRATCH_COUNT];
    size_t sizes[SCRATCH_COUNT];
    struct moment *heap_items[2]; /* the moments' and the gates' heaps */
    size_t heap_capacity[2];
    /* The replay whose kept syncs and segments (collect_syncs, find_segments) the slots hold, NULL
     * when none: every fix but the removed host sync keeps the same syncs, so a device's replays
     * find them once, not once per fix. */
    const struct replay *syncs_of;
    size_t sync_count, thread_count;
};

/* The slot's buffer, at least bytes long (contents undefined), or NULL when out of memory. */
static void *scratch_take(struct replay_scratch *scratch, enum scratch_slot slot, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (scratch->sizes[slot] < bytes) {
        free(scratch->slots[slot]);
        scratch->slots[slot] = malloc(bytes);
        scratch->sizes[slot] = scratch->slots[slot] ? bytes : 0;
    }
    return scratch->slots[slot];
}

/* scratch_take, zeroed. */
static void *scratch_zeroed(struct replay_scratch *scratch, enum scratch_slot slot, size_t bytes)
{
    void *buffer = scratch_take(scratch, slot, bytes);
    if (buffer)
        memset(buffer, 0, bytes);
    return buffer;
}

static void scratch_free(struct replay_scratch *scratch)
{
    for (int slot = 0; slot < SCRATCH_COUNT; slot++)
        free(scratch->slots[slot]);
    free(scratch->heap_items[0]);
    free(scratch->heap_items[1]);
}

struct run_state {
    const struct replay *replay;
    struct replay_scratch *scratch;
    unsigned fixes;
    int64_t *ready, *duration, *start, *end;
    int64_t *tail; /* per started op: when its last half-wave begins (tail_begin, kept at start) */
    size_t *head;  /* per stream: position in stream_ops of the next op to start */
    struct running_op *running; /* in start order */
    size_t running_count;
    size_t running_kernels; /* of the running ops, the kernels (is_kernel): two run side by side */
    /* Host time the fixes give back (prefix sums per thread), and the synchronizing calls they
     * keep: a kept sync returns when the work launched before it ends in the replay. */
    int64_t *removed; /* per place p in call_order: the thread's removed time up to p - 1 (0: none) */
    const struct shared_removal *shared; /* removed from every thread (the host's work), by time */
    size_t shared_count;
    struct sync_point *syncs;
    size_t sync_count;
    long *segment; /* per op: the kept sync its launch came after on its thread, -1 none */
    /* The ops of each kept sync's segment (segment_ops[segment_first[k]..segment_first[k+1]]), and
     * per thread the next sync to resolve (syncs of a thread resolve in order): resolving costs the
     * threads and the segment's own ops, not every sync and op at every start. */
    size_t *segment_ops, *segment_first;
    size_t *thread_next, *thread_end;
    size_t thread_count;
    const size_t *by_correlation; /* op indexes in launch order (the replay's launch_order) */
    int64_t *launched_end;        /* per position in by_correlation: latest replayed end up to it */
    size_t started_prefix;        /* ops of by_correlation started, from the first */
    /* The least barrier of the threads' next syncs (SIZE_MAX: none left; 0 until looked at): no
     * sync resolves while fewer ops have started, so resolving after a start costs no walk over
     * the threads then. */
    size_t next_barrier;
    /* Per stream, when its head's stream order, events and hardware queue let it start (gate and
     * gate_kind, head_gate): a head's check at an event is then one comparison, and a gate is
     * computed again only after a start, the one thing that can change it. */
    int64_t *gate;
    unsigned char *gate_kind;
    struct head *heads; /* per stream: what its head asks of the device */
    /* The open heads the resources held back at a pass (held, with held_flag and held_place per
     * stream): each pass checks them again in one tight loop over these copies of what they ask
     * for, and looks one by one only at the heads whose gates changed or opened. */
    struct head *held;
    unsigned char *held_flag;
    size_t *held_place, held_count;
    /* At most what the held heads ask for: the smallest SM share (2 when none asks for SMs) and a
     * bit per copy direction one waits for; an event that frees less needs no look at them. */
    double held_smallest_share;
    unsigned held_copies;
    int gates_stale; /* an op started since the gates were computed */
    /* The streams whose gates must be computed again (watch, with in_watch: a new head, a blocker
     * that started, a ready time that became known), those refresh_gates computed last
     * (refreshed), and the heads the last pass found startable (candidates): after a start, the
     * next pass at the same time looks at these only, as every other head is held, closed or done
     * still. */
    size_t *watch, *refreshed, *candidates, *next_candidates;
    size_t watch_count, refreshed_count, candidate_count;
    unsigned char *in_watch;
    size_t *blocker; /* per GATE_BLOCKED stream: the op not started that head_gate stopped at */
    /* The GATE_BLOCKED streams by their blocker (waiters per op: the first stream, -1 none; a list
     * through wait_next and wait_previous per stream, waiting says it is on one): a start wakes
     * the streams it blocked, not a walk over every blocked stream at every start. */
    long *waiters, *wait_next, *wait_previous;
    unsigned char *waiting;
    uint64_t *seen, *listed; /* per stream: the pass that looked at it, the listing that listed it */
    uint64_t pass, listing;
    /* The times something can change (ends, tails, the heads' launches), a min-heap: the next
     * event is its top, not a walk over the running ops and the heads. */
    struct moments moments;
    /* The finite gates computed (at: the gate, op: the head, stream), a min-heap: the heads whose
     * gates open at an event are popped from it, not found by a walk over every stream. */
    struct moments gates;
    /* Streams with an op still to start, and whether the ops left on the last one are alike
     * (-1 not looked at yet): run_alone's conditions. */
    size_t streams_left;
    int alone_ok;
    int out_of_memory;
};

/* What a stream's head or a running op asks of the device, kept beside the stream or in the
 * running list so that the checks at every event read a few contiguous bytes, not the ops. */
struct head {
    size_t op, stream;
    enum analysis_category category;
    double sm_share;
};

struct running_op {
    size_t op;
    enum analysis_category category;
    double sm_share, tail_share;
    int64_t end_ns, tail_ns;
};

/* The moments' heaps are 4-ary: half as deep, for a few more comparisons per level on one or two
 * cache lines. Only their least time is ever read (next_event: the least one that still counts;
 * heads_to_look_at: all by `now`), so ties may come out in any order. */
#define HEAP_ARITY 4

static int push_moment(struct moments *heap, struct moment moment)
{
    if (heap->count == heap->capacity) {
        size_t capacity = heap->capacity ? heap->capacity * 2 : 64;
        struct moment *grown = realloc(heap->items, capacity * sizeof *grown);
        if (!grown)
            return -1;
        heap->items = grown;
        heap->capacity = capacity;
    }
    size_t child = heap->count++;
    while (child > 0 && heap->items[(child - 1) / HEAP_ARITY].at > moment.at) {
        heap->items[child] = heap->items[(child - 1) / HEAP_ARITY];
        child = (child - 1) / HEAP_ARITY;
    }
    heap->items[child] = moment;
    return 0;
}

static void pop_moment(struct moments *heap)
{
    struct moment last = heap->items[--heap->count];
    size_t parent = 0, count = heap->count;
    for (;;) {
        size_t first = HEAP_ARITY * parent + 1, child = first;
        if (first >= count)
            break;
        for (size_t other = first + 1; other < first + HEAP_ARITY && other < count; other++)
            if (heap->items[other].at < heap->items[child].at)
                child = other;
        if (heap->items[child].at >= last.at)
            break;
        heap->items[parent] = heap->items[child];
        parent = child;
    }
    if (count > 0)
        heap->items[parent] = last;
}

static long head_op(const struct run_state *state, size_t stream)
{
    size_t position = state->head[stream];
    return position < state->replay->stream_first[stream + 1] ? (long)state->replay->stream_ops[position]
                                                              : -1;
}

enum { GATE_STALE = 0, GATE_AT = 1, GATE_BLOCKED = 2, GATE_DONE = 3 };

static void watch(struct run_state *state, size_t s);

/* Op i's ready time is known: a moment when i is its stream's head (a later head's is pushed when
 * it becomes the head), and its gate, unknown until now, is computed again. */
static void note_ready(struct run_state *state, size_t i)
{
    size_t s = state->replay->ops[i].stream_index;
    if (state->ready[i] == INT64_MAX || head_op(state, s) != (long)i)
        return;
    state->out_of_memory |= push_moment(&state->moments, (struct moment){state->ready[i], i, 0, 1}) != 0;
    if (state->gate_kind[s] == GATE_AT && state->gate[s] == INT64_MAX)
        watch(state, s);
}

static int64_t tail_begin(const struct run_state *state, size_t i)
{
    const struct replay_op *op = &state->replay->ops[i];
    int64_t wave = op->waves > 1 ? state->duration[i] / op->waves : state->duration[i];
    return state->end[i] - wave / 2;
}

/* What the running ops hold at `now`: measured once per pass over the stream heads, so that a
 * candidate's check costs no walk over the running ops (a device of 16 busy streams asked it for
 * every head at every event). */
struct occupancy {
    double used;      /* SM share held: a tail's share once the op is in its last half-wave */
    int all_in_tail;  /* every running kernel with an SM share is in its tail */
    unsigned copying; /* bit per category: a copy of this direction is running */
};

/* Adds a running op to the occupancy at `now`. */
static void occupy(const struct running_op *running, int64_t now, struct occupancy *occupancy)
{
    if (running->category >= 0 && running->category < ANALYSIS_CATEGORY_COUNT)
        occupancy->copying |= 1u << running->category;
    if (running->sm_share <= 0)
        return;
    int in_tail = now >= running->tail_ns;
    occupancy->used += in_tail ? running->tail_share : running->sm_share;
    occupancy->all_in_tail &= in_tail;
}

static void measure_occupancy(const struct run_state *state, int64_t now, struct occupancy *occupancy)
{
    *occupancy = (struct occupancy){.all_in_tail = 1};
    for (size_t r = 0; r < state->running_count; r++)
        occupy(&state->running[r], now, occupancy);
}

static int is_copy(enum analysis_category category)
{
    return category >= ANALYSIS_COPY_HTOD && category <= ANALYSIS_COPY_OTHER;
}

static inline int resources_free(const struct run_state *state, const struct head *op,
                                 const struct occupancy *occupancy)
{
    if (op->category == ANALYSIS_COMMUNICATION && (state->fixes & FIX_BIT(ANALYSIS_FIX_PRIORITY)))
        return 1; /* the highest priority takes the SMs as blocks retire */
    if (is_copy(op->category) && (occupancy->copying & (1u << op->category)))
        return 0; /* one copy engine per direction */
    return op->sm_share <= 0 || occupancy->used + op->sm_share <= 1.0 + 1e-9 || occupancy->all_in_tail;
}

static int ended_by(const struct run_state *state, long op, int64_t now)
{
    return op < 0 || (state->end[op] != UNSET && state->end[op] <= now);
}

/* Whether the fixes keep the dependency: the event waits, a communicator's order and the legacy
 * default stream's synchronization each have a fix that drops them. */
static int edge_kept(const struct run_state *state, const struct edge *edge)
{
    return !((edge->kind == EDGE_EVENT && (state->fixes & FIX_BIT(ANALYSIS_FIX_REMOVE_DEPENDENCY))) ||
             (edge->kind == EDGE_COMMUNICATOR && (state->fixes & FIX_BIT(ANALYSIS_FIX_OWN_COMMUNICATOR))) ||
             (edge->kind == EDGE_LEGACY && (state->fixes & FIX_BIT(ANALYSIS_FIX_NON_BLOCKING_STREAMS))));
}

/* Whether the queue keeps an op behind its channel's previous one (every stream its own queue:
 * none). */
static int channel_kept(const struct run_state *state)
{
    return !(state->fixes & FIX_BIT(ANALYSIS_FIX_MORE_CONNECTIONS));
}

/* Op i's gate: GATE_AT with *at when its ready time, its stream predecessor's end and the ends of
 * the events it waits for are all known (it may start at any time >= *at that the resources
 * allow), GATE_BLOCKED while one of them, or its hardware queue's predecessor, has not started. */
static inline int head_gate(const struct run_state *state, size_t i, int64_t *at, size_t *blocker)
{
    const struct replay_op *op = &state->replay->ops[i];
    int64_t gate = state->ready[i];
    if (op->stream_previous >= 0) {
        if (state->end[op->stream_previous] == UNSET)
            return *blocker = (size_t)op->stream_previous, GATE_BLOCKED;
        if (state->end[op->stream_previous] > gate)
            gate = state->end[op->stream_previous];
    }
    if (channel_kept(state) && op->channel_previous >= 0 && state->start[op->channel_previous] == UNSET)
        return *blocker = (size_t)op->channel_previous, GATE_BLOCKED;
    for (size_t e = op->edge_first; e < op->edge_first + op->edge_count; e++) {
        const struct edge *edge = &state->replay->edges[e];
        if (!edge_kept(state, edge))
            continue;
        if (state->end[edge->from] == UNSET)
            return *blocker = edge->from, GATE_BLOCKED;
        if (state->end[edge->from] > gate)
            gate = state->end[edge->from];
    }
    *at = gate;
    return GATE_AT;
}

static void unhold(struct run_state *state, size_t s)
{
    if (!state->held_flag[s])
        return;
    state->held_flag[s] = 0;
    struct head moved = state->held[--state->held_count];
    state->held[state->held_place[s]] = moved;
    state->held_place[moved.stream] = state->held_place[s];
}

static inline void note_held(struct run_state *state, const struct head *head)
{
    if (is_copy(head->category))
        state->held_copies |= 1u << head->category;
    if (head->sm_share > 0 && head->sm_share < state->held_smallest_share)
        state->held_smallest_share = head->sm_share;
}

static void hold(struct run_state *state, size_t s)
{
    state->held_flag[s] = 1;
    state->held_place[s] = state->held_count;
    state->held[state->held_count++] = state->heads[s];
    note_held(state, &state->heads[s]);
}

/* Marks stream s's gate to be computed again at the next refresh_gates. */
static void watch(struct run_state *state, size_t s)
{
    state->gates_stale = 1;
    if (!state->in_watch[s]) {
        state->in_watch[s] = 1;
        state->watch[state->watch_count++] = s;
    }
}

static void wait_for(struct run_state *state, size_t s, size_t blocker)
{
    long first = state->waiters[blocker];
    state->wait_previous[s] = -1;
    state->wait_next[s] = first;
    if (first >= 0)
        state->wait_previous[first] = (long)s;
    state->waiters[blocker] = (long)s;
    state->waiting[s] = 1;
}

static void stop_waiting(struct run_state *state, size_t s)
{
    if (!state->waiting[s])
        return;
    state->waiting[s] = 0;
    long previous = state->wait_previous[s], next = state->wait_next[s];
    if (previous >= 0)
        state->wait_next[previous] = next;
    else
        state->waiters[state->blocker[s]] = next;
    if (next >= 0)
        state->wait_previous[next] = previous;
}

/* Op i started: the streams it blocked get their gates computed again. */
static void wake_waiters(struct run_state *state, size_t i)
{
    for (long s = state->waiters[i]; s >= 0; s = state->wait_next[s]) {
        state->waiting[s] = 0;
        watch(state, (size_t)s);
    }
    state->waiters[i] = -1;
}

/* After a start: the started stream's new head, the blocked heads whose blocker started, and the
 * heads whose ready time was unknown (a sync the start resolved) get their gates again. */
static void refresh_gates(struct run_state *state, int64_t now)
{
    state->refreshed_count = 0;
    if (!state->gates_stale)
        return;
    state->gates_stale = 0;
    for (size_t w = 0; w < state->watch_count; w++) {
        size_t s = state->watch[w];
        size_t *blocker = &state->blocker[s];
        state->in_watch[s] = 0;
        if (state->gate_kind[s] == GATE_BLOCKED && state->start[*blocker] == UNSET)
            continue; /* blocked still (the forced start's stream): head_gate would stop there */
        stop_waiting(state, s);
        unhold(state, s); /* a new head, or a gate that changed */
        long i = head_op(state, s);
        state->gate_kind[s] =
            i < 0 ? GATE_DONE : (unsigned char)head_gate(state, (size_t)i, &state->gate[s], blocker);
        if (i >= 0)
            state->heads[s] =
                (struct head){(size_t)i, s, state->replay->ops[i].category, state->replay->ops[i].sm_share};
        int unknown = state->gate_kind[s] == GATE_BLOCKED ||
                      (state->gate_kind[s] == GATE_AT && state->gate[s] == INT64_MAX);
        if (state->gate_kind[s] == GATE_AT && !unknown && state->gate[s] > now) /* else looked at now */
            state->out_of_memory |=
                push_moment(&state->gates, (struct moment){state->gate[s], (size_t)i, s, 0}) != 0;
        state->refreshed[state->refreshed_count++] = s;
        if (state->gate_kind[s] == GATE_BLOCKED)
            wait_for(state, s, *blocker);
        /* an unknown ready time: note_ready watches the stream when the sync that holds it resolves */
    }
    state->watch_count = 0;
}

static int64_t removed_call_ns(const struct replay *replay, const struct host_call *call, unsigned fixes,
                               const int *pageable_call)
{
    int64_t duration = call->end_ns - call->start_ns;
    if (call->end_ns <= replay->first_launch_ns)
        return 0;
    int graph = (fixes & FIX_BIT(ANALYSIS_FIX_CUDA_GRAPH)) != 0;
    /* the host's time after a captured call, the call's own time by what each fix removes */
    int64_t removed = graph && replay->graph_gap_ns ? replay->graph_gap_ns[call - replay->calls] : 0;
    if (removed > 0 && (fixes & FIX_BIT(ANALYSIS_FIX_HOST_WORK)) && replay->graph_gap_work_ns)
        removed -= replay->graph_gap_work_ns[call - replay->calls];
    if (((fixes & FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC)) && (call->kind & CALL_SYNC)) ||
        (graph && (call->kind & CALL_LAUNCH)))
        return removed + duration;
    if ((fixes & FIX_BIT(ANALYSIS_FIX_PIN_HOST_BUFFER)) && pageable_call[call - replay->calls])
        return removed + (duration > WHATIF_CALL_FLOOR_NS ? duration - WHATIF_CALL_FLOOR_NS : 0);
    return removed;
}

/* The time the shared removals (by time, summed) cut by `at`. */
static int64_t shared_removed_by(const struct shared_removal *removals, size_t count, int64_t at)
{
    size_t low = 0, high = count;
    while (low < high) { /* the last removal by `at` */
        size_t middle = low + (high - low) / 2;
        if (removals[middle].at <= at)
            low = middle + 1;
        else
            high = middle;
    }
    return low > 0 ? removals[low - 1].removed_ns : 0;
}

/* Host time the fixes removed from a thread by `at`: its own calls' up to its place in call_order
 * (the launch's or the call's, host_positions) and everyone's by `at`. */
static int64_t removed_at(const struct run_state *state, size_t place, int64_t at)
{
    return state->removed[place] + shared_removed_by(state->shared, state->shared_count, at);
}

/* When the host made op available: its launch call's return (a call that returned after the op
 * started, a synchronous copy, made it available when it started). */
static int64_t ready_host_ns(const struct replay_op *op)
{
    return op->launch_end_ns < op->start_ns ? op->launch_end_ns : op->start_ns;
}

/* When the host made op available, after a kept sync: as ready_host_ns, but an op the sync left a
 * drained device to (mark_drained_starts) no sooner than its recorded start. */
static int64_t after_sync_ready_ns(const struct replay_op *op)
{
    return op->drained_start ? op->start_ns : ready_host_ns(op);
}

/* Replay time of host time `at` on a thread whose last kept sync before it is `sync` (-1: none,
 * else a sync of the same thread), less `removed`: the host time the fixes removed from the
 * thread's calls that ended by the time the shift is taken at (state->removed at its place). */
static int64_t host_time(const struct run_state *state, long sync, int64_t at, int64_t removed)
{
    if (sync < 0)
        return at - removed;
    const struct sync_point *point = &state->syncs[sync];
    return point->replay_end_ns + (at - point->end_ns) - (removed - point->removed_by_end_ns);
}

static int by_sync_time(const void *a, const void *b)
{
    const struct sync_point *x = a, *y = b;
    if (x->thread_id != y->thread_id)
        return x->thread_id < y->thread_id ? -1 : 1;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* The kept synchronizing calls of the threads that launched this device's work. */
static int collect_syncs(struct run_state *state)
{
    const struct replay *replay = state->replay;
    size_t n = replay->op_count;
    state->syncs =
        scratch_take(state->scratch, SCRATCH_SYNCS, (replay->call_count + 1) * sizeof *state->syncs);
    if (!state->syncs)
        return -1;
    int64_t *recorded_end =
        scratch_take(state->scratch, SCRATCH_RECORDED_END, (n + 1) * sizeof *recorded_end);
    if (!recorded_end)
        return -1;
    for (size_t p = 0; p < n; p++) {
        int64_t end = replay->ops[state->by_correlation[p]].start_ns +
                      replay->ops[state->by_correlation[p]].duration_ns;
        recorded_end[p] = p > 0 && recorded_end[p - 1] > end ? recorded_end[p - 1] : end;
    }
    for (size_t c = 0; c < replay->call_count; c++) {
        const struct host_call *call = &replay->calls[c];
        if (!(call->kind & CALL_SYNC) || (state->fixes & FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC)))
            continue;
        size_t low = launched_before(replay, state->by_correlation, call->correlation_id);
        int64_t waited_until =
            low > 0 && recorded_end[low - 1] > call->start_ns ? recorded_end[low - 1] : call->start_ns;
        int64_t own = call->end_ns - waited_until;
        state->syncs[state->sync_count++] = (struct sync_point){.thread_id = call->thread_id,
                                                                .start_ns = call->start_ns,
                                                                .end_ns = call->end_ns,
                                                                .barrier = low,
                                                                .own_ns = own > 0 ? own : 0,
                                                                .previous = -1,
                                                                .call = c};
    }
    qsort(state->syncs, state->sync_count, sizeof *state->syncs, by_sync_time);
    state->thread_next = scratch_take(state->scratch, SCRATCH_THREAD_NEXT,
                                      (state->sync_count + 1) * sizeof *state->thread_next);
    state->thread_end =
        scratch_take(state->scratch, SCRATCH_THREAD_END, (state->sync_count + 1) * sizeof *state->thread_end);
    if (!state->thread_next || !state->thread_end)
        return -1;
    for (size_t k = 0; k < state->sync_count; k++) {
        if (k > 0 && state->syncs[k].thread_id == state->syncs[k - 1].thread_id) {
            state->syncs[k].previous = (long)k - 1;
            state->thread_end[state->thread_count - 1] = k + 1;
        } else {
            state->thread_next[state->thread_count] = k;
            state->thread_end[state->thread_count++] = k + 1;
        }
    }
    return 0;
}

/* Makes the kept syncs as the replay's start finds them: none resolved, each thread's first next,
 * and the host time the fixes remove by each one's end. */
static void reset_syncs(struct run_state *state)
{
    for (size_t k = 0; k < state->sync_count; k++) {
        struct sync_point *point = &state->syncs[k];
        point->resolved = 0;
        point->replay_end_ns = 0;
        point->removed_by_end_ns =
            removed_at(state, state->replay->call_end_removed_at[point->call], point->end_ns);
    }
    for (size_t t = 0; t < state->thread_count; t++)
        state->thread_next[t] = t > 0 ? state->thread_end[t - 1] : 0; /* a thread's syncs lie together */
}

/* The kept sync of op's thread that ended last by its launch, -1 none. */
static long segment_of(const struct run_state *state, const struct replay_op *op)
{
    long found = -1;
    size_t low = 0, high = state->sync_count;
    struct sync_point key = {.thread_id = op->thread_id, .start_ns = op->launch_ns};
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (by_sync_time(&state->syncs[middle], &key) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    if (low > 0 && state->syncs[low - 1].thread_id == op->thread_id &&
        state->syncs[low - 1].end_ns <= op->launch_ns)
        found = (long)low - 1;
    return found;
}

/* Once the work launched before a kept sync has started (its replayed end is then known), the
 * sync returns, and the launches after it get their times. */
static void resolve_syncs(struct run_state *state)
{
    const struct replay *replay = state->replay;
    while (state->started_prefix < replay->op_count &&
           state->start[state->by_correlation[state->started_prefix]] != UNSET) {
        size_t p = state->started_prefix++;
        int64_t end = state->end[state->by_correlation[p]];
        state->launched_end[p] = p > 0 && state->launched_end[p - 1] > end ? state->launched_end[p - 1] : end;
    }
    if (state->started_prefix < state->next_barrier)
        return; /* no thread's next sync has all its work started */
    state->next_barrier = SIZE_MAX;
    for (size_t t = 0; t < state->thread_count; t++) {
        while (state->thread_next[t] < state->thread_end[t]) {
            size_t k = state->thread_next[t];
            struct sync_point *point = &state->syncs[k];
            if (point->barrier > state->started_prefix)
                break; /* its work has not all started: the thread's later syncs wait too */
            int64_t start =
                host_time(state, point->previous, point->start_ns,
                          removed_at(state, replay->call_start_removed_at[point->call], point->start_ns));
            int64_t done = point->barrier > 0 ? state->launched_end[point->barrier - 1] : start;
            point->replay_end_ns = (done > start ? done : start) + point->own_ns;
            point->resolved = 1;
            state->thread_next[t]++;
            for (size_t o = state->segment_first[k]; o < state->segment_first[k + 1]; o++) {
                size_t i = state->segment_ops[o];
                if (state->ready[i] == INT64_MAX) {
                    state->ready[i] =
                        host_time(state, (long)k, after_sync_ready_ns(&replay->ops[i]),
                                  removed_at(state, replay->op_removed_at[i], replay->ops[i].launch_ns));
                    note_ready(state, i);
                }
            }
        }
        if (state->thread_next[t] < state->thread_end[t] &&
            state->syncs[state->thread_next[t]].barrier < state->next_barrier)
            state->next_barrier = state->syncs[state->thread_next[t]].barrier;
    }
}

/* Finds the kept sync each op's launch came after (segment), and groups the ops by it
 * (segment_ops, segment_first). Returns 0 or -1 when out of memory. */
static int find_segments(struct run_state *state)
{
    size_t n = state->replay->op_count, syncs = state->sync_count;
    state->segment = scratch_take(state->scratch, SCRATCH_SEGMENT, n * sizeof *state->segment);
    if (!state->segment)
        return -1;
    for (size_t i = 0; i < n; i++)
        state->segment[i] =
            state->replay->ops[i].launch_ns == STORE_NULL ? -1 : segment_of(state, &state->replay->ops[i]);
    state->segment_first =
        scratch_zeroed(state->scratch, SCRATCH_SEGMENT_FIRST, (syncs + 2) * sizeof *state->segment_first);
    state->segment_ops = scratch_take(state->scratch, SCRATCH_SEGMENT_OPS, n * sizeof *state->segment_ops);
    if (!state->segment_first || !state->segment_ops)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (state->segment[i] >= 0)
            state->segment_first[state->segment[i] + 2]++;
    for (size_t k = 2; k < syncs + 2; k++)
        state->segment_first[k] += state->segment_first[k - 1];
    for (size_t i = 0; i < n; i++) /* segment_first[k + 1] is the fill cursor of segment k */
        if (state->segment[i] >= 0)
            state->segment_ops[state->segment_first[state->segment[i] + 1]++] = i;
    return 0;
}

/* Fills ready and duration for the fixes. Returns 0 or -1 when out of memory. */
static int prepare_inputs(struct run_state *state)
{
    const struct replay *replay = state->replay;
    size_t n = replay->op_count;
    int *pageable_call = scratch_zeroed(state->scratch, SCRATCH_PAGEABLE_CALL,
                                        (replay->call_count + 1) * sizeof *pageable_call);
    int64_t *removed =
        scratch_take(state->scratch, SCRATCH_REMOVALS, (replay->call_count + 1) * sizeof *removed);
    state->removed = removed;
    state->by_correlation = replay->launch_order;
    state->launched_end = scratch_take(state->scratch, SCRATCH_LAUNCHED_END, n * sizeof *state->launched_end);
    if (!pageable_call || !removed || !state->launched_end)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct replay_op *op = &replay->ops[i];
        const struct host_call *call = op->pageable ? call_of(replay, op->correlation_id) : NULL;
        if (call)
            pageable_call[call - replay->calls] = 1;
    }
    removed[0] = 0;
    for (size_t k = 0; k < replay->call_count; k++) { /* prefix sums per thread, in call_order */
        size_t c = replay->call_order[k];
        int same = k > 0 && replay->calls[replay->call_order[k - 1]].thread_id == replay->calls[c].thread_id;
        removed[k + 1] =
            (same ? removed[k] : 0) + removed_call_ns(replay, &replay->calls[c], state->fixes, pageable_call);
    }
    if (state->fixes & FIX_BIT(ANALYSIS_FIX_HOST_WORK)) {
        state->shared = replay->host_removed;
        state->shared_count = replay->host_removed_count;
    }
    int keep_syncs = !(state->fixes & FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC));
    struct replay_scratch *scratch = state->scratch;
    if (keep_syncs && scratch->syncs_of != replay) {
        scratch->syncs_of = NULL;
        if (collect_syncs(state) != 0 || find_segments(state) != 0)
            return -1;
        scratch->syncs_of = replay;
        scratch->sync_count = state->sync_count;
        scratch->thread_count = state->thread_count;
    } else if (keep_syncs) { /* the slots as the last replay of the same ops left them */
        state->syncs = scratch->slots[SCRATCH_SYNCS];
        state->sync_count = scratch->sync_count;
        state->thread_count = scratch->thread_count;
        state->thread_next = scratch->slots[SCRATCH_THREAD_NEXT];
        state->thread_end = scratch->slots[SCRATCH_THREAD_END];
        state->segment = scratch->slots[SCRATCH_SEGMENT];
        state->segment_ops = scratch->slots[SCRATCH_SEGMENT_OPS];
        state->segment_first = scratch->slots[SCRATCH_SEGMENT_FIRST];
    }
    if (keep_syncs)
        reset_syncs(state);
    for (size_t i = 0; i < n; i++) {
        const struct replay_op *op = &replay->ops[i];
        state->duration[i] = op->duration_ns;
        int64_t speed = replay->pinned_bytes_per_s[op->category];
        if ((state->fixes & FIX_BIT(ANALYSIS_FIX_PIN_HOST_BUFFER)) && op->pageable && speed > 0 &&
            op->bytes > 0) {
            int64_t pinned = (int64_t)((double)op->bytes * 1e9 / (double)speed);
            if (pinned < state->duration[i])
                state->duration[i] = pinned;
        }
        if (op->launch_ns == STORE_NULL) {
            state->ready[i] = op->start_ns; /* no launch known: not earlier than recorded */
            continue;
        }
        long segment = keep_syncs ? state->segment[i] : -1;
        state->ready[i] = segment < 0 ? host_time(state, -1, ready_host_ns(op),
                                                  removed_at(state, replay->op_removed_at[i], op->launch_ns))
                                      : INT64_MAX;
    }
    return 0;
}

/* Asks the memory for what the op after a stream's new head will need when it becomes the head: a
 * stream's ops lie apart among the device's (in start order), so each new head's data would
 * otherwise miss the cache in every array the replay keeps. */
static void prefetch_head_after(const struct run_state *state, size_t stream)
{
    size_t position = state->head[stream] + 1;
    if (position >= state->replay->stream_first[stream + 1])
        return;
    size_t i = state->replay->stream_ops[position];
    const char *op = (const char *)&state->replay->ops[i];
    __builtin_prefetch(op);
    __builtin_prefetch(op + sizeof state->replay->ops[i] - 1);
    __builtin_prefetch(&state->ready[i]);
    __builtin_prefetch(&state->duration[i]);
    __builtin_prefetch(&state->start[i], 1);
    __builtin_prefetch(&state->end[i], 1);
    __builtin_prefetch(&state->tail[i], 1);
}

/* A kernel, not a copy or a memset: what runs side by side with another at its alone speed. */
static int is_kernel(enum analysis_category category)
{
    return category == ANALYSIS_COMPUTE || category == ANALYSIS_COMMUNICATION;
}

static void start_op(struct run_state *state, size_t i, int64_t now)
{
    size_t stream = state->replay->ops[i].stream_index;
    state->start[i] = now;
    state->end[i] = now + state->duration[i];
    state->tail[i] = tail_begin(state, i);
    const struct replay_op *op = &state->replay->ops[i];
    state->running[state->running_count++] =
        (struct running_op){i, op->category, op->sm_share, op->tail_share, state->end[i], state->tail[i]};
    state->running_kernels += is_kernel(op->category);
    state->head[stream]++;
    prefetch_head_after(state, stream);
    state->out_of_memory |= push_moment(&state->moments, (struct moment){state->end[i], i, 0, 0}) != 0;
    /* The tail changes the occupancy of a kernel with an SM share only; the time of another's (a
     * copy's), with the end still to come at or after it, would be an event where nothing can
     * start that did not start before it. */
    if (op->sm_share > 0 && state->tail[i] != state->end[i])
        state->out_of_memory |= push_moment(&state->moments, (struct moment){state->tail[i], i, 0, 0}) != 0;
    long next = head_op(state, stream);
    state->streams_left -= next < 0;
    if (next >= 0 && state->ready[next] > now && state->ready[next] != INT64_MAX) /* its launch to come */
        state->out_of_memory |=
            push_moment(&state->moments, (struct moment){state->ready[next], (size_t)next, 0, 1}) != 0;
    state->gate_kind[stream] = GATE_STALE;
    watch(state, stream);
    wake_waiters(state, i);
}

/* The next time something can change: an end or a tail of a running op, a head's launch (a head
 * that started since its moment was pushed has none). INT64_MAX when none. */
static int64_t next_event(struct run_state *state, int64_t now)
{
    while (state->moments.count > 0) {
        const struct moment *top = &state->moments.items[0];
        if (top->at > now && !(top->is_ready && state->start[top->op] != UNSET))
            return top->at;
        pop_moment(&state->moments);
    }
    return INT64_MAX;
}

static void drop_finished(struct run_state *state, int64_t now)
{
    size_t kept = 0;
    for (size_t r = 0; r < state->running_count; r++) {
        if (state->running[r].end_ns > now)
            state->running[kept++] = state->running[r];
        else
            state->running_kernels -= is_kernel(state->running[r].category);
    }
    state->running_count = kept;
}

/* What one pass found: the startable head to start first, under the occupancy at its time. */
struct pass {
    long best;
    const struct head *best_head;
    struct occupancy occupancy;
};

/* Makes head the pass's best when it goes first: an NCCL kernel under the priority fix, then the
 * op recorded first. */
static void prefer(const struct run_state *state, const struct head *head, struct pass *pass)
{
    long i = (long)head->op;
    int prefer_communication = (state->fixes & FIX_BIT(ANALYSIS_FIX_PRIORITY)) != 0;
    int urgent = prefer_communication && head->category == ANALYSIS_COMMUNICATION;
    int best_urgent =
        pass->best >= 0 && prefer_communication && pass->best_head->category == ANALYSIS_COMMUNICATION;
    if (pass->best < 0 || urgent > best_urgent || (urgent == best_urgent && i < pass->best)) {
        pass->best = i;
        pass->best_head = head;
    }
}

/* Looks at stream s's head at `now` once per pass: a head the resources hold back is held (the
 * held ones are checked apart), a startable one is a candidate and maybe the best. */
static void consider(struct run_state *state, size_t s, int64_t now, struct pass *pass)
{
    if (state->seen[s] == state->pass)
        return;
    state->seen[s] = state->pass;
    if (state->gate_kind[s] != GATE_AT || state->gate[s] > now || state->held_flag[s])
        return;
    const struct head *head = &state->heads[s];
    if (!resources_free(state, head, &pass->occupancy)) {
        hold(state, s);
        return;
    }
    state->next_candidates[state->candidate_count++] = s;
    prefer(state, head, pass);
}

/* Lists stream s among the heads to look at (once per call of heads_to_look_at). */
static void list_head(struct run_state *state, size_t s, size_t *count)
{
    if (state->listed[s] != state->listing) {
        state->listed[s] = state->listing;
        state->candidates[(*count)++] = s;
    }
}

/* The heads to look at one by one at `now` (state->candidates): the gates computed since the last
 * pass (refreshed) and the gates that opened by `now`. Every other open head was held or started
 * at the last pass. Returns how many. */
static size_t heads_to_look_at(struct run_state *state, int64_t now)
{
    size_t count = 0;
    state->listing++;
    for (size_t r = 0; r < state->refreshed_count; r++)
        list_head(state, state->refreshed[r], &count);
    while (state->gates.count > 0 && state->gates.items[0].at <= now) {
        struct moment gate = state->gates.items[0];
        pop_moment(&state->gates);
        if (state->gate_kind[gate.stream] == GATE_AT && state->heads[gate.stream].op == gate.op)
            list_head(state, gate.stream, &count);
    }
    for (size_t s = 0; now == INT64_MAX && s < state->replay->stream_count; s++)
        list_head(state, s, &count); /* gates of unknown ready times open only then */
    return count;
}

/* Whether one of the held heads may start under occupancy: a copy direction one waits for is
 * free, or the SMs have room for the smallest share held (resources_free of each says more). */
static int held_may_start(const struct run_state *state, const struct occupancy *occupancy)
{
    if (state->held_copies & ~occupancy->copying)
        return 1;
    return state->held_smallest_share <= 1.0 &&
           (occupancy->all_in_tail || occupancy->used + state->held_smallest_share <= 1.0 + 1e-9);
}

/* Starts, at `now`, the eligible stream heads in recorded start order. Returns how many started. */
static size_t start_eligible(struct run_state *state, int64_t now)
{
    size_t started = 0;
    refresh_gates(state, now);
    size_t previous = heads_to_look_at(state, now);
    if (previous == 0 && state->held_count == 0)
        return 0; /* nothing to start: an end or a tail that no head waited for */
    /* The running ops only grow at `now` (a start appends one): the occupancy of the next pass is
     * this one's plus the op started, summed in the same order as measure_occupancy would. */
    struct occupancy occupancy;
    measure_occupancy(state, now, &occupancy);
    while (previous > 0 || state->held_count > 0 || (started > 0 && state->refreshed_count > 0)) {
        struct pass pass = {.best = -1, .occupancy = occupancy};
        size_t held_before = state->held_count; /* those held by this pass need no second look */
        state->pass++;
        state->candidate_count = 0;
        for (size_t c = 0; c < previous; c++)
            consider(state, state->candidates[c], now, &pass);
        for (size_t r = 0; started > 0 && r < state->refreshed_count; r++)
            consider(state, state->refreshed[r], now, &pass);
        if (held_before > 0 && held_may_start(state, &pass.occupancy)) {
            /* prefer's choice among the held: a held head is never urgent (the priority fix holds
             * no NCCL kernel back), so only one recorded before the best so far can win, and only
             * its resources need a look. The heads this pass held fail again under the same
             * occupancy. What the held ask for (note_held) is measured again only when none may
             * start, where a tighter bound spares the next looks: until then the old one, taken
             * over more heads, still bounds it. */
            int best_urgent = pass.best >= 0 && (state->fixes & FIX_BIT(ANALYSIS_FIX_PRIORITY)) &&
                              pass.best_head->category == ANALYSIS_COMMUNICATION;
            size_t best = pass.best >= 0 ? (size_t)pass.best : SIZE_MAX;
            const struct head *best_held = NULL;
            for (size_t h = 0; h < state->held_count; h++) {
                const struct head *held = &state->held[h];
                if (!best_urgent && held->op < best && resources_free(state, held, &pass.occupancy)) {
                    best = held->op;
                    best_held = held;
                }
            }
            if (best_held) {
                prefer(state, best_held, &pass);
            } else {
                state->held_smallest_share = 2.0;
                state->held_copies = 0;
                for (size_t h = 0; h < state->held_count; h++)
                    note_held(state, &state->held[h]);
            }
        }
        if (pass.best < 0)
            break;
        size_t stream = pass.best_head->stream;
        unhold(state, stream);
        start_op(state, (size_t)pass.best, now);
        occupy(&state->running[state->running_count - 1], now, &occupancy);
        resolve_syncs(state);
        started++;
        /* The next pass: the rest of this one's candidates, the gates the start refreshed, and
         * the held heads. */
        size_t *swap = state->candidates;
        state->candidates = state->next_candidates;
        state->next_candidates = swap;
        previous = state->candidate_count;
        refresh_gates(state, now);
    }
    return started;
}

/* Whether op i, on stream s, may wait for an op of s not started before it (the recorded order
 * no replay satisfies: a queue's or an event's op that ran after it on its stream). Every other
 * stream's op has started when s alone has ops left. Within a stream the ops lie in index order
 * (link_by). */
static int waits_on_later(const struct run_state *state, size_t i, size_t s)
{
    const struct replay *replay = state->replay;
    const struct replay_op *op = &replay->ops[i];
    long queue = channel_kept(state) ? op->channel_previous : -1;
    if (queue >= (long)i && replay->ops[queue].stream_index == s)
        return 1;
    for (size_t e = op->edge_first; e < op->edge_first + op->edge_count; e++) {
        const struct edge *edge = &replay->edges[e];
        if (edge_kept(state, edge) && edge->from >= i && replay->ops[edge->from].stream_index == s)
            return 1;
    }
    return 0;
}

/* The replay's rest, at the event loop's `now`, when one stream alone has ops left to start and
 * the only ops still running are its own: each op then starts alone on the device (its stream's
 * previous one has ended and no other is running: the SMs and copy engines are free, no two
 * kernels run side by side) at its gate (head_gate), the moment the event loop would reach it.
 * A gate left unknown (a launch after a sync whose work has not all started, which nothing left
 * can start) is where the event loop forces the head: at the last moment left, its predecessor's
 * end. One computation per op instead of the loop's events, passes and heaps: a real trace's
 * device runs almost all of its work on one stream (ResNet-50: all but 12 of 210,106 ops, the
 * others done in its first tenth). Not taken (the loop goes on) where the ops left are not all
 * alike: one that takes no time ends at its start, where the loop may count it as running beside
 * the next; one that waits for a later op of its stream is forced by the loop at moments this
 * does not follow. Returns 1 when it replayed the rest. */
static int run_alone(struct run_state *state, int64_t now)
{
    const struct replay *replay = state->replay;
    if (state->streams_left != 1 || state->alone_ok == 0)
        return 0;
    size_t s = 0;
    while (head_op(state, s) < 0)
        s++;
    int64_t at = now; /* the last moment before the stream's next start */
    for (size_t r = 0; r < state->running_count; r++) {
        if (replay->ops[state->running[r].op].stream_index != s)
            return 0;
        if (state->running[r].end_ns > at)
            at = state->running[r].end_ns;
    }
    size_t end = replay->stream_first[s + 1];
    if (state->alone_ok < 0) { /* the ops left stay the same until the loop hands over */
        state->alone_ok = 1;
        for (size_t p = state->head[s]; p < end && state->alone_ok; p++) {
            size_t i = replay->stream_ops[p];
            state->alone_ok = state->duration[i] > 0 && !waits_on_later(state, i, s);
        }
        if (!state->alone_ok)
            return 0;
    }
    while (state->head[s] < end) {
        size_t i = replay->stream_ops[state->head[s]], blocker;
        int64_t gate;
        if (head_gate(state, i, &gate, &blocker) == GATE_AT && gate != INT64_MAX && gate > at)
            at = gate; /* else at its predecessor's end: a gate at or before it, or forced */
        state->start[i] = at;
        state->end[i] = at + state->duration[i];
        state->head[s]++;
        resolve_syncs(state);
        at = state->end[i];
    }
    state->streams_left = 0;
    return 1;
}

/* Replays with the fixes; returns the span (first start to last end), or -1 when out of memory;
 * *together gets the time two or more kernels ran at once in it (each at its
 * alone speed: what a fix that puts kernels side by side may overstate). */
static int64_t replay_span(const struct replay *replay, unsigned fixes, struct replay_scratch *scratch,
                           int64_t *together)
{
    *together = 0;
    size_t n = replay->op_count;
    struct run_state state = {.replay = replay, .scratch = scratch, .fixes = fixes};
    state.moments = (struct moments){.items = scratch->heap_items[0], .capacity = scratch->heap_capacity[0]};
    state.gates = (struct moments){.items = scratch->heap_items[1], .capacity = scratch->heap_capacity[1]};
    state.ready = scratch_take(scratch, SCRATCH_READY, n * sizeof *state.ready);
    state.duration = scratch_take(scratch, SCRATCH_DURATION, n * sizeof *state.duration);
    state.start = scratch_take(scratch, SCRATCH_START, n * sizeof *state.start);
    state.end = scratch_take(scratch, SCRATCH_END, n * sizeof *state.end);
    state.tail = scratch_take(scratch, SCRATCH_TAIL, n * sizeof *state.tail);
    state.running = scratch_take(scratch, SCRATCH_RUNNING, n * sizeof *state.running);
    state.head = scratch_take(scratch, SCRATCH_HEAD, replay->stream_count * sizeof *state.head);
    state.gate = scratch_take(scratch, SCRATCH_GATE, replay->stream_count * sizeof *state.gate);
    state.heads = scratch_take(scratch, SCRATCH_HEADS, replay->stream_count * sizeof *state.heads);
    state.held_flag =
        scratch_zeroed(scratch, SCRATCH_HELD_FLAG, (replay->stream_count + 1) * sizeof *state.held_flag);
    size_t streams = replay->stream_count + 1;
    state.held_smallest_share = 2.0;
    state.held = scratch_take(scratch, SCRATCH_HELD, streams * sizeof *state.held);
    state.held_place = scratch_take(scratch, SCRATCH_HELD_PLACE, streams * sizeof *state.held_place);
    state.listed = scratch_zeroed(scratch, SCRATCH_LISTED, streams * sizeof *state.listed);
    state.watch = scratch_take(scratch, SCRATCH_WATCH, streams * sizeof *state.watch);
    state.refreshed = scratch_take(scratch, SCRATCH_REFRESHED, streams * sizeof *state.refreshed);
    state.candidates = scratch_take(scratch, SCRATCH_CANDIDATES, streams * sizeof *state.candidates);
    state.next_candidates =
        scratch_take(scratch, SCRATCH_NEXT_CANDIDATES, streams * sizeof *state.next_candidates);
    state.in_watch = scratch_zeroed(scratch, SCRATCH_IN_WATCH, streams * sizeof *state.in_watch);
    state.blocker = scratch_take(scratch, SCRATCH_BLOCKER, streams * sizeof *state.blocker);
    state.waiters = scratch_take(scratch, SCRATCH_WAITERS, n * sizeof *state.waiters);
    state.wait_next = scratch_take(scratch, SCRATCH_WAIT_NEXT, streams * sizeof *state.wait_next);
    state.wait_previous = scratch_take(scratch, SCRATCH_WAIT_PREVIOUS, streams * sizeof *state.wait_previous);
    state.waiting = scratch_zeroed(scratch, SCRATCH_WAITING, streams * sizeof *state.waiting);
    state.seen = scratch_zeroed(scratch, SCRATCH_SEEN, streams * sizeof *state.seen);
    state.gate_kind = scratch_zeroed(scratch, SCRATCH_GATE_KIND,
                                     (replay->stream_count + 1) * sizeof *state.gate_kind); /* GATE_STALE */
    state.gates_stale = 1;
    for (size_t s = 0; s < replay->stream_count; s++)
        state.streams_left += replay->stream_first[s + 1] > replay->stream_first[s];
    state.alone_ok = -1;
    int64_t span = -1;
    if (!state.ready || !state.duration || !state.start || !state.end || !state.tail || !state.running ||
        !state.head || !state.gate || !state.gate_kind || !state.heads || !state.held_flag || !state.watch ||
        !state.refreshed || !state.candidates || !state.next_candidates || !state.in_watch || !state.seen ||
        !state.blocker || !state.held || !state.held_place || !state.listed || !state.waiters ||
        !state.wait_next || !state.wait_previous || !state.waiting || prepare_inputs(&state) != 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        state.start[i] = state.end[i] = UNSET;
        state.waiters[i] = -1;
    }
    for (size_t s = 0; s < replay->stream_count; s++) {
        state.head[s] = replay->stream_first[s];
        state.watch[state.watch_count++] = s; /* every gate is still to compute */
        state.in_watch[s] = 1;
    }
    resolve_syncs(&state); /* syncs before any launch */
    for (size_t s = 0; s < replay->stream_count; s++)
        if (head_op(&state, s) >= 0)
            note_ready(&state, (size_t)head_op(&state, s));
    int64_t now = INT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (state.ready[i] < now)
            now = state.ready[i];
    size_t remaining = n;
    while (remaining > 0) {
        drop_finished(&state, now);
        if (run_alone(&state, now))
            break;
        remaining -= start_eligible(&state, now);
        if (remaining == 0)
            break;
        int64_t next = next_event(&state, now);
        if (next == INT64_MAX) {
            /* Nothing will free the heads (a recorded order no replay satisfies): start the
             * earliest head whose stream is done, so the replay always ends. */
            long forced = -1;
            for (size_t s = 0; s < replay->stream_count; s++) {
                long i = head_op(&state, s);
                if (i >= 0 && ended_by(&state, replay->ops[i].stream_previous, now) &&
                    (forced < 0 || i < forced))
                    forced = i;
            }
            if (forced < 0)
                break;
            start_op(&state, (size_t)forced, now);
            resolve_syncs(&state);
            remaining--;
            continue;
        }
        if (state.running_kernels >= 2)
            *together += next - now;
        now = next;
    }
    if (state.out_of_memory)
        goto done;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (state.start[i] == UNSET)
            continue;
        if (state.start[i] < first)
            first = state.start[i];
        if (state.end[i] > last)
            last = state.end[i];
    }
    span = last > first ? last - first : 0;
done:
    scratch->heap_items[0] = state.moments.items; /* grown by the replay, kept for the next */
    scratch->heap_capacity[0] = state.moments.capacity;
    scratch->heap_items[1] = state.gates.items;
    scratch->heap_capacity[1] = state.gates.capacity;
    return span;
}

/* Frees what a replay of ops owns; its host side (calls and where the fixes remove their time) is
 * replay_free's, shared by the split replay (split_streams). */
static void free_ops_side(struct replay *replay)
{
    free(replay->ops);
    free(replay->edges);
    free(replay->stream_ops);
    free(replay->stream_first);
    free(replay->stream_legacy);
    free(replay->launch_order);
}

static void replay_free(struct replay *replay)
{
    free_ops_side(replay);
    free(replay->calls);
    free(replay->call_order);
    free(replay->graph_gap_ns);
    free(replay->graph_gap_work_ns);
    free(replay->op_removed_at);
    free(replay->call_start_removed_at);
    free(replay->call_end_removed_at);
    free(replay->host_removed);
}

/* --- the pipelined fix: one stream's event-ordered work on two streams ---
 *
 * A program that records an event on a stream and waits for it on the same stream has declared a
 * dependency its stream order already enforces: the work it brackets was written for two streams
 * (seed 003's serial pipeline: the decoder waits for "features ready", the encoder for "features
 * free", both on one stream). A stream's segments begin at its cudaStreamWaitEvent calls; the
 * segment that recorded an event and the segment that waited for it belong on different streams,
 * so the segments are two-coloured (a union-find with parity) and the second colour's work moves to
 * a stream and hardware queue of its own, keeping the recorded event edges and each colour's
 * order. A stream whose waits cannot be two-coloured keeps its order. */

/* The op's segment: the last wait of its stream launched before it, wait_count + its stream's index
 * when none was. */
static size_t segment_of_op(const struct stream_wait *waits, size_t wait_count, const struct replay_op *op)
{
    const struct stream_wait *wait = wait_before(waits, wait_count, op->stream_id, op->correlation_id);
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
    sqlite3_stmt *record = NULL;
    int pairs = 0;
    if (!parent || !parity || !broken) {
        pairs = WHATIF_OUT_OF_MEMORY;
        goto done;
    }
    for (size_t k = 0; k < nodes; k++)
        parent[k] = k;
    if (prepare_record(db, &record, err) != 0) {
        pairs = -1;
        goto done;
    }
    for (size_t w = 0; w < wait_count; w++) {
        long stream = stream_of(replay, waits[w].stream_id);
        int64_t stream_id, recorded;
        if (stream < 0 ||
            record_before(record, process_id, waits[w].event_id, waits[w].correlation_id, &stream_id,
                          &recorded) != 1 ||
            stream_id != waits[w].stream_id)
            continue;
        long producer = last_before(replay, (size_t)stream, recorded);
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
    sqlite3_finalize(record);
    free(parent);
    free(parity);
    free(broken);
    return pairs;
}

/* Builds *split from replay with the second colour's ops on streams of their own; returns 1 when
 * built, 0 when the device has nothing to split, or a negative status. The split shares replay's
 * host calls (replay owns them). */
static int split_streams(sqlite3 *db, const struct replay *replay, int64_t process_id,
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
                                 .call_start_removed_at = replay->call_start_removed_at,
                                 .call_end_removed_at = replay->call_end_removed_at,
                                 .host_removed = replay->host_removed,
                                 .host_removed_count = replay->host_removed_count,
                                 .first_launch_ns = replay->first_launch_ns,
                                 .graph_gap_ns = replay->graph_gap_ns,
                                 .graph_gap_work_ns = replay->graph_gap_work_ns};
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
            if (link_by(split, 0) != 0 || link_by(split, 1) != 0)
                status = WHATIF_OUT_OF_MEMORY;
        }
    } else if (status > 0) {
        status = 0;
    }
    free(colour);
    return status;
}

static int fix_proved(const struct device_state *device, enum analysis_fix fix)
{
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++)
        if (analysis_cause_fix((enum analysis_cause)cause) == fix && device->cause_count[cause] > 0)
            return 1;
    return 0;
}

/* The fixes the replay changes something for; the "none" fixes only say so. */
static int fix_replayed(enum analysis_fix fix)
{
    return fix != ANALYSIS_FIX_NONE_SATURATED && fix != ANALYSIS_FIX_NONE_COPY_ENGINE &&
           fix != ANALYSIS_FIX_PIPELINE && fix != ANALYSIS_FIX_ALL;
}

/* The fixes that change something in replay: a fix whose inputs the device lacks (no pageable
 * copy, no legacy-stream edge, no NCCL kernel, ...) replays exactly as recorded, so its span is the
 * recorded one and is not replayed again. */
static unsigned fixes_that_apply(const struct replay *replay)
{
    unsigned applies = 0;
    for (size_t i = 0; i < replay->op_count; i++) {
        const struct replay_op *op = &replay->ops[i];
        applies |= (op->pageable ? FIX_BIT(ANALYSIS_FIX_PIN_HOST_BUFFER) : 0) |
                   (op->channel_previous >= 0 ? FIX_BIT(ANALYSIS_FIX_MORE_CONNECTIONS) : 0) |
                   (op->category == ANALYSIS_COMMUNICATION ? FIX_BIT(ANALYSIS_FIX_PRIORITY) : 0);
    }
    for (size_t e = 0; e < replay->edge_count; e++)
        applies |= replay->edges[e].kind == EDGE_EVENT          ? FIX_BIT(ANALYSIS_FIX_REMOVE_DEPENDENCY)
                   : replay->edges[e].kind == EDGE_COMMUNICATOR ? FIX_BIT(ANALYSIS_FIX_OWN_COMMUNICATOR)
                                                                : FIX_BIT(ANALYSIS_FIX_NON_BLOCKING_STREAMS);
    for (size_t c = 0; c < replay->call_count; c++)
        applies |= (replay->calls[c].kind & CALL_SYNC ? FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC) : 0) |
                   (replay->calls[c].kind & CALL_LAUNCH ? FIX_BIT(ANALYSIS_FIX_CUDA_GRAPH) : 0);
    if (replay->host_removed_count > 0)
        applies |= FIX_BIT(ANALYSIS_FIX_HOST_WORK);
    return applies;
}

/* The spans replayed for one device, by replay (the recorded streams or the split ones) and the
 * fixes that apply: fixes that change nothing, and sets of fixes met twice ("all of the above"
 * with the idle fixes that add nothing), cost no second replay. */
struct spans {
    const struct replay *replay, *split; /* split: NULL when the pipelined fix does not apply */
    unsigned replay_applies, split_applies;
    struct replay_scratch *scratch; /* the buffers every replay of the device reuses */
    struct {
        const struct replay *replay;
        unsigned fixes;
        int64_t span, together;
    } known[2 * ANALYSIS_FIX_COUNT];
    size_t known_count;
    int64_t together;          /* of the span span_of gave last */
    int64_t recorded_together; /* of the replay as recorded */
};

/* replay_span of `which` (spans->replay or spans->split) with the fixes. */
static int64_t span_of(struct spans *spans, const struct replay *which, unsigned fixes)
{
    fixes &= which == spans->split ? spans->split_applies : spans->replay_applies;
    for (size_t k = 0; k < spans->known_count; k++)
        if (spans->known[k].replay == which && spans->known[k].fixes == fixes) {
            spans->together = spans->known[k].together;
            return spans->known[k].span;
        }
    int64_t span = replay_span(which, fixes, spans->scratch, &spans->together);
    if (span >= 0 && spans->known_count < sizeof spans->known / sizeof spans->known[0]) {
        spans->known[spans->known_count].replay = which;
        spans->known[spans->known_count].fixes = fixes;
        spans->known[spans->known_count].together = spans->together;
        spans->known[spans->known_count++].span = span;
    }
    return span;
}

/* Replay bound, in ops x streams: a device past it is not replayed (whatif.h). Set when each start
 * scanned every stream head; the replay is event-driven now, but the bound decides which devices
 * get a what-if, so it stays as it was. */
#define WHATIF_MAX_WORK 400000000.0

/* The time kernels run side by side in the replay span_of gave last, beyond the replay as recorded. */
static int64_t newly_together(const struct spans *spans)
{
    return spans->together > spans->recorded_together ? spans->together - spans->recorded_together : 0;
}

/* fixed: the span span_of gave last. */
static int note_saving(struct analysis_device *out, const struct spans *spans, enum analysis_fix fix,
                       int64_t recorded, int64_t fixed)
{
    if (fixed < 0)
        return WHATIF_OUT_OF_MEMORY;
    out->fix_saving_ns[fix] = recorded > fixed ? recorded - fixed : 0;
    out->fix_together_ns[fix] = newly_together(spans);
    out->fixes_modelled |= FIX_BIT(fix);
    return 0;
}

/* The fixes idle time proves (docs/metrics.md, "Idle time"): host-sync gaps ask for the sync
 * removed, launch-bound gaps for a CUDA graph, host-cpu gaps for the host's own work moved off the
 * launching thread. */
static unsigned idle_fixes_proved(const int64_t *idle_ns)
{
    return (idle_ns[ACCOUNTING_IDLE_HOST_SYNC] > 0 ? FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC) : 0) |
           (idle_ns[ACCOUNTING_IDLE_LAUNCH_BOUND] > 0 ? FIX_BIT(ANALYSIS_FIX_CUDA_GRAPH) : 0) |
           (idle_ns[ACCOUNTING_IDLE_HOST_CPU] > 0 ? FIX_BIT(ANALYSIS_FIX_HOST_WORK) : 0);
}

/* split: the replay with the pipelined fix's streams, NULL when it does not apply. idle_proved: the
 * fixes the device's idle time proves (idle_fixes_proved). */
static int predict(const struct replay *replay, const struct replay *split, const struct device_state *device,
                   unsigned idle_proved, struct replay_scratch *scratch, struct analysis_device *out)
{
    struct spans spans = {.replay = replay,
                          .split = split,
                          .scratch = scratch,
                          .replay_applies = fixes_that_apply(replay),
                          .split_applies = split ? fixes_that_apply(split) : 0};
    int64_t recorded = span_of(&spans, replay, 0);
    if (recorded < 0)
        return WHATIF_OUT_OF_MEMORY;
    spans.recorded_together = spans.together;
    out->replay_span_ns = recorded;
    unsigned all = 0, idle = 0;
    int any = split != NULL;
    for (int fix = 0; fix < ANALYSIS_FIX_ALL; fix++) {
        int by_waits = fix_proved(device, (enum analysis_fix)fix);
        if (!by_waits && !(idle_proved & FIX_BIT(fix)))
            continue;
        if (!fix_replayed((enum analysis_fix)fix)) {
            out->fixes_modelled |= FIX_BIT(fix); /* nothing to gain: said with a saving of 0 */
            continue;
        }
        if (note_saving(out, &spans, (enum analysis_fix)fix, recorded,
                        span_of(&spans, replay, FIX_BIT(fix))) != 0)
            return WHATIF_OUT_OF_MEMORY;
        if (!by_waits)
            idle |= FIX_BIT(fix);
        else if (fix != ANALYSIS_FIX_REMOVE_DEPENDENCY) {
            all |= FIX_BIT(fix);
            any = 1;
        }
    }
    if (split && note_saving(out, &spans, ANALYSIS_FIX_PIPELINE, recorded, span_of(&spans, split, 0)) != 0)
        return WHATIF_OUT_OF_MEMORY;
    /* "All of the above" is the better of the waits' fixes together and those with the fixes idle
     * time proves added: a removed sync moves launches a priority then holds back, so the larger
     * set can replay longer. Only proved fixes: with every idle fix, pipeline_serial's "all" removed
     * a host sync nothing proved (its final cudaDeviceSynchronize and copies) and promised 66% of
     * the span. A set that changes nothing in the replay costs no replay (span_of). */
    int64_t together = 0, saving = 0;
    int with_host_work = 0; /* the "all" chosen has the host-work fix in it */
    if (any) {
        if (note_saving(out, &spans, ANALYSIS_FIX_ALL, recorded,
                        span_of(&spans, split ? split : replay, all)) != 0)
            return WHATIF_OUT_OF_MEMORY;
        saving = out->fix_saving_ns[ANALYSIS_FIX_ALL];
        together = out->fix_together_ns[ANALYSIS_FIX_ALL];
    }
    if (idle) {
        int64_t fixed = span_of(&spans, split ? split : replay, all | idle);
        if (fixed < 0)
            return WHATIF_OUT_OF_MEMORY;
        if (!any || recorded - fixed > saving) {
            saving = recorded > fixed ? recorded - fixed : 0;
            together = newly_together(&spans);
            with_host_work = (idle & FIX_BIT(ANALYSIS_FIX_HOST_WORK)) != 0;
        }
        all |= idle;
        out->fixes_modelled |= FIX_BIT(ANALYSIS_FIX_ALL);
    }
    /* The fixes together may replay worse than one of them alone (a priority that puts NCCL first
     * holds back a kernel that needed the whole device): making only that one is also "all of the
     * above" a user can reach. */
    /* A fix that alone gives as much as a set with the host-work fix is "all" without that bound
     * (a CUDA graph of a PyTorch step removes the host's time the host-work fix would too). */
    for (int fix = 0; fix < ANALYSIS_FIX_ALL; fix++)
        if (((all & FIX_BIT(fix)) || (fix == ANALYSIS_FIX_PIPELINE && split)) &&
            (out->fix_saving_ns[fix] > saving || (with_host_work && fix != ANALYSIS_FIX_HOST_WORK &&
                                                  saving > 0 && out->fix_saving_ns[fix] == saving))) {
            saving = out->fix_saving_ns[fix];
            together = out->fix_together_ns[fix];
            with_host_work = fix == ANALYSIS_FIX_HOST_WORK;
        }
    out->all_includes_host_work = with_host_work;
    out->fix_saving_ns[ANALYSIS_FIX_ALL] = saving;
    out->fix_together_ns[ANALYSIS_FIX_ALL] = together;
    out->headroom_ns = saving;
    return 0;
}

/* A pinned copy's speed over the host link when the trace has none to measure: PCIe 5.0 x16 on
 * cc 9.0 (47.5 and 54.7 GB/s measured in tests/data/gpu-h100 and gpu copy_pinned), PCIe 4.0 on cc
 * 8.x, PCIe 3.0 before. */
static int64_t nominal_pinned_bytes_per_s(int64_t compute_capability_major)
{
    return compute_capability_major >= 9   ? 50000000000
           : compute_capability_major >= 8 ? 24000000000
                                           : 12000000000;
}

static void fill_nominal_speeds(struct replay *replay, const struct device_state *device)
{
    for (int c = ANALYSIS_COPY_HTOD; c <= ANALYSIS_COPY_DTOH; c++)
        if (replay->pinned_bytes_per_s[c] == 0)
            replay->pinned_bytes_per_s[c] =
                nominal_pinned_bytes_per_s(device->limits.compute_capability_major);
}

/* Fills call_order: the calls by (thread, end), as by_thread_end orders removals (ties in any
 * order: a removal's prefix sum is read at the last of its ties). A radix sort, end bytes then
 * thread bytes, each pass stable: a comparison sort of a host-bound trace's calls was a tenth of the
 * replay's set-up. Returns 0 or WHATIF_OUT_OF_MEMORY. */
static int order_calls(struct replay *replay)
{
    size_t n = replay->call_count;
    struct radix_key *keys = malloc((n ? n : 1) * sizeof *keys), *spare = malloc((n ? n : 1) * sizeof *spare);
    replay->call_order = malloc((n ? n : 1) * sizeof *replay->call_order);
    if (!keys || !spare || !replay->call_order) {
        free(keys);
        free(spare);
        return WHATIF_OUT_OF_MEMORY;
    }
    for (size_t c = 0; c < n; c++)
        keys[c] =
            (struct radix_key){radix_of(replay->calls[c].thread_id), radix_of(replay->calls[c].end_ns), c};
    const struct radix_key *sorted = radix_sort(keys, spare, n, 16);
    for (size_t c = 0; c < n; c++)
        replay->call_order[c] = sorted[c].index;
    free(keys);
    free(spare);
    return 0;
}

/* 1 + the place in call_order of the last call of thread_id that ended by `at` (call_order's
 * (thread, end) order: ties are read at the last of them), 0 when the thread has none. */
static size_t removed_place(const struct replay *replay, int64_t thread_id, int64_t at)
{
    size_t low = 0, high = replay->call_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        const struct host_call *call = &replay->calls[replay->call_order[middle]];
        if (call->thread_id < thread_id || (call->thread_id == thread_id && call->end_ns <= at))
            low = middle + 1;
        else
            high = middle;
    }
    return low > 0 && replay->calls[replay->call_order[low - 1]].thread_id == thread_id ? low : 0;
}

/* Fills op_removed_at, call_start_removed_at and call_end_removed_at (struct replay). Returns 0 or
 * WHATIF_OUT_OF_MEMORY. */
static int host_positions(struct replay *replay)
{
    size_t n = replay->op_count, calls = replay->call_count;
    replay->op_removed_at = malloc((n ? n : 1) * sizeof *replay->op_removed_at);
    replay->call_start_removed_at = malloc((calls ? calls : 1) * sizeof *replay->call_start_removed_at);
    replay->call_end_removed_at = malloc((calls ? calls : 1) * sizeof *replay->call_end_removed_at);
    if (!replay->op_removed_at || !replay->call_start_removed_at || !replay->call_end_removed_at)
        return WHATIF_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++) {
        const struct replay_op *op = &replay->ops[i];
        replay->op_removed_at[i] =
            op->launch_ns == STORE_NULL ? 0 : removed_place(replay, op->thread_id, op->launch_ns);
    }
    for (size_t c = 0; c < calls; c++) {
        const struct host_call *call = &replay->calls[c];
        int sync = (call->kind & CALL_SYNC) != 0; /* the only calls a replay keeps as syncs */
        replay->call_start_removed_at[c] = sync ? removed_place(replay, call->thread_id, call->start_ns) : 0;
        replay->call_end_removed_at[c] = sync ? removed_place(replay, call->thread_id, call->end_ns) : 0;
    }
    return 0;
}

/* A sync that waited for the device's work leaves it drained: the kernel launched next starts its
 * launch latency after the launch returns (the launch path through the driver, the doorbell and
 * the front end: host_bound sync recordings, the median kernel 1.6 us after its launch on 2x H200,
 * 1.7 on H100, 2.2 on one H200), where with the sync removed the kernel queues behind the one
 * before it and the latency passes while that one runs. The replay starts an op when its launch
 * returns, so as recorded it left that latency out of every sync's cost (0.45 to 0.65 ms of 300
 * syncs) and each remove-host-sync saving short by as much. Marks the ops that pay it: launched
 * by the call right after a synchronizing call of their thread (one the fix removes: it ended after
 * the first launch), that started after their launch returned, on a device idle then (no op that
 * started before them still ran), so their recorded start is the launch path's alone. Only for a
 * device whose replays remove a sync (whatif_device): where every replay keeps the syncs, the
 * latency is in the replay as recorded and the fixed one alike and cancels. Needs call_order and
 * first_launch_ns. Returns 0 or WHATIF_OUT_OF_MEMORY. */
static int mark_drained_starts(struct replay *replay)
{
    size_t *place = malloc((replay->call_count ? replay->call_count : 1) * sizeof *place);
    if (!place)
        return WHATIF_OUT_OF_MEMORY;
    for (size_t k = 0; k < replay->call_count; k++)
        place[replay->call_order[k]] = k;
    int64_t busy_until = INT64_MIN; /* the latest end of the ops started so far (ops: by start) */
    for (size_t i = 0; i < replay->op_count; i++) {
        struct replay_op *op = &replay->ops[i];
        const struct host_call *call = NULL;
        if (op->launch_ns != STORE_NULL && op->start_ns > op->launch_end_ns && busy_until <= op->start_ns)
            call = call_of(replay, op->correlation_id);
        size_t k = call ? place[call - replay->calls] : 0;
        if (k > 0) {
            const struct host_call *before = &replay->calls[replay->call_order[k - 1]];
            op->drained_start = before->thread_id == call->thread_id && (before->kind & CALL_SYNC) &&
                                before->end_ns > replay->first_launch_ns;
        }
        if (op->start_ns + op->duration_ns > busy_until)
            busy_until = op->start_ns + op->duration_ns;
    }
    free(place);
    return 0;
}

/* The host work the idle accounting found, each before the launch that ended its gap, as the
 * host-work fix removes it: by time, summed up to each (the same for every replay with the fix).
 * It is cut out of every thread's time, not only the launching one's: the threads of one training
 * loop wait for each other (PyTorch's autograd thread launches the backward pass only once the main
 * thread, done loading the batch, has run the forward pass and called backward()), so the time cut
 * from one moves the others' later launches too; cut from the launching thread alone, a starved
 * loader's backward kernels stayed at their recorded times and the fix predicted 144 ms where 8
 * DataLoader workers saved 728. The stretches lie in the device's idle gaps, which do not overlap,
 * so no time is cut twice. Returns 0 or WHATIF_OUT_OF_MEMORY. */
static int host_work_removals(struct replay *replay, const struct device_idle *idle)
{
    size_t count = idle->host_work_count;
    if (count == 0)
        return 0;
    replay->host_removed = malloc(count * sizeof *replay->host_removed);
    if (!replay->host_removed)
        return WHATIF_OUT_OF_MEMORY;
    for (size_t w = 0; w < count; w++)
        replay->host_removed[w] =
            (struct shared_removal){idle->host_work[w].launch_ns, idle->host_work[w].ns};
    qsort(replay->host_removed, count, sizeof *replay->host_removed, by_removal_time);
    for (size_t w = 1; w < count; w++)
        replay->host_removed[w].removed_ns += replay->host_removed[w - 1].removed_ns;
    replay->host_removed_count = count;
    return 0;
}

/* The time a replay's removals count from (struct replay's first_launch_ns): the earliest launch
 * of its ops. Before it there is no work of theirs for the host to make earlier, and a report of
 * one range (`--range "step 10"`) replays only that range's ops: counted from the trace's start,
 * the launch time of ten steps before it moved the range's first launches 44 ms earlier, while a
 * thread whose removals were fewer (PyTorch's autograd thread) launched the rest at nearly their
 * recorded times, and the replayed step came out 8 times its recorded length. */
static void first_launch_of(struct replay *replay)
{
    replay->first_launch_ns = INT64_MIN;
    for (size_t i = 0; i < replay->op_count; i++)
        if (replay->ops[i].launch_ns != STORE_NULL &&
            (replay->first_launch_ns == INT64_MIN || replay->ops[i].launch_ns < replay->first_launch_ns))
            replay->first_launch_ns = replay->ops[i].launch_ns;
}

static int by_start(const void *a, const void *b)
{
    const struct host_call *x = *(struct host_call *const *)a, *y = *(struct host_call *const *)b;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* Threads that launch the device's work and never are inside CUDA calls at the same moment take
 * turns: one host timeline. PyTorch's main thread runs the forward pass and the optimizer, its
 * autograd thread the backward pass, each waiting for the other (every PyTorch trace recorded here:
 * not one call of one overlaps a call of the other). Host time a fix removes from one then moves the
 * other's later launches too: the backward pass starts when the forward pass is done. Kept apart,
 * a CUDA graph made each thread's own launches earlier but not the other's, and the backward pass
 * waited at its recorded times. Threads whose calls overlap run at once and keep their own
 * timelines. Gives the timeline's threads one id (the first launching thread's) in the calls and
 * the ops; needs the ops linked to their calls (load_ops), before order_calls. Returns 0 or
 * WHATIF_OUT_OF_MEMORY. */
static int join_host_timelines(struct replay *replay)
{
    int64_t *threads = NULL; /* the launching threads: the ops' */
    size_t thread_count = 0, thread_capacity = 0;
    for (size_t i = 0; i < replay->op_count; i++) {
        int64_t thread = replay->ops[i].thread_id;
        size_t t = 0;
        while (t < thread_count && threads[t] != thread)
            t++;
        if (thread == STORE_NULL || t < thread_count)
            continue;
        if (grow((void **)&threads, &thread_capacity, thread_count, sizeof *threads) != 0) {
            free(threads);
            return WHATIF_OUT_OF_MEMORY;
        }
        threads[thread_count++] = thread;
    }
    struct host_call **by_time = thread_count > 1 ? malloc(replay->call_count * sizeof *by_time) : NULL;
    if (thread_count > 1 && !by_time) {
        free(threads);
        return WHATIF_OUT_OF_MEMORY;
    }
    size_t count = 0; /* the launching threads' calls, by start */
    for (size_t c = 0; by_time && c < replay->call_count; c++)
        for (size_t t = 0; t < thread_count; t++)
            if (replay->calls[c].thread_id == threads[t]) {
                by_time[count++] = &replay->calls[c];
                break;
            }
    int overlap = 0;
    if (by_time)
        qsort(by_time, count, sizeof *by_time, by_start);
    int64_t open_end = INT64_MIN, open_thread = STORE_NULL; /* the call reaching furthest so far */
    for (size_t k = 0; k < count && !overlap; k++) {
        overlap = by_time[k]->thread_id != open_thread && by_time[k]->start_ns < open_end;
        if (by_time[k]->end_ns > open_end) {
            open_end = by_time[k]->end_ns;
            open_thread = by_time[k]->thread_id;
        }
    }
    if (by_time && !overlap) {
        for (size_t k = 0; k < count; k++)
            by_time[k]->thread_id = threads[0];
        for (size_t i = 0; i < replay->op_count; i++)
            if (replay->ops[i].thread_id != STORE_NULL)
                replay->ops[i].thread_id = threads[0];
    }
    free(threads);
    free(by_time);
    return 0;
}

/* A call a CUDA graph captures: a launch, or an asynchronous copy or memset that does not make the
 * host wait (one that does synchronizes, and a capture cannot hold it) and is not to or from
 * pageable memory (a capture refuses it). */
static int captured(const struct host_call *call)
{
    return (call->kind & (CALL_LAUNCH | CALL_ASYNC_COPY | CALL_ASYNC_MEMSET)) &&
           !(call->kind & (CALL_SYNC | CALL_PAGEABLE));
}

static int by_host_start(const void *a, const void *b)
{
    const struct analysis_step *x = *(const struct analysis_step *const *)a,
                               *y = *(const struct analysis_step *const *)b;
    return (x->host_start_ns > y->host_start_ns) - (x->host_start_ns < y->host_start_ns);
}

/* The host work (host_work_removals) found before the launch that began at launch_ns: the idle
 * accounting's stretches of the gap that launch ended, at most `gap`. */
static int64_t host_work_before(const struct replay *replay, int64_t launch_ns, int64_t gap)
{
    int64_t work = shared_removed_by(replay->host_removed, replay->host_removed_count, launch_ns) -
                   shared_removed_by(replay->host_removed, replay->host_removed_count, launch_ns - 1);
    return work < gap ? work : gap;
}

/* Fills graph_gap_ns: the host's time between two captured calls of one timeline, one after the
 * other (no call of the timeline between them), that a CUDA graph removes too. A graph is launched
 * once per capture and its kernels need no host at all: the per-operation time of the framework
 * between launches (PyTorch's Python, dispatcher and autograd engine) goes with the launch calls.
 * With only the launch calls' time removed, a 12x256 MLP step captured with torch.cuda.graph
 * was predicted to save 1.0 of its 4.4 ms; it saved 4.0 (tests/data/gpu-h100/torch_graph_*). What a
 * user captures is a step: in a trace with steps (steps.h), the gaps inside one step's host range
 * go, those between steps (loading the next batch, logging) stay. Without steps, a gap of at least
 * EXPLAIN_LATE_LAUNCH_GAP_NS is the host's own work (the idle accounting's host-cpu) and stays;
 * shorter ones are per-operation overhead and go. Needs call_order. Returns 0 or
 * WHATIF_OUT_OF_MEMORY. */
static int graph_gaps(struct replay *replay, int64_t process_id, const struct analysis_step *steps,
                      size_t step_count)
{
    size_t n = replay->call_count, count = 0;
    const struct analysis_step **own = malloc((step_count ? step_count : 1) * sizeof *own);
    replay->graph_gap_ns = calloc(n ? n : 1, sizeof *replay->graph_gap_ns);
    if (!own || !replay->graph_gap_ns) {
        free(own);
        return WHATIF_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < step_count; i++)
        if (steps[i].process_id == process_id && steps[i].host_start_ns != STORE_NULL &&
            steps[i].host_end_ns != STORE_NULL)
            own[count++] = &steps[i];
    /* host work lies in a graph's gap only inside a step: without steps the gaps are shorter */
    if (count > 0 && replay->host_removed_count > 0 &&
        !(replay->graph_gap_work_ns = calloc(n ? n : 1, sizeof *replay->graph_gap_work_ns))) {
        free(own);
        return WHATIF_OUT_OF_MEMORY;
    }
    qsort(own, count, sizeof *own, by_host_start);
    size_t step = 0;
    for (size_t k = 0; k + 1 < n; k++) {
        const struct host_call *call = &replay->calls[replay->call_order[k]],
                               *next = &replay->calls[replay->call_order[k + 1]];
        if (k == 0 || call->thread_id != replay->calls[replay->call_order[k - 1]].thread_id)
            step = 0; /* a new timeline: its calls by time again */
        if (next->thread_id != call->thread_id || !captured(call) || !captured(next) ||
            next->start_ns <= call->end_ns)
            continue;
        int64_t gap = next->start_ns - call->end_ns;
        if (count == 0) {
            replay->graph_gap_ns[replay->call_order[k]] = gap < EXPLAIN_LATE_LAUNCH_GAP_NS ? gap : 0;
            continue;
        }
        while (step < count && own[step]->host_end_ns < call->start_ns)
            step++;
        for (size_t s = step; s < count && own[s]->host_start_ns <= call->start_ns; s++)
            if (next->end_ns <= own[s]->host_end_ns) {
                replay->graph_gap_ns[replay->call_order[k]] = gap;
                if (replay->graph_gap_work_ns)
                    replay->graph_gap_work_ns[replay->call_order[k]] =
                        host_work_before(replay, next->start_ns, gap);
                break;
            }
    }
    free(own);
    return 0;
}

/* Whether a replay of the device removes a sync: the fix proved (predict) and a sync to remove. */
static int removes_syncs(const struct replay *replay, const struct device_state *device,
                         const struct device_idle *idle)
{
    if (!fix_proved(device, ANALYSIS_FIX_REMOVE_HOST_SYNC) &&
        !(idle_fixes_proved(idle->ns) & FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC)))
        return 0;
    for (size_t c = 0; c < replay->call_count; c++)
        if (replay->calls[c].kind & CALL_SYNC)
            return 1;
    return 0;
}

int whatif_device(sqlite3 *db, kernel_names *names, const struct device_state *device,
                  const struct device_idle *idle, const struct analysis_step *steps, size_t step_count,
                  struct analysis_device *out, error_info *err)
{
    struct replay replay = {0};
    struct stream_wait *waits = NULL;
    size_t wait_count = 0;
    error_info read_error = {0}; /* a damaged table leaves the device without a replay */
    int status = host_work_removals(&replay, idle);
    if (status == 0)
        status = device->launches.complete ? calls_of_launches(db, &replay, &device->launches, &read_error)
                                           : load_calls(db, &replay, device->process_id, &read_error);
    if (status == 0)
        status = load_ops(&replay, names, device);
    if (status == 0)
        status = join_host_timelines(&replay);
    if (status == 0)
        status = order_calls(&replay);
    if (status == 0)
        status = graph_gaps(&replay, device->process_id, steps, step_count);
    first_launch_of(&replay);
    if (status == 0 && replay.op_count > 0) {
        if (link_by(&replay, 0) != 0 || link_by(&replay, 1) != 0 || add_legacy_edges(&replay, device) != 0 ||
            keep_allocations_that_waited(&replay) != 0)
            status = WHATIF_OUT_OF_MEMORY;
        else
            status = load_waits(db, device->process_id, &waits, &wait_count, &read_error);
        if (status == 0)
            status = add_event_edges(db, &replay, device->process_id, waits, wait_count, &read_error);
        if (status == 0) {
            index_edges(&replay);
            fill_nominal_speeds(&replay, device);
            status = host_positions(&replay); /* after the last change of a call's kind */
        }
        if (status == 0 && removes_syncs(&replay, device, idle))
            status = mark_drained_starts(&replay);
        if (status == 0) {
            struct replay split = {0};
            int has_split = 0;
            if ((double)replay.op_count * (double)(replay.stream_count + 1) <= WHATIF_MAX_WORK) {
                has_split =
                    split_streams(db, &replay, device->process_id, waits, wait_count, &split, &read_error);
                struct replay_scratch scratch = {0};
                status = has_split == WHATIF_OUT_OF_MEMORY
                             ? has_split
                             : predict(&replay, has_split > 0 ? &split : NULL, device,
                                       idle_fixes_proved(idle->ns), &scratch, out);
                scratch_free(&scratch);
            }
            free_ops_side(&split); /* its host side is replay's */
        }
    }
    replay_free(&replay);
    free(waits);
    return status == WHATIF_OUT_OF_MEMORY ? error_set(err, "out of memory") : 0;
}

/* A part of a saving this large makes it an upper bound (analysis_what_if_bound). */
static int large_part(int64_t part, int64_t saving)
{
    return saving > 0 && part >= 50000 && part * 10 >= saving;
}

enum analysis_bound analysis_what_if_bound(const struct analysis_what_if *item)
{
    if (large_part(item->newly_together_ns, item->predicted_saving_ns))
        return ANALYSIS_BOUND_SIDE_BY_SIDE;
    if (large_part(item->host_work_ns, item->predicted_saving_ns))
        return ANALYSIS_BOUND_ALL_HOST_WORK;
    return ANALYSIS_BOUND_NONE;
}

int analysis_what_if_upper_bound(const struct analysis_what_if *item)
{
    return analysis_what_if_bound(item) != ANALYSIS_BOUND_NONE;
}

int64_t analysis_device_host_work_ns(const struct analysis_device *device, enum analysis_fix fix)
{
    int in_it = fix == ANALYSIS_FIX_HOST_WORK || (fix == ANALYSIS_FIX_ALL && device->all_includes_host_work);
    return in_it && (device->fixes_modelled & FIX_BIT(ANALYSIS_FIX_HOST_WORK))
               ? device->fix_saving_ns[ANALYSIS_FIX_HOST_WORK]
               : 0;
}

const char *analysis_what_if_basis(const struct analysis_what_if *item)
{
    return item->cause < ANALYSIS_CAUSE_COUNT ? analysis_cause_tag(item->cause)
                                              : analysis_fix_basis(item->fix);
}

/* The proved cause with the largest loss that asks for fix, ANALYSIS_CAUSE_COUNT when none. */
static enum analysis_cause largest_cause_of(const struct analysis_result *result, enum analysis_fix fix)
{
    for (size_t c = 0; c < ANALYSIS_CAUSE_COUNT; c++) /* causes are sorted by loss */
        if (result->causes[c].count > 0 && analysis_cause_fix(result->causes[c].cause) == fix)
            return result->causes[c].cause;
    return ANALYSIS_CAUSE_COUNT;
}

/* Exposed arrival skew of each device over its whole span (exposed_comm.c's split), the largest. */
static int64_t largest_exposed_skew(const struct analysis_result *result)
{
    int64_t largest = 0;
    for (size_t a = 0; a < result->accounting_count; a++) {
        const struct analysis_accounting *accounting = &result->accountings[a];
        int64_t skew = 0;
        for (size_t k = 0; accounting->step == -1 && k < accounting->exposed_communication.entry_count; k++)
            if (accounting->exposed_communication.entries[k].cause == ACCOUNTING_COMM_SKEW)
                skew += accounting->exposed_communication.entries[k].ns;
        if (skew > largest)
            largest = skew;
    }
    return largest;
}

/* Removing the skew: the ranks run in lockstep (every collective waits for the last rank), so when
 * the late rank arrives on time every rank's span shrinks by the largest exposed wait for it; the
 * replay is per device and cannot see the other ranks, so this fix is the accounting's figure. */
static void predict_skew_removed(struct analysis_result *result)
{
    int64_t skew = largest_exposed_skew(result);
    if (skew <= 0 || result->device_count < 2)
        return;
    for (size_t d = 0; d < result->device_count; d++) {
        struct analysis_device *device = &result->devices[d];
        int64_t span = device->busy_ns + device->idle_ns;
        device->fix_saving_ns[ANALYSIS_FIX_REMOVE_SKEW] = skew < span ? skew : span;
        device->fixes_modelled |= FIX_BIT(ANALYSIS_FIX_REMOVE_SKEW);
    }
}

void whatif_collect(struct analysis_result *result)
{
    result->what_if_count = 0;
    result->total_headroom_ns = 0;
    for (size_t d = 0; d < result->device_count; d++)
        result->total_headroom_ns += result->devices[d].headroom_ns;
    predict_skew_removed(result);
    for (int fix = 0; fix < ANALYSIS_FIX_ALL; fix++) {
        enum analysis_cause cause = largest_cause_of(result, (enum analysis_fix)fix);
        int modelled = 0;
        for (size_t d = 0; d < result->device_count; d++)
            modelled |= (result->devices[d].fixes_modelled & FIX_BIT(fix)) != 0;
        if (cause == ANALYSIS_CAUSE_COUNT && !modelled)
            continue;
        struct analysis_what_if *item = &result->what_if[result->what_if_count++];
        *item = (struct analysis_what_if){.fix = (enum analysis_fix)fix,
                                          .cause = cause,
                                          .by_design = analysis_fix_by_design((enum analysis_fix)fix),
                                          .assumptions = analysis_fix_assumptions((enum analysis_fix)fix)};
        for (size_t d = 0; d < result->device_count; d++) {
            item->predicted_saving_ns += result->devices[d].fix_saving_ns[fix];
            item->newly_together_ns += result->devices[d].fix_together_ns[fix];
            item->host_work_ns += analysis_device_host_work_ns(&result->devices[d], (enum analysis_fix)fix);
        }
    }
    for (size_t i = 1; i < result->what_if_count; i++) /* largest first */
        for (size_t j = i;
             j > 0 && result->what_if[j].predicted_saving_ns > result->what_if[j - 1].predicted_saving_ns;
             j--) {
            struct analysis_what_if swap = result->what_if[j];
            result->what_if[j] = result->what_if[j - 1];
            result->what_if[j - 1] = swap;
        }
    int any = 0;
    for (size_t d = 0; d < result->device_count; d++)
        any |= (result->devices[d].fixes_modelled & FIX_BIT(ANALYSIS_FIX_ALL)) != 0;
    if (any) {
        struct analysis_what_if *all = &result->what_if[result->what_if_count++];
        *all = (struct analysis_what_if){.fix = ANALYSIS_FIX_ALL,
                                         .cause = ANALYSIS_CAUSE_COUNT,
                                         .predicted_saving_ns = result->total_headroom_ns,
                                         .assumptions = analysis_fix_assumptions(ANALYSIS_FIX_ALL)};
        for (size_t d = 0; d < result->device_count; d++) {
            all->newly_together_ns += result->devices[d].fix_together_ns[ANALYSIS_FIX_ALL];
            all->host_work_ns += analysis_device_host_work_ns(&result->devices[d], ANALYSIS_FIX_ALL);
        }
    }
}
