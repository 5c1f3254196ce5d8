/* engine.c: the what-if replay's discrete-event engine (engine.h). The recorded operations start in
 * their streams' order from their ready times (host_time.c), behind the edges the fixes keep
 * (graph.c), their hardware queue's predecessor, one copy engine per direction and the SMs a
 * kernel's first or last wave holds. Events (ends, tails, launches, gates that open) come from two
 * 4-ary min-heaps; each stream's head has a gate computed again only after a start that can change
 * it, heads the resources hold back wait apart, and one stream left alone is replayed without
 * events (run_alone). */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_state.h"
#include "host_time.h"
#include "store.h"

struct replay_scratch *engine_scratch_new(void)
{
    return calloc(1, sizeof(struct replay_scratch));
}

void engine_scratch_free(struct replay_scratch *scratch)
{
    if (!scratch)
        return;
    for (int slot = 0; slot < SCRATCH_COUNT; slot++)
        free(scratch->slots[slot]);
    free(scratch->heap_items[0]);
    free(scratch->heap_items[1]);
    free(scratch);
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

static int64_t tail_begin(const struct run_state *state, size_t i)
{
    const struct replay_op *op = &state->replay->ops[i];
    int64_t duration = engine_duration(state, i);
    int64_t wave = op->waves > 1 ? duration / op->waves : duration;
    return engine_end(state, i) - wave / 2;
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
    return op < 0 || (state->start[op] != UNSET && engine_end(state, (size_t)op) <= now);
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
        if (state->start[op->stream_previous] == UNSET)
            return *blocker = (size_t)op->stream_previous, GATE_BLOCKED;
        if (engine_end(state, (size_t)op->stream_previous) > gate)
            gate = engine_end(state, (size_t)op->stream_previous);
    }
    if (channel_kept(state) && op->channel_previous >= 0 && state->start[op->channel_previous] == UNSET)
        return *blocker = (size_t)op->channel_previous, GATE_BLOCKED;
    for (size_t e = op->edge_first; e < op->edge_first + op->edge_count; e++) {
        const struct edge *edge = &state->replay->edges[e];
        if (!edge_kept(state, edge))
            continue;
        if (state->start[edge->from] == UNSET)
            return *blocker = edge->from, GATE_BLOCKED;
        if (engine_end(state, edge->from) > gate)
            gate = engine_end(state, edge->from);
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

static void wait_for(struct run_state *state, size_t s, size_t blocker)
{
    long first = state->waiters[blocker];
    state->wait_previous[s] = -1;
    state->wait_next[s] = first;
    if (first >= 0)
        state->wait_previous[first] = (long)s;
    state->waiters[blocker] = (int32_t)s;
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
        state->waiters[state->blocker[s]] = (int32_t)next;
    if (next >= 0)
        state->wait_previous[next] = previous;
}

/* Op i started: the streams it blocked get their gates computed again. */
static void wake_waiters(struct run_state *state, size_t i)
{
    for (long s = state->waiters[i]; s >= 0; s = state->wait_next[s]) {
        state->waiting[s] = 0;
        engine_watch(state, (size_t)s);
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
        long i = engine_head_op(state, s);
        state->gate_kind[s] =
            i < 0 ? GATE_DONE : (unsigned char)head_gate(state, (size_t)i, &state->gate[s], blocker);
        if (i >= 0)
            state->heads[s] =
                (struct head){(size_t)i, s, state->replay->ops[i].category, state->replay->ops[i].sm_share};
        int unknown = state->gate_kind[s] == GATE_BLOCKED ||
                      (state->gate_kind[s] == GATE_AT && state->gate[s] == INT64_MAX);
        if (state->gate_kind[s] == GATE_AT && !unknown && state->gate[s] > now) /* else looked at now */
            state->out_of_memory |=
                engine_push_moment(&state->gates, (struct moment){state->gate[s], (size_t)i, s, 0}) != 0;
        state->refreshed[state->refreshed_count++] = s;
        if (state->gate_kind[s] == GATE_BLOCKED)
            wait_for(state, s, *blocker);
        /* an unknown ready time: engine_note_ready watches the stream when the sync that holds it resolves */
    }
    state->watch_count = 0;
}

/* Fills ready for the fixes: the host side from host_time.c (engine_duration the durations).
 * Returns 0 or -1 when out of memory. */
static int prepare_inputs(struct run_state *state)
{
    const struct replay *replay = state->replay;
    if (host_time_prepare(state) != 0)
        return -1;
    for (size_t i = 0; i < replay->op_count; i++) {
        const struct replay_op *op = &replay->ops[i];
        /* no launch known: not earlier than recorded */
        state->ready[i] =
            replay_launch_ns(state->replay, op) == STORE_NULL ? op->start_ns : host_time_ready_ns(state, i);
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
    __builtin_prefetch(&state->start[i], 1);
}

/* A kernel, not a copy or a memset: what runs side by side with another at its alone speed. */
static int is_kernel(enum analysis_category category)
{
    return category == ANALYSIS_COMPUTE || category == ANALYSIS_COMMUNICATION;
}

/* Makes room for one more running op (the RUNNING slot, its contents kept). Returns 0 or -1 when
 * out of memory. */
static int grow_running(struct run_state *state)
{
    if (state->running_count < state->running_capacity)
        return 0;
    struct replay_scratch *scratch = state->scratch;
    size_t capacity = state->running_capacity * 2;
    struct running_op *grown = realloc(state->running, capacity * sizeof *grown);
    if (!grown)
        return -1;
    scratch->slots[SCRATCH_RUNNING] = state->running = grown;
    scratch->sizes[SCRATCH_RUNNING] = capacity * sizeof *grown;
    state->running_capacity = capacity;
    return 0;
}

static void start_op(struct run_state *state, size_t i, int64_t now)
{
    size_t stream = state->replay->ops[i].stream_index;
    state->start[i] = now;
    /* Its end and tail go to the running list and the moments, not to arrays per op (issue 33). */
    int64_t end = now + engine_duration(state, i), tail = tail_begin(state, i);
    const struct replay_op *op = &state->replay->ops[i];
    if (grow_running(state) != 0) {
        state->out_of_memory = 1; /* the replay fails; its ops are still counted started */
    } else {
        state->running[state->running_count++] =
            (struct running_op){i, op->category, op->sm_share, op->tail_share, end, tail};
        state->running_kernels += is_kernel(op->category);
    }
    state->head[stream]++;
    prefetch_head_after(state, stream);
    state->out_of_memory |= engine_push_moment(&state->moments, (struct moment){end, i, 0, 0}) != 0;
    /* The tail changes the occupancy of a kernel with an SM share only; the time of another's (a
     * copy's), with the end still to come at or after it, would be an event where nothing can
     * start that did not start before it. */
    if (op->sm_share > 0 && tail != end)
        state->out_of_memory |= engine_push_moment(&state->moments, (struct moment){tail, i, 0, 0}) != 0;
    long next = engine_head_op(state, stream);
    state->streams_left -= next < 0;
    if (next >= 0 && state->ready[next] > now && state->ready[next] != INT64_MAX) /* its launch to come */
        state->out_of_memory |=
            engine_push_moment(&state->moments, (struct moment){state->ready[next], (size_t)next, 0, 1}) != 0;
    state->gate_kind[stream] = GATE_STALE;
    engine_watch(state, stream);
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
        if (state->running_count > 0)
            occupy(&state->running[state->running_count - 1], now, &occupancy);
        host_time_resolve_syncs(state);
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
 * (graph_link_by). */
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
    while (engine_head_op(state, s) < 0)
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
            state->alone_ok = engine_duration(state, i) > 0 && !waits_on_later(state, i, s);
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
        state->head[s]++;
        host_time_resolve_syncs(state);
        at = engine_end(state, i);
    }
    state->streams_left = 0;
    return 1;
}

/* Takes the run's buffers (RUN_BUFFERS) from the scratch. Returns 0 or -1 when out of memory. */
static int take_buffers(struct run_state *state)
{
    const struct replay *replay = state->replay;
    const size_t items[] = {[PER_OP] = replay->op_count,
                            [PER_STREAM] = replay->stream_count,
                            [PER_STREAM_AND_ONE] = replay->stream_count + 1};
#define TAKE(slot, field, per, how)                                                                          \
    if (!(state->field =                                                                                     \
              engine_scratch_##how(state->scratch, SCRATCH_##slot, items[per] * sizeof *state->field)))      \
        return -1;
    RUN_BUFFERS(TAKE)
#undef TAKE
    state->running_capacity = state->scratch->sizes[SCRATCH_RUNNING] / sizeof *state->running;
    return 0;
}

/* Replays with the fixes; returns the span (first start to last end), or -1 when out of memory;
 * *together gets the time two or more kernels ran at once in it (each at its
 * alone speed: what a fix that puts kernels side by side may overstate). */
int64_t engine_replay_span(const struct replay *replay, unsigned fixes, struct replay_scratch *scratch,
                           int64_t *together)
{
    *together = 0;
    size_t n = replay->op_count;
    struct run_state state = {.replay = replay, .scratch = scratch, .fixes = fixes};
    state.moments = (struct moments){.items = scratch->heap_items[0], .capacity = scratch->heap_capacity[0]};
    state.gates = (struct moments){.items = scratch->heap_items[1], .capacity = scratch->heap_capacity[1]};
    state.held_smallest_share = 2.0;
    state.gates_stale = 1;
    for (size_t s = 0; s < replay->stream_count; s++)
        state.streams_left += replay->stream_first[s + 1] > replay->stream_first[s];
    state.alone_ok = -1;
    int64_t span = -1;
    if (take_buffers(&state) != 0 || prepare_inputs(&state) != 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        state.start[i] = UNSET;
        state.waiters[i] = -1;
    }
    for (size_t s = 0; s < replay->stream_count; s++) {
        state.head[s] = replay->stream_first[s];
        state.watch[state.watch_count++] = s; /* every gate is still to compute */
        state.in_watch[s] = 1;
    }
    host_time_resolve_syncs(&state); /* syncs before any launch */
    for (size_t s = 0; s < replay->stream_count; s++)
        if (engine_head_op(&state, s) >= 0)
            engine_note_ready(&state, (size_t)engine_head_op(&state, s));
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
                long i = engine_head_op(&state, s);
                if (i >= 0 && ended_by(&state, replay->ops[i].stream_previous, now) &&
                    (forced < 0 || i < forced))
                    forced = i;
            }
            if (forced < 0)
                break;
            start_op(&state, (size_t)forced, now);
            host_time_resolve_syncs(&state);
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
        if (engine_end(&state, i) > last)
            last = engine_end(&state, i);
    }
    span = last > first ? last - first : 0;
done:
    scratch->heap_items[0] = state.moments.items; /* grown by the replay, kept for the next */
    scratch->heap_capacity[0] = state.moments.capacity;
    scratch->heap_items[1] = state.gates.items;
    scratch->heap_capacity[1] = state.gates.capacity;
    return span;
}
