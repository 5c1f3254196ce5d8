/* nccl_names.h: what PyTorch's profiler says about a collective (kernel args "Collective name"
 * and "dtype"), in the store's vocabulary (collectives.op, .dtype). Kernel names themselves are
 * read by common/nccl_kernel_name.h. */
#ifndef OVERLAPSCOPE_NCCL_NAMES_H
#define OVERLAPSCOPE_NCCL_NAMES_H

#include <stdint.h>

/* The op for a PyTorch collective name ("allreduce", "all_gather", "_reduce_scatter_base",
 * "all_to_allv", "send", ...), or "Unknown". */
const char *nccl_names_op_from_collective(const char *collective_name);

/* NCCL's name for a PyTorch scalar type ("Float" -> "f32", "BFloat16" -> "bf16") and its size in
 * bytes (0 when unknown). Unknown names come back unchanged; NULL stays NULL. */
const char *nccl_names_dtype(const char *torch_dtype, int64_t *element_bytes);

#endif
