/* steps.c: see steps.h. */
#include "steps.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store.h"

enum { GPU_TABLE_COUNT = 3 };

/* The GPU work launched from one thread in a host time range. */
struct gpu_mapper {
    sqlite3_stmt *queries[GPU_TABLE_COUNT];
};

static const char *const mapper_sql[GPU_TABLE_COUNT] = {
    "SELECT MIN(g.start_ns), MAX(g.end_ns) FROM api_calls a JOIN kernels g ON g.process_id = a.process_id"
    " AND g.correlation_id = a.correlation_id WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns >= "
    "?3"
    " AND a.start_ns < ?4",
    "SELECT MIN(g.start_ns), MAX(g.end_ns) FROM api_calls a JOIN memcpys g ON g.process_id = a.process_id"
    " AND g.correlation_id = a.correlation_id WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns >= "
    "?3"
    " AND a.start_ns < ?4",
    "SELECT MIN(g.start_ns), MAX(g.end_ns) FROM api_calls a JOIN memsets g ON g.process_id = a.process_id"
    " AND g.correlation_id = a.correlation_id WHERE a.process_id = ?1 AND a.thread_id = ?2 AND a.start_ns >= "
    "?3"
    " AND a.start_ns < ?4",
};

static void mapper_free(struct gpu_mapper *mapper)
{
    for (int i = 0; i < GPU_TABLE_COUNT; i++)
        sqlite3_finalize(mapper->queries[i]);
}

static int mapper_init(struct gpu_mapper *mapper, sqlite3 *db, error_info *err)
{
    *mapper = (struct gpu_mapper){0};
    for (int i = 0; i < GPU_TABLE_COUNT; i++) {
        if (sqlite3_prepare_v2(db, mapper_sql[i], -1, &mapper->queries[i], NULL) != SQLITE_OK) {
            error_set(err, "cannot map ranges to GPU time: %s", sqlite3_errmsg(db));
            mapper_free(mapper);
            return -1;
        }
    }
    return 0;
}

/* Returns 1 with [*start, *end] the GPU time of the work thread_id launched in [host_start,
 * host_end), 0 when there is none (or the thread is unknown). */
static int mapper_gpu_time(struct gpu_mapper *mapper, int64_t process_id, int64_t thread_id,
                           int64_t host_start_ns, int64_t host_end_ns, int64_t *start_ns, int64_t *end_ns)
{
    int found = 0;
    if (thread_id == STORE_NULL)
        return 0;
    for (int i = 0; i < GPU_TABLE_COUNT; i++) {
        sqlite3_stmt *query = mapper->queries[i];
        sqlite3_bind_int64(query, 1, process_id);
        sqlite3_bind_int64(query, 2, thread_id);
        sqlite3_bind_int64(query, 3, host_start_ns);
        sqlite3_bind_int64(query, 4, host_end_ns);
        if (sqlite3_step(query) == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL) {
            int64_t first = sqlite3_column_int64(query, 0), last = sqlite3_column_int64(query, 1);
            if (!found || first < *start_ns)
                *start_ns = first;
            if (!found || last > *end_ns)
                *end_ns = last;
            found = 1;
        }
        sqlite3_reset(query);
    }
    return found;
}

/* One NVTX range turned into time: GPU time when it can be. Returns whether it is on the GPU, or
 * -1 with err filled when its times (or those of the GPU work it maps to) lie outside any
 * recording: a damaged trace, refused before the selection's arithmetic overflows. */
static int range_time(struct gpu_mapper *mapper, sqlite3_stmt *row, int64_t process_id, int64_t *start_ns,
                      int64_t *end_ns, error_info *err)
{
    int64_t thread_id =
        sqlite3_column_type(row, 0) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(row, 0);
    int on_device = sqlite3_column_type(row, 1) != SQLITE_NULL;
    *start_ns = sqlite3_column_int64(row, 2);
    *end_ns = sqlite3_column_int64(row, 3);
    int on_gpu = on_device ? 1
                 : store_interval_plausible(*start_ns, *end_ns)
                     ? mapper_gpu_time(mapper, process_id, thread_id, *start_ns, *end_ns, start_ns, end_ns)
                     : 0;
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

int steps_select_range(sqlite3 *db, int64_t process_id, const char *name, int64_t clip_start_ns,
                       int64_t clip_end_ns, struct selection *selection, size_t *found, error_info *err)
{
    struct gpu_mapper mapper;
    if (mapper_init(&mapper, db, err) != 0)
        return -1;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT n.thread_id, n.device_id, n.start_ns, n.end_ns FROM nvtx n"
                           " WHERE n.process_id = ?1 AND n.kind != 3"
                           " AND n.message_id = (SELECT id FROM strings WHERE value = ?2)",
                           -1, &query, NULL) != SQLITE_OK) {
        mapper_free(&mapper);
        return error_set(err, "cannot read NVTX ranges: %s", sqlite3_errmsg(db));
    }
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_text(query, 2, name, -1, SQLITE_TRANSIENT);
    int status = 0;
    while (status == 0 && sqlite3_step(query) == SQLITE_ROW) {
        int64_t start_ns, end_ns;
        if (range_time(&mapper, query, process_id, &start_ns, &end_ns, err) < 0) {
            status = -1;
            break;
        }
        (*found)++;
        if (start_ns < clip_start_ns)
            start_ns = clip_start_ns;
        if (end_ns > clip_end_ns)
            end_ns = clip_end_ns;
        if (selection_add(selection, start_ns, end_ns) != 0)
            status = error_set(err, "out of memory");
    }
    sqlite3_finalize(query);
    mapper_free(&mapper);
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

static int read_step_names(sqlite3 *db, struct step_name **names, size_t *count, error_info *err)
{
    sqlite3_stmt *query = NULL;
    *names = NULL;
    *count = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT s.id, s.value FROM strings s WHERE s.id IN"
                           " (SELECT DISTINCT message_id FROM nvtx WHERE kind != 3)",
                           -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "cannot read NVTX ranges: %s", sqlite3_errmsg(db));
    size_t capacity = 0;
    int status = 0;
    while (status == 0 && sqlite3_step(query) == SQLITE_ROW) {
        struct step_name name;
        if (!split_number((const char *)sqlite3_column_text(query, 1), &name))
            continue;
        name.message_id = sqlite3_column_int64(query, 0);
        if (*count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            struct step_name *grown = realloc(*names, capacity * sizeof *grown);
            if (!grown) {
                status = error_set(err, "out of memory");
                break;
            }
            *names = grown;
        }
        (*names)[(*count)++] = name;
    }
    sqlite3_finalize(query);
    return status;
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

/* Joins the rows of one (process, number): GPU-timeline rows win over host-time rows. */
static size_t merge_steps(struct analysis_step *steps, size_t count)
{
    qsort(steps, count, sizeof *steps, by_process_then_number);
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

static void set_ranks(sqlite3 *db, struct analysis_step *steps, size_t count)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, "SELECT rank FROM processes WHERE process_id = ?1", -1, &query, NULL) !=
        SQLITE_OK)
        return;
    for (size_t i = 0; i < count; i++) {
        sqlite3_bind_int64(query, 1, steps[i].process_id);
        steps[i].rank = sqlite3_step(query) == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL
                            ? sqlite3_column_int64(query, 0)
                            : -1;
        sqlite3_reset(query);
    }
    sqlite3_finalize(query);
}

static int collect_steps(sqlite3 *db, const struct step_name *names, size_t name_count, const char *prefix,
                         struct analysis_step **steps, size_t *count, error_info *err)
{
    struct gpu_mapper mapper;
    sqlite3_stmt *query = NULL;
    if (mapper_init(&mapper, db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, device_id, start_ns, end_ns, process_id, message_id FROM nvtx"
                           " WHERE kind != 3",
                           -1, &query, NULL) != SQLITE_OK) {
        mapper_free(&mapper);
        return error_set(err, "cannot read NVTX ranges: %s", sqlite3_errmsg(db));
    }
    size_t capacity = 0;
    int status = 0;
    while (status == 0 && sqlite3_step(query) == SQLITE_ROW) {
        const struct step_name *name = find_name(names, name_count, sqlite3_column_int64(query, 5), prefix);
        if (!name)
            continue;
        if (*count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            struct analysis_step *grown = realloc(*steps, capacity * sizeof *grown);
            if (!grown) {
                status = error_set(err, "out of memory");
                break;
            }
            *steps = grown;
        }
        struct analysis_step *step = &(*steps)[(*count)++];
        *step = (struct analysis_step){.number = name->number, .process_id = sqlite3_column_int64(query, 4)};
        snprintf(step->name, sizeof step->name, "%s%" PRId64, prefix, name->number);
        int host_range = sqlite3_column_type(query, 1) == SQLITE_NULL;
        step->host_start_ns = host_range ? sqlite3_column_int64(query, 2) : STORE_NULL;
        step->host_end_ns = host_range ? sqlite3_column_int64(query, 3) : STORE_NULL;
        step->on_gpu_timeline =
            range_time(&mapper, query, step->process_id, &step->start_ns, &step->end_ns, err);
        if (step->on_gpu_timeline < 0)
            status = -1;
    }
    sqlite3_finalize(query);
    mapper_free(&mapper);
    return status;
}

int steps_find(sqlite3 *db, struct analysis_step **steps, size_t *count, error_info *err)
{
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
        status = collect_steps(db, names, name_count, prefix, steps, count, err);
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
