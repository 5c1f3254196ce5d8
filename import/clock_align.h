/* clock_align.h: estimating the offset between the clocks of two hosts from the NCCL
 * collectives both traces hold.
 *
 * A collective completes at nearly the same moment on every rank of its communicator: no rank can
 * finish an AllReduce before the last rank's data arrived, and all leave within a few
 * microseconds of one another. So the ends of the same collective seen on two hosts differ by the
 * hosts' clock offset plus that small spread. Collectives are matched by communicator and
 * sequence number when both traces carry them, else by their order within the communicator (the
 * k-th collective on one host is the k-th on the other, and must be the same op). Method and
 * error bound: docs/clock-alignment.md. */
#ifndef OVERLAPSCOPE_CLOCK_ALIGN_H
#define OVERLAPSCOPE_CLOCK_ALIGN_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct clock_alignment {
    int64_t offset_ns; /* add to the other trace's times to express them on the reference clock */
    int64_t bound_ns;  /* largest distance of a matched difference from the median; -1 without matches */
    int64_t matches;   /* collective pairs the estimate rests on */
    int by_sequence;   /* 1 when matched by sequence numbers, 0 by order */
};

/* Estimates how other's clock relates to reference's. With no matching collective, offset 0,
 * bound -1, matches 0. Returns 0, or -1 with err filled when a database cannot be read. */
int clock_align_estimate(sqlite3 *reference, sqlite3 *other, struct clock_alignment *result, error_info *err);

/* The median of count values (sorted in place); 0 when count is 0. */
int64_t clock_align_median(int64_t *values, size_t count);

#endif
