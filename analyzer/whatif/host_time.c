/* host_time.c: the host's time in the what-if replay (host_time.h), in one place: what each fix
 * removes from the host (a removed sync's wait, a CUDA graph's launches and the framework's time
 * between them, a pinned copy's staging, the host's own work cut from every thread), kept per
 * thread as prefix sums in call order and by time for the removals every thread shares; and how
 * the removals and the synchronizing calls the fixes keep move each launch on the replay's clock
 * (a kept sync returns when the work launched before it ends in the replay, and its thread's later
 * launches follow it). */
#include <stdlib.h>

#include "engine_state.h"
#include "explain.h"
#include "graph.h"
#include "host_time.h"
#include "launch_blocking.h"
#include "store.h"

/* A removed host call still costs the host this long: a launch reaching the driver. */
#define WHATIF_CALL_FLOOR_NS 5000

static int by_removal_time(const void *a, const void *b)
{
    const struct shared_removal *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

static int64_t removed_call_ns(const struct replay *replay, const struct host_call *call, unsigned fixes,
                               const unsigned char *pageable_call)
{
    int64_t duration = call->end_ns - call->start_ns;
    if (call->end_ns <= replay->first_launch_ns)
        return 0;
    int graph = (fixes & FIX_BIT(ANALYSIS_FIX_CUDA_GRAPH)) != 0;
    /* the host's time after a captured call, the call's own time by what each fix removes */
    int64_t removed = graph && replay->graph_gap_ns ? replay->graph_gap_ns[call - replay->calls] : 0;
    if (removed > 0 && (fixes & FIX_BIT(ANALYSIS_FIX_HOST_WORK)) && replay->graph_gap_work_ns)
        removed -= replay->graph_gap_work_ns[call - replay->calls];
    if ((fixes & FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC)) && (call->kind & CALL_SYNC))
        return removed + duration + (replay->wrapper_ns ? replay->wrapper_ns[call - replay->calls] : 0);
    if (graph && (call->kind & CALL_LAUNCH))
        return removed + duration;
    if (fixes & FIX_BIT(ANALYSIS_FIX_UNSET_LAUNCH_BLOCKING))
        removed += launch_blocking_removed_ns(replay, call);
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
 * (the launch's or the call's, host_time_positions) and everyone's by `at`. */
static int64_t removed_at(const struct run_state *state, size_t place, int64_t at)
{
    return state->removed[place] + shared_removed_by(state->shared, state->shared_count, at);
}

/* When the host made op available: its launch call's return (a call that returned after the op
 * started, a synchronous copy, made it available when it started). */
static int64_t ready_host_ns(const struct replay *replay, const struct replay_op *op)
{
    int64_t launch_end_ns = replay_launch_end_ns(replay, op);
    return launch_end_ns < op->start_ns ? launch_end_ns : op->start_ns;
}

/* When the host made op available, after a kept sync: as ready_host_ns, but an op the sync left a
 * drained device to (host_time_mark_drained_starts) no sooner than its recorded start. */
static int64_t after_sync_ready_ns(const struct replay *replay, const struct replay_op *op)
{
    return op->drained_start ? op->start_ns : ready_host_ns(replay, op);
}

/* Replay time of host time `at` on a thread whose last kept sync before it is `sync` (-1: none,
 * else a sync of the same thread), less `removed`: the host time the fixes removed from the
 * thread's calls that ended by the time the shift is taken at (state->removed at its place). */
static int64_t replayed_host_ns(const struct run_state *state, long sync, int64_t at, int64_t removed)
{
    if (sync < 0)
        return at - removed;
    const struct sync_point *point = &state->syncs[sync];
    return point->replay_end_ns + (at - point->end_ns) - (removed - point->removed_by_end_ns);
}

/* When op i (launched) is ready in the replay: the host made it available (ready_host_ns, or
 * after_sync_ready_ns behind the kept sync `sync` of its thread, -1 none) less the host time the
 * fixes removed from its thread by its launch. The one place a launch's replayed time is taken:
 * at the replay's start for launches no kept sync holds, when their sync resolves for the others. */
static int64_t launch_ready_ns(const struct run_state *state, long sync, size_t i)
{
    const struct replay *replay = state->replay;
    const struct replay_op *op = &replay->ops[i];
    return replayed_host_ns(state, sync,
                            sync < 0 ? ready_host_ns(replay, op) : after_sync_ready_ns(replay, op),
                            removed_at(state, replay->op_removed_at[i], replay_launch_ns(replay, op)));
}

static int by_sync_time(const void *a, const void *b)
{
    const struct sync_point *x = a, *y = b;
    if (x->thread_id != y->thread_id)
        return x->thread_id < y->thread_id ? -1 : 1;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* Whether the fixes keep call as a synchronizing call the replay waits in. */
static int keeps_sync(const struct run_state *state, const struct host_call *call)
{
    if (!(call->kind & CALL_SYNC) || (state->fixes & FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC)))
        return 0;
    /* A read-back into pinned memory is asynchronous: the host no longer waits in it. */
    return !((call->kind & CALL_PAGEABLE) && (state->fixes & FIX_BIT(ANALYSIS_FIX_PIN_HOST_BUFFER)));
}

/* The latest recorded end of the ops order[0, low) (ops by correlation id), from recorded_end, that
 * of order[0, *swept), sweeping on: a sweep over calls by correlation id reads each op once. */
static int64_t recorded_end_by(const struct replay *replay, const replay_index *order, size_t low,
                               size_t *swept, int64_t recorded_end)
{
    for (; *swept < low; ++*swept) {
        const struct replay_op *op = &replay->ops[order[*swept]];
        int64_t end = op->start_ns + op->duration_ns;
        recorded_end = *swept > 0 && recorded_end > end ? recorded_end : end;
    }
    return recorded_end;
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

/* The kept synchronizing calls of the threads that launched this device's work. Sized by the kept
 * syncs, not the calls (a slot per call was 80 bytes per operation of a launch-bound trace, issue
 * 33); the recorded end of the work launched before each is a running maximum over launch order,
 * read in one sweep: the calls are by correlation id, so their barriers only grow. */
static int collect_syncs(struct run_state *state)
{
    const struct replay *replay = state->replay;
    size_t kept = 0;
    for (size_t c = 0; c < replay->call_count; c++)
        kept += keeps_sync(state, &replay->calls[c]);
    if (kept >= INT32_MAX) /* segment's index: memory runs out long before */
        return -1;
    state->syncs = engine_scratch_take(state->scratch, SCRATCH_SYNCS, (kept + 1) * sizeof *state->syncs);
    if (!state->syncs)
        return -1;
    size_t swept = 0;         /* ops of by_correlation whose recorded ends are in recorded_end */
    int64_t recorded_end = 0; /* the latest recorded end of them */
    for (size_t c = 0; c < replay->call_count; c++) {
        const struct host_call *call = &replay->calls[c];
        if (!keeps_sync(state, call))
            continue;
        size_t low = replay_launched_before(replay, state->by_correlation, call->correlation_id);
        recorded_end = recorded_end_by(replay, state->by_correlation, low, &swept, recorded_end);
        int64_t waited_until = low > 0 && recorded_end > call->start_ns ? recorded_end : call->start_ns;
        int64_t own = call->end_ns - waited_until;
        state->syncs[state->sync_count++] = (struct sync_point){.thread_id = call->thread_id,
                                                                .start_ns = call->start_ns,
                                                                .end_ns = call->end_ns,
                                                                .barrier = low,
                                                                .own_ns = own > 0 ? own : 0,
                                                                .previous = -1,
                                                                .call = c};
        struct sync_point *point = &state->syncs[state->sync_count - 1];
        point->start_place = (replay_index)removed_place(replay, call->thread_id, call->start_ns);
        point->end_place = (replay_index)removed_place(replay, call->thread_id, call->end_ns);
    }
    qsort(state->syncs, state->sync_count, sizeof *state->syncs, by_sync_time);
    state->thread_next = engine_scratch_take(state->scratch, SCRATCH_THREAD_NEXT,
                                             (state->sync_count + 1) * sizeof *state->thread_next);
    state->thread_end = engine_scratch_take(state->scratch, SCRATCH_THREAD_END,
                                            (state->sync_count + 1) * sizeof *state->thread_end);
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
        point->removed_by_end_ns = removed_at(state, point->end_place, point->end_ns);
    }
    for (size_t t = 0; t < state->thread_count; t++)
        state->thread_next[t] = t > 0 ? state->thread_end[t - 1] : 0; /* a thread's syncs lie together */
}

/* The kept sync of op's thread that ended last by its launch, -1 none. */
static long segment_of(const struct run_state *state, const struct replay_op *op)
{
    long found = -1;
    size_t low = 0, high = state->sync_count;
    int64_t thread_id = replay_thread_of(state->replay, op), launch_ns = replay_launch_ns(state->replay, op);
    struct sync_point key = {.thread_id = thread_id, .start_ns = launch_ns};
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (by_sync_time(&state->syncs[middle], &key) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    if (low > 0 && state->syncs[low - 1].thread_id == thread_id && state->syncs[low - 1].end_ns <= launch_ns)
        found = (long)low - 1;
    return found;
}

/* Once the work launched before a kept sync has started (its replayed end is then known), the
 * sync returns, and the launches after it get their times. */
void host_time_resolve_syncs(struct run_state *state)
{
    const struct replay *replay = state->replay;
    while (state->started_prefix < replay->op_count &&
           state->start[state->by_correlation[state->started_prefix]] != UNSET) {
        size_t p = state->started_prefix++;
        int64_t end = engine_end(state, state->by_correlation[p]);
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
            int64_t start = replayed_host_ns(state, point->previous, point->start_ns,
                                             removed_at(state, point->start_place, point->start_ns));
            int64_t done = point->barrier > 0 ? state->launched_end[point->barrier - 1] : start;
            point->replay_end_ns = (done > start ? done : start) + point->own_ns;
            point->resolved = 1;
            state->thread_next[t]++;
            for (size_t o = state->segment_first[k]; o < state->segment_first[k + 1]; o++) {
                size_t i = state->segment_ops[o];
                if (state->ready[i] == INT64_MAX) {
                    state->ready[i] = launch_ready_ns(state, (long)k, i);
                    engine_note_ready(state, i);
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
    state->segment = engine_scratch_take(state->scratch, SCRATCH_SEGMENT, n * sizeof *state->segment);
    if (!state->segment)
        return -1;
    for (size_t i = 0; i < n; i++)
        state->segment[i] = replay_launch_ns(state->replay, &state->replay->ops[i]) == STORE_NULL
                                ? -1
                                : (int32_t)segment_of(state, &state->replay->ops[i]);
    state->segment_first = engine_scratch_zeroed(state->scratch, SCRATCH_SEGMENT_FIRST,
                                                 (syncs + 2) * sizeof *state->segment_first);
    state->segment_ops =
        engine_scratch_take(state->scratch, SCRATCH_SEGMENT_OPS, n * sizeof *state->segment_ops);
    if (!state->segment_first || !state->segment_ops)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (state->segment[i] >= 0)
            state->segment_first[state->segment[i] + 2]++;
    for (size_t k = 2; k < syncs + 2; k++)
        state->segment_first[k] += state->segment_first[k - 1];
    for (size_t i = 0; i < n; i++) /* segment_first[k + 1] is the fill cursor of segment k */
        if (state->segment[i] >= 0)
            state->segment_ops[state->segment_first[state->segment[i] + 1]++] = (uint32_t)i;
    return 0;
}

int host_time_prepare(struct run_state *state)
{
    const struct replay *replay = state->replay;
    size_t n = replay->op_count;
    unsigned char *pageable_call = engine_scratch_zeroed(state->scratch, SCRATCH_PAGEABLE_CALL,
                                                         (replay->call_count + 1) * sizeof *pageable_call);
    int64_t *removed =
        engine_scratch_take(state->scratch, SCRATCH_REMOVALS, (replay->call_count + 1) * sizeof *removed);
    state->removed = removed;
    state->by_correlation = replay->launch_order;
    state->launched_end =
        engine_scratch_take(state->scratch, SCRATCH_LAUNCHED_END, n * sizeof *state->launched_end);
    if (!pageable_call || !removed || !state->launched_end)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct replay_op *op = &replay->ops[i];
        const struct host_call *call = op->pageable ? replay_call_of(replay, op->correlation_id) : NULL;
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
    unsigned pinned = state->fixes & FIX_BIT(ANALYSIS_FIX_PIN_HOST_BUFFER); /* keeps fewer syncs */
    if (keep_syncs && (scratch->syncs_of != replay || scratch->syncs_pinned != pinned)) {
        scratch->syncs_of = NULL;
        scratch->syncs_pinned = pinned;
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
    return 0;
}

int64_t host_time_ready_ns(const struct run_state *state, size_t i)
{
    long segment = !(state->fixes & FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC)) ? state->segment[i] : -1;
    return segment < 0 ? launch_ready_ns(state, -1, i) : INT64_MAX;
}

/* Fills call_order: the calls by (thread, end), as by_thread_end orders removals (ties in any
 * order: a removal's prefix sum is read at the last of its ties). A radix sort, end bytes then
 * thread bytes, each pass stable: a comparison sort of a host-bound trace's calls was a tenth of the
 * replay's set-up. Returns 0 or WHATIF_OUT_OF_MEMORY. */
int host_time_order_calls(struct replay *replay)
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
        keys[c] = (struct radix_key){graph_radix_of(replay->calls[c].thread_id),
                                     graph_radix_of(replay->calls[c].end_ns), c};
    const struct radix_key *sorted = graph_radix_sort(keys, spare, n, 16);
    for (size_t c = 0; c < n; c++)
        replay->call_order[c] = sorted[c].index;
    free(keys);
    free(spare);
    return 0;
}

/* Fills op_removed_at (struct replay). Returns 0 or WHATIF_OUT_OF_MEMORY. */
int host_time_positions(struct replay *replay)
{
    size_t n = replay->op_count;
    replay->op_removed_at = malloc((n ? n : 1) * sizeof *replay->op_removed_at);
    if (!replay->op_removed_at)
        return WHATIF_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++) {
        const struct replay_op *op = &replay->ops[i];
        int64_t launch_ns = replay_launch_ns(replay, op);
        replay->op_removed_at[i] =
            launch_ns == STORE_NULL ? 0 : removed_place(replay, replay_thread_of(replay, op), launch_ns);
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
int host_time_mark_drained_starts(struct replay *replay)
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
        if (replay_launch_ns(replay, op) != STORE_NULL && op->start_ns > replay_launch_end_ns(replay, op) &&
            busy_until <= op->start_ns)
            call = replay_call_of(replay, op->correlation_id);
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

void host_time_sync_split(const struct replay *replay, int64_t *calls, int64_t *wait_ns, int64_t *host_ns,
                          int64_t *wrapper_ns)
{
    *calls = *wait_ns = *host_ns = *wrapper_ns = 0;
    int64_t last_launch = INT64_MIN; /* a sync after the last launch moves nothing the replay holds */
    for (size_t i = 0; i < replay->op_count; i++) {
        int64_t launch_ns = replay_launch_ns(replay, &replay->ops[i]);
        if (launch_ns != STORE_NULL && launch_ns > last_launch)
            last_launch = launch_ns;
    }
    size_t swept = 0;         /* ops of launch_order whose recorded ends are in recorded_end */
    int64_t recorded_end = 0; /* the latest recorded end of them */
    for (size_t c = 0; c < replay->call_count; c++) { /* by correlation id: the barriers only grow */
        const struct host_call *call = &replay->calls[c];
        if (!(call->kind & CALL_SYNC) || call->end_ns <= replay->first_launch_ns ||
            call->start_ns > last_launch)
            continue;
        size_t low = replay_launched_before(replay, replay->launch_order, call->correlation_id);
        recorded_end = recorded_end_by(replay, replay->launch_order, low, &swept, recorded_end);
        int64_t duration = call->end_ns - call->start_ns;
        int64_t wait = low > 0 && recorded_end > call->start_ns ? recorded_end - call->start_ns : 0;
        wait = wait < duration ? wait : duration;
        ++*calls;
        *wait_ns += wait;
        *host_ns += duration - wait;
        *wrapper_ns += replay->wrapper_ns ? replay->wrapper_ns[c] : 0;
    }
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
int host_time_work_removals(struct replay *replay, const struct device_idle *idle)
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
void host_time_first_launch(struct replay *replay)
{
    replay->first_launch_ns = INT64_MIN;
    for (size_t i = 0; i < replay->op_count; i++) {
        int64_t launch_ns = replay_launch_ns(replay, &replay->ops[i]);
        if (launch_ns != STORE_NULL &&
            (replay->first_launch_ns == INT64_MIN || launch_ns < replay->first_launch_ns))
            replay->first_launch_ns = launch_ns;
    }
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
 * the ops; needs the ops linked to their calls (load_ops), before host_time_order_calls. Returns 0 or
 * WHATIF_OUT_OF_MEMORY. */
int host_time_join_timelines(struct replay *replay)
{
    int64_t *threads = NULL; /* the launching threads: the ops' */
    size_t thread_count = 0, thread_capacity = 0;
    for (size_t i = 0; i < replay->op_count; i++) {
        int64_t thread = replay_thread_of(replay, &replay->ops[i]);
        size_t t = 0;
        while (t < thread_count && threads[t] != thread)
            t++;
        if (thread == STORE_NULL || t < thread_count)
            continue;
        if (replay_grow((void **)&threads, &thread_capacity, thread_count, sizeof *threads) != 0) {
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
        for (size_t k = 0; k < count; k++) /* every op's launch among them: its thread follows */
            by_time[k]->thread_id = threads[0];
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

/* The host work (host_time_work_removals) found before the launch that began at launch_ns: the idle
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
int host_time_graph_gaps(struct replay *replay, int64_t process_id, const struct analysis_step *steps,
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
