/* nccl_names.h: what an NCCL kernel's name and a profiler's collective metadata say, in the
 * store's vocabulary (collectives.op, .algorithm, .protocol, .dtype). Shared by the Kineto and the
 * Nsight Systems importers.
 *
 * NCCL names its kernels ncclKernel_<Op>_<Algorithm>_<Protocol>_<RedOp>_<type> (NCCL <= 2.18) or
 * ncclDevKernel_<Op>_<RedOp>_<type>_<Algorithm>_<Protocol> (2.19+); src/device/generate.py in
 * the NCCL sources builds them. */
#ifndef OVERLAPSCOPE_NCCL_NAMES_H
#define OVERLAPSCOPE_NCCL_NAMES_H

#include <stdint.h>

/* True for a kernel NCCL launched ("nccl" prefix, any case). */
int nccl_names_is_nccl_kernel(const char *kernel_name);

/* The store's op name for an NCCL kernel name ("AllReduce", ..., "SendRecv"), or "Unknown". */
const char *nccl_names_op_from_kernel(const char *kernel_name);

/* The op for a PyTorch collective name ("allreduce", "all_gather", "_reduce_scatter_base",
 * "all_to_allv", "send", ...), or "Unknown". */
const char *nccl_names_op_from_collective(const char *collective_name);

/* Algorithm ("RING", "TREE", "NVLS", "NVLS_TREE", "COLLNET_DIRECT", "COLLNET_CHAIN", "PAT") and
 * protocol ("LL", "LL128", "SIMPLE") named in a kernel name; NULL when absent. Pointers to static
 * text. */
const char *nccl_names_algorithm(const char *kernel_name);
const char *nccl_names_protocol(const char *kernel_name);

/* NCCL's name for a PyTorch scalar type ("Float" -> "f32", "BFloat16" -> "bf16") and its size in
 * bytes (0 when unknown). Unknown names come back unchanged. */
const char *nccl_names_dtype(const char *torch_dtype, int64_t *element_bytes);

#endif
