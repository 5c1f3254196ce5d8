/* naming.c: see naming.h. */
#include "naming.h"

#include <inttypes.h>
#include <stdio.h>

#include "store.h"
#include "units.h"

enum analysis_category naming_copy_category(int64_t copy_kind, int64_t src_device_id, int64_t dst_device_id)
{
    switch (copy_kind) {
    case STORE_COPY_HTOD:
        return ANALYSIS_COPY_HTOD;
    case STORE_COPY_DTOH:
        return ANALYSIS_COPY_DTOH;
    case STORE_COPY_PTOP:
        return ANALYSIS_COPY_PEER;
    case STORE_COPY_DTOD:
        if (src_device_id != STORE_NULL && dst_device_id != STORE_NULL && src_device_id != dst_device_id)
            return ANALYSIS_COPY_PEER;
        return ANALYSIS_COPY_DTOD;
    default:
        return ANALYSIS_COPY_OTHER;
    }
}

int naming_copy_is_pageable(int64_t src_kind, int64_t dst_kind)
{
    return src_kind == STORE_MEMORY_PAGEABLE || dst_kind == STORE_MEMORY_PAGEABLE;
}

char *naming_copy(char *buffer, size_t size, int64_t copy_kind, int64_t bytes, int pageable)
{
    char formatted[32];
    snprintf(buffer, size, "%s %s%s", store_copy_kind_name(copy_kind),
             units_format_bytes(formatted, sizeof formatted, bytes), pageable ? " (pageable)" : "");
    return buffer;
}

const char *naming_stream_role(const int64_t busy_ns[ANALYSIS_CATEGORY_COUNT], int is_legacy_default)
{
    if (is_legacy_default)
        return "default";
    int64_t total = 0, compute = busy_ns[ANALYSIS_COMPUTE], nccl = busy_ns[ANALYSIS_COMMUNICATION];
    for (int category = 0; category < ANALYSIS_CATEGORY_COUNT; category++)
        total += busy_ns[category];
    int64_t copy = total - compute - nccl - busy_ns[ANALYSIS_MEMSET];
    if (total == 0)
        return "idle";
    if (nccl * 10 >= total * 9)
        return "nccl";
    if (copy * 10 >= total * 9)
        return "copy";
    if (compute * 10 >= total * 9)
        return "compute";
    return "mixed";
}

char *naming_process(char *buffer, size_t size, int64_t rank, int64_t pid, int64_t process_id)
{
    if (rank >= 0)
        snprintf(buffer, size, "rank %" PRId64, rank);
    else if (pid >= 0)
        snprintf(buffer, size, "pid %" PRId64, pid);
    else
        snprintf(buffer, size, "process %" PRId64, process_id);
    return buffer;
}

char *naming_accounting(char *buffer, size_t size, enum accounting_cause cause, const char *label)
{
    return accounting_cause_name(buffer, size, cause, label);
}
