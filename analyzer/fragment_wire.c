/* fragment_wire.c: a device's fragment to bytes and back (fragment_wire.h). The writer follows the
 * fragment's tree (the result's part, the exposed copies, the accountant's books with their
 * buckets, collectives and host work, the kept waits) and the reader rebuilds it with memory of
 * its own, every pointer the writer zeroed set again from the array that follows it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accountant_state.h"
#include "fragment_wire.h"

static const unsigned char wire_magic[4] = {'O', 'S', 'F', 'W'};

/* The records' sizes: bytes of a build whose records differ are refused, not misread. */
static uint64_t layout_fingerprint(void)
{
    const size_t sizes[] = {sizeof(struct analysis_lane),
                            sizeof(struct analysis_device),
                            sizeof(struct analysis_stream_pair),
                            sizeof(struct analysis_overlap_cost),
                            sizeof(struct accounting_entry),
                            sizeof(struct accounting_interval),
                            sizeof(struct device_books),
                            sizeof(struct bucket),
                            sizeof(struct comm_kernel),
                            sizeof(struct piece),
                            sizeof(struct host_work),
                            sizeof(struct analysis_wait),
                            sizeof(struct analysis_cause_total),
                            ANALYSIS_CAUSE_COUNT,
                            ANALYSIS_STREAMS_SEEN,
                            sizeof(error_info)};
    uint64_t hash = 1469598103934665603u; /* FNV-1a over the sizes */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        hash ^= (uint64_t)sizes[i];
        hash *= 1099511628211u;
    }
    return hash;
}

/* --- writing --- */

static void put(struct fragment_wire *wire, const void *data, size_t size)
{
    if (wire->failed || size == 0)
        return;
    if (wire->size + size > wire->capacity) {
        size_t capacity = wire->capacity ? wire->capacity : 4096;
        while (capacity < wire->size + size)
            capacity *= 2;
        unsigned char *grown = realloc(wire->bytes, capacity);
        if (!grown) {
            wire->failed = 1;
            return;
        }
        wire->bytes = grown;
        wire->capacity = capacity;
    }
    memcpy(wire->bytes + wire->size, data, size);
    wire->size += size;
}

static void put_u64(struct fragment_wire *wire, uint64_t value)
{
    unsigned char bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (unsigned char)(value >> (8 * i));
    put(wire, bytes, sizeof bytes);
}

static void put_i64(struct fragment_wire *wire, int64_t value)
{
    put_u64(wire, (uint64_t)value);
}

/* count, then count records of size bytes (records without pointers). */
static void put_records(struct fragment_wire *wire, const void *records, size_t count, size_t size)
{
    put_u64(wire, count);
    put(wire, records, count * size);
}

/* A text the record points to, after the record: its length (NO_TEXT for none), then its bytes. */
#define NO_TEXT UINT64_MAX
static void put_text(struct fragment_wire *wire, const char *text)
{
    put_u64(wire, text ? (uint64_t)strlen(text) : NO_TEXT);
    if (text)
        put(wire, text, strlen(text));
}

/* Entries of a breakdown, each followed by its evidence (held at its length: accounting.h). */
static void put_entries(struct fragment_wire *wire, const struct accounting_breakdown *breakdown)
{
    put_u64(wire, breakdown->entry_count);
    for (size_t i = 0; i < breakdown->entry_count; i++) {
        struct accounting_entry entry = breakdown->entries[i];
        entry.evidence = NULL;
        put(wire, &entry, sizeof entry);
        put_text(wire, breakdown->entries[i].evidence);
    }
}

static void put_builder(struct fragment_wire *wire, const struct breakdown_builder *builder)
{
    put_i64(wire, builder->ns);
    put_u64(wire, builder->count);
    for (size_t i = 0; i < builder->count; i++) {
        struct bucket bucket = builder->buckets[i];
        /* the sentence they lead to is in bucket.detail already (ledger.c) */
        bucket.figures.detail = NULL;
        bucket.figures.write_detail = NULL;
        bucket.figures.detail_context = NULL;
        bucket.detail = NULL;
        bucket.label = bucket.source = NULL;
        put(wire, &bucket, sizeof bucket);
        put_text(wire, builder->buckets[i].detail);
        put_text(wire, builder->buckets[i].label);
        put_text(wire, builder->buckets[i].source);
    }
}

static void put_books(struct fragment_wire *wire, const struct device_books *books)
{
    struct device_books plain = *books;
    plain.idle = plain.comm = (struct breakdown_builder){0};
    plain.step_idle = plain.step_comm = NULL;
    /* the steps' search order is built again where the books next take a stretch (ledger.c) */
    plain.by_start = plain.by_end = NULL;
    plain.reach = NULL;
    plain.kernels = NULL;
    plain.kernel_capacity = 0;
    plain.host_work = NULL;
    plain.host_work_capacity = 0;
    put(wire, &plain, sizeof plain);
    put_builder(wire, &books->idle);
    put_builder(wire, &books->comm);
    put_u64(wire, books->step_idle != NULL);
    for (size_t i = 0; books->step_idle && i < books->step_count; i++)
        put_builder(wire, &books->step_idle[i]);
    put_u64(wire, books->step_comm != NULL);
    for (size_t i = 0; books->step_comm && i < books->step_count; i++)
        put_builder(wire, &books->step_comm[i]);
    put_u64(wire, books->kernel_count);
    for (size_t i = 0; i < books->kernel_count; i++) {
        struct comm_kernel kernel = books->kernels[i];
        kernel.pieces = NULL;
        kernel.piece_capacity = 0;
        put(wire, &kernel, sizeof kernel);
        put_records(wire, books->kernels[i].pieces, books->kernels[i].piece_count, sizeof(struct piece));
    }
    put_records(wire, books->host_work, books->host_work_count, sizeof *books->host_work);
}

static void put_waits(struct fragment_wire *wire, const struct explainer_device *waits)
{
    put_u64(wire, waits->arrival_count);
    for (size_t i = 0; i < waits->arrival_count; i++) {
        struct analysis_wait wait = waits->arrivals[i];
        wait.waiting.full_name = wait.blocking.full_name = NULL; /* given by the run (analysis.c) */
        put(wire, &wait, sizeof wait);
    }
    put_i64(wire, waits->total_waits);
    put(wire, waits->causes, sizeof waits->causes);
}

int fragment_wire_begin(struct fragment_wire *wire, size_t count)
{
    put(wire, wire_magic, sizeof wire_magic);
    put_u64(wire, FRAGMENT_WIRE_VERSION);
    put_u64(wire, layout_fingerprint());
    put_u64(wire, count);
    return wire->failed ? -1 : 0;
}

int fragment_wire_put(struct fragment_wire *wire, const struct device_fragment *fragment)
{
    put_i64(wire, fragment->status);
    put(wire, &fragment->err, sizeof fragment->err);
    put_u64(wire, (uint64_t)fragment->skipped);
    const struct analysis_result *part = &fragment->part;
    put_records(wire, part->lanes, part->lane_count, sizeof *part->lanes);
    put_records(wire, part->devices, part->device_count, sizeof *part->devices);
    put_records(wire, part->stream_pairs, part->stream_pair_count, sizeof *part->stream_pairs);
    put_records(wire, part->overlap_costs, part->overlap_cost_count, sizeof *part->overlap_costs);
    put_i64(wire, part->interval_count);
    put_i64(wire, fragment->copy_breakdown.ns);
    put_entries(wire, &fragment->copy_breakdown);
    put_records(wire, fragment->copy_intervals, fragment->copy_interval_count,
                sizeof *fragment->copy_intervals);
    put_u64(wire, fragment->copy_stretch_count);
    const struct accountant_device *books = &fragment->books;
    put_i64(wire, books->next_mark);
    put_u64(wire, (uint64_t)books->began);
    put_u64(wire, (uint64_t)books->dropped);
    put_i64(wire, books->process_id);
    put_u64(wire, books->books != NULL);
    if (books->books)
        put_books(wire, books->books);
    put_records(wire, books->intervals, books->interval_count, sizeof *books->intervals);
    put_waits(wire, &fragment->waits);
    put_u64(wire, fragment->ranges_found);
    put_u64(wire, (uint64_t)fragment->wanted_stream_seen);
    put_records(wire, fragment->streams_seen, fragment->streams_seen_count, sizeof *fragment->streams_seen);
    return wire->failed ? -1 : 0;
}

/* --- reading --- */

struct reader {
    const unsigned char *bytes;
    size_t size, offset;
    int failed;
    error_info *err;
};

static int damaged(struct reader *reader, const char *what)
{
    if (!reader->failed)
        error_set(reader->err, "the fragments received are damaged (%s at byte %zu)", what, reader->offset);
    reader->failed = 1;
    return -1;
}

static void get(struct reader *reader, void *data, size_t size)
{
    if (reader->failed)
        return;
    if (size > reader->size - reader->offset) {
        damaged(reader, "cut short");
        return;
    }
    memcpy(data, reader->bytes + reader->offset, size);
    reader->offset += size;
}

static uint64_t get_u64(struct reader *reader)
{
    unsigned char bytes[8] = {0};
    get(reader, bytes, sizeof bytes);
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value |= (uint64_t)bytes[i] << (8 * i);
    return value;
}

static int64_t get_i64(struct reader *reader)
{
    return (int64_t)get_u64(reader);
}

/* A count of records of size bytes that the bytes left can hold, or 0 with the reader failed. */
static size_t get_count(struct reader *reader, size_t size)
{
    uint64_t count = get_u64(reader);
    if (!reader->failed && size && count > (reader->size - reader->offset) / size)
        damaged(reader, "a count beyond the bytes");
    return reader->failed ? 0 : (size_t)count;
}

/* count (read here) records into a new array *records (NULL when none). */
static size_t get_records(struct reader *reader, void **records, size_t size)
{
    *records = NULL;
    size_t count = get_count(reader, size);
    if (count == 0)
        return 0;
    *records = malloc(count * size);
    if (!*records) {
        reader->failed = 1;
        error_set(reader->err, "out of memory");
        return 0;
    }
    get(reader, *records, count * size);
    return count;
}

static void *get_array(struct reader *reader, size_t count, size_t size)
{
    void *array = calloc(count ? count : 1, size);
    if (!array && !reader->failed) {
        reader->failed = 1;
        error_set(reader->err, "out of memory");
    }
    return array;
}

/* A text put_text wrote, in memory of its own (NULL for none, or when the bytes are short). */
static char *get_text(struct reader *reader)
{
    uint64_t length = get_u64(reader);
    if (reader->failed || length == NO_TEXT)
        return NULL;
    if (length > reader->size - reader->offset) {
        damaged(reader, "a text beyond the bytes");
        return NULL;
    }
    char *text = malloc((size_t)length + 1);
    if (!text) {
        reader->failed = 1;
        error_set(reader->err, "out of memory");
        return NULL;
    }
    get(reader, text, (size_t)length);
    text[length] = '\0';
    return text;
}

/* A breakdown's entries put_entries wrote; every evidence set (empty when it was missing). */
static void get_entries(struct reader *reader, struct accounting_breakdown *breakdown)
{
    breakdown->entry_count = 0;
    breakdown->entries = NULL;
    size_t count = get_count(reader, sizeof(struct accounting_entry));
    if (count == 0)
        return;
    breakdown->entries = get_array(reader, count, sizeof *breakdown->entries);
    for (size_t i = 0; breakdown->entries && i < count && !reader->failed; i++) {
        get(reader, &breakdown->entries[i], sizeof breakdown->entries[i]);
        breakdown->entries[i].evidence = get_text(reader);
        breakdown->entry_count = i + 1; /* owned from here: accounting_breakdown_free frees them */
        if (!breakdown->entries[i].evidence && !reader->failed)
            breakdown->entries[i].evidence = strdup("");
        if (!breakdown->entries[i].evidence && !reader->failed) {
            reader->failed = 1;
            error_set(reader->err, "out of memory");
        }
    }
}

static void get_builder(struct reader *reader, struct breakdown_builder *builder)
{
    builder->ns = get_i64(reader);
    builder->count = builder->capacity = 0;
    size_t count = get_count(reader, sizeof(struct bucket));
    if (count == 0)
        return;
    builder->buckets = get_array(reader, count, sizeof *builder->buckets);
    if (!builder->buckets)
        return;
    builder->capacity = count;
    for (size_t i = 0; i < count && !reader->failed; i++) {
        get(reader, &builder->buckets[i], sizeof builder->buckets[i]);
        builder->buckets[i].detail = get_text(reader);
        char *label = get_text(reader), *source = get_text(reader);
        builder->buckets[i].label = label && label[0] ? label : ledger_no_text;
        builder->buckets[i].source = source && source[0] ? source : ledger_no_text;
        if (label && !label[0])
            free(label);
        if (source && !source[0])
            free(source);
        builder->count = i + 1; /* owned from here: ledger_builder_free frees them */
    }
}

/* The steps' builders of books (step_count of them), when the writer had them. */
static struct breakdown_builder *get_step_builders(struct reader *reader, size_t step_count)
{
    if (get_u64(reader) == 0 || reader->failed)
        return NULL;
    if (step_count > (reader->size - reader->offset) / 16) { /* each at least its ns and count */
        damaged(reader, "a step count beyond the bytes");
        return NULL;
    }
    struct breakdown_builder *builders = get_array(reader, step_count, sizeof *builders);
    for (size_t i = 0; builders && i < step_count; i++)
        get_builder(reader, &builders[i]);
    return builders;
}

static void get_kernels(struct reader *reader, struct device_books *books)
{
    size_t count = get_count(reader, sizeof(struct comm_kernel));
    if (count == 0)
        return;
    books->kernels = get_array(reader, count, sizeof *books->kernels);
    for (size_t i = 0; books->kernels && !reader->failed && i < count; i++) {
        struct comm_kernel *kernel = &books->kernels[i];
        get(reader, kernel, sizeof *kernel);
        kernel->pieces = NULL;
        kernel->piece_count = kernel->piece_capacity = 0;
        books->kernel_count = books->kernel_capacity = i + 1; /* freed up to here on failure */
        void *pieces;
        kernel->piece_count = kernel->piece_capacity = get_records(reader, &pieces, sizeof(struct piece));
        kernel->pieces = pieces;
    }
}

static struct device_books *get_books(struct reader *reader)
{
    struct device_books *books = get_array(reader, 1, sizeof *books);
    if (!books)
        return NULL;
    get(reader, books, sizeof *books);
    /* the pointers written as zero, and the counts that go with them, are set below */
    books->idle = books->comm = (struct breakdown_builder){0};
    books->step_idle = books->step_comm = NULL;
    books->by_start = books->by_end = NULL;
    books->reach = NULL;
    books->kernels = NULL;
    books->kernel_count = books->kernel_capacity = 0;
    books->host_work = NULL;
    books->host_work_count = books->host_work_capacity = 0;
    size_t step_count = books->step_count;
    books->step_count = 0; /* until both steps' arrays are read, for ledger_books_free */
    get_builder(reader, &books->idle);
    get_builder(reader, &books->comm);
    struct breakdown_builder *step_idle = get_step_builders(reader, step_count);
    struct breakdown_builder *step_comm = get_step_builders(reader, step_count);
    if (step_idle && step_comm) {
        books->step_idle = step_idle;
        books->step_comm = step_comm;
        books->step_count = step_count;
    } else {
        for (size_t i = 0; i < step_count; i++) {
            if (step_idle)
                ledger_builder_free(&step_idle[i]);
            if (step_comm)
                ledger_builder_free(&step_comm[i]);
        }
        free(step_idle);
        free(step_comm);
        if (!reader->failed && step_count)
            damaged(reader, "books with steps but not their breakdowns");
    }
    get_kernels(reader, books);
    void *host_work;
    books->host_work_count = books->host_work_capacity =
        get_records(reader, &host_work, sizeof(struct host_work));
    books->host_work = host_work;
    return books;
}

static void get_waits(struct reader *reader, struct explainer_device *waits)
{
    size_t count = get_count(reader, sizeof(struct analysis_wait));
    if (count) {
        waits->arrivals = get_array(reader, count, sizeof *waits->arrivals);
        if (waits->arrivals) {
            get(reader, waits->arrivals, count * sizeof *waits->arrivals);
            waits->arrival_count = count;
        }
    }
    waits->total_waits = get_i64(reader);
    get(reader, waits->causes, sizeof waits->causes);
}

int fragment_wire_open(const unsigned char *bytes, size_t size, size_t *offset, size_t *count,
                       error_info *err)
{
    struct reader reader = {.bytes = bytes, .size = size, .offset = *offset, .err = err};
    unsigned char magic[sizeof wire_magic];
    get(&reader, magic, sizeof magic);
    if (!reader.failed && memcmp(magic, wire_magic, sizeof magic) != 0)
        return damaged(&reader, "no fragment header");
    uint64_t version = get_u64(&reader), fingerprint = get_u64(&reader);
    *count = get_count(&reader, 1);
    if (reader.failed)
        return -1;
    if (version != FRAGMENT_WIRE_VERSION || fingerprint != layout_fingerprint())
        return error_set(err,
                         "the fragments received come from another build of overlapscope (format %llu): "
                         "run one build on every process",
                         (unsigned long long)version);
    *offset = reader.offset;
    return 0;
}

int fragment_wire_get(const unsigned char *bytes, size_t size, size_t *offset, struct device_fragment *out,
                      error_info *err)
{
    memset(out, 0, sizeof *out);
    struct reader reader = {.bytes = bytes, .size = size, .offset = *offset, .err = err};
    out->status = (int)get_i64(&reader);
    get(&reader, &out->err, sizeof out->err);
    out->err.message[sizeof out->err.message - 1] = '\0';
    out->skipped = (int)get_u64(&reader);
    struct analysis_result *part = &out->part;
    void *records;
    part->lane_count = out->lane_capacity = get_records(&reader, &records, sizeof *part->lanes);
    part->lanes = records;
    part->device_count = get_records(&reader, &records, sizeof *part->devices);
    part->devices = records;
    if (part->device_count > 1)
        damaged(&reader, "a fragment of more than one device");
    part->stream_pair_count = get_records(&reader, &records, sizeof *part->stream_pairs);
    part->stream_pairs = records;
    part->overlap_cost_count = part->overlap_cost_capacity =
        get_records(&reader, &records, sizeof *part->overlap_costs);
    part->overlap_costs = records;
    part->interval_count = get_i64(&reader);
    out->copy_breakdown.ns = get_i64(&reader);
    get_entries(&reader, &out->copy_breakdown);
    out->copy_interval_count = get_records(&reader, &records, sizeof *out->copy_intervals);
    out->copy_intervals = records;
    out->copy_stretch_count = (size_t)get_u64(&reader);
    struct accountant_device *books = &out->books;
    books->next_mark = get_i64(&reader);
    books->began = (int)get_u64(&reader);
    books->dropped = (int)get_u64(&reader);
    books->process_id = get_i64(&reader);
    if (get_u64(&reader) && !reader.failed)
        books->books = get_books(&reader);
    books->interval_count = get_records(&reader, &records, sizeof *books->intervals);
    books->intervals = records;
    get_waits(&reader, &out->waits);
    out->ranges_found = (size_t)get_u64(&reader);
    out->wanted_stream_seen = (int)get_u64(&reader);
    size_t seen = get_count(&reader, sizeof *out->streams_seen);
    if (seen > ANALYSIS_STREAMS_SEEN)
        damaged(&reader, "more streams seen than a fragment holds");
    else {
        get(&reader, out->streams_seen, seen * sizeof *out->streams_seen);
        out->streams_seen_count = seen;
    }
    if (reader.failed)
        return -1;
    *offset = reader.offset;
    return 0;
}
