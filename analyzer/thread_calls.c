/* thread_calls.c: see thread_calls.h. */
#include "thread_calls.h"

#include <stdint.h>
#include <stdlib.h>

#include "nearly_sorted.h"
#include "queries_calls.h"
#include "store.h"

struct held_thread {
    int64_t process_id, thread_id;
    struct thread_call *calls; /* NULL with held 1: not held (too many, or unreadable) */
    size_t count;
    int held;
    int lent;      /* calls are the launches' (load_from_launches), not this struct's to free */
    uint64_t used; /* when last asked for: the least recent slot is replaced */
};

struct thread_calls {
    store_calls *rows;
    kernel_names *names; /* the names by id (the analysis's one cache) */
    struct held_thread threads[THREAD_CALLS_THREADS];
    uint64_t clock;
};

thread_calls *thread_calls_new(sqlite3 *db, kernel_names *names)
{
    thread_calls *calls = calloc(1, sizeof *calls);
    if (!calls)
        return NULL;
    calls->names = names;
    /* The same rows, columns and index order as the idle accounting's (store/queries_idle.h). */
    calls->rows = store_calls_open(db, NULL);
    if (!calls->rows) {
        thread_calls_free(calls);
        return NULL;
    }
    return calls;
}

static void free_held(struct held_thread *thread)
{
    if (!thread->lent)
        free(thread->calls);
}

void thread_calls_free(thread_calls *calls)
{
    if (!calls)
        return;
    store_calls_close(calls->rows);
    for (size_t i = 0; i < THREAD_CALLS_THREADS; i++)
        free_held(&calls->threads[i]);
    free(calls);
}

void thread_calls_release(thread_calls *calls)
{
    if (!calls)
        return;
    for (size_t i = 0; i < THREAD_CALLS_THREADS; i++) {
        free_held(&calls->threads[i]);
        calls->threads[i] = (struct held_thread){0};
    }
}

/* Holds one call of the thread being loaded (store_calls_of_thread's visit); stops at
 * THREAD_CALLS_MAX or when out of memory, and the thread is then not held. */
struct loading {
    struct held_thread *thread;
    size_t capacity;
};

static int hold_call(void *context, const struct store_thread_call *row)
{
    struct loading *loading = context;
    struct held_thread *thread = loading->thread;
    if (thread->count == THREAD_CALLS_MAX)
        return 1;
    if (thread->count == loading->capacity) {
        size_t grown_capacity = loading->capacity ? loading->capacity * 2 : 1024;
        struct thread_call *grown = realloc(thread->calls, grown_capacity * sizeof *grown);
        if (!grown)
            return 1;
        thread->calls = grown;
        loading->capacity = grown_capacity;
    }
    thread->calls[thread->count++] = (struct thread_call){.start_ns = row->start_ns,
                                                          .end_ns = row->end_ns,
                                                          .correlation_id = row->correlation_id,
                                                          .name_id = row->name_id,
                                                          .api_domain = thread_call_domain(row->api_domain),
                                                          .has_name = row->has_name};
    return 0;
}

static void load(thread_calls *calls, struct held_thread *thread)
{
    struct loading loading = {.thread = thread};
    if (store_calls_of_thread(calls->rows, thread->process_id, thread->thread_id, hold_call, &loading)) {
        free(thread->calls); /* cut short: the store's queries see every row */
        thread->calls = NULL;
        thread->count = 0;
    }
}

/* A thread's call with the row it came from, ordered as the store's (process_id, thread_id,
 * start_ns) index orders them: by start, then rowid. */
struct ranked_call {
    struct thread_call call;
    int64_t rowid;
};

static int by_start_then_rowid(const void *a, const void *b)
{
    const struct ranked_call *x = a, *y = b;
    if (x->call.start_ns != y->call.start_ns)
        return x->call.start_ns < y->call.start_ns ? -1 : 1;
    return (x->rowid > y->rowid) - (x->rowid < y->rowid);
}

/* The thread's calls ranked by start and rowid into thread->calls (count of them). Returns 0, or -1
 * when out of memory. */
static int rank_calls(struct held_thread *thread, const struct launches *launches, size_t count)
{
    struct ranked_call *ranked = malloc((count ? count : 1) * sizeof *ranked);
    if (!ranked)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < launches->count; i++)
        if (launches->origins[i].thread_id == thread->thread_id)
            ranked[n++] = (struct ranked_call){launches->calls[i], launches->origins[i].rowid};
    nearly_sorted_sort(ranked, n, sizeof *ranked, by_start_then_rowid);
    for (size_t i = 0; i < n; i++)
        thread->calls[i] = ranked[i].call;
    free(ranked);
    return 0;
}

/* load()'s rows from launches (every_call): the thread's calls sorted as its query returns them.
 * launches are in correlation order, which on one thread is nearly, often exactly, start order:
 * the calls go straight into place, and are ranked and sorted only when two are out of order. A
 * thread that made every call of the process in start order has the launches' array lent: on a
 * process of one thread a copy beside it was 48 bytes per GPU operation at the walk's peak. */
static void load_from_launches(struct held_thread *thread, const struct launches *launches)
{
    size_t count = 0, previous = SIZE_MAX;
    int in_order = 1;
    const struct thread_call *calls = launches->calls;
    for (size_t i = 0; i < launches->count; i++) {
        if (launches->origins[i].thread_id != thread->thread_id)
            continue;
        count++;
        in_order &= previous == SIZE_MAX || calls[previous].start_ns < calls[i].start_ns ||
                    (calls[previous].start_ns == calls[i].start_ns &&
                     launches->origins[previous].rowid <= launches->origins[i].rowid);
        previous = i;
    }
    if (count > THREAD_CALLS_MAX)
        return; /* the query stops there and the thread is not held: the store serves it */
    if (in_order && count == launches->count && count > 0) {
        thread->calls = launches->calls;
        thread->lent = 1;
        thread->count = count;
        return;
    }
    thread->calls = malloc((count ? count : 1) * sizeof *thread->calls);
    if (!thread->calls)
        return;
    if (!in_order) {
        if (rank_calls(thread, launches, count) != 0) {
            free(thread->calls);
            thread->calls = NULL;
            return;
        }
    } else {
        size_t n = 0;
        for (size_t i = 0; i < launches->count; i++)
            if (launches->origins[i].thread_id == thread->thread_id)
                thread->calls[n++] = launches->calls[i];
    }
    thread->count = count;
}

const struct thread_call *thread_calls_of(thread_calls *calls, int64_t process_id, int64_t thread_id,
                                          const struct launches *launches, size_t *count)
{
    struct held_thread *slot = &calls->threads[0];
    for (size_t i = 0; i < THREAD_CALLS_THREADS; i++) {
        struct held_thread *thread = &calls->threads[i];
        if (thread->held && thread->process_id == process_id && thread->thread_id == thread_id) {
            slot = thread;
            goto found;
        }
        if (!thread->held || thread->used < slot->used)
            slot = thread;
    }
    free_held(slot);
    *slot = (struct held_thread){.process_id = process_id, .thread_id = thread_id, .held = 1};
    if (launches && launches->every_call)
        load_from_launches(slot, launches);
    else
        load(calls, slot);
found:
    slot->used = ++calls->clock;
    *count = slot->count;
    return slot->calls;
}

size_t thread_calls_first_from(const struct thread_call *calls, size_t count, int64_t time_ns, size_t near)
{
    /* The answer lies in [low, high]: found by doubling steps away from near, then halving. */
    size_t low = 0, high = count;
    if (near > count)
        near = count;
    if (near < count && calls[near].start_ns < time_ns) {
        size_t step = 1;
        low = near + 1;
        while (low < count && calls[low].start_ns < time_ns) {
            near = low;
            low = step < count - low ? low + step : count;
            step *= 2;
        }
        high = low;
        low = near + 1;
    } else if (near > 0 && calls[near - 1].start_ns >= time_ns) {
        size_t step = 1;
        high = near - 1;
        while (high > 0 && calls[high - 1].start_ns >= time_ns) {
            near = high;
            high = step < high ? high - step : 0;
            step *= 2;
        }
        low = high;
        high = near - 1;
    } else {
        return near;
    }
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (calls[middle].start_ns < time_ns)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

const char *thread_calls_name(thread_calls *calls, const struct thread_call *call)
{
    return call->has_name ? kernel_names_text(calls->names, call->name_id) : NULL;
}
