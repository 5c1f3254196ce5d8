/* nccl_profiler.c: the NCCL profiler plugin inside the collector (see nccl_profiler.h).
 *
 * Owns: the event log (chunks of events, one lock), the communicator contexts handed to NCCL,
 * the tables mapping NCCL's strings to the trace's names, and the exported ncclProfiler_vN
 * tables. Field meanings: NCCL's profiler_v5.h (2.28), v4, v3; NCCL's own strings come from
 * ncclFuncToString, ncclDatatypeToString, ncclAlgoToString and ncclProtoToString. */
#include "nccl_profiler.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nccl_kernel_name.h"
#include "nccl_profiler_abi.h"
#include "queries_nccl.h"

#define EXPORTED __attribute__((visibility("default")))
#define EVENTS_PER_CHUNK 4096
#define UNKNOWN_SEQUENCE UINT64_MAX
#define NO_ROOT INT32_MIN
#define UNKNOWN_RANKS (-1)

/* The layouts we read, pinned to what NCCL 2.28.9's debug information says. */
_Static_assert(sizeof(struct nccl_abi_event_v5) == 112, "ncclProfilerEventDescr_v5_t is 112 bytes");
_Static_assert(offsetof(struct nccl_abi_event_v5, coll.fields.sequence_number) == 24, "v5 coll.seqNumber");
_Static_assert(offsetof(struct nccl_abi_event_v5, coll.fields.count) == 56, "v5 coll.count");
_Static_assert(offsetof(struct nccl_abi_event_v5, coll.fields.root) == 64, "v5 coll.root");
_Static_assert(offsetof(struct nccl_abi_event_v5, coll.fields.datatype) == 72, "v5 coll.datatype");
_Static_assert(offsetof(struct nccl_abi_event_v5, coll.fields.algorithm) == 88, "v5 coll.algo");
_Static_assert(offsetof(struct nccl_abi_event_v5, coll.fields.protocol) == 96, "v5 coll.proto");
_Static_assert(offsetof(struct nccl_abi_event_v5, coll.parent_group) == 104, "v5 coll.parentGroup");
_Static_assert(offsetof(struct nccl_abi_event_v5, p2p.fields.count) == 48, "v5 p2p.count");
_Static_assert(offsetof(struct nccl_abi_event_v5, p2p.fields.peer) == 56, "v5 p2p.peer");
_Static_assert(offsetof(struct nccl_abi_event_v5, p2p.parent_group) == 64, "v5 p2p.parentGroup");
_Static_assert(sizeof(struct nccl_abi_event_v4) == 104, "ncclProfilerEventDescr_v4_t is 104 bytes");
_Static_assert(offsetof(struct nccl_abi_event_v4, coll.protocol) == 96, "v4 coll.proto");
_Static_assert(offsetof(struct nccl_abi_event_v4, p2p.peer) == 56, "v4 p2p.peer");
_Static_assert(sizeof(struct nccl_abi_event_v3) == 120, "ncclProfilerEventDescr_v3_t is 120 bytes");
_Static_assert(offsetof(struct nccl_abi_event_v3, coll.comm_hash) == 32, "v3 coll.commHash");
_Static_assert(offsetof(struct nccl_abi_event_v3, coll.datatype) == 88, "v3 coll.datatype");
_Static_assert(offsetof(struct nccl_abi_event_v3, coll.protocol) == 112, "v3 coll.proto");
_Static_assert(offsetof(struct nccl_abi_event_v3, p2p.peer) == 72, "v3 p2p.peer");

/* --- NCCL's strings -> the trace's names (static, so a logged event holds small indexes) --- */

struct op_name {
    const char *nccl, *trace;
};
/* index 0: not an op we know ("Unknown" in the trace) */
static const struct op_name op_names[] = {
    {NULL, "Unknown"},          {"AllReduce", "AllReduce"},
    {"AllGather", "AllGather"}, {"ReduceScatter", "ReduceScatter"},
    {"Broadcast", "Broadcast"}, {"Reduce", "Reduce"},
    {"AlltoAll", "AllToAll"},   {"AllToAll", "AllToAll"},
    {"Send", "Send"},           {"Recv", "Recv"},
    {"SendRecv", "SendRecv"},
};

struct dtype_name {
    const char *nccl, *trace; /* the trace uses the short names of NCCL's kernel names */
    int size_bytes;
};
/* ncclDataType_t names (nccl.h); index 0: unknown (dtype and bytes NULL). */
static const struct dtype_name dtype_names[] = {
    {NULL, NULL, 0},
    {"ncclInt8", "i8", 1},
    {"ncclChar", "i8", 1},
    {"ncclUint8", "u8", 1},
    {"ncclInt32", "i32", 4},
    {"ncclInt", "i32", 4},
    {"ncclUint32", "u32", 4},
    {"ncclInt64", "i64", 8},
    {"ncclUint64", "u64", 8},
    {"ncclFloat16", "f16", 2},
    {"ncclHalf", "f16", 2},
    {"ncclFloat32", "f32", 4},
    {"ncclFloat", "f32", 4},
    {"ncclFloat64", "f64", 8},
    {"ncclDouble", "f64", 8},
    {"ncclBfloat16", "bf16", 2},
    {"ncclFloat8e4m3", "f8e4m3", 1},
    {"ncclFloat8e5m2", "f8e5m2", 1},
};

/* ncclAlgoStr / ncclProtoStr (NCCL src/include/comm.h); index 0: unknown (NULL). */
static const char *const algorithm_names[] = {NULL,   "TREE",      "RING", "COLLNET_DIRECT", "COLLNET_CHAIN",
                                              "NVLS", "NVLS_TREE", "PAT"};
static const char *const protocol_names[] = {NULL, "LL", "LL128", "SIMPLE"};

static uint8_t op_index(const char *func)
{
    for (size_t i = 1; func && i < sizeof op_names / sizeof op_names[0]; i++)
        if (strcmp(func, op_names[i].nccl) == 0)
            return (uint8_t)i;
    return 0;
}

static uint8_t dtype_index(const char *datatype)
{
    for (size_t i = 1; datatype && i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (strcmp(datatype, dtype_names[i].nccl) == 0)
            return (uint8_t)i;
    return 0;
}

static uint8_t name_index(const char *const *names, size_t count, const char *name)
{
    for (size_t i = 1; name && i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return (uint8_t)i;
    return 0;
}

/* --- the log --- */

struct logged_event {
    uint64_t comm_hash, sequence_number, count;
    int64_t time_ns, thread_id;
    uint32_t correlation_id; /* 0: no launch callback told */
    int32_t root, rank, rank_count;
    uint8_t op, dtype, algorithm, protocol, has_comm;
};

struct event_chunk {
    struct event_chunk *next;
    size_t used;
    struct logged_event events[EVENTS_PER_CHUNK];
};

/* What init returns as NCCL's context: one per communicator. */
struct communicator {
    uint64_t hash;
    int rank, rank_count, has_hash;
};

static struct nccl_profiler_state {
    pthread_mutex_t lock;
    atomic_int accepting;
    atomic_llong inits;
    struct nccl_profiler_hooks hooks;
    struct event_chunk *first, *last;
    int64_t events, dropped;
} profiler = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The correlation id of this thread's last kernel launch (nccl_profiler_note_launch). */
static _Thread_local uint32_t last_launch_correlation_id;

static int64_t realtime_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static int64_t system_thread_id(void)
{
    return (int64_t)gettid();
}

static void free_chunks(struct event_chunk *chunk)
{
    while (chunk) {
        struct event_chunk *next = chunk->next;
        free(chunk);
        chunk = next;
    }
}

int nccl_profiler_start(const struct nccl_profiler_hooks *hooks)
{
    struct event_chunk *chunk = calloc(1, sizeof *chunk);
    if (!chunk)
        return -1;
    pthread_mutex_lock(&profiler.lock);
    free_chunks(profiler.first);
    profiler.first = profiler.last = chunk;
    profiler.events = profiler.dropped = 0;
    profiler.hooks.now_ns = hooks && hooks->now_ns ? hooks->now_ns : realtime_ns;
    profiler.hooks.thread_id = hooks && hooks->thread_id ? hooks->thread_id : system_thread_id;
    atomic_store(&profiler.inits, 0);
    atomic_store(&profiler.accepting, 1);
    pthread_mutex_unlock(&profiler.lock);
    return 0;
}

void nccl_profiler_note_launch(uint32_t correlation_id)
{
    last_launch_correlation_id = correlation_id;
}

void nccl_profiler_stop(void)
{
    atomic_store(&profiler.accepting, 0);
    pthread_mutex_lock(&profiler.lock);
    free_chunks(profiler.first);
    profiler.first = profiler.last = NULL;
    pthread_mutex_unlock(&profiler.lock);
}

void nccl_profiler_forget_after_fork(void)
{
    profiler.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    atomic_store(&profiler.accepting, 0);
    profiler.first = profiler.last = NULL;
    profiler.events = profiler.dropped = 0;
    last_launch_correlation_id = 0;
}

/* Appends under the lock; a new chunk (the only allocation) every EVENTS_PER_CHUNK events. */
static void log_event(struct logged_event *event)
{
    if (!atomic_load(&profiler.accepting))
        return;
    event->time_ns = profiler.hooks.now_ns();
    event->thread_id = profiler.hooks.thread_id();
    event->correlation_id = last_launch_correlation_id;
    pthread_mutex_lock(&profiler.lock);
    struct event_chunk *chunk = profiler.last;
    if (!chunk || !atomic_load(&profiler.accepting)) { /* stopped meanwhile */
        pthread_mutex_unlock(&profiler.lock);
        return;
    }
    if (profiler.events >= NCCL_PROFILER_MAX_EVENTS) {
        profiler.dropped++;
        pthread_mutex_unlock(&profiler.lock);
        return;
    }
    if (chunk->used == EVENTS_PER_CHUNK) {
        struct event_chunk *fresh = malloc(sizeof *fresh);
        if (!fresh) {
            profiler.dropped++;
            pthread_mutex_unlock(&profiler.lock);
            return;
        }
        fresh->next = NULL;
        fresh->used = 0;
        chunk->next = fresh;
        profiler.last = chunk = fresh;
    }
    chunk->events[chunk->used++] = *event;
    profiler.events++;
    pthread_mutex_unlock(&profiler.lock);
}

static void take_communicator(struct logged_event *event, const struct communicator *communicator)
{
    event->has_comm = communicator && communicator->has_hash;
    event->comm_hash = event->has_comm ? communicator->hash : 0;
    event->rank_count = communicator ? communicator->rank_count : UNKNOWN_RANKS;
}

static void log_collective(const struct communicator *communicator, int rank, uint64_t sequence_number,
                           const char *func, size_t count, int root, const char *datatype,
                           const char *algorithm, const char *protocol)
{
    struct logged_event event = {
        .sequence_number = sequence_number,
        .count = count,
        .root = root,
        .rank = rank,
        .op = op_index(func),
        .dtype = dtype_index(datatype),
        .algorithm = name_index(algorithm_names, sizeof algorithm_names / sizeof *algorithm_names, algorithm),
        .protocol = name_index(protocol_names, sizeof protocol_names / sizeof *protocol_names, protocol)};
    take_communicator(&event, communicator);
    log_event(&event);
}

static void log_p2p(const struct communicator *communicator, int rank, const char *func, size_t count,
                    const char *datatype)
{
    struct logged_event event = {.sequence_number = UNKNOWN_SEQUENCE,
                                 .count = count,
                                 .root = NO_ROOT,
                                 .rank = rank,
                                 .op = op_index(func),
                                 .dtype = dtype_index(datatype)};
    take_communicator(&event, communicator);
    log_event(&event);
}

/* --- the plugin entry points, as NCCL calls them --- */

/* Coll and P2p are all we need; NCCL also starts Group events as their parents. */
static int activation_mask(void)
{
    return atomic_load(&profiler.accepting) ? NCCL_ABI_PROFILE_COLL | NCCL_ABI_PROFILE_P2P : 0;
}

static nccl_abi_result new_communicator(void **context, int *mask, int has_hash, uint64_t hash,
                                        int rank_count)
{
    struct communicator *communicator = calloc(1, sizeof *communicator);
    *context = communicator;
    *mask = communicator ? activation_mask() : 0;
    if (communicator) {
        *communicator = (struct communicator){.hash = hash, .rank_count = rank_count, .has_hash = has_hash};
        atomic_fetch_add(&profiler.inits, 1);
    }
    return NCCL_ABI_SUCCESS; /* an error would make NCCL print a warning; no events is enough */
}

static nccl_abi_result init_v5(void **context, uint64_t comm_id, int *mask, const char *comm_name,
                               int node_count, int rank_count, int rank, nccl_abi_logger logger)
{
    (void)comm_name;
    (void)node_count;
    (void)rank;
    (void)logger;
    return new_communicator(context, mask, 1, comm_id, rank_count);
}

static nccl_abi_result init_v4(void **context, int *mask, const char *comm_name, uint64_t comm_hash,
                               int node_count, int rank_count, int rank, nccl_abi_logger logger)
{
    (void)comm_name;
    (void)node_count;
    (void)rank;
    (void)logger;
    return new_communicator(context, mask, 1, comm_hash, rank_count);
}

static nccl_abi_result init_v3(void **context, int *mask)
{
    return new_communicator(context, mask, 0, 0, UNKNOWN_RANKS);
}

/* v4 and v5 share the coll and p2p fields (v5 only appends). Handles stay NULL: everything is
 * read at start, nothing at stop. */
static void start_v4_fields(void *context, uint64_t type, int rank, const struct nccl_abi_coll_v4 *coll,
                            const struct nccl_abi_p2p_v4 *p2p)
{
    if (type == NCCL_ABI_PROFILE_COLL)
        log_collective(context, rank, coll->sequence_number, coll->func, coll->count, coll->root,
                       coll->datatype, coll->algorithm, coll->protocol);
    else if (type == NCCL_ABI_PROFILE_P2P)
        log_p2p(context, rank, p2p->func, p2p->count, p2p->datatype);
}

static nccl_abi_result start_v5(void *context, void **handle, struct nccl_abi_event_v5 *event)
{
    *handle = NULL;
    start_v4_fields(context, event->type, event->rank, &event->coll.fields, &event->p2p.fields);
    return NCCL_ABI_SUCCESS;
}

static nccl_abi_result start_v4(void *context, void **handle, struct nccl_abi_event_v4 *event)
{
    *handle = NULL;
    start_v4_fields(context, event->type, event->rank, &event->coll, &event->p2p);
    return NCCL_ABI_SUCCESS;
}

/* v3 names the communicator in each event; init did not. */
static nccl_abi_result start_v3(void *context, void **handle, struct nccl_abi_event_v3 *event)
{
    *handle = NULL;
    struct communicator communicator = {.rank_count = UNKNOWN_RANKS, .has_hash = 1};
    (void)context;
    if (event->type == NCCL_ABI_PROFILE_COLL) {
        communicator.hash = event->coll.comm_hash;
        log_collective(&communicator, event->rank, event->coll.sequence_number, event->coll.func,
                       event->coll.count, event->coll.root, event->coll.datatype, event->coll.algorithm,
                       event->coll.protocol);
    } else if (event->type == NCCL_ABI_PROFILE_P2P) {
        communicator.hash = event->p2p.comm_hash;
        log_p2p(&communicator, event->rank, event->p2p.func, event->p2p.count, event->p2p.datatype);
    }
    return NCCL_ABI_SUCCESS;
}

static nccl_abi_result stop_event(void *handle)
{
    (void)handle;
    return NCCL_ABI_SUCCESS;
}

static nccl_abi_result record_event_state(void *handle, int state, void *state_arguments)
{
    (void)handle;
    (void)state;
    (void)state_arguments;
    return NCCL_ABI_SUCCESS;
}

static nccl_abi_result finalize(void *context)
{
    free(context);
    return NCCL_ABI_SUCCESS;
}

/* The names NCCL looks up in the plugin library, newest first (NCCL src/plugin/profiler.cc). */
EXPORTED const struct nccl_abi_profiler_v5 ncclProfiler_v5 = {
    "overlapscope", init_v5, start_v5, stop_event, record_event_state, finalize};
EXPORTED const struct nccl_abi_profiler_v4 ncclProfiler_v4 = {
    "overlapscope", init_v4, start_v4, stop_event, record_event_state, finalize};
EXPORTED const struct nccl_abi_profiler_v3 ncclProfiler_v3 = {
    "overlapscope", init_v3, start_v3, stop_event, record_event_state, finalize};

/* --- writing: link each event to its kernel, then one collectives row each --- */

struct kernel_link {
    int64_t rowid, device_id, stream_id, start_ns, end_ns;
};

struct writer {
    store *trace;
    int64_t process_id;
    store_nccl_links *links; /* the store's link questions (queries_nccl.h) */
    struct nccl_profiler_counts counts;
    uint32_t cached_correlation_id; /* of the last lookup (0: none) */
    struct kernel_link cached;
    int cached_found;
};

/* 1 and fills link when correlation_id is an NCCL kernel's launch; 0 otherwise. */
static int find_nccl_kernel(struct writer *writer, uint32_t correlation_id, struct kernel_link *link)
{
    struct store_nccl_kernel kernel;
    int found = 0;
    if (store_nccl_kernel_of(writer->links, writer->process_id, correlation_id, &kernel)) {
        struct nccl_kernel_info info;
        found = nccl_kernel_name_parse(kernel.name, &info);
        *link = (struct kernel_link){.rowid = kernel.rowid,
                                     .device_id = kernel.device_id,
                                     .stream_id = kernel.stream_id,
                                     .start_ns = kernel.start_ns,
                                     .end_ns = kernel.end_ns};
    }
    return found;
}

static uint32_t launch_before(struct writer *writer, const struct logged_event *event)
{
    return (uint32_t)store_nccl_launch_before(writer->links, writer->process_id, event->thread_id,
                                              event->time_ns);
}

/* The collectives of one group share their launch: the last lookup by correlation id is kept. */
static int link_event(struct writer *writer, const struct logged_event *event, struct kernel_link *link)
{
    if (event->correlation_id != 0 && event->correlation_id == writer->cached_correlation_id) {
        *link = writer->cached;
        return writer->cached_found;
    }
    uint32_t correlation_id = event->correlation_id ? event->correlation_id : launch_before(writer, event);
    int found = correlation_id != 0 && find_nccl_kernel(writer, correlation_id, link);
    writer->cached_correlation_id = event->correlation_id;
    writer->cached = *link;
    writer->cached_found = found;
    return found;
}

static int replace_name_only_rows(struct writer *writer, int64_t kernel_rowid, error_info *err)
{
    return store_nccl_drop_name_only(writer->links, writer->process_id, kernel_rowid,
                                     &writer->counts.replaced, err);
}

static int write_event(struct writer *writer, const struct logged_event *event, error_info *err)
{
    struct kernel_link link = {.rowid = STORE_NULL,
                               .device_id = STORE_NULL,
                               .stream_id = STORE_NULL,
                               .start_ns = STORE_NULL,
                               .end_ns = STORE_NULL};
    int linked = link_event(writer, event, &link);
    if (!linked)
        link = (struct kernel_link){STORE_NULL, STORE_NULL, STORE_NULL, STORE_NULL, STORE_NULL};
    if (linked && replace_name_only_rows(writer, link.rowid, err) != 0)
        return -1;
    const char *op = op_names[event->op].trace;
    const struct dtype_name *dtype = &dtype_names[event->dtype];
    int has_root = strcmp(op, "Broadcast") == 0 || strcmp(op, "Reduce") == 0;
    char communicator[24];
    snprintf(communicator, sizeof communicator, "%016" PRIx64, event->comm_hash);
    struct store_collective row = {
        .process_id = writer->process_id,
        .device_id = link.device_id,
        .stream_id = link.stream_id,
        .op = op,
        .bytes = dtype->size_bytes ? (int64_t)event->count * dtype->size_bytes : STORE_NULL,
        .element_count = (int64_t)event->count,
        .dtype = dtype->trace,
        .root = has_root && event->root != NO_ROOT ? event->root : STORE_NULL,
        .algorithm = algorithm_names[event->algorithm],
        .protocol = protocol_names[event->protocol],
        .communicator = event->has_comm ? communicator : NULL,
        .rank = event->rank,
        .nranks = event->rank_count == UNKNOWN_RANKS ? STORE_NULL : event->rank_count,
        .sequence_number =
            event->sequence_number == UNKNOWN_SEQUENCE ? STORE_NULL : (int64_t)event->sequence_number,
        .kernel_rowid = link.rowid,
        .start_ns = link.start_ns,
        .end_ns = link.end_ns,
        .detail_source = STORE_DETAIL_NCCL_PROFILER,
    };
    if (store_insert_collective(writer->trace, &row, err) != 0)
        return -1;
    if (linked)
        writer->counts.linked++;
    else
        writer->counts.unlinked++;
    return store_maybe_commit(writer->trace, err);
}

static int insert_warning(store *trace, int64_t process_id, const char *code, const char *message,
                          error_info *err)
{
    struct store_warning row = {
        .process_id = process_id, .time_ns = STORE_NULL, .code = code, .message = message};
    return store_insert_warning(trace, &row, err);
}

/* Kernel-name rows and no plugin at all: say why the details are missing. */
static int warn_plugin_not_loaded(store *trace, int64_t process_id, error_info *err)
{
    int64_t name_only = store_collective_count(trace, process_id);
    if (name_only == 0)
        return 0;
    const char *chosen = getenv("NCCL_PROFILER_PLUGIN");
    const char *ours = getenv("CUDA_INJECTION64_PATH");
    char message[768];
    if (chosen && (!ours || strcmp(chosen, ours) != 0))
        snprintf(
            message, sizeof message,
            "NCCL_PROFILER_PLUGIN is set to '%s', so NCCL loads that profiler plugin and not overlapscope's:"
            " collectives have what kernel names say only (no bytes, count, communicator, sequence number)",
            chosen);
    else
        snprintf(
            message, sizeof message,
            "NCCL never loaded overlapscope's profiler plugin (NCCL older than 2.25, or NCCL_PROFILER_PLUGIN"
            " not passed on): collectives have what kernel names say only");
    return insert_warning(trace, process_id, "nccl-plugin-not-loaded", message, err);
}

static int warn_counts(store *trace, int64_t process_id, const struct nccl_profiler_counts *counts,
                       error_info *err)
{
    char message[512];
    if (counts->dropped > 0) {
        snprintf(message, sizeof message,
                 "%lld NCCL profiler events were not kept (more than %d in one process, or out of memory):"
                 " their collectives have kernel-name details only",
                 (long long)counts->dropped, NCCL_PROFILER_MAX_EVENTS);
        if (insert_warning(trace, process_id, "nccl-events-dropped", message, err) != 0)
            return -1;
    }
    if (counts->unlinked > 0) {
        snprintf(message, sizeof message,
                 "%lld of %lld NCCL collectives could not be linked to their kernel (CUDA graph replays or "
                 "launches"
                 " from NCCL's host-stream callback): stored with kernel_rowid NULL",
                 (long long)counts->unlinked, (long long)counts->events);
        if (insert_warning(trace, process_id, "nccl-unlinked", message, err) != 0)
            return -1;
    }
    return 0;
}

static int write_events(struct writer *writer, const struct event_chunk *chunks, error_info *err)
{
    /* The link queries need the kernels and api_calls indexes: build them now (idempotent). */
    if (store_finalize(writer->trace, err) != 0 || store_begin(writer->trace, err) != 0)
        return -1;
    writer->links = store_nccl_links_open(writer->trace, err);
    if (!writer->links)
        return -1;
    for (const struct event_chunk *chunk = chunks; chunk; chunk = chunk->next)
        for (size_t i = 0; i < chunk->used; i++)
            if (write_event(writer, &chunk->events[i], err) != 0)
                return -1;
    return 0;
}

int nccl_profiler_write(store *trace, int64_t process_id, struct nccl_profiler_counts *counts,
                        error_info *err)
{
    atomic_store(&profiler.accepting, 0);
    pthread_mutex_lock(&profiler.lock);
    struct event_chunk *chunks = profiler.first;
    profiler.first = profiler.last = NULL;
    struct writer writer = {.trace = trace, .process_id = process_id};
    writer.counts.events = profiler.events;
    writer.counts.dropped = profiler.dropped;
    pthread_mutex_unlock(&profiler.lock);
    int status = 0;
    if (writer.counts.events > 0)
        status = write_events(&writer, chunks, err);
    store_nccl_links_close(writer.links);
    free_chunks(chunks);
    if (status == 0 && store_begin(trace, err) == 0) {
        if (atomic_load(&profiler.inits) == 0)
            status = warn_plugin_not_loaded(trace, process_id, err);
        if (status == 0)
            status = warn_counts(trace, process_id, &writer.counts, err);
        if (store_commit(trace, err) != 0)
            status = -1;
    } else {
        status = -1;
    }
    if (counts)
        *counts = writer.counts;
    return status;
}
