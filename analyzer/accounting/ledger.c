/* ledger.c: the accountant's books (see ledger.h): a builder of causes per device for its whole
 * span and one per step, and the intervals the picture marks. idle.c and exposed_comm.c give time
 * to a cause here; accounting.c turns the builders into the result's breakdowns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "store.h"

struct device_books *ledger_current(struct ledger *ledger)
{
    return ledger->current_book < ledger->book_count ? &ledger->books[ledger->current_book] : NULL;
}

/* --- builders --- */

static void free_kernels(struct device_books *books)
{
    for (size_t i = 0; i < books->kernel_count; i++)
        free(books->kernels[i].pieces);
    free(books->kernels);
    books->kernels = NULL;
    books->kernel_count = books->kernel_capacity = 0;
}

const char ledger_no_text[1] = "";

int ledger_set_text(const char **text, const char *value, size_t size)
{
    size_t length = strnlen(value, size - 1);
    if (*text && strncmp(*text, value, length) == 0 && (*text)[length] == '\0')
        return 0;
    char *copy = NULL;
    if (length && !(copy = strndup(value, length)))
        return -1;
    ledger_free_text(text);
    *text = copy ? copy : ledger_no_text;
    return 0;
}

void ledger_free_text(const char **text)
{
    if (*text && *text != ledger_no_text)
        free((char *)*text);
    *text = NULL;
}

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
        /* A step has a few causes, and a builder per step and kind: grown one at a time up to 8
         * (by doubling, a fifth of the steps' buckets, 696 bytes each, were never used). */
        size_t capacity = builder->capacity < 8 ? builder->capacity + 1 : builder->capacity * 2;
        struct bucket *grown = realloc(builder->buckets, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        builder->buckets = grown;
        builder->capacity = capacity;
    }
    struct bucket *b = &builder->buckets[builder->count];
    memset(b, 0, sizeof *b);
    b->cause = cause;
    b->last_counted = -1;
    if (ledger_set_text(&b->label, label, LEDGER_LABEL_BYTES) != 0 ||
        ledger_set_text(&b->source, source, LEDGER_SOURCE_BYTES) != 0) {
        ledger_free_text(&b->label);
        return NULL;
    }
    builder->count++;
    return b;
}

void ledger_add_saturating(int64_t *sum, int64_t value)
{
    if (__builtin_add_overflow(*sum, value, sum))
        *sum = value > 0 ? INT64_MAX : INT64_MIN;
}

/* Returns 0, or -1 when the detail cannot be held (out of memory). */
static int merge_figures(struct bucket *b, const struct evidence_figures *figures)
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
    /* Host samples: a hostile trace's CPU times can sum past int64 (UBSan): they stop at its end. */
    ledger_add_saturating(&b->figures.samples, figures->samples);
    ledger_add_saturating(&b->figures.line_samples, figures->line_samples);
    ledger_add_saturating(&b->figures.waiting_samples, figures->waiting_samples);
    ledger_add_saturating(&b->figures.worker_cpu_ns, figures->worker_cpu_ns);
    ledger_add_saturating(&b->figures.worker_span_ns, figures->worker_span_ns);
    ledger_add_saturating(&b->figures.worker_samples, figures->worker_samples);
    ledger_add_saturating(&b->figures.worker_disk_samples, figures->worker_disk_samples);
    if (figures->workers > b->figures.workers)
        b->figures.workers = figures->workers;
    if (figures->longest_ns > b->figures.longest_ns)
        b->figures.longest_ns = figures->longest_ns;
    if (b->detail)
        return 0;
    char detail[LEDGER_DETAIL_BYTES] = "";
    if (figures->detail)
        ledger_copy_text(detail, sizeof detail, figures->detail);
    else if (figures->write_detail)
        figures->write_detail(figures->detail_context, detail, sizeof detail);
    if (detail[0] && !(b->detail = strdup(detail)))
        return -1;
    return 0;
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
        if (ledger_set_text(&b->source, source, LEDGER_SOURCE_BYTES) != 0)
            return -1;
    }
    b->ns += ns;
    builder->ns += ns;
    if (b->last_counted != mark) {
        b->count++;
        b->last_counted = mark;
    }
    return figures ? merge_figures(b, figures) : 0;
}

void ledger_builder_free(struct breakdown_builder *builder)
{
    for (size_t i = 0; i < builder->count; i++) {
        free(builder->buckets[i].detail);
        ledger_free_text(&builder->buckets[i].label);
        ledger_free_text(&builder->buckets[i].source);
    }
    free(builder->buckets);
    *builder = (struct breakdown_builder){0};
}

void ledger_books_free(struct device_books *books)
{
    ledger_builder_free(&books->idle);
    ledger_builder_free(&books->comm);
    for (size_t i = 0; books->step_idle && i < books->step_count; i++) {
        ledger_builder_free(&books->step_idle[i]);
        ledger_builder_free(&books->step_comm[i]);
    }
    free(books->step_idle);
    free(books->step_comm);
    free(books->host_work);
    free(books->by_start);
    free(books->by_end);
    free(books->reach);
    free_kernels(books);
}

/* --- attribution --- */

static uint64_t label_hash(const char *text)
{
    uint64_t hash = 14695981039346656037u; /* FNV-1a */
    for (; *text; text++)
        hash = (hash ^ (unsigned char)*text) * 1099511628211u;
    return hash;
}

/* Puts label's index in a free slot (slots has room). */
static void place_label(struct ledger_labels *labels, uint32_t index)
{
    size_t mask = labels->slot_count - 1, slot = label_hash(labels->texts[index]) & mask;
    while (labels->slots[slot])
        slot = (slot + 1) & mask;
    labels->slots[slot] = index + 1;
}

/* The index of label as the ledger holds it (cut as ledger_copy_text cuts it), added when new;
 * UINT32_MAX when out of memory. */
static uint32_t label_index(struct ledger_labels *labels, const char *label)
{
    char text[64];
    ledger_copy_text(text, sizeof text, label);
    if (labels->slot_count) {
        size_t mask = labels->slot_count - 1;
        for (size_t slot = label_hash(text) & mask; labels->slots[slot]; slot = (slot + 1) & mask)
            if (strcmp(labels->texts[labels->slots[slot] - 1], text) == 0)
                return labels->slots[slot] - 1;
    }
    if (labels->count >= UINT32_MAX - 1)
        return UINT32_MAX;
    if (labels->count == labels->capacity) {
        size_t capacity = labels->capacity ? labels->capacity * 2 : 16;
        char(*grown)[64] = realloc(labels->texts, capacity * sizeof *grown);
        if (!grown)
            return UINT32_MAX;
        labels->texts = grown;
        labels->capacity = capacity;
    }
    if (2 * (labels->count + 1) > labels->slot_count) {
        size_t slot_count = labels->slot_count ? labels->slot_count * 2 : 64;
        uint32_t *slots = calloc(slot_count, sizeof *slots);
        if (!slots)
            return UINT32_MAX;
        free(labels->slots);
        labels->slots = slots;
        labels->slot_count = slot_count;
        for (uint32_t i = 0; i < labels->count; i++)
            place_label(labels, i);
    }
    uint32_t index = (uint32_t)labels->count++;
    memcpy(labels->texts[index], text, sizeof text);
    place_label(labels, index);
    return index;
}

int ledger_reserve_intervals(struct ledger *ledger, size_t count)
{
    if (count <= ledger->interval_capacity)
        return 0;
    /* From 256 straight to all it may hold: pages cost nothing until written, and grown by
     * doubling and copying, the array of a host-bound trace (which keeps all of them) faulted
     * its pages in twice. A small trace's stays small (ASan writes the shadow of all of it). */
    size_t capacity = count > 256 ? ACCOUNTING_MAX_INTERVALS : 256;
    if (capacity < count)
        capacity = count;
    struct ledger_interval *grown = realloc(ledger->intervals, capacity * sizeof *grown);
    if (!grown)
        return -1;
    ledger->intervals = grown;
    ledger->interval_capacity = capacity;
    return 0;
}

void ledger_interval_out(const struct ledger *ledger, const struct ledger_interval *interval, size_t device,
                         struct accounting_interval *out)
{
    *out = (struct accounting_interval){.device = device,
                                        .cause = interval->cause,
                                        .start_ns = interval->start_ns,
                                        .end_ns = interval->end_ns};
    ledger_copy_text(out->label, sizeof out->label, ledger->labels.texts[interval->label]);
}

int ledger_interval_in(struct ledger *ledger, const struct accounting_interval *in, size_t device)
{
    uint32_t label = label_index(&ledger->labels, in->label);
    if (label == UINT32_MAX || ledger_reserve_intervals(ledger, ledger->interval_count + 1) != 0)
        return -1;
    ledger->intervals[ledger->interval_count++] = (struct ledger_interval){.start_ns = in->start_ns,
                                                                           .end_ns = in->end_ns,
                                                                           .device = (uint32_t)device,
                                                                           .label = label,
                                                                           .cause = in->cause};
    return 0;
}

void ledger_intervals_free(struct ledger *ledger)
{
    free(ledger->intervals);
    free(ledger->labels.texts);
    free(ledger->labels.slots);
    ledger->intervals = NULL;
    ledger->interval_count = ledger->interval_capacity = 0;
    ledger->labels = (struct ledger_labels){0};
}

static int add_interval(struct ledger *ledger, enum accounting_cause cause, const char *label,
                        int64_t start_ns, int64_t end_ns)
{
    struct device_books *books = ledger_current(ledger);
    if (end_ns <= start_ns)
        return 0;
    if (ledger->interval_count > (size_t)books->interval_first) {
        struct ledger_interval *last = &ledger->intervals[ledger->interval_count - 1];
        if (last->device == ledger->current_book && last->cause == cause && last->end_ns == start_ns &&
            strcmp(ledger->labels.texts[last->label], label) == 0) {
            last->end_ns = end_ns;
            return 0;
        }
    }
    if (ledger->interval_count >= ACCOUNTING_MAX_INTERVALS)
        return 0;
    uint32_t index = label_index(&ledger->labels, label);
    if (index == UINT32_MAX || ledger_reserve_intervals(ledger, ledger->interval_count + 1) != 0)
        return -1;
    ledger->intervals[ledger->interval_count++] =
        (struct ledger_interval){.start_ns = start_ns,
                                 .end_ns = end_ns,
                                 .device = (uint32_t)ledger->current_book,
                                 .label = index,
                                 .cause = cause};
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

/* --- the steps around a stretch --- */

struct keyed {
    int64_t key;
    size_t k;
};

static int by_key_then_k(const void *left, const void *right)
{
    const struct keyed *a = left, *b = right;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

static const struct analysis_step *step_of(const struct ledger *ledger, const struct device_books *books,
                                           size_t k)
{
    return &ledger->steps[books->first_step + k];
}

/* books' steps by start and by end (ties by index, as the scans they replace chose), and the
 * latest end among the first i by start: built once, so each stretch costs a binary search. */
static int index_steps(const struct ledger *ledger, struct device_books *books)
{
    size_t n = books->step_count;
    if (books->reach || n == 0)
        return 0;
    struct keyed *keyed = malloc(n * sizeof *keyed);
    books->by_start = malloc(n * sizeof *books->by_start);
    books->by_end = malloc(n * sizeof *books->by_end);
    books->reach = malloc(n * sizeof *books->reach);
    if (!keyed || !books->by_start || !books->by_end || !books->reach) {
        free(keyed);
        free(books->by_start);
        free(books->by_end);
        free(books->reach);
        books->by_start = books->by_end = NULL;
        books->reach = NULL;
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        keyed[k] = (struct keyed){step_of(ledger, books, k)->start_ns, k};
    qsort(keyed, n, sizeof *keyed, by_key_then_k);
    for (size_t i = 0; i < n; i++) {
        books->by_start[i] = keyed[i].k;
        int64_t end = step_of(ledger, books, keyed[i].k)->end_ns;
        books->reach[i] = i && books->reach[i - 1] > end ? books->reach[i - 1] : end;
    }
    for (size_t k = 0; k < n; k++)
        keyed[k] = (struct keyed){step_of(ledger, books, k)->end_ns, k};
    qsort(keyed, n, sizeof *keyed, by_key_then_k);
    for (size_t i = 0; i < n; i++)
        books->by_end[i] = keyed[i].k;
    free(keyed);
    return 0;
}

/* The number of steps, in order (books->by_start or by_end), whose start (or end, by_end) lies
 * before time (strictly 1) or at or before it (0). */
static size_t count_before(const struct ledger *ledger, const struct device_books *books, int by_end,
                           int64_t time, int strictly)
{
    const size_t *order = by_end ? books->by_end : books->by_start;
    size_t low = 0, high = books->step_count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        const struct analysis_step *step = step_of(ledger, books, order[mid]);
        int64_t edge = by_end ? step->end_ns : step->start_ns;
        if (strictly ? edge < time : edge <= time)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

static size_t starting_before(const struct ledger *ledger, const struct device_books *books, int64_t time,
                              int strictly)
{
    return count_before(ledger, books, 0, time, strictly);
}

static size_t ending_before(const struct ledger *ledger, const struct device_books *books, int64_t time,
                            int strictly)
{
    return count_before(ledger, books, 1, time, strictly);
}

/* [start_ns, end_ns) less the GPU time of every step of books, in time order, into segments
 * (at most capacity: the rest of the stretch, if any, is left out and counts as step-boundary). */
static size_t outside_steps(const struct ledger *ledger, const struct device_books *books, int64_t start_ns,
                            int64_t end_ns, int64_t segments[][2], size_t capacity)
{
    size_t count = 0;
    int64_t cursor = start_ns;
    while (cursor < end_ns && count < capacity) {
        /* The steps that start at or before cursor push it past the latest of their ends; else the
         * segment runs to the next step's start. */
        size_t started = starting_before(ledger, books, cursor, 0);
        if (started && books->reach[started - 1] > cursor) {
            cursor = books->reach[started - 1];
            continue;
        }
        int64_t next_start = end_ns;
        if (started < books->step_count) {
            int64_t start = step_of(ledger, books, books->by_start[started])->start_ns;
            if (start < next_start)
                next_start = start;
        }
        segments[count][0] = cursor;
        segments[count][1] = next_start;
        count++;
        cursor = next_start;
    }
    return count;
}

/* The steps of books around [start_ns, end_ns): the last to end at or before it and the first to
 * start at or after it (SIZE_MAX when none; of equal ends or starts, the lowest index). */
static void steps_around(const struct ledger *ledger, const struct device_books *books, int64_t start_ns,
                         int64_t end_ns, size_t *before, size_t *after)
{
    *before = *after = SIZE_MAX;
    size_t ended = ending_before(ledger, books, start_ns, 0);
    if (ended) {
        int64_t latest = step_of(ledger, books, books->by_end[ended - 1])->end_ns;
        *before = books->by_end[ending_before(ledger, books, latest, 1)];
    }
    size_t started = starting_before(ledger, books, end_ns, 1);
    if (started < books->step_count)
        *after = books->by_start[started];
}

/* Idle time outside every step's GPU activity (outside_c of the stretch, on the selection's clock),
 * kept apart from the causes inside steps and labelled with the cause it would have had: while the
 * host was still in the step before (its host range), step-end, given to that step; while it was
 * already in the step after, step-start, given to that one; else step-boundary. */
static int attribute_between_steps(struct ledger *ledger, struct device_books *books,
                                   struct selection *selection, enum accounting_cause cause, int64_t start_ns,
                                   int64_t end_ns, int64_t outside_c, int add_intervals,
                                   const struct evidence_figures *figures)
{
    enum { SEGMENTS = 16 };
    int64_t segments[SEGMENTS][2];
    struct {
        int kind; /* 0 step-end, 1 step-boundary, 2 step-start */
        size_t owner;
        int64_t part;
    } parts[3 * SEGMENTS + 1];
    size_t part_count = 0, count = outside_steps(ledger, books, start_ns, end_ns, segments, SEGMENTS);
    static const enum accounting_cause causes[3] = {ACCOUNTING_IDLE_STEP_END, ACCOUNTING_IDLE_STEP_BOUNDARY,
                                                    ACCOUNTING_IDLE_STEP_START};
    int64_t total = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t s = segments[i][0], e = segments[i][1];
        size_t before, after;
        steps_around(ledger, books, s, e, &before, &after);
        const struct analysis_step *prev =
            before == SIZE_MAX ? NULL : &ledger->steps[books->first_step + before];
        const struct analysis_step *next =
            after == SIZE_MAX ? NULL : &ledger->steps[books->first_step + after];
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
                add_interval(ledger, causes[k], accounting_cause_tag(cause), cuts[k], cuts[k + 1]) != 0)
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
        if (builder_add(&books->idle, kind, tag, "", parts[i].part, ledger->next_mark, figures) != 0)
            return -1;
        if (parts[i].owner != SIZE_MAX && builder_add(&books->step_idle[parts[i].owner], kind, tag, "",
                                                      parts[i].part, ledger->next_mark, figures) != 0)
            return -1;
        /* step-end: the host still in the step whose GPU work had ended (a synchronization that
         * drained the queue at the step's end): part of the loop, what its fixes remove; not
         * step-boundary (set-up, the time between ranges) nor step-start (the host already in the
         * next step, its work not yet issued: the loop's own pace) */
        if (parts[i].kind == 0 && (unsigned)cause < ACCOUNTING_CAUSE_COUNT)
            ledger_add_saturating(&books->between_steps_ns[cause], parts[i].part);
    }
    return 0;
}

/* ledger_attribute, and the part of length_c given to cause itself (*kept_c), not to the time
 * between steps. */
static int attribute(struct ledger *ledger, struct selection *selection, enum accounting_cause cause,
                     const char *label, const char *source, int64_t start_ns, int64_t end_ns,
                     int64_t length_c, const struct evidence_figures *figures, int64_t *kept_c)
{
    struct device_books *books = ledger_current(ledger);
    *kept_c = 0;
    if (length_c <= 0 || !books)
        return 0;
    int idle = accounting_cause_is_idle(cause);
    int64_t inside_c = 0;
    if (index_steps(ledger, books) != 0)
        return -1;
    /* The steps the stretch meets: those by start from the first whose reach passes start_ns to the
     * last that starts before end_ns, taken in index order (the order that decides which of two
     * overlapping steps is given their common time). */
    enum { MET = 64 };
    size_t met[MET], met_count = 0, first = 0, last = 0;
    if (books->step_count) {
        size_t low = 0, high = books->step_count;
        while (low < high) {
            size_t mid = low + (high - low) / 2;
            if (books->reach[mid] <= start_ns)
                low = mid + 1;
            else
                high = mid;
        }
        first = low;
        last = starting_before(ledger, books, end_ns, 1);
    }
    int sorted = 1;
    for (size_t i = first; i < last && met_count <= MET; i++) {
        size_t k = books->by_start[i];
        if (step_of(ledger, books, k)->end_ns <= start_ns)
            continue;
        if (met_count == MET) {
            met_count = MET + 1; /* too many to hold: every step in index order, as before */
            break;
        }
        sorted &= met_count == 0 || met[met_count - 1] < k;
        met[met_count++] = k;
    }
    if (!sorted && met_count <= MET) {
        for (size_t i = 1; i < met_count; i++)
            for (size_t j = i; j > 0 && met[j - 1] > met[j]; j--) {
                size_t swap = met[j];
                met[j] = met[j - 1];
                met[j - 1] = swap;
            }
    }
    size_t walk = met_count <= MET ? met_count : books->step_count;
    for (size_t i = 0; i < walk; i++) {
        size_t k = met_count <= MET ? met[i] : i;
        const struct analysis_step *step = step_of(ledger, books, k);
        int64_t a = start_ns > step->start_ns ? start_ns : step->start_ns;
        int64_t b = end_ns < step->end_ns ? end_ns : step->end_ns;
        int64_t part = measure(selection, a, b);
        if (part > length_c - inside_c)
            part = length_c - inside_c; /* steps that overlap each other: the device's time counts once */
        if (part <= 0)
            continue;
        inside_c += part;
        struct breakdown_builder *builder = idle ? &books->step_idle[k] : &books->step_comm[k];
        if (builder_add(builder, cause, label, source, part, ledger->next_mark, figures) != 0)
            return -1;
    }
    struct breakdown_builder *whole = idle ? &books->idle : &books->comm;
    if (idle && books->step_count && inside_c < length_c) {
        /* Kept apart: the time between two steps' GPU activity is a property of the loop. */
        if (attribute_between_steps(ledger, books, selection, cause, start_ns, end_ns, length_c - inside_c,
                                    inside_c == 0, figures) != 0)
            return -1;
        if (inside_c == 0)
            return 0;
    }
    *kept_c = idle && books->step_count ? inside_c : length_c;
    if (builder_add(whole, cause, label, source, *kept_c, ledger->next_mark, figures) != 0)
        return -1;
    return add_interval(ledger, cause, label, start_ns, end_ns);
}

int ledger_attribute(struct ledger *ledger, struct selection *selection, enum accounting_cause cause,
                     const char *label, const char *source, int64_t start_ns, int64_t end_ns,
                     int64_t length_c, const struct evidence_figures *figures)
{
    int64_t kept_c;
    return attribute(ledger, selection, cause, label, source, start_ns, end_ns, length_c, figures, &kept_c);
}

int ledger_attribute_host_work(struct ledger *ledger, struct selection *selection,
                               enum accounting_cause cause, const char *label, const char *source,
                               int64_t start_ns, int64_t end_ns, int64_t length_c,
                               const struct evidence_figures *figures, int64_t launch_ns)
{
    int64_t kept_c;
    if (attribute(ledger, selection, cause, label, source, start_ns, end_ns, length_c, figures, &kept_c) != 0)
        return -1;
    struct device_books *books = ledger_current(ledger);
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

int ledger_add_figures(struct ledger *ledger, enum accounting_cause cause, const char *label,
                       const struct evidence_figures *figures)
{
    struct device_books *books = ledger_current(ledger);
    struct bucket *b = books ? bucket_of(&books->idle, cause, label, "") : NULL;
    if (!b)
        return books ? -1 : 0;
    return merge_figures(b, figures);
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

void accounting_breakdown_free(struct accounting_breakdown *breakdown)
{
    for (size_t i = 0; i < breakdown->entry_count; i++)
        free(breakdown->entries[i].evidence);
    free(breakdown->entries);
    *breakdown = (struct accounting_breakdown){0};
}

void ledger_sort_entries(struct accounting_breakdown *breakdown)
{
    if (breakdown->entry_count > 1)
        qsort(breakdown->entries, breakdown->entry_count, sizeof *breakdown->entries, compare_entries);
}
