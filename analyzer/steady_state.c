/* steady_state.c: see steady_state.h. */
#include "steady_state.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crew.h"
#include "describe.h"
#include "gpu_devices.h"
#include "queries_warmup.h"
#include "steps.h"
#include "units.h"

/* Of the span, the least a choice must leave out to be worth saying so. */
#define MIN_LEFT_OUT 0.05
/* Rule 2: an operation this much of the window, alone at one end. */
#define DOMINANT_SHARE 0.5
/* Rules 2 and 4: a set-up (tear-down) gap is at least this share of the span and this many times
 * every gap of the work it leaves in, and what it leaves out holds at most this share of the
 * busy time it keeps: the run's one long wait for imports, NCCL and the first batch, not a gap of
 * a starved loop, whose gaps are alike. */
#define SETUP_GAP_SHARE 0.05
#define SETUP_GAP_FACTOR 2
#define SETUP_BUSY_SHARE 0.25
/* Rule 2, warm-up: the first run that ends it follows a gap of at least this share of the window
 * (a module loaded, an algorithm picked: milliseconds), not a loop's usual microseconds. */
#define WARMUP_GAP_SHARE 0.01
/* Rule 1: a leading step longer than this many median steps is warm-up; told apart only among at
 * least this many steps. */
#define WARMUP_FACTOR 2
#define MIN_STEPS_FOR_WARMUP 3
/* Rule 3 looks at operations at least this share of the span long, the longest first. */
#define LONG_OP_SHARE 0.1
#define LONG_OPS_KEPT 16

struct long_op {
    int64_t start_ns, end_ns;
};

/* The buckets of the span and the longest operations, filled by one scan of the GPU tables. */
struct buckets {
    int64_t start_ns, end_ns;
    double width_ns;
    /* The operations' ns in each bucket, summed over streams, in BUSY_UNITS_PER_NS: integers, so
     * that their sum is the same in any order (the buckets of several processes' traces added up,
     * analysis_share.local, are those of the whole trace). */
    int64_t busy_units[STEADY_STATE_BUCKETS];
    double busy[STEADY_STATE_BUCKETS];       /* ns of operations in the bucket, summed over streams */
    double full[STEADY_STATE_BUCKETS + 1];   /* difference array: operations covering whole buckets */
    double before[STEADY_STATE_BUCKETS + 1]; /* before[c]: busy ns of buckets [0, c) */
    struct long_op long_ops[LONG_OPS_KEPT];
    size_t long_op_count;
};

#define BUSY_UNITS_PER_NS 16.0

static int64_t busy_units(double ns)
{
    return llround(ns * BUSY_UNITS_PER_NS);
}

static double position_of(const struct buckets *b, int64_t t)
{
    return (double)(t - b->start_ns) / b->width_ns;
}

static int64_t time_of_bucket(const struct buckets *b, int bucket)
{
    return b->start_ns + (int64_t)((double)bucket * b->width_ns);
}

/* Adds [start, end) to the buckets: its partial first and last buckets exactly, the buckets it
 * covers whole through the difference array, so a long operation costs two writes, not one per
 * bucket. */
static void add_interval(struct buckets *b, int64_t start_ns, int64_t end_ns)
{
    double x0 = position_of(b, start_ns), x1 = position_of(b, end_ns);
    x0 = x0 < 0 ? 0 : x0;
    x1 = x1 > STEADY_STATE_BUCKETS ? STEADY_STATE_BUCKETS : x1;
    if (x1 <= x0)
        return;
    int first = (int)x0, last = (int)x1;
    if (last >= STEADY_STATE_BUCKETS)
        last = STEADY_STATE_BUCKETS - 1;
    if (first == last) {
        b->busy_units[first] += busy_units((x1 - x0) * b->width_ns);
        return;
    }
    b->busy_units[first] += busy_units(((double)(first + 1) - x0) * b->width_ns);
    if (x1 > last)
        b->busy_units[last] += busy_units((x1 - (double)last) * b->width_ns);
    if (last > first + 1) {
        b->full[first + 1] += 1;
        b->full[last] -= 1;
    }
}

/* The order of long operations: the longest first, then the earliest: a total order, so that the
 * ones kept and their order are the same whatever order they were met in. */
static int compare_long_ops(const void *left, const void *right)
{
    const struct long_op *a = left, *b = right;
    int64_t da = a->end_ns - a->start_ns, db = b->end_ns - b->start_ns;
    if (da != db)
        return da > db ? -1 : 1;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    return (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
}

/* Keeps the LONG_OPS_KEPT first, in compare_long_ops' order, of the operations of at least
 * LONG_OP_SHARE of the span. */
static void keep_long_op(struct buckets *b, int64_t start_ns, int64_t end_ns)
{
    struct long_op op = {start_ns, end_ns};
    if ((double)(end_ns - start_ns) < LONG_OP_SHARE * (double)(b->end_ns - b->start_ns))
        return;
    size_t slot = b->long_op_count;
    if (slot == LONG_OPS_KEPT) {
        slot = 0; /* replace the last kept, when after this one */
        for (size_t i = 1; i < LONG_OPS_KEPT; i++)
            if (compare_long_ops(&b->long_ops[i], &b->long_ops[slot]) > 0)
                slot = i;
        if (compare_long_ops(&b->long_ops[slot], &op) <= 0)
            return;
    } else {
        b->long_op_count++;
    }
    b->long_ops[slot] = op;
}

static int scan_row(void *context, const struct store_gpu_row *row)
{
    struct buckets *b = context;
    if (!store_interval_plausible(row->start_ns, row->end_ns) || row->end_ns <= row->start_ns)
        return 0;
    add_interval(b, row->start_ns, row->end_ns);
    keep_long_op(b, row->start_ns, row->end_ns);
    return 0;
}

static int fill_buckets(store *trace, struct buckets *b, error_info *err)
{
    static const enum store_table tables[] = {STORE_TABLE_KERNELS, STORE_TABLE_MEMCPYS, STORE_TABLE_MEMSETS};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        if (store_scan_gpu_table(trace, tables[t], scan_row, b, err) != 0)
            return -1;
    return 0;
}

/* The busy ns and their running sum, once every operation is in, and the long operations in
 * their order (rule 3 tries the longest first). */
static void finish_buckets(struct buckets *b)
{
    double covering = 0;
    for (int c = 0; c < STEADY_STATE_BUCKETS; c++) {
        covering += b->full[c];
        b->busy[c] = (double)b->busy_units[c] / BUSY_UNITS_PER_NS + covering * b->width_ns;
        b->before[c + 1] = b->before[c] + b->busy[c];
    }
    qsort(b->long_ops, b->long_op_count, sizeof *b->long_ops, compare_long_ops);
}

/* The ns of op in bucket c. */
static double own_share(const struct buckets *b, const struct long_op *op, int c)
{
    double x0 = position_of(b, op->start_ns), x1 = position_of(b, op->end_ns);
    double from = x0 > c ? x0 : c, to = x1 < c + 1 ? x1 : c + 1;
    return to > from ? (to - from) * b->width_ns : 0;
}

/* Whether anything but op ran in buckets [from, to). A bucket's sums are rounded: a thousandth
 * of a bucket is nothing. */
static int others_busy(const struct buckets *b, const struct long_op *op, int from, int to)
{
    for (int c = from < 0 ? 0 : from; c < to && c < STEADY_STATE_BUCKETS; c++)
        if (b->busy[c] - own_share(b, op, c) > 1e-3 * b->width_ns)
            return 1;
    return 0;
}

/* Rule 3: narrows [*start, *end) (buckets) past one dominant operation alone at an end. */
static void drop_dominant(const struct buckets *b, int *start, int *end)
{
    double least = DOMINANT_SHARE * (*end - *start);
    for (size_t i = 0; i < b->long_op_count; i++) {
        const struct long_op *op = &b->long_ops[i];
        double x0 = position_of(b, op->start_ns), x1 = position_of(b, op->end_ns);
        if (x1 - x0 < least)
            continue;
        int first = (int)x0, last = (int)x1;
        /* One bucket of slack: neighbours may share the operation's first or last bucket. */
        if (x0 < *start - 1 || x1 > *end + 1)
            continue; /* not inside the window any more */
        if (first > *start && !others_busy(b, op, first + 1, *end)) {
            *end = first + 1; /* alone at the end: everything else ran before it */
            return;
        }
        if (last < *end && !others_busy(b, op, *start, last)) {
            *start = last; /* alone at the start */
            return;
        }
    }
}

/* An idle run of buckets [start, end) between two busy ones. */
struct gap {
    int start, end;
};

/* The idle runs strictly inside the span, in time order. Returns their count, or -1 out of memory
 * (*gaps: caller frees). */
static long find_gaps(const struct buckets *b, struct gap **gaps)
{
    size_t capacity = 64, count = 0;
    *gaps = malloc(capacity * sizeof **gaps);
    if (!*gaps)
        return -1;
    int c = 0;
    while (c < STEADY_STATE_BUCKETS) {
        if (b->busy[c] > 0) {
            c++;
            continue;
        }
        int start = c;
        while (c < STEADY_STATE_BUCKETS && b->busy[c] <= 0)
            c++;
        if (start == 0 || c == STEADY_STATE_BUCKETS)
            continue; /* the span starts and ends with work: rounding only */
        if (count == capacity) {
            struct gap *grown = realloc(*gaps, 2 * capacity * sizeof *grown);
            if (!grown)
                return -1;
            *gaps = grown;
            capacity *= 2;
        }
        (*gaps)[count++] = (struct gap){start, c};
    }
    return (long)count;
}

static double busy_between(const struct buckets *b, int from, int to)
{
    return b->before[to] - b->before[from];
}

static int compare_descending(const void *left, const void *right)
{
    int64_t a = *(const int64_t *)left, b = *(const int64_t *)right;
    return a > b ? -1 : a < b;
}

/* repeated_first_runs' reading: device i's first runs into starts[i] (counts[i] of them). */
struct first_runs_reading {
    const struct store_gpu_device *devices;
    int64_t **starts;
    size_t *counts;
};

static int read_first_runs(void *context, size_t index, size_t worker, store *reader, error_info *err)
{
    (void)worker;
    struct first_runs_reading *reading = context;
    struct store_kernel_runs *runs = NULL;
    size_t run_count = 0, count = 0;
    reading->starts[index] = NULL;
    reading->counts[index] = 0;
    if (store_kernel_runs_read(store_db(reader), reading->devices[index].process_id,
                               reading->devices[index].device_id, &runs, &run_count, err) != 0)
        return -1;
    int64_t *starts = run_count ? malloc(run_count * sizeof *starts) : NULL;
    if (run_count && !starts) {
        free(runs);
        return error_set(err, "out of memory");
    }
    for (size_t i = 0; i < run_count; i++)
        if (runs[i].runs >= 2)
            starts[count++] = runs[i].first_start_ns;
    free(runs);
    reading->starts[index] = starts;
    reading->counts[index] = count;
    return 0;
}

/* The first runs of the kernels each device runs again (one per device and name), latest first,
 * into *starts (caller frees); the devices read on team's workers (NULL: here, one after another;
 * sorted, the list is the same). Returns their count, or -1 with err filled. */
static long repeated_first_runs(store *trace, crew *team, int64_t **starts, error_info *err)
{
    *starts = NULL;
    struct store_gpu_device *devices = NULL;
    size_t device_count = 0, count = 0;
    if (store_list_gpu_devices(trace, &devices, &device_count, err) != 0)
        return -1;
    size_t room = device_count ? device_count : 1;
    struct first_runs_reading reading = {devices, calloc(room, sizeof *reading.starts),
                                         calloc(room, sizeof *reading.counts)};
    long status = reading.starts && reading.counts ? 0 : error_set(err, "out of memory");
    if (status == 0)
        status = crew_run(team, trace, device_count, read_first_runs, &reading, err);
    for (size_t d = 0; status == 0 && d < device_count; d++)
        count += reading.counts[d];
    if (status == 0 && count > 0 && !(*starts = malloc(count * sizeof **starts)))
        status = error_set(err, "out of memory");
    for (size_t d = 0, at = 0; status == 0 && d < device_count; d++) {
        if (reading.counts[d])
            memcpy(*starts + at, reading.starts[d], reading.counts[d] * sizeof **starts);
        at += reading.counts[d];
    }
    for (size_t d = 0; reading.starts && d < device_count; d++)
        free(reading.starts[d]);
    free(reading.starts);
    free(reading.counts);
    free(devices);
    if (status != 0) {
        free(*starts);
        *starts = NULL;
        return -1;
    }
    if (count > 0)
        qsort(*starts, count, sizeof **starts, compare_descending);
    return (long)count;
}

/* Rule 2, warm-up: the steady state starts at the last first run of a kernel the device runs again
 * (the first iteration loads modules, picks cuBLAS algorithms, grows the allocator: the accounting
 * names its gaps "warmup") that ends a gap of WARMUP_GAP_SHARE of the window, when the work before
 * it is at most SETUP_BUSY_SHARE of the work from it on; else at the latest such first run that
 * passes. */
static void drop_warmup(const struct buckets *b, const int64_t *starts, long count, int *start, int end)
{
    double least_gap = WARMUP_GAP_SHARE * (end - *start);
    for (long i = 0; i < count; i++) {
        double x = position_of(b, starts[i]);
        if (x <= *start || x >= end)
            continue;
        int bucket = (int)x, idle = 0;
        for (int c = bucket - 1; c > *start && b->busy[c] <= 0 && idle < least_gap; c--)
            idle++;
        if (idle >= least_gap &&
            busy_between(b, *start, bucket) <= SETUP_BUSY_SHARE * busy_between(b, bucket, end)) {
            *start = bucket;
            return;
        }
    }
}

/* Rule 2: the set-up ends after the last gap that is long (SETUP_GAP_SHARE of the span), longer
 * than SETUP_GAP_FACTOR times every later gap, with little work before it. */
static void drop_setup(const struct buckets *b, const struct gap *gaps, long count, int *start, int end)
{
    double later = 0, least = SETUP_GAP_SHARE * STEADY_STATE_BUCKETS;
    for (long i = count - 1; i >= 0; i--) {
        double length = gaps[i].end - gaps[i].start;
        if (gaps[i].start >= *start && gaps[i].end <= end && length >= least &&
            length >= SETUP_GAP_FACTOR * later &&
            busy_between(b, *start, gaps[i].start) <= SETUP_BUSY_SHARE * busy_between(b, gaps[i].end, end)) {
            *start = gaps[i].end;
            return;
        }
        later = length > later ? length : later;
    }
}

/* Rule 4: the tear-down starts at the first gap of what is left that is long, longer than
 * SETUP_GAP_FACTOR times every earlier gap of it, with little work after it. */
static void drop_teardown(const struct buckets *b, const struct gap *gaps, long count, int start, int *end)
{
    double earlier = 0, least = SETUP_GAP_SHARE * STEADY_STATE_BUCKETS;
    for (long i = 0; i < count; i++) {
        if (gaps[i].start < start || gaps[i].end > *end)
            continue;
        double length = gaps[i].end - gaps[i].start;
        if (length >= least && length >= SETUP_GAP_FACTOR * earlier &&
            busy_between(b, gaps[i].end, *end) <= SETUP_BUSY_SHARE * busy_between(b, start, gaps[i].start)) {
            *end = gaps[i].start;
            return;
        }
        earlier = length > earlier ? length : earlier;
    }
}

static int compare_int64(const void *left, const void *right)
{
    int64_t a = *(const int64_t *)left, b = *(const int64_t *)right;
    return a < b ? -1 : a > b;
}

/* Rule 1: from the first steady step's start to the last step's end. The steps before the first
 * one that lasts at most WARMUP_FACTOR times the median are warm-up (the first iteration builds
 * its buffers, NCCL its communicators, cuDNN its plans: ddp's step 0 lasts 9 times the others)
 * and are left out with the set-up; warmup_steps counts their distinct step numbers. Returns 1
 * when the steps give a window, 0 when not, -1 out of memory. */
static int steps_window(const struct analysis_step *steps, size_t step_count, struct analysis_steady *out)
{
    if (step_count == 0)
        return 0;
    int64_t *values = malloc(step_count * sizeof *values);
    if (!values)
        return -1;
    int64_t median = -1;
    if (step_count >= MIN_STEPS_FOR_WARMUP) {
        for (size_t i = 0; i < step_count; i++)
            values[i] = steps[i].end_ns - steps[i].start_ns;
        qsort(values, step_count, sizeof *values, compare_int64);
        median = values[step_count / 2];
    }
    int64_t first_steady = INT64_MAX, last_end = INT64_MIN;
    for (size_t i = 0; i < step_count; i++) {
        int64_t duration = steps[i].end_ns - steps[i].start_ns;
        if (median < 0 || duration <= WARMUP_FACTOR * median)
            first_steady = steps[i].start_ns < first_steady ? steps[i].start_ns : first_steady;
        last_end = steps[i].end_ns > last_end ? steps[i].end_ns : last_end;
    }
    size_t warmup = 0;
    for (size_t i = 0; i < step_count; i++)
        if (steps[i].start_ns < first_steady)
            values[warmup++] = steps[i].number;
    qsort(values, warmup, sizeof *values, compare_int64);
    out->warmup_steps = 0;
    for (size_t i = 0; i < warmup; i++)
        out->warmup_steps += i == 0 || values[i] != values[i - 1];
    free(values);
    out->start_ns = first_steady;
    out->end_ns = last_end;
    return last_end > first_steady;
}

/* Rules 2 to 4 on the buckets of the span. */
/* What one process's trace adds to the activity rules (peers): its buckets' busy units and whole
 * coverings, its long operations and its first runs. */
struct activity_header {
    uint64_t long_op_count, first_run_count;
};

/* Every process's activity (peers.share_all: each sends its own) added up into b and
 * *first_runs, as one trace holding every device gives them: the busy units and coverings are
 * integers, the long operations kept in their total order, the first runs sorted. Returns 0, or
 * -1 with err filled. */
static int add_peers(const struct steady_state_peers *peers, struct buckets *b, int64_t **first_runs,
                     long *first_run_count, error_info *err)
{
    struct activity_header header = {b->long_op_count, (uint64_t)*first_run_count};
    size_t size = sizeof header + sizeof b->busy_units + sizeof b->full +
                  b->long_op_count * sizeof *b->long_ops + (size_t)*first_run_count * sizeof **first_runs;
    unsigned char *mine = malloc(size), *all = NULL, *at = mine;
    if (!mine)
        return error_set(err, "out of memory");
    memcpy(at, &header, sizeof header), at += sizeof header;
    memcpy(at, b->busy_units, sizeof b->busy_units), at += sizeof b->busy_units;
    memcpy(at, b->full, sizeof b->full), at += sizeof b->full;
    memcpy(at, b->long_ops, b->long_op_count * sizeof *b->long_ops),
        at += b->long_op_count * sizeof *b->long_ops;
    if (*first_run_count)
        memcpy(at, *first_runs, (size_t)*first_run_count * sizeof **first_runs);
    size_t all_size = 0;
    int status = peers->share_all(peers->context, mine, size, &all, &all_size, err);
    free(mine);
    if (status != 0)
        return -1;
    memset(b->busy_units, 0, sizeof b->busy_units);
    memset(b->full, 0, sizeof b->full);
    b->long_op_count = 0;
    free(*first_runs);
    *first_runs = NULL;
    *first_run_count = 0;
    size_t runs = 0;
    for (size_t offset = 0; status == 0 && offset < all_size;) {
        size_t fixed = sizeof header + sizeof b->busy_units + sizeof b->full;
        if (all_size - offset < fixed) {
            status = error_set(err, "a process's activity is cut short");
            break;
        }
        memcpy(&header, all + offset, sizeof header);
        const unsigned char *record = all + offset + sizeof header;
        size_t rest = all_size - offset - fixed;
        if (header.long_op_count > LONG_OPS_KEPT || header.first_run_count > rest / sizeof **first_runs ||
            header.long_op_count * sizeof *b->long_ops + header.first_run_count * sizeof **first_runs >
                rest) {
            status = error_set(err, "a process's activity is cut short");
            break;
        }
        for (int c = 0; c < STEADY_STATE_BUCKETS; c++) {
            int64_t units;
            memcpy(&units, record + c * sizeof units, sizeof units);
            b->busy_units[c] += units;
        }
        record += sizeof b->busy_units;
        for (int c = 0; c <= STEADY_STATE_BUCKETS; c++) {
            double whole;
            memcpy(&whole, record + c * sizeof whole, sizeof whole);
            b->full[c] += whole;
        }
        record += sizeof b->full;
        for (size_t i = 0; i < header.long_op_count; i++) {
            struct long_op op;
            memcpy(&op, record + i * sizeof op, sizeof op);
            keep_long_op(b, op.start_ns, op.end_ns);
        }
        record += header.long_op_count * sizeof *b->long_ops;
        if (header.first_run_count) {
            int64_t *grown = realloc(*first_runs, (runs + header.first_run_count) * sizeof *grown);
            if (!grown) {
                status = error_set(err, "out of memory");
                break;
            }
            memcpy(grown + runs, record, header.first_run_count * sizeof *grown);
            *first_runs = grown;
            runs += header.first_run_count;
        }
        offset +=
            fixed + header.long_op_count * sizeof *b->long_ops + header.first_run_count * sizeof **first_runs;
    }
    free(all);
    if (runs > 0)
        qsort(*first_runs, runs, sizeof **first_runs, compare_descending);
    *first_run_count = (long)runs;
    return status;
}

static int activity_window(store *trace, crew *team, const struct steady_state_peers *peers,
                           struct analysis_steady *out, error_info *err)
{
    struct buckets *b = calloc(1, sizeof *b);
    if (!b)
        return error_set(err, "out of memory");
    b->start_ns = out->span_start_ns;
    b->end_ns = out->span_end_ns;
    b->width_ns = (double)(b->end_ns - b->start_ns) / STEADY_STATE_BUCKETS;
    int64_t *first_runs = NULL;
    long first_run_count = 0;
    int status = fill_buckets(trace, b, err);
    if (status == 0 && (first_run_count = repeated_first_runs(trace, team, &first_runs, err)) < 0)
        status = -1;
    if (status == 0 && peers)
        status = add_peers(peers, b, &first_runs, &first_run_count, err);
    if (status != 0) {
        free(first_runs);
        free(b);
        return -1;
    }
    finish_buckets(b);
    struct gap *gaps = NULL;
    long count = find_gaps(b, &gaps);
    if (count < 0) {
        free(gaps);
        free(first_runs);
        free(b);
        return error_set(err, "out of memory");
    }
    int start = 0, end = STEADY_STATE_BUCKETS;
    drop_setup(b, gaps, count, &start, end);
    drop_warmup(b, first_runs, first_run_count, &start, end);
    free(first_runs);
    drop_dominant(b, &start, &end);
    drop_teardown(b, gaps, count, start, &end);
    free(gaps);
    out->start_ns = time_of_bucket(b, start);
    out->end_ns = end >= STEADY_STATE_BUCKETS ? b->end_ns : time_of_bucket(b, end);
    free(b);
    return 0;
}

/* gpu_span's chunks: a range of rowids of one GPU table each, read on a worker; found[i] 1 when
 * chunk i holds a row. */
struct span_chunk {
    int table;
    int64_t first_rowid, last_rowid;
};

struct span_reading {
    struct span_chunk *chunks;
    int64_t *first_ns, *last_ns;
    int *found;
};

static int read_chunk_span(void *context, size_t index, size_t worker, store *reader, error_info *err)
{
    (void)worker;
    struct span_reading *reading = context;
    const struct span_chunk *chunk = &reading->chunks[index];
    reading->found[index] = store_gpu_rows_span(reader, chunk->table, chunk->first_rowid, chunk->last_rowid,
                                                &reading->first_ns[index], &reading->last_ns[index], err);
    return reading->found[index] < 0 ? -1 : 0;
}

/* Chunks of a table per worker: enough for the workers to even out, few enough that a chunk's
 * statement costs nothing beside its rows. */
#define SPAN_CHUNKS_PER_WORKER 4
#define SPAN_MIN_CHUNK_ROWS 16384

/* The chunks of the GPU tables' rowids, about per_table of each table, into *chunks (malloc'd).
 * Returns their count, or -1 with err filled. */
static long span_chunks(store *trace, size_t per_table, struct span_chunk **chunks, error_info *err)
{
    int64_t first[STORE_GPU_TABLES], last[STORE_GPU_TABLES];
    int found[STORE_GPU_TABLES];
    size_t count = 0;
    for (int t = 0; t < STORE_GPU_TABLES; t++) {
        found[t] = store_gpu_table_rowids(trace, t, &first[t], &last[t], err);
        if (found[t] < 0)
            return -1;
        count += found[t] ? per_table : 0;
    }
    *chunks = malloc((count ? count : 1) * sizeof **chunks);
    if (!*chunks)
        return error_set(err, "out of memory");
    size_t made = 0;
    for (int t = 0; t < STORE_GPU_TABLES; t++) {
        if (!found[t])
            continue;
        /* In unsigned arithmetic: rowids may span all of int64 (a damaged or hostile file). Chunks
         * of length step: at most per_table of them, as step * per_table > span. */
        if (first[t] > last[t]) { /* a corrupted table's order: every rowid, in one chunk */
            first[t] = INT64_MIN;
            last[t] = INT64_MAX;
        }
        uint64_t span = (uint64_t)last[t] - (uint64_t)first[t], step = span / per_table + 1;
        if (step < SPAN_MIN_CHUNK_ROWS)
            step = SPAN_MIN_CHUNK_ROWS;
        for (uint64_t from = (uint64_t)first[t]; made < count;) {
            int final = (uint64_t)last[t] - from < step;
            uint64_t to = final ? (uint64_t)last[t] : from + step - 1;
            (*chunks)[made++] = (struct span_chunk){t, (int64_t)from, (int64_t)to};
            if (final)
                break;
            from = to + 1;
        }
    }
    return (long)made;
}

/* The trace's GPU span as store_gpu_span gives it; with team, the GPU tables read in ranges of
 * rowids on the workers (store_gpu_rows_span), each row once: the same rows as the one scan and
 * its cost (the scan on the run's thread was a sixth of its time at 2 workers; per process
 * through an index, it cost the workers 1.3 to 1.5 times the one scan's CPU). */
static int gpu_span(store *trace, crew *team, int64_t *first_ns, int64_t *last_ns, error_info *err)
{
    if (!team)
        return store_gpu_span(trace, first_ns, last_ns, err);
    struct span_reading reading = {0};
    long count = span_chunks(trace, crew_size(team) * SPAN_CHUNKS_PER_WORKER, &reading.chunks, err);
    if (count < 0)
        return -1;
    size_t room = count ? (size_t)count : 1;
    reading.first_ns = malloc(room * sizeof *reading.first_ns);
    reading.last_ns = malloc(room * sizeof *reading.last_ns);
    reading.found = malloc(room * sizeof *reading.found);
    int status = reading.first_ns && reading.last_ns && reading.found ? 0 : error_set(err, "out of memory");
    if (status == 0)
        status = crew_run(team, trace, (size_t)count, read_chunk_span, &reading, err);
    int64_t first = 0, last = 0;
    int any = 0;
    for (long i = 0; status == 0 && i < count; i++) {
        if (reading.found[i] > 0) {
            first = !any || reading.first_ns[i] < first ? reading.first_ns[i] : first;
            last = !any || reading.last_ns[i] > last ? reading.last_ns[i] : last;
            any = 1;
        }
    }
    if (status == 0 && any) {
        status = store_gpu_span_check(trace, first, last, err);
        *first_ns = first;
        *last_ns = last;
    }
    free(reading.chunks);
    free(reading.first_ns);
    free(reading.last_ns);
    free(reading.found);
    return status;
}

int steady_state_choose(store *trace, crew *team, const struct analysis_step *steps, size_t step_count,
                        struct analysis_steady *out, error_info *err)
{
    int64_t first = 0, last = 0;
    error_info span_err;
    int found = gpu_span(trace, team, &first, &last, &span_err);
    return steady_state_choose_in_span(trace, team, NULL, steps, step_count, found, first, last, out, err);
}

int steady_state_choose_in_span(store *trace, crew *team, const struct steady_state_peers *peers,
                                const struct analysis_step *steps, size_t step_count, int span_found,
                                int64_t span_start_ns, int64_t span_end_ns, struct analysis_steady *out,
                                error_info *err)
{
    memset(out, 0, sizeof *out);
    int found = span_found;
    out->span_start_ns = span_start_ns;
    out->span_end_ns = span_end_ns;
    if (found <= 0) {
        /* No GPU activity, or a span longer than any recording (rank files of unrelated runs put
         * together, a damaged row): nothing to choose; the analysis judges the rows one by one and
         * says what it refuses. */
        memset(out, 0, sizeof *out);
        return 0;
    }
    out->start_ns = out->span_start_ns;
    out->end_ns = out->span_end_ns;
    int64_t span_ns = out->span_end_ns - out->span_start_ns;
    if (span_ns < STEADY_STATE_BUCKETS)
        return 0; /* nothing to leave out of a span this short */
    struct analysis_steady chosen = *out;
    int by_steps = steps_window(steps, step_count, &chosen);
    if (by_steps < 0)
        return error_set(err, "out of memory");
    if (!by_steps && activity_window(trace, team, peers, &chosen, err) != 0)
        return -1;
    if (chosen.start_ns < out->span_start_ns)
        chosen.start_ns = out->span_start_ns;
    if (chosen.end_ns > out->span_end_ns)
        chosen.end_ns = out->span_end_ns;
    if (chosen.end_ns <= chosen.start_ns ||
        (double)(span_ns - (chosen.end_ns - chosen.start_ns)) < MIN_LEFT_OUT * (double)span_ns)
        return 0;
    out->start_ns = chosen.start_ns;
    out->end_ns = chosen.end_ns;
    out->by_steps = by_steps;
    out->warmup_steps = by_steps ? chosen.warmup_steps : 0;
    out->trimmed = 1;
    return 0;
}

int steady_state_of_trace(store *trace, struct analysis_steady *out, error_info *err)
{
    struct analysis_step *steps = NULL;
    size_t count = 0;
    int status = steps_find(trace, NULL, &steps, &count, err);
    if (status == 0)
        status = steady_state_choose(trace, NULL, steps, count, out, err);
    free(steps);
    return status;
}

void steady_state_describe(const struct analysis_steady *steady, char *text, size_t size)
{
    text[0] = '\0';
    if (!steady->trimmed)
        return;
    int64_t origin_ns = steady->span_start_ns, end_ns = steady->span_end_ns;
    char parts[2][96] = {"", ""}, from[32], to[32], before[48];
    if (steady->warmup_steps > 0)
        snprintf(before, sizeof before, "set-up and %d warm-up step%s", steady->warmup_steps,
                 steady->warmup_steps == 1 ? "" : "s");
    else
        snprintf(before, sizeof before, "%s", steady->by_steps ? "before the steps" : "set-up");
    /* A part under 1% of the span is rounding (a last kernel ending after the last step): the
     * JSON has it to the nanosecond. */
    int64_t least = (end_ns - origin_ns) / 100;
    if (steady->start_ns - origin_ns > least)
        snprintf(parts[0], sizeof parts[0], "%s 0 \xe2\x80\x93 %s", before,
                 units_format_duration(to, sizeof to, steady->start_ns - origin_ns));
    if (end_ns - steady->end_ns > least)
        snprintf(parts[1], sizeof parts[1], "%s %s \xe2\x80\x93 %s", steady->by_steps ? "after them" : "tail",
                 units_format_duration(from, sizeof from, steady->end_ns - origin_ns),
                 units_format_duration(to, sizeof to, end_ns - origin_ns));
    char devices[64] = "";
    if (steady->devices_left_out > 0)
        snprintf(devices, sizeof devices, ", with all the GPU work of %d device%s", steady->devices_left_out,
                 steady->devices_left_out == 1 ? "" : "s");
    snprintf(text, size, "%s%s%s%s", parts[0], parts[0][0] && parts[1][0] ? ", " : "", parts[1], devices);
}
