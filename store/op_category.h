/* op_category.h: the vocabulary every module shares about what a GPU operation is doing, read from
 * the store's rows: its category (a kernel, an NCCL kernel, a copy by direction, a memset), a
 * copy's category and whether it touches pageable memory, and the role a stream's busy time per
 * category gives it. The importers label streams by it (import/stream_set.h), the analyzer counts
 * by it, the report, pictures and export name by it: it lives here, below them all (issue 30),
 * not in the analyzer. The enum keeps its analysis_ names: more than 40 files spell them. Pure
 * functions, no state. */
#ifndef OVERLAPSCOPE_OP_CATEGORY_H
#define OVERLAPSCOPE_OP_CATEGORY_H

#include <stdint.h>

/* What an interval on the GPU is doing. */
enum analysis_category {
    ANALYSIS_COMPUTE = 0,       /* a kernel that is not a collective */
    ANALYSIS_COMMUNICATION = 1, /* an NCCL kernel (collective or send/recv) */
    ANALYSIS_COPY_HTOD = 2,
    ANALYSIS_COPY_DTOH = 3,
    ANALYSIS_COPY_DTOD = 4,
    ANALYSIS_COPY_PEER = 5,  /* PtoP, or DtoD between two devices */
    ANALYSIS_COPY_OTHER = 6, /* HtoH, arrays, unknown */
    ANALYSIS_MEMSET = 7,
    ANALYSIS_CATEGORY_COUNT = 8
};

/* The category of a copy (memcpys.copy_kind, src/dst device ids; STORE_NULL where unknown): a
 * device-to-device copy between two devices is peer-to-peer. */
enum analysis_category store_copy_category(int64_t copy_kind, int64_t src_device_id, int64_t dst_device_id);

/* 1 when either side of a copy is pageable host memory (memcpys.src_kind / dst_kind). */
int store_copy_is_pageable(int64_t src_kind, int64_t dst_kind);

/* A stream's role from its busy time per category: what it does at least 90% of its busy time
 * ("nccl", "copy" (memsets are neither copy nor compute), "compute"), else "mixed"; "default" for
 * the legacy default stream, "idle" when it never ran. A static string. */
const char *store_stream_role(const int64_t busy_ns[ANALYSIS_CATEGORY_COUNT], int is_legacy_default);

#endif
