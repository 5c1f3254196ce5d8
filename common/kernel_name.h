/* kernel_name.h: the one home of what a kernel's name says, for every output (report text and
 * JSON, picture labels, Chrome/Perfetto export) and for the analyzer's accounting:
 *   - whether the kernel is communication (an NCCL device kernel of any NCCL version),
 *   - its full C++ name, demangled ("void at::native::vectorized_elementwise_kernel<4, ...>(...)"),
 *   - its short name for people: the function's own name with namespaces, template arguments and
 *     "(anonymous namespace)" folded ("vectorized_elementwise_kernel"), or for the libraries whose
 *     kernel names encode what they compute, a family name with the shape where the name carries
 *     one ("cuBLAS sgemm 256x128 (ffma)", "CUTLASS sgemm 256x64 (tensor op)", "NCCL AllReduce Sum
 *     f32 RING LL", "Triton pointwise add_mul", "FlashAttention fwd hdim 128").
 * Input may be an Itanium-mangled name as CUPTI reports it (_Z...), a demangled signature as the
 * PyTorch profiler and Nsight Systems store it, or a plain C name. Pure functions, no state. */
#ifndef OVERLAPSCOPE_KERNEL_NAME_H
#define OVERLAPSCOPE_KERNEL_NAME_H

#include <stddef.h>

/* 1 when name is an NCCL device kernel (every spelling nccl_kernel_name.h reads), else 0. The
 * analyzer also counts kernels the collectives table links (analyzer/kernel_names.h); this is the
 * rule for the name. name may be NULL. */
int kernel_name_is_communication(const char *name);

/* The demangled full name: a newly allocated string the caller frees, or NULL when out of memory.
 * Names that are not mangled, or that do not demangle, come back copied unchanged. name may be
 * NULL (then "?"). */
char *kernel_name_demangle(const char *name);

/* Writes the short name of name into buffer (always NUL-terminated; size 0 writes nothing) and
 * returns buffer. "?" for NULL or empty names. */
char *kernel_name_short(const char *name, char *buffer, size_t size);

#endif
