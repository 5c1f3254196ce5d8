/* steps.c: see steps.h. */
#include "steps.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "queries_ranges.h"
#include "store.h"

/* The span that maps row to the GPU time of the work its thread launched within it (store.h's
 * store_launched_work_times): none (thread STORE_NULL) for a range already on the GPU timeline, of
 * no known thread, or whose host times lie outside any recording. */
static struct store_launched_span span_of(const struct store_nvtx_range *row)
{
    int mapped = !row->on_device && row->thread_id != STORE_NULL &&
                 store_interval_plausible(row->start_ns, row->end_ns);
    return (struct store_launched_span){.process_id = row->process_id,
                                        .thread_id = mapped ? row->thread_id : STORE_NULL,
                                        .host_start_ns = row->start_ns,
                                        .host_end_ns = row->end_ns};
}

/* One NVTX range turned into time, through its mapped span: GPU time when it can be. Returns
 * whether it is on the GPU, or -1 with err filled when its times (or those of the GPU work it maps
 * to) lie outside any recording: a damaged trace, refused before the selection's arithmetic
 * overflows. */
static int range_time(const struct store_nvtx_range *row, const struct store_launched_span *span,
                      int64_t process_id, int64_t *start_ns, int64_t *end_ns, error_info *err)
{
    int on_device = row->on_device;
    *start_ns = row->start_ns;
    *end_ns = row->end_ns;
    int on_gpu = on_device || span->found;
    if (!on_device && span->found) {
        *start_ns = span->start_ns;
        *end_ns = span->end_ns;
    }
    /* Mapped to the GPU work it launched, a range lasts as long as that work, which may run up to a
     * device's span (52 days) after its launch: the importers keep that, so only its ends must lie on
     * the clock (+-2^61 ns; the selection's sums of disjoint intervals then stay in range). A host
     * range's duration bound (13 days) refused every report of such a trace as damaged. */
    int plausible = on_gpu && !on_device ? store_interval_plausible(*start_ns, *start_ns) &&
                                               store_interval_plausible(*end_ns, *end_ns)
                                         : store_interval_plausible(*start_ns, *end_ns);
    if (!plausible)
        return error_set(err,
                         "the trace is damaged: an NVTX range of process %" PRId64 " runs from %" PRId64
                         " ns to %" PRId64 " ns, outside any recording",
                         process_id, *start_ns, *end_ns);
    if (*end_ns < *start_ns)
        *end_ns = *start_ns; /* a reversed clock: a point, as the GPU readers take it */
    return on_gpu;
}

/* Ranges held to be mapped all at once (a query per range made steps_find a fifth of a report of
 * 100,000 steps). */
struct held_ranges {
    struct store_nvtx_range *rows;
    struct store_launched_span *spans;
    size_t count, capacity;
};

static int hold_range(struct held_ranges *held, const struct store_nvtx_range *row)
{
    if (held->count == held->capacity) {
        size_t capacity = held->capacity ? held->capacity * 2 : 64;
        struct store_nvtx_range *rows = realloc(held->rows, capacity * sizeof *rows);
        if (!rows)
            return -1;
        held->rows = rows;
        held->capacity = capacity;
    }
    held->rows[held->count++] = *row;
    return 0;
}

/* map_by_process's groups: the held spans sorted by process (ties in held order), group g
 * spans [starts[g], starts[g + 1]) of sorted; each worker's lists kept from one process to the
 * next (buffers[worker]). */
struct mapping {
    struct store_launched_span *sorted;
    size_t *starts;
    struct store_launch_buffers *buffers;
};

static int map_group(void *context, size_t group, size_t worker, store *reader, error_info *err)
{
    struct mapping *mapping = context;
    size_t first = mapping->starts[group];
    return store_launched_work_times_in(store_db(reader), mapping->sorted + first,
                                        mapping->starts[group + 1] - first, &mapping->buffers[worker], err);
}

/* A held span's place, ordered by process then place. */
struct span_place {
    int64_t process_id;
    size_t index;
};

static int by_process(const void *a, const void *b)
{
    const struct span_place *x = a, *y = b;
    if (x->process_id != y->process_id)
        return x->process_id < y->process_id ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* held->spans mapped one process at a time, the processes on team's workers (each reads only its
 * process's rows: a serial pass over the whole trace was most of the run's own thread's time with
 * many workers). team NULL: on trace's connection, process after process. */
static int map_by_process(store *trace, crew *team, struct held_ranges *held, error_info *err)
{
    size_t count = held->count, groups = 0;
    struct span_place *order = malloc((count ? count : 1) * sizeof *order);
    size_t workers = team ? crew_size(team) : 0;
    workers = workers ? workers : 1; /* alone, worker 0 (crew_run with no connection too) */
    struct mapping mapping = {malloc((count ? count : 1) * sizeof *mapping.sorted),
                              malloc((count + 1) * sizeof *mapping.starts),
                              calloc(workers, sizeof *mapping.buffers)};
    int status =
        order && mapping.sorted && mapping.starts && mapping.buffers ? 0 : error_set(err, "out of memory");
    if (status == 0) {
        for (size_t i = 0; i < count; i++)
            order[i] = (struct span_place){held->spans[i].process_id, i};
        if (count > 1)
            qsort(order, count, sizeof *order, by_process);
        for (size_t i = 0; i < count; i++) {
            mapping.sorted[i] = held->spans[order[i].index];
            if (i == 0 || mapping.sorted[i].process_id != mapping.sorted[i - 1].process_id)
                mapping.starts[groups++] = i;
        }
        mapping.starts[groups] = count;
        status = crew_run(team, trace, groups, map_group, &mapping, err);
        for (size_t i = 0; status == 0 && i < count; i++)
            held->spans[order[i].index] = mapping.sorted[i];
    }
    for (size_t w = 0; mapping.buffers && w < workers; w++)
        store_launch_buffers_free(&mapping.buffers[w]);
    free(order);
    free(mapping.sorted);
    free(mapping.starts);
    free(mapping.buffers);
    return status;
}

/* held->spans, one per row, to be mapped. */
static int span_held(struct held_ranges *held, error_info *err)
{
    held->spans = malloc((held->count ? held->count : 1) * sizeof *held->spans);
    if (!held->spans)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < held->count; i++)
        held->spans[i] = span_of(&held->rows[i]);
    return 0;
}

static void free_held(struct held_ranges *held)
{
    free(held->rows);
    free(held->spans);
    *held = (struct held_ranges){0};
}

static int hold_named_range(void *context, const struct store_nvtx_range *range)
{
    return hold_range(context, range) != 0 ? 1 : 0;
}

int steps_select_range(sqlite3 *db, int64_t process_id, const char *name, int64_t clip_start_ns,
                       int64_t clip_end_ns, struct selection *selection, size_t *found, error_info *err)
{
    struct held_ranges held = {0};
    int status = store_each_named_range(db, process_id, name, hold_named_range, &held, err);
    if (status > 0)
        status = error_set(err, "out of memory");
    if (status == 0)
        status = span_held(&held, err);
    if (status == 0) /* one process */
        status = store_launched_work_times(db, held.spans, held.count, err);
    for (size_t i = 0; status == 0 && i < held.count; i++) {
        int64_t start_ns, end_ns;
        if (range_time(&held.rows[i], &held.spans[i], process_id, &start_ns, &end_ns, err) < 0)
            status = -1;
        else {
            (*found)++;
            if (start_ns < clip_start_ns)
                start_ns = clip_start_ns;
            if (end_ns > clip_end_ns)
                end_ns = clip_end_ns;
            if (selection_add(selection, start_ns, end_ns) != 0)
                status = error_set(err, "out of memory");
        }
    }
    free_held(&held);
    return status;
}

/* --- step names --- */

struct step_name {
    int64_t message_id, number;
    char prefix[64];
};

/* Splits "ProfilerStep#12" into "ProfilerStep#" and 12; 0 when it does not end in a number. */
static int split_number(const char *text, struct step_name *out)
{
    if (!text)
        return 0; /* a NULL message (a damaged strings table) names no step */
    size_t length = strlen(text), digits = 0;
    while (digits < length && digits < 18 && isdigit((unsigned char)text[length - 1 - digits]))
        digits++;
    if (digits == 0 || digits == length || length - digits >= sizeof out->prefix)
        return 0;
    memcpy(out->prefix, text, length - digits);
    out->prefix[length - digits] = '\0';
    out->number = strtoll(text + length - digits, NULL, 10);
    return 1;
}

static int says_step(const char *prefix)
{
    return strcasestr(prefix, "step") != NULL || strcasestr(prefix, "iter") != NULL;
}

static int by_prefix_then_number(const void *a, const void *b)
{
    const struct step_name *x = a, *y = b;
    int order = strcmp(x->prefix, y->prefix);
    if (order)
        return order;
    return (x->number > y->number) - (x->number < y->number);
}

/* The prefix that names iterations, or "" when none: ProfilerStep# when present, else the prefix
 * saying "step" or "iter" that appears with the most distinct numbers (of equal counts, the first
 * in names[]). Counted on a copy sorted by prefix then number, not by a scan per name (a trace of
 * 100,000 numbered ranges). Returns -1 when out of memory. */
static int choose_prefix(const struct step_name *names, size_t count, char *prefix, size_t size)
{
    prefix[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (strcmp(names[i].prefix, "ProfilerStep#") == 0) {
            snprintf(prefix, size, "ProfilerStep#");
            return 0;
        }
    }
    if (count == 0)
        return 0;
    struct step_name *sorted = malloc(count * sizeof *sorted);
    if (!sorted)
        return -1;
    memcpy(sorted, names, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, by_prefix_then_number);
    /* sorted[i].number becomes the distinct numbers of its prefix (on the run's first entry). */
    for (size_t i = 0; i < count;) {
        size_t j = i, distinct = 0;
        for (; j < count && strcmp(sorted[j].prefix, sorted[i].prefix) == 0; j++)
            distinct += j == i || sorted[j].number != sorted[j - 1].number;
        sorted[i].number = (int64_t)distinct;
        for (size_t k = i + 1; k < j; k++)
            sorted[k].number = -1;
        i = j;
    }
    size_t best = 1;
    for (size_t i = 0; i < count; i++) {
        if (!says_step(names[i].prefix))
            continue;
        size_t low = 0, high = count; /* the first entry of names[i].prefix's run */
        while (low < high) {
            size_t mid = low + (high - low) / 2;
            if (strcmp(sorted[mid].prefix, names[i].prefix) < 0)
                low = mid + 1;
            else
                high = mid;
        }
        size_t distinct = (size_t)sorted[low].number;
        if (distinct > best) {
            best = distinct;
            snprintf(prefix, size, "%s", names[i].prefix);
        }
    }
    free(sorted);
    return 0;
}

/* read_step_names' walk: each numbered message into the names. */
struct reading_names {
    struct step_name **names;
    size_t *count, capacity;
    error_info *err;
};

static int read_step_name(void *context, int64_t message_id, const char *text)
{
    struct reading_names *reading = context;
    struct step_name name;
    if (!split_number(text, &name))
        return 0;
    name.message_id = message_id;
    if (*reading->count == reading->capacity) {
        reading->capacity = reading->capacity ? reading->capacity * 2 : 64;
        struct step_name *grown = realloc(*reading->names, reading->capacity * sizeof *grown);
        if (!grown)
            return error_set(reading->err, "out of memory");
        *reading->names = grown;
    }
    (*reading->names)[(*reading->count)++] = name;
    return 0;
}

static int read_step_names(sqlite3 *db, struct step_name **names, size_t *count, error_info *err)
{
    *names = NULL;
    *count = 0;
    struct reading_names reading = {names, count, 0, err};
    return store_each_range_message(db, read_step_name, &reading, err);
}

static int by_process_then_number(const void *a, const void *b)
{
    const struct analysis_step *x = a, *y = b;
    if (x->process_id != y->process_id)
        return x->process_id < y->process_id ? -1 : 1;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    if (x->on_gpu_timeline != y->on_gpu_timeline)
        return y->on_gpu_timeline - x->on_gpu_timeline;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

void steps_sort(struct analysis_step *steps, size_t count)
{
    if (count > 1)
        qsort(steps, count, sizeof *steps, by_process_then_number);
}

/* Joins the rows of one (process, number): GPU-timeline rows win over host-time rows. */
static size_t merge_steps(struct analysis_step *steps, size_t count)
{
    steps_sort(steps, count); /* steps is NULL where a share kept no range */
    size_t merged = 0;
    for (size_t i = 0; i < count; i++) {
        struct analysis_step *last = merged ? &steps[merged - 1] : NULL;
        if (last && last->process_id == steps[i].process_id && last->number == steps[i].number) {
            if (steps[i].host_start_ns != STORE_NULL &&
                (last->host_start_ns == STORE_NULL || steps[i].host_start_ns < last->host_start_ns))
                last->host_start_ns = steps[i].host_start_ns;
            if (steps[i].host_end_ns != STORE_NULL &&
                (last->host_end_ns == STORE_NULL || steps[i].host_end_ns > last->host_end_ns))
                last->host_end_ns = steps[i].host_end_ns;
            if (steps[i].on_gpu_timeline != last->on_gpu_timeline)
                continue; /* sorted GPU first: host times of the same step add nothing more */
            if (steps[i].start_ns < last->start_ns)
                last->start_ns = steps[i].start_ns;
            if (steps[i].end_ns > last->end_ns)
                last->end_ns = steps[i].end_ns;
            continue;
        }
        steps[merged++] = steps[i];
    }
    return merged;
}

static int by_message_id(const void *a, const void *b)
{
    const struct step_name *x = a, *y = b;
    return (x->message_id > y->message_id) - (x->message_id < y->message_id);
}

/* names sorted by message id (one entry each: the strings table's ids are unique). */
static const struct step_name *find_name(const struct step_name *names, size_t count, int64_t message_id,
                                         const char *prefix)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (names[mid].message_id < message_id)
            low = mid + 1;
        else
            high = mid;
    }
    for (; low < count && names[low].message_id == message_id; low++)
        if (strcmp(names[low].prefix, prefix) == 0)
            return &names[low];
    return NULL;
}

/* steps sorted by process: the rank asked once a process, not once a step. */
static void set_ranks(sqlite3 *db, struct analysis_step *steps, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (i > 0 && steps[i].process_id == steps[i - 1].process_id)
            steps[i].rank = steps[i - 1].rank;
        else if (store_process_rank(db, steps[i].process_id, &steps[i].rank) != 0)
            return;
    }
}

/* collect_steps' walk: each range whose message names a step of the prefix, held with its number. */
struct collecting {
    const struct step_name *names;
    size_t name_count;
    const char *prefix;
    steps_keep_process *keep; /* NULL: every process */
    void *keep_context;
    struct held_ranges held;
};

static int hold_step_range(void *context, const struct store_nvtx_range *range)
{
    struct collecting *collecting = context;
    if (collecting->keep && !collecting->keep(collecting->keep_context, range->process_id))
        return 0;
    if (!find_name(collecting->names, collecting->name_count, range->message_id, collecting->prefix))
        return 0;
    return hold_range(&collecting->held, range) != 0 ? 1 : 0;
}

static int collect_steps(store *trace, crew *team, const struct step_name *names, size_t name_count,
                         const char *prefix, steps_keep_process *keep, void *keep_context,
                         struct analysis_step **steps, size_t *count, error_info *err)
{
    sqlite3 *db = store_db(trace);
    struct collecting collecting = {names, name_count, prefix, keep, keep_context, {0}};
    struct held_ranges *held = &collecting.held;
    int status = store_each_range(db, hold_step_range, &collecting, err);
    if (status > 0)
        status = error_set(err, "out of memory");
    if (status == 0)
        status = span_held(held, err);
    if (status == 0)
        status = map_by_process(trace, team, held, err);
    if (status == 0 && held->count && !(*steps = malloc(held->count * sizeof **steps)))
        status = error_set(err, "out of memory");
    for (size_t i = 0; status == 0 && i < held->count; i++) {
        const struct store_nvtx_range *range = &held->rows[i];
        const struct step_name *name = find_name(names, name_count, range->message_id, prefix);
        struct analysis_step *step = &(*steps)[(*count)++];
        *step = (struct analysis_step){.number = name->number, .process_id = range->process_id};
        snprintf(step->name, sizeof step->name, "%s%" PRId64, prefix, name->number);
        int host_range = !range->on_device;
        step->host_start_ns = host_range ? range->start_ns : STORE_NULL;
        step->host_end_ns = host_range ? range->end_ns : STORE_NULL;
        step->on_gpu_timeline =
            range_time(range, &held->spans[i], step->process_id, &step->start_ns, &step->end_ns, err);
        if (step->on_gpu_timeline < 0)
            status = -1;
    }
    free_held(held);
    return status;
}

int steps_find(store *trace, crew *team, struct analysis_step **steps, size_t *count, error_info *err)
{
    return steps_find_of(trace, team, NULL, NULL, steps, count, err);
}

int steps_find_of(store *trace, crew *team, steps_keep_process *keep, void *keep_context,
                  struct analysis_step **steps, size_t *count, error_info *err)
{
    sqlite3 *db = store_db(trace);
    struct step_name *names = NULL;
    size_t name_count = 0;
    *steps = NULL;
    *count = 0;
    if (read_step_names(db, &names, &name_count, err) != 0)
        return -1;
    char prefix[64];
    int status = choose_prefix(names, name_count, prefix, sizeof prefix);
    if (status != 0)
        status = error_set(err, "out of memory");
    else if (prefix[0]) {
        qsort(names, name_count, sizeof *names, by_message_id);
        status = collect_steps(trace, team, names, name_count, prefix, keep, keep_context, steps, count, err);
        if (status == 0) {
            *count = merge_steps(*steps, *count);
            set_ranks(db, *steps, *count);
        }
    }
    free(names);
    if (status != 0) {
        free(*steps);
        *steps = NULL;
        *count = 0;
    }
    return status;
}
