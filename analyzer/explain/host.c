/* host.c: what the launching thread was doing (see explain_parts.h), read from the trace's API
 * records: X's launch call, the CUDA calls the thread made before it, the call it was blocked in
 * when the blocking op ended, the copy a call issued, the stream waits and events the program
 * recorded and an NCCL kernel's communicator. The store is asked (by index) only for candidate
 * waits (store/queries_explain.h: each question one prepared statement, reused). */
#include <stdio.h>
#include <string.h>

#include "cuda_api.h"
#include "explain_parts.h"
#include "queries_explain.h"
#include "store.h"

int explain_host_open(explainer *explain, error_info *err)
{
    explain->queries = store_explain_open(explain->db, err);
    return explain->queries ? 0 : -1;
}

void explain_host_close(explainer *explain)
{
    store_explain_close(explain->queries);
}

void explainer_share_thread_calls(explainer *explain, struct thread_calls *calls)
{
    explain->calls = calls;
}

/* The launching thread's calls held in memory, in the order the store's queries return them, or
 * NULL: the store is asked. */
static const struct thread_call *held_calls(explainer *explain, const struct device_state *device,
                                            int64_t thread_id, size_t *count)
{
    *count = 0;
    return explain->calls
               ? thread_calls_of(explain->calls, device->process_id, thread_id, &device->launches, count)
               : NULL;
}

/* A held call as the store's row of it (the queries' api_domain < 3: CUDA calls, not OS waits). */
static int as_cuda_call(explainer *explain, const struct thread_call *held, int64_t thread_id,
                        struct store_explain_call *call)
{
    if (held->api_domain >= 3)
        return 0;
    *call =
        (struct store_explain_call){.start_ns = held->start_ns,
                                    .end_ns = held->end_ns,
                                    .thread_id = thread_id,
                                    .correlation_id = held->correlation_id,
                                    .name = (const unsigned char *)thread_calls_name(explain->calls, held)};
    return 1;
}

/* The launch call found for item: its times, thread and name as recorded (NULL unknown). */
static void note_launch(struct wait_case *item, int64_t start_ns, int64_t end_ns, int64_t thread_id,
                        const unsigned char *name)
{
    item->launch.known = 1;
    item->launch.start_ns = start_ns;
    item->launch.end_ns = max64(end_ns, start_ns);
    item->launch.thread_id = thread_id;
    /* The API call's name as recorded: a kernel's short-name rule would fold it. */
    explain_copy_text(item->launch.name, sizeof item->launch.name, name);
}

/* store_explain_launch's visitor: notes a call with plausible times. */
static int launch_found(void *context, const struct store_explain_call *call)
{
    if (store_interval_plausible(call->start_ns, call->end_ns))
        note_launch(context, call->start_ns, call->end_ns, call->thread_id, call->name);
    return 1;
}

void explain_find_launch(explainer *explain, struct wait_case *item)
{
    item->launch.known = 0;
    if (item->waiting->correlation_id == STORE_NULL)
        return;
    /* A call with times no recording holds (a damaged trace) is not used: its sums could overflow. */
    if (item->device->launches.complete) { /* the process's calls, read once for the device */
        const struct thread_call *call =
            launches_find(&item->device->launches, item->waiting->correlation_id);
        if (!call || !store_interval_plausible(call->start_ns, call->end_ns))
            return;
        const char *name = call->has_name ? kernel_names_text(explain->names, call->name_id) : NULL;
        note_launch(item, call->start_ns, call->end_ns, launches_thread_of(&item->device->launches, call),
                    (const unsigned char *)name);
        return;
    }
    store_explain_launch(explain->queries, item->device->process_id, item->waiting->correlation_id,
                         launch_found, item);
}

/* The host window being read and what was found in it so far. */
struct host_window {
    struct host_activity *activity;
    int64_t window_start, window_end, covered_until;
};

static int consider_host_call(void *context, const struct store_explain_call *call)
{
    struct host_window *window = context;
    struct host_activity *activity = window->activity;
    int64_t start = call->start_ns, end = call->end_ns;
    int64_t from = max64(start, window->window_start), to = min64(end, window->window_end);
    if (to <= from || !store_interval_plausible(start, end))
        return 0;
    int64_t fresh_from = max64(from, window->covered_until);
    if (to > fresh_from)
        activity->cuda_ns += to - fresh_from;
    if (to > window->covered_until)
        window->covered_until = to;
    if (!activity->has_call || to - from > activity->call_overlap_ns) {
        activity->has_call = 1;
        activity->call_start_ns = start;
        activity->call_end_ns = end;
        activity->call_overlap_ns = to - from;
        activity->call_correlation_id = call->correlation_id;
        explain_copy_text(activity->call_name, sizeof activity->call_name, call->name);
    }
    return 0;
}

/* The CUDA calls the launching thread made in [window_start, window_end) (and the last one it began
 * before, which may reach into it). */
static void host_activity_in(explainer *explain, const struct device_state *device, int64_t thread_id,
                             int64_t window_start, int64_t window_end, struct host_activity *activity)
{
    *activity = (struct host_activity){.window_ns = window_end - window_start};
    if (window_end <= window_start)
        return;
    struct host_window window = {activity, window_start, window_end, window_start};
    size_t count;
    const struct thread_call *calls = held_calls(explain, device, thread_id, &count);
    if (!calls) {
        store_explain_host_calls(explain->queries, device->process_id, thread_id, window_start, window_end,
                                 consider_host_call, &window);
        return;
    }
    /* The same rows as the two queries: the last call before the window, then those in it. */
    size_t first = thread_calls_first_from(calls, count, window_start, explain->call_hint);
    explain->call_hint = first;
    struct store_explain_call call;
    for (size_t j = first; j-- > 0;)
        if (as_cuda_call(explain, &calls[j], thread_id, &call)) {
            consider_host_call(&window, &call);
            break;
        }
    size_t visited = 0;
    for (size_t j = first;
         j < count && calls[j].start_ns < window_end && visited < STORE_EXPLAIN_HOST_CALLS_MAX; j++)
        if (as_cuda_call(explain, &calls[j], thread_id, &call)) {
            visited++;
            consider_host_call(&window, &call);
        }
}

/* Reads the memcpy a call issued: 1 when found. */
int explain_copy_of_call(explainer *explain, int64_t process_id, int64_t correlation_id,
                         struct model_op *copy)
{
    struct store_explain_copy row;
    if (correlation_id == STORE_NULL ||
        !store_explain_copy_of_call(explain->queries, process_id, correlation_id, &row))
        return 0;
    *copy = (struct model_op){.kind = MODEL_MEMCPY};
    copy->src_kind = row.src_kind;
    copy->dst_kind = row.dst_kind;
    copy->bytes = row.bytes;
    copy->copy_kind = row.copy_kind;
    return 1;
}

/* The launching thread's CUDA calls from the wait's start to X's launch, read once per wait (none
 * when the launch call itself began before the wait: the window is empty). */
const struct host_activity *explain_activity_before_launch(explainer *explain, struct wait_case *item)
{
    if (!item->activity_read) {
        host_activity_in(explain, item->device, item->launch.thread_id, item->wait.wait_start_ns,
                         item->launch.start_ns, &item->activity);
        item->activity_read = 1;
    }
    return &item->activity;
}

/* The activity when one call covered at least half of that time, else NULL. */
const struct host_activity *explain_holding_call(explainer *explain, struct wait_case *item)
{
    const struct host_activity *activity = explain_activity_before_launch(explain, item);
    return activity->has_call && activity->call_overlap_ns * 2 >= activity->window_ns ? activity : NULL;
}

/* A pageable copy's call returns once the driver has staged the last chunk, a little before the
 * DMA ends: seen on H200, 9 to 13 us before the end of 32 MiB copies of 3.6 to 5.1 ms. */
static int64_t pageable_call_slack_ns(const struct model_op *copy)
{
    return max64(EXPLAIN_START_TOLERANCE_NS, (copy->end_ns - copy->start_ns) / 50);
}

/* Where the launching thread was when `blocking` ended: the call it was in, if that call is a
 * blocking one that began after the waiting stream went idle and did not itself issue `blocking`
 * (a synchronous copy waiting for its own transfer is a serial step the program asked for). Walks
 * the thread's calls back from the launch (at most 64): calls made after the blocking op ended are
 * passed over. Returns 1 and fills call when found. */
/* The walk back over the launching thread's calls. */
struct calls_back {
    const struct wait_case *item;
    struct blocking_call *call;
    int found;
};

static int consider_call_back(void *context, const struct store_explain_call *row)
{
    struct calls_back *walk = context;
    const struct wait_case *item = walk->item;
    int64_t ended_ns = item->blocking->end_ns;
    int64_t start = row->start_ns, end = row->end_ns;
    if (start >= ended_ns || !store_interval_plausible(start, end))
        return 0; /* made after the op ended, or with times no recording holds */
    int issued_blocking =
        row->correlation_id != STORE_NULL && row->correlation_id == item->blocking->correlation_id;
    const char *name = row->name ? (const char *)row->name : "";
    /* The asynchronous call that issued a pageable copy held the thread while it staged the
     * data, until just before the copy ended (a synchronous cudaMemcpy is a serial step the
     * program asked for). */
    int staged = issued_blocking && is_pageable_copy(item->blocking) && !cuda_api_blocks_host(name) &&
                 end + pageable_call_slack_ns(item->blocking) >= ended_ns;
    if (end + START_JITTER_NS < ended_ns && !staged) {
        /* Calls made in the slack after a pageable copy's call returned are passed over. */
        if (is_pageable_copy(item->blocking) && start + pageable_call_slack_ns(item->blocking) >= ended_ns)
            return 0;
        return 1; /* the thread was in no call when the op ended */
    }
    walk->found =
        (staged || (cuda_api_blocks_host(name) && !issued_blocking)) &&
        (item->previous_end_ns == INT64_MIN || start + START_JITTER_NS >= item->previous_end_ns || staged);
    if (walk->found) {
        walk->call->start_ns = start;
        walk->call->end_ns = end;
        walk->call->issued_pageable_copy = staged;
        snprintf(walk->call->name, sizeof walk->call->name, "%s", name);
    }
    return 1;
}

int explain_find_blocking_call(explainer *explain, const struct wait_case *item, struct blocking_call *call)
{
    struct calls_back walk = {item, call, 0};
    size_t count;
    const struct thread_call *calls = held_calls(explain, item->device, item->launch.thread_id, &count);
    if (!calls) {
        store_explain_calls_back(explain->queries, item->device->process_id, item->launch.thread_id,
                                 item->launch.start_ns, consider_call_back, &walk);
        return walk.found;
    }
    /* The query's rows: the thread's CUDA calls begun before the launch, latest first, at most
     * STORE_EXPLAIN_CALLS_BACK_MAX. */
    size_t first = thread_calls_first_from(calls, count, item->launch.start_ns, explain->call_hint);
    explain->call_hint = first;
    struct store_explain_call row;
    size_t visited = 0;
    for (size_t j = first; j-- > 0 && visited < STORE_EXPLAIN_CALLS_BACK_MAX;)
        if (as_cuda_call(explain, &calls[j], item->launch.thread_id, &row)) {
            visited++;
            if (consider_call_back(&walk, &row))
                break;
        }
    return walk.found;
}

/* Whether the process has any cudaStreamWaitEvent record: most waits of a trace without them skip
 * the event query (one probe per process instead). */
static int has_stream_waits(explainer *explain, int64_t process_id)
{
    if (explain->stream_waits_process_id != process_id) {
        explain->process_has_stream_waits = store_explain_has_stream_waits(explain->queries, process_id);
        explain->stream_waits_process_id = process_id;
    }
    return explain->process_has_stream_waits;
}

/* The search for the stream wait: the wait found, its event. */
struct event_wait {
    explainer *explain;
    const struct wait_case *item;
    int64_t event_id;
    int proved;
};

static int consider_sync(void *context, const struct store_explain_sync *sync)
{
    struct event_wait *search = context;
    const struct wait_case *item = search->item;
    const struct model_op *blocking = item->blocking;
    if (sync->sync_type != STORE_SYNC_STREAM_WAIT_EVENT || sync->stream_id == STORE_NULL ||
        sync->stream_id != item->waiting->stream_id)
        return 0;
    /* A wait issued before the stream's previous op applied to that op, not to this one. */
    if (sync->correlation_id != STORE_NULL && item->previous &&
        item->previous->correlation_id != STORE_NULL && sync->correlation_id < item->previous->correlation_id)
        return 1;
    int64_t stream_id, correlation_id;
    if (store_explain_event_record(search->explain->queries, item->device->process_id, sync->event_id,
                                   sync->correlation_id, &stream_id, &correlation_id) &&
        stream_id != STORE_NULL && stream_id == blocking->stream_id &&
        (correlation_id == STORE_NULL || blocking->correlation_id == STORE_NULL ||
         correlation_id > blocking->correlation_id)) {
        search->event_id = sync->event_id;
        search->proved = 1;
    }
    return search->proved;
}

int explain_find_event_wait(explainer *explain, const struct wait_case *item, int64_t *event_id)
{
    if (!has_stream_waits(explain, item->device->process_id))
        return 0;
    struct event_wait search = {explain, item, 0, 0};
    store_explain_syncs_before(explain->queries, item->device->process_id,
                               item->launch.known ? item->launch.start_ns : item->waiting->start_ns,
                               consider_sync, &search);
    *event_id = search.event_id;
    return search.proved;
}

/* The communicator of an NCCL kernel (collectives.communicator), copied into buffer; 0 when the
 * trace does not name it. */
int explain_communicator_of(explainer *explain, const struct model_op *op, char *buffer, size_t size)
{
    return store_explain_communicator(explain->queries, op->rowid, buffer, size);
}
