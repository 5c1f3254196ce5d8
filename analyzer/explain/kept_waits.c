/* kept_waits.c: the waits that lost the most time and the totals of every cause (see
 * explain_parts.h). The kept waits are a min-heap on lost_ns of at most max_waits entries, so a
 * wait is kept in O(log max_waits) and a wait that would not enter it is never described. */
#include <stdlib.h>
#include <string.h>

#include "explain_parts.h"
#include "store.h"

static void fill_op(explainer *explain, const struct lane_state *lane, const struct model_op *op,
                    const struct launch_call *launch, struct analysis_op *out)
{
    out->lane = lane->result_lane;
    out->category = op->category;
    out->start_ns = op->start_ns;
    out->end_ns = op->end_ns;
    out->launch_start_ns = launch && launch->known ? launch->start_ns : STORE_NULL;
    out->launch_end_ns = launch && launch->known ? launch->end_ns : STORE_NULL;
    out->correlation_id = op->correlation_id;
    out->name_id = op->kind == MODEL_KERNEL ? op->name_id : 0;
    explain_op_name(explain, op, out->name, sizeof out->name);
}

/* A worker's explainer keeps, beside its heap, every wait that entered it, in order. */
static void record_arrival(explainer *explain, const struct analysis_wait *wait)
{
    if (explain->arrival_count == explain->arrival_capacity) {
        size_t capacity = explain->arrival_capacity ? explain->arrival_capacity * 2 : 64;
        struct analysis_wait *grown = realloc(explain->arrivals, capacity * sizeof *grown);
        if (!grown) {
            explain->arrivals_out_of_memory = 1;
            return;
        }
        explain->arrivals = grown;
        explain->arrival_capacity = capacity;
    }
    explain->arrivals[explain->arrival_count++] = *wait;
}

static void keep_wait(explainer *explain, const struct analysis_wait *wait)
{
    struct analysis_wait *heap = explain->kept;
    size_t count = explain->kept_count, i;
    if (explain->max_waits == 0)
        return;
    if (explain->recording && (count < explain->max_waits || wait->lost_ns > heap[0].lost_ns))
        record_arrival(explain, wait);
    if (count < explain->max_waits) {
        i = explain->kept_count++;
        while (i > 0 && heap[(i - 1) / 2].lost_ns > wait->lost_ns) {
            heap[i] = heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        heap[i] = *wait;
        return;
    }
    if (wait->lost_ns <= heap[0].lost_ns)
        return;
    i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= count)
            break;
        if (child + 1 < count && heap[child + 1].lost_ns < heap[child].lost_ns)
            child++;
        if (heap[child].lost_ns >= wait->lost_ns)
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = *wait;
}

void explain_record_wait(explainer *explain, struct wait_case *item)
{
    struct analysis_wait *wait = &item->wait;
    explain->total_waits++;
    explain->causes[wait->cause].lost_ns += wait->lost_ns;
    explain->causes[wait->cause].count++;
    item->device->lost_ns += wait->lost_ns;
    item->device->cause_count[wait->cause]++;
    /* Headroom counts what a change of code removes: not a dependency the program asked for or
     * NCCL's own ordering, not what we cannot explain. */
    if (wait->cause != ANALYSIS_CAUSE_EVENT_DEPENDENCY && wait->cause != ANALYSIS_CAUSE_SHARED_COMMUNICATOR &&
        wait->cause != ANALYSIS_CAUSE_UNEXPLAINED)
        item->device->explained_lost_ns += wait->lost_ns;
    if (!item->describe)
        return;
    fill_op(explain, item->waiting_lane, item->waiting, &item->launch, &wait->waiting);
    fill_op(explain, item->blocking_lane, item->blocking, NULL, &wait->blocking);
    keep_wait(explain, wait);
}

/* Whether a wait losing lost_ns would enter the kept waits. */
int explain_would_keep(const explainer *explain, int64_t lost_ns)
{
    return explain->max_waits > 0 &&
           (explain->kept_count < explain->max_waits || lost_ns > explain->kept[0].lost_ns);
}

int64_t explainer_wait_count(const explainer *explain)
{
    return explain->total_waits;
}

static int by_lost_descending(const void *a, const void *b)
{
    const struct analysis_wait *x = a, *y = b;
    if (x->lost_ns != y->lost_ns)
        return x->lost_ns < y->lost_ns ? 1 : -1;
    return (x->waiting.start_ns > y->waiting.start_ns) - (x->waiting.start_ns < y->waiting.start_ns);
}

static int cause_by_lost_descending(const void *a, const void *b)
{
    const struct analysis_cause_total *x = a, *y = b;
    if (x->lost_ns != y->lost_ns)
        return x->lost_ns < y->lost_ns ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return (int)x->cause - (int)y->cause;
}

int explainer_collect(explainer *explain, struct analysis_result *result)
{
    size_t count = explain->kept_count;
    result->waits = NULL;
    if (count) {
        result->waits = malloc(count * sizeof *result->waits);
        if (!result->waits)
            return -1;
        memcpy(result->waits, explain->kept, count * sizeof *result->waits);
        qsort(result->waits, count, sizeof *result->waits, by_lost_descending);
    }
    result->wait_count = count;
    result->wait_total_count = explain->total_waits;
    memcpy(result->causes, explain->causes, sizeof result->causes);
    qsort(result->causes, ANALYSIS_CAUSE_COUNT, sizeof result->causes[0], cause_by_lost_descending);
    return 0;
}

void explainer_record_arrivals(explainer *explain)
{
    explain->recording = 1;
}

int explainer_take_device(explainer *worker, struct explainer_device *out)
{
    if (worker->arrivals_out_of_memory)
        return -1;
    out->arrivals = worker->arrivals;
    out->arrival_count = worker->arrival_count;
    out->total_waits = worker->total_waits;
    memcpy(out->causes, worker->causes, sizeof out->causes);
    worker->arrivals = NULL;
    worker->arrival_count = worker->arrival_capacity = 0;
    worker->kept_count = 0;
    worker->total_waits = 0;
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++)
        worker->causes[cause].lost_ns = worker->causes[cause].count = 0;
    return 0;
}

void explainer_adopt_device(explainer *run, struct explainer_device *in, size_t lane_offset)
{
    for (size_t i = 0; i < in->arrival_count; i++) {
        struct analysis_wait *wait = &in->arrivals[i];
        wait->waiting.lane += lane_offset;
        wait->blocking.lane += lane_offset;
        keep_wait(run, wait);
    }
    run->total_waits += in->total_waits;
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++) {
        run->causes[cause].lost_ns += in->causes[cause].lost_ns;
        run->causes[cause].count += in->causes[cause].count;
    }
    free(in->arrivals);
    in->arrivals = NULL;
    in->arrival_count = 0;
}
