/* nccl_bandwidth.h: the bus bandwidth of an NCCL collective, as nccl-tests defines it
 * (doc/PERFORMANCE.md, "Bus bandwidth"): the algorithm bandwidth (bytes / time) times a factor of
 * the operation and the number of ranks, so that figures of different operations and rank counts
 * compare with the links' speed. Pure functions. */
#ifndef OVERLAPSCOPE_NCCL_BANDWIDTH_H
#define OVERLAPSCOPE_NCCL_BANDWIDTH_H

#include <stdint.h>

/* The factor for op ("AllReduce", "AllGather", ...) over nranks ranks (<= 0: taken as 1):
 * 2(n-1)/n for AllReduce, (n-1)/n for AllGather, ReduceScatter and AllToAll, else 1. When formula
 * is not NULL it receives the rule's text ("2(n-1)/n"), static. */
double nccl_bus_factor(const char *op, int64_t nranks, const char **formula);

#endif
