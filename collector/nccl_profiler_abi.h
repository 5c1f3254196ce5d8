/* nccl_profiler_abi.h: our own declarations of the parts of NCCL's profiler plugin ABI the
 * collector uses (no NCCL header declares them for plugins: NCCL asks plugins to carry their own).
 *
 * Source of truth: NVIDIA/nccl src/include/plugin/profiler/profiler_v3.h, _v4.h, _v5.h and
 * ext-profiler/README.md. The layouts below were checked field by field against the debug
 * information of the libnccl.so.2.28.9 shipped with CUDA 13.0 (`ptype /o
 * ncclProfilerEventDescr_v5_t` in gdb); the static assertions in nccl_profiler.c pin every offset
 * we read. Which NCCL looks up which version (it tries the newest symbol first; v5 is the newest
 * 2.28.9 knows, checked in its binary; the older boundaries are from NCCL's history, unchecked):
 *   2.28        ncclProfiler_v5 (64-bit event type; communicator id, name, nodes, ranks and
 *               rank given to init; CollApi/P2pApi/KernelLaunch/GroupApi events added)
 *   2.26-2.27   ncclProfiler_v4 (8-bit event type; communicator given to init)
 *   2.25        ncclProfiler_v3 (communicator hash and name inside each coll/p2p descriptor)
 * Only the union members we read are declared: every member starts at offset 24, so the others
 * do not change where ours are. Names are NCCL's in spirit, written our way. */
#ifndef OVERLAPSCOPE_NCCL_PROFILER_ABI_H
#define OVERLAPSCOPE_NCCL_PROFILER_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ncclResult_t is a C enum: int-sized. 0 is ncclSuccess. */
typedef int nccl_abi_result;
#define NCCL_ABI_SUCCESS 0

/* Event type bits (the eActivationMask bits and ncclProfilerEventDescr_vN.type). */
enum {
    NCCL_ABI_PROFILE_GROUP = 1 << 0,
    NCCL_ABI_PROFILE_COLL = 1 << 1,
    NCCL_ABI_PROFILE_P2P = 1 << 2,
    NCCL_ABI_PROFILE_PROXY_OP = 1 << 3,
    NCCL_ABI_PROFILE_KERNEL_CH = 1 << 6,
    NCCL_ABI_PROFILE_GROUP_API = 1 << 8,     /* v5 */
    NCCL_ABI_PROFILE_COLL_API = 1 << 9,      /* v5 */
    NCCL_ABI_PROFILE_P2P_API = 1 << 10,      /* v5 */
    NCCL_ABI_PROFILE_KERNEL_LAUNCH = 1 << 11 /* v5 */
};

/* ncclDebugLogger_t: void (*)(ncclDebugLogLevel, unsigned long flags, file, line, fmt, ...). */
typedef void (*nccl_abi_logger)(int level, unsigned long flags, const char *file, int line,
                                const char *format, ...);

/* The coll and p2p members of the v4 descriptor; v5 appends a parent_group pointer to each. */
struct nccl_abi_coll_v4 {
    uint64_t sequence_number;
    const char *func; /* "AllReduce", "AllGather", ... (ncclFuncToString) */
    const void *send_buffer;
    void *receive_buffer;
    size_t count;
    int root;
    const char *datatype; /* "ncclFloat32", ... (ncclDatatypeToString) */
    uint8_t channel_count;
    uint8_t warp_count;
    const char *algorithm; /* "RING", "TREE", ... (ncclAlgoToString) */
    const char *protocol;  /* "LL", "LL128", "SIMPLE" (ncclProtoToString) */
};

struct nccl_abi_p2p_v4 {
    const char *func; /* "Send", "Recv" */
    void *buffer;
    const char *datatype;
    size_t count;
    int peer;
    uint8_t channel_count;
};

/* ncclProfilerEventDescr_v5_t (112 bytes). */
struct nccl_abi_event_v5 {
    uint64_t type;
    void *parent;
    int rank;
    union {
        struct {
            struct nccl_abi_coll_v4 fields;
            void *parent_group;
        } coll;
        struct {
            struct nccl_abi_p2p_v4 fields;
            void *parent_group;
        } p2p;
    };
};

/* ncclProfilerEventDescr_v4_t (104 bytes): an 8-bit type. */
struct nccl_abi_event_v4 {
    uint8_t type;
    void *parent;
    int rank;
    union {
        struct nccl_abi_coll_v4 coll;
        struct nccl_abi_p2p_v4 p2p;
    };
};

/* ncclProfilerEventDescr_v3_t (120 bytes): the communicator is named in each descriptor. */
struct nccl_abi_event_v3 {
    uint8_t type;
    void *parent;
    int rank;
    union {
        struct {
            const char *name;
            uint64_t comm_hash;
            uint64_t sequence_number;
            const char *func;
            const void *send_buffer;
            void *receive_buffer;
            size_t count;
            int root;
            const char *datatype;
            uint8_t max_channel_count;
            uint8_t warp_count;
            const char *algorithm;
            const char *protocol;
        } coll;
        struct {
            const char *name;
            uint64_t comm_hash;
            const char *func;
            void *buffer;
            const char *datatype;
            size_t count;
            int peer;
        } p2p;
    };
};

/* ncclProfiler_v5_t, _v4_t, _v3_t: the exported tables. The state argument of
 * recordEventState is an int-sized enum; its args a pointer we never read. */
struct nccl_abi_profiler_v5 {
    const char *name;
    nccl_abi_result (*init)(void **context, uint64_t comm_id, int *activation_mask, const char *comm_name,
                            int node_count, int rank_count, int rank, nccl_abi_logger logger);
    nccl_abi_result (*start_event)(void *context, void **handle, struct nccl_abi_event_v5 *event);
    nccl_abi_result (*stop_event)(void *handle);
    nccl_abi_result (*record_event_state)(void *handle, int state, void *state_arguments);
    nccl_abi_result (*finalize)(void *context);
};

struct nccl_abi_profiler_v4 {
    const char *name;
    nccl_abi_result (*init)(void **context, int *activation_mask, const char *comm_name, uint64_t comm_hash,
                            int node_count, int rank_count, int rank, nccl_abi_logger logger);
    nccl_abi_result (*start_event)(void *context, void **handle, struct nccl_abi_event_v4 *event);
    nccl_abi_result (*stop_event)(void *handle);
    nccl_abi_result (*record_event_state)(void *handle, int state, void *state_arguments);
    nccl_abi_result (*finalize)(void *context);
};

struct nccl_abi_profiler_v3 {
    const char *name;
    nccl_abi_result (*init)(void **context, int *activation_mask);
    nccl_abi_result (*start_event)(void *context, void **handle, struct nccl_abi_event_v3 *event);
    nccl_abi_result (*stop_event)(void *handle);
    nccl_abi_result (*record_event_state)(void *handle, int state, void *state_arguments);
    nccl_abi_result (*finalize)(void *context);
};

#endif
