/* clock_align.c: matching collectives across two traces and the median of their end
 * differences (see clock_align.h). Owns: the collective lists and the differences, freed before
 * returning. */
#include "clock_align.h"

#include <stdlib.h>
#include <string.h>

#include "queries_merge.h"

/* How far apart (in collectives) two hosts' profiling windows may start. */
#define CLOCK_ALIGN_MAX_LAG 16

struct collective_end {
    int64_t process_id;
    char communicator[96]; /* the communicator, or "stream N" when the source did not name one */
    char op[24];
    int64_t bytes;    /* -1 when unknown */
    int64_t sequence; /* -1 when unknown */
    int64_t end_ns;
};

struct collective_list {
    struct collective_end *rows;
    size_t count, capacity;
};

struct differences {
    int64_t *values;
    size_t count, capacity;
};

struct loading {
    struct collective_list *list;
    int out_of_memory;
};

static int add_collective(void *context, const struct store_collective_end *row)
{
    struct loading *loading = context;
    struct collective_list *list = loading->list;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 256;
        struct collective_end *grown = realloc(list->rows, capacity * sizeof *grown);
        if (!grown) {
            loading->out_of_memory = 1;
            return -1;
        }
        list->rows = grown;
        list->capacity = capacity;
    }
    struct collective_end *end = &list->rows[list->count++];
    end->process_id = row->process_id;
    strncpy(end->communicator, row->communicator, sizeof end->communicator - 1);
    end->communicator[sizeof end->communicator - 1] = '\0';
    strncpy(end->op, row->op, sizeof end->op - 1);
    end->op[sizeof end->op - 1] = '\0';
    end->sequence = row->sequence;
    end->end_ns = row->end_ns;
    end->bytes = row->bytes;
    return 0;
}

static int load_collectives(sqlite3 *db, struct collective_list *list, error_info *err)
{
    struct loading loading = {list, 0};
    int status = store_each_collective_end(db, add_collective, &loading, err);
    return loading.out_of_memory ? error_set(err, "out of memory") : status;
}

/* Rows [first, first + *count) share a process and a communicator. */
static size_t group_length(const struct collective_list *list, size_t first)
{
    size_t last = first;
    while (last < list->count && list->rows[last].process_id == list->rows[first].process_id &&
           strcmp(list->rows[last].communicator, list->rows[first].communicator) == 0)
        last++;
    return last - first;
}

/* The first group of reference on the same communicator; its length in *length. */
static struct collective_end *reference_group(const struct collective_list *reference,
                                              const char *communicator, size_t *length)
{
    for (size_t first = 0; first < reference->count; first += group_length(reference, first)) {
        if (strcmp(reference->rows[first].communicator, communicator) == 0) {
            *length = group_length(reference, first);
            return &reference->rows[first];
        }
    }
    return NULL;
}

static int push_difference(struct differences *list, int64_t difference)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 256;
        int64_t *grown = realloc(list->values, capacity * sizeof *grown);
        if (!grown)
            return -1;
        list->values = grown;
        list->capacity = capacity;
    }
    list->values[list->count++] = difference;
    return 0;
}

static int all_sequenced(const struct collective_end *rows, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (rows[i].sequence < 0)
            return 0;
    return count > 0;
}

static int compare_sequence(const void *a, const void *b)
{
    int64_t x = ((const struct collective_end *)a)->sequence,
            y = ((const struct collective_end *)b)->sequence;
    return (x > y) - (x < y);
}

/* Both groups sorted by sequence number, then walked together. */
static int match_by_sequence(struct collective_end *reference, size_t reference_count,
                             struct collective_end *other, size_t other_count, struct differences *out)
{
    qsort(reference, reference_count, sizeof *reference, compare_sequence);
    qsort(other, other_count, sizeof *other, compare_sequence);
    size_t i = 0, j = 0;
    while (i < other_count && j < reference_count) {
        if (other[i].sequence < reference[j].sequence) {
            i++;
        } else if (other[i].sequence > reference[j].sequence) {
            j++;
        } else {
            int64_t difference;
            if (!__builtin_sub_overflow(other[i].end_ns, reference[j].end_ns, &difference) &&
                push_difference(out, difference) != 0)
                return -1;
            i++;
            j++;
        }
    }
    return 0;
}

/* The same operation: same op, and same size when both sides know it. */
static int same_operation(const struct collective_end *a, const struct collective_end *b)
{
    return strcmp(a->op, b->op) == 0 && (a->bytes < 0 || b->bytes < 0 || a->bytes == b->bytes);
}

/* Pairs other[k] with reference[k + lag] (same operations only) into out; returns the pair count. */
static size_t pair_with_lag(const struct collective_end *reference, size_t reference_count,
                            const struct collective_end *other, size_t other_count, long lag, int64_t *out)
{
    size_t pairs = 0;
    for (size_t k = 0; k < other_count; k++) {
        long j = (long)k + lag;
        int64_t difference;
        if (j < 0 || (size_t)j >= reference_count || !same_operation(&reference[j], &other[k]) ||
            __builtin_sub_overflow(other[k].end_ns, reference[j].end_ns, &difference))
            continue;
        out[pairs++] = difference;
    }
    return pairs;
}

/* Median absolute deviation of values around their median (values are reordered). */
static int64_t spread(int64_t *values, size_t count)
{
    int64_t median = clock_align_median(values, count);
    for (size_t i = 0; i < count; i++) {
        int64_t distance;
        if (__builtin_sub_overflow(values[i], median, &distance) || distance == INT64_MIN)
            distance = INT64_MAX;
        values[i] = distance < 0 ? -distance : distance;
    }
    return clock_align_median(values, count);
}

/* Profiling windows rarely start at the same collective on every host, so the k-th collective of
 * one trace may be the (k + lag)-th of the other. The lag that pairs the most same operations
 * (same op and size) wins; ties go to the smaller spread (median absolute deviation), then to the
 * smaller lag. Collectives of a step are periodic, so timing alone cannot tell lags apart: the
 * irregular sizes of gradient buckets can. */
static int match_by_order(const struct collective_end *reference, size_t reference_count,
                          const struct collective_end *other, size_t other_count, struct differences *out)
{
    size_t shorter = reference_count < other_count ? reference_count : other_count;
    size_t longer = reference_count < other_count ? other_count : reference_count;
    if (shorter == 0)
        return 0;
    int64_t *trial = malloc(other_count * sizeof *trial);
    if (!trial)
        return -1;
    long max_lag = (long)(longer - 1) < CLOCK_ALIGN_MAX_LAG ? (long)(longer - 1) : CLOCK_ALIGN_MAX_LAG;
    size_t needed = shorter < 3 ? shorter : 3; /* fewer pairs always agree: they prove nothing */
    if (shorter / 2 > needed)
        needed = shorter / 2;
    long best_lag = 0;
    int64_t best_spread = INT64_MAX;
    size_t best_pairs = 0;
    for (long step = 0; step <= 2 * max_lag; step++) {
        long lag = step % 2 ? (step + 1) / 2 : -step / 2; /* 0, 1, -1, 2, -2, ... */
        size_t pairs = pair_with_lag(reference, reference_count, other, other_count, lag, trial);
        if (pairs < needed || pairs < best_pairs)
            continue;
        int64_t lag_spread = spread(trial, pairs);
        if (pairs > best_pairs || lag_spread < best_spread) {
            best_spread = lag_spread;
            best_lag = lag;
            best_pairs = pairs;
        }
    }
    size_t pairs =
        best_pairs ? pair_with_lag(reference, reference_count, other, other_count, best_lag, trial) : 0;
    int status = 0;
    for (size_t i = 0; status == 0 && i < pairs; i++)
        status = push_difference(out, trial[i]);
    free(trial);
    return status;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t clock_align_median(int64_t *values, size_t count)
{
    if (count == 0)
        return 0;
    qsort(values, count, sizeof *values, compare_int64);
    int64_t low = values[(count - 1) / 2], high = values[count / 2];
    /* The mean of the middle two rounded down, from their halves: high - low overflowed for
     * differences of opposite signs beyond 2^62 (UBSan on {INT64_MIN, INT64_MAX}). The halves' sum
     * is exact but for the remainders, rest in -2..2, whose own half is rounded down. */
    int64_t rest = low % 2 + high % 2;
    return low / 2 + high / 2 + (rest >= 0 ? rest / 2 : (rest - 1) / 2);
}

/* Each group of other (a process and a communicator) is matched against the first reference
 * process on that communicator: ranks of one host share its clock, so one partner suffices. */
static int collect_differences(const struct collective_list *reference, const struct collective_list *other,
                               struct differences *out, int *by_sequence)
{
    *by_sequence = 1;
    for (size_t first = 0; first < other->count;) {
        size_t length = group_length(other, first), reference_length = 0;
        struct collective_end *group = &other->rows[first];
        struct collective_end *partner = reference_group(reference, group->communicator, &reference_length);
        if (partner) {
            int sequenced = all_sequenced(group, length) && all_sequenced(partner, reference_length);
            *by_sequence &= sequenced;
            int status = sequenced ? match_by_sequence(partner, reference_length, group, length, out)
                                   : match_by_order(partner, reference_length, group, length, out);
            if (status != 0)
                return -1;
        }
        first += length;
    }
    return 0;
}

int clock_align_estimate(sqlite3 *reference, sqlite3 *other, struct clock_alignment *result, error_info *err)
{
    struct collective_list reference_list = {0}, other_list = {0};
    struct differences differences = {0};
    *result = (struct clock_alignment){.offset_ns = 0, .bound_ns = -1, .matches = 0, .by_sequence = 0};
    int status = load_collectives(reference, &reference_list, err);
    if (status == 0)
        status = load_collectives(other, &other_list, err);
    if (status == 0 &&
        collect_differences(&reference_list, &other_list, &differences, &result->by_sequence) != 0)
        status = error_set(err, "out of memory");
    if (status == 0 && differences.count > 0) {
        int64_t median = clock_align_median(differences.values, differences.count);
        int64_t bound = 0;
        for (size_t i = 0; i < differences.count; i++) {
            int64_t distance;
            if (__builtin_sub_overflow(differences.values[i], median, &distance) || distance == INT64_MIN)
                distance = INT64_MAX;
            distance = distance < 0 ? -distance : distance;
            if (distance > bound)
                bound = distance;
        }
        result->offset_ns = median == INT64_MIN ? INT64_MAX : -median;
        result->bound_ns = bound;
        result->matches = (int64_t)differences.count;
    } else {
        result->by_sequence = 0;
    }
    free(reference_list.rows);
    free(other_list.rows);
    free(differences.values);
    return status;
}
