/* explain.c: see explain.h. The cause rules are one table (`rules`, near the end), in the order
 * of proof strength: what the host did comes first (a late launch makes every GPU-side cause
 * moot), then dependencies the program asked for, then the hardware's reasons. Each rule either
 * proves its cause from recorded fields or passes; a missing field (no API records, no device
 * limits) only removes the rules that need it. The causes' names and what to do about each are
 * their rows in causes/causes.def. */
#include "explain.h"
#include "thread_names.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"
#include "naming.h"
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
    int64_t window_ns; /* the host window examined */
    int64_t cuda_ns;   /* time inside CUDA calls in it (nested calls counted once) */
    int has_call;      /* the longest call below */
    int64_t call_start_ns, call_end_ns, call_overlap_ns, call_correlation_id;
    char call_name[64];
};

struct explainer {
    sqlite3 *db;
    kernel_names *names;
    sqlite3_stmt *launch_query, *host_before_query, *host_within_query, *memcpy_query, *syncs_query,
        *event_query;
    sqlite3_stmt *calls_back_query, *communicator_query, *any_stream_wait_query;
    /* Whether the process of the device being explained has any cudaStreamWaitEvent record: most
     * waits of a trace without them skip the event query (one probe per process instead). */
    int64_t stream_waits_process_id;
    int process_has_stream_waits;
    struct analysis_wait *kept; /* min-heap on lost_ns */
    size_t kept_count, max_waits;
    /* The current wait's `describe` (set with it in set_wait_time), for op_name, which is not
     * given the wait: op names, like the rest of the evidence, are formatted only for waits that
     * will be kept (most waits of a long trace are not, and their text was a tenth of the
     * analysis). */
    int describing;
    struct thread_names threads; /* the launching threads' names, for the evidence */
    char thread_text[64];        /* thread_label's */
    int64_t total_waits;
    struct analysis_cause_total causes[ANALYSIS_CAUSE_COUNT];
};

/* A call the thread made when the blocking op ended. */
struct blocking_call {
    int64_t start_ns, end_ns;
    char name[64];
    int issued_pageable_copy; /* the call issued `blocking`, a copy with a pageable side */
};

/* How X came to wait, which decides the rules tried (docs/metrics.md, "Detection"). */
enum wait_road {
    ROAD_LATE = 1,     /* X's launch reached the GPU only after (or just before) B ended */
    ROAD_HELD = 2,     /* a blocking host call held the launching thread when B ended (rule 4) */
    ROAD_READY = 4,    /* X was enqueued while B ran, yet started only when B ended */
    ROAD_RESOURCES = 8 /* X started while B ran, well after it was ready (rule 3b) */
};

/* One wait being proved. */
struct wait_case {
    struct device_state *device;
    struct lane_state *waiting_lane, *blocking_lane;
    const struct model_op *waiting, *blocking;
    int64_t previous_end_ns;         /* of the waiting stream; INT64_MIN when none */
    const struct model_op *previous; /* the waiting stream's previous op, or NULL */
    struct launch_call launch;
    int in_graph;
    const struct model_op *queue_head; /* shared-queue candidate: the op ahead of X on its channel */
    int same_communicator_candidate;   /* X and B are NCCL kernels, B the device's latest one */
    int resources_held;                /* X started while B still ran: B's blocks held what X needed */
    int other_running;                 /* another stream's op was running when X started */
    int describe;                      /* 0: the wait will not be kept, skip writing its evidence */
    enum wait_road road;
    int64_t ready_ns;              /* when X could have started (docs/metrics.md, "ready time") */
    struct blocking_call call;     /* ROAD_HELD: the call that held the thread */
    int activity_read;             /* ROAD_LATE: `activity` has been read */
    struct host_activity activity; /* ROAD_LATE: the launching thread's calls before X's launch */
    struct analysis_wait wait;
};

/* Writes the wait's evidence line, unless nobody will read it. */
static void describe(struct wait_case *item, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void describe(struct wait_case *item, const char *format, ...)
{
    if (!item->describe)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(item->wait.evidence, sizeof item->wait.evidence, format, args);
    va_end(args);
}

/* CUPTI gives runtime and driver calls their own correlation ids: one row at most. The name is
 * resolved through the kernel-name cache (API names are few). */
static const char *const sql_launch = "SELECT a.start_ns, a.end_ns, a.thread_id, s.value FROM api_calls a "
                                      "LEFT JOIN strings s ON s.id = a.name_id"
                                      " WHERE a.process_id = ?1 AND a.correlation_id = ?2 LIMIT 1";
/* The host rules read CUDA calls (api_domain < 3): an OS runtime wait an import holds (a poll
 * inside cudaDeviceSynchronize, a pthread_cond_wait) is no CUDA call (store.h). */
static const char *const sql_host_before =
    "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value FROM api_calls a LEFT JOIN strings s ON s.id = "
    "a.name_id"
    " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns < ?3 AND a.api_domain < 3"
    " ORDER BY a.start_ns DESC LIMIT 1";
static const char *const sql_host_within = "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value FROM "
                                           "api_calls a LEFT JOIN strings s ON s.id = a.name_id"
                                           " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns >= "
                                           "?3 AND a.start_ns < ?4 AND a.api_domain < 3 ORDER BY a.start_ns"
                                           " LIMIT 4096";
/* The launching thread's calls before a launch, latest first: where it was when the other op ended. */
static const char *const sql_calls_back =
    "SELECT a.start_ns, a.end_ns, s.value, a.correlation_id FROM api_calls a LEFT JOIN strings s ON s.id = "
    "a.name_id"
    " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns < ?3 AND a.api_domain < 3"
    " ORDER BY a.start_ns DESC LIMIT 64";
static const char *const sql_communicator =
    "SELECT communicator FROM collectives WHERE kernel_rowid = ?1 AND communicator IS NOT NULL LIMIT 1";
static const char *const sql_any_stream_wait =
    "SELECT 1 FROM synchronizations WHERE process_id = ?1 AND sync_type = 2 LIMIT 1";
static const char *const sql_memcpy = "SELECT src_kind, dst_kind, bytes, copy_kind FROM memcpys WHERE "
                                      "process_id = ?1 AND correlation_id = ?2 LIMIT 1";
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
    thread_names_open(&explain->threads, db);
    explain->max_waits = max_waits;
    explain->kept = calloc(max_waits ? max_waits : 1, sizeof *explain->kept);
    struct {
        sqlite3_stmt **statement;
        const char *sql;
    } queries[] = {{&explain->launch_query, sql_launch},
                   {&explain->host_before_query, sql_host_before},
                   {&explain->host_within_query, sql_host_within},
                   {&explain->memcpy_query, sql_memcpy},
                   {&explain->syncs_query, sql_syncs},
                   {&explain->event_query, sql_event},
                   {&explain->calls_back_query, sql_calls_back},
                   {&explain->communicator_query, sql_communicator},
                   {&explain->any_stream_wait_query, sql_any_stream_wait}};
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        if (!explain->kept ||
            sqlite3_prepare_v2(db, queries[i].sql, -1, queries[i].statement, NULL) != SQLITE_OK) {
            error_set(err, "cannot prepare the explanation queries: %s", sqlite3_errmsg(db));
            explainer_free(explain);
            return NULL;
        }
    }
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++)
        explain->causes[cause].cause = (enum analysis_cause)cause;
    explain->stream_waits_process_id = INT64_MIN;
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
    sqlite3_finalize(explain->calls_back_query);
    sqlite3_finalize(explain->communicator_query);
    sqlite3_finalize(explain->any_stream_wait_query);
    free(explain->kept);
    thread_names_close(&explain->threads);
    free(explain);
}

/* --- small helpers --- */

/* "thread 1082 (python3)", or "thread 1082" where the trace names no thread: the thread that
 * launched the waiting op, as the evidence names it (formatted only for a wait being described). */
static const char *thread_label(explainer *explain, const struct wait_case *item)
{
    if (!explain->describing)
        return "";
    const char *name = thread_names_find(&explain->threads, item->device->process_id, item->launch.thread_id);
    snprintf(explain->thread_text, sizeof explain->thread_text, "thread %" PRId64 "%s%s%s",
             item->launch.thread_id, name ? " (" : "", name ? name : "", name ? ")" : "");
    return explain->thread_text;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* A bounded copy, cut at size - 1 bytes (names decide causes too, so they are copied for every
 * wait: a plain copy, not snprintf). */
static void copy_text(char *buffer, size_t size, const unsigned char *text)
{
    const char *from = text ? (const char *)text : "?";
    size_t length = strnlen(from, size - 1);
    memcpy(buffer, from, length);
    buffer[length] = '\0';
}

static const char *duration(char *buffer, size_t size, int64_t nanoseconds)
{
    return units_format_duration(buffer, size, nanoseconds);
}

static int is_pageable_copy(const struct model_op *op)
{
    return op->kind == MODEL_MEMCPY && naming_copy_is_pageable(op->src_kind, op->dst_kind);
}

/* "sgemm_256x128", "HtoD 64.0 MiB (pageable)", "memset 1.00 MiB". */
static void op_name(explainer *explain, const struct model_op *op, char *buffer, size_t size)
{
    char bytes[32];
    if (!explain->describing) {
        buffer[0] = '\0';
        return;
    }
    if (op->kind == MODEL_KERNEL) {
        snprintf(buffer, size, "%s", kernel_names_short(explain->names, op->name_id));
    } else if (op->kind == MODEL_MEMCPY) {
        naming_copy(buffer, size, op->copy_kind, op->bytes, is_pageable_copy(op));
    } else {
        snprintf(buffer, size, "memset %s", units_format_bytes(bytes, sizeof bytes, op->bytes));
    }
}

/* An op's name in a sentence that has just named another op: when both are the same kernel (or
 * copy), "spin could have run beside spin" reads as a garble, so the second says its stream. */
static const char *second_name(char *buffer, size_t size, const char *first, const char *second,
                               int64_t stream_id)
{
    if (strcmp(first, second) != 0)
        return second;
    snprintf(buffer, size, "the %s on stream %" PRId64, second, stream_id);
    return buffer;
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
    if (lane->last_occupancy_state < 0 || !lane->last_occupancy.fills_device ||
        lane->last_occupancy.waves < 2)
        return 0;
    return (op->end_ns - op->start_ns) / lane->last_occupancy.waves;
}

/* The other stream's last operation that X started right after (or in whose drain), or -1. */
static long find_blocker(struct device_state *device, size_t waiting_lane, const struct model_op *waiting,
                         int64_t previous_end_ns)
{
    long best = -1;
    int64_t best_distance = INT64_MAX;
    for (size_t k = 0; k < device->recent_count; k++) {
        size_t i = device->recent[k];
        struct lane_state *lane = &device->lanes[i];
        const struct model_op *other = &lane->last;
        if (i == waiting_lane || !lane->has_last || other->end_ns <= other->start_ns ||
            other->start_ns >= waiting->start_ns ||
            waiting->start_ns > other->end_ns + EXPLAIN_START_TOLERANCE_NS)
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

/* The launch call found for item: its times, thread and name as recorded (NULL unknown). */
static void note_launch(struct wait_case *item, int64_t start_ns, int64_t end_ns, int64_t thread_id,
                        const unsigned char *name)
{
    item->launch.known = 1;
    item->launch.start_ns = start_ns;
    item->launch.end_ns = max64(end_ns, start_ns);
    item->launch.thread_id = thread_id;
    /* The API call's name as recorded: a kernel's short-name rule would fold it. */
    copy_text(item->launch.name, sizeof item->launch.name, name);
}

static void find_launch(explainer *explain, struct wait_case *item)
{
    item->launch.known = 0;
    if (item->waiting->correlation_id == STORE_NULL)
        return;
    /* A call with times no recording holds (a damaged trace) is not used: its sums could overflow. */
    if (item->device->launches.complete) { /* the process's calls, read once for the device */
        const struct correlated_call *call =
            launches_find(&item->device->launches, item->waiting->correlation_id);
        if (!call || !store_interval_plausible(call->start_ns, call->end_ns))
            return;
        const char *name = call->has_name ? kernel_names_text(explain->names, call->name_id) : NULL;
        note_launch(item, call->start_ns, call->end_ns, call->thread_id, (const unsigned char *)name);
        return;
    }
    sqlite3_stmt *query = explain->launch_query;
    sqlite3_bind_int64(query, 1, item->device->process_id);
    sqlite3_bind_int64(query, 2, item->waiting->correlation_id);
    if (sqlite3_step(query) == SQLITE_ROW &&
        store_interval_plausible(sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1)))
        note_launch(item, sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1),
                    sqlite3_column_int64(query, 2), sqlite3_column_text(query, 3));
    sqlite3_reset(query);
}

static void consider_host_call(struct host_activity *activity, int64_t window_start, int64_t window_end,
                               sqlite3_stmt *query, int64_t *covered_until)
{
    int64_t start = sqlite3_column_int64(query, 0), end = sqlite3_column_int64(query, 1);
    int64_t from = max64(start, window_start), to = min64(end, window_end);
    if (to <= from || !store_interval_plausible(start, end))
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
        copy->src_kind =
            sqlite3_column_type(query, 0) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 0);
        copy->dst_kind =
            sqlite3_column_type(query, 1) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 1);
        copy->bytes = sqlite3_column_int64(query, 2);
        copy->copy_kind = sqlite3_column_int64(query, 3);
    }
    sqlite3_reset(query);
    return found;
}

/* "returned 7.08 ms after" / "returned only 3.07 us before": when the launch call ended, against
 * the blocking op's end. */
static void launch_timing(const struct wait_case *item, char *when, size_t size)
{
    char late[32];
    when[0] = '\0';
    if (!item->describe)
        return;
    int64_t late_ns = item->launch.end_ns - item->blocking->end_ns;
    if (late_ns >= 0)
        snprintf(when, size, "returned %s after", duration(late, sizeof late, late_ns));
    else
        snprintf(when, size, "returned only %s before", duration(late, sizeof late, -late_ns));
}

/* --- rules of the late road: X's launch returned after (or just before) B ended, so the GPU had
 * nothing to overlap; they name what the launching thread did instead --- */

/* The launching thread's CUDA calls from the wait's start to X's launch, read once per wait (none
 * when the launch call itself began before the wait: the window is empty). */
static const struct host_activity *activity_before_launch(explainer *explain, struct wait_case *item)
{
    if (!item->activity_read) {
        host_activity_in(explain, item->device->process_id, item->launch.thread_id, item->wait.wait_start_ns,
                         item->launch.start_ns, &item->activity);
        item->activity_read = 1;
    }
    return &item->activity;
}

/* The activity when one call covered at least half of that time, else NULL. */
static const struct host_activity *holding_call(explainer *explain, struct wait_case *item)
{
    const struct host_activity *activity = activity_before_launch(explain, item);
    return activity->has_call && activity->call_overlap_ns * 2 >= activity->window_ns ? activity : NULL;
}

/* How long the holding call held the thread, formatted only for a kept wait. */
static const char *held_for(const struct wait_case *item, const struct host_activity *held, char *buffer,
                            size_t size)
{
    buffer[0] = '\0';
    return item->describe ? duration(buffer, size, held->call_overlap_ns) : buffer;
}

/* The thread was in a memcpy with a pageable side, which the driver stages synchronously. */
static int rule_late_pageable_copy(explainer *explain, struct wait_case *item)
{
    const struct host_activity *held = holding_call(explain, item);
    struct model_op copy;
    if (!held || cuda_api_classify(held->call_name) != CUDA_API_COPY ||
        !copy_of_call(explain, item->device->process_id, held->call_correlation_id, &copy) ||
        !is_pageable_copy(&copy))
        return 0;
    char waited[32], name[128], bytes[32];
    held_for(item, held, waited, sizeof waited);
    op_name(explain, item->waiting, name, sizeof name);
    describe(item,
             "%s was in %s (%s %s from/to pageable memory, staged synchronously) for %s;"
             " %s %s on stream %" PRId64 " was launched when it returned",
             thread_label(explain, item), held->call_name, store_copy_kind_name(copy.copy_kind),
             units_format_bytes(bytes, sizeof bytes, copy.bytes), waited, op_kind_word(item->waiting), name,
             item->waiting->stream_id);
    return 1;
}

/* A blocking call that began while X's stream still had work of its own is a barrier over both
 * streams, and an X issued by a blocking call is a read-back the thread waits for anyway: no work
 * was held back, the wait is dropped (docs/metrics.md, "(no wait)"). */
static int rule_barrier(explainer *explain, struct wait_case *item)
{
    const struct host_activity *held = holding_call(explain, item);
    if (!held || !cuda_api_blocks_host(held->call_name))
        return 0;
    if ((item->previous_end_ns == INT64_MIN || held->call_start_ns >= item->previous_end_ns) &&
        !cuda_api_blocks_host(item->launch.name))
        return 0;
    return 1;
}

static int rule_late_host_sync(explainer *explain, struct wait_case *item)
{
    const struct host_activity *held = holding_call(explain, item);
    if (!held || !cuda_api_blocks_host(held->call_name))
        return 0;
    char waited[32], name[128], other[128], when[96];
    held_for(item, held, waited, sizeof waited);
    op_name(explain, item->waiting, name, sizeof name);
    op_name(explain, item->blocking, other, sizeof other);
    launch_timing(item, when, sizeof when);
    describe(item,
             "%s was blocked in %s for %s; %s for %s on stream %" PRId64 " %s %s on stream %" PRId64 " ended",
             thread_label(explain, item), held->call_name, waited, item->launch.name, name,
             item->waiting->stream_id, when, other, item->blocking->stream_id);
    return 1;
}

/* Whatever else the thread did: the launch call itself held it, or CUDA calls, or CPU time. */
static int rule_late_launch(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    char waited[32], name[128], other[128], when[96], took[32], idle[32];
    op_name(explain, waiting, name, sizeof name);
    op_name(explain, blocking, other, sizeof other);
    launch_timing(item, when, sizeof when);
    if (item->launch.start_ns <= item->wait.wait_start_ns) {
        /* The call began before the GPU could have run the op: the call itself held the thread. */
        describe(item,
                 "%s for %s on stream %" PRId64 " began before %s on stream %" PRId64
                 " ended but took %s and %s"
                 " it: the call itself held the thread",
                 item->launch.name, name, waiting->stream_id, other, blocking->stream_id,
                 duration(took, sizeof took, item->launch.end_ns - item->launch.start_ns), when);
        return 1;
    }
    const struct host_activity *activity = activity_before_launch(explain, item);
    int64_t outside_ns = activity->window_ns - activity->cuda_ns;
    if (activity->has_call && activity->cuda_ns * 2 >= activity->window_ns)
        describe(item,
                 "%s for %s on stream %" PRId64 " %s %s on stream %" PRId64 " ended; %s"
                 " spent %s of the %s before it in CUDA calls (longest: %s)",
                 item->launch.name, name, waiting->stream_id, when, other, blocking->stream_id,
                 thread_label(explain, item), duration(waited, sizeof waited, activity->cuda_ns),
                 duration(idle, sizeof idle, activity->window_ns), activity->call_name);
    else
        describe(item,
                 "%s for %s on stream %" PRId64 " %s %s on stream %" PRId64 " ended; %s"
                 " made no CUDA call for %s of the %s before it (CPU or interpreter time)",
                 item->launch.name, name, waiting->stream_id, when, other, blocking->stream_id,
                 thread_label(explain, item), duration(waited, sizeof waited, outside_ns),
                 duration(idle, sizeof idle, activity->window_ns));
    return 1;
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
static int find_blocking_call(explainer *explain, const struct wait_case *item, struct blocking_call *call)
{
    sqlite3_stmt *query = explain->calls_back_query;
    sqlite3_bind_int64(query, 1, item->device->process_id);
    sqlite3_bind_int64(query, 2, item->launch.thread_id);
    sqlite3_bind_int64(query, 3, item->launch.start_ns);
    int found = 0;
    int64_t ended_ns = item->blocking->end_ns;
    while (sqlite3_step(query) == SQLITE_ROW) {
        int64_t start = sqlite3_column_int64(query, 0), end = sqlite3_column_int64(query, 1);
        if (start >= ended_ns || !store_interval_plausible(start, end))
            continue; /* made after the op ended, or with times no recording holds */
        int issued_blocking = sqlite3_column_type(query, 3) != SQLITE_NULL &&
                              sqlite3_column_int64(query, 3) == item->blocking->correlation_id;
        const unsigned char *text = sqlite3_column_text(query, 2);
        const char *name = text ? (const char *)text : "";
        /* The asynchronous call that issued a pageable copy held the thread while it staged the
         * data, until just before the copy ended (a synchronous cudaMemcpy is a serial step the
         * program asked for). */
        int staged = issued_blocking && is_pageable_copy(item->blocking) && !cuda_api_blocks_host(name) &&
                     end + pageable_call_slack_ns(item->blocking) >= ended_ns;
        if (end + START_JITTER_NS < ended_ns && !staged) {
            /* Calls made in the slack after a pageable copy's call returned are passed over. */
            if (is_pageable_copy(item->blocking) &&
                start + pageable_call_slack_ns(item->blocking) >= ended_ns)
                continue;
            break; /* the thread was in no call when the op ended */
        }
        found = (staged || (cuda_api_blocks_host(name) && !issued_blocking)) &&
                (item->previous_end_ns == INT64_MIN || start + START_JITTER_NS >= item->previous_end_ns ||
                 staged);
        if (found) {
            call->start_ns = start;
            call->end_ns = end;
            call->issued_pageable_copy = staged;
            snprintf(call->name, sizeof call->name, "%s", name);
        }
        break;
    }
    sqlite3_reset(query);
    return found;
}

/* --- dependencies the program asked for --- */

/* cudaStreamWaitEvent on the waiting stream, issued after its previous op and before its launch,
 * for an event recorded on the blocking stream after the blocking op. */
static int has_stream_waits(explainer *explain, int64_t process_id)
{
    if (explain->stream_waits_process_id != process_id) {
        sqlite3_stmt *query = explain->any_stream_wait_query;
        sqlite3_bind_int64(query, 1, process_id);
        explain->process_has_stream_waits = sqlite3_step(query) == SQLITE_ROW;
        sqlite3_reset(query);
        explain->stream_waits_process_id = process_id;
    }
    return explain->process_has_stream_waits;
}

static int explain_event_dependency(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    if (!has_stream_waits(explain, item->device->process_id))
        return 0;
    sqlite3_stmt *syncs = explain->syncs_query;
    sqlite3_bind_int64(syncs, 1, item->device->process_id);
    sqlite3_bind_int64(syncs, 2, item->launch.known ? item->launch.start_ns : waiting->start_ns);
    int proved = 0;
    while (!proved && sqlite3_step(syncs) == SQLITE_ROW) {
        if (sqlite3_column_int64(syncs, 0) != STORE_SYNC_STREAM_WAIT_EVENT ||
            sqlite3_column_type(syncs, 1) == SQLITE_NULL ||
            sqlite3_column_int64(syncs, 1) != waiting->stream_id)
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
                describe(item,
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

static int explain_legacy_default(explainer *explain, struct wait_case *item)
{
    (void)explain;
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
    describe(item,
             "stream %" PRId64 " is the legacy default stream and stream %" PRId64
             " is a blocking stream: each waits for the other's earlier work",
             legacy->stream_id, other->stream_id);
    return 1;
}

/* --- the hardware's reasons --- */

/* An NCCL kernel held back by a compute kernel's blocks is the communication's delay, not the
 * compute's: same proof, its own cause. */
static int is_comm_behind_compute(const struct wait_case *item)
{
    return item->waiting->category == ANALYSIS_COMMUNICATION &&
           item->blocking->category != ANALYSIS_COMMUNICATION;
}

static int explain_pageable_copy(explainer *explain, struct wait_case *item)
{
    if (!is_pageable_copy(item->blocking))
        return 0;
    char name[128];
    op_name(explain, item->blocking, name, sizeof name);
    describe(item,
             "copy %s on stream %" PRId64
             " uses pageable host memory: the driver stages it synchronously, and"
             " stream %" PRId64 " started only when it ended",
             name, item->blocking->stream_id, item->waiting->stream_id);
    return 1;
}

static int explain_copy_engine(explainer *explain, struct wait_case *item)
{
    (void)explain;
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    if (waiting->kind != MODEL_MEMCPY || blocking->kind != MODEL_MEMCPY)
        return 0;
    int same_direction = waiting->category == blocking->category &&
                         (waiting->category == ANALYSIS_COPY_HTOD || waiting->category == ANALYSIS_COPY_DTOH);
    int one_engine = item->device->copy_engine_count == 1;
    if (!same_direction && !one_engine)
        return 0;
    if (same_direction)
        describe(item,
                 "%s copies on streams %" PRId64 " and %" PRId64
                 " use the same copy engine: copies in one direction run one at a time",
                 store_copy_kind_name(waiting->copy_kind), blocking->stream_id, waiting->stream_id);
    else
        describe(item,
                 "the device has one copy engine: the copies on streams %" PRId64 " and %" PRId64
                 " ran one after the other",
                 blocking->stream_id, waiting->stream_id);
    return 1;
}

/* X was queued on the same hardware channel behind `queue_head`, an op of another stream enqueued
 * before it (correlation order) that was dispatched only after X was ready, because it waited for
 * the blocking op on its own stream: the channel's FIFO held X. */
static int explain_shared_queue(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking, *head = item->queue_head;
    if (!head || head->start_ns <= item->ready_ns)
        return 0;
    char name[128], other[128], ahead[128];
    op_name(explain, waiting, name, sizeof name);
    op_name(explain, blocking, other, sizeof other);
    op_name(explain, head, ahead, sizeof ahead);
    describe(item,
             "streams %" PRId64 " and %" PRId64 " share hardware channel %" PRId64
             " (more streams than CUDA_DEVICE_MAX_CONNECTIONS), which dispatches in launch order: %s on "
             "stream %" PRId64 " was queued behind %s on stream %" PRId64
             ", which waited for %s on its own stream",
             head->stream_id, waiting->stream_id, waiting->channel_id, name, waiting->stream_id, ahead,
             head->stream_id, other);
    return 1;
}

/* The communicator of an NCCL kernel (collectives.communicator), copied into buffer; 0 when the
 * trace does not name it. */
static int communicator_of(explainer *explain, const struct model_op *op, char *buffer, size_t size)
{
    sqlite3_stmt *query = explain->communicator_query;
    sqlite3_bind_int64(query, 1, op->rowid);
    int found = sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 0);
    if (found)
        copy_text(buffer, size, sqlite3_column_text(query, 0));
    sqlite3_reset(query);
    return found;
}

/* X and B are NCCL kernels of one communicator: NCCL chains a communicator's operations through
 * its internal stream, so they run one at a time whatever the user streams (NCCL src/enqueue.cc,
 * "Create dependency for device stream on user streams"). Without communicator ids in the trace,
 * the NCCL kernels of one process and device are taken as one communicator's, and the evidence
 * says so. */
static int explain_shared_communicator(explainer *explain, struct wait_case *item)
{
    if (!item->same_communicator_candidate)
        return 0;
    char waiting_comm[64], blocking_comm[64], name[128], other[128], which[128];
    int waiting_known = communicator_of(explain, item->waiting, waiting_comm, sizeof waiting_comm);
    int blocking_known = communicator_of(explain, item->blocking, blocking_comm, sizeof blocking_comm);
    if (waiting_known && blocking_known && strcmp(waiting_comm, blocking_comm) != 0)
        return 0;
    if (waiting_known && blocking_known)
        snprintf(which, sizeof which, "communicator %s", waiting_comm);
    else
        snprintf(which, sizeof which,
                 "one communicator (the trace does not name it; one device's NCCL kernels"
                 " are taken as one communicator's)");
    op_name(explain, item->waiting, name, sizeof name);
    op_name(explain, item->blocking, other, sizeof other);
    describe(item,
             "%s on stream %" PRId64 " and %s on stream %" PRId64
             " are collectives of %s: NCCL runs a communicator's"
             " operations one at a time whatever the streams, so the second waited for the first",
             other, item->blocking->stream_id, name, item->waiting->stream_id, which);
    return 1;
}

static int64_t op_priority(const struct model_op *op, const struct lane_state *lane)
{
    return op->priority != STORE_NULL ? op->priority : lane->priority;
}

/* B's grid is less than a full wave, yet it put grid / SMs blocks on every SM, and one block of X
 * does not fit beside them: not for lack of block slots but of a resource B's blocks hold, often
 * shared memory, because the SM's carve-out (split with L1) is the one B ran with (CUPTI's
 * sharedMemoryExecuted) and too small for X. X starts only as B's blocks retire. */
static int explain_resources_held(explainer *explain, struct wait_case *item,
                                  const struct occupancy_result *resident)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    const struct occupancy_device *limits = &item->device->limits;
    int64_t on_every_sm = occupancy_blocks_on_every_sm(limits, &blocking->launch, resident);
    if (on_every_sm <= 0)
        return 0;
    enum occupancy_limiter shortage =
        occupancy_shortage_beside(limits, resident, on_every_sm, &waiting->launch);
    if (shortage == OCCUPANCY_LIMIT_UNKNOWN)
        return 0;
    int communication = is_comm_behind_compute(item);
    if (!item->describe)
        return 1; /* the evidence only for a kept wait */
    char name[128], other[128], need[384], gap[32], when[192];
    op_name(explain, waiting, name, sizeof name);
    op_name(explain, blocking, other, sizeof other);
    int64_t threads = waiting->launch.threads_per_block;
    switch (shortage) {
    case OCCUPANCY_LIMIT_SHARED_MEMORY:
        snprintf(need, sizeof need,
                 "shared memory: the SM's carve-out while it ran was %" PRId64
                 " KiB, its blocks held %" PRId64 " KiB and a block of %s needs %" PRId64 " KiB",
                 resident->shared_bytes_per_sm / 1024, on_every_sm * resident->shared_bytes_per_block / 1024,
                 name, occupancy_shared_bytes_per_block(limits, &waiting->launch) / 1024);
        break;
    case OCCUPANCY_LIMIT_REGISTERS:
        snprintf(need, sizeof need,
                 "registers: its blocks held %" PRId64 " of the SM's %" PRId64
                 ", which left room for %" PRId64 " warps of %s (%" PRId64
                 " registers per thread) across the SM's 4 register sub-partitions; a"
                 " block needs %" PRId64,
                 on_every_sm * resident->registers_per_block, limits->max_registers_per_sm,
                 occupancy_register_room_warps(limits, resident, on_every_sm, &waiting->launch), name,
                 waiting->launch.registers_per_thread, (threads + limits->warp_size - 1) / limits->warp_size);
        break;
    default:
        snprintf(need, sizeof need, "%s: no block of %s (%" PRId64 " threads) fit beside them",
                 occupancy_limiter_name(shortage), name, threads);
        break;
    }
    if (waiting->start_ns < blocking->end_ns)
        snprintf(when, sizeof when, "%s started as its blocks retired, %s before it ended", name,
                 duration(gap, sizeof gap, blocking->end_ns - waiting->start_ns));
    else
        snprintf(when, sizeof when, "%s started when it ended", name);
    describe(item,
             "%skernel %s on stream %" PRId64 " had %" PRId64 " block(s) on each of the %" PRId64
             " SMs (%" PRId64
             " blocks) and no block of the waiting kernel fit beside them for lack of %s; %s",
             communication ? "NCCL kernel waited for SM resources: " : "", other, blocking->stream_id,
             on_every_sm, limits->sm_count, blocking->launch.grid_blocks, need, when);
    return 1;
}

/* The blocking op started after the waiting op was ready and its stream has the higher priority
 * (a lower number): the scheduler chose it first. */
static int explain_priority(explainer *explain, struct wait_case *item)
{
    int64_t ready_ns = item->ready_ns;
    int64_t waiting_priority = op_priority(item->waiting, item->waiting_lane);
    int64_t blocking_priority = op_priority(item->blocking, item->blocking_lane);
    if (!item->launch.known || waiting_priority == STORE_NULL || blocking_priority == STORE_NULL ||
        blocking_priority >= waiting_priority || item->blocking->start_ns <= ready_ns)
        return 0;
    char name[128], other[128], early[32], second[160];
    op_name(explain, item->waiting, name, sizeof name);
    op_name(explain, item->blocking, other, sizeof other);
    describe(item,
             "stream %" PRId64 " has priority %" PRId64 ", above stream %" PRId64 "'s %" PRId64
             ": %s went first although %s was ready %s before it started",
             item->blocking->stream_id, blocking_priority, item->waiting->stream_id, waiting_priority, other,
             second_name(second, sizeof second, other, name, item->waiting->stream_id),
             duration(early, sizeof early, item->blocking->start_ns - ready_ns));
    return 1;
}

static int explain_sm_saturation(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    struct device_state *device = item->device;
    if (waiting->kind != MODEL_KERNEL || blocking->kind != MODEL_KERNEL || !device->limits_known)
        return 0;
    /* The blocking op is its stream's last one (occupancy cached) or, behind a channel or a
     * communicator, an earlier one (computed here). */
    struct occupancy_result earlier;
    const struct occupancy_result *resident = &earlier;
    if (blocking == &item->blocking_lane->last) {
        last_wave_ns(device, item->blocking_lane);
        resident = &item->blocking_lane->last_occupancy;
        if (item->blocking_lane->last_occupancy_state != 1)
            return 0;
    } else if (occupancy_compute(&device->limits, &blocking->launch, &earlier) != 0 ||
               earlier.blocks_per_sm <= 0) {
        return 0;
    }
    if (resident->fills_device) {
        if (occupancy_fits_beside(&device->limits, resident, &waiting->launch))
            return 0;
    } else {
        return explain_resources_held(explain, item, resident);
    }
    int communication = is_comm_behind_compute(item);
    if (!item->describe)
        return 1; /* the evidence only for a kept wait */
    char name[128], other[128], tail[160], gap[32];
    op_name(explain, waiting, name, sizeof name);
    op_name(explain, blocking, other, sizeof other);
    if (item->resources_held)
        snprintf(tail, sizeof tail, "%s started %s after it was ready, as a block of it retired", name,
                 duration(gap, sizeof gap,
                          item->wait.lost_ns > 0 ? waiting->start_ns - item->wait.wait_start_ns : 0));
    else if (waiting->start_ns < blocking->end_ns)
        snprintf(tail, sizeof tail,
                 "%s started %s before it ended, in the last wave's tail (%" PRId64 " blocks)", name,
                 duration(gap, sizeof gap, blocking->end_ns - waiting->start_ns), resident->last_wave_blocks);
    else if (waiting->launch.threads_per_block > 0)
        snprintf(tail, sizeof tail, "no block of %s (%" PRId64 " threads) fit beside it", name,
                 waiting->launch.threads_per_block);
    else
        snprintf(tail, sizeof tail, "not even a one-warp block of %s fit beside it", name);
    describe(item,
             "%s%s on stream %" PRId64 " held all %" PRId64 " SMs (%" PRId64 " blocks, %" PRId64
             " resident per SM, limited by %s: %" PRId64 " waves); %s",
             communication ? "NCCL kernel waited for SMs: kernel " : "kernel ", other, blocking->stream_id,
             device->limits.sm_count, blocking->launch.grid_blocks, resident->blocks_per_sm,
             occupancy_limiter_name(resident->limiter), resident->waves, tail);
    return 1;
}

static int explain_compute_saturation(explainer *explain, struct wait_case *item)
{
    return !is_comm_behind_compute(item) && explain_sm_saturation(explain, item);
}

static int explain_comm_behind_compute(explainer *explain, struct wait_case *item)
{
    return is_comm_behind_compute(item) && explain_sm_saturation(explain, item);
}

static int explain_unexplained(explainer *explain, struct wait_case *item)
{
    char name[128], other[128], gap[32];
    op_name(explain, item->waiting, name, sizeof name);
    op_name(explain, item->blocking, other, sizeof other);
    int64_t delay = item->waiting->start_ns - item->blocking->end_ns;
    const char *why =
        item->in_graph        ? "; both may be nodes of one CUDA graph, whose edges the trace does not hold"
        : !item->launch.known ? "; the trace has no launch record for it (no API records), so a late"
                                " launch cannot be ruled out"
                              : "; it was enqueued before and no recorded cause applies";
    describe(item, "%s on stream %" PRId64 " started %s %s %s on stream %" PRId64 " ended%s", name,
             item->waiting->stream_id, duration(gap, sizeof gap, delay < 0 ? -delay : delay),
             delay < 0 ? "before" : "after", other, item->blocking->stream_id, why);
    return 1;
}

/* --- rules of the held road (detection rule 4): a blocking call held the launching thread when
 * B ended --- */

/* The call that held the thread was the asynchronous one that issued B, a copy with a pageable
 * side: the driver staged it synchronously. */
static int rule_held_pageable_copy(explainer *explain, struct wait_case *item)
{
    const struct blocking_call *call = &item->call;
    if (!call->issued_pageable_copy)
        return 0;
    char name[128], other[128], held[32], after[32];
    op_name(explain, item->waiting, name, sizeof name);
    op_name(explain, item->blocking, other, sizeof other);
    describe(item,
             "%s was in %s for %s: it issued copy %s on stream %" PRId64 " from pageable host"
             " memory and staged it synchronously; %s for %s was called %s after it returned (enqueued before"
             " the copy, %s could have run beside it)",
             thread_label(explain, item), call->name,
             duration(held, sizeof held, call->end_ns - call->start_ns), other, item->blocking->stream_id,
             item->launch.name, name, duration(after, sizeof after, item->launch.start_ns - call->end_ns),
             name);
    return 1;
}

static int rule_held_host_sync(explainer *explain, struct wait_case *item)
{
    const struct blocking_call *call = &item->call;
    char name[128], other[128], held[32], after[32], beside[160];
    op_name(explain, item->waiting, name, sizeof name);
    op_name(explain, item->blocking, other, sizeof other);
    describe(item,
             "%s was blocked in %s for %s until %s on stream %" PRId64 " ended; stream %" PRId64
             " sat idle meanwhile and %s for %s was called %s after the call returned (enqueued before"
             " it, %s could have run beside %s)",
             thread_label(explain, item), call->name,
             duration(held, sizeof held, call->end_ns - call->start_ns), other, item->blocking->stream_id,
             item->waiting->stream_id, item->launch.name, name,
             duration(after, sizeof after, item->launch.start_ns - call->end_ns), name,
             second_name(beside, sizeof beside, name, other, item->blocking->stream_id));
    return 1;
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
    out->name_id = op->kind == MODEL_KERNEL ? op->name_id : 0;
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
    explain->total_waits++;
    explain->causes[wait->cause].lost_ns += wait->lost_ns;
    explain->causes[wait->cause].count++;
    item->device->lost_ns += wait->lost_ns;
    item->device->cause_count[wait->cause]++;
    /* Headroom counts what a change of code removes: not a dependency the program asked for or
     * NCCL's own ordering, not what we cannot explain. */
    if (wait->cause != ANALYSIS_CAUSE_EVENT_DEPENDENCY && wait->cause != ANALYSIS_CAUSE_SHARED_COMMUNICATOR &&
        wait->cause != ANALYSIS_CAUSE_UNEXPLAINED)
        item->device->explained_lost_ns += wait->lost_ns;
    if (!item->describe)
        return;
    fill_op(explain, item->waiting_lane, item->waiting, &item->launch, &wait->waiting);
    fill_op(explain, item->blocking_lane, item->blocking, NULL, &wait->blocking);
    keep_wait(explain, wait);
}

/* Whether a wait losing lost_ns would enter the kept waits. */
static int would_keep(const explainer *explain, int64_t lost_ns)
{
    return explain->max_waits > 0 &&
           (explain->kept_count < explain->max_waits || lost_ns > explain->kept[0].lost_ns);
}

/* The time lost: how much of X could have run under the other op had it started at wait_start
 * (docs/metrics.md, "time lost"), counting the wait only until held_until_ns (INT64_MAX: X's
 * start). */
static int set_wait_time(explainer *explain, struct wait_case *item, int64_t wait_start_ns,
                         int64_t held_until_ns)
{
    const struct model_op *waiting = item->waiting;
    item->wait.wait_start_ns = wait_start_ns;
    item->wait.wait_end_ns = waiting->start_ns;
    item->wait.lost_ns =
        min64(min64(waiting->start_ns, held_until_ns) - wait_start_ns, waiting->end_ns - waiting->start_ns);
    item->describe = would_keep(explain, item->wait.lost_ns);
    explain->describing = item->describe;
    return item->wait.lost_ns > 0;
}

/* --- the rules, in proof order --- */

/* One rule: tried on the waits of its roads, `proves` proves the rule's cause from recorded
 * fields (and writes the evidence) and returns 1, or passes (0) when the trace does not prove it.
 * The first rule of a wait's road that proves its cause names it; the docs/metrics.md cause table
 * lists the same rows in the same order; what to do about each cause is in causes/causes.def. */
struct cause_rule {
    const char *name;
    enum analysis_cause cause; /* NO_WAIT: proves that there is no missed overlap */
    unsigned roads;            /* enum wait_road bits */
    int (*proves)(explainer *explain, struct wait_case *item);
};
#define NO_WAIT ANALYSIS_CAUSE_COUNT

/* What the host did comes first (a late launch makes every GPU-side cause moot), then the
 * dependencies the program asked for, then the hardware's reasons; `unexplained` last, said so,
 * never guessed. A wait on the resources road that no rule proves is no wait. */
static const struct cause_rule rules[] = {
    {"pageable copy held the launching thread", ANALYSIS_CAUSE_PAGEABLE_COPY, ROAD_LATE,
     rule_late_pageable_copy},
    {"barrier over both streams: no wait", NO_WAIT, ROAD_LATE, rule_barrier},
    {"blocking call held the launching thread", ANALYSIS_CAUSE_HOST_SYNC, ROAD_LATE, rule_late_host_sync},
    {"late launch", ANALYSIS_CAUSE_LATE_LAUNCH, ROAD_LATE, rule_late_launch},
    {"pageable copy staged by the blocking call", ANALYSIS_CAUSE_PAGEABLE_COPY, ROAD_HELD,
     rule_held_pageable_copy},
    {"host synchronization", ANALYSIS_CAUSE_HOST_SYNC, ROAD_HELD, rule_held_host_sync},
    {"event dependency", ANALYSIS_CAUSE_EVENT_DEPENDENCY, ROAD_READY, explain_event_dependency},
    {"one NCCL communicator", ANALYSIS_CAUSE_SHARED_COMMUNICATOR, ROAD_READY, explain_shared_communicator},
    {"legacy default stream", ANALYSIS_CAUSE_LEGACY_DEFAULT_STREAM, ROAD_READY, explain_legacy_default},
    {"pageable copy", ANALYSIS_CAUSE_PAGEABLE_COPY, ROAD_READY, explain_pageable_copy},
    {"copy engine", ANALYSIS_CAUSE_COPY_ENGINE, ROAD_READY, explain_copy_engine},
    {"shared hardware queue", ANALYSIS_CAUSE_SHARED_QUEUE, ROAD_READY, explain_shared_queue},
    {"stream priority", ANALYSIS_CAUSE_STREAM_PRIORITY, ROAD_READY, explain_priority},
    {"SM saturation", ANALYSIS_CAUSE_SM_SATURATION, ROAD_READY | ROAD_RESOURCES, explain_compute_saturation},
    {"communication behind compute", ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE, ROAD_READY | ROAD_RESOURCES,
     explain_comm_behind_compute},
    {"unexplained", ANALYSIS_CAUSE_UNEXPLAINED, ROAD_READY, explain_unexplained},
};

/* Proves the wait's cause with the first rule of its road that applies, and records the wait
 * unless that rule proved there is none. */
static void apply_rules(explainer *explain, struct wait_case *item)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if (!(rules[i].roads & item->road) || !rules[i].proves(explain, item))
            continue;
        if (rules[i].cause != NO_WAIT) {
            item->wait.cause = rules[i].cause;
            record_wait(explain, item);
        }
        return;
    }
}

/* X waited for B, found by detection rules 1 to 3b: sets the wait's road and time, then proves. */
static void prove(explainer *explain, struct wait_case *item)
{
    const struct model_op *waiting = item->waiting, *blocking = item->blocking;
    find_launch(explain, item);
    item->in_graph =
        waiting->graph_id != STORE_NULL || (item->launch.known && name_has(item->launch.name, "Graph"));
    /* A graph node is enqueued somewhere inside its graph's launch call, and a pageable copy's DMA
     * starts while its call is still staging the data: only the call's start bounds when they
     * became ready. */
    int enqueued_in_call = item->in_graph || is_pageable_copy(waiting);
    int64_t ready_ns = item->previous_end_ns;
    int64_t enqueued_ns = enqueued_in_call ? item->launch.start_ns : item->launch.end_ns;
    if (item->launch.known)
        ready_ns = max64(ready_ns, enqueued_ns);
    item->ready_ns = ready_ns;
    if (item->resources_held) {
        /* X started in the middle of B: a wait only when its launch proves it was ready well
         * before, and only SM resources held by B's blocks explain it (else no case at all). */
        int64_t wait_start = max64(ready_ns, blocking->start_ns);
        if (!item->launch.known || item->in_graph ||
            waiting->start_ns - wait_start <= EXPLAIN_START_TOLERANCE_NS ||
            !set_wait_time(explain, item, wait_start, INT64_MAX))
            return;
        item->road = ROAD_RESOURCES;
    } else if (item->launch.known && !item->in_graph &&
               enqueued_ns >= blocking->end_ns - EXPLAIN_LAUNCH_LATENCY_NS) {
        /* A graph's kernels have no launch call of their own: the graph launch tells nothing
         * about when each node became ready, so none of them is called late. */
        if (!set_wait_time(explain, item, max64(item->previous_end_ns, blocking->start_ns), INT64_MAX))
            return;
        item->road = ROAD_LATE;
    } else {
        if (!set_wait_time(explain, item, max64(ready_ns, blocking->start_ns), INT64_MAX))
            return;
        item->road = ROAD_READY;
    }
    apply_rules(explain, item);
}

/* X ran after B although its stream sat idle, because X's launch came only after a blocking call
 * (a synchronization, cudaMalloc/cudaFree, a synchronous copy) that held the thread until B
 * ended, a call begun after X's stream had drained: enqueued before the call, X could have run
 * beside B (docs/metrics.md, "host-sync"). Detection rule 4: sets the road and time, then proves. */
static void prove_host_sync(explainer *explain, struct wait_case *item)
{
    find_launch(explain, item);
    /* A graph node has no launch of its own; an op issued by a blocking call (cudaMemcpy) is the
     * program reading results back: the thread waits for it anyway, it is no work held back. */
    if (!item->launch.known || item->waiting->graph_id != STORE_NULL ||
        name_has(item->launch.name, "Graph") || cuda_api_blocks_host(item->launch.name))
        return;
    struct blocking_call *call = &item->call;
    if (!find_blocking_call(explain, item, call) || call->end_ns > item->launch.start_ns) {
        /* No call held the thread when B ended, X's launch returned only after B ended (or just
         * before) and X started soon after B's end: the GPU idled a moment until the host
         * enqueued X (a launch-bound loop). Longer idle gaps are host phases (start-up, data
         * loading), shown as idle time, not as a missed overlap. */
        if (item->other_running || item->launch.end_ns < item->blocking->end_ns - EXPLAIN_LAUNCH_LATENCY_NS ||
            item->waiting->start_ns > item->blocking->end_ns + EXPLAIN_LATE_LAUNCH_GAP_NS ||
            !set_wait_time(explain, item, max64(item->previous_end_ns, item->blocking->start_ns), INT64_MAX))
            return;
        item->road = ROAD_LATE;
        apply_rules(explain, item);
        return;
    }
    int64_t wait_start_ns = max64(max64(item->previous_end_ns, item->blocking->start_ns), call->start_ns);
    /* The call must be what kept the launch back: the thread was held in it for at least half of
     * the time from the stream going idle to the launch (as for late launches). */
    int64_t held_ns = call->end_ns - wait_start_ns;
    if (held_ns * 2 < item->launch.start_ns - wait_start_ns)
        return;
    if (!set_wait_time(explain, item, wait_start_ns, call->end_ns))
        return;
    item->road = ROAD_HELD;
    apply_rules(explain, item);
}

/* --- finding the op X waited for --- */

static int lane_index_of(const struct device_state *device, const struct lane_state *lane)
{
    return (int)(lane - device->lanes);
}

/* The waiting stream was free while `other` ran (it had not just finished its own work). */
static int stream_free_during(const struct model_op *other, int64_t previous_end_ns)
{
    return previous_end_ns == INT64_MIN || other->end_ns > previous_end_ns + EXPLAIN_START_TOLERANCE_NS;
}

/* What the strongest proofs found, before a wait_case is made of it: a wait_case is large (its
 * evidence and host figures) and zeroing one for each op whose stream was free cost a host-bound
 * trace, where nearly every op is one, more than the proofs. */
struct proof_found {
    struct lane_state *blocking_lane;
    const struct model_op *blocking;
    const struct model_op *queue_head;
    int same_communicator_candidate;
};

/* X is an NCCL kernel that started when the device's previous NCCL kernel, on another stream,
 * ended. */
static int find_communicator_blocker(struct device_state *device, size_t waiting_lane,
                                     const struct model_op *op, int64_t previous_end_ns,
                                     struct proof_found *item)
{
    const struct model_op *other = &device->last_communication;
    if (op->category != ANALYSIS_COMMUNICATION || !device->has_last_communication ||
        device->last_communication_lane == waiting_lane || other->end_ns <= other->start_ns ||
        other->start_ns >= op->start_ns || op->start_ns < other->end_ns - START_JITTER_NS ||
        op->start_ns > other->end_ns + EXPLAIN_START_TOLERANCE_NS ||
        !stream_free_during(other, previous_end_ns))
        return 0;
    item->blocking_lane = &device->lanes[device->last_communication_lane];
    item->blocking = other;
    item->same_communicator_candidate = 1;
    return 1;
}

struct channel_key {
    const struct device_state *device;
    int64_t channel_id;
    int is_copy;
};

static int channel_matches(const void *context, size_t position)
{
    const struct channel_key *key = context;
    const struct channel_state *channel = &key->device->channels[position];
    return channel->channel_id == key->channel_id && channel->is_copy == key->is_copy;
}

static uint64_t channel_hash(const struct model_op *op)
{
    return key_index_hash(op->channel_id, op->kind != MODEL_KERNEL, 0, 0);
}

static struct channel_state *channel_of(struct device_state *device, const struct model_op *op)
{
    if (op->channel_id == STORE_NULL)
        return NULL;
    struct channel_key key = {device, op->channel_id, op->kind != MODEL_KERNEL};
    if (device->last_channel_hit < device->channel_count && channel_matches(&key, device->last_channel_hit))
        return &device->channels[device->last_channel_hit];
    long found = key_index_find(&device->channel_index, channel_hash(op), channel_matches, &key);
    if (found < 0)
        return NULL;
    device->last_channel_hit = (size_t)found;
    return &device->channels[found];
}

/* X is on a channel whose latest dispatched op (the head, of another stream, enqueued before X)
 * had waited for its own stream's previous op, and X was dispatched right after the head. */
static int find_queue_blocker(struct device_state *device, size_t waiting_lane, const struct model_op *op,
                              int64_t previous_end_ns, struct proof_found *item)
{
    struct channel_state *channel = channel_of(device, op);
    if (!channel || channel->lane == waiting_lane || !channel->has_held_by)
        return 0;
    const struct model_op *head = &channel->head, *held_by = &channel->held_by;
    if (head->correlation_id == STORE_NULL || op->correlation_id == STORE_NULL ||
        head->correlation_id > op->correlation_id || op->start_ns < head->start_ns ||
        op->start_ns > head->start_ns + EXPLAIN_QUEUE_DISPATCH_NS ||
        head->start_ns > held_by->end_ns + EXPLAIN_START_TOLERANCE_NS ||
        held_by->end_ns <= held_by->start_ns || !stream_free_during(held_by, previous_end_ns))
        return 0;
    item->blocking_lane = &device->lanes[channel->lane];
    item->blocking = held_by;
    item->queue_head = head;
    return 1;
}

/* For a host-sync check: the other stream's op that ended last before X started, while X's
 * stream was free. */
static long find_drained_before(const struct device_state *device, size_t waiting_lane,
                                const struct model_op *op, int64_t previous_end_ns)
{
    long best = -1;
    for (size_t k = 0; k < device->recent_count; k++) {
        size_t i = device->recent[k];
        const struct lane_state *lane = &device->lanes[i];
        const struct model_op *other = &lane->last;
        if (i == waiting_lane || !lane->has_last || other->end_ns <= other->start_ns ||
            other->end_ns > op->start_ns || !stream_free_during(other, previous_end_ns))
            continue;
        if (best < 0 || other->end_ns > device->lanes[best].last.end_ns)
            best = (long)i;
    }
    return best;
}

/* X (a kernel) started while another stream's kernel B was still running, well after B began and
 * after X's own stream had drained: a candidate for "B's blocks held the SM resources X needed"
 * (explain_sm_saturation proves it or the case is dropped). Of several, the one running longest. */
static long find_resource_holder(const struct device_state *device, size_t waiting_lane,
                                 const struct model_op *op, int64_t previous_end_ns)
{
    long best = -1;
    if (op->kind != MODEL_KERNEL)
        return -1;
    for (size_t k = 0; k < device->recent_count; k++) {
        size_t i = device->recent[k];
        const struct lane_state *lane = &device->lanes[i];
        const struct model_op *other = &lane->last;
        if (i == waiting_lane || !lane->has_last || other->kind != MODEL_KERNEL ||
            other->start_ns + EXPLAIN_START_TOLERANCE_NS >= op->start_ns ||
            op->start_ns + START_JITTER_NS >= other->end_ns || !stream_free_during(other, previous_end_ns))
            continue;
        if (best < 0 || other->start_ns < device->lanes[best].last.start_ns)
            best = (long)i;
    }
    return best;
}

/* Whether no block of op fits beside the blocks the lane's last kernel put on every SM. */
static int holds_resources_for(const struct device_state *device, struct lane_state *lane,
                               const struct model_op *op)
{
    if (op->kind != MODEL_KERNEL || !device->limits_known)
        return 0;
    last_wave_ns(device, lane); /* computes the lane's cached occupancy */
    if (lane->last_occupancy_state != 1)
        return 0;
    const struct occupancy_result *resident = &lane->last_occupancy;
    int64_t on_every_sm = occupancy_blocks_on_every_sm(&device->limits, &lane->last.launch, resident);
    return on_every_sm > 0 && occupancy_shortage_beside(&device->limits, resident, on_every_sm,
                                                        &op->launch) != OCCUPANCY_LIMIT_UNKNOWN;
}

/* Remembers op as its channel's head (with the op it followed on its stream) and as the device's
 * latest NCCL kernel. Returns 0, or -1 when out of memory. */
static int remember_dispatch(struct device_state *device, size_t lane_index, const struct model_op *op)
{
    if (op->category == ANALYSIS_COMMUNICATION) {
        device->last_communication = *op;
        device->last_communication_lane = lane_index;
        device->has_last_communication = 1;
    }
    if (op->channel_id == STORE_NULL)
        return 0;
    struct channel_state *channel = channel_of(device, op);
    if (!channel) {
        if (device->channel_count == device->channel_capacity) {
            size_t capacity = device->channel_capacity ? device->channel_capacity * 2 : 8;
            struct channel_state *grown = realloc(device->channels, capacity * sizeof *grown);
            if (!grown)
                return -1;
            device->channels = grown;
            device->channel_capacity = capacity;
        }
        if (key_index_add(&device->channel_index, channel_hash(op), device->channel_count) != 0)
            return -1;
        channel = &device->channels[device->channel_count++];
        *channel = (struct channel_state){.channel_id = op->channel_id, .is_copy = op->kind != MODEL_KERNEL};
    }
    const struct lane_state *lane = &device->lanes[lane_index];
    channel->lane = lane_index;
    channel->head = *op;
    channel->has_held_by = lane->has_last;
    if (lane->has_last)
        channel->held_by = lane->last;
    return 0;
}

/* Lists the lane among the device's recent ones (device_state.h), in lane order; when the list
 * is full, the lane that started work longest ago leaves it. O(DEVICE_RECENT_LANES) per
 * operation at most, nothing while the device has no more lanes than the list holds. */
static void note_recent(struct device_state *device, size_t lane_index)
{
    struct lane_state *lane = &device->lanes[lane_index];
    lane->last_turn = ++device->turn;
    if (lane->is_recent)
        return;
    if (device->recent_count == DEVICE_RECENT_LANES) {
        size_t oldest = 0;
        for (size_t k = 1; k < device->recent_count; k++)
            if (device->lanes[device->recent[k]].last_turn < device->lanes[device->recent[oldest]].last_turn)
                oldest = k;
        device->lanes[device->recent[oldest]].is_recent = 0;
        memmove(&device->recent[oldest], &device->recent[oldest + 1],
                (device->recent_count - oldest - 1) * sizeof device->recent[0]);
        device->recent_count--;
    }
    size_t at = device->recent_count;
    while (at > 0 && device->recent[at - 1] > lane_index)
        at--;
    memmove(&device->recent[at + 1], &device->recent[at],
            (device->recent_count - at) * sizeof device->recent[0]);
    device->recent[at] = lane_index;
    device->recent_count++;
    lane->is_recent = 1;
}

int explainer_consider(explainer *explain, struct device_state *device, size_t lane_index,
                       const struct model_op *op, int reportable)
{
    struct lane_state *lane = &device->lanes[lane_index];
    int64_t previous_end_ns = lane->has_last ? max64(lane->previous_end_ns, lane->last.end_ns) : INT64_MIN;
    int own_stream_was_free =
        previous_end_ns == INT64_MIN || previous_end_ns + EXPLAIN_START_TOLERANCE_NS < op->start_ns;
    if (reportable && op->end_ns > op->start_ns && own_stream_was_free) {
        /* The strongest proof first: a communicator or a channel FIFO names the op X queued
         * behind; then the op X started right after; then a blocking host call. */
        struct proof_found proof = {0};
        int found = find_communicator_blocker(device, lane_index, op, previous_end_ns, &proof) ||
                    find_queue_blocker(device, lane_index, op, previous_end_ns, &proof);
        long blocker = found ? lane_index_of(device, proof.blocking_lane)
                             : find_blocker(device, lane_index, op, previous_end_ns);
        int host_sync = 0, other_running = 0, resources_held = 0;
        if (blocker < 0) {
            /* Only when B's blocks provably leave no room for X: the check is pure arithmetic on
             * the lane's cached occupancy, the launch lookup that follows is a query. */
            blocker = find_resource_holder(device, lane_index, op, previous_end_ns);
            other_running = blocker >= 0;
            if (blocker >= 0 && !holds_resources_for(device, &device->lanes[blocker], op))
                blocker = -1;
            resources_held = blocker >= 0;
        }
        if (blocker < 0) {
            blocker = find_drained_before(device, lane_index, op, previous_end_ns);
            host_sync = blocker >= 0;
        }
        if (blocker >= 0 && (lane->selected || device->lanes[blocker].selected)) {
            struct wait_case item = {.device = device,
                                     .waiting_lane = lane,
                                     .waiting = op,
                                     .previous_end_ns = previous_end_ns,
                                     .previous = lane->has_last ? &lane->last : NULL,
                                     .blocking_lane = found ? proof.blocking_lane : &device->lanes[blocker],
                                     .blocking = found ? proof.blocking : &device->lanes[blocker].last,
                                     .queue_head = proof.queue_head,
                                     .same_communicator_candidate = proof.same_communicator_candidate,
                                     .other_running = other_running,
                                     .resources_held = resources_held};
            if (host_sync)
                prove_host_sync(explain, &item);
            else
                prove(explain, &item);
        }
    }
    if (remember_dispatch(device, lane_index, op) != 0)
        return -1;
    lane->previous_end_ns = previous_end_ns;
    lane->last = *op;
    lane->has_last = 1;
    lane->last_occupancy_state = 0;
    note_recent(device, lane_index);
    return 0;
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
