/* analysis_share.c: the devices' walks shared among processes (analysis_share in analysis.h):
 * this process walks its block of devices, as a worker of the pool would (analysis_pool.c), and
 * hands their fragments, as bytes (fragment_wire.h), to the share's exchange; process 0 gets every
 * process's back and merges them in device order, so that the run after the merge is the one a
 * single process would have. */
#include <stdlib.h>

#include "analysis_parts.h"
#include "fragment_wire.h"

/* A fragment that carries only err: a process that could not walk says why to process 0. */
static int put_failure(struct fragment_wire *wire, const error_info *err)
{
    struct device_fragment failed = {.status = -1, .err = *err};
    return fragment_wire_begin(wire, 1) == 0 && fragment_wire_put(wire, &failed) == 0 ? 0 : -1;
}

/* This process's devices [first, end) walked into wire. Returns 0, or -1 when out of memory. */
static int walk_block(struct run *run, const struct store_gpu_device *keys, size_t first, size_t end,
                      struct fragment_wire *wire)
{
    error_info err;
    struct analysis_walker walker;
    if (analysis_walker_init(&walker, run->trace, run, &err) != 0)
        return put_failure(wire, &err);
    int status = fragment_wire_begin(wire, end - first);
    for (size_t i = first; status == 0 && i < end; i++) {
        struct device_fragment fragment;
        /* as a pool's worker: the exposed-copy intervals before it are not known here (the merge
         * sees when that mattered: run.inexact) */
        analysis_walk_device(&walker, keys[i], analysis_device_shown(&run->options, keys[i]), 0, &fragment);
        status = fragment_wire_put(wire, &fragment);
        device_fragment_free(&fragment);
    }
    analysis_walker_free(&walker);
    return status;
}

/* Merges every process's fragments, in process order, into the run. Returns 0 or -1. */
static int merge_gathered(struct run *run, const unsigned char *bytes, size_t size, size_t device_count)
{
    size_t offset = 0, merged = 0;
    while (offset < size) {
        size_t count;
        if (fragment_wire_open(bytes, size, &offset, &count, run->err) != 0)
            return -1;
        for (size_t i = 0; i < count; i++) {
            struct device_fragment fragment;
            int status = fragment_wire_get(bytes, size, &offset, &fragment, run->err);
            if (status == 0)
                status = analysis_merge_device(run, &fragment);
            device_fragment_free(&fragment);
            if (status != 0 || run->inexact)
                return status;
            merged++;
        }
    }
    if (merged != device_count)
        return error_set(run->err, "the processes sent %zu devices' fragments, not the trace's %zu", merged,
                         device_count);
    return 0;
}

int analysis_share_run(struct run *run, const struct store_gpu_device *keys, size_t count)
{
    struct analysis_share *share = run->options.share;
    size_t index = (size_t)share->index, processes = (size_t)share->count;
    size_t first = count * index / processes, end = count * (index + 1) / processes;
    struct fragment_wire wire = {0};
    if (walk_block(run, keys, first, end, &wire) != 0) {
        free(wire.bytes);
        wire = (struct fragment_wire){0};
        error_info err;
        error_set(&err, "out of memory");
        if (put_failure(&wire, &err) != 0) {
            free(wire.bytes);
            return error_set(run->err, "out of memory");
        }
    }
    unsigned char *gathered = NULL;
    size_t gathered_size = 0;
    int status = share->exchange(share->context, wire.bytes, wire.size, &gathered, &gathered_size, run->err);
    free(wire.bytes);
    if (status == 0 && index != 0) {
        share->sent = 1;
        free(gathered);
        return 2;
    }
    if (status == 0)
        status = merge_gathered(run, gathered, gathered_size, count);
    free(gathered);
    return status;
}
