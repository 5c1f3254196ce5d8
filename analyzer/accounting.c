/* accounting.c: see accounting.h and accountant.h. Keeps each device's books (a builder of causes
 * for the whole span and one per step), finds the idle gaps in the counted operations (the union
 * of busy time grows in start order, so a gap is a start after every earlier end), and at the end
 * turns the builders into the result's breakdowns with their evidence sentences. */
#include "accountant.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accountant_parts.h"
#include "explain.h"
#include "store.h"
#include "units.h"

/* --- builders --- */

static struct bucket *bucket_of(struct breakdown_builder *builder, enum accounting_cause cause,
                                const char *label, const char *source)
{
    for (size_t i = 0; i < builder->count; i++) {
        struct bucket *b = &builder->buckets[i];
        if (b->cause == cause && strcmp(b->label, label) == 0 &&
            (!source[0] || strcmp(b->source, source) == 0))
            return b;
    }
    if (builder->count == builder->capacity) {
        size_t capacity = builder->capacity ? builder->capacity * 2 : 8;
        struct bucket *grown = realloc(builder->buckets, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        builder->buckets = grown;
        builder->capacity = capacity;
    }
    struct bucket *b = &builder->buckets[builder->count++];
    memset(b, 0, sizeof *b);
    b->cause = cause;
    b->last_counted = -1;
    snprintf(b->label, sizeof b->label, "%s", label);
    snprintf(b->source, sizeof b->source, "%s", source);
    return b;
}

static void merge_figures(struct bucket *b, const struct evidence_figures *figures)
{
    b->figures.calls += figures->calls;
    b->figures.call_ns += figures->call_ns;
    /* A total beyond int64 (8,193 collectives of 1 PiB, each within the importers' bound) is unknown,
     * -1 from then on: the evidence then says no byte count; the sum overflowed (UBSan). */
    if (b->figures.bytes < 0 || __builtin_add_overflow(b->figures.bytes, figures->bytes, &b->figures.bytes))
        b->figures.bytes = -1;
    b->figures.transfer_ns += figures->transfer_ns;
    b->figures.late_ns += figures->late_ns;
    b->figures.issued += figures->issued;
    b->figures.issue_ns += figures->issue_ns;
    b->figures.issued_busy_ns += figures->issued_busy_ns;
    if (figures->nranks > b->figures.nranks)
        b->figures.nranks = figures->nranks;
    if (figures->has_instance) {
        if (!b->figures.has_instance || figures->first_instance < b->figures.first_instance)
            b->figures.first_instance = figures->first_instance;
        if (!b->figures.has_instance || figures->last_instance > b->figures.last_instance)
            b->figures.last_instance = figures->last_instance;
        b->figures.has_instance = 1;
        b->figures.instance_by_order |= figures->instance_by_order;
    }
    if (figures->longest_ns > b->figures.longest_ns)
        b->figures.longest_ns = figures->longest_ns;
    if (figures->detail && !b->detail[0])
        snprintf(b->detail, sizeof b->detail, "%s", figures->detail);
    else if (figures->write_detail && !b->detail[0])
        figures->write_detail(figures->detail_context, b->detail, sizeof b->detail);
}

/* Blocking calls are grouped by their place in the program ("300x at train.py:17"); the other
 * causes by label alone, naming the place of their largest stretch (one late launch site is not
 * what makes a loop launch-bound). */
static int builder_add(struct breakdown_builder *builder, enum accounting_cause cause, const char *label,
                       const char *source, int64_t ns, int64_t mark, const struct evidence_figures *figures)
{
    int by_source = cause == ACCOUNTING_IDLE_HOST_SYNC;
    struct bucket *b = bucket_of(builder, cause, label, by_source ? source : "");
    if (!b)
        return -1;
    if (!by_source && ns > b->largest_ns) {
        b->largest_ns = ns;
        snprintf(b->source, sizeof b->source, "%s", source);
    }
    b->ns += ns;
    builder->ns += ns;
    if (b->last_counted != mark) {
        b->count++;
        b->last_counted = mark;
    }
    if (figures)
        merge_figures(b, figures);
    return 0;
}

static void builder_free(struct breakdown_builder *builder)
{
    free(builder->buckets);
    *builder = (struct breakdown_builder){0};
}

static void books_free(struct device_books *books)
{
    builder_free(&books->idle);
    builder_free(&books->comm);
    for (size_t i = 0; books->step_idle && i < books->step_count; i++) {
        builder_free(&books->step_idle[i]);
        builder_free(&books->step_comm[i]);
    }
    free(books->step_idle);
    free(books->step_comm);
    free(books->host_work);
    exposed_comm_free_kernels(books);
}

/* --- the accountant --- */

/* Reads the rows sql gives (?1: process_id), each as its first `columns` values read as int64,
 * into rows (grown as needed: returned; count of them): the records below are that many int64s
 * each, in column order. *complete is set when every row was read (not: a read error, out of
 * memory). */
static void *hold_rows(sqlite3 *db, const char *sql, int64_t process_id, size_t columns, void *rows,
                       size_t *count, int *complete)
{
    *count = 0;
    *complete = 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) != SQLITE_OK)
        return rows;
    sqlite3_bind_int64(query, 1, process_id);
    size_t capacity = 0;
    int step;
    while ((step = sqlite3_step(query)) == SQLITE_ROW) {
        if (*count == capacity) {
            capacity = capacity ? capacity * 2 : 1024;
            void *grown = realloc(rows, capacity * columns * sizeof(int64_t));
            if (!grown)
                break;
            rows = grown;
        }
        int64_t *row = (int64_t *)rows + (*count)++ * columns;
        for (size_t c = 0; c < columns; c++)
            row[c] = sqlite3_column_int64(query, (int)c);
    }
    sqlite3_finalize(query);
    *complete = step == SQLITE_DONE;
    return rows;
}

/* Reads the call sources of process_id into acc->sources (idle_call_source asks them), in the
 * order of the source query's index: by correlation id, then rowid. Leaves sources_held 0 when the
 * process has none or they cannot be read or held: the query then serves. */
static void hold_sources(accountant *acc, int64_t process_id)
{
    _Static_assert(sizeof(struct call_source_row) == 2 * sizeof(int64_t), "hold_rows reads 2 columns");
    acc->sources_held = 0;
    acc->source_count = 0;
    acc->sources_process = process_id;
    if (acc->process_has_sources)
        acc->sources = hold_rows(acc->db,
                                 "SELECT correlation_id, source_id FROM call_sources WHERE process_id = ?1"
                                 " ORDER BY correlation_id, rowid",
                                 process_id, 2, acc->sources, &acc->source_count, &acc->sources_held);
}

/* Reads the stream-wait-event records of process_id into acc->stream_waits (idle.c's queued gaps
 * ask them), leaving stream_waits_held 0 when they cannot be read or held. */
static void hold_stream_waits(accountant *acc, int64_t process_id)
{
    _Static_assert(sizeof(struct stream_wait) == 3 * sizeof(int64_t), "hold_rows reads 3 columns");
    acc->stream_waits =
        hold_rows(acc->db,
                  "SELECT start_ns, stream_id, event_id FROM synchronizations"
                  " WHERE process_id = ?1 AND sync_type = 2 AND stream_id IS NOT NULL"
                  " ORDER BY start_ns, rowid",
                  process_id, 3, acc->stream_waits, &acc->stream_wait_count, &acc->stream_waits_held);
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
    acc->steps = steps;
    acc->step_count = step_count;
    acc->known_process = INT64_MIN;
    acc->has_call_sources = store_db_has_table(db, "call_sources");
    thread_names_open(&acc->thread_names, db);
    static const struct {
        size_t offset;
        const char *sql;
    } queries[] = {
        {offsetof(struct accountant, launch_query), "SELECT start_ns, end_ns, thread_id, name_id FROM "
                                                    "api_calls WHERE process_id = ?1 AND correlation_id = ?2"
                                                    " ORDER BY start_ns LIMIT 1"},
        /* Calls that began before the gap, latest first: the one the thread was in when it opened. */
        {offsetof(struct accountant, covering_query),
         "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value, a.api_domain FROM api_calls a LEFT JOIN"
         " strings s ON s.id = a.name_id"
         " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns < ?3 ORDER BY a.start_ns DESC LIMIT "
         "16"},
        {offsetof(struct accountant, calls_query),
         "SELECT a.start_ns, a.end_ns, a.correlation_id, s.value, "
         "a.api_domain FROM api_calls a LEFT JOIN strings s ON s.id = a.name_id"
         " WHERE a.process_id = ?1 AND a.thread_id = ?2 AND "
         "a.start_ns >= ?3 AND a.start_ns < ?4 ORDER BY a.start_ns"
         " LIMIT 100000"},
        {offsetof(struct accountant, memcpy_query), "SELECT copy_kind, bytes, dst_kind FROM memcpys WHERE "
                                                    "process_id = ?1 AND correlation_id = ?2 LIMIT 1"},
        {offsetof(struct accountant, wait_query), "SELECT event_id, start_ns FROM synchronizations WHERE "
                                                  "process_id = ?1 AND start_ns <= ?2 AND sync_type = 2"
                                                  " AND stream_id = ?3 ORDER BY start_ns DESC LIMIT 1"},
        {offsetof(struct accountant, collective_query),
         "SELECT op, bytes, communicator, sequence_number, nranks FROM collectives WHERE kernel_rowid = ?1 "
         "LIMIT 1"},
        {offsetof(struct accountant, late_gpu_query),
         "SELECT name_id, start_ns, end_ns FROM kernels WHERE process_id = ?1 AND device_id = ?2 AND "
         "start_ns < ?4"
         " AND start_ns > ?3 - 10000000 AND end_ns > ?3 ORDER BY start_ns DESC LIMIT 64"},
    };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        sqlite3_stmt **slot = (sqlite3_stmt **)((char *)acc + queries[i].offset);
        if (sqlite3_prepare_v2(db, queries[i].sql, -1, slot, NULL) != SQLITE_OK) {
            error_set(err, "cannot read the trace for idle accounting: %s", sqlite3_errmsg(db));
            accountant_free(acc);
            return NULL;
        }
    }
    acc->threads = thread_calls_new(db, names); /* NULL (out of memory): the queries serve */
    if (acc->has_call_sources &&
        sqlite3_prepare_v2(db,
                           "SELECT s.value FROM call_sources c JOIN strings s ON s.id = c.source_id"
                           " WHERE c.process_id = ?1 AND c.correlation_id = ?2 LIMIT 1",
                           -1, &acc->source_query, NULL) != SQLITE_OK)
        acc->has_call_sources = 0;
    return acc;
}

void accountant_free(accountant *acc)
{
    if (!acc)
        return;
    sqlite3_stmt *queries[] = {acc->launch_query,     acc->covering_query, acc->calls_query,
                               acc->memcpy_query,     acc->wait_query,     acc->source_query,
                               acc->collective_query, acc->late_gpu_query};
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
        sqlite3_finalize(queries[i]);
    thread_calls_free(acc->threads);
    free(acc->sources);
    free(acc->stream_waits);
    thread_names_close(&acc->thread_names);
    for (size_t i = 0; i < acc->book_count; i++)
        books_free(&acc->books[i]);
    free(acc->books);
    for (size_t i = 0; i < acc->open_count; i++)
        free(acc->open[i].pieces);
    free(acc->open);
    free(acc->intervals);
    free(acc->behind);
    free(acc->instances);
    free(acc);
}

struct device_books *accountant_current(accountant *acc)
{
    return acc->current_book < acc->book_count ? &acc->books[acc->current_book] : NULL;
}

static int probe_exists(sqlite3 *db, const char *sql, int64_t process_id)
{
    sqlite3_stmt *query = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        found = sqlite3_step(query) == SQLITE_ROW;
    }
    sqlite3_finalize(query);
    return found;
}

/* Which writer made a process's rows, from the file it came from: what to record differs. */
static enum trace_origin process_origin(sqlite3 *db, int64_t process_id)
{
    sqlite3_stmt *query = NULL;
    enum trace_origin origin = ORIGIN_RECORD; /* the collector's per-process files end in .db */
    if (sqlite3_prepare_v2(db, "SELECT source_file FROM processes WHERE process_id = ?1", -1, &query, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        const char *file =
            sqlite3_step(query) == SQLITE_ROW ? (const char *)sqlite3_column_text(query, 0) : NULL;
        if (file && strstr(file, ".json"))
            origin = ORIGIN_KINETO;
        else if (file && (strstr(file, ".sqlite") || strstr(file, ".nsys-rep") || strstr(file, ".qdrep")))
            origin = ORIGIN_NSYS;
    }
    sqlite3_finalize(query);
    return origin;
}

int accountant_begin_device(accountant *acc, struct device_state *device)
{
    if (acc->book_count == acc->book_capacity) {
        size_t capacity = acc->book_capacity ? acc->book_capacity * 2 : 8;
        struct device_books *grown = realloc(acc->books, capacity * sizeof *grown);
        if (!grown)
            return -1;
        acc->books = grown;
        acc->book_capacity = capacity;
    }
    acc->current_book = acc->book_count;
    struct device_books *books = &acc->books[acc->book_count++];
    *books = (struct device_books){.process_id = device->process_id,
                                   .device_id = device->device_id,
                                   .rank = device->rank,
                                   .interval_first = (int64_t)acc->interval_count};
    for (size_t i = 0; i < acc->step_count; i++) {
        if (acc->steps[i].process_id != device->process_id)
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
        acc->process_has_api =
            probe_exists(acc->db, "SELECT 1 FROM api_calls WHERE process_id = ?1 AND api_domain < 3 LIMIT 1",
                         device->process_id);
        acc->process_has_syncs = probe_exists(
            acc->db, "SELECT 1 FROM synchronizations WHERE process_id = ?1 LIMIT 1", device->process_id);
        hold_stream_waits(acc, device->process_id);
        acc->process_has_collectives = probe_exists(
            acc->db, "SELECT 1 FROM collectives WHERE process_id = ?1 LIMIT 1", device->process_id);
        acc->process_has_sources =
            acc->has_call_sources &&
            probe_exists(acc->db, "SELECT 1 FROM call_sources WHERE process_id = ?1 LIMIT 1",
                         device->process_id);
        hold_sources(acc, device->process_id);
        acc->process_lacks_sync_events =
            probe_exists(acc->db,
                         "SELECT 1 FROM warnings WHERE (process_id = ?1 OR process_id IS NULL)"
                         " AND code = 'import-no-cuda-sync' LIMIT 1",
                         device->process_id);
        acc->process_origin = process_origin(acc->db, device->process_id);
        books->first_of_process = 1;
    }
    books->has_api = acc->process_has_api;
    books->lacks_sync_events = acc->process_lacks_sync_events;
    books->has_sources = acc->process_has_sources;
    books->origin = acc->process_origin;
    acc->selection = device->selection;
    acc->started = 0;
    acc->step_cursor = 0;
    acc->sweep_time_ns = INT64_MIN;
    acc->compute_end_ns = INT64_MIN;
    acc->open_end_min_ns = INT64_MAX;
    acc->ops_seen = acc->idle_seen_ns = 0;
    acc->last_launch.thread_id = STORE_NULL;
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
        acc->next_mark++;
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
    struct device_books *books = accountant_current(acc);
    if (!books)
        return 0;
    if (exposed_comm_advance(acc, INT64_MAX) != 0)
        return error_set(err, "out of memory");
    acc->selection = NULL;
    if (result_index == SIZE_MAX) {
        books_free(books);
        acc->book_count--;
        acc->known_process = INT64_MIN; /* the process's next device probes again, and is its first */
        acc->interval_count = (size_t)books->interval_first;
        return 0;
    }
    books->result_index = result_index;
    books->interval_end = acc->interval_count;
    return exposed_comm_end_device(acc, books, err);
}

void accountant_device_idle(accountant *acc, struct device_idle *idle)
{
    *idle = (struct device_idle){0};
    const struct device_books *books = accountant_current(acc);
    for (size_t i = 0; books && i < books->idle.count; i++)
        if ((unsigned)books->idle.buckets[i].cause < ACCOUNTING_CAUSE_COUNT)
            idle->ns[books->idle.buckets[i].cause] += books->idle.buckets[i].ns;
    if (books) {
        idle->host_work = books->host_work;
        idle->host_work_count = books->host_work_count;
    }
}

/* --- attribution --- */

static int add_interval(accountant *acc, enum accounting_cause cause, const char *label, int64_t start_ns,
                        int64_t end_ns)
{
    struct device_books *books = accountant_current(acc);
    if (end_ns <= start_ns)
        return 0;
    if (acc->interval_count > (size_t)books->interval_first) {
        struct accounting_interval *last = &acc->intervals[acc->interval_count - 1];
        if (last->device == acc->current_book && last->cause == cause && last->end_ns == start_ns &&
            strcmp(last->label, label) == 0) {
            last->end_ns = end_ns;
            return 0;
        }
    }
    if (acc->interval_count >= ACCOUNTING_MAX_INTERVALS)
        return 0;
    if (acc->interval_count == acc->interval_capacity) {
        /* From 256 straight to all it may hold: pages cost nothing until written, and grown by
         * doubling and copying, the array of a host-bound trace (which keeps all of them) faulted
         * its pages in twice. A small trace's stays small (ASan writes the shadow of all of it). */
        size_t capacity = acc->interval_capacity == 0 ? 256 : ACCOUNTING_MAX_INTERVALS;
        struct accounting_interval *grown = realloc(acc->intervals, capacity * sizeof *grown);
        if (!grown)
            return -1;
        acc->intervals = grown;
        acc->interval_capacity = capacity;
    }
    struct accounting_interval *interval = &acc->intervals[acc->interval_count++];
    *interval = (struct accounting_interval){
        .device = acc->current_book, .cause = cause, .start_ns = start_ns, .end_ns = end_ns};
    accountant_copy_text(interval->label, sizeof interval->label, label);
    return 0;
}

static int64_t measure(struct selection *selection, int64_t start_ns, int64_t end_ns)
{
    if (end_ns <= start_ns)
        return 0;
    return selection ? selection_clock(selection, end_ns) - selection_clock(selection, start_ns)
                     : end_ns - start_ns;
}

static int64_t clamp(int64_t value, int64_t low, int64_t high)
{
    return value < low ? low : value > high ? high : value;
}

/* [start_ns, end_ns) less the GPU time of every step of books, in time order, into segments
 * (at most capacity: the rest of the stretch, if any, is left out and counts as step-boundary). */
static size_t outside_steps(const accountant *acc, const struct device_books *books, int64_t start_ns,
                            int64_t end_ns, int64_t segments[][2], size_t capacity)
{
    size_t count = 0;
    int64_t cursor = start_ns;
    while (cursor < end_ns && count < capacity) {
        /* The step that covers cursor pushes it past its end; else the segment runs to the next step. */
        int64_t next_start = end_ns, covered_to = cursor;
        for (size_t k = 0; k < books->step_count; k++) {
            const struct analysis_step *step = &acc->steps[books->first_step + k];
            if (step->start_ns <= cursor && step->end_ns > covered_to)
                covered_to = step->end_ns;
            else if (step->start_ns > cursor && step->start_ns < next_start)
                next_start = step->start_ns;
        }
        if (covered_to > cursor) {
            cursor = covered_to;
            continue;
        }
        segments[count][0] = cursor;
        segments[count][1] = next_start;
        count++;
        cursor = next_start;
    }
    return count;
}

/* The steps of books around [start_ns, end_ns): the last to end at or before it and the first to
 * start at or after it (SIZE_MAX when none). */
static void steps_around(const accountant *acc, const struct device_books *books, int64_t start_ns,
                         int64_t end_ns, size_t *before, size_t *after)
{
    *before = *after = SIZE_MAX;
    for (size_t k = 0; k < books->step_count; k++) {
        const struct analysis_step *step = &acc->steps[books->first_step + k];
        if (step->end_ns <= start_ns &&
            (*before == SIZE_MAX || step->end_ns > acc->steps[books->first_step + *before].end_ns))
            *before = k;
        if (step->start_ns >= end_ns &&
            (*after == SIZE_MAX || step->start_ns < acc->steps[books->first_step + *after].start_ns))
            *after = k;
    }
}

/* Idle time outside every step's GPU activity (outside_c of the stretch, on the selection's clock),
 * kept apart from the causes inside steps and labelled with the cause it would have had: while the
 * host was still in the step before (its host range), step-end, given to that step; while it was
 * already in the step after, step-start, given to that one; else step-boundary. */
static int attribute_between_steps(accountant *acc, struct device_books *books, struct selection *selection,
                                   enum accounting_cause cause, int64_t start_ns, int64_t end_ns,
                                   int64_t outside_c, int add_intervals,
                                   const struct evidence_figures *figures)
{
    enum { SEGMENTS = 16 };
    int64_t segments[SEGMENTS][2];
    struct {
        int kind; /* 0 step-end, 1 step-boundary, 2 step-start */
        size_t owner;
        int64_t part;
    } parts[3 * SEGMENTS + 1];
    size_t part_count = 0, count = outside_steps(acc, books, start_ns, end_ns, segments, SEGMENTS);
    static const enum accounting_cause causes[3] = {ACCOUNTING_IDLE_STEP_END, ACCOUNTING_IDLE_STEP_BOUNDARY,
                                                    ACCOUNTING_IDLE_STEP_START};
    int64_t total = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t s = segments[i][0], e = segments[i][1];
        size_t before, after;
        steps_around(acc, books, s, e, &before, &after);
        const struct analysis_step *prev =
            before == SIZE_MAX ? NULL : &acc->steps[books->first_step + before];
        const struct analysis_step *next = after == SIZE_MAX ? NULL : &acc->steps[books->first_step + after];
        int64_t end_split = prev && prev->host_end_ns != STORE_NULL ? clamp(prev->host_end_ns, s, e) : s;
        int64_t start_split =
            next && next->host_start_ns != STORE_NULL ? clamp(next->host_start_ns, end_split, e) : e;
        int64_t cuts[4] = {s, end_split, start_split, e};
        for (int k = 0; k < 3; k++) {
            int64_t part = measure(selection, cuts[k], cuts[k + 1]);
            if (part <= 0)
                continue;
            parts[part_count].kind = k;
            parts[part_count].owner = k == 0 ? before : k == 2 ? after : SIZE_MAX;
            parts[part_count++].part = part;
            total += part;
            if (add_intervals &&
                add_interval(acc, causes[k], accounting_cause_tag(cause), cuts[k], cuts[k + 1]) != 0)
                return -1;
        }
    }
    /* The stretch's outside time exactly: steps that overlap each other counted their common time
     * once inside, so the segments may differ from it; step-boundary absorbs the difference first,
     * then step-start, then step-end. */
    int64_t excess = total - outside_c;
    if (excess < 0) {
        parts[part_count].kind = 1;
        parts[part_count].owner = SIZE_MAX;
        parts[part_count++].part = -excess;
        excess = 0;
    }
    static const int order[3] = {1, 2, 0};
    for (int o = 0; o < 3 && excess > 0; o++)
        for (size_t i = 0; i < part_count && excess > 0; i++) {
            if (parts[i].kind != order[o])
                continue;
            int64_t take = excess < parts[i].part ? excess : parts[i].part;
            parts[i].part -= take;
            excess -= take;
        }
    const char *tag = accounting_cause_tag(cause);
    for (size_t i = 0; i < part_count; i++) {
        if (parts[i].part <= 0)
            continue;
        enum accounting_cause kind = causes[parts[i].kind];
        if (builder_add(&books->idle, kind, tag, "", parts[i].part, acc->next_mark, figures) != 0)
            return -1;
        if (parts[i].owner != SIZE_MAX && builder_add(&books->step_idle[parts[i].owner], kind, tag, "",
                                                      parts[i].part, acc->next_mark, figures) != 0)
            return -1;
    }
    return 0;
}

/* accountant_attribute, and the part of length_c given to cause itself (*kept_c), not to the time
 * between steps. */
static int attribute(accountant *acc, struct selection *selection, enum accounting_cause cause,
                     const char *label, const char *source, int64_t start_ns, int64_t end_ns,
                     int64_t length_c, const struct evidence_figures *figures, int64_t *kept_c)
{
    struct device_books *books = accountant_current(acc);
    *kept_c = 0;
    if (length_c <= 0 || !books)
        return 0;
    int idle = accounting_cause_is_idle(cause);
    int64_t inside_c = 0;
    for (size_t k = 0; k < books->step_count; k++) {
        const struct analysis_step *step = &acc->steps[books->first_step + k];
        int64_t a = start_ns > step->start_ns ? start_ns : step->start_ns;
        int64_t b = end_ns < step->end_ns ? end_ns : step->end_ns;
        int64_t part = measure(selection, a, b);
        if (part > length_c - inside_c)
            part = length_c - inside_c; /* steps that overlap each other: the device's time counts once */
        if (part <= 0)
            continue;
        inside_c += part;
        struct breakdown_builder *builder = idle ? &books->step_idle[k] : &books->step_comm[k];
        if (builder_add(builder, cause, label, source, part, acc->next_mark, figures) != 0)
            return -1;
    }
    struct breakdown_builder *whole = idle ? &books->idle : &books->comm;
    if (idle && books->step_count && inside_c < length_c) {
        /* Kept apart: the time between two steps' GPU activity is a property of the loop. */
        if (attribute_between_steps(acc, books, selection, cause, start_ns, end_ns, length_c - inside_c,
                                    inside_c == 0, figures) != 0)
            return -1;
        if (inside_c == 0)
            return 0;
    }
    *kept_c = idle && books->step_count ? inside_c : length_c;
    if (builder_add(whole, cause, label, source, *kept_c, acc->next_mark, figures) != 0)
        return -1;
    return add_interval(acc, cause, label, start_ns, end_ns);
}

int accountant_attribute(accountant *acc, struct selection *selection, enum accounting_cause cause,
                         const char *label, const char *source, int64_t start_ns, int64_t end_ns,
                         int64_t length_c, const struct evidence_figures *figures)
{
    int64_t kept_c;
    return attribute(acc, selection, cause, label, source, start_ns, end_ns, length_c, figures, &kept_c);
}

int accountant_attribute_host_work(accountant *acc, struct selection *selection, const char *label,
                                   const char *source, int64_t start_ns, int64_t end_ns, int64_t length_c,
                                   const struct evidence_figures *figures, int64_t launch_ns)
{
    int64_t kept_c;
    if (attribute(acc, selection, ACCOUNTING_IDLE_HOST_CPU, label, source, start_ns, end_ns, length_c,
                  figures, &kept_c) != 0)
        return -1;
    struct device_books *books = accountant_current(acc);
    if (!books || kept_c <= 0)
        return 0;
    if (books->host_work_count == books->host_work_capacity) {
        size_t capacity = books->host_work_capacity ? 2 * books->host_work_capacity : 64;
        struct host_work *grown = realloc(books->host_work, capacity * sizeof *grown);
        if (!grown)
            return -1;
        books->host_work = grown;
        books->host_work_capacity = capacity;
    }
    books->host_work[books->host_work_count++] = (struct host_work){launch_ns, kept_c};
    return 0;
}

int accountant_add_figures(accountant *acc, enum accounting_cause cause, const char *label,
                           const struct evidence_figures *figures)
{
    struct device_books *books = accountant_current(acc);
    struct bucket *b = books ? bucket_of(&books->idle, cause, label, "") : NULL;
    if (!b)
        return books ? -1 : 0;
    merge_figures(b, figures);
    return 0;
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
static double bus_factor(const char *op, int64_t n, const char **formula)
{
    double ranks = (double)(n > 0 ? n : 1);
    if (strcmp(op, "AllReduce") == 0) {
        *formula = "2(n-1)/n";
        return 2.0 * (ranks - 1) / ranks;
    }
    if (strcmp(op, "AllGather") == 0 || strcmp(op, "ReduceScatter") == 0 || strcmp(op, "AllToAll") == 0) {
        *formula = "(n-1)/n";
        return (ranks - 1) / ranks;
    }
    *formula = "1";
    return 1.0;
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
        append(text, size, "%s arrived last at %" PRId64 " collective%s, %s late on average", b->label,
               b->count, b->count == 1 ? "" : "s", duration(one, sizeof one, f->late_ns / count));
        break;
    case ACCOUNTING_COMM_TRANSFER:
        if (f->transfer_ns > 0 && f->bytes > 0) {
            const char *formula = "1";
            double algorithm_gbps = (double)f->bytes / (double)f->transfer_ns;
            double bus_gbps = algorithm_gbps * bus_factor(b->label, f->nranks, &formula);
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
    if (b->detail[0])
        append(text, size, "%s%s", text[0] ? "; " : "", b->detail);
}

static int compare_entries(const void *left, const void *right)
{
    const struct accounting_entry *a = left, *b = right;
    if (a->ns != b->ns)
        return a->ns > b->ns ? -1 : 1;
    if (a->cause != b->cause)
        return a->cause < b->cause ? -1 : 1;
    return strcmp(a->label, b->label);
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
        snprintf(entry->label, sizeof entry->label, "%s", b->label);
        snprintf(entry->source, sizeof entry->source, "%s", b->source);
        write_evidence(b, entry->evidence, sizeof entry->evidence);
    }
    if (out->entry_count > 1)
        qsort(out->entries, out->entry_count, sizeof *out->entries, compare_entries);
    return 0;
}

static int add_accounting(struct analysis_result *result, size_t *capacity, size_t device, int64_t step,
                          const struct breakdown_builder *idle, const struct breakdown_builder *comm)
{
    if (result->accounting_count == *capacity) {
        size_t grown_capacity = *capacity ? *capacity * 2 : 8;
        struct analysis_accounting *grown = realloc(result->accountings, grown_capacity * sizeof *grown);
        if (!grown)
            return -1;
        result->accountings = grown;
        *capacity = grown_capacity;
    }
    struct analysis_accounting *out = &result->accountings[result->accounting_count++];
    *out = (struct analysis_accounting){.device = device, .step = step};
    if (build_breakdown(idle, &out->idle) != 0 || build_breakdown(comm, &out->exposed_communication) != 0)
        return -1;
    return 0;
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

/* The causes each process's trace lacks the data to check (never guessed): once per process, on its
 * first device, and only where the device had time to give them. */
static int collect_unchecked(const accountant *acc, struct analysis_result *result)
{
    size_t capacity = 0;
    int single_rank_comm = 0;
    for (size_t i = 0; i < acc->book_count; i++)
        for (size_t k = 0; k < acc->books[i].comm.count; k++)
            single_rank_comm |= acc->books[i].comm.buckets[k].cause == ACCOUNTING_COMM_UNMATCHED &&
                                strcmp(acc->books[i].comm.buckets[k].label, "single rank") == 0;
    for (size_t i = 0; i < acc->book_count; i++) {
        const struct device_books *books = &acc->books[i];
        if (!books->first_of_process)
            continue;
        int64_t idle = 0;
        for (size_t k = i; k < acc->book_count && acc->books[k].process_id == books->process_id; k++)
            idle += acc->books[k].idle.ns;
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
            idle_call_source(acc, result->lanes[wait->waiting.lane].process_id, STORE_NULL,
                             wait->waiting.correlation_id, wait->source, sizeof wait->source);
    }
}

int accountant_collect(accountant *acc, struct analysis_result *result, error_info *err)
{
    result->straggler.rank = -1;
    result->call_sources_known = acc->has_call_sources;
    wait_sources(acc, result);
    if (exposed_comm_collect(acc, result, err) != 0)
        return -1;
    size_t capacity = 0;
    for (size_t i = 0; i < acc->book_count; i++) {
        const struct device_books *books = &acc->books[i];
        if (add_accounting(result, &capacity, books->result_index, -1, &books->idle, &books->comm) != 0)
            return error_set(err, "out of memory");
        for (size_t k = 0; k < books->step_count; k++) {
            if (books->step_idle[k].ns == 0 && books->step_comm[k].ns == 0)
                continue;
            if (add_accounting(result, &capacity, books->result_index,
                               acc->steps[books->first_step + k].number, &books->step_idle[k],
                               &books->step_comm[k]) != 0)
                return error_set(err, "out of memory");
        }
    }
    if (collect_unchecked(acc, result) != 0)
        return error_set(err, "out of memory");
    /* Intervals name devices by book; books are in result order, so map through result_index. */
    for (size_t i = 0; i < acc->interval_count; i++)
        acc->intervals[i].device = acc->books[acc->intervals[i].device].result_index;
    result->collective_instances = acc->instances;
    result->collective_instance_count = acc->instance_count;
    acc->instances = NULL;
    acc->instance_count = acc->instance_capacity = 0;
    result->accounting_intervals = acc->intervals;
    result->accounting_interval_count = acc->interval_count;
    acc->intervals = NULL;
    acc->interval_count = acc->interval_capacity = 0;
    return 0;
}

void accountant_free_result(struct analysis_result *result)
{
    for (size_t i = 0; i < result->accounting_count; i++) {
        free(result->accountings[i].idle.entries);
        free(result->accountings[i].exposed_communication.entries);
        free(result->accountings[i].exposed_copy.entries);
    }
    free(result->accountings);
    free(result->accounting_intervals);
    free(result->unchecked);
    free(result->collective_instances);
}
