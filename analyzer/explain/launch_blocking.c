/* launch_blocking.c: the rule of CUDA_LAUNCH_BLOCKING (causes.def, LAUNCH_BLOCKING). With the
 * variable set, every launch call returns only once its kernel has ended, so the launching thread
 * cannot enqueue the next kernel while one runs and no two kernels overlap. The proof is in the
 * launch records themselves, so imported traces get it too: at least
 * EXPLAIN_BLOCKING_MIN_LAUNCHES kernel launches, of which at least EXPLAIN_BLOCKING_SHARE_PERCENT
 * percent returned at or after their kernel's end (without the variable a launch returns in a few
 * microseconds, long before a kernel of any length ends; a tiny kernel on an idle GPU can end
 * first, hence a share and not all). A trace that recorded the process's environment (schema 3)
 * and holds CUDA_LAUNCH_BLOCKING=1 proves it as well. */
#include <inttypes.h>
#include <stdio.h>

#include "cuda_api.h"
#include "explain_parts.h"
#include "store.h"

#define EXPLAIN_BLOCKING_MIN_LAUNCHES 10
#define EXPLAIN_BLOCKING_SHARE_PERCENT 90

/* The facts of the process, read once per process; a read error proves nothing. */
static int process_blocking(explainer *explain, int64_t process_id)
{
    if (explain->blocking_process_id == process_id)
        return explain->process_blocking;
    explain->blocking_process_id = process_id;
    explain->process_blocking = explain->blocking_by_environment = 0;
    error_info err = {0};
    char value[64];
    explain->blocking_by_environment =
        store_process_environment(explain->db, process_id, "CUDA_LAUNCH_BLOCKING", value, sizeof value,
                                  &err) == STORE_ENVIRONMENT_SET &&
        value[0] == '1';
    if (store_launch_blocking_read(explain->db, process_id, &explain->blocking, &err) != 0)
        explain->blocking = (struct store_launch_blocking){0};
    const struct store_launch_blocking *facts = &explain->blocking;
    explain->process_blocking = explain->blocking_by_environment ||
                                (facts->launches >= EXPLAIN_BLOCKING_MIN_LAUNCHES &&
                                 facts->blocked * 100 >= facts->launches * EXPLAIN_BLOCKING_SHARE_PERCENT);
    return explain->process_blocking;
}

int explain_launch_blocking(explainer *explain, struct wait_case *item)
{
    if (!item->launch.known || cuda_api_classify(item->launch.name) != CUDA_API_LAUNCH ||
        !process_blocking(explain, item->device->process_id))
        return 0;
    char name[128], other[128], when[96], proof[160];
    explain_op_name(explain, item->waiting, name, sizeof name);
    explain_op_name(explain, item->blocking, other, sizeof other);
    explain_launch_timing(item, when, sizeof when);
    const struct store_launch_blocking *facts = &explain->blocking;
    if (facts->launches > 0)
        snprintf(proof, sizeof proof,
                 "%lld of the process's %lld kernel launch calls returned only after their kernel ended",
                 (long long)facts->blocked, (long long)facts->launches);
    else
        snprintf(proof, sizeof proof, "the kernel launches' return times are not recorded");
    explain_describe(
        item,
        "%s for %s on stream %" PRId64 " %s %s on stream %" PRId64 " ended; %s%s: launches block"
        " (CUDA_LAUNCH_BLOCKING), so no kernel is enqueued while another runs",
        item->launch.name, name, item->waiting->stream_id, when, other, item->blocking->stream_id, proof,
        explain->blocking_by_environment ? ", and the recorded environment sets CUDA_LAUNCH_BLOCKING=1" : "");
    return 1;
}
