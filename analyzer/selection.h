/* selection.h: the part of the timeline an analysis measures (a --window, the GPU time of NVTX
 * ranges named by --range, or one --step), as a sorted list of disjoint intervals, and the
 * "selected clock": C(t) = how much selected time lies before t. The sweep measures every duration
 * as C(b) - C(a), so one code path serves an unrestricted run (C(t) = t), a window and a set of
 * ranges. Queries at increasing times are answered in amortized O(1) through a cursor. */
#ifndef OVERLAPSCOPE_SELECTION_H
#define OVERLAPSCOPE_SELECTION_H

#include <stddef.h>
#include <stdint.h>

struct selection_interval {
    int64_t start_ns, end_ns;
};

struct selection {
    int everything;                       /* 1: no restriction */
    struct selection_interval *intervals; /* sorted, disjoint, non-empty; owned */
    size_t count, capacity;
    int64_t *cumulative_ns; /* selected time before intervals[i] */
    size_t cursor;          /* first interval whose end is after the last query */
};

void selection_init_everything(struct selection *selection);
void selection_init_empty(struct selection *selection);
/* Adds [start, end) (ignored when empty). Returns 0 or -1 when out of memory. */
int selection_add(struct selection *selection, int64_t start_ns, int64_t end_ns);
/* Sorts and merges what was added; must be called before any query. Returns 0 or -1. */
int selection_finish(struct selection *selection);
void selection_free(struct selection *selection);

/* Restarts the cursor (a new sweep over another device). */
void selection_rewind(struct selection *selection);
/* C(t). Calls must come at non-decreasing t between rewinds for O(1) amortized; earlier t works
 * too (binary search). */
int64_t selection_clock(struct selection *selection, int64_t time_ns);
/* Whether t is selected. */
int selection_contains(struct selection *selection, int64_t time_ns);
/* Whether [start, end] meets the selection (a zero-length interval counts when its point does). */
int selection_overlaps(const struct selection *selection, int64_t start_ns, int64_t end_ns);
/* The first selected time >= t, and the last selected time <= t; t itself when everything. */
int64_t selection_clip_start(const struct selection *selection, int64_t time_ns);
int64_t selection_clip_end(const struct selection *selection, int64_t time_ns);
/* First and last selected instants; INT64_MIN/INT64_MAX when everything. */
int64_t selection_first_ns(const struct selection *selection);
int64_t selection_last_ns(const struct selection *selection);

#endif
