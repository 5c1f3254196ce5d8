/* model.h: the what-if replay's model of one device (private to analyzer/whatif/): its operations,
 * the dependencies between them, the host calls that launched them, and what the modules share to
 * read it. load.c fills the operations and calls, graph.c the orders and edges, host_time.c where
 * the host's time goes; engine.c replays it, pipeline.c builds a split copy, predict.c drives them.
 * One owner: the struct replay whatif_device builds (replay_free); a split replay shares its host
 * side (replay_free_ops frees what it owns). */
#ifndef OVERLAPSCOPE_WHATIF_MODEL_H
#define OVERLAPSCOPE_WHATIF_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "store.h"

enum edge_kind { EDGE_EVENT = 0, EDGE_LEGACY = 1, EDGE_COMMUNICATOR = 2 };

/* Loaders return this apart from -1 (a read error): a trace whose host calls cannot be read is
 * analyzed without the replay, but memory running out fails the analysis. */
#define WHATIF_OUT_OF_MEMORY (-2)

/* A fix's bit in a set of fixes (an unsigned of FIX_BIT(fix) ors). */
#define FIX_BIT(fix) (1u << (fix))

/* An op's or a call's index, or a place in call_order, in the arrays a replay keeps per operation:
 * 32 bits, as ops stop at WHATIF_MAX_OPS and load_host_calls refuses 2^32 calls (8-byte indexes
 * cost 24 bytes per operation, issue 33). */
typedef uint32_t replay_index;
#define REPLAY_NO_CALL UINT32_MAX

/* 104 bytes: a replay holds one per operation of its device (up to WHATIF_MAX_OPS, so op, call
 * and stream indexes fit 32 bits; graph.c bounds the edges to match); 160 bytes of size_t, long
 * and int fields cost 32 bytes more per operation, and a copy of its launch's times and thread 16
 * more than the index of the launch (issue 33). */
struct replay_op {
    int64_t start_ns, duration_ns, correlation_id, stream_id;
    int64_t channel_id; /* STORE_NULL: no channel recorded */
    int64_t bytes;
    /* An HtoD copy on a stream that computes: the kernel time its stream ran since the stream's
     * copy before it (the previous step's compute), which a copy issued a step ahead on a side
     * stream runs under (load_copy_ahead); 0 none. */
    int64_t ahead_ns;
    double sm_share, tail_share; /* of the device's block slots: first wave, last wave */
    int64_t waves;
    replay_index call; /* its launch, into the replay's calls; REPLAY_NO_CALL when unknown */
    int32_t stream_previous, channel_previous; /* op indexes, -1 when none */
    uint32_t edge_first, edge_count;           /* into the replay's edges (by `to`) */
    /* Bit fields in 32 bits (8 bytes per operation otherwise): streams are fewer than ops. */
    uint32_t stream_index : 24;   /* into the replay's streams */
    uint32_t category : 5;        /* enum analysis_category */
    uint32_t on_copy_channel : 1; /* copy channels are numbered apart */
    uint32_t drained_start : 1;   /* host_time_mark_drained_starts */
    uint32_t pageable : 1;
};

struct edge {
    size_t from, to;
    enum edge_kind kind;
};

/* 32 bytes, one per host call of the process (up to WHATIF_MAX_OPS). */
struct host_call {
    int64_t start_ns, end_ns, correlation_id;
    /* Its thread's rank among the calls' threads, by id (load_host_calls): the replay only compares
     * and sorts threads, which ranks do as the ids would, in 4 bytes where an id took 8 (issue 33). */
    uint32_t thread_id;
    int32_t kind; /* CALL_* bits */
};

/* The removals every thread shares (the host's own work, host_time_work_removals): at each launch
 * a stretch ended before, the sum of those up to it. */
struct shared_removal {
    int64_t at, removed_ns;
};

struct replay {
    struct replay_op *ops;
    size_t op_count, op_capacity;
    struct edge *edges;
    size_t edge_count, edge_capacity;
    struct host_call *calls; /* by correlation id */
    size_t call_count;
    size_t stream_count;
    int64_t pinned_bytes_per_s[ANALYSIS_CATEGORY_COUNT]; /* fastest pinned copy per direction, 0 unknown */
    replay_index *stream_ops;   /* op indexes grouped by stream, each stream in start order */
    size_t *stream_first;       /* stream_count + 1 offsets into stream_ops */
    int *stream_legacy;         /* per stream: 1 legacy default, 2 synchronizes with it, 0 neither */
    replay_index *launch_order; /* op indexes by correlation id (launch order): the same for every fix */
    replay_index *call_order;   /* call indexes by (thread, end): the order a fix's removals are kept in */
    /* Where the host time a fix removes is read (host_time_positions): per op with a launch, 1 +
     * the place in call_order of its thread's last call that ended by the launch (0: none). The
     * same for every fix: a replay reads its removed time there, not by a search per op (a kept
     * sync's, for its start and its end, are found with it: engine_state.h). */
    replay_index *op_removed_at;
    /* The host-work fix's removals (host_time_work_removals), shared by the split replay. */
    struct shared_removal *host_removed;
    size_t host_removed_count;
    /* The first launch of the ops replayed: host time a fix removes before it moves every later
     * launch alike and is not counted (host_time_first_launch). */
    int64_t first_launch_ns;
    /* Per call: the host's time after it that a CUDA graph removes as well (host_time_graph_gaps),
     * NULL none; of it, the host work the host-work fix removes too (not removed twice when both
     * are made; NULL when no gap can hold any). */
    int64_t *graph_gap_ns, *graph_gap_work_ns;
    /* Per call: the time its library wrapper (store/framework_calls.h: torch.cuda.synchronize
     * around cudaDeviceSynchronize) took beyond the call itself, which removing the sync removes as
     * well (load_host_calls); NULL when the trace timed no wrapper of this process's calls. */
    int64_t *wrapper_ns;
    /* A launch call's normal latency, what a blocked launch takes once CUDA_LAUNCH_BLOCKING is
     * unset (launch_blocking_mark). */
    int64_t launch_reference_ns;
};

/* CALL_MAY_SYNC: an allocation or free, which synchronizes the device on most drivers, not all
 * (load_keep_allocations_that_waited). */
enum {
    CALL_SYNC = 1,
    CALL_LAUNCH = 2,
    CALL_ASYNC_COPY = 4,
    CALL_MAY_SYNC = 8,
    CALL_ASYNC_MEMSET = 16,
    CALL_PAGEABLE = 32,      /* a copy to or from pageable memory: no graph captures it */
    CALL_BLOCKED_LAUNCH = 64 /* a launch that returned only after its kernel ended (launch_blocking.h) */
};

/* Makes room for one more item of `size` bytes in *items (count used of *capacity), doubling.
 * Returns 0, or -1 when out of memory (*items untouched). */
int replay_grow(void **items, size_t *capacity, size_t count, size_t size);

/* qsort/bsearch order of host calls: by correlation id. */
int replay_by_correlation(const void *a, const void *b);

/* The host call of correlation_id (replay->calls is sorted by it), NULL when none. */
const struct host_call *replay_call_of(const struct replay *replay, int64_t correlation_id);

/* The call that launched op (replay_call_of its correlation id when loaded), NULL when unknown;
 * its launch's start and end, and its thread (host_time_join_timelines gives the threads of one
 * timeline one id), STORE_NULL when unknown. */
static inline const struct host_call *replay_launch_of(const struct replay *replay,
                                                       const struct replay_op *op)
{
    return op->call == REPLAY_NO_CALL ? NULL : &replay->calls[op->call];
}
static inline int64_t replay_launch_ns(const struct replay *replay, const struct replay_op *op)
{
    return op->call == REPLAY_NO_CALL ? STORE_NULL : replay->calls[op->call].start_ns;
}
static inline int64_t replay_launch_end_ns(const struct replay *replay, const struct replay_op *op)
{
    return op->call == REPLAY_NO_CALL ? STORE_NULL : replay->calls[op->call].end_ns;
}
static inline int64_t replay_thread_of(const struct replay *replay, const struct replay_op *op)
{
    return op->call == REPLAY_NO_CALL ? STORE_NULL : replay->calls[op->call].thread_id;
}

/* How many ops of `order` (op indexes in launch order) were launched before correlation_id. */
size_t replay_launched_before(const struct replay *replay, const replay_index *order, int64_t correlation_id);

/* Frees what a replay of ops owns; its host side (calls and where the fixes remove their time) is
 * replay_free's, shared by the split replay (pipeline_split_streams). */
void replay_free_ops(struct replay *replay);

/* Frees everything the replay owns. */
void replay_free(struct replay *replay);

#endif
