/* load.c: the what-if model's inputs (load.h): the device's operations as the walk kept them, the
 * host calls that launched them (from the launches read once for the device, or from the store),
 * what each call does to the host (synchronizes, launches, copies), and the copy speeds a pinned
 * buffer would reach. */
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"
#include "explain.h"
#include "framework_calls.h"
#include "key_index.h"
#include "load.h"
#include "op_source.h"
#include "queries_whatif.h"
#include "whatif.h"

/* Copies smaller than this measure latency, not a link's speed. */
#define WHATIF_MIN_SPEED_BYTES (1 << 20)
/* Host calls kept: times any recording can hold, each at most 2^38 ns (4.6 minutes) long. */
#define WHATIF_MAX_HOST_NS STORE_MAX_ABS_TIME_NS
#define WHATIF_MAX_CALL_NS (INT64_C(1) << 38)

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
    store_string_reader *lookup; /* the string of an id */
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

/* The kind of name_id: 0, or -1 on a read error (err filled), WHATIF_OUT_OF_MEMORY, with *kind
 * filled. */
static int kind_of_name(struct name_kinds *kinds, int64_t name_id, int *kind, error_info *err)
{
    struct name_key key = {kinds, name_id};
    uint64_t hash = key_index_hash(name_id, 0, 0, 0);
    long found = key_index_find(&kinds->index, hash, name_kind_matches, &key);
    if (found >= 0) {
        *kind = kinds->items[found].kind;
        return 0;
    }
    const char *name;
    if (store_string_reader_find(kinds->lookup, name_id, &name, err) != 0)
        return -1;
    *kind = call_kind(name);
    if (replay_grow((void **)&kinds->items, &kinds->capacity, kinds->count, sizeof *kinds->items) != 0 ||
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
static int load_calls(sqlite3 *db, struct replay *replay, int64_t process_id, int64_t **ids, error_info *err)
{
    struct name_kinds kinds = {0};
    store_correlated_calls *rows = store_correlated_calls_open(db, process_id, err);
    if (!rows || !(kinds.lookup = store_string_reader_open(db, err))) {
        store_correlated_calls_free(rows);
        return -1;
    }
    size_t capacity = 0, id_capacity = 0;
    int status = 0, got, sorted = 1;
    struct store_correlated_call_row row;
    while ((got = store_correlated_calls_next(rows, &row, err)) == 1) {
        if (replay->call_count >= WHATIF_MAX_OPS)
            break;
        if (!host_call_kept(row.start_ns, row.end_ns))
            continue;
        int kind = 0;
        if (row.has_name && (status = kind_of_name(&kinds, row.name_id, &kind, err)) != 0)
            break;
        if (replay_grow((void **)&replay->calls, &capacity, replay->call_count, sizeof *replay->calls) != 0 ||
            replay_grow((void **)ids, &id_capacity, replay->call_count, sizeof **ids) != 0) {
            status = WHATIF_OUT_OF_MEMORY;
            break;
        }
        (*ids)[replay->call_count] = row.thread_id;
        struct host_call *call = &replay->calls[replay->call_count++];
        *call = (struct host_call){.start_ns = row.start_ns,
                                   .end_ns = row.end_ns,
                                   .correlation_id = row.correlation_id,
                                   .kind = kind};
        sorted &= replay->call_count == 1 || call[-1].correlation_id < call->correlation_id;
    }
    if (status == 0 && got < 0)
        status = -1; /* err filled by the store */
    store_correlated_calls_free(rows);
    store_string_reader_free(kinds.lookup);
    free(kinds.items);
    key_index_free(&kinds.index);
    /* Strictly increasing ids are the order qsort would give whatever its ties; the thread ids go
     * along (in thread_id while sorted, then back into ids). */
    if (status == 0 && replay->call_count && !sorted) {
        if (replay->call_count > UINT32_MAX)
            return WHATIF_OUT_OF_MEMORY;
        for (size_t c = 0; c < replay->call_count; c++)
            replay->calls[c].thread_id = (uint32_t)c;
        qsort(replay->calls, replay->call_count, sizeof *replay->calls, replay_by_correlation);
        int64_t *moved = malloc(replay->call_count * sizeof *moved);
        if (!moved)
            return WHATIF_OUT_OF_MEMORY;
        for (size_t c = 0; c < replay->call_count; c++)
            moved[c] = (*ids)[replay->calls[c].thread_id];
        free(*ids);
        *ids = moved;
    }
    return status;
}

/* The host calls from the process's launches (read once for the device, launches.h), as load_calls
 * would read them: the same rows in the same order, the same calls left out. Takes the launches'
 * arrays and writes the calls over them, each at or before the place of the launch it came from
 * (a host_call is smaller than a thread_call, a thread id than a call_origin): a copy beside them
 * was the replay's peak, 40 bytes per operation more (issue 33). The launches are left empty. */
static int calls_of_launches(sqlite3 *db, struct replay *replay, struct launches *launches, int64_t **ids,
                             error_info *err)
{
    _Static_assert(sizeof(struct host_call) <= sizeof(struct thread_call) &&
                       sizeof(int64_t) <= sizeof(struct call_origin),
                   "the calls are written over the launches");
    struct name_kinds kinds = {.lookup = store_string_reader_open(db, err)};
    if (!kinds.lookup)
        return -1;
    size_t n = launches->count;
    unsigned char *calls = (unsigned char *)launches->calls, *threads = (unsigned char *)launches->origins;
    *launches = (struct launches){0};
    if (n == 0) {
        free(calls);
        free(threads);
        calls = malloc(sizeof(struct host_call));
        threads = malloc(sizeof(int64_t));
    }
    int status = calls && threads ? 0 : WHATIF_OUT_OF_MEMORY;
    size_t count = 0;
    for (size_t i = 0; status == 0 && i < n; i++) {
        struct thread_call call;
        struct call_origin origin;
        memcpy(&call, calls + i * sizeof call, sizeof call);
        memcpy(&origin, threads + i * sizeof origin, sizeof origin);
        int kind = 0;
        if (!host_call_kept(call.start_ns, call.end_ns) ||
            (call.has_name && (status = kind_of_name(&kinds, call.name_id, &kind, err)) != 0))
            continue;
        struct host_call kept = {.start_ns = call.start_ns,
                                 .end_ns = call.end_ns,
                                 .correlation_id = call.correlation_id,
                                 .kind = kind};
        memcpy(calls + count * sizeof kept, &kept, sizeof kept);
        memcpy(threads + count * sizeof origin.thread_id, &origin.thread_id, sizeof origin.thread_id);
        count++;
    }
    /* What the launches held beyond the calls goes back (a large array is mapped: realloc returns
     * its pages). */
    void *shrunk = calls && n ? realloc(calls, (count ? count : 1) * sizeof(struct host_call)) : NULL;
    replay->calls = shrunk ? shrunk : (void *)calls;
    shrunk = threads && n ? realloc(threads, (count ? count : 1) * sizeof(int64_t)) : NULL;
    *ids = shrunk ? shrunk : (void *)threads;
    replay->call_count = count;
    store_string_reader_free(kinds.lookup);
    free(kinds.items);
    key_index_free(&kinds.index);
    return status;
}

/* The SM footprint of a kernel whose device limits are known (left at its defaults otherwise). */
static void set_footprint(const struct device_state *device, struct kept_op *op,
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

void whatif_keep_op(const struct device_state *device, const struct model_op *op, struct kept_op *kept)
{
    int kernel = op->kind == MODEL_KERNEL;
    *kept = (struct kept_op){.start_ns = op->start_ns,
                             .end_ns = op->end_ns,
                             .correlation_id = op->correlation_id,
                             .stream_id = op->stream_id,
                             .channel_id = op->channel_id,
                             .bytes = op->bytes,
                             .name_id = op->name_id,
                             .grid_blocks = kernel ? op->launch.grid_blocks : 0,
                             .threads_per_block = kernel ? op->launch.threads_per_block : 0,
                             .waves = 1,
                             .kind = (unsigned char)op->kind,
                             .category = (unsigned char)op->category,
                             .pageable = op->kind == MODEL_MEMCPY && (op->src_kind == STORE_MEMORY_PAGEABLE ||
                                                                      op->dst_kind == STORE_MEMORY_PAGEABLE)};
    set_footprint(device, kept, op);
}

/* Fills op from source. The ops are independent of each other's order: a call's kind bits and the
 * fastest copy per direction only accumulate. */
static void add_op(struct replay *replay, const struct kept_op *source, struct replay_op *op)
{
    *op = (struct replay_op){.start_ns = source->start_ns,
                             .duration_ns =
                                 source->end_ns > source->start_ns ? source->end_ns - source->start_ns : 0,
                             .correlation_id = source->correlation_id,
                             .stream_id = source->stream_id,
                             .call = REPLAY_NO_CALL,
                             .channel_id = source->channel_id,
                             .on_copy_channel = source->kind != MODEL_KERNEL,
                             .stream_previous = -1,
                             .channel_previous = -1,
                             .category = source->category, /* NCCL kernels as communication */
                             .pageable = source->pageable,
                             .bytes = source->bytes,
                             .sm_share = source->sm_share,
                             .tail_share = source->tail_share,
                             .waves = source->waves};
    const struct host_call *call = replay_call_of(replay, source->correlation_id);
    /* A synchronous cudaMemcpy to pageable memory waits anyway: pinning pays where the program
     * asked for an asynchronous copy. */
    op->pageable = op->pageable && call && (call->kind & CALL_ASYNC_COPY);
    if (call) {
        op->call = (replay_index)(call - replay->calls);
        /* A copy to host memory the call waits for (a synchronous one, or an asynchronous one to
         * pageable memory, which "will return only once the copy has completed", CUDA Runtime API
         * "API synchronization behavior") synchronizes the host like a stream synchronize: the
         * .item()-style read-back. */
        if (op->category == ANALYSIS_COPY_DTOH && (!(call->kind & CALL_ASYNC_COPY) || op->pageable))
            replay->calls[call - replay->calls].kind |= CALL_SYNC;
        if (op->pageable)
            replay->calls[call - replay->calls].kind |= CALL_PAGEABLE;
    }
    if (source->kind == MODEL_MEMCPY && !op->pageable && op->bytes >= WHATIF_MIN_SPEED_BYTES &&
        op->duration_ns > 0) {
        int64_t speed = (int64_t)((double)op->bytes * 1e9 / (double)op->duration_ns);
        if (speed > replay->pinned_bytes_per_s[op->category])
            replay->pinned_bytes_per_s[op->category] = speed;
    }
}

/* The selected operations taken in, last first, per this many: the walk's array shrinks by as
 * many (a large one is mapped, and realloc gives the pages back), so the two copies of an operation
 * are not held at once. */
#define LOAD_SHRINK_OPS 8192u

int load_ops(struct replay *replay, struct device_state *device)
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
    replay->op_count = count;
    for (size_t i = count; i-- > 0;) {
        add_op(replay, &device->selected_ops[i], &replay->ops[i]);
        if (i % LOAD_SHRINK_OPS == 0) {
            struct kept_op *kept = realloc(device->selected_ops, (i ? i : 1) * sizeof *kept);
            if (kept) {
                device->selected_ops = kept;
                device->selected_op_capacity = i ? i : 1;
            }
        }
    }
    device->selected_op_count = 0; /* taken */
    return 0;
}

/* cudaMalloc and cudaFree may synchronize the device (CUDA Runtime API, "API synchronization
 * behavior"), and the recording says whether one did: a call that returned while work launched
 * before it was still running (by more than the clocks' tolerance) did not wait for it, and the
 * replay keeps it as an ordinary host call. Replaying it as a barrier made the replay of a trace
 * whose cudaMalloc never waited (tests/data/gpu-h100/host_sync_malloc.db) 44% longer than the
 * recorded span and promised that span back. Needs launch_order (graph_link_by). */
int load_keep_allocations_that_waited(struct replay *replay)
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
        size_t low = replay_launched_before(replay, replay->launch_order, call->correlation_id);
        if (low > 0 && ended_by[low - 1] > call->end_ns + EXPLAIN_START_TOLERANCE_NS)
            call->kind &= ~CALL_SYNC;
    }
    free(ended_by);
    return 0;
}

void load_copy_ahead(struct replay *replay)
{
    for (size_t s = 0; s < replay->stream_count; s++) {
        int64_t compute = 0; /* kernel time since the stream's last copy; -1 before the first */
        for (size_t k = replay->stream_first[s]; k < replay->stream_first[s + 1]; k++) {
            struct replay_op *op = &replay->ops[replay->stream_ops[k]];
            if (!op->on_copy_channel && compute >= 0)
                compute += op->duration_ns;
            else if (op->category == ANALYSIS_COPY_HTOD && op->bytes >= WHATIF_MIN_SPEED_BYTES) {
                op->ahead_ns = compute > 0 ? compute : 0; /* the first copy has no step before it */
                compute = 0;
            }
        }
    }
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

void load_nominal_speeds(struct replay *replay, const struct device_state *device)
{
    for (int c = ANALYSIS_COPY_HTOD; c <= ANALYSIS_COPY_DTOH; c++)
        if (replay->pinned_bytes_per_s[c] == 0)
            replay->pinned_bytes_per_s[c] =
                nominal_pinned_bytes_per_s(device->limits.compute_capability_major);
}

static int by_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The calls' thread ids (ids[i] of calls[i]) as their ranks among the distinct ids (host_call's
 * thread_id). Returns 0 or WHATIF_OUT_OF_MEMORY. */
static int rank_threads(struct replay *replay, const int64_t *ids)
{
    size_t n = replay->call_count, distinct = 0;
    int64_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted)
        return WHATIF_OUT_OF_MEMORY;
    memcpy(sorted, ids, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_id);
    for (size_t i = 0; i < n; i++)
        if (distinct == 0 || sorted[distinct - 1] != sorted[i])
            sorted[distinct++] = sorted[i];
    for (size_t i = 0; i < n; i++) {
        const int64_t *at = bsearch(&ids[i], sorted, distinct, sizeof *sorted, by_id);
        replay->calls[i].thread_id = (uint32_t)(at - sorted);
    }
    free(sorted);
    return 0;
}

/* A call a library wrapper's time may go with: a sync, or an allocation that may be one; a call
 * that gives the GPU work keeps its wrapper (removing the sync does not remove the launch). */
enum {
    WRAPPED_CALL = CALL_SYNC | CALL_MAY_SYNC,
    GIVES_WORK = CALL_LAUNCH | CALL_ASYNC_COPY | CALL_ASYNC_MEMSET
};

struct call_place {
    int64_t thread_id, start_ns;
    size_t call;
};

static int by_thread_and_start(const void *a, const void *b)
{
    const struct call_place *x = a, *y = b;
    if (x->thread_id != y->thread_id)
        return x->thread_id < y->thread_id ? -1 : 1;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return (x->call > y->call) - (x->call < y->call);
}

/* Fills replay->wrapper_ns from the process's framework calls: a wrapper whose span holds
 * synchronizing calls of its thread and no call that gives the GPU work gives its last sync the
 * time beyond that sync's own (the wrapper's Python before and after it). Nested wrappers: the
 * outermost (framework_calls come by start, then the longest first). ids: the calls' thread ids.
 * Returns 0, -1 on a read error (err filled) or WHATIF_OUT_OF_MEMORY. */
static int load_wrappers(sqlite3 *db, struct replay *replay, int64_t process_id, const int64_t *ids,
                         error_info *err)
{
    struct store_framework_call *wrappers = NULL;
    size_t wrapper_count = 0, n = replay->call_count, placed = 0;
    if (store_framework_calls_of(db, process_id, &wrappers, &wrapper_count, err) != 0)
        return -1;
    if (wrapper_count == 0 || n == 0) {
        free(wrappers);
        return 0;
    }
    struct call_place *places = malloc(n * sizeof *places);
    if (!places) {
        free(wrappers);
        return WHATIF_OUT_OF_MEMORY;
    }
    for (size_t c = 0; c < n; c++)
        if (replay->calls[c].kind & (WRAPPED_CALL | GIVES_WORK))
            places[placed++] = (struct call_place){ids[c], replay->calls[c].start_ns, c};
    qsort(places, placed, sizeof *places, by_thread_and_start);
    int status = 0;
    for (size_t w = 0; w < wrapper_count && status == 0; w++) {
        const struct store_framework_call *wrapper = &wrappers[w];
        size_t low = 0, high = placed; /* the first call of its thread starting in it */
        while (low < high) {
            size_t middle = low + (high - low) / 2;
            const struct call_place *place = &places[middle];
            if (place->thread_id < wrapper->thread_id ||
                (place->thread_id == wrapper->thread_id && place->start_ns < wrapper->start_ns))
                low = middle + 1;
            else
                high = middle;
        }
        long last_sync = -1;
        int gives_work = 0;
        for (size_t p = low; p < placed && places[p].thread_id == wrapper->thread_id &&
                             places[p].start_ns < wrapper->end_ns && !gives_work;
             p++) {
            const struct host_call *call = &replay->calls[places[p].call];
            if (call->end_ns > wrapper->end_ns)
                break; /* not inside: the wrapper's record is damaged */
            gives_work = (call->kind & GIVES_WORK) != 0;
            if (call->kind & WRAPPED_CALL)
                last_sync = (long)places[p].call;
        }
        if (gives_work || last_sync < 0)
            continue;
        if (!replay->wrapper_ns && !(replay->wrapper_ns = calloc(n, sizeof *replay->wrapper_ns))) {
            status = WHATIF_OUT_OF_MEMORY;
            break;
        }
        const struct host_call *call = &replay->calls[last_sync];
        int64_t beyond = (wrapper->end_ns - wrapper->start_ns) - (call->end_ns - call->start_ns);
        if (replay->wrapper_ns[last_sync] == 0 && beyond > 0 && beyond <= WHATIF_MAX_CALL_NS)
            replay->wrapper_ns[last_sync] = beyond;
    }
    free(places);
    free(wrappers);
    return status;
}

int load_host_calls(sqlite3 *db, struct replay *replay, struct device_state *device, error_info *err)
{
    int64_t *ids = NULL;
    int status = device->launches.complete ? calls_of_launches(db, replay, &device->launches, &ids, err)
                                           : load_calls(db, replay, device->process_id, &ids, err);
    if (status == 0)
        status = load_wrappers(db, replay, device->process_id, ids, err);
    if (status == 0)
        status = rank_threads(replay, ids);
    free(ids);
    /* A call's index and place are replay_index (model.h): past it memory runs out first. */
    return status == 0 && replay->call_count >= UINT32_MAX ? WHATIF_OUT_OF_MEMORY : status;
}
