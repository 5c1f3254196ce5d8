/* kernel_names.h: what a kernel's name says, per interned name id of one trace. Caches the short
 * readable name and whether the kernel is communication (rules: common/kernel_name.h), and knows
 * which kernel rows the collectives table links to NCCL operations. The analyzer and the renderer
 * both ask it, so the report and the picture agree on every kernel. Memory: one entry per distinct
 * kernel name (and API name: the callers' one cache of names by id) plus 8 bytes per collective row. */
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
 * as an NCCL kernel (kernel_name_is_communication). */
int kernel_names_is_communication(kernel_names *names, int64_t name_id, int64_t kernel_rowid);

/* The string strings.id name_id holds, as stored (an API call's name: nothing folded), or NULL
 * when there is no such row (or memory ran out). Cached with the entry; valid until
 * kernel_names_free, or for an id <= 0 (no recording writes one) until the next such call. */
const char *kernel_names_text(kernel_names *names, int64_t name_id);

/* The demangled full name of strings.id name_id: newly allocated, the caller frees; NULL when out
 * of memory. */
char *kernel_names_full(kernel_names *names, int64_t name_id);

#endif
