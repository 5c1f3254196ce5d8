/* accounting.c: see accounting.h and accountant.h. The driver: opens each device's books
 * (ledger.c: a builder of causes for the whole span and one per step), finds the idle gaps in the
 * counted operations (the union of busy time grows in start order, so a gap is a start after every
 * earlier end) and hands each to idle.c, hands every operation to exposed_comm.c, and at the end
 * turns the builders into the result's breakdowns with their evidence sentences. */
#include "accountant.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accountant_state.h"
#include "call_sources.h"
#include "explain.h"
#include "exposed_comm.h"
#include "idle.h"
#include "ledger.h"
#include "nccl_bandwidth.h"
#include "origins.h"
#include "queries_idle.h"
#include "queries_launch_blocking.h"
#include "store.h"
#include "units.h"

/* --- the accountant --- */

/* Reads the call sources of process_id into acc->sources (idle_call_source asks them), in the
 * order of the source query's index: by correlation id, then rowid. Leaves sources_held 0 when the
 * process has none or they cannot be read or held: the query then serves. */
static void hold_sources(accountant *acc, int64_t process_id)
{
    _Static_assert(sizeof(struct call_source_row) == 2 * sizeof(int64_t),
                   "store_process_rows reads 2 columns");
    acc->sources_held = 0;
    acc->source_count = 0;
    acc->sources_process = process_id;
    if (acc->process_has_sources)
        acc->sources = store_process_rows(acc->db, STORE_ROWS_CALL_SOURCES, process_id, STORE_NULL, 2,
                                          acc->sources, &acc->source_count, &acc->sources_held);
}

/* Reads the stream-wait-event records of process_id into acc->stream_waits (idle.c's queued gaps
 * ask them), leaving stream_waits_held 0 when they cannot be read or held. */
static void hold_stream_waits(accountant *acc, int64_t process_id)
{
    _Static_assert(sizeof(struct stream_wait) == 3 * sizeof(int64_t), "store_process_rows reads 3 columns");
    acc->stream_waits =
        store_process_rows(acc->db, STORE_ROWS_STREAM_WAITS, process_id, STORE_NULL, 3, acc->stream_waits,
                           &acc->stream_wait_count, &acc->stream_waits_held);
}

/* The contexts each synchronization of process_id waited on, and those of device_id's streams
 * (idle.c tells a sync of another device by them). */
static void hold_sync_contexts(accountant *acc, int64_t process_id)
{
    _Static_assert(sizeof(struct sync_context) == 2 * sizeof(int64_t), "store_process_rows reads 2 columns");
    acc->sync_contexts =
        store_process_rows(acc->db, STORE_ROWS_SYNC_CONTEXTS, process_id, STORE_NULL, 2, acc->sync_contexts,
                           &acc->sync_context_count, &acc->sync_contexts_held);
}

static void hold_device_contexts(accountant *acc, int64_t process_id, int64_t device_id)
{
    acc->device_contexts =
        store_process_rows(acc->db, STORE_ROWS_DEVICE_CONTEXTS, process_id, device_id, 1,
                           acc->device_contexts, &acc->device_context_count, &acc->device_contexts_held);
}

accountant *accountant_new(sqlite3 *db, kernel_names *names, const struct analysis_step *steps,
                           size_t step_count, error_info *err)
{
    accountant *acc = calloc(1, sizeof *acc);
    if (!acc) {
        error_set(err, "out of memory");
        return NULL;
    }
    acc->db = db;
    acc->names = names;
    acc->ledger.steps = steps;
    acc->ledger.step_count = step_count;
    acc->known_process = INT64_MIN;
    acc->has_call_sources = store_db_has_table(db, "call_sources");
    thread_names_open(&acc->thread_names, db);
    acc->queries = store_idle_open(db, err);
    if (!acc->queries) {
        accountant_free(acc);
        return NULL;
    }
    acc->host = host_samples_new(db, err);
    if (!acc->host) {
        accountant_free(acc);
        return NULL;
    }
    acc->threads = thread_calls_new(db, names); /* NULL (out of memory): the queries serve */
    if (acc->has_call_sources && !store_idle_prepare_sources(acc->queries))
        acc->has_call_sources = 0;
    return acc;
}

struct thread_calls *accountant_thread_calls(accountant *acc)
{
    return acc->threads;
}

void accountant_free(accountant *acc)
{
    if (!acc)
        return;
    store_idle_close(acc->queries);
    thread_calls_free(acc->threads);
    host_samples_free(acc->host);
    free(acc->sources);
    free(acc->stream_waits);
    free(acc->warmup_names);
    free(acc->sync_contexts);
    free(acc->device_contexts);
    thread_names_close(&acc->thread_names);
    for (size_t i = 0; i < acc->ledger.book_count; i++)
        ledger_books_free(&acc->ledger.books[i]);
    free(acc->ledger.books);
    for (size_t i = 0; i < acc->open_count; i++)
        free(acc->open[i].pieces);
    free(acc->open);
    ledger_intervals_free(&acc->ledger);
    free(acc->behind);
    free(acc->instances);
    free(acc);
}

/* Which writer made a process's rows (store/origins.h): what to record differs. */
static enum trace_origin process_origin(sqlite3 *db, int64_t process_id)
{
    switch (store_process_origin(db, process_id)) {
    case STORE_ORIGIN_KINETO:
        return ORIGIN_KINETO;
    case STORE_ORIGIN_NSYS:
        return ORIGIN_NSYS;
    case STORE_ORIGIN_RECORD:
        break;
    }
    return ORIGIN_RECORD;
}

int accountant_begin_device(accountant *acc, struct device_state *device)
{
    if (acc->ledger.book_count == acc->ledger.book_capacity) {
        size_t capacity = acc->ledger.book_capacity ? acc->ledger.book_capacity * 2 : 8;
        struct device_books *grown = realloc(acc->ledger.books, capacity * sizeof *grown);
        if (!grown)
            return -1;
        acc->ledger.books = grown;
        acc->ledger.book_capacity = capacity;
    }
    acc->ledger.current_book = acc->ledger.book_count;
    struct device_books *books = &acc->ledger.books[acc->ledger.book_count++];
    *books = (struct device_books){.process_id = device->process_id,
                                   .device_id = device->device_id,
                                   .rank = device->rank,
                                   .pid = device->pid,
                                   .compute_end_ns = INT64_MIN,
                                   .interval_first = (int64_t)acc->ledger.interval_count};
    for (size_t i = 0; i < acc->ledger.step_count; i++) {
        if (acc->ledger.steps[i].process_id != device->process_id)
            continue;
        if (books->step_count == 0)
            books->first_step = i;
        books->step_count++;
    }
    if (books->step_count) {
        books->step_idle = calloc(books->step_count, sizeof *books->step_idle);
        books->step_comm = calloc(books->step_count, sizeof *books->step_comm);
        if (!books->step_idle || !books->step_comm)
            return -1;
    }
    if (acc->known_process != device->process_id) {
        acc->known_process = device->process_id;
        acc->process_has_api = store_process_has(acc->db, STORE_HAS_CUDA_CALLS, device->process_id);
        acc->process_has_syncs = store_process_has(acc->db, STORE_HAS_SYNCS, device->process_id);
        hold_stream_waits(acc, device->process_id);
        hold_sync_contexts(acc, device->process_id);
        acc->process_has_collectives = store_process_has(acc->db, STORE_HAS_COLLECTIVES, device->process_id);
        acc->process_has_sources =
            acc->has_call_sources && store_process_has(acc->db, STORE_HAS_CALL_SOURCES, device->process_id);
        hold_sources(acc, device->process_id);
        acc->process_has_python_sources =
            acc->process_has_sources &&
            store_process_has(acc->db, STORE_HAS_PYTHON_SOURCES, device->process_id);
        acc->process_lacks_sync_events =
            store_process_has(acc->db, STORE_LACKS_SYNC_EVENTS, device->process_id);
        acc->process_origin = process_origin(acc->db, device->process_id);
        error_info err = {{0}}; /* a trace whose environment cannot be read is told nothing of it */
        if (store_process_environment(acc->db, device->process_id, "PYTORCH_NO_CUDA_MEMORY_CACHING",
                                      acc->process_uncached_allocator, sizeof acc->process_uncached_allocator,
                                      &err) != STORE_ENVIRONMENT_SET)
            acc->process_uncached_allocator[0] = '\0';
        books->first_of_process = 1;
    } else if (acc->sources_released) {
        hold_sources(acc, device->process_id);
    }
    acc->sources_released = 0;
    books->has_api = acc->process_has_api;
    books->lacks_sync_events = acc->process_lacks_sync_events;
    books->has_sources = acc->process_has_sources;
    books->has_python_sources = acc->process_has_python_sources;
    books->origin = acc->process_origin;
    acc->selection = device->selection;
    acc->started = 0;
    acc->step_cursor = 0;
    acc->sweep_time_ns = INT64_MIN;
    acc->compute_end_ns = INT64_MIN;
    acc->open_end_min_ns = INT64_MAX;
    acc->ops_seen = acc->idle_seen_ns = 0;
    acc->last_launch.thread_id = STORE_NULL;
    acc->warmup_read = 0;
    hold_device_contexts(acc, device->process_id, device->device_id);
    return 0;
}

int accountant_observe(accountant *acc, struct device_state *device, const struct model_op *op,
                       error_info *err)
{
    int64_t end = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
    if (exposed_comm_advance(acc, op->start_ns) != 0 || exposed_comm_add(acc, op) != 0)
        return error_set(err, "out of memory");
    if (!acc->started) {
        acc->started = 1;
        acc->busy_until_ns = end;
        return 0;
    }
    if (op->start_ns > acc->busy_until_ns) {
        acc->ledger.next_mark++;
        acc->idle_seen_ns += op->start_ns - acc->busy_until_ns;
        if (idle_attribute_gap(acc, device, acc->busy_until_ns, op->start_ns, op, err) != 0)
            return -1;
    }
    if (end > acc->busy_until_ns)
        acc->busy_until_ns = end;
    acc->ops_seen++;
    return 0;
}

int accountant_end_device(accountant *acc, struct device_state *device, size_t result_index, error_info *err)
{
    (void)device;
    struct device_books *books = ledger_current(&acc->ledger);
    if (!books)
        return 0;
    if (exposed_comm_advance(acc, INT64_MAX) != 0)
        return error_set(err, "out of memory");
    acc->selection = NULL;
    if (result_index == SIZE_MAX) {
        ledger_books_free(books);
        acc->ledger.book_count--;
        acc->known_process = INT64_MIN; /* the process's next device probes again, and is its first */
        acc->ledger.interval_count = (size_t)books->interval_first;
        return 0;
    }
    books->result_index = result_index;
    books->interval_end = acc->ledger.interval_count;
    int status = exposed_comm_end_device(acc, books, err);
    /* The walk was the held sources' reader; the waits' (accountant_collect) ask the store. */
    free(acc->sources);
    acc->sources = NULL;
    acc->source_count = 0;
    acc->sources_held = 0;
    acc->sources_released = 1;
    return status;
}

void accountant_device_idle(accountant *acc, struct device_idle *idle)
{
    *idle = (struct device_idle){0};
    const struct device_books *books = ledger_current(&acc->ledger);
    for (size_t i = 0; books && i < books->idle.count; i++)
        if ((unsigned)books->idle.buckets[i].cause < ACCOUNTING_CAUSE_COUNT)
            idle->ns[books->idle.buckets[i].cause] += books->idle.buckets[i].ns;
    if (books) {
        memcpy(idle->between_steps_ns, books->between_steps_ns, sizeof idle->between_steps_ns);
        idle->host_work = books->host_work;
        idle->host_work_count = books->host_work_count;
    }
}

/* --- the result --- */

static char *duration(char *buffer, size_t size, int64_t ns)
{
    return units_format_duration(buffer, size, ns);
}

static void append(char *text, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));
static void append(char *text, size_t size, const char *format, ...)
{
    size_t used = strlen(text);
    if (used + 1 >= size)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(text + used, size - used, format, args);
    va_end(args);
}

/* NCCL's bus-bandwidth factor for an operation over n ranks (nccl-tests, doc/PERFORMANCE.md). */

/* A host-cpu stretch a host-sample verdict took (host_samples.h): the line the verdict stands on with
 * its share of the launching thread's samples, computing or waiting, the workers' CPU for data
 * loading; the bucket's detail (its first stretch's top lines) follows. */
static void write_sampled_evidence(const struct bucket *b, char *text, size_t size)
{
    char one[32], two[32];
    const struct evidence_figures *f = &b->figures;
    int waiting = 2 * f->waiting_samples > f->line_samples;
    append(text, size,
           "%s over %" PRId64 " stretch%s (longest %s) without a CUDA call; the launching thread's %" PRId64
           " host sample%s there: ",
           duration(one, sizeof one, b->ns), b->count, b->count == 1 ? "" : "es",
           duration(two, sizeof two, f->longest_ns), f->samples, f->samples == 1 ? "" : "s");
    switch (b->cause) {
    case ACCOUNTING_IDLE_DATA_LOADING:
        append(text, size, "%d%% %s in the DataLoader (waiting for its next batch)",
               host_samples_percent(f->line_samples, f->samples), waiting ? "sleeping" : "running");
        if (f->workers == 0)
            append(text, size,
                   "; no worker process was sampled: the main process loads the data (num_workers=0)");
        else if (strcmp(b->label, "CPU-bound") == 0)
            append(text, size,
                   "; %" PRId64 " worker process%s busy %d%% of their CPU (CPU-bound: more workers, fewer CPU"
                   " transforms, move augmentations to the GPU)",
                   f->workers, f->workers == 1 ? "" : "es",
                   host_samples_percent(f->worker_cpu_ns, f->worker_span_ns));
        else
            append(
                text, size,
                "; %" PRId64 " worker process%s busy %d%% of their CPU, %d%% of their samples in disk wait"
                " (I/O-bound: faster storage or a cached data set, more workers, a larger prefetch_factor)",
                f->workers, f->workers == 1 ? "" : "es",
                host_samples_percent(f->worker_cpu_ns, f->worker_span_ns),
                host_samples_percent(f->worker_disk_samples, f->worker_samples));
        break;
    case ACCOUNTING_IDLE_LOCK_WAIT:
        if (strcmp(b->label, "GIL") == 0)
            append(text, size,
                   "%d%% sleeping with a Python stack while another thread of the process ran (waiting for "
                   "the GIL)",
                   host_samples_percent(f->line_samples, f->samples));
        else if (strcmp(b->label, "lock or GIL") == 0)
            append(text, size,
                   "%d%% sleeping with a Python stack while threads that are not sampled used the CPU "
                   "(waiting for the GIL, or for a lock such a thread holds)",
                   host_samples_percent(f->line_samples, f->samples));
        else
            append(text, size, "%d%% sleeping in %s (a threading lock, condition or event)",
                   host_samples_percent(f->line_samples, f->samples), b->label);
        break;
    default: /* Python/C++ work and garbage collection name their line */
        append(text, size, "%d%% at %s, %s", host_samples_percent(f->line_samples, f->samples), b->label,
               waiting ? "waiting (not running)" : "computing");
        break;
    }
}

static void write_evidence(const struct bucket *b, char *text, size_t size)
{
    char one[32], two[32], three[32];
    const struct evidence_figures *f = &b->figures;
    int64_t count = b->count > 0 ? b->count : 1;
    text[0] = '\0';
    switch (b->cause) {
    case ACCOUNTING_IDLE_HOST_SYNC:
        append(text, size,
               "the launching thread was in %s when the GPU ran out of work, %" PRId64
               " time%s; the GPU stayed idle until the host's next operation reached it (%s per gap)",
               b->label, b->count, b->count == 1 ? "" : "s", duration(one, sizeof one, b->ns / count));
        break;
    case ACCOUNTING_IDLE_LAUNCH_BOUND:
        append(text, size,
               "%" PRId64 " gap%s between operations the GPU finished before the host issued the next",
               b->count, b->count == 1 ? "" : "s");
        if (f->calls)
            append(text, size, "; %" PRId64 " launch call%s, %s each in the call", f->calls,
                   f->calls == 1 ? "" : "s", duration(two, sizeof two, f->call_ns / f->calls));
        append(text, size, " (%s idle per gap)", duration(three, sizeof three, b->ns / count));
        if (f->issued > 0)
            append(text, size,
                   "; launch rate: the host issued an operation every %s (%" PRId64
                   " between gaps of this kind) while the GPU ran each in %s",
                   duration(one, sizeof one, f->issue_ns / f->issued), f->issued,
                   duration(two, sizeof two, f->issued_busy_ns / f->issued));
        break;
    case ACCOUNTING_IDLE_HOST_CPU:
        if (strcmp(b->label, IDLE_NO_CUDA_CALL) != 0) { /* an OS runtime wait the trace holds */
            append(text, size,
                   "the launching thread was in %s, outside any CUDA call, for %s over %" PRId64
                   " stretch%s (longest %s)",
                   b->label, duration(one, sizeof one, b->ns), b->count, b->count == 1 ? "" : "es",
                   duration(two, sizeof two, f->longest_ns));
            break;
        }
        append(text, size,
               "no CUDA call on the launching thread for %s over %" PRId64
               " stretch%s (longest %s): CPU work, "
               "Python or data loading",
               duration(one, sizeof one, b->ns), b->count, b->count == 1 ? "" : "es",
               duration(two, sizeof two, f->longest_ns));
        break;
    case ACCOUNTING_IDLE_WARMUP:
        append(text, size,
               "%" PRId64
               " gap%s ended by the first run of a kernel the device runs again: the launching thread's"
               " %s there (longest stretch %s) is one-time work (lazy module loading, first-call"
               " cuBLAS/cuDNN selection, allocator growth, compilation), not the steady state's",
               b->count, b->count == 1 ? "" : "s", duration(one, sizeof one, b->ns),
               duration(two, sizeof two, f->longest_ns));
        break;
    case ACCOUNTING_IDLE_DATA_LOADING:
    case ACCOUNTING_IDLE_PYTHON_WORK:
    case ACCOUNTING_IDLE_GARBAGE_COLLECTION:
    case ACCOUNTING_IDLE_LOCK_WAIT:
        write_sampled_evidence(b, text, size);
        break;
    case ACCOUNTING_IDLE_STEP_START:
    case ACCOUNTING_IDLE_STEP_END:
    case ACCOUNTING_IDLE_STEP_BOUNDARY: {
        static const char *const where[] = {
            "the host had begun the next step (its host range), which had not reached the GPU yet",
            "the host was still in the step whose GPU work had ended",
            "the host was in no step (before the first, after the last, or between step ranges)"};
        for (int c = 0; c < ACCOUNTING_CAUSE_COUNT; c++)
            if (strcmp(accounting_cause_tag((enum accounting_cause)c), b->label) == 0)
                append(text, size, "%" PRId64 " gap%s outside every step's GPU activity: %s; meanwhile: %s",
                       b->count, b->count == 1 ? "" : "s", where[b->cause - ACCOUNTING_IDLE_STEP_START],
                       accounting_cause_title((enum accounting_cause)c));
        break;
    }
    case ACCOUNTING_IDLE_DISPATCH:
        append(text, size,
               "%" PRId64 " gap%s of %s on average: the next operation was already queued (behind the "
               "previous one on its stream, or an event of this device) and started within %d us",
               b->count, b->count == 1 ? "" : "s", duration(one, sizeof one, b->ns / count),
               (int)(EXPLAIN_START_TOLERANCE_NS / 1000));
        return;
    case ACCOUNTING_COMM_SKEW:
    case ACCOUNTING_COMM_IMBALANCE: /* its detail says how much more its GPU computed */
        append(text, size, "%s arrived last at %" PRId64 " collective%s, %s late on average", b->label,
               b->count, b->count == 1 ? "" : "s", duration(one, sizeof one, f->late_ns / count));
        break;
    case ACCOUNTING_COMM_TRANSFER:
        if (f->transfer_ns > 0 && f->bytes > 0) {
            const char *formula = "1";
            double algorithm_gbps = (double)f->bytes / (double)f->transfer_ns;
            double bus_gbps = algorithm_gbps * nccl_bus_factor(b->label, f->nranks, &formula);
            char bytes[32];
            units_format_bytes(bytes, sizeof bytes, f->bytes / count);
            append(text, size,
                   "%" PRId64 " %s instance%s, %s each over %" PRId64
                   " ranks in %s each: algorithm bandwidth %.3g GB/s,"
                   " bus bandwidth %.3g GB/s (x %s, nccl-tests PERFORMANCE.md); the link's peak is not in "
                   "the trace",
                   b->count, b->label, b->count == 1 ? "" : "s", bytes, f->nranks,
                   duration(one, sizeof one, f->transfer_ns / count), algorithm_gbps, bus_gbps, formula);
        } else {
            append(text, size, "%" PRId64 " %s instance%s after every rank arrived; no byte count recorded",
                   b->count, b->label, b->count == 1 ? "" : "s");
        }
        break;
    case ACCOUNTING_COMM_BEHIND_COMPUTE:
        append(text, size,
               "%s arrived last because its NCCL kernel waited for SMs held by compute (a "
               "comm-behind-compute wait), %" PRId64 " time%s",
               b->label, b->count, b->count == 1 ? "" : "s");
        break;
    case ACCOUNTING_IDLE_SYNC_OTHER_DEVICE:
        append(text, size,
               "the launching thread was in %s, a synchronization whose record names another device's "
               "context: it waited for none of this device's work, yet held the host %s per gap, %" PRId64
               " time%s, while this device ran out of work",
               b->label, duration(one, sizeof one, b->ns / count), b->count, b->count == 1 ? "" : "s");
        break;
    /* These say it all in their label and detail. No default: the compiler names a new cause's
     * row (causes.def) that has no case here. */
    case ACCOUNTING_IDLE_OTHER_DEVICE:
    case ACCOUNTING_IDLE_PEER_WAIT:
    case ACCOUNTING_IDLE_UNEXPLAINED:
    case ACCOUNTING_COMM_UNMATCHED:
    /* Exposed copies are written by exposed_copy.c, never through these books. */
    case ACCOUNTING_COPY_PAGEABLE:
    case ACCOUNTING_COPY_SYNCHRONOUS:
    case ACCOUNTING_COPY_SAME_STREAM:
    case ACCOUNTING_COPY_SMALL:
    case ACCOUNTING_COPY_NOTHING_BESIDE:
    case ACCOUNTING_CAUSE_COUNT:
        break;
    }
    if (f->has_instance)
        append(text, size, "; instances #%" PRId64 "-#%" PRId64 " (%s)", f->first_instance, f->last_instance,
               f->instance_by_order ? "in order on each device: no sequence numbers in the trace"
                                    : "sequence numbers");
    if (b->detail)
        append(text, size, "%s%s", text[0] ? "; " : "", b->detail);
}

static int build_breakdown(const struct breakdown_builder *builder, struct accounting_breakdown *out)
{
    out->ns = builder->ns;
    out->entry_count = 0;
    out->entries = builder->count ? calloc(builder->count, sizeof *out->entries) : NULL;
    if (builder->count && !out->entries)
        return -1;
    for (size_t i = 0; i < builder->count; i++) {
        const struct bucket *b = &builder->buckets[i];
        if (b->ns <= 0)
            continue;
        struct accounting_entry *entry = &out->entries[out->entry_count++];
        entry->cause = b->cause;
        entry->ns = b->ns;
        entry->count = b->count;
        ledger_copy_text(entry->label, sizeof entry->label, b->label);
        ledger_copy_text(entry->source, sizeof entry->source, b->source);
        char evidence[ACCOUNTING_EVIDENCE_BYTES];
        write_evidence(b, evidence, sizeof evidence);
        if (!(entry->evidence = strdup(evidence)))
            return -1;
    }
    ledger_sort_entries(out);
    return 0;
}

static int fill_accounting(struct analysis_accounting *out, size_t device, int64_t step,
                           const struct breakdown_builder *idle, const struct breakdown_builder *comm)
{
    *out = (struct analysis_accounting){.device = device, .step = step};
    if (build_breakdown(idle, &out->idle) != 0 || build_breakdown(comm, &out->exposed_communication) != 0)
        return -1;
    return 0;
}

/* collect_books' work: book i's accountings go to result->accountings from first[i] on. */
struct book_collecting {
    accountant *acc;
    struct analysis_result *result;
    size_t *first;
};

/* One shown device's accountings: its whole span's, then each step's with time. Its step books
 * are read for the last time: freed as they are turned into breakdowns, the books of a trace of
 * 100,000 steps make room for the breakdowns instead of adding to them. */
static int collect_book(void *context, size_t index, size_t worker, store *reader, error_info *err)
{
    (void)worker;
    (void)reader;
    struct book_collecting *collecting = context;
    struct device_books *books = &collecting->acc->ledger.books[index];
    struct analysis_accounting *out = &collecting->result->accountings[collecting->first[index]];
    if (books->result_index == ACCOUNTANT_PEER)
        return 0;
    int status = fill_accounting(out++, books->result_index, -1, &books->idle, &books->comm);
    for (size_t k = 0; status == 0 && k < books->step_count; k++) {
        if (books->step_idle[k].ns == 0 && books->step_comm[k].ns == 0)
            continue;
        status = fill_accounting(out++, books->result_index,
                                 collecting->acc->ledger.steps[books->first_step + k].number,
                                 &books->step_idle[k], &books->step_comm[k]);
        ledger_builder_free(&books->step_idle[k]);
        ledger_builder_free(&books->step_comm[k]);
    }
    return status == 0 ? 0 : error_set(err, "out of memory");
}

/* Every shown device's accountings, in book order, the books on team's workers (the breakdowns'
 * texts were most of what the run's own thread did after the walks). Returns 0 or -1. */
static int collect_books(accountant *acc, struct analysis_result *result, crew *team)
{
    size_t books = acc->ledger.book_count, total = 0;
    struct book_collecting collecting = {acc, result, malloc((books ? books : 1) * sizeof *collecting.first)};
    int status = collecting.first ? 0 : -1;
    for (size_t i = 0; status == 0 && i < books; i++) {
        const struct device_books *book = &acc->ledger.books[i];
        collecting.first[i] = total;
        if (book->result_index == ACCOUNTANT_PEER)
            continue;
        total++;
        for (size_t k = 0; k < book->step_count; k++)
            total += book->step_idle[k].ns != 0 || book->step_comm[k].ns != 0;
    }
    if (status == 0 && total && !(result->accountings = calloc(total, sizeof *result->accountings)))
        status = -1;
    if (status == 0) {
        result->accounting_count = total; /* zeroed until filled: accountant_free_result frees them */
        error_info ignored;               /* out of memory, which the caller says */
        status = crew_run(team, NULL, books, collect_book, &collecting, &ignored);
    }
    free(collecting.first);
    return status;
}

/* What to record to get what the trace lacks, by the writer of the process's rows. */
static const char *const record_api[] = {
    [ORIGIN_RECORD] = "record without --no-api",
    /* In parentheses: clang warns of adjacent literals in an array (-Wstring-concatenation). */
    [ORIGIN_KINETO] = ("torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]): "
                       "its cuda_runtime events"),
    [ORIGIN_NSYS] = "nsys profile --trace=cuda"};
static const char *const record_sources[] = {
    [ORIGIN_RECORD] =
        ("record with an overlapscope that takes them (the collector names the Python line or the "
         "native caller of each blocking call, docs/collector.md), without OVERLAPSCOPE_CALL_SOURCES=0"),
    [ORIGIN_KINETO] = "torch.profiler.profile(..., with_stack=True)",
    [ORIGIN_NSYS] = ("overlapscope does not read nsys backtraces (nsys profile --cudabacktrace); import a "
                     "torch.profiler trace recorded with with_stack=True, or run under overlapscope record")};

static int add_unchecked(struct analysis_result *result, size_t *capacity, size_t device, const char *causes,
                         const char *missing, const char *record)
{
    if (result->unchecked_count == *capacity) {
        size_t grown_capacity = *capacity ? *capacity * 2 : 4;
        struct accounting_unchecked *grown = realloc(result->unchecked, grown_capacity * sizeof *grown);
        if (!grown)
            return -1;
        result->unchecked = grown;
        *capacity = grown_capacity;
    }
    struct accounting_unchecked *out = &result->unchecked[result->unchecked_count++];
    *out = (struct accounting_unchecked){.device = device};
    snprintf(out->causes, sizeof out->causes, "%s", causes);
    snprintf(out->missing, sizeof out->missing, "%s", missing);
    snprintf(out->record, sizeof out->record, "%s", record);
    return 0;
}

/* The process's host-cpu idle time over its devices, inside the steps' GPU activity or outside it
 * (a between-steps bucket labelled with the tag of what the host did meanwhile). */
static int64_t idle_host_cpu(const accountant *acc, int64_t process_id)
{
    int64_t ns = 0;
    const char *tag = accounting_cause_tag(ACCOUNTING_IDLE_HOST_CPU);
    for (size_t i = 0; i < acc->ledger.book_count; i++)
        for (size_t k = 0;
             acc->ledger.books[i].process_id == process_id && k < acc->ledger.books[i].idle.count; k++) {
            const struct bucket *b = &acc->ledger.books[i].idle.buckets[k];
            if (b->cause == ACCOUNTING_IDLE_HOST_CPU ||
                (accounting_cause_is_between_steps(b->cause) && strcmp(b->label, tag) == 0))
                ns += b->ns;
        }
    return ns;
}

/* The causes each process's trace lacks the data to check (never guessed): once per process, on its
 * first device, and only where the device had time to give them. */
static int collect_unchecked(const accountant *acc, struct analysis_result *result)
{
    size_t capacity = 0;
    int single_rank_comm = 0;
    for (size_t i = 0; i < acc->ledger.book_count; i++)
        for (size_t k = 0; k < acc->ledger.books[i].comm.count; k++)
            single_rank_comm |= acc->ledger.books[i].comm.buckets[k].cause == ACCOUNTING_COMM_UNMATCHED &&
                                strcmp(acc->ledger.books[i].comm.buckets[k].label, "single rank") == 0;
    for (size_t i = 0; i < acc->ledger.book_count; i++) {
        const struct device_books *books = &acc->ledger.books[i];
        if (!books->first_of_process || books->result_index == ACCOUNTANT_PEER)
            continue;
        int64_t idle = 0;
        for (size_t k = i; k < acc->ledger.book_count && acc->ledger.books[k].process_id == books->process_id;
             k++)
            idle += acc->ledger.books[k].idle.ns;
        int status = 0;
        if (!books->has_api && idle > 0)
            status = add_unchecked(
                result, &capacity, books->result_index, "host-sync, launch-bound, host-cpu",
                "no CUDA API records for this process (what its host did)", record_api[books->origin]);
        if (status == 0 && books->has_api && books->lacks_sync_events)
            status = add_unchecked(
                result, &capacity, books->result_index, "other-device",
                "no cuda_sync events (which event a stream waited for)",
                "torch.profiler.profile(..., "
                "experimental_config=torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True))");
        if (status == 0 && books->has_api && !books->has_sources && idle > 0)
            status = add_unchecked(result, &capacity, books->result_index, "source",
                                   "no call sources (where in the program each CUDA call was made)",
                                   record_sources[books->origin]);
        /* Sources that are only operator names (aten::mm): a torch.profiler trace recorded without
         * with_stack, which cannot name the Python line the idle stretches were spent at. */
        if (status == 0 && books->has_api && books->has_sources && !books->has_python_sources && idle > 0)
            status = add_unchecked(result, &capacity, books->result_index, "python-line",
                                   "no Python stack events (python_function: the Python line of each "
                                   "idle stretch and blocking call; only operator names)",
                                   "torch.profiler.profile(..., with_stack=True)");
        if (status == 0 && books->has_api && books->origin == ORIGIN_RECORD &&
            idle_host_cpu(acc, books->process_id) > 0 && host_samples_could_record(acc->host) &&
            !host_samples_recorded(acc->host))
            status =
                add_unchecked(result, &capacity, books->result_index,
                              "data-loading, python-work, garbage-collection, lock-wait",
                              "no host samples (what the launching thread ran or waited for outside CUDA)",
                              "overlapscope record --sample-hz N");
        if (status == 0 && single_rank_comm && i == 0)
            status = add_unchecked(result, &capacity, books->result_index, "skew, behind-compute",
                                   "one rank of the job (its peers' arrival at each collective)",
                                   "record or import every rank, or merge the ranks' files");
        if (status != 0)
            return -1;
    }
    return 0;
}

/* The waits whose cause is the host (a late launch, a blocking call before the launch) name where
 * in the program the waiting op was launched: the line to change. */
static void wait_sources(accountant *acc, struct analysis_result *result)
{
    for (size_t i = 0; i < result->wait_count; i++) {
        struct analysis_wait *wait = &result->waits[i];
        wait->source[0] = '\0';
        if (wait->cause == ANALYSIS_CAUSE_LATE_LAUNCH || wait->cause == ANALYSIS_CAUSE_HOST_SYNC)
            accountant_call_source(acc, result->lanes[wait->waiting.lane].process_id,
                                   wait->waiting.correlation_id, wait->source, sizeof wait->source);
    }
}

void accountant_set_remote(accountant *acc, const struct accountant_remote *remote)
{
    acc->remote = remote;
}

void accountant_call_source(accountant *acc, int64_t process_id, int64_t correlation_id, char *source,
                            size_t size)
{
    const struct accountant_remote *remote = acc->remote;
    if (!remote || !remote->call_source(remote->context, process_id, correlation_id, source, size))
        idle_call_source(acc, process_id, STORE_NULL, correlation_id, source, size);
}

int accountant_collect(accountant *acc, struct analysis_result *result, crew *team, error_info *err)
{
    result->straggler.rank = -1;
    result->call_sources_known = acc->has_call_sources;
    wait_sources(acc, result);
    if (exposed_comm_collect(acc, result, err) != 0)
        return -1;
    if (collect_books(acc, result, team) != 0)
        return error_set(err, "out of memory");
    if (collect_unchecked(acc, result) != 0)
        return error_set(err, "out of memory");
    /* Intervals name devices by book; books are in result order, so map through result_index. A
     * peer's (another rank than the one selected) served the matching and go. */
    size_t kept = 0, count = acc->ledger.interval_count;
    struct accounting_interval *intervals = malloc((count ? count : 1) * sizeof *intervals);
    if (!intervals)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < count; i++) {
        size_t index = acc->ledger.books[acc->ledger.intervals[i].device].result_index;
        if (index != ACCOUNTANT_PEER)
            ledger_interval_out(&acc->ledger, &acc->ledger.intervals[i], index, &intervals[kept++]);
    }
    ledger_intervals_free(&acc->ledger);
    result->collective_instances = acc->instances;
    result->collective_instance_count = acc->instance_count;
    acc->instances = NULL;
    acc->instance_count = acc->instance_capacity = 0;
    if (kept == 0) {
        free(intervals);
        intervals = NULL;
    }
    result->accounting_intervals = intervals;
    result->accounting_interval_count = kept;
    return 0;
}

void accountant_free_result(struct analysis_result *result)
{
    for (size_t i = 0; i < result->accounting_count; i++) {
        accounting_breakdown_free(&result->accountings[i].idle);
        accounting_breakdown_free(&result->accountings[i].exposed_communication);
        accounting_breakdown_free(&result->accountings[i].exposed_copy);
    }
    free(result->accountings);
    free(result->accounting_intervals);
    free(result->unchecked);
    free(result->collective_instances);
}
