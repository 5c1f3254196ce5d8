/* trace_builder.h: hand-built traces for the analyzer and report tests. Each helper writes one
 * row through store.h with every field the scenario does not care about left unknown, so a test
 * reads as its timeline: "kernel on stream 13 from 0 to 3200 us, launched at -50 us". Times are
 * microseconds from BASE_NS (a large absolute clock, as real traces have). */
#ifndef OVERLAPSCOPE_TRACE_BUILDER_H
#define OVERLAPSCOPE_TRACE_BUILDER_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store.h"

#define BASE_NS INT64_C(1700000000000000000)
#define US(x) ((int64_t)((x)*1000.0))
#define AT(x) (BASE_NS + US(x))

struct builder {
    store *trace;
    char path[512];
    error_info err;
    int64_t next_correlation;
};

/* Creates a fresh trace file under directory. Returns 0 or -1 (message in b->err). */
static inline int builder_create(struct builder *b, const char *directory, const char *name)
{
    snprintf(b->path, sizeof b->path, "%s/%s", directory, name);
    b->next_correlation = 1000;
    b->trace = store_create(b->path, STORE_OVERWRITE | STORE_FAST_UNSAFE, &b->err);
    if (!b->trace || store_begin(b->trace, &b->err) != 0)
        return -1;
    return 0;
}

/* Commits, builds the indexes and keeps the trace open for analysis. */
static inline int builder_finish(struct builder *b)
{
    return store_commit(b->trace, &b->err) == 0 && store_finalize(b->trace, &b->err) == 0 ? 0 : -1;
}

static inline void builder_close(struct builder *b)
{
    store_close(b->trace, NULL);
    b->trace = NULL;
}

static inline int64_t add_process(struct builder *b, int64_t rank)
{
    struct store_process row = {.pid = 4000 + rank,
                                .parent_pid = STORE_NULL,
                                .rank = rank,
                                .local_rank = rank,
                                .world_size = STORE_NULL,
                                .start_ns = STORE_NULL,
                                .end_ns = STORE_NULL,
                                .exit_status = STORE_NULL,
                                .term_signal = STORE_NULL,
                                .dropped_records = 0};
    store_insert_process(b->trace, &row, &b->err);
    return row.process_id;
}

/* An H100 as CUPTI described it (gpu-notes): 132 SMs, cc 9.0, 32 blocks / 64 warps / 64K registers /
 * 228 KiB shared memory per SM. */
static void add_h100(struct builder *b, int64_t process_id, int64_t device_id)
{
    struct store_device row = {.process_id = process_id,
                               .device_id = device_id,
                               .name = "NVIDIA H100 80GB HBM3",
                               .pci_bus_id = STORE_NULL,
                               .sm_count = 132,
                               .compute_capability_major = 9,
                               .compute_capability_minor = 0,
                               .max_blocks_per_sm = 32,
                               .max_warps_per_sm = 64,
                               .max_threads_per_sm = 2048,
                               .max_threads_per_block = 1024,
                               .max_registers_per_sm = 65536,
                               .max_registers_per_block = 65536,
                               .max_shared_memory_per_sm = 233472,
                               .max_shared_memory_per_block = 49152,
                               .max_shared_memory_per_block_optin = 232448,
                               .global_memory_bytes = STORE_NULL,
                               .global_memory_bandwidth_kbps = STORE_NULL,
                               .l2_cache_bytes = STORE_NULL,
                               .core_clock_khz = STORE_NULL,
                               .copy_engine_count = 3,
                               .warp_size = 32};
    store_insert_device(b->trace, &row, &b->err);
}

static inline void add_stream(struct builder *b, int64_t process_id, int64_t device_id, int64_t stream_id,
                              int64_t legacy, int64_t flags, int64_t priority)
{
    struct store_stream row = {.process_id = process_id,
                               .device_id = device_id,
                               .context_id = 1,
                               .stream_id = stream_id,
                               .is_legacy_default = legacy,
                               .is_per_thread_default = 0,
                               .priority = priority,
                               .flags = flags,
                               .label = NULL};
    store_insert_stream(b->trace, &row, &b->err);
}

/* A kernel row with a launch configuration of grid x block threads and 32 registers. */
static inline struct store_kernel kernel_row(int64_t process_id, int64_t stream_id, double start_us,
                                             double end_us, int64_t grid, int64_t block, const char *name)
{
    struct store_kernel row = {.process_id = process_id,
                               .device_id = 0,
                               .context_id = 1,
                               .stream_id = stream_id,
                               .correlation_id = STORE_NULL,
                               .start_ns = AT(start_us),
                               .end_ns = AT(end_us),
                               .queued_ns = STORE_NULL,
                               .submitted_ns = STORE_NULL,
                               .grid_x = grid,
                               .grid_y = 1,
                               .grid_z = 1,
                               .block_x = block,
                               .block_y = 1,
                               .block_z = 1,
                               .cluster_x = 0,
                               .cluster_y = 0,
                               .cluster_z = 0,
                               .registers_per_thread = 32,
                               .static_shared_bytes = 0,
                               .dynamic_shared_bytes = 0,
                               .local_memory_per_thread_bytes = STORE_NULL,
                               .local_memory_total_bytes = STORE_NULL,
                               .shared_memory_executed_bytes = STORE_NULL,
                               .shared_memory_config = STORE_NULL,
                               .launch_type = 0,
                               .is_device_launched = 0,
                               .graph_id = STORE_NULL,
                               .graph_node_id = STORE_NULL,
                               .channel_id = STORE_NULL,
                               .channel_type = STORE_NULL,
                               .priority = STORE_NULL,
                               .name = name};
    return row;
}

static inline int64_t insert_kernel(struct builder *b, struct store_kernel row)
{
    int64_t rowid = 0;
    store_insert_kernel(b->trace, &row, &rowid, &b->err);
    return rowid;
}

static inline struct store_memcpy memcpy_row(int64_t process_id, int64_t stream_id, double start_us,
                                             double end_us, int64_t copy_kind, int64_t host_kind,
                                             int64_t bytes)
{
    struct store_memcpy row = {.process_id = process_id,
                               .device_id = 0,
                               .context_id = 1,
                               .stream_id = stream_id,
                               .correlation_id = STORE_NULL,
                               .start_ns = AT(start_us),
                               .end_ns = AT(end_us),
                               .copy_kind = copy_kind,
                               .src_kind = copy_kind == STORE_COPY_HTOD ? host_kind : STORE_MEMORY_DEVICE,
                               .dst_kind = copy_kind == STORE_COPY_DTOH ? host_kind : STORE_MEMORY_DEVICE,
                               .bytes = bytes,
                               .src_device_id = STORE_NULL,
                               .dst_device_id = STORE_NULL,
                               .is_async = 1,
                               .channel_id = STORE_NULL,
                               .channel_type = STORE_NULL,
                               .copy_count = 1,
                               .graph_id = STORE_NULL,
                               .graph_node_id = STORE_NULL};
    return row;
}

static inline void insert_memcpy(struct builder *b, struct store_memcpy row)
{
    store_insert_memcpy(b->trace, &row, &b->err);
}

/* A host API call on thread; returns its correlation id (pass correlation 0 to get a fresh one). */
static inline int64_t add_api(struct builder *b, int64_t process_id, int64_t thread_id, const char *name,
                              double start_us, double end_us, int64_t correlation)
{
    if (correlation == 0)
        correlation = b->next_correlation++;
    struct store_api_call row = {.process_id = process_id,
                                 .thread_id = thread_id,
                                 .api_domain = STORE_API_RUNTIME,
                                 .callback_id = STORE_NULL,
                                 .correlation_id = correlation,
                                 .start_ns = AT(start_us),
                                 .end_ns = AT(end_us),
                                 .return_value = 0,
                                 .name = name};
    store_insert_api_call(b->trace, &row, &b->err);
    return correlation;
}

static inline void add_nvtx(struct builder *b, int64_t process_id, int64_t thread_id, int64_t device_id,
                            const char *message, double start_us, double end_us)
{
    struct store_nvtx row = {.process_id = process_id,
                             .thread_id = thread_id,
                             .device_id = device_id,
                             .stream_id = STORE_NULL,
                             .kind = STORE_NVTX_PUSH_POP,
                             .domain = NULL,
                             .message = message,
                             .category = STORE_NULL,
                             .color = STORE_NULL,
                             .start_ns = AT(start_us),
                             .end_ns = AT(end_us),
                             .depth = 0};
    store_insert_nvtx(b->trace, &row, &b->err);
}

#endif
