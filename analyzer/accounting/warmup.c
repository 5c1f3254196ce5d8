/* warmup.c: one-time work (docs/metrics.md, "Idle time", `warmup`). The first run of a kernel pays
 * what later runs do not: the driver loads its module lazily (CUDA_MODULE_LOADING=LAZY, the default
 * since CUDA 11.7: cuModuleLoad / cuLibraryLoad inside the first launch), cuBLAS and cuDNN pick an
 * algorithm on the first call of a shape, the caching allocator grows, torch.compile compiles. An
 * idle gap of at least WARMUP_MIN_GAP_NS that ends with the first run of a kernel the device runs
 * again is that work: the host's time in it is warm-up, not the steady state's. A kernel that runs once is no
 * repeated work, and its gap keeps its ordinary cause. */
#include "warmup.h"

#include <stdlib.h>

#include "accountant_state.h"
#include "queries_warmup.h"
#include "store.h"

static void read_names(accountant *acc, const struct device_state *device)
{
    free(acc->warmup_names);
    acc->warmup_read = 1;
    error_info err = {{0}};
    /* Unreadable names (or no memory) leave none: nothing is warm-up, the gaps keep their causes. */
    store_kernel_runs_read(acc->db, device->process_id, device->device_id, &acc->warmup_names,
                           &acc->warmup_name_count, &err);
}

int64_t warmup_repeated_work_start(accountant *acc, const struct device_state *device)
{
    if (!acc->warmup_read)
        read_names(acc, device);
    int64_t start = INT64_MAX;
    for (size_t i = 0; i < acc->warmup_name_count; i++)
        if (acc->warmup_names[i].runs >= WARMUP_MIN_RUNS && acc->warmup_names[i].first_start_ns < start)
            start = acc->warmup_names[i].first_start_ns;
    return start == INT64_MAX ? INT64_MIN : start; /* nothing repeats: nothing is told apart as set-up */
}

int warmup_first_run(accountant *acc, const struct device_state *device, int64_t gap_start_ns,
                     const struct model_op *op)
{
    if (op->kind != MODEL_KERNEL || op->name_id == STORE_NULL ||
        op->start_ns - gap_start_ns < WARMUP_MIN_GAP_NS)
        return 0;
    if (!acc->warmup_read)
        read_names(acc, device);
    size_t low = 0, high = acc->warmup_name_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (acc->warmup_names[middle].name_id < op->name_id)
            low = middle + 1;
        else
            high = middle;
    }
    if (low == acc->warmup_name_count || acc->warmup_names[low].name_id != op->name_id)
        return 0;
    return acc->warmup_names[low].first_start_ns == op->start_ns &&
           acc->warmup_names[low].runs >= WARMUP_MIN_RUNS;
}
