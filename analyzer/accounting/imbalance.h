/* imbalance.h: load imbalance across ranks (issue 32 item 3, docs/metrics.md "Load imbalance").
 *
 * Ranks that meet at collectives run in lockstep: each step lasts as long as its slowest rank. When
 * one rank's GPU computes markedly more than the others', the others wait for it at every
 * collective, and the cause is the work's split, not anything that rank's host did. The rule reads
 * the devices' compute time (kernels that are not collectives, their union: the ledger's books)
 * per rank. */
#ifndef OVERLAPSCOPE_IMBALANCE_H
#define OVERLAPSCOPE_IMBALANCE_H

#include "analysis.h"

/* A rank is imbalanced when its GPU computed at least this many times the other ranks' mean. */
#define IMBALANCE_MIN_RATIO 1.2

/* The rank whose GPU computed the most, against the others. */
struct imbalance {
    int64_t rank;            /* -1: fewer than two ranks with compute */
    int found;               /* rank computed at least IMBALANCE_MIN_RATIO x the others' mean */
    int64_t compute_ns;      /* its compute time */
    int64_t peer_compute_ns; /* the other ranks' mean */
    int64_t mean_compute_ns; /* every rank's mean: what each would compute balanced */
    int64_t peer_count;      /* the other ranks */
    int64_t peer_rank;       /* the other rank when there is one, else -1 */
    int64_t steps;           /* steps of every rank when all have the same number, else 0 */
};

struct ledger;
/* Fills out from the ledger's books (every rank's, the peers of a --rank selection too) and
 * result's steps. Returns 0, or -1 when out of memory. */
int imbalance_find(const struct ledger *ledger, const struct analysis_result *result, struct imbalance *out);

/* "its GPU computed 1.50x rank 0's per step (11.1 ms against 7.41 ms of compute)": the figures of
 * a found imbalance as one clause, for the straggler's and the cause's evidence. */
void imbalance_describe(const struct imbalance *imbalance, char *text, size_t size);

#endif
