/* nccl_kernel_name.h: recognising an NCCL kernel by its name and reading what the name says.
 *
 * NCCL encodes the collective, reduction, data type, algorithm and protocol in the names of its
 * device kernels, in a spelling that changed across versions:
 *   2.3-2.7   ncclAllReduceRingLLKernel_sum_f32
 *   2.8-2.18  ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)
 *   2.19+     ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>),
 *             ncclDevKernel_SendRecv, ncclDevKernel_Generic (op unknown from the name)
 * CUPTI reports mangled names (_Z39ncclDevKernel_...), profilers demangled ones; both are read.
 * Pure C, no state: the returned strings are static constants. */
#ifndef OVERLAPSCOPE_NCCL_KERNEL_NAME_H
#define OVERLAPSCOPE_NCCL_KERNEL_NAME_H

struct nccl_kernel_info {
    const char *op;        /* AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, SendRecv; Unknown */
    const char *reduction; /* Sum, Prod, Min, Max, PreMulSum, SumPostDiv; NULL when not in the name */
    const char *dtype;     /* NCCL's short type name: i8 u8 i32 u32 i64 u64 f16 f32 f64 bf16 f8e4m3 f8e5m2 */
    const char *algorithm; /* RING, TREE, COLLNET_DIRECT, COLLNET_CHAIN, NVLS, NVLS_TREE, PAT */
    const char *protocol;  /* LL, LL128, SIMPLE */
};

/* Returns 1 and fills info (every field not in the name NULL, op "Unknown" when the name has
 * none) when name is an NCCL device kernel, 0 otherwise (info then all NULL). name may be
 * NULL. */
int nccl_kernel_name_parse(const char *name, struct nccl_kernel_info *info);

#endif
