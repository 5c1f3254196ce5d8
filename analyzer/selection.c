/* selection.c: see selection.h. */
#include "selection.h"

#include <stdlib.h>

void selection_init_everything(struct selection *selection)
{
    *selection = (struct selection){.everything = 1};
}

void selection_init_empty(struct selection *selection)
{
    *selection = (struct selection){.everything = 0};
}

int selection_add(struct selection *selection, int64_t start_ns, int64_t end_ns)
{
    if (end_ns <= start_ns)
        return 0;
    if (selection->count == selection->capacity) {
        size_t capacity = selection->capacity ? selection->capacity * 2 : 16;
        struct selection_interval *grown = realloc(selection->intervals, capacity * sizeof *grown);
        if (!grown)
            return -1;
        selection->intervals = grown;
        selection->capacity = capacity;
    }
    selection->intervals[selection->count++] = (struct selection_interval){start_ns, end_ns};
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct selection_interval *x = a, *y = b;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

int selection_finish(struct selection *selection)
{
    if (selection->everything)
        return 0;
    if (selection->count > 1)
        qsort(selection->intervals, selection->count, sizeof *selection->intervals, by_start);
    size_t merged = 0;
    for (size_t i = 0; i < selection->count; i++) {
        struct selection_interval next = selection->intervals[i];
        if (merged > 0 && next.start_ns <= selection->intervals[merged - 1].end_ns) {
            if (next.end_ns > selection->intervals[merged - 1].end_ns)
                selection->intervals[merged - 1].end_ns = next.end_ns;
        } else {
            selection->intervals[merged++] = next;
        }
    }
    selection->count = merged;
    free(selection->cumulative_ns);
    selection->cumulative_ns = malloc((merged ? merged : 1) * sizeof *selection->cumulative_ns);
    if (!selection->cumulative_ns)
        return -1;
    int64_t total = 0;
    for (size_t i = 0; i < merged; i++) {
        selection->cumulative_ns[i] = total;
        total += selection->intervals[i].end_ns - selection->intervals[i].start_ns;
    }
    selection->cursor = 0;
    return 0;
}

void selection_free(struct selection *selection)
{
    free(selection->intervals);
    free(selection->cumulative_ns);
    *selection = (struct selection){0};
}

void selection_rewind(struct selection *selection)
{
    selection->cursor = 0;
}

/* Index of the first interval whose end is > t (count when none). */
static size_t first_ending_after(const struct selection *selection, int64_t time_ns)
{
    size_t low = 0, high = selection->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (selection->intervals[middle].end_ns > time_ns)
            high = middle;
        else
            low = middle + 1;
    }
    return low;
}

static size_t locate(struct selection *selection, int64_t time_ns)
{
    size_t i = selection->cursor;
    if (i > 0 && i <= selection->count && selection->intervals[i - 1].end_ns > time_ns)
        i = first_ending_after(selection, time_ns); /* went back in time */
    while (i < selection->count && selection->intervals[i].end_ns <= time_ns)
        i++;
    selection->cursor = i;
    return i;
}

int64_t selection_clock(struct selection *selection, int64_t time_ns)
{
    if (selection->everything)
        return time_ns;
    size_t i = locate(selection, time_ns);
    if (i == selection->count) {
        if (i == 0)
            return 0;
        const struct selection_interval *last = &selection->intervals[i - 1];
        return selection->cumulative_ns[i - 1] + (last->end_ns - last->start_ns);
    }
    const struct selection_interval *here = &selection->intervals[i];
    int64_t inside = time_ns > here->start_ns ? time_ns - here->start_ns : 0;
    return selection->cumulative_ns[i] + inside;
}

int selection_contains(struct selection *selection, int64_t time_ns)
{
    if (selection->everything)
        return 1;
    size_t i = locate(selection, time_ns);
    return i < selection->count && selection->intervals[i].start_ns <= time_ns;
}

int selection_overlaps(const struct selection *selection, int64_t start_ns, int64_t end_ns)
{
    if (selection->everything)
        return 1;
    size_t i = first_ending_after(selection, start_ns);
    if (i == selection->count)
        return 0;
    const struct selection_interval *here = &selection->intervals[i];
    return end_ns > start_ns ? here->start_ns < end_ns : here->start_ns <= start_ns;
}

int64_t selection_clip_start(const struct selection *selection, int64_t time_ns)
{
    if (selection->everything)
        return time_ns;
    size_t i = first_ending_after(selection, time_ns);
    if (i == selection->count)
        return time_ns;
    return time_ns > selection->intervals[i].start_ns ? time_ns : selection->intervals[i].start_ns;
}

int64_t selection_clip_end(const struct selection *selection, int64_t time_ns)
{
    if (selection->everything)
        return time_ns;
    size_t i = first_ending_after(selection, time_ns);
    if (i < selection->count && selection->intervals[i].start_ns <= time_ns)
        return time_ns;
    return i > 0 ? selection->intervals[i - 1].end_ns : time_ns;
}

int64_t selection_first_ns(const struct selection *selection)
{
    return selection->everything || selection->count == 0 ? INT64_MIN : selection->intervals[0].start_ns;
}

int64_t selection_last_ns(const struct selection *selection)
{
    return selection->everything || selection->count == 0 ? INT64_MAX
                                                          : selection->intervals[selection->count - 1].end_ns;
}
