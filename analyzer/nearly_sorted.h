/* nearly_sorted.h: sorting arrays made of a few long sorted runs. The host calls of a recording
 * come in the order CUPTI wrote them: each thread's buffer of calls in turn, so the process's calls
 * by correlation id are a few dozen runs that interleave in blocks (a ResNet-50 recording: 55 runs
 * in 213,677 calls), and one thread's calls by start time one run or nearly; a comparison sort
 * still pays n log n comparisons for them (qsort was 4% of `report`'s instructions on that trace).
 */
#ifndef OVERLAPSCOPE_NEARLY_SORTED_H
#define OVERLAPSCOPE_NEARLY_SORTED_H

#include <stddef.h>

/* Sorts count elements of size bytes at base into compare's order, stably (ties keep their order),
 * by merging the runs they arrive in: about two comparisons per element to find the runs (none to
 * move when there is one), then per block of a run that goes before the next of any other, a few
 * comparisons and a memcpy. Input in no order costs about what a heap sort does. Memory: a copy of
 * the array while it runs (qsort's own merge sort takes one too); when that cannot be had, qsort. */
void nearly_sorted_sort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *));

#endif
