/* nearly_sorted.c: see nearly_sorted.h. The input's ascending runs are merged all at once: a heap
 * of the runs by their next element says which run goes next, and how much of it goes before the
 * next of any other run is found by doubling steps, then halving (galloping, as in Python's list
 * sort): runs that interleave in long blocks cost a few comparisons per block and a memcpy of it. */
#include "nearly_sorted.h"

#include <stdlib.h>
#include <string.h>

typedef int (*comparison)(const void *, const void *);

struct run {
    const char *next; /* its next element */
    size_t left;      /* elements left */
};

/* How many of the first elements of run (count, sorted) go before key: those compare puts before
 * it, or at it too when ties_first. */
static size_t count_before(const char *run, size_t count, const char *key, size_t size, comparison compare,
                           int ties_first)
{
    size_t low = 0, high = 1; /* run[low - 1] goes before key (or low is 0); run[high - 1] is looked at */
    while (high <= count) {
        int order = compare(run + (high - 1) * size, key);
        if (ties_first ? order > 0 : order >= 0)
            break;
        low = high;
        high = high * 2 + 1;
    }
    size_t last = high <= count ? high - 1 : count; /* the first that does not go before is in [low, last] */
    while (low < last) {
        size_t middle = low + (last - low) / 2;
        int order = compare(run + middle * size, key);
        if (ties_first ? order > 0 : order >= 0)
            last = middle;
        else
            low = middle + 1;
    }
    return low;
}

/* Whether run a's next element goes before run b's (runs earlier in the input first on ties). */
static int before(const struct run *runs, size_t a, size_t b, comparison compare)
{
    int order = compare(runs[a].next, runs[b].next);
    return order < 0 || (order == 0 && a < b);
}

static void sift_down(size_t *heap, size_t count, size_t at, const struct run *runs, comparison compare)
{
    for (;;) {
        size_t least = at, left = 2 * at + 1, right = left + 1;
        if (left < count && before(runs, heap[left], heap[least], compare))
            least = left;
        if (right < count && before(runs, heap[right], heap[least], compare))
            least = right;
        if (least == at)
            return;
        size_t swap = heap[at];
        heap[at] = heap[least];
        heap[least] = swap;
        at = least;
    }
}

/* Merges runs (count of them, each not empty) into to. */
static void merge_runs(struct run *runs, size_t count, char *to, size_t size, comparison compare)
{
    size_t *heap = (size_t *)(runs + count); /* the caller's allocation holds both */
    for (size_t r = 0; r < count; r++)
        heap[r] = r;
    for (size_t at = count / 2; at-- > 0;)
        sift_down(heap, count, at, runs, compare);
    while (count > 1) {
        struct run *first = &runs[heap[0]];
        size_t second = count > 2 && before(runs, heap[2], heap[1], compare) ? heap[2] : heap[1];
        size_t take =
            count_before(first->next, first->left, runs[second].next, size, compare, heap[0] < second);
        memcpy(to, first->next, take * size);
        to += take * size;
        first->next += take * size;
        first->left -= take;
        if (first->left == 0)
            heap[0] = heap[--count];
        sift_down(heap, count, 0, runs, compare);
    }
    memcpy(to, runs[heap[0]].next, runs[heap[0]].left * size);
}

void nearly_sorted_sort(void *base, size_t count, size_t size, comparison compare)
{
    char *items = base;
    size_t run_count = 0;
    for (size_t i = 1; i < count; i++)
        run_count += compare(items + (i - 1) * size, items + i * size) > 0;
    if (run_count++ == 0)
        return;
    struct run *runs = malloc(run_count * (sizeof *runs + sizeof(size_t)));
    char *merged = malloc(count * size);
    if (!runs || !merged) {
        free(runs);
        free(merged);
        qsort(base, count, size, compare);
        return;
    }
    size_t r = 0;
    for (size_t i = 0; i < count; i++) {
        if (i > 0 && compare(items + (i - 1) * size, items + i * size) <= 0) {
            runs[r - 1].left++;
            continue;
        }
        runs[r++] = (struct run){items + i * size, 1};
    }
    merge_runs(runs, run_count, merged, size, compare);
    memcpy(items, merged, count * size);
    free(merged);
    free(runs);
}
