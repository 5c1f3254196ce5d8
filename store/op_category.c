/* op_category.c: see op_category.h. */
#include "op_category.h"

#include "store.h"

enum analysis_category store_copy_category(int64_t copy_kind, int64_t src_device_id, int64_t dst_device_id)
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

int store_copy_is_pageable(int64_t src_kind, int64_t dst_kind)
{
    return src_kind == STORE_MEMORY_PAGEABLE || dst_kind == STORE_MEMORY_PAGEABLE;
}

const char *store_stream_role(const int64_t busy_ns[ANALYSIS_CATEGORY_COUNT], int is_legacy_default)
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
