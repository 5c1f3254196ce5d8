/* launches.c: see launches.h. */
#include "launches.h"

#include <stdint.h>
#include <stdlib.h>

#include "nearly_sorted.h"
#include "queries_calls.h"
#include "whatif.h"

/* A call's key while the rows are put in order: its id and the place it came in. */
struct arrival {
    int64_t correlation_id;
    uint32_t position;
};

static int by_correlation_then_position(const void *a, const void *b)
{
    const struct arrival *x = a, *y = b;
    if (x->correlation_id != y->correlation_id)
        return x->correlation_id < y->correlation_id ? -1 : 1;
    return (x->position > y->position) - (x->position < y->position);
}

/* Holds one call (store_each_correlated_call's visit): 1 at WHATIF_MAX_OPS (the launches are then
 * not complete), 2 when out of memory. */
struct loading {
    struct launches *launches;
    int sorted;
};

_Static_assert(WHATIF_MAX_OPS <= UINT32_MAX, "a call's position is 32 bits");

static int hold_call(void *context, const struct store_correlated_call *row)
{
    struct loading *loading = context;
    struct launches *launches = loading->launches;
    if (launches->count >= WHATIF_MAX_OPS)
        return 1;
    if (launches->count == launches->capacity) {
        size_t capacity = launches->capacity ? launches->capacity * 2 : 1024;
        struct thread_call *calls = realloc(launches->calls, capacity * sizeof *calls);
        if (!calls)
            return 2;
        launches->calls = calls;
        struct call_origin *origins = realloc(launches->origins, capacity * sizeof *origins);
        if (!origins)
            return 2;
        launches->origins = origins;
        launches->capacity = capacity;
    }
    size_t i = launches->count++;
    launches->calls[i] = (struct thread_call){.start_ns = row->start_ns,
                                              .end_ns = row->end_ns,
                                              .correlation_id = row->correlation_id,
                                              .name_id = row->name_id,
                                              .api_domain = thread_call_domain(row->api_domain),
                                              .has_name = row->has_name};
    launches->origins[i] = (struct call_origin){.thread_id = row->thread_id, .rowid = row->rowid};
    loading->sorted &= i == 0 || launches->calls[i - 1].correlation_id <= row->correlation_id;
    return 0;
}

/* Puts the calls in correlation order, stably (by_correlation_then_position); returns 0 or -1 when
 * out of memory. */
static int put_in_order(struct launches *launches)
{
    size_t n = launches->count;
    struct arrival *order = malloc((n ? n : 1) * sizeof *order);
    struct thread_call *calls = malloc((n ? n : 1) * sizeof *calls);
    struct call_origin *origins = malloc((n ? n : 1) * sizeof *origins);
    if (!order || !calls || !origins) {
        free(order);
        free(calls);
        free(origins);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (struct arrival){launches->calls[i].correlation_id, (uint32_t)i};
    nearly_sorted_sort(order, n, sizeof *order, by_correlation_then_position);
    for (size_t i = 0; i < n; i++) {
        calls[i] = launches->calls[order[i].position];
        origins[i] = launches->origins[order[i].position];
    }
    free(order);
    free(launches->calls);
    free(launches->origins);
    launches->calls = calls;
    launches->origins = origins;
    launches->capacity = n ? n : 1;
    return 0;
}

int launches_load(sqlite3 *db, int64_t process_id, struct launches *launches, error_info *err)
{
    launches->count = 0;
    launches->complete = launches->every_call = launches->read_error = 0;
    struct loading loading = {.launches = launches, .sorted = 1};
    int walked = store_each_correlated_call(db, process_id, hold_call, &loading);
    if (walked == 2)
        return error_set(err, "out of memory");
    launches->complete = walked == 0;
    if (walked < 0) {
        launches->read_error = 1;
        launches->count = 0;
    }
    if (launches->complete)
        launches->every_call = !store_calls_any_uncorrelated(db, process_id);
    /* A scan of the table: in the order written, nearly that of the ids. */
    if (!loading.sorted && put_in_order(launches) != 0)
        return error_set(err, "out of memory");
    return 0;
}

/* The place of the first call with an id at or after correlation_id (count when none), looked for
 * first among the few places from near on: the ids an idle walk asks for rise by a call or two at
 * a time. near past the end: a binary search alone. */
static size_t first_place(const struct launches *launches, int64_t correlation_id, size_t near)
{
    const struct thread_call *calls = launches->calls;
    if (near <= launches->count && (near == 0 || calls[near - 1].correlation_id < correlation_id))
        for (size_t i = near; i <= launches->count && i < near + 8; i++)
            if (i == launches->count || calls[i].correlation_id >= correlation_id)
                return i;
    size_t low = 0, high = launches->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (calls[middle].correlation_id < correlation_id)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

const struct thread_call *launches_find(const struct launches *launches, int64_t correlation_id)
{
    size_t low = first_place(launches, correlation_id, SIZE_MAX);
    return low < launches->count && launches->calls[low].correlation_id == correlation_id
               ? &launches->calls[low]
               : NULL;
}

void launches_free(struct launches *launches)
{
    free(launches->calls);
    free(launches->origins);
    *launches = (struct launches){0};
}

const struct thread_call *launches_find_earliest(const struct launches *launches, int64_t correlation_id,
                                                 size_t *near)
{
    size_t place = first_place(launches, correlation_id, *near);
    *near = place;
    const struct thread_call *earliest = NULL;
    for (size_t i = place; i < launches->count && launches->calls[i].correlation_id == correlation_id; i++)
        if (!earliest || launches->calls[i].start_ns < earliest->start_ns)
            earliest = &launches->calls[i];
    return earliest;
}
