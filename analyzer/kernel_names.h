/* kernel_names.h: what a kernel's name says. Caches, per interned name id, the short readable
 * name ("sgemm_256x128", "ncclDevKernel_AllReduce_Sum_f32_RING_LL") and whether the kernel is an
 * NCCL kernel; and knows which kernel rows the collectives table links to NCCL operations. Memory:
 * one entry per distinct kernel name plus 8 bytes per collective row. */
#ifndef OVERLAPSCOPE_KERNEL_NAMES_H
#define OVERLAPSCOPE_KERNEL_NAMES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct kernel_names kernel_names;

/* Reads the collectives' kernel row ids. Returns NULL with err filled on failure; free with
 * kernel_names_free. db stays owned by the caller and must outlive the cache. */
kernel_names *kernel_names_new(sqlite3 *db, error_info *err);
void kernel_names_free(kernel_names *names);

/* The short name of strings.id name_id ("?" when unknown). Valid until kernel_names_free. */
const char *kernel_names_short(kernel_names *names, int64_t name_id);
/* 1 when the kernel is communication: linked from the collectives table (kernel_rowid) or named
 * ncclDevKernel* / ncclKernel* (NCCL's device kernels, mangled or not). */
int kernel_names_is_communication(kernel_names *names, int64_t name_id, int64_t kernel_rowid);

/* Writes the short form of a (possibly mangled or demangled C++) kernel name into buffer:
 * "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LLP..." -> "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
 * "void at::native::vectorized_elementwise_kernel<4, ...>(...)" -> "at::native::vectorized_elementwise_kernel". */
void kernel_names_shorten(const char *name, char *buffer, size_t size);

#endif
