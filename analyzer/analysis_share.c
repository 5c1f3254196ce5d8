/* analysis_share.c: the devices' walks shared among processes (analysis_share in analysis.h):
 * first the set-up every process needs (the steps of every process and the trace's GPU span, for
 * the steady window), each process reading those of its own block of devices and all of them
 * exchanged (share_all); then each process walks its block of devices, as a worker of the pool
 * would (analysis_pool.c). Process 0 merges its own as it walks them (they come first in device
 * order); the others encode their fragments as bytes (fragment_wire.h), with only the accounting
 * intervals the merge keeps, and send them; process 0 receives and merges them one process at a
 * time in device order, so that the run after the merge is the one a single process would have. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_parts.h"
#include "describe.h"
#include "fragment_wire.h"
#include "steps.h"

/* This process's block of count devices: [*first, *end). */
static void block_of(const struct analysis_share *share, size_t count, size_t *first, size_t *end)
{
    if (share->local) { /* its own devices, found by the set-up (share_devices) */
        *first = share->first;
        *end = share->end;
        return;
    }
    size_t index = (size_t)share->index, processes = (size_t)share->count;
    *first = count * index / processes;
    *end = count * (index + 1) / processes;
}

/* --- the set-up: steps and GPU span --- */

/* What a process sends of the set-up, followed by its error (failed) or its steps. The processes
 * of one job run one build (fragment_wire.h): the records travel in its layout. */
struct setup_header {
    uint64_t failed, step_count;
    int64_t span_found, span_start_ns, span_end_ns;
};

/* The processes whose steps a share reads: those of its block's devices, and on process 0 those
 * with no GPU device (their steps are the trace's too). owned: only those it sends, each process's
 * steps once: the block that holds its first device. */
struct step_share {
    const struct store_gpu_device *keys;
    size_t count, first, end;
    int first_share, owned;
    int all; /* the trace holds this process's processes alone (analysis_share.local) */
};

static int has_device(const struct step_share *share, int64_t process_id, size_t from, size_t to)
{
    while (from < to) { /* keys are sorted by process */
        size_t mid = from + (to - from) / 2;
        if (share->keys[mid].process_id < process_id)
            from = mid + 1;
        else
            to = mid;
    }
    return from < share->count && share->keys[from].process_id == process_id ? (int)from + 1 : 0;
}

static int keeps_process(void *context, int64_t process_id)
{
    const struct step_share *share = context;
    if (share->all)
        return 1;
    int at = has_device(share, process_id, 0, share->count);
    if (!at)
        return share->first_share;
    size_t first_device = (size_t)at - 1, last_device = first_device;
    while (last_device + 1 < share->count && share->keys[last_device + 1].process_id == process_id)
        last_device++;
    if (share->owned)
        return first_device >= share->first && first_device < share->end;
    return first_device < share->end && last_device >= share->first;
}

/* This process's set-up bytes: its owned processes' steps and its devices' GPU span. Returns 0,
 * or -1 when out of memory (a read error travels as the process's failure). */
static int encode_setup(struct run *run, const struct store_gpu_device *keys, size_t count, int want_span,
                        unsigned char **bytes, size_t *size)
{
    struct step_share share = {.keys = keys,
                               .count = count,
                               .first_share = run->options.share->index == 0,
                               .all = run->options.share->local};
    if (share.all)
        share.end = count; /* keys: its own devices */
    else
        block_of(run->options.share, count, &share.first, &share.end);
    struct setup_header header = {0};
    error_info err;
    struct analysis_step *steps = NULL;
    size_t step_count = 0;
    int status = steps_find_of(run->trace, NULL, keeps_process, &share, &steps, &step_count, &err);
    run->options.share->steps_read += step_count;
    share.owned = 1;
    size_t kept = 0;
    for (size_t i = 0; status == 0 && i < step_count; i++)
        if (keeps_process(&share, steps[i].process_id))
            steps[kept++] = steps[i];
    if (status == 0 && want_span) {
        header.span_found = store_gpu_devices_span(run->trace, keys + share.first, share.end - share.first,
                                                   &header.span_start_ns, &header.span_end_ns, &err);
        status = header.span_found < 0 ? -1 : 0;
        run->options.share->devices_read += share.end - share.first;
        run->options.share->devices_total +=
            run->options.share->local ? run->options.share->device_count : count;
    }
    header.failed = status != 0;
    header.step_count = status == 0 ? kept : 0;
    size_t body = header.failed ? sizeof err : kept * sizeof *steps;
    *size = sizeof header + body;
    *bytes = malloc(*size);
    if (*bytes) {
        memcpy(*bytes, &header, sizeof header);
        if (body) /* steps is NULL without steps */
            memcpy(*bytes + sizeof header, header.failed ? (const void *)&err : (const void *)steps, body);
    }
    free(steps);
    return *bytes ? 0 : -1;
}

/* Every process's set-up bytes into the run's steps (in steps_find's order) and the GPU span of
 * them all. Returns 0, or -1 with the run's err filled (a process's own error). */
static int decode_setup(struct run *run, const unsigned char *bytes, size_t size,
                        struct analysis_share_span *span)
{
    struct analysis_result *result = run->result;
    size_t offset = 0;
    *span = (struct analysis_share_span){0};
    while (offset < size) {
        struct setup_header header;
        if (size - offset < sizeof header)
            return error_set(run->err, "a process's set-up is cut short");
        memcpy(&header, bytes + offset, sizeof header);
        offset += sizeof header;
        if (header.failed) {
            if (size - offset < sizeof(error_info))
                return error_set(run->err, "a process's set-up is cut short");
            memcpy(run->err, bytes + offset, sizeof(error_info));
            run->err->message[sizeof run->err->message - 1] = '\0';
            return -1;
        }
        if (header.step_count > (size - offset) / sizeof *result->steps)
            return error_set(run->err, "a process's set-up is cut short");
        if (header.step_count) {
            struct analysis_step *grown =
                realloc(result->steps, (result->step_count + header.step_count) * sizeof *grown);
            if (!grown)
                return error_set(run->err, "out of memory");
            memcpy(grown + result->step_count, bytes + offset, header.step_count * sizeof *grown);
            result->steps = grown;
            result->step_count += header.step_count;
            offset += header.step_count * sizeof *grown;
        }
        if (header.span_found > 0) {
            span->start_ns =
                span->found && span->start_ns < header.span_start_ns ? span->start_ns : header.span_start_ns;
            span->end_ns =
                span->found && span->end_ns > header.span_end_ns ? span->end_ns : header.span_end_ns;
            span->found = 1;
        }
    }
    steps_sort(result->steps, result->step_count);
    run->options.share->steps_total += result->step_count;
    error_info ignored; /* a damaged span: the steady window is not chosen, as with one process */
    if (span->found)
        span->found = store_gpu_span_check(run->trace, span->start_ns, span->end_ns, &ignored);
    return 0;
}

void analysis_share_free(struct analysis_share *share)
{
    free(share->devices);
    share->devices = NULL;
    share->device_count = share->first = share->end = 0;
}

static int compare_devices(const struct store_gpu_device *a, const struct store_gpu_device *b)
{
    if (a->process_id != b->process_id)
        return a->process_id < b->process_id ? -1 : 1;
    return (a->device_id > b->device_id) - (a->device_id < b->device_id);
}

/* local: every process's devices (its own, keys) to every process, in process order, into
 * share->devices, each with the process that holds it and its rank; share->first and end: this
 * process's. Every process's processes follow those of the processes before it (names.h), so the
 * devices come in device order; a list out of order (rank files not imported as one folder) is
 * an error on every process alike. Returns 0, or -1 with err filled. */
static int share_devices(struct run *run, const struct store_gpu_device *keys, size_t count)
{
    struct analysis_share *share = run->options.share;
    analysis_share_free(share);
    struct analysis_share_device *mine = calloc(count ? count : 1, sizeof *mine);
    if (!mine)
        return error_set(run->err, "out of memory");
    for (size_t i = 0; i < count; i++) {
        int64_t pid;
        mine[i] = (struct analysis_share_device){.key = keys[i], .process = share->index};
        store_process_identity(run->trace, keys[i].process_id, &pid, &mine[i].rank);
    }
    unsigned char *all = NULL;
    size_t size = 0;
    int status = share->share_all(share->context, (const unsigned char *)mine, count * sizeof *mine, &all,
                                  &size, run->err);
    free(mine);
    if (status != 0)
        return -1;
    share->devices = (struct analysis_share_device *)all;
    share->device_count = size / sizeof *share->devices;
    share->first = share->end = 0;
    for (size_t i = 0; i < share->device_count; i++) {
        const struct analysis_share_device *device = &share->devices[i];
        if (i > 0 && compare_devices(&share->devices[i - 1].key, &device->key) >= 0)
            return error_set(run->err,
                             "the processes' devices are not in the order of one import (process %lld "
                             "of process %lld comes after process %lld)",
                             (long long)device->key.process_id, (long long)device->process,
                             (long long)share->devices[i - 1].key.process_id);
        if (device->process < share->index)
            share->first = share->end = i + 1;
        else if (device->process == share->index)
            share->end = i + 1;
    }
    return 0;
}

int analysis_share_setup(struct run *run, int want_span, struct analysis_share_span *span)
{
    struct analysis_share *share = run->options.share;
    struct store_gpu_device *keys = NULL;
    size_t count = 0;
    if (store_list_gpu_devices(run->trace, &keys, &count, run->err) != 0)
        return -1;
    unsigned char *mine = NULL, *all = NULL;
    size_t mine_size = 0, all_size = 0;
    int status = share->local ? share_devices(run, keys, count) : 0;
    if (status != 0) {
        free(keys);
        share->agreed = 1; /* every process read the same list */
        return -1;
    }
    status = encode_setup(run, keys, count, want_span, &mine, &mine_size);
    free(keys);
    if (status != 0)
        return error_set(run->err, "out of memory");
    status = share->share_all(share->context, mine, mine_size, &all, &all_size, run->err);
    free(mine);
    if (status == 0) {
        status = decode_setup(run, all, all_size, span);
        share->agreed = status != 0; /* every process read the same bytes: all fail alike */
    }
    free(all);
    return status;
}

int analysis_share_agree(struct analysis_share *share, int *go, error_info *err)
{
    unsigned char mine = *go != 0, *all = NULL;
    size_t size = 0;
    int status = share->share_all(share->context, &mine, 1, &all, &size, err);
    *go = status == 0 && size > 0 && all[0];
    free(all);
    return status;
}

/* --- the walks --- */

/* A fragment that carries only err: a process that could not walk says why to process 0. */
static int put_failure(struct fragment_wire *wire, const error_info *err)
{
    struct device_fragment failed = {.status = -1, .err = *err};
    return fragment_wire_begin(wire, 1) == 0 && fragment_wire_put(wire, &failed) == 0 ? 0 : -1;
}

/* The intervals of fragment the merge adopts before its cap (accountant_adopt_device: the run keeps
 * ACCOUNTING_MAX_INTERVALS in all, the earliest in device order): none of a device it does not
 * adopt (failed, skipped, without books); as analysis_merge_device counts run.intervals_offered. */
static uint64_t intervals_offered(const struct device_fragment *fragment)
{
    return fragment->status != 0 || fragment->skipped || !fragment->books.books
               ? 0
               : fragment->books.interval_count;
}

/* What of fragment's intervals the merge keeps, *before those the devices before it offered (the
 * sum moves past it): the merge keeps min(offered, cap - min(before, cap)) of each device. */
static size_t intervals_kept(const struct device_fragment *fragment, uint64_t *before)
{
    uint64_t offered = intervals_offered(fragment);
    uint64_t room = *before < ACCOUNTING_MAX_INTERVALS ? ACCOUNTING_MAX_INTERVALS - *before : 0;
    *before += offered;
    return (size_t)(offered < room ? offered : room);
}

/* A process other than 0: its devices [first, end) walked into *fragments (*count of them; the
 * caller frees them), *offered their intervals. A walker that cannot start leaves one fragment
 * that says why. Returns 0, or -1 when out of memory. */
static int walk_block(struct run *run, const struct store_gpu_device *keys, size_t first, size_t end,
                      struct device_fragment **fragments, size_t *count, uint64_t *offered)
{
    *count = 0;
    *offered = 0;
    *fragments = calloc(end > first ? end - first : 1, sizeof **fragments);
    if (!*fragments)
        return -1;
    struct analysis_walker walker;
    error_info err;
    if (analysis_walker_init(&walker, run->trace, run, &err) != 0) {
        (*fragments)[(*count)++] = (struct device_fragment){.status = -1, .err = err};
        return 0;
    }
    for (size_t i = first; i < end; i++) {
        struct device_fragment *fragment = &(*fragments)[(*count)++];
        /* as a pool's worker: the exposed-copy intervals before it are not known here (the merge
         * sees when that mattered: run.inexact) */
        analysis_walk_device(&walker, keys[i], analysis_device_shown(&run->options, keys[i]), 0, fragment);
        *offered += intervals_offered(fragment);
    }
    analysis_walker_free(&walker);
    return 0;
}

/* fragments as bytes into wire, each with only the intervals the merge keeps (before: those the
 * processes before this one offered), each freed once written (the fragments, then free(), are
 * the caller's). Returns 0, or -1 when out of memory. */
static int encode_block(struct device_fragment *fragments, size_t count, uint64_t before,
                        struct fragment_wire *wire)
{
    int status = fragment_wire_begin(wire, count);
    for (size_t i = 0; i < count; i++) {
        fragments[i].books.interval_count = intervals_kept(&fragments[i], &before);
        if (status == 0)
            status = fragment_wire_put(wire, &fragments[i]);
        device_fragment_free(&fragments[i]);
    }
    return status;
}

/* A process other than 0: walks its block, learns how many intervals the processes before it
 * offer (every process takes part) and sends its fragments to process 0: only the intervals the
 * merge keeps travel (once the first devices fill the cap, none of the later ones'). Returns 0, or
 * -1 with run->err filled. */
static int send_block(struct run *run, const struct store_gpu_device *keys, size_t first, size_t end)
{
    struct analysis_share *share = run->options.share;
    struct device_fragment *fragments;
    size_t count;
    uint64_t offered, before = 0;
    int walked = walk_block(run, keys, first, end, &fragments, &count, &offered);
    int status = share->sum_before(share->context, offered, &before, run->err);
    struct fragment_wire wire = {0};
    if (walked != 0 || encode_block(fragments, count, before, &wire) != 0) {
        free(wire.bytes);
        wire = (struct fragment_wire){0};
        error_info err;
        error_set(&err, "out of memory");
        walked = put_failure(&wire, &err);
    }
    free(fragments);
    if (status == 0 && walked != 0)
        status = error_set(run->err, "out of memory");
    if (status == 0)
        status = share->send(share->context, wire.bytes, wire.size, run->err);
    free(wire.bytes);
    return status;
}

/* Merges one process's fragments (bytes) into the run, *merged counting the devices. Returns 0 or
 * -1 (run.inexact: stopped there, the run is walked again). */
static int merge_bytes(struct run *run, const unsigned char *bytes, size_t size, size_t *merged)
{
    size_t offset = 0, count;
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
        (*merged)++;
    }
    return offset == size ? 0
                          : error_set(run->err, "the fragments received are damaged (bytes after the last)");
}

/* Process 0: its own block merged as walked, then every other process's bytes received and merged
 * one process at a time, in process order (device order), into one buffer: what process 0 holds at
 * once is one process's bytes. It receives from every process also after a failure, so
 * that no process waits on it. Returns 0, or -1 with run->err filled. */
static int merge_all(struct run *run, const struct store_gpu_device *keys, size_t first, size_t end,
                     size_t count)
{
    struct analysis_share *share = run->options.share;
    uint64_t before;
    error_info later; /* the exchange's failure, after the run's own */
    /* its block comes first in device order: walked as one process walks (each device knows the
     * exposed copies before it), no bytes between */
    int status = end > first ? analysis_walk_here(run, keys + first, end - first) : 0;
    int passed = share->sum_before(share->context, run->intervals_offered, &before,
                                   status == 0 ? run->err : &later) == 0;
    size_t merged = end - first, capacity = 0, size;
    unsigned char *bytes = NULL; /* one buffer for every process's: its pages are touched once */
    for (int process = 1; passed && process < share->count; process++) {
        passed = share->receive(share->context, process, &bytes, &capacity, &size,
                                status == 0 ? run->err : &later) == 0;
        if (passed && status == 0 && !run->inexact)
            status = merge_bytes(run, bytes, size, &merged);
    }
    free(bytes);
    share->exchanged = passed;
    if (!passed)
        return -1;
    if (status == 0 && !run->inexact && merged != count)
        return error_set(run->err, "the processes sent %zu devices' fragments, not the trace's %zu", merged,
                         count);
    return status;
}

/* --- local: what process 0 asks of the other processes' traces --- */

enum { ASK_CALL_SOURCE = 1, ASK_KERNEL_COVERING };

struct share_request {
    int64_t kind, process_id, device_id, from_ns, to_ns; /* from_ns: the correlation id of a call's */
};

struct share_reply {
    int64_t name_id, covered_ns;
    char source[sizeof(((struct analysis_wait *)0)->source)];
};

/* The process whose trace holds process_id's devices, or -1 (no device: none holds it but this
 * process's, which then reads it itself). */
static int64_t holder_of(const struct analysis_share *share, int64_t process_id)
{
    size_t from = 0, to = share->device_count;
    while (from < to) {
        size_t mid = from + (to - from) / 2;
        if (share->devices[mid].key.process_id < process_id)
            from = mid + 1;
        else
            to = mid;
    }
    return from < share->device_count && share->devices[from].key.process_id == process_id
               ? share->devices[from].process
               : -1;
}

/* Asks the process holding request's process_id, unless that is this one (returns 0). Returns 1
 * with *reply filled (zero when the exchange failed: run.remote_failed says so). */
static int ask_holder(struct run *run, const struct share_request *request, struct share_reply *reply)
{
    const struct analysis_share *share = run->options.share;
    int64_t holder = holder_of(share, request->process_id);
    if (holder < 0 || holder == share->index)
        return 0;
    memset(reply, 0, sizeof *reply);
    if (run->remote_failed || share->ask(share->context, (int)holder, request, sizeof *request, reply,
                                         sizeof *reply, run->err) != 0) {
        run->remote_failed = 1;
        memset(reply, 0, sizeof *reply);
        reply->name_id = -1;
    }
    reply->source[sizeof reply->source - 1] = '\0';
    return 1;
}

static int remote_call_source(void *context, int64_t process_id, int64_t correlation_id, char *source,
                              size_t size)
{
    struct share_request request = {
        .kind = ASK_CALL_SOURCE, .process_id = process_id, .from_ns = correlation_id};
    struct share_reply reply;
    if (!ask_holder(context, &request, &reply))
        return 0;
    snprintf(source, size, "%s", reply.source);
    return 1;
}

static int remote_kernel_covering(void *context, int64_t process_id, int64_t device_id, int64_t from_ns,
                                  int64_t to_ns, int64_t *name_id, int64_t *covered_ns)
{
    struct share_request request = {.kind = ASK_KERNEL_COVERING,
                                    .process_id = process_id,
                                    .device_id = device_id,
                                    .from_ns = from_ns,
                                    .to_ns = to_ns};
    struct share_reply reply;
    if (!ask_holder(context, &request, &reply))
        return 0;
    *name_id = reply.name_id;
    *covered_ns = reply.covered_ns;
    return 1;
}

void analysis_share_ask_remote(struct run *run)
{
    run->remote = (struct accountant_remote){remote_call_source, remote_kernel_covering, run};
    accountant_set_remote(run->accountant, &run->remote);
}

/* A process other than 0: one of process 0's requests answered from this process's trace, as
 * process 0's accountant would have read it there. */
static void answer(void *context, const void *bytes, size_t size, void *reply_bytes)
{
    struct run *run = context;
    struct share_request request = {0};
    struct share_reply reply = {.name_id = -1};
    memcpy(&request, bytes, size < sizeof request ? size : sizeof request);
    if (request.kind == ASK_CALL_SOURCE)
        accountant_call_source(run->accountant, request.process_id, request.from_ns, reply.source,
                               sizeof reply.source);
    else if (request.kind == ASK_KERNEL_COVERING)
        accountant_kernel_covering(run->accountant, request.process_id, request.device_id, request.from_ns,
                                   request.to_ns, &reply.name_id, &reply.covered_ns);
    memcpy(reply_bytes, &reply, sizeof reply);
}

int analysis_share_release(struct run *run)
{
    struct analysis_share *share = run->options.share;
    if (!share || !share->local || share->index != 0 || !share->exchanged || share->count < 2)
        return 0;
    error_info err;
    int status = share->release(share->context, run->remote_failed ? &err : run->err);
    if (status == 0 && run->remote_failed)
        return -1; /* run->err says why */
    return status;
}

int analysis_share_run(struct run *run, const struct store_gpu_device *keys, size_t count)
{
    struct analysis_share *share = run->options.share;
    size_t first, end;
    block_of(share, count, &first, &end);
    if (share->index == 0)
        return merge_all(run, keys, first, end, count);
    int status = send_block(run, keys, first, end);
    share->exchanged = share->sent = status == 0;
    /* local: process 0 may ask this process's trace until it has its result */
    if (status == 0 && share->local)
        status = share->serve(share->context, sizeof(struct share_request), sizeof(struct share_reply),
                              answer, run, run->err);
    return status == 0 ? 2 : status;
}
