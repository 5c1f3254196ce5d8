/* imbalance.c: load imbalance across ranks (imbalance.h). */
#include <stdio.h>
#include <stdlib.h>

#include "imbalance.h"
#include "ledger.h"
#include "units.h"

struct rank_work {
    int64_t rank, compute_ns, steps;
};

static struct rank_work *work_of(struct rank_work *ranks, size_t *count, int64_t rank)
{
    for (size_t i = 0; i < *count; i++)
        if (ranks[i].rank == rank)
            return &ranks[i];
    ranks[*count] = (struct rank_work){.rank = rank};
    return &ranks[(*count)++];
}

int imbalance_find(const struct ledger *ledger, const struct analysis_result *result, struct imbalance *out)
{
    *out = (struct imbalance){.rank = -1, .peer_rank = -1};
    if (ledger->book_count < 2)
        return 0;
    struct rank_work *ranks = calloc(ledger->book_count, sizeof *ranks);
    if (!ranks)
        return -1;
    size_t count = 0;
    for (size_t b = 0; b < ledger->book_count; b++)
        if (ledger->books[b].rank >= 0)
            work_of(ranks, &count, ledger->books[b].rank)->compute_ns += ledger->books[b].compute_ns;
    for (size_t s = 0; s < result->step_count; s++)
        for (size_t i = 0; i < count; i++)
            ranks[i].steps += ranks[i].rank == result->steps[s].rank;
    struct rank_work *most = NULL;
    int64_t total = 0;
    int same_steps = 1;
    for (size_t i = 0; i < count; i++) {
        total += ranks[i].compute_ns;
        same_steps &= ranks[i].steps == ranks[0].steps;
        if (!most || ranks[i].compute_ns > most->compute_ns)
            most = &ranks[i];
    }
    if (count >= 2 && most->compute_ns > 0) {
        int64_t peers = (total - most->compute_ns) / (int64_t)(count - 1);
        *out = (struct imbalance){
            .rank = most->rank,
            .found = (double)most->compute_ns >= IMBALANCE_MIN_RATIO * (double)peers,
            .compute_ns = most->compute_ns,
            .peer_compute_ns = peers,
            .mean_compute_ns = total / (int64_t)count,
            .peer_count = (int64_t)count - 1,
            .peer_rank = count == 2 ? ranks[most == &ranks[0] ? 1 : 0].rank : -1,
            .steps = same_steps ? ranks[0].steps : 0,
        };
    }
    free(ranks);
    return 0;
}

void imbalance_describe(const struct imbalance *imbalance, char *text, size_t size)
{
    int64_t per = imbalance->steps > 0 ? imbalance->steps : 1;
    char mine[32], theirs[32], whom[48];
    units_format_duration(mine, sizeof mine, imbalance->compute_ns / per);
    units_format_duration(theirs, sizeof theirs, imbalance->peer_compute_ns / per);
    if (imbalance->peer_rank >= 0)
        snprintf(whom, sizeof whom, "rank %lld's", (long long)imbalance->peer_rank);
    else
        snprintf(whom, sizeof whom, "the other %lld ranks' mean", (long long)imbalance->peer_count);
    double ratio = imbalance->peer_compute_ns > 0
                       ? (double)imbalance->compute_ns / (double)imbalance->peer_compute_ns
                       : 0.0;
    snprintf(text, size, "its GPU computed %.2fx %s%s (%s against %s of compute kernels)", ratio, whom,
             imbalance->steps > 0 ? " per step" : "", mine, theirs);
}
