/* exposed_copy.c: see exposed_copy.h. Operations arrive in start order, so between two starts no
 * kernel begins: the time [previous start, next start) of an open copy has no kernel running
 * exactly where it lies past the latest end of the kernels started so far. Each copy's share is
 * kept in a bucket of what it proves (pageable side, the host waited, small, its stream), and the
 * cause of each bucket is decided at the device's end, when it is known which streams ran
 * compute. */
#include "exposed_copy.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "selection.h"
#include "units.h"

/* A copy at most this large moves in about the time its call and the engine take to start
 * (tens of microseconds): per-call latency dominates (CUDA C++ Best Practices Guide, "Data Transfer
 * Between Host and Device": batch many small transfers into one larger transfer). */
#define EXPOSED_COPY_SMALL_BYTES (64 * 1024)
/* A copy's call that returns within this of the copy's end waited for it; a copy shorter than
 * EXPOSED_COPY_WAIT_MIN_NS ends within its own call's overhead whether or not the call waits. */
#define EXPOSED_COPY_WAIT_TOLERANCE_NS 2000
#define EXPOSED_COPY_WAIT_MIN_NS 20000

enum copy_direction { DIRECTION_HTOD, DIRECTION_DTOH, DIRECTION_DTOD, DIRECTION_PEER, DIRECTION_OTHER };
static const char *const direction_names[] = {"HtoD", "DtoH", "DtoD", "peer", "other"};

/* What one copy proves, the key of its bucket. */
struct copy_key {
    int pageable, waited, small;
    enum copy_direction direction;
    int64_t stream_id;
};

struct copy_bucket {
    struct copy_key key;
    int64_t copies, exposed_ns, bytes, duration_ns;
};

struct open_copy {
    int64_t start_ns, end_ns;
    size_t bucket;
};

/* A stretch of one copy with no kernel running, before its bucket's cause is decided. */
struct raw_stretch {
    int64_t start_ns, end_ns;
    size_t bucket;
};

struct copy_exposure {
    struct device_state *device;
    const struct launches *launches;
    int64_t now_ns, kernel_end_ns;
    struct open_copy *open;
    size_t open_count, open_capacity;
    struct copy_bucket *buckets;
    size_t bucket_count, bucket_capacity;
    /* Host copies from and to pinned memory, by direction (HtoD, DtoH): their bandwidth is what
     * pinning gives on this device. */
    int64_t pinned_bytes[2], pinned_ns[2];
    /* The device's stretches (adjacent ones of a bucket merged), and every device's as accounting
     * intervals once their causes are known: the picture's exposed-copy lane. */
    struct raw_stretch *stretches;
    size_t stretch_count, stretch_capacity;
    struct accounting_interval *intervals;
    size_t interval_count, interval_capacity;
    size_t prior_interval_count; /* kept by the run before this exposure's (a worker's) */
    int out_of_memory;
};

copy_exposure *copy_exposure_new(void)
{
    return calloc(1, sizeof(copy_exposure));
}

void copy_exposure_free(copy_exposure *exposure)
{
    if (!exposure)
        return;
    free(exposure->open);
    free(exposure->buckets);
    free(exposure->stretches);
    free(exposure->intervals);
    free(exposure);
}

void copy_exposure_begin_device(copy_exposure *exposure, struct device_state *device,
                                const struct launches *launches)
{
    exposure->device = device;
    exposure->launches = launches;
    exposure->now_ns = INT64_MIN;
    exposure->kernel_end_ns = INT64_MIN;
    exposure->open_count = exposure->bucket_count = exposure->stretch_count = 0;
    memset(exposure->pinned_bytes, 0, sizeof exposure->pinned_bytes);
    memset(exposure->pinned_ns, 0, sizeof exposure->pinned_ns);
}

/* A hostile trace's bytes or times (INT64_MIN bytes, a copy of 2^62 ns) saturate rather than
 * overflow; negative bytes count as none. Real sums stay far below. */
static void add_saturated(int64_t *sum, int64_t value)
{
    if (value > 0 && *sum > INT64_MAX - value)
        *sum = INT64_MAX;
    else if (value < 0 && *sum < INT64_MIN - value)
        *sum = INT64_MIN;
    else
        *sum += value;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Keeps [start_ns, end_ns) of bucket for the picture (ACCOUNTING_MAX_INTERVALS at most in all, as
 * the ledger keeps its own: the earliest; the totals cover every stretch). */
static void keep_stretch(copy_exposure *exposure, int64_t start_ns, int64_t end_ns, size_t bucket)
{
    if (exposure->stretch_count) {
        struct raw_stretch *last = &exposure->stretches[exposure->stretch_count - 1];
        if (last->bucket == bucket && last->end_ns == start_ns) {
            last->end_ns = end_ns;
            return;
        }
    }
    if (exposure->prior_interval_count + exposure->interval_count + exposure->stretch_count >=
        ACCOUNTING_MAX_INTERVALS)
        return;
    if (exposure->stretch_count == exposure->stretch_capacity) {
        size_t capacity = exposure->stretch_capacity ? exposure->stretch_capacity * 2 : 64;
        struct raw_stretch *grown = realloc(exposure->stretches, capacity * sizeof *grown);
        if (!grown) {
            exposure->out_of_memory = 1;
            return;
        }
        exposure->stretches = grown;
        exposure->stretch_capacity = capacity;
    }
    exposure->stretches[exposure->stretch_count++] = (struct raw_stretch){start_ns, end_ns, bucket};
}

/* Moves the clock to t: the open copies' time in [now, t) past the kernels' latest end had no
 * kernel running. Time two copies ran at once is given once, to the copy that started first (the
 * open copies are kept in start order), so the causes sum to the union the sweep measures. Copies
 * that ended by t close. */
static void advance(copy_exposure *exposure, int64_t t)
{
    struct selection *selection = exposure->device->selection;
    int64_t covered = max64(exposure->now_ns, exposure->kernel_end_ns);
    size_t kept = 0;
    for (size_t i = 0; i < exposure->open_count; i++) {
        struct open_copy *copy = &exposure->open[i];
        int64_t from = max64(copy->start_ns, covered);
        int64_t to = min64(copy->end_ns, t);
        if (to > from) {
            add_saturated(&exposure->buckets[copy->bucket].exposed_ns,
                          selection_clock(selection, to) - selection_clock(selection, from));
            keep_stretch(exposure, from, to, copy->bucket);
            covered = to;
        }
        if (copy->end_ns > t)
            exposure->open[kept++] = *copy;
    }
    exposure->open_count = kept;
    if (t > exposure->now_ns)
        exposure->now_ns = t;
}

static enum copy_direction direction_of(enum analysis_category category)
{
    switch (category) {
    case ANALYSIS_COPY_HTOD:
        return DIRECTION_HTOD;
    case ANALYSIS_COPY_DTOH:
        return DIRECTION_DTOH;
    case ANALYSIS_COPY_DTOD:
        return DIRECTION_DTOD;
    case ANALYSIS_COPY_PEER:
        return DIRECTION_PEER;
    default:
        return DIRECTION_OTHER;
    }
}

/* Whether the copy's own call returned only once the copy had ended: the host waited for it. */
static int host_waited(const copy_exposure *exposure, const struct model_op *op)
{
    if (!exposure->launches || !exposure->launches->complete || op->correlation_id == STORE_NULL ||
        op->end_ns - op->start_ns < EXPOSED_COPY_WAIT_MIN_NS)
        return 0;
    const struct thread_call *call = launches_find(exposure->launches, op->correlation_id);
    return call && call->end_ns >= op->end_ns - EXPOSED_COPY_WAIT_TOLERANCE_NS;
}

static long bucket_of(copy_exposure *exposure, const struct copy_key *key)
{
    for (size_t i = 0; i < exposure->bucket_count; i++)
        if (memcmp(&exposure->buckets[i].key, key, sizeof *key) == 0)
            return (long)i;
    if (exposure->bucket_count == exposure->bucket_capacity) {
        size_t capacity = exposure->bucket_capacity ? exposure->bucket_capacity * 2 : 8;
        struct copy_bucket *grown = realloc(exposure->buckets, capacity * sizeof *grown);
        if (!grown)
            return -1;
        exposure->buckets = grown;
        exposure->bucket_capacity = capacity;
    }
    exposure->buckets[exposure->bucket_count] = (struct copy_bucket){.key = *key};
    return (long)exposure->bucket_count++;
}

int copy_exposure_observe(copy_exposure *exposure, const struct model_op *op)
{
    advance(exposure, op->start_ns);
    if (op->kind == MODEL_KERNEL) {
        exposure->kernel_end_ns = max64(exposure->kernel_end_ns, op->end_ns);
        return 0;
    }
    if (op->kind != MODEL_MEMCPY || op->end_ns <= op->start_ns)
        return 0;
    struct copy_key key;
    memset(&key, 0, sizeof key); /* the key is compared as bytes: no stray padding */
    key.direction = direction_of(op->category);
    key.pageable = op->src_kind == STORE_MEMORY_PAGEABLE || op->dst_kind == STORE_MEMORY_PAGEABLE;
    key.waited = host_waited(exposure, op);
    key.small = op->bytes > 0 && op->bytes <= EXPOSED_COPY_SMALL_BYTES;
    key.stream_id = op->stream_id;
    int64_t bytes = op->bytes > 0 ? op->bytes : 0;
    int64_t duration =
        op->start_ns < 0 && op->end_ns > INT64_MAX + op->start_ns ? INT64_MAX : op->end_ns - op->start_ns;
    int host_side = key.direction == DIRECTION_HTOD ? 0 : key.direction == DIRECTION_DTOH ? 1 : -1;
    if (host_side >= 0 && !key.pageable &&
        (op->src_kind == STORE_MEMORY_PINNED || op->dst_kind == STORE_MEMORY_PINNED)) {
        add_saturated(&exposure->pinned_bytes[host_side], bytes);
        add_saturated(&exposure->pinned_ns[host_side], duration);
    }
    long bucket = bucket_of(exposure, &key);
    if (bucket < 0)
        return -1;
    struct copy_bucket *b = &exposure->buckets[bucket];
    b->copies++;
    add_saturated(&b->bytes, bytes);
    add_saturated(&b->duration_ns, duration);
    if (exposure->open_count == exposure->open_capacity) {
        size_t capacity = exposure->open_capacity ? exposure->open_capacity * 2 : 16;
        struct open_copy *grown = realloc(exposure->open, capacity * sizeof *grown);
        if (!grown)
            return -1;
        exposure->open = grown;
        exposure->open_capacity = capacity;
    }
    exposure->open[exposure->open_count++] = (struct open_copy){op->start_ns, op->end_ns, (size_t)bucket};
    return 0;
}

static int stream_runs_compute(const struct device_state *device, int64_t stream_id)
{
    for (size_t i = 0; i < device->lane_count; i++)
        if (device->lanes[i].stream_id == stream_id)
            return device->lanes[i].category_c[ANALYSIS_COMPUTE] > 0;
    return 0;
}

static enum accounting_cause cause_of(const struct device_state *device, const struct copy_key *key)
{
    if (key->pageable)
        return ACCOUNTING_COPY_PAGEABLE;
    if (key->waited)
        return ACCOUNTING_COPY_SYNCHRONOUS;
    if (stream_runs_compute(device, key->stream_id))
        return ACCOUNTING_COPY_SAME_STREAM;
    if (key->small)
        return ACCOUNTING_COPY_SMALL;
    return ACCOUNTING_COPY_NOTHING_BESIDE;
}

static double gbps(int64_t bytes, int64_t ns)
{
    return ns > 0 ? (double)bytes / (double)ns : 0;
}

/* What pinned host memory reaches on a link like this device's, when the trace has no pinned
 * copy of the direction: PCIe 5.0 x16 on Hopper and later, 4.0 on Ampere, 3.0 before; about
 * 80% of the link's 64 / 32 / 16 GB/s (docs/metrics.md, "Exposed copies"). */
static double reference_pinned_gbps(const struct device_state *device, const char **link)
{
    int64_t major = device->limits.compute_capability_major;
    if (major >= 9) {
        *link = "PCIe 5.0 x16";
        return 50;
    }
    if (major >= 8) {
        *link = "PCIe 4.0 x16";
        return 25;
    }
    *link = "PCIe 3.0 x16";
    return 12;
}

static void write_evidence(const copy_exposure *exposure, const struct copy_bucket *b,
                           enum accounting_cause cause, char *text, size_t size)
{
    char bytes[32], exposed[32];
    int64_t copies = b->copies > 0 ? b->copies : 1;
    units_format_bytes(bytes, sizeof bytes, b->bytes / copies);
    units_format_duration(exposed, sizeof exposed, b->exposed_ns);
    int used =
        snprintf(text, size, "%" PRId64 " %s cop%s of %s on average, %s of them with no kernel running",
                 b->copies, direction_names[b->key.direction], b->copies == 1 ? "y" : "ies", bytes, exposed);
    if (used < 0 || (size_t)used >= size)
        return;
    text += used;
    size -= (size_t)used;
    switch (cause) {
    case ACCOUNTING_COPY_PAGEABLE: {
        int side = b->key.direction == DIRECTION_DTOH ? 1 : 0;
        double achieved = gbps(b->bytes, b->duration_ns);
        if (exposure->pinned_ns[side] > 0) {
            snprintf(text, size,
                     "; from pageable memory at %.3g GB/s, staged by the driver while the host waits; this "
                     "device's pinned copies of that direction ran at %.3g GB/s",
                     achieved, gbps(exposure->pinned_bytes[side], exposure->pinned_ns[side]));
        } else {
            const char *link = "";
            double reference = reference_pinned_gbps(exposure->device, &link);
            snprintf(text, size,
                     "; from pageable memory at %.3g GB/s, staged by the driver while the host waits; pinned "
                     "memory reaches about %.3g GB/s over %s (no pinned copy of that direction in the trace)",
                     achieved, reference, link);
        }
        break;
    }
    case ACCOUNTING_COPY_SYNCHRONOUS:
        snprintf(
            text, size,
            "; each call returned only once its copy had ended (cudaMemcpy, or .item(), .cpu(), .tolist() "
            "reading into pageable memory): nothing was launched meanwhile");
        break;
    case ACCOUNTING_COPY_SAME_STREAM:
        snprintf(text, size,
                 "; stream %" PRId64 " also runs the compute kernels, so stream order puts each copy between "
                 "kernels, never beside one: copy on a side stream and make the compute wait on an event",
                 b->key.stream_id);
        break;
    case ACCOUNTING_COPY_SMALL:
        snprintf(text, size,
                 "; at this size the per-copy latency dominates: batch them into fewer, larger copies");
        break;
    case ACCOUNTING_COPY_NOTHING_BESIDE:
        snprintf(text, size, "; no kernel was queued to run beside them: issue the next step's work first");
        break;
    default:
        break;
    }
}

/* A bucket whose cause is decided, merged with the others of its cause and label. */
static long merged_entry(struct accounting_breakdown *out, struct copy_bucket *sums,
                         enum accounting_cause cause, const char *label, const struct copy_bucket *b)
{
    for (size_t i = 0; i < out->entry_count; i++)
        if (out->entries[i].cause == cause && strcmp(out->entries[i].label, label) == 0) {
            sums[i].copies += b->copies;
            add_saturated(&sums[i].exposed_ns, b->exposed_ns);
            add_saturated(&sums[i].bytes, b->bytes);
            add_saturated(&sums[i].duration_ns, b->duration_ns);
            return (long)i;
        }
    struct accounting_entry *entry = &out->entries[out->entry_count];
    entry->cause = cause;
    snprintf(entry->label, sizeof entry->label, "%s", label);
    sums[out->entry_count] = *b;
    return (long)out->entry_count++;
}

/* The device's stretches as intervals of device_index, each with its bucket's cause and label
 * (entry_of_bucket: the entry each bucket went to, -1 for none). Returns 0 or -1. */
static int keep_intervals(copy_exposure *exposure, const struct accounting_breakdown *out,
                          const long *entry_of_bucket, size_t device_index)
{
    size_t needed = exposure->interval_count + exposure->stretch_count;
    if (needed > exposure->interval_capacity) {
        struct accounting_interval *grown = realloc(exposure->intervals, needed * sizeof *grown);
        if (!grown)
            return -1;
        exposure->intervals = grown;
        exposure->interval_capacity = needed;
    }
    for (size_t i = 0; i < exposure->stretch_count; i++) {
        const struct raw_stretch *stretch = &exposure->stretches[i];
        long entry = entry_of_bucket[stretch->bucket];
        if (entry < 0)
            continue;
        struct accounting_interval *last =
            exposure->interval_count ? &exposure->intervals[exposure->interval_count - 1] : NULL;
        if (last && last->device == device_index && last->cause == out->entries[entry].cause &&
            last->end_ns == stretch->start_ns && strcmp(last->label, out->entries[entry].label) == 0) {
            last->end_ns = stretch->end_ns;
            continue;
        }
        struct accounting_interval *interval = &exposure->intervals[exposure->interval_count++];
        *interval = (struct accounting_interval){.device = device_index,
                                                 .cause = out->entries[entry].cause,
                                                 .start_ns = stretch->start_ns,
                                                 .end_ns = stretch->end_ns};
        snprintf(interval->label, sizeof interval->label, "%s", out->entries[entry].label);
    }
    return 0;
}

int copy_exposure_end_device(copy_exposure *exposure, struct accounting_breakdown *out, size_t device_index)
{
    advance(exposure, INT64_MAX);
    *out = (struct accounting_breakdown){0};
    if (exposure->out_of_memory)
        return -1;
    if (exposure->bucket_count == 0)
        return 0;
    out->entries = calloc(exposure->bucket_count, sizeof *out->entries);
    struct copy_bucket *sums = calloc(exposure->bucket_count, sizeof *sums);
    long *entry_of_bucket = malloc(exposure->bucket_count * sizeof *entry_of_bucket);
    if (!out->entries || !sums || !entry_of_bucket) {
        free(out->entries);
        free(sums);
        free(entry_of_bucket);
        out->entries = NULL;
        return -1;
    }
    for (size_t i = 0; i < exposure->bucket_count; i++) {
        const struct copy_bucket *b = &exposure->buckets[i];
        entry_of_bucket[i] = -1;
        if (b->exposed_ns <= 0)
            continue;
        enum accounting_cause cause = cause_of(exposure->device, &b->key);
        char label[64];
        if (cause == ACCOUNTING_COPY_SAME_STREAM)
            snprintf(label, sizeof label, "%s on stream %" PRId64, direction_names[b->key.direction],
                     b->key.stream_id);
        else
            snprintf(label, sizeof label, "%s", direction_names[b->key.direction]);
        entry_of_bucket[i] = merged_entry(out, sums, cause, label, b);
        add_saturated(&out->ns, b->exposed_ns);
    }
    for (size_t i = 0; i < out->entry_count; i++) {
        struct accounting_entry *entry = &out->entries[i];
        entry->ns = sums[i].exposed_ns;
        entry->count = sums[i].copies;
        char evidence[ACCOUNTING_EVIDENCE_BYTES];
        write_evidence(exposure, &sums[i], entry->cause, evidence, sizeof evidence);
        if (!(entry->evidence = strdup(evidence))) {
            free(sums);
            free(entry_of_bucket);
            return -1; /* the entries are the caller's to free, as on success */
        }
    }
    free(sums);
    /* Before sorting: entry_of_bucket holds the entries' places as merged. */
    int status = keep_intervals(exposure, out, entry_of_bucket, device_index);
    free(entry_of_bucket);
    ledger_sort_entries(out);
    return status;
}

struct accounting_interval *copy_exposure_take_intervals(copy_exposure *exposure, size_t *count)
{
    struct accounting_interval *intervals = exposure->intervals;
    *count = exposure->interval_count;
    exposure->intervals = NULL;
    exposure->interval_count = exposure->interval_capacity = 0;
    return intervals;
}

void copy_exposure_set_prior_intervals(copy_exposure *exposure, size_t count)
{
    exposure->prior_interval_count = count;
}

size_t copy_exposure_device_stretches(const copy_exposure *exposure)
{
    return exposure->stretch_count;
}
