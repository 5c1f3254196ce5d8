/* idle.c: the cause of each idle gap of a device (docs/metrics.md, "Idle time"). A gap runs from
 * the moment the device ran out of work to the start of the operation X that ended it. If X was
 * enqueued before the gap began, the GPU held queued work: it waited for something outside the
 * device (an event of another device or process, NCCL peers), or the trace cannot say. Otherwise
 * X came late from the host, and the gap is split along what X's launching thread did: inside a
 * blocking call (host-sync, named by the call), outside any CUDA call for a stretch of at least
 * IDLE_HOST_CPU_MIN_NS (host-cpu), and the rest (other CUDA calls, the short stretches between
 * them, X's own launch reaching the GPU) is launch-bound, or belongs to the blocking call before it
 * when the host went straight from that call to re-filling the queue: the queue was empty because
 * the host had waited for it to drain. A stretch the thread spent in an OS runtime wait (imports of
 * nsys exports hold them: a pthread_cond_wait, a poll) is host-cpu too, named by the call. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_source.h"
#include "cuda_api.h"
#include "explain.h"
#include "host_samples.h"
#include "host_wait.h"
#include "idle.h"
#include "ledger.h"
#include "store.h"
#include "units.h"
#include "warmup.h"

/* A stretch outside CUDA calls at least this long is the host's own work; shorter ones are the
 * per-launch overhead of a loop that issues work (the late-launch threshold of the waits). */
#define IDLE_HOST_CPU_MIN_NS EXPLAIN_LATE_LAUNCH_GAP_NS
/* A device-to-host copy this small followed by a synchronization is a scalar readback
 * (PyTorch's .item(), a loss printed every step). */
#define IDLE_READBACK_MAX_BYTES 65536
#define IDLE_MAX_CALLS 4096

struct host_call {
    int64_t start_ns, end_ns, correlation_id;
    int is_os_wait; /* an OS runtime call that waits (api_domain 3, imports only): no CUDA call */
    char name[64];
    /* A call read from memory whose name is not copied yet (name_call copies it): of the calls read
     * around a gap only the blocking ones are named, and copying each name was most of reading
     * them; the others are classified by their name's id (call_kind_of). */
    const struct thread_call *unnamed;
};

struct gap {
    accountant *acc;
    struct device_state *device;
    const struct model_op *next;
    int64_t start_ns, end_ns;
    int64_t launch_start_ns, launch_end_ns, thread_id;
    char launch_source[128];
    int gave_host, gave_launch_bound; /* host-sync or host-cpu time; launch-bound time */
    int warmup; /* X is the first run of repeated work (warmup.h): its host time is warm-up */
    /* The launching thread's calls in memory (NULL: the store's queries serve), looked up once for
     * both reads of the gap, and the first of them at or after the gap's start. */
    const struct thread_call *held;
    size_t held_count, held_from;
};

/* The first of the held rows of correlation_id whose string exists, as the query's join returns it. */
static const char *held_source(accountant *acc, int64_t correlation_id)
{
    const struct call_source_row *rows = acc->sources;
    size_t low = 0, high = acc->source_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (rows[middle].correlation_id < correlation_id)
            low = middle + 1;
        else
            high = middle;
    }
    for (; low < acc->source_count && rows[low].correlation_id == correlation_id; low++) {
        const char *text = kernel_names_text(acc->names, rows[low].source_id);
        if (text)
            return text;
    }
    return NULL;
}

void idle_call_source(accountant *acc, int64_t process_id, int64_t thread_id, int64_t correlation_id,
                      char *source, size_t size)
{
    source[0] = '\0';
    if (!acc->has_call_sources || correlation_id == STORE_NULL)
        return;
    if (acc->sources_held && acc->sources_process == process_id) {
        const char *text = held_source(acc, correlation_id);
        if (text)
            ledger_copy_text(source, size, text);
    } else if (acc->sources_process != process_id || acc->process_has_sources) {
        /* (A process without a source would ask the store once a gap for nothing.) */
        store_idle_call_source(acc->queries, process_id, correlation_id, source, size);
    }
    const char *name = call_source_is_anonymous(source)
                           ? thread_names_find(&acc->thread_names, process_id, thread_id)
                           : NULL;
    if (name) {
        size_t length = strlen(source);
        snprintf(source + length, size - length, " on thread %s", name);
    }
}

static int give(struct gap *gap, enum accounting_cause cause, const char *label, const char *source,
                int64_t start_ns, int64_t end_ns, const struct evidence_figures *figures)
{
    if (end_ns <= start_ns)
        return 0;
    struct evidence_figures stretch = {.longest_ns = end_ns - start_ns};
    /* One-time work before a first run is warm-up whatever the host samples say it computed (the
     * imports, the first cuDNN call): the samples' verdicts are for the steady state's stretches. */
    if (gap->warmup && (cause == ACCOUNTING_IDLE_HOST_CPU || cause == ACCOUNTING_IDLE_LAUNCH_BOUND ||
                        accounting_cause_fix(cause) == ANALYSIS_FIX_HOST_WORK)) {
        cause = ACCOUNTING_IDLE_WARMUP; /* the host's own work and its calls, before a first run */
        label = WARMUP_LABEL;
        figures = &stretch;
    }
    /* host-cpu and the verdicts its host samples give it (host_samples.h) are the host's own work */
    int host_work = accounting_cause_fix(cause) == ANALYSIS_FIX_HOST_WORK;
    gap->gave_host |= cause == ACCOUNTING_IDLE_HOST_SYNC || host_work || cause == ACCOUNTING_IDLE_WARMUP;
    gap->gave_launch_bound |= cause == ACCOUNTING_IDLE_LAUNCH_BOUND;
    struct selection *selection = gap->device->selection;
    int64_t length_c = selection_clock(selection, end_ns) - selection_clock(selection, start_ns);
    /* Set-up, in a process without steps: before the device's repeated work began, the host's own
     * time is the program starting, which no change moves elsewhere (warmup.h). */
    if (host_work && ledger_current(&gap->acc->ledger)->step_count == 0 &&
        end_ns <= warmup_repeated_work_start(gap->acc, gap->device))
        host_work = 0;
    if (host_work)
        return ledger_attribute_host_work(&gap->acc->ledger, selection, cause, label, source ? source : "",
                                          start_ns, end_ns, length_c, figures, gap->launch_start_ns);
    return ledger_attribute(&gap->acc->ledger, selection, cause, label, source ? source : "", start_ns,
                            end_ns, length_c, figures);
}

static int give_whole(struct gap *gap, enum accounting_cause cause, const char *label,
                      const struct evidence_figures *figures)
{
    return give(gap, cause, label, "", gap->start_ns, gap->end_ns, figures);
}

static void op_label(const struct gap *gap, char *buffer, size_t size)
{
    if (gap->next->kind == MODEL_KERNEL)
        snprintf(buffer, size, "kernel %s", kernel_names_short(gap->acc->names, gap->next->name_id));
    else
        snprintf(buffer, size, "%s on stream %" PRId64,
                 gap->next->kind == MODEL_MEMCPY ? "a copy" : "a memset", gap->next->stream_id);
}

/* Why queued work waited, as the sentence of its cause's evidence says it. */
enum queued_form { QUEUED_PEERS, QUEUED_PEER_COPY, QUEUED_EVENT, QUEUED_NO_SYNCS, QUEUED_HELD };

struct queued_detail {
    const struct gap *gap;
    enum queued_form form;
    int64_t event_id;
};

/* The sentence of a queued gap (evidence_figures.write_detail): written only for the first
 * stretch of a cause, where the detail is kept, not for each of a host-bound trace's gaps. */
static void write_queued_detail(const void *context, char *detail, size_t size)
{
    const struct queued_detail *queued = context;
    const struct gap *gap = queued->gap;
    char what[160], early[32];
    op_label(gap, what, sizeof what);
    units_format_duration(early, sizeof early, gap->start_ns - gap->launch_end_ns);
    switch (queued->form) {
    case QUEUED_PEERS:
        snprintf(detail, size,
                 "%s was enqueued %s before the GPU ran dry and started when its peers were ready", what,
                 early);
        break;
    case QUEUED_PEER_COPY:
        snprintf(detail, size, "%s is a copy between devices, enqueued %s before the GPU ran dry", what,
                 early);
        break;
    case QUEUED_EVENT:
        snprintf(detail, size,
                 "%s was enqueued %s before the GPU ran dry; its stream %" PRId64 " waited for event %" PRId64
                 " (cudaStreamWaitEvent), which no work of this device was left to complete",
                 what, early, gap->next->stream_id, queued->event_id);
        break;
    case QUEUED_NO_SYNCS:
        snprintf(detail, size,
                 "%s was enqueued %s before the GPU ran dry; the trace has no synchronization records to "
                 "show what "
                 "it waited for (torch.profiler: "
                 "experimental_config=_ExperimentalConfig(enable_cuda_sync_events=True))",
                 what, early);
        break;
    case QUEUED_HELD:
        snprintf(detail, size,
                 "%s was enqueued %s before the GPU ran dry; no recorded event wait explains it", what,
                 early);
        break;
    }
}

static int give_queued(struct gap *gap, enum accounting_cause cause, const char *label, enum queued_form form,
                       int64_t event_id)
{
    struct queued_detail queued = {gap, form, event_id};
    struct evidence_figures figures = {.write_detail = write_queued_detail, .detail_context = &queued};
    return give_whole(gap, cause, label, &figures);
}

/* The last stream-wait-event record of X's stream that began at or before X's launch, as the wait
 * query orders them (latest start first, then latest row): 1 with its event id, else 0. */
static int stream_waited(const struct gap *gap, int64_t *event_id)
{
    const accountant *acc = gap->acc;
    if (acc->stream_waits_held) {
        const struct stream_wait *waits = acc->stream_waits;
        size_t low = 0, high = acc->stream_wait_count; /* past the last that began at or before */
        while (low < high) {
            size_t middle = low + (high - low) / 2;
            if (waits[middle].start_ns <= gap->launch_start_ns)
                low = middle + 1;
            else
                high = middle;
        }
        while (low-- > 0)
            if (waits[low].stream_id == gap->next->stream_id) {
                *event_id = waits[low].event_id;
                return 1;
            }
        return 0;
    }
    return store_idle_stream_wait(acc->queries, gap->device->process_id, gap->launch_start_ns,
                                  gap->next->stream_id, event_id);
}

/* X was in the queue before the GPU ran dry. */
static int queued_gap(struct gap *gap)
{
    accountant *acc = gap->acc;
    if (gap->end_ns - gap->start_ns <= EXPLAIN_START_TOLERANCE_NS)
        return give_whole(gap, ACCOUNTING_IDLE_DISPATCH, "queued", &(struct evidence_figures){0});
    if (gap->next->category == ANALYSIS_COMMUNICATION)
        return give_queued(gap, ACCOUNTING_IDLE_PEER_WAIT, "NCCL peers", QUEUED_PEERS, 0);
    if (gap->next->category == ANALYSIS_COPY_PEER)
        return give_queued(gap, ACCOUNTING_IDLE_OTHER_DEVICE, "peer copy", QUEUED_PEER_COPY, 0);
    int64_t event_id = 0;
    if (stream_waited(gap, &event_id))
        return give_queued(gap, ACCOUNTING_IDLE_OTHER_DEVICE, "cudaStreamWaitEvent", QUEUED_EVENT, event_id);
    if (!acc->process_has_syncs)
        return give_queued(gap, ACCOUNTING_IDLE_UNEXPLAINED, "no synchronization records", QUEUED_NO_SYNCS,
                           0);
    return give_queued(gap, ACCOUNTING_IDLE_UNEXPLAINED, "queued work held back", QUEUED_HELD, 0);
}

/* The launching thread's calls, one row at a time, from memory (thread_calls.h) or, when the
 * thread's calls are not held there, from the store's query: the same rows in the same order. */
struct call_rows {
    store_idle *query; /* NULL: from memory */
    int forward;       /* the store's walk: forward or backward (queries_idle.h) */
    thread_calls *threads;
    const struct thread_call *calls;
    size_t next, end; /* memory: the next index and one past the last (backwards: next > end) */
    int backwards;
};

/* Reads the next row into call; a row from memory keeps its name in the store's cache until
 * name_call. Returns 1, or 0 at the end. */
static inline int next_row(struct call_rows *rows, struct host_call *call)
{
    if (!rows->query) {
        if (rows->next == rows->end)
            return 0;
        const struct thread_call *row = &rows->calls[rows->backwards ? --rows->next : rows->next++];
        call->start_ns = row->start_ns;
        call->end_ns = row->end_ns;
        call->correlation_id = row->correlation_id;
        call->is_os_wait = row->api_domain == STORE_API_OS_RUNTIME;
        call->unnamed = row;
        return 1;
    }
    struct store_idle_call row;
    if (!store_idle_calls_next(rows->query, rows->forward, &row))
        return 0;
    call->start_ns = row.start_ns;
    call->end_ns = row.end_ns;
    call->correlation_id = row.correlation_id;
    const char *name = row.name;
    call->is_os_wait = row.api_domain == STORE_API_OS_RUNTIME;
    ledger_copy_text(call->name, sizeof call->name, name ? name : "?");
    call->unnamed = NULL;
    return 1;
}

/* Copies the name of a call next_row left unnamed. */
static void name_call(accountant *acc, struct host_call *call)
{
    if (!call->unnamed)
        return;
    const char *name = thread_calls_name(acc->threads, call->unnamed);
    ledger_copy_text(call->name, sizeof call->name, name ? name : "?");
    call->unnamed = NULL;
}

/* What cuda_api.h says of the call's name (as host_call.name holds it: cut to its size), from the
 * accountant's cache when the call was read from memory with a name id: a host-bound trace's
 * every gap asked it of each call around the gap, and the names are a few dozen. */
static struct call_kind call_kind_of(accountant *acc, struct host_call *call)
{
    const struct thread_call *row = call->unnamed;
    struct call_kind *cached = NULL;
    if (row && row->has_name && row->name_id > 0) {
        cached = &acc->call_kinds[(uint64_t)row->name_id % ACCOUNTANT_CALL_KINDS];
        if (cached->name_id == row->name_id)
            return *cached;
    }
    name_call(acc, call);
    struct call_kind kind = {.name_id = cached ? row->name_id : 0,
                             .blocks_host = cuda_api_blocks_host(call->name),
                             .api_class = cuda_api_classify(call->name)};
    if (cached)
        *cached = kind;
    return kind;
}

/* Finds the launching thread's calls in memory (gap->held), once per gap. */
static void find_held(struct gap *gap)
{
    accountant *acc = gap->acc;
    gap->held = acc->threads ? thread_calls_of(acc->threads, gap->device->process_id, gap->thread_id,
                                               &gap->device->launches, &gap->held_count)
                             : NULL;
    if (gap->held) {
        gap->held_from = thread_calls_first_from(gap->held, gap->held_count, gap->start_ns, acc->call_hint);
        acc->call_hint = gap->held_from;
    }
}

/* The rows of the thread's calls that began before the gap, latest first, at most 16 (the
 * store's backward walk, queries_idle.h), or with forward set those that began within it. */
static struct call_rows open_rows(struct gap *gap, int forward)
{
    accountant *acc = gap->acc;
    if (gap->held) {
        size_t from = gap->held_from;
        if (!forward)
            return (struct call_rows){.threads = acc->threads,
                                      .calls = gap->held,
                                      .next = from,
                                      .end = from > 16 ? from - 16 : 0,
                                      .backwards = 1};
        size_t to = thread_calls_first_from(gap->held, gap->held_count, gap->end_ns, from);
        if (to - from > 100000) /* the calls query's LIMIT */
            to = from + 100000;
        return (struct call_rows){.threads = acc->threads, .calls = gap->held, .next = from, .end = to};
    }
    store_idle_calls_begin(acc->queries, forward, gap->device->process_id, gap->thread_id, gap->start_ns,
                           gap->end_ns);
    return (struct call_rows){.query = acc->queries, .forward = forward};
}

static void close_rows(struct call_rows *rows)
{
    if (rows->query)
        store_idle_calls_end(rows->query, rows->forward);
}

/* The launching thread's outermost calls that overlap the gap, in time order; *before is set to
 * the call that ended last before the first of them (a copy a synchronization waits for). */
static size_t host_calls(struct gap *gap, struct host_call *calls, size_t capacity, struct host_call *before)
{
    size_t count = 0;
    before->name[0] = '\0';
    before->correlation_id = STORE_NULL;
    before->unnamed = NULL;
    struct host_call recent[16];
    size_t recent_count = 0;
    find_held(gap);
    struct call_rows rows = open_rows(gap, 0);
    while (recent_count < 16 && next_row(&rows, &recent[recent_count])) {
        /* A call with times no recording holds (a damaged trace) is passed over, not subtracted. */
        const struct host_call *call = &recent[recent_count];
        if (store_interval_plausible(call->start_ns, call->end_ns) && call->end_ns >= call->start_ns)
            recent_count++;
    }
    close_rows(&rows);
    /* recent is latest first: the outermost call still open at the gap's start is the earliest one
     * that ends after it. */
    size_t covering = SIZE_MAX;
    for (size_t i = 0; i < recent_count; i++)
        if (recent[i].end_ns > gap->start_ns)
            covering = i;
    int64_t bound = covering == SIZE_MAX ? gap->start_ns : recent[covering].start_ns;
    for (size_t i = covering == SIZE_MAX ? 0 : covering + 1; i < recent_count; i++) {
        if (recent[i].end_ns <= bound && !recent[i].is_os_wait) {
            *before = recent[i];
            break;
        }
    }
    if (covering != SIZE_MAX)
        calls[count++] = recent[covering];
    rows = open_rows(gap, 1);
    while (count < capacity && next_row(&rows, &calls[count])) {
        const struct host_call *call = &calls[count];
        if (!store_interval_plausible(call->start_ns, call->end_ns) || call->end_ns < call->start_ns)
            continue; /* times no recording holds */
        if (count && call->end_ns <= calls[count - 1].end_ns)
            continue; /* nested in the previous call (a driver call made by a runtime call) */
        count++;
    }
    close_rows(&rows);
    return count;
}

/* The copy a call issued: 1 with its kind, bytes and destination memory kind, 0 when it issued
 * none. */
static int copy_of(accountant *acc, int64_t process_id, int64_t correlation_id, int64_t *copy_kind,
                   int64_t *bytes, int64_t *dst_kind)
{
    if (correlation_id == STORE_NULL)
        return 0;
    return store_idle_copy(acc->queries, process_id, correlation_id, copy_kind, bytes, dst_kind);
}

/* Names a blocking call, telling a scalar readback (.item()) apart from other synchronizations. */
static void blocking_label(struct gap *gap, struct host_call *call, struct host_call *before, char *label,
                           size_t size)
{
    name_call(gap->acc, call);
    name_call(gap->acc, before);
    int64_t kind = 0, bytes = 0, dst_kind = 0;
    int64_t process_id = gap->device->process_id;
    if (copy_of(gap->acc, process_id, call->correlation_id, &kind, &bytes, &dst_kind) &&
        kind == STORE_COPY_DTOH && bytes <= IDLE_READBACK_MAX_BYTES) {
        snprintf(label, size, "%s (small DtoH readback, .item()-style)", call->name);
        return;
    }
    if (strstr(call->name, "Synchronize") && before->name[0] && strstr(before->name, "emcpy") &&
        copy_of(gap->acc, process_id, before->correlation_id, &kind, &bytes, &dst_kind) &&
        kind == STORE_COPY_DTOH && bytes <= IDLE_READBACK_MAX_BYTES) {
        snprintf(label, size, "%s after a small DtoH copy (.item()-style)", call->name);
        return;
    }
    snprintf(label, size, "%s", call->name);
}

/* Whether the call held the thread until GPU work ended: a blocking call by name, or an
 * asynchronous copy from the device to pageable memory, which "will return only once the copy has
 * completed" (CUDA Runtime API, "API synchronization behavior"): PyTorch's .item() is one. */
static int holds_thread(struct gap *gap, struct host_call *call, const struct call_kind *call_kind)
{
    if (call_kind->blocks_host)
        return 1;
    int64_t kind = 0, bytes = 0, dst_kind = 0;
    return call_kind->api_class == CUDA_API_COPY &&
           copy_of(gap->acc, gap->device->process_id, call->correlation_id, &kind, &bytes, &dst_kind) &&
           kind == STORE_COPY_DTOH && dst_kind == STORE_MEMORY_PAGEABLE;
}

/* The evidence of a cudaMalloc or cudaFree that synchronized in a process whose recorded environment
 * turns PyTorch's caching allocator off (PYTORCH_NO_CUDA_MEMORY_CACHING, which PyTorch honours when
 * set at all): then every tensor allocated or freed is such a call, where the allocator would have
 * reused a block. Returns 1 with detail written, else 0. */
static int uncached_allocator(const struct gap *gap, const struct host_call *call, char *detail, size_t size)
{
    const char *value = gap->acc->process_uncached_allocator;
    if (!value[0] || (strcmp(call->name, "cudaFree") != 0 && strcmp(call->name, "cudaMalloc") != 0))
        return 0;
    snprintf(
        detail, size,
        "the recorded environment sets PYTORCH_NO_CUDA_MEMORY_CACHING=%s: PyTorch's caching allocator is "
        "off, so every tensor allocated or freed calls %s (unset it)",
        value, call->name);
    return 1;
}

struct host_walk {
    int after_sync; /* the host came straight from a blocking call */
    char sync_label[64], sync_source[128];
};

/* Time that is neither a blocking call nor the host's own work: it continues a blocking call the
 * host came straight from, else the host was issuing work slower than the GPU ran it. */
static int give_issuing(struct gap *gap, const struct host_walk *walk, int64_t start_ns, int64_t end_ns,
                        const struct evidence_figures *figures)
{
    if (walk->after_sync)
        return give(gap, ACCOUNTING_IDLE_HOST_SYNC, walk->sync_label, walk->sync_source, start_ns, end_ns,
                    NULL);
    return give(gap, ACCOUNTING_IDLE_LAUNCH_BOUND, "host issuing work", gap->launch_source, start_ns, end_ns,
                figures);
}

static int outside_calls(struct gap *gap, struct host_walk *walk, int64_t start_ns, int64_t end_ns)
{
    if (end_ns <= start_ns)
        return 0;
    if (start_ns < gap->launch_start_ns && end_ns - start_ns >= IDLE_HOST_CPU_MIN_NS) {
        walk->after_sync = 0;
        /* The thread's host samples, when the trace has them, say what it did (a read error: none). */
        struct host_verdict verdict;
        if (host_samples_verdict(gap->acc->host, gap->device->process_id, gap->thread_id, start_ns, end_ns,
                                 &verdict, &(error_info){0}) == 1)
            return give(gap, verdict.cause, verdict.label, gap->launch_source, start_ns, end_ns,
                        &verdict.figures);
        struct evidence_figures figures = {.longest_ns = end_ns - start_ns};
        return give(gap, ACCOUNTING_IDLE_HOST_CPU, IDLE_NO_CUDA_CALL, gap->launch_source, start_ns, end_ns,
                    &figures);
    }
    return give_issuing(gap, walk, start_ns, end_ns, NULL);
}

/* The thread waited in an OS call outside CUDA (a pthread_cond_wait for a loader thread, a poll on
 * a socket): host time, as a stretch outside calls is, named by the call and what it waits for. */
static int os_wait(struct gap *gap, struct host_walk *walk, struct host_call *call, int64_t start_ns,
                   int64_t end_ns)
{
    if (start_ns < gap->launch_start_ns && end_ns - start_ns >= IDLE_HOST_CPU_MIN_NS) {
        walk->after_sync = 0;
        name_call(gap->acc, call);
        const char *what = host_wait_class_name(host_wait_classify(call->name));
        char label[128];
        snprintf(label, sizeof label, "%s (waiting for %s)", call->name, what ? what : "something");
        struct evidence_figures figures = {.longest_ns = end_ns - start_ns};
        return give(gap, ACCOUNTING_IDLE_HOST_CPU, label, gap->launch_source, start_ns, end_ns, &figures);
    }
    return give_issuing(gap, walk, start_ns, end_ns, NULL);
}

/* [start_ns, end_ns) of the gap spent inside a CUDA call (previous: the call before it). */
/* Whether the call's synchronization record names a context none of the device's streams has: a
 * cudaDeviceSynchronize of another current device (torch.cuda.synchronize(other)), a stream or
 * event of another device. It waited for none of this device's work. Unknown (no record, no
 * contexts held): 0. */
static int syncs_other_device(const accountant *acc, const struct host_call *call)
{
    if (!acc->sync_contexts_held || !acc->device_contexts_held || acc->device_context_count == 0 ||
        call->correlation_id == STORE_NULL)
        return 0;
    size_t low = 0, high = acc->sync_context_count;
    while (low < high) { /* the first record of the correlation id */
        size_t middle = low + (high - low) / 2;
        if (acc->sync_contexts[middle].correlation_id < call->correlation_id)
            low = middle + 1;
        else
            high = middle;
    }
    if (low == acc->sync_context_count || acc->sync_contexts[low].correlation_id != call->correlation_id)
        return 0;
    for (size_t i = 0; i < acc->device_context_count; i++)
        if (acc->device_contexts[i] == acc->sync_contexts[low].context_id)
            return 0;
    return 1;
}

static int inside_call(struct gap *gap, struct host_walk *walk, struct host_call *call,
                       struct host_call *previous, int64_t start_ns, int64_t end_ns)
{
    struct call_kind kind = call_kind_of(gap->acc, call);
    if (!holds_thread(gap, call, &kind)) {
        struct evidence_figures figures = {.calls = kind.api_class == CUDA_API_LAUNCH,
                                           .call_ns = end_ns - start_ns};
        return give_issuing(gap, walk, start_ns, end_ns, &figures);
    }
    blocking_label(gap, call, previous, walk->sync_label, sizeof walk->sync_label);
    idle_call_source(gap->acc, gap->device->process_id, gap->thread_id, call->correlation_id,
                     walk->sync_source, sizeof walk->sync_source);
    if (syncs_other_device(gap->acc, call)) {
        walk->after_sync = 0; /* the host goes on from it as from any call of its own */
        return give(gap, ACCOUNTING_IDLE_SYNC_OTHER_DEVICE, walk->sync_label, walk->sync_source, start_ns,
                    end_ns, NULL);
    }
    walk->after_sync = 1;
    char detail[192];
    struct evidence_figures figures = {.detail = detail};
    return give(gap, ACCOUNTING_IDLE_HOST_SYNC, walk->sync_label, walk->sync_source, start_ns, end_ns,
                uncached_allocator(gap, call, detail, sizeof detail) ? &figures : NULL);
}

static int host_gap(struct gap *gap)
{
    struct host_call calls[256], before;
    size_t count = host_calls(gap, calls, sizeof calls / sizeof calls[0], &before);
    struct host_walk walk = {0};
    int64_t cursor = gap->start_ns;
    for (size_t i = 0; i < count; i++) {
        struct host_call *call = &calls[i];
        if (call->start_ns > cursor && outside_calls(gap, &walk, cursor, call->start_ns) != 0)
            return -1;
        int64_t start = call->start_ns > cursor ? call->start_ns : cursor;
        int64_t end = call->end_ns < gap->end_ns ? call->end_ns : gap->end_ns;
        if (end > start &&
            (call->is_os_wait ? os_wait(gap, &walk, call, start, end)
                              : inside_call(gap, &walk, call, i ? &calls[i - 1] : &before, start, end)) != 0)
            return -1;
        if (end > cursor)
            cursor = end;
    }
    /* Then (or with more calls than read) X's launch reaching the GPU. */
    return cursor < gap->end_ns ? outside_calls(gap, &walk, cursor, gap->end_ns) : 0;
}

/* The launch rate of a launch-bound loop: between the previous gap the host ended with a launch
 * (same thread) and this one, when this gap was the host issuing work and nothing else, the host
 * issued N operations in (this launch - that launch) while the GPU ran them in (the time between
 * their starts - the idle time between). An issue period longer than the GPU's time per operation
 * is what leaves the GPU idle. */
static int launch_rate(struct gap *gap)
{
    accountant *acc = gap->acc;
    int status = 0;
    if (gap->gave_launch_bound && !gap->gave_host && acc->last_launch.thread_id == gap->thread_id) {
        struct evidence_figures rate = {.issued = acc->ops_seen - acc->last_launch.ops_seen,
                                        .issue_ns = gap->launch_start_ns - acc->last_launch.launch_start_ns,
                                        .issued_busy_ns =
                                            gap->end_ns - acc->last_launch.op_start_ns -
                                            (acc->idle_seen_ns - acc->last_launch.idle_seen_ns)};
        if (rate.issued > 0 && rate.issue_ns > 0 && rate.issued_busy_ns >= 0)
            status =
                ledger_add_figures(&acc->ledger, ACCOUNTING_IDLE_LAUNCH_BOUND, "host issuing work", &rate);
    }
    acc->last_launch.thread_id = gap->thread_id;
    acc->last_launch.launch_start_ns = gap->launch_start_ns;
    acc->last_launch.op_start_ns = gap->end_ns;
    acc->last_launch.ops_seen = acc->ops_seen;
    acc->last_launch.idle_seen_ns = acc->idle_seen_ns;
    return status;
}

int idle_attribute_gap(accountant *acc, struct device_state *device, int64_t gap_start_ns, int64_t gap_end_ns,
                       const struct model_op *next, error_info *err)
{
    struct gap gap = {
        .acc = acc, .device = device, .next = next, .start_ns = gap_start_ns, .end_ns = gap_end_ns};
    int status;
    if (!acc->process_has_api) {
        struct evidence_figures figures = {
            .detail = "the trace has no CUDA API records for this process (recorded with --no-api, or "
                      "imported without runtime events): record without --no-api to see what the host did"};
        status = give_whole(&gap, ACCOUNTING_IDLE_UNEXPLAINED, "no API records", &figures);
        return status == 0 ? 0 : error_set(err, "out of memory");
    }
    int known = 0;
    if (next->correlation_id != STORE_NULL && device->launches.complete) {
        /* The process's calls, read once for the device: the earliest with the id, as the query. */
        const struct thread_call *call =
            launches_find_earliest(&device->launches, next->correlation_id, &acc->launch_hint);
        if (call && store_interval_plausible(call->start_ns, call->end_ns) &&
            call->end_ns >= call->start_ns) {
            known = 1;
            gap.launch_start_ns = call->start_ns;
            gap.launch_end_ns = call->end_ns;
            gap.thread_id = launches_thread_of(&device->launches, call);
        }
    } else if (next->correlation_id != STORE_NULL) {
        int64_t start_ns, end_ns, thread_id;
        int thread_known = 0;
        if (store_idle_launch(acc->queries, device->process_id, next->correlation_id, &start_ns, &end_ns,
                              &thread_id, &thread_known) &&
            thread_known && store_interval_plausible(start_ns, end_ns) && end_ns >= start_ns) {
            known = 1;
            gap.launch_start_ns = start_ns;
            gap.launch_end_ns = end_ns;
            gap.thread_id = thread_id;
        }
    }
    if (!known) {
        char what[160], detail[256];
        op_label(&gap, what, sizeof what);
        snprintf(
            detail, sizeof detail,
            "%s, which ended the gap, has no launch record (a CUDA graph node, a device-side launch, or a "
            "dropped record): what the host did cannot be told",
            what);
        status = give_whole(&gap, ACCOUNTING_IDLE_UNEXPLAINED, "launch not recorded",
                            &(struct evidence_figures){.detail = detail});
    } else if (gap.launch_end_ns <= gap_start_ns) {
        status = queued_gap(&gap);
    } else {
        idle_call_source(acc, device->process_id, gap.thread_id, next->correlation_id, gap.launch_source,
                         sizeof gap.launch_source);
        gap.warmup = warmup_first_run(acc, device, gap_start_ns, next);
        status = host_gap(&gap);
        if (status == 0)
            status = launch_rate(&gap);
    }
    return status == 0 ? 0 : error_set(err, "out of memory");
}
