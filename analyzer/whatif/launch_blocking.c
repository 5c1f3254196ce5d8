/* launch_blocking.c: see launch_blocking.h. Without CUDA_LAUNCH_BLOCKING a launch call returns
 * once the launch is queued, so the replay takes a blocked call's time down to the normal latency
 * and moves the thread's later calls and launches earlier by the rest (host_time.c's removal). */
#include "launch_blocking.h"

#include <stdlib.h>

#include "store.h"

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The call of correlation_id (calls are sorted by correlation id), or NULL. */
static struct host_call *call_of(struct replay *replay, int64_t correlation_id)
{
    size_t low = 0, high = replay->call_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (replay->calls[middle].correlation_id < correlation_id)
            low = middle + 1;
        else
            high = middle;
    }
    return low < replay->call_count && replay->calls[low].correlation_id == correlation_id
               ? &replay->calls[low]
               : NULL;
}

void launch_blocking_mark(struct replay *replay)
{
    replay->launch_reference_ns = WHATIF_LAUNCH_REFERENCE_NS;
    /* The normal calls' durations; without memory the reference stays the documented one. */
    int64_t *normal = malloc((replay->op_count + 1) * sizeof *normal);
    size_t normal_count = 0;
    for (size_t i = 0; i < replay->op_count; i++) {
        const struct replay_op *op = &replay->ops[i];
        int64_t launch_ns = replay_launch_ns(replay, op), launch_end_ns = replay_launch_end_ns(replay, op);
        if (launch_ns == STORE_NULL || op->correlation_id == STORE_NULL)
            continue;
        struct host_call *call = call_of(replay, op->correlation_id);
        if (!call || !(call->kind & CALL_LAUNCH))
            continue;
        if (launch_end_ns >= op->start_ns + op->duration_ns)
            call->kind |= CALL_BLOCKED_LAUNCH;
        else if (normal)
            normal[normal_count++] = launch_end_ns - launch_ns;
    }
    if (normal && normal_count > 0) {
        qsort(normal, normal_count, sizeof *normal, by_value);
        replay->launch_reference_ns = normal[normal_count / 2];
    }
    free(normal);
}

int64_t launch_blocking_removed_ns(const struct replay *replay, const struct host_call *call)
{
    if (!(call->kind & CALL_BLOCKED_LAUNCH))
        return 0;
    int64_t excess = call->end_ns - call->start_ns - replay->launch_reference_ns;
    return excess > 0 ? excess : 0;
}
