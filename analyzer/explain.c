/* explain.c: see explain.h. The order of the checks is the order of proof strength: what the host
 * did comes first (a late launch makes every GPU-side cause moot), then dependencies the program
 * asked for, then the hardware's reasons. Each check either proves its cause from recorded fields
 * or passes; a missing field (no API records, no device limits) only removes the checks that need
 * it. */
#include "explain.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "units.h"

/* A start this close before the blocking operation's end is still "when it ended" (clock jitter). */
#define START_JITTER_NS 1000
/* At most this many synchronization records are read back from the waiting op's launch. */
#define SYNC_LOOKBACK_ROWS 256
#define HOST_CALLS_MAX 4096

struct launch_call {
    int known;
    int64_t start_ns, end_ns, thread_id;
    char name[64];
};

struct host_activity {
    int64_t window_ns;   /* the host window examined */
    int64_t cuda_ns;     /* time inside CUDA calls in it (nested calls counted once) */
    int has_call;        /* the longest call below */
    int64_t call_start_ns, call_end_ns, call_overlap_ns, call_correlation_id;
    char call_name[64];
};

struct explainer {
    sqlite3 *db;
    kernel_names *names;
    sqlite3_stmt *launch_query, *host_before_query, *host_within_query, *memcpy_query, *syncs_query, *event_query;
    struct analysis_wait *kept; /* min-heap on lost_ns */
    size_t kept_count, max_waits;
    int64_t total_waits;
    struct analysis_cause_total causes[ANALYSIS_CAUSE_COUNT];
};

/* One wait being proved. */
struct wait_case {
    struct device_state *device;
    struct lane_state *waiting_lane, *blocking_lane;
    const struct model_op *waiting, *blocking;
    int64_t previous_end_ns;           /* of the waiting stream; INT64_MIN when none */
    const struct model_op *previous;   /* the waiting stream's previous op, or NULL */
    struct launch_call launch;
    int in_graph;
    struct analysis_wait wait;
};

static const char *const sql_launch =
    "SELECT a.start_ns, a.end_ns, a.thread_id, s.value FROM api_calls a LEFT JOIN strings s ON s.id = a.name_id"
    " WHERE a.process_id = ?1 AND a.correlation_id = ?2 ORDER BY a.start_ns LIMIT 1";
static const char *const sql_host_before =
    "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value FROM api_calls a LEFT JOIN strings s ON s.id = a.name_id"
    " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns < ?3 ORDER BY a.start_ns DESC LIMIT 1";
static const char *const sql_host_within =
    "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value FROM api_calls a LEFT JOIN strings s ON s.id = a.name_id"
    " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns >= ?3 AND a.start_ns < ?4 ORDER BY a.start_ns"
    " LIMIT 4096";
static const char *const sql_memcpy =
    "SELECT src_kind, dst_kind, bytes, copy_kind FROM memcpys WHERE process_id = ?1 AND correlation_id = ?2 LIMIT 1";
static const char *const sql_syncs =
    "SELECT sync_type, stream_id, event_id, correlation_id FROM synchronizations"
    " WHERE process_id = ?1 AND start_ns <= ?2 ORDER BY start_ns DESC LIMIT 256";
static const char *const sql_event =
    "SELECT stream_id, correlation_id FROM cuda_events WHERE process_id = ?1 AND event_id = ?2"
    " AND (?3 IS NULL OR correlation_id < ?3) ORDER BY correlation_id DESC LIMIT 1";

explainer *explainer_new(sqlite3 *db, kernel_names *names, size_t max_waits, error_info *err)
{
    explainer *explain = calloc(1, sizeof *explain);
    if (!explain) {
        error_set(err, "out of memory");
        return NULL;
    }
    explain->db = db;
    explain->names = names;
    explain->max_waits = max_waits;
    explain->kept = calloc(max_waits ? max_waits : 1, sizeof *explain->kept);
    struct {
        sqlite3_stmt **statement;
        const char *sql;
    } queries[] = {{&explain->launch_query, sql_launch},   {&explain->host_before_query, sql_host_before},
                   {&explain->host_within_query, sql_host_within}, {&explain->memcpy_query, sql_memcpy},
                   {&explain->syncs_query, sql_syncs},     {&explain->event_query, sql_event}};
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        if (!explain->kept || sqlite3_prepare_v2(db, queries[i].sql, -1, queries[i].statement, NULL) != SQLITE_OK) {
            error_set(err, "cannot prepare the explanation queries: %s", sqlite3_errmsg(db));
            explainer_free(explain);
            return NULL;
        }
    }
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++)
        explain->causes[cause].cause = (enum analysis_cause)cause;
    return explain;
}

void explainer_free(explainer *explain)
{
    if (!explain)
        return;
    sqlite3_finalize(explain->launch_query);
    sqlite3_finalize(explain->host_before_query);
    sqlite3_finalize(explain->host_within_query);
    sqlite3_finalize(explain->memcpy_query);
    sqlite3_finalize(explain->syncs_query);
    sqlite3_finalize(explain->event_query);
    free(explain->kept);
    free(explain);
}

/* --- small helpers --- */

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static void copy_text(char *buffer, size_t size, const unsigned char *text)
{
    snprintf(buffer, size, "%s", text ? (const char *)text : "?");
}

static const char *duration(char *buffer, size_t size, int64_t nanoseconds)
{
    return units_format_duration(buffer, size, nanoseconds);
}

static int is_pageable_copy(const struct model_op *op)
{
    return op->kind == MODEL_MEMCPY && (op->src_kind == STORE_MEMORY_PAGEABLE || op->dst_kind == STORE_MEMORY_PAGEABLE);
}

/* "sgemm_256x128", "HtoD 64.0 MiB (pageable)", "memset 1.00 MiB". */
static void op_name(explainer *explain, const struct model_op *op, char *buffer, size_t size)
{
    char bytes[32];
    if (op->kind == MODEL_KERNEL) {
        snprintf(buffer, size, "%s", kernel_names_short(explain->names, op->name_id));
    } else if (op->kind == MODEL_MEMCPY) {
        snprintf(buffer, size, "%s %s%s", store_copy_kind_name(op->copy_kind),
                 units_format_bytes(bytes, sizeof bytes, op->bytes), is_pageable_copy(op) ? " (pageable)" : "");
    } else {
        snprintf(buffer, size, "memset %s", units_format_bytes(bytes, sizeof bytes, op->bytes));
    }
}

static const char *op_kind_word(const struct model_op *op)
{
    return op->kind == MODEL_KERNEL ? "kernel" : op->kind == MODEL_MEMCPY ? "copy" : "memset";
}

/* --- the blocking operation --- */

/* How long the last wave of the lane's last kernel took (duration / waves), or 0 when the
 * kernel is not known to have filled the device in more than one wave. */
static int64_t last_wave_ns(const struct device_state *device, struct lane_state *lane)
{
    const struct model_op *op = &lane->last;
    if (op->kind != MODEL_KERNEL || !device->limits_known)
        return 0;
    if (lane->last_occupancy_state == 0)
        lane->last_occupancy_state =
            occupancy_compute(&device->limits, &op->launch, &lane->last_occupancy) == 0 &&
                    lane->last_occupancy.blocks_per_sm > 0
                ? 1
                : -1;
    if (lane->last_occupancy_state < 0 || !lane->last_occupancy.fills_device || lane->last_occupancy.waves < 2)
        return 0;
    return (op->end_ns - op->start_ns) / lane->last_occupancy.waves;
}

/* The other stream's last operation that X started right after (or in whose drain), or -1. */
static long find_blocker(struct device_state *device, size_t waiting_lane, const struct model_op *waiting,
                         int64_t previous_end_ns)
{
    long best = -1;
    int64_t best_distance = INT64_MAX;
    for (size_t i = 0; i < device->lane_count; i++) {
        struct lane_state *lane = &device->lanes[i];
        const struct model_op *other = &lane->last;
        if (i == waiting_lane || !lane->has_last || other->end_ns <= other->start_ns ||
            other->start_ns >= waiting->start_ns || waiting->start_ns > other->end_ns + EXPLAIN_START_TOLERANCE_NS)
            continue;
        /* The waiting stream must have been free while the other ran. */
        if (previous_end_ns != INT64_MIN && other->end_ns <= previous_end_ns + EXPLAIN_START_TOLERANCE_NS)
            continue;
        if (waiting->start_ns < other->end_ns - START_JITTER_NS) {
            int64_t drain_ns = last_wave_ns(device, lane);
            if (drain_ns <= 0 || waiting->start_ns < other->end_ns - drain_ns)
                continue;
        }
        int64_t distance = waiting->start_ns > other->end_ns ? waiting->start_ns - other->end_ns
                                                             : other->end_ns - waiting->start_ns;
        if (distance < best_distance) {
            best_distance = distance;
            best = (long)i;
        }
    }
    return best;
}

/* --- what the host did --- */

static void find_launch(explainer *explain, struct wait_case *item)
{
    item->launch.known = 0;
    if (item->waiting->correlation_id == STORE_NULL)
        return;
    sqlite3_stmt *query = explain->launch_query;
    sqlite3_bind_int64(query, 1, item->device->process_id);
    sqlite3_bind_int64(query, 2, item->waiting->correlation_id);
    if (sqlite3_step(query) == SQLITE_ROW) {
        item->launch.known = 1;
        item->launch.start_ns = sqlite3_column_int64(query, 0);
        item->launch.end_ns = sqlite3_column_int64(query, 1);
        item->launch.thread_id = sqlite3_column_int64(query, 2);
        copy_text(item->launch.name, sizeof item->launch.name, sqlite3_column_text(query, 3));
    }
    sqlite3_reset(query);
}

static void consider_host_call(struct host_activity *activity, int64_t window_start, int64_t window_end,
                               sqlite3_stmt *query, int64_t *covered_until)
{
    int64_t start = sqlite3_column_int64(query, 0), end = sqlite3_column_int64(query, 1);
    int64_t from = max64(start, window_start), to = min64(end, window_end);
    if (to <= from)
        return;
    int64_t fresh_from = max64(from, *covered_until);
    if (to > fresh_from)
        activity->cuda_ns += to - fresh_from;
    if (to > *covered_until)
        *covered_until = to;
    if (!activity->has_call || to - from > activity->call_overlap_ns) {
        activity->has_call = 1;
        activity->call_start_ns = start;
        activity->call_end_ns = end;
        activity->call_overlap_ns = to - from;
        activity->call_correlation_id =
            sqlite3_column_type(query, 2) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 2);
        copy_text(activity->call_name, sizeof activity->call_name, sqlite3_column_text(query, 3));
    }
}

/* The CUDA calls the launching thread made in [window_start, window_end). */
static void host_activity_in(explainer *explain, int64_t process_id, int64_t thread_id, int64_t window_start,
                             int64_t window_end, struct host_activity *activity)
{
    *activity = (struct host_activity){.window_ns = window_end - window_start};
    if (window_end <= window_start)
        return;
    int64_t covered_until = window_start;
    sqlite3_stmt *before = explain->host_before_query;
    sqlite3_bind_int64(before, 1, process_id);
    sqlite3_bind_int64(before, 2, thread_id);
    sqlite3_bind_int64(before, 3, window_start);
    if (sqlite3_step(before) == SQLITE_ROW)
        consider_host_call(activity, window_start, window_end, before, &covered_until);
    sqlite3_reset(before);
    sqlite3_stmt *within = explain->host_within_query;
    sqlite3_bind_int64(within, 1, process_id);
    sqlite3_bind_int64(within, 2, thread_id);
    sqlite3_bind_int64(within, 3, window_start);
    sqlite3_bind_int64(within, 4, window_end);
    while (sqlite3_step(within) == SQLITE_ROW)
        consider_host_call(activity, window_start, window_end, within, &covered_until);
    sqlite3_reset(within);
}

static int name_has(const char *name, const char *part)
{
    return strstr(name, part) != NULL;
}

static int is_synchronizing_call(const char *name)
{
    if (name_has(name, "Synchronize"))
        return 1;
    /* cudaMalloc/cudaFree (and the driver's cuMemAlloc/cuMemFree) synchronize the device; their
     * stream-ordered ...Async forms do not. */
    return !name_has(name, "Async") && (name_has(name, "Malloc") || name_has(name, "Free") ||
                                        name_has(name, "MemAlloc"));
}

/* Reads the memcpy a call issued: 1 when found. */
static int copy_of_call(explainer *explain, int64_t process_id, int64_t correlation_id, struct model_op *copy)
{
    if (correlation_id == STORE_NULL)
        return 0;
    sqlite3_stmt *query = explain->memcpy_query;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, correlation_id);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found) {
        *copy = (struct model_op){.kind = MODEL_MEMCPY};
        copy->src_kind = sqlite3_column_type(query, 0) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 0);
        copy->dst_kind = sqlite3_column_type(query, 1) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 1);
        copy->bytes = sqlite3_column_int64(query, 2);
        copy->copy_kind = sqlite3_column_int64(query, 3);
    }
    sqlite3_reset(query);
    return found;
}

/* The waiting op's launch returned after (or just before) the blocking op ended: the GPU had
 * nothing to overlap. Names what the thread was doing instead. */
static void explain_late_launch(explainer *explain, struct wait_case *item)
{
    struct analysis_wait *wait = &item->wait;
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    char late[32], waited[32], name[128], other[128];
    op_name(explain, waiting, name, sizeof name);
    op_name(explain, blocking, other, sizeof other);
    struct host_activity activity;
    host_activity_in(explain, item->device->process_id, item->launch.thread_id, wait->wait_start_ns,
                     item->launch.start_ns, &activity);
    int64_t late_ns = item->launch.end_ns - blocking->end_ns;
    char when[96];
    if (late_ns >= 0)
        snprintf(when, sizeof when, "returned %s after", duration(late, sizeof late, late_ns));
    else
        snprintf(when, sizeof when, "returned only %s before", duration(late, sizeof late, -late_ns));
    const char *call = activity.call_name;
    if (activity.has_call && activity.call_overlap_ns * 2 >= activity.window_ns) {
        struct model_op copy;
        duration(waited, sizeof waited, activity.call_overlap_ns);
        if (name_has(call, "emcpy") && copy_of_call(explain, item->device->process_id,
                                                    activity.call_correlation_id, &copy) &&
            is_pageable_copy(&copy)) {
            char bytes[32];
            wait->cause = ANALYSIS_CAUSE_PAGEABLE_COPY;
            snprintf(wait->evidence, sizeof wait->evidence,
                     "thread %" PRId64 " was in %s (%s %s from/to pageable memory, staged synchronously) for %s;"
                     " %s %s on stream %" PRId64 " was launched when it returned",
                     item->launch.thread_id, call, store_copy_kind_name(copy.copy_kind),
                     units_format_bytes(bytes, sizeof bytes, copy.bytes), waited, op_kind_word(waiting), name,
                     waiting->stream_id);
            return;
        }
        if (is_synchronizing_call(call) || (name_has(call, "emcpy") && !name_has(call, "Async"))) {
            wait->cause = ANALYSIS_CAUSE_HOST_SYNC;
            snprintf(wait->evidence, sizeof wait->evidence,
                     "thread %" PRId64 " was blocked in %s for %s; %s for %s on stream %" PRId64 " %s %s on stream %"
                     PRId64 " ended",
                     item->launch.thread_id, call, waited, item->launch.name, name, waiting->stream_id, when,
                     other, blocking->stream_id);
            return;
        }
    }
    wait->cause = ANALYSIS_CAUSE_LATE_LAUNCH;
    char idle[32];
    int64_t outside_ns = activity.window_ns - activity.cuda_ns;
    if (activity.has_call && activity.cuda_ns * 2 >= activity.window_ns)
        snprintf(wait->evidence, sizeof wait->evidence,
                 "%s for %s on stream %" PRId64 " %s %s on stream %" PRId64 " ended; thread %" PRId64
                 " spent %s of the %s before it in CUDA calls (longest: %s)",
                 item->launch.name, name, waiting->stream_id, when, other, blocking->stream_id,
                 item->launch.thread_id, duration(waited, sizeof waited, activity.cuda_ns),
                 duration(idle, sizeof idle, activity.window_ns), call);
    else
        snprintf(wait->evidence, sizeof wait->evidence,
                 "%s for %s on stream %" PRId64 " %s %s on stream %" PRId64 " ended; thread %" PRId64
                 " made no CUDA call for %s of the %s before it (CPU or interpreter time)",
                 item->launch.name, name, waiting->stream_id, when, other, blocking->stream_id,
                 item->launch.thread_id, duration(waited, sizeof waited, outside_ns),
                 duration(idle, sizeof idle, activity.window_ns));
}

/* --- dependencies the program asked for --- */

/* cudaStreamWaitEvent on the waiting stream, issued after its previous op and before its launch,
 * for an event recorded on the blocking stream after the blocking op. */
static int explain_event_dependency(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    sqlite3_stmt *syncs = explain->syncs_query;
    sqlite3_bind_int64(syncs, 1, item->device->process_id);
    sqlite3_bind_int64(syncs, 2, item->launch.known ? item->launch.start_ns : waiting->start_ns);
    int proved = 0;
    while (!proved && sqlite3_step(syncs) == SQLITE_ROW) {
        if (sqlite3_column_int64(syncs, 0) != STORE_SYNC_STREAM_WAIT_EVENT ||
            sqlite3_column_type(syncs, 1) == SQLITE_NULL || sqlite3_column_int64(syncs, 1) != waiting->stream_id)
            continue;
        int64_t event_id = sqlite3_column_int64(syncs, 2);
        int has_correlation = sqlite3_column_type(syncs, 3) != SQLITE_NULL;
        int64_t correlation = sqlite3_column_int64(syncs, 3);
        /* A wait issued before the stream's previous op applied to that op, not to this one. */
        if (has_correlation && item->previous && item->previous->correlation_id != STORE_NULL &&
            correlation < item->previous->correlation_id)
            break;
        sqlite3_stmt *event = explain->event_query;
        sqlite3_bind_int64(event, 1, item->device->process_id);
        sqlite3_bind_int64(event, 2, event_id);
        if (has_correlation)
            sqlite3_bind_int64(event, 3, correlation);
        else
            sqlite3_bind_null(event, 3);
        if (sqlite3_step(event) == SQLITE_ROW && sqlite3_column_type(event, 0) != SQLITE_NULL &&
            sqlite3_column_int64(event, 0) == blocking->stream_id) {
            int recorded_after = sqlite3_column_type(event, 1) == SQLITE_NULL ||
                                 blocking->correlation_id == STORE_NULL ||
                                 sqlite3_column_int64(event, 1) > blocking->correlation_id;
            if (recorded_after) {
                char name[128];
                op_name(explain, blocking, name, sizeof name);
                item->wait.cause = ANALYSIS_CAUSE_EVENT_DEPENDENCY;
                snprintf(item->wait.evidence, sizeof item->wait.evidence,
                         "stream %" PRId64 " waits (cudaStreamWaitEvent) on event %" PRId64
                         " recorded on stream %" PRId64 " after %s %s: serialized by design",
                         waiting->stream_id, event_id, blocking->stream_id, op_kind_word(blocking), name);
                proved = 1;
            }
        }
        sqlite3_reset(event);
    }
    sqlite3_reset(syncs);
    return proved;
}

static int synchronizes_with_legacy(const struct lane_state *lane)
{
    return lane->flags == 1 || lane->is_per_thread_default; /* CUpti_ActivityStreamFlag 1: blocking */
}

static int explain_legacy_default(struct wait_case *item)
{
    const struct lane_state *legacy = NULL, *other = NULL;
    if (item->waiting_lane->is_legacy_default && synchronizes_with_legacy(item->blocking_lane)) {
        legacy = item->waiting_lane;
        other = item->blocking_lane;
    } else if (item->blocking_lane->is_legacy_default && synchronizes_with_legacy(item->waiting_lane)) {
        legacy = item->blocking_lane;
        other = item->waiting_lane;
    } else {
        return 0;
    }
    item->wait.cause = ANALYSIS_CAUSE_LEGACY_DEFAULT_STREAM;
    snprintf(item->wait.evidence, sizeof item->wait.evidence,
             "stream %" PRId64 " is the legacy default stream and stream %" PRId64
             " is a blocking stream: each waits for the other's earlier work (create it with"
             " cudaStreamNonBlocking or use per-thread default streams)",
             legacy->stream_id, other->stream_id);
    return 1;
}

/* --- the hardware's reasons --- */

static int explain_pageable_copy(explainer *explain, struct wait_case *item)
{
    if (!is_pageable_copy(item->blocking))
        return 0;
    char name[128];
    op_name(explain, item->blocking, name, sizeof name);
    item->wait.cause = ANALYSIS_CAUSE_PAGEABLE_COPY;
    snprintf(item->wait.evidence, sizeof item->wait.evidence,
             "copy %s on stream %" PRId64 " uses pageable host memory: the driver stages it synchronously, and"
             " stream %" PRId64 " started only when it ended (pin the buffer: cudaHostAlloc / pin_memory)",
             name, item->blocking->stream_id, item->waiting->stream_id);
    return 1;
}

static int explain_copy_engine(struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    if (waiting->kind != MODEL_MEMCPY || blocking->kind != MODEL_MEMCPY)
        return 0;
    int same_direction = waiting->category == blocking->category &&
                         (waiting->category == ANALYSIS_COPY_HTOD || waiting->category == ANALYSIS_COPY_DTOH);
    int one_engine = item->device->copy_engine_count == 1;
    if (!same_direction && !one_engine)
        return 0;
    item->wait.cause = ANALYSIS_CAUSE_COPY_ENGINE;
    if (same_direction)
        snprintf(item->wait.evidence, sizeof item->wait.evidence,
                 "%s copies on streams %" PRId64 " and %" PRId64
                 " use the same copy engine: copies in one direction run one at a time",
                 store_copy_kind_name(waiting->copy_kind), blocking->stream_id, waiting->stream_id);
    else
        snprintf(item->wait.evidence, sizeof item->wait.evidence,
                 "the device has one copy engine: the copies on streams %" PRId64 " and %" PRId64
                 " ran one after the other",
                 blocking->stream_id, waiting->stream_id);
    return 1;
}

static int explain_shared_queue(struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    if (waiting->channel_id == STORE_NULL || waiting->channel_id != blocking->channel_id)
        return 0;
    item->wait.cause = ANALYSIS_CAUSE_SHARED_QUEUE;
    snprintf(item->wait.evidence, sizeof item->wait.evidence,
             "streams %" PRId64 " and %" PRId64 " were submitted on the same hardware channel %" PRId64
             ", which runs its work in order: more streams than CUDA_DEVICE_MAX_CONNECTIONS",
             blocking->stream_id, waiting->stream_id, waiting->channel_id);
    return 1;
}

static int64_t op_priority(const struct model_op *op, const struct lane_state *lane)
{
    return op->priority != STORE_NULL ? op->priority : lane->priority;
}

/* The blocking op started after the waiting op was ready and its stream has the higher priority
 * (a lower number): the scheduler chose it first. */
static int explain_priority(explainer *explain, struct wait_case *item, int64_t ready_ns)
{
    int64_t waiting_priority = op_priority(item->waiting, item->waiting_lane);
    int64_t blocking_priority = op_priority(item->blocking, item->blocking_lane);
    if (!item->launch.known || waiting_priority == STORE_NULL || blocking_priority == STORE_NULL ||
        blocking_priority >= waiting_priority || item->blocking->start_ns <= ready_ns)
        return 0;
    char name[128], other[128], early[32];
    op_name(explain, item->waiting, name, sizeof name);
    op_name(explain, item->blocking, other, sizeof other);
    item->wait.cause = ANALYSIS_CAUSE_STREAM_PRIORITY;
    snprintf(item->wait.evidence, sizeof item->wait.evidence,
             "stream %" PRId64 " has priority %" PRId64 ", above stream %" PRId64 "'s %" PRId64
             ": %s went first although %s was ready %s before it started",
             item->blocking->stream_id, blocking_priority, item->waiting->stream_id, waiting_priority, other, name,
             duration(early, sizeof early, item->blocking->start_ns - ready_ns));
    return 1;
}

static int explain_sm_saturation(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    struct device_state *device = item->device;
    if (waiting->kind != MODEL_KERNEL || blocking->kind != MODEL_KERNEL || !device->limits_known)
        return 0;
    last_wave_ns(device, item->blocking_lane); /* computes the blocking kernel's occupancy */
    const struct occupancy_result *resident = &item->blocking_lane->last_occupancy;
    if (item->blocking_lane->last_occupancy_state != 1 || !resident->fills_device ||
        occupancy_fits_beside(&device->limits, resident, &waiting->launch))
        return 0;
    char name[128], other[128], tail[160], gap[32];
    op_name(explain, waiting, name, sizeof name);
    op_name(explain, blocking, other, sizeof other);
    int communication = waiting->category == ANALYSIS_COMMUNICATION && blocking->category != ANALYSIS_COMMUNICATION;
    item->wait.cause = communication ? ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE : ANALYSIS_CAUSE_SM_SATURATION;
    if (waiting->start_ns < blocking->end_ns)
        snprintf(tail, sizeof tail, "%s started %s before it ended, in the last wave's tail (%" PRId64 " blocks)",
                 name, duration(gap, sizeof gap, blocking->end_ns - waiting->start_ns), resident->last_wave_blocks);
    else if (waiting->launch.threads_per_block > 0)
        snprintf(tail, sizeof tail, "no block of %s (%" PRId64 " threads) fit beside it", name,
                 waiting->launch.threads_per_block);
    else
        snprintf(tail, sizeof tail, "not even a one-warp block of %s fit beside it", name);
    snprintf(item->wait.evidence, sizeof item->wait.evidence,
             "%s%s on stream %" PRId64 " held all %" PRId64 " SMs (%" PRId64 " blocks, %" PRId64
             " resident per SM, limited by %s: %" PRId64 " waves); %s",
             communication ? "NCCL kernel waited for SMs: kernel " : "kernel ", other, blocking->stream_id,
             device->limits.sm_count, blocking->launch.grid_blocks, resident->blocks_per_sm,
             occupancy_limiter_name(resident->limiter), resident->waves, tail);
    return 1;
}

static void explain_unexplained(explainer *explain, struct wait_case *item)
{
    char name[128], other[128], gap[32];
    op_name(explain, item->waiting, name, sizeof name);
    op_name(explain, item->blocking, other, sizeof other);
    item->wait.cause = ANALYSIS_CAUSE_UNEXPLAINED;
    int64_t delay = item->waiting->start_ns - item->blocking->end_ns;
    const char *why = item->in_graph ? "; both may be nodes of one CUDA graph, whose edges the trace does not hold"
                      : !item->launch.known ? "; the trace has no launch record for it (no API records), so a late"
                                              " launch cannot be ruled out"
                                            : "; it was enqueued before and no recorded cause applies";
    snprintf(item->wait.evidence, sizeof item->wait.evidence,
             "%s on stream %" PRId64 " started %s %s %s on stream %" PRId64 " ended%s", name,
             item->waiting->stream_id, duration(gap, sizeof gap, delay < 0 ? -delay : delay),
             delay < 0 ? "before" : "after", other, item->blocking->stream_id, why);
}

/* --- recording --- */

static void fill_op(explainer *explain, const struct lane_state *lane, const struct model_op *op,
                    const struct launch_call *launch, struct analysis_op *out)
{
    out->lane = lane->result_lane;
    out->category = op->category;
    out->start_ns = op->start_ns;
    out->end_ns = op->end_ns;
    out->launch_start_ns = launch && launch->known ? launch->start_ns : STORE_NULL;
    out->launch_end_ns = launch && launch->known ? launch->end_ns : STORE_NULL;
    out->correlation_id = op->correlation_id;
    op_name(explain, op, out->name, sizeof out->name);
}

static void keep_wait(explainer *explain, const struct analysis_wait *wait)
{
    struct analysis_wait *heap = explain->kept;
    size_t count = explain->kept_count, i;
    if (explain->max_waits == 0)
        return;
    if (count < explain->max_waits) {
        i = explain->kept_count++;
        while (i > 0 && heap[(i - 1) / 2].lost_ns > wait->lost_ns) {
            heap[i] = heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        heap[i] = *wait;
        return;
    }
    if (wait->lost_ns <= heap[0].lost_ns)
        return;
    i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= count)
            break;
        if (child + 1 < count && heap[child + 1].lost_ns < heap[child].lost_ns)
            child++;
        if (heap[child].lost_ns >= wait->lost_ns)
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = *wait;
}

static void record_wait(explainer *explain, struct wait_case *item)
{
    struct analysis_wait *wait = &item->wait;
    fill_op(explain, item->waiting_lane, item->waiting, &item->launch, &wait->waiting);
    fill_op(explain, item->blocking_lane, item->blocking, NULL, &wait->blocking);
    explain->total_waits++;
    explain->causes[wait->cause].lost_ns += wait->lost_ns;
    explain->causes[wait->cause].count++;
    item->device->lost_ns += wait->lost_ns;
    /* Headroom counts what a change of code removes: not a dependency the program asked for, not
     * what we cannot explain. */
    if (wait->cause != ANALYSIS_CAUSE_EVENT_DEPENDENCY && wait->cause != ANALYSIS_CAUSE_UNEXPLAINED)
        item->device->explained_lost_ns += wait->lost_ns;
    keep_wait(explain, wait);
}

/* The time lost: how much of X could have run under the other op had it started at wait_start
 * (docs/metrics.md, "time lost"). */
static int set_wait_time(struct wait_case *item, int64_t wait_start_ns)
{
    const struct model_op *waiting = item->waiting;
    item->wait.wait_start_ns = wait_start_ns;
    item->wait.wait_end_ns = waiting->start_ns;
    item->wait.lost_ns = min64(waiting->start_ns - wait_start_ns, waiting->end_ns - waiting->start_ns);
    return item->wait.lost_ns > 0;
}

static void prove(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    find_launch(explain, item);
    item->in_graph = waiting->graph_id != STORE_NULL || (item->launch.known && name_has(item->launch.name, "Graph"));
    /* A graph node is enqueued somewhere inside its graph's launch call: only the call's start
     * bounds when it became ready. */
    int64_t ready_ns = item->previous_end_ns;
    if (item->launch.known)
        ready_ns = max64(ready_ns, item->in_graph ? item->launch.start_ns : item->launch.end_ns);
    /* A graph's kernels have no launch call of their own: the graph launch tells nothing about
     * when each node became ready, so none of them is called late. */
    if (item->launch.known && !item->in_graph && item->launch.end_ns >= blocking->end_ns - EXPLAIN_LAUNCH_LATENCY_NS) {
        if (!set_wait_time(item, max64(item->previous_end_ns, blocking->start_ns)))
            return;
        explain_late_launch(explain, item);
    } else {
        if (!set_wait_time(item, max64(ready_ns, blocking->start_ns)))
            return;
        if (!explain_event_dependency(explain, item) && !explain_legacy_default(item) &&
            !explain_pageable_copy(explain, item) && !explain_copy_engine(item) && !explain_shared_queue(item) &&
            !explain_priority(explain, item, ready_ns) && !explain_sm_saturation(explain, item))
            explain_unexplained(explain, item);
    }
    record_wait(explain, item);
}

void explainer_consider(explainer *explain, struct device_state *device, size_t lane_index,
                        const struct model_op *op, int reportable)
{
    struct lane_state *lane = &device->lanes[lane_index];
    int64_t previous_end_ns = lane->has_last ? max64(lane->previous_end_ns, lane->last.end_ns) : INT64_MIN;
    int own_stream_was_free =
        previous_end_ns == INT64_MIN || previous_end_ns + EXPLAIN_START_TOLERANCE_NS < op->start_ns;
    if (reportable && op->end_ns > op->start_ns && own_stream_was_free) {
        long blocker = find_blocker(device, lane_index, op, previous_end_ns);
        if (blocker >= 0 && (lane->selected || device->lanes[blocker].selected)) {
            struct wait_case item = {.device = device, .waiting_lane = lane, .blocking_lane = &device->lanes[blocker],
                                     .waiting = op, .blocking = &device->lanes[blocker].last,
                                     .previous_end_ns = previous_end_ns,
                                     .previous = lane->has_last ? &lane->last : NULL};
            prove(explain, &item);
        }
    }
    lane->previous_end_ns = previous_end_ns;
    lane->last = *op;
    lane->has_last = 1;
    lane->last_occupancy_state = 0;
}

int64_t explainer_wait_count(const explainer *explain)
{
    return explain->total_waits;
}

static int by_lost_descending(const void *a, const void *b)
{
    const struct analysis_wait *x = a, *y = b;
    if (x->lost_ns != y->lost_ns)
        return x->lost_ns < y->lost_ns ? 1 : -1;
    return (x->waiting.start_ns > y->waiting.start_ns) - (x->waiting.start_ns < y->waiting.start_ns);
}

static int cause_by_lost_descending(const void *a, const void *b)
{
    const struct analysis_cause_total *x = a, *y = b;
    if (x->lost_ns != y->lost_ns)
        return x->lost_ns < y->lost_ns ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return (int)x->cause - (int)y->cause;
}

int explainer_collect(explainer *explain, struct analysis_result *result)
{
    size_t count = explain->kept_count;
    result->waits = NULL;
    if (count) {
        result->waits = malloc(count * sizeof *result->waits);
        if (!result->waits)
            return -1;
        memcpy(result->waits, explain->kept, count * sizeof *result->waits);
        qsort(result->waits, count, sizeof *result->waits, by_lost_descending);
    }
    result->wait_count = count;
    result->wait_total_count = explain->total_waits;
    memcpy(result->causes, explain->causes, sizeof result->causes);
    qsort(result->causes, ANALYSIS_CAUSE_COUNT, sizeof result->causes[0], cause_by_lost_descending);
    return 0;
}
