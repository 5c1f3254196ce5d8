/* engine_state.h: the state of one replay of the what-if model (engine.c's event loop, and the
 * host's side of it in host_time.c: the kept syncs, when each launch happens in replay time), and
 * the primitives both call on it (the scratch buffers in engine_state.c; the moments heap, the
 * watch list and the ready notes inline). Private to analyzer/whatif/engine.c, host_time.c and
 * engine_state.c. */
#ifndef OVERLAPSCOPE_WHATIF_ENGINE_STATE_H
#define OVERLAPSCOPE_WHATIF_ENGINE_STATE_H

#include <stdlib.h>

#include "model.h"

/* A time not reached yet: an op not started (start, end). */
#define UNSET INT64_MIN

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
    /* Where the host time the fixes removed by its start and by its end is read (host_time.c's
     * removed_place): found per kept sync, not held per call (8 bytes per operation, issue 33). */
    replay_index start_place, end_place;
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
 * with the device's replays (engine_scratch_free). A row per buffer the replay takes at its start
 * (RUN_BUFFERS: slot, run_state field, items per op or per stream, zeroed or not) and per buffer
 * the host side takes where it fills it (HOST_BUFFERS, host_time.c). */
enum { PER_OP, PER_STREAM, PER_STREAM_AND_ONE };
#define RUN_BUFFERS(X)                                                                                       \
    X(READY, ready, PER_OP, take)                                                                            \
    X(START, start, PER_OP, take)                                                                            \
    X(RUNNING, running, PER_STREAM_AND_ONE, take)                                                            \
    X(HEAD, head, PER_STREAM, take)                                                                          \
    X(GATE, gate, PER_STREAM, take)                                                                          \
    X(HEADS, heads, PER_STREAM, take)                                                                        \
    X(HELD_FLAG, held_flag, PER_STREAM_AND_ONE, zeroed)                                                      \
    X(HELD, held, PER_STREAM_AND_ONE, take)                                                                  \
    X(HELD_PLACE, held_place, PER_STREAM_AND_ONE, take)                                                      \
    X(LISTED, listed, PER_STREAM_AND_ONE, zeroed)                                                            \
    X(WATCH, watch, PER_STREAM_AND_ONE, take)                                                                \
    X(REFRESHED, refreshed, PER_STREAM_AND_ONE, take)                                                        \
    X(CANDIDATES, candidates, PER_STREAM_AND_ONE, take)                                                      \
    X(NEXT_CANDIDATES, next_candidates, PER_STREAM_AND_ONE, take)                                            \
    X(IN_WATCH, in_watch, PER_STREAM_AND_ONE, zeroed)                                                        \
    X(BLOCKER, blocker, PER_STREAM_AND_ONE, take)                                                            \
    X(WAITERS, waiters, PER_OP, take)                                                                        \
    X(WAIT_NEXT, wait_next, PER_STREAM_AND_ONE, take)                                                        \
    X(WAIT_PREVIOUS, wait_previous, PER_STREAM_AND_ONE, take)                                                \
    X(WAITING, waiting, PER_STREAM_AND_ONE, zeroed)                                                          \
    X(SEEN, seen, PER_STREAM_AND_ONE, zeroed)                                                                \
    X(GATE_KIND, gate_kind, PER_STREAM_AND_ONE, zeroed) /* zeroed: GATE_STALE */
#define HOST_BUFFERS(X)                                                                                      \
    X(PAGEABLE_CALL)                                                                                         \
    X(REMOVALS)                                                                                              \
    X(SEGMENT)                                                                                               \
    X(LAUNCHED_END)                                                                                          \
    X(SYNCS)                                                                                                 \
    X(THREAD_NEXT)                                                                                           \
    X(THREAD_END)                                                                                            \
    X(SEGMENT_FIRST)                                                                                         \
    X(SEGMENT_OPS)

#define RUN_SLOT(slot, field, per, how) SCRATCH_##slot,
#define HOST_SLOT(slot) SCRATCH_##slot,
enum scratch_slot { RUN_BUFFERS(RUN_SLOT) HOST_BUFFERS(HOST_SLOT) SCRATCH_COUNT };
#undef RUN_SLOT
#undef HOST_SLOT

struct replay_scratch {
    void *slots[SCRATCH_COUNT];
    size_t sizes[SCRATCH_COUNT];
    struct moment *heap_items[2]; /* the moments' and the gates' heaps */
    size_t heap_capacity[2];
    /* The replay whose kept syncs and segments (host_time.c) the slots hold, NULL
     * when none: every fix but the removed host sync (and pinning) keeps the same syncs, so a device's
     * replays find them once, not once per fix. */
    const struct replay *syncs_of;
    unsigned syncs_pinned; /* the pin fix's bit of the replay they were found for: it keeps fewer */
    size_t sync_count, thread_count;
};

struct run_state {
    const struct replay *replay;
    struct replay_scratch *scratch;
    unsigned fixes;
    /* Per op; its end is start + duration (engine_end), its duration worked out where read
     * (engine_duration): 8 bytes of each op not stored for either (issue 33). */
    int64_t *ready, *start;
    size_t *head; /* per stream: position in stream_ops of the next op to start */
    /* In start order; sized for one op per stream and grown (grow_running): ops that take no time
     * may stay listed beside their stream's next until the loop drops them. A slot per op was 48
     * bytes per operation (issue 33). */
    struct running_op *running;
    size_t running_count, running_capacity;
    size_t running_kernels; /* of the running ops, the kernels (is_kernel): two run side by side */
    /* Host time the fixes give back (prefix sums per thread), and the synchronizing calls they
     * keep: a kept sync returns when the work launched before it ends in the replay. */
    int64_t *removed; /* per place p in call_order: the thread's removed time up to p - 1 (0: none) */
    const struct shared_removal *shared; /* removed from every thread (the host's work), by time */
    size_t shared_count;
    struct sync_point *syncs;
    size_t sync_count;
    /* Per-op arrays of 32-bit indexes (ops under WHATIF_MAX_OPS, kept syncs under INT32_MAX): the
     * replay's scratch is per operation, 8-byte indexes cost 12 bytes more of each (issue 33). */
    int32_t *segment; /* per op: the kept sync its launch came after on its thread, -1 none */
    /* The ops of each kept sync's segment (segment_ops[segment_first[k]..segment_first[k+1]]), and
     * per thread the next sync to resolve (syncs of a thread resolve in order): resolving costs the
     * threads and the segment's own ops, not every sync and op at every start. */
    uint32_t *segment_ops;
    size_t *segment_first;
    size_t *thread_next, *thread_end;
    size_t thread_count;
    const replay_index *by_correlation; /* op indexes in launch order (the replay's launch_order) */
    int64_t *launched_end;              /* per position in by_correlation: latest replayed end up to it */
    size_t started_prefix;              /* ops of by_correlation started, from the first */
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
    int32_t *waiters; /* per op */
    long *wait_next, *wait_previous;
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

/* The slot's buffer, at least bytes long (contents undefined), or NULL when out of memory. */
void *engine_scratch_take(struct replay_scratch *scratch, enum scratch_slot slot, size_t bytes);

/* engine_scratch_take, zeroed. */
void *engine_scratch_zeroed(struct replay_scratch *scratch, enum scratch_slot slot, size_t bytes);

/* How long op i runs with the fixes: as recorded, a pinned copy at the pinned speed, a copy issued
 * ahead less the compute it runs under. */
static inline int64_t engine_duration(const struct run_state *state, size_t i)
{
    const struct replay *replay = state->replay;
    const struct replay_op *op = &replay->ops[i];
    int64_t duration = op->duration_ns;
    int64_t speed = replay->pinned_bytes_per_s[op->category];
    if ((state->fixes & FIX_BIT(ANALYSIS_FIX_PIN_HOST_BUFFER)) && op->pageable && speed > 0 &&
        op->bytes > 0) {
        int64_t pinned = (int64_t)((double)op->bytes * 1e9 / (double)speed);
        if (pinned < duration)
            duration = pinned;
    }
    /* issued a step ahead on a side stream: only what the previous step's compute cannot hide */
    if ((state->fixes & FIX_BIT(ANALYSIS_FIX_COPY_AHEAD)) && op->ahead_ns > 0)
        duration = duration > op->ahead_ns ? duration - op->ahead_ns : 0;
    return duration;
}

/* When started op i ends in the replay (UNSET: not started). */
static inline int64_t engine_end(const struct run_state *state, size_t i)
{
    return state->start[i] == UNSET ? UNSET : state->start[i] + engine_duration(state, i);
}

/* What head_gate found of a stream's head (run_state.gate_kind). */
enum { GATE_STALE = 0, GATE_AT = 1, GATE_BLOCKED = 2, GATE_DONE = 3 };

/* The primitives both sides of a replay call at every event, inline here so that neither side
 * depends on the other's file: the engine's event loop (engine.c) calls the host side
 * (host_time.c), which hands each launch it times back through engine_note_ready. */

/* The moments' heaps are 4-ary: half as deep, for a few more comparisons per level on one or two
 * cache lines. Only their least time is ever read (next_event: the least one that still counts;
 * heads_to_look_at: all by `now`), so ties may come out in any order. */
#define HEAP_ARITY 4

/* Adds moment to heap. Returns 0, or -1 when out of memory. */
static inline int engine_push_moment(struct moments *heap, struct moment moment)
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

/* The op at stream's head (the next to start), -1 when the stream is done. */
static inline long engine_head_op(const struct run_state *state, size_t stream)
{
    size_t position = state->head[stream];
    return position < state->replay->stream_first[stream + 1] ? (long)state->replay->stream_ops[position]
                                                              : -1;
}

/* Marks stream s's gate to be computed again at the next refresh_gates. */
static inline void engine_watch(struct run_state *state, size_t s)
{
    state->gates_stale = 1;
    if (!state->in_watch[s]) {
        state->in_watch[s] = 1;
        state->watch[state->watch_count++] = s;
    }
}

/* Op i's ready time is known (host_time.c set it): a moment when i is its stream's head (a later
 * head's is pushed when it becomes the head), and its gate, unknown until now, is computed again. */
static inline void engine_note_ready(struct run_state *state, size_t i)
{
    size_t s = state->replay->ops[i].stream_index;
    if (state->ready[i] == INT64_MAX || engine_head_op(state, s) != (long)i)
        return;
    state->out_of_memory |=
        engine_push_moment(&state->moments, (struct moment){state->ready[i], i, 0, 1}) != 0;
    if (state->gate_kind[s] == GATE_AT && state->gate[s] == INT64_MAX)
        engine_watch(state, s);
}

#endif
