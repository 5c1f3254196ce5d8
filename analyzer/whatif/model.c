/* model.c: the lookups every module of the what-if replay shares on its model (model.h), and the
 * model's freeing. */
#include <stdlib.h>

#include "model.h"
#include "store.h"
#include "whatif.h"

_Static_assert(sizeof(struct replay_op) == 104, "a replay holds one per operation: keep it at 104 bytes");
_Static_assert(WHATIF_MAX_OPS < (1u << 24) && ANALYSIS_CATEGORY_COUNT <= 32,
               "replay_op's bit fields hold a stream index and a category");

int replay_grow(void **items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 0;
    size_t next = *capacity ? *capacity * 2 : 256;
    void *grown = realloc(*items, next * size);
    if (!grown)
        return -1;
    *items = grown;
    *capacity = next;
    return 0;
}

int replay_by_correlation(const void *a, const void *b)
{
    const struct host_call *x = a, *y = b;
    return (x->correlation_id > y->correlation_id) - (x->correlation_id < y->correlation_id);
}

const struct host_call *replay_call_of(const struct replay *replay, int64_t correlation_id)
{
    struct host_call key = {.correlation_id = correlation_id};
    if (correlation_id == STORE_NULL || replay->call_count == 0)
        return NULL;
    return bsearch(&key, replay->calls, replay->call_count, sizeof key, replay_by_correlation);
}

size_t replay_launched_before(const struct replay *replay, const replay_index *order, int64_t correlation_id)
{
    size_t low = 0, high = replay->op_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (replay->ops[order[middle]].correlation_id < correlation_id)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

void replay_free_ops(struct replay *replay)
{
    free(replay->ops);
    free(replay->edges);
    free(replay->stream_ops);
    free(replay->stream_first);
    free(replay->stream_legacy);
    free(replay->launch_order);
}

void replay_free(struct replay *replay)
{
    replay_free_ops(replay);
    free(replay->calls);
    free(replay->call_order);
    free(replay->graph_gap_ns);
    free(replay->graph_gap_work_ns);
    free(replay->wrapper_ns);
    free(replay->op_removed_at);
    free(replay->host_removed);
}
