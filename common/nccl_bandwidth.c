/* nccl_bandwidth.c: see nccl_bandwidth.h. */
#include "nccl_bandwidth.h"

#include <string.h>

double nccl_bus_factor(const char *op, int64_t nranks, const char **formula)
{
    const char *rule = "1";
    double ranks = (double)(nranks > 0 ? nranks : 1), factor = 1.0;
    if (op && strcmp(op, "AllReduce") == 0) {
        rule = "2(n-1)/n";
        factor = 2.0 * (ranks - 1) / ranks;
    } else if (op && (strcmp(op, "AllGather") == 0 || strcmp(op, "ReduceScatter") == 0 ||
                      strcmp(op, "AllToAll") == 0)) {
        rule = "(n-1)/n";
        factor = (ranks - 1) / ranks;
    }
    if (formula)
        *formula = rule;
    return factor;
}
