/* overlap_cost.c: the price of overlap (overlap_cost.h). Takes one device's selected operations in
 * start order (the walk's, device_state.selected_ops), marks each one that shared the device with another,
 * and prices the overlapped compute kernels against their alone twins. Memory: a byte per operation of
 * the device, and a record per compute kernel of a twin group with an overlapped run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key_index.h"
#include "overlap_cost.h"
#include "selection.h"

struct priced_op {
    int64_t name_id, grid_blocks, threads_per_block; /* the twin key */
    int64_t start_ns, duration_ns;
    int is_compute_kernel, overlapped;
};

struct op_list {
    struct priced_op *ops;
    size_t count, capacity;
};

/* The operation as priced: its twin key and duration. */
static struct priced_op priced_of(const struct kept_op *op, int overlapped)
{
    int kernel = op->kind == MODEL_KERNEL;
    return (struct priced_op){.name_id = kernel ? op->name_id : 0,
                              .grid_blocks = op->grid_blocks,
                              .threads_per_block = op->threads_per_block,
                              .start_ns = op->start_ns,
                              .duration_ns = op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0,
                              .is_compute_kernel =
                                  kernel && op->category != ANALYSIS_COMMUNICATION, /* the walk's naming */
                              .overlapped = overlapped};
}

/* Marks (overlapped, one byte per operation) the operations that shared the device with another
 * (they come in start order: one overlaps an earlier one when an earlier one ends after its
 * start, a later one when the next starts before its end) and returns the time the overlap saved:
 * summed durations minus the busy union. */
static int64_t mark_overlapped(const struct kept_op *ops, size_t count, unsigned char *overlapped)
{
    int64_t latest_end = INT64_MIN, summed = 0, busy = 0, union_end = INT64_MIN;
    for (size_t i = 0; i < count; i++) {
        int64_t start = ops[i].start_ns, duration = ops[i].end_ns > start ? ops[i].end_ns - start : 0;
        int64_t end = start + duration;
        if (duration > 0) {
            overlapped[i] |= latest_end > start;
            size_t next = i + 1;
            while (next < count && !(ops[next].end_ns > ops[next].start_ns))
                next++;
            if (next < count && ops[next].start_ns < end)
                overlapped[i] = overlapped[next] = 1;
            if (end > latest_end)
                latest_end = end;
        }
        summed += duration;
        int64_t from = start > union_end ? start : union_end;
        if (end > from)
            busy += end - from;
        if (end > union_end)
            union_end = end;
    }
    return summed - busy;
}

static int by_twin_then_duration(const void *a, const void *b)
{
    const struct priced_op *x = a, *y = b;
    if (x->name_id != y->name_id)
        return x->name_id < y->name_id ? -1 : 1;
    if (x->grid_blocks != y->grid_blocks)
        return x->grid_blocks < y->grid_blocks ? -1 : 1;
    if (x->threads_per_block != y->threads_per_block)
        return x->threads_per_block < y->threads_per_block ? -1 : 1;
    return (x->duration_ns > y->duration_ns) - (x->duration_ns < y->duration_ns);
}

static int same_twin(const struct priced_op *x, const struct priced_op *y)
{
    return x->name_id == y->name_id && x->grid_blocks == y->grid_blocks &&
           x->threads_per_block == y->threads_per_block;
}

static struct analysis_overlap_cost *family_row(struct analysis_result *result, size_t device_index,
                                                const char *family, size_t first_row)
{
    for (size_t r = first_row; r < result->overlap_cost_count; r++)
        if (!strcmp(result->overlap_costs[r].family, family))
            return &result->overlap_costs[r];
    if (result->overlap_cost_count == result->overlap_cost_capacity) {
        size_t capacity = result->overlap_cost_capacity ? result->overlap_cost_capacity * 2 : 16;
        struct analysis_overlap_cost *grown = realloc(result->overlap_costs, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        result->overlap_costs = grown;
        result->overlap_cost_capacity = capacity;
    }
    struct analysis_overlap_cost *row = &result->overlap_costs[result->overlap_cost_count++];
    *row = (struct analysis_overlap_cost){.device = device_index};
    snprintf(row->family, sizeof row->family, "%s", family);
    return row;
}

static int by_cost_descending(const void *a, const void *b)
{
    const struct analysis_overlap_cost *x = a, *y = b;
    return (x->cost_ns < y->cost_ns) - (x->cost_ns > y->cost_ns);
}

/* Prices each group of twins (sorted together, shortest first): the overlapped runs against the
 * median of the alone ones. Returns 0 or -1 when out of memory. */
static int price(struct op_list *list, kernel_names *names, size_t device_index, struct analysis_device *out,
                 struct analysis_result *result)
{
    size_t first_row = result->overlap_cost_count;
    int64_t *alone = malloc((list->count ? list->count : 1) * sizeof *alone);
    if (!alone)
        return -1;
    for (size_t begin = 0, end; begin < list->count; begin = end) {
        size_t alone_count = 0;
        for (end = begin; end < list->count && same_twin(&list->ops[begin], &list->ops[end]); end++)
            if (!list->ops[end].overlapped)
                alone[alone_count++] = list->ops[end].duration_ns;
        for (size_t i = begin; i < end; i++) {
            const struct priced_op *op = &list->ops[i];
            if (!op->overlapped)
                continue;
            if (alone_count == 0) {
                out->overlap_untwinned_count++;
                continue;
            }
            /* durations are sorted within the group: the median of the alone runs */
            int64_t median = alone_count % 2 ? alone[alone_count / 2]
                                             : (alone[alone_count / 2 - 1] + alone[alone_count / 2]) / 2;
            struct analysis_overlap_cost *row =
                family_row(result, device_index, kernel_names_short(names, op->name_id), first_row);
            if (!row) {
                free(alone);
                return -1;
            }
            row->overlapped_count++;
            row->overlapped_ns += op->duration_ns;
            row->alone_ns += median;
            row->cost_ns += op->duration_ns - median;
            out->overlap_cost_ns += op->duration_ns - median;
        }
    }
    free(alone);
    if (result->overlap_cost_count > first_row)
        qsort(result->overlap_costs + first_row, result->overlap_cost_count - first_row,
              sizeof *result->overlap_costs, by_cost_descending);
    return 0;
}

/* The twin keys of the overlapped compute kernels, each once. */
struct twin_set {
    struct priced_op *keys;
    size_t count;
    struct key_index index;
};

struct twin_probe {
    const struct twin_set *set;
    const struct priced_op *op;
};

static int twin_matches(const void *context, size_t position)
{
    const struct twin_probe *probe = context;
    return same_twin(&probe->set->keys[position], probe->op);
}

static uint64_t twin_hash(const struct priced_op *op)
{
    return key_index_hash(op->name_id, op->grid_blocks, op->threads_per_block, 0);
}

static int twin_find(const struct twin_set *set, const struct priced_op *op)
{
    struct twin_probe probe = {set, op};
    return key_index_find(&set->index, twin_hash(op), twin_matches, &probe) >= 0;
}

/* Puts into list the compute kernels of a twin group with an overlapped run, in start order: the
 * only ones price reads (a group run alone prices nothing), and the sort need not order the
 * others (on a trace with one busy stream, nearly every kernel). Where a quarter or more of them
 * overlapped (streams side by side all along) all are kept: looking each one's group up would cost
 * more than sorting the few extra. Only those are copied: a copy of every operation was 48 bytes
 * per operation at the walk's peak (issue 33). Returns 0 or -1 when out of memory. */
static int keep_priced(const struct kept_op *ops, size_t count, const unsigned char *overlapped,
                       struct op_list *list)
{
    size_t compute = 0, overlapped_compute = 0;
    for (size_t i = 0; i < count; i++) {
        int is_compute = priced_of(&ops[i], 0).is_compute_kernel;
        compute += is_compute;
        overlapped_compute += is_compute && overlapped[i];
    }
    if (overlapped_compute * 4 >= compute) {
        list->ops = malloc((compute ? compute : 1) * sizeof *list->ops);
        if (!list->ops)
            return -1;
        for (size_t i = 0; i < count; i++) {
            struct priced_op op = priced_of(&ops[i], overlapped[i]);
            if (op.is_compute_kernel)
                list->ops[list->count++] = op;
        }
        return 0;
    }
    struct twin_set set = {.keys = malloc((overlapped_compute ? overlapped_compute : 1) * sizeof *set.keys)};
    int status = set.keys ? 0 : -1;
    for (size_t i = 0; status == 0 && i < count; i++) {
        struct priced_op op = priced_of(&ops[i], overlapped[i]);
        if (!op.is_compute_kernel || !op.overlapped || twin_find(&set, &op))
            continue;
        set.keys[set.count] = op;
        status = key_index_add(&set.index, twin_hash(&op), set.count++);
    }
    size_t kept = 0;
    for (size_t i = 0; status == 0 && set.count && i < count; i++) {
        struct priced_op op = priced_of(&ops[i], overlapped[i]);
        kept += op.is_compute_kernel && twin_find(&set, &op);
    }
    if (status == 0 && kept && !(list->ops = malloc(kept * sizeof *list->ops)))
        status = -1;
    for (size_t i = 0; status == 0 && kept && i < count; i++) {
        struct priced_op op = priced_of(&ops[i], overlapped[i]);
        if (op.is_compute_kernel && twin_find(&set, &op))
            list->ops[list->count++] = op;
    }
    free(set.keys);
    key_index_free(&set.index);
    return status;
}

int overlap_cost_device(kernel_names *names, const struct device_state *device, size_t device_index,
                        struct analysis_device *out, struct analysis_result *result, error_info *err)
{
    struct op_list list = {0};
    size_t count = device->selected_op_count;
    unsigned char *overlapped = calloc(count ? count : 1, 1);
    int status = overlapped ? 0 : error_set(err, "out of memory");
    if (status == 0) {
        out->overlap_saved_ns = mark_overlapped(device->selected_ops, count, overlapped);
        if (keep_priced(device->selected_ops, count, overlapped, &list) != 0)
            status = error_set(err, "out of memory");
    }
    free(overlapped);
    if (status == 0) {
        if (list.count)
            qsort(list.ops, list.count, sizeof *list.ops, by_twin_then_duration);
        if (price(&list, names, device_index, out, result) != 0)
            status = error_set(err, "out of memory");
        out->overlap_net_ns = out->overlap_saved_ns - out->overlap_cost_ns;
    }
    free(list.ops);
    return status;
}

void overlap_cost_totals(struct analysis_result *result)
{
    result->total_overlap_cost_ns = result->total_overlap_saved_ns = 0;
    for (size_t d = 0; d < result->device_count; d++) {
        result->total_overlap_cost_ns += result->devices[d].overlap_cost_ns;
        result->total_overlap_saved_ns += result->devices[d].overlap_saved_ns;
    }
    result->total_overlap_net_ns = result->total_overlap_saved_ns - result->total_overlap_cost_ns;
}
