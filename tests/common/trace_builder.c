/* trace_builder.c: see trace_builder.h. */
#include "trace_builder.h"

#include <stdio.h>
#include <string.h>

/* Keeps the first failure: later writes fail for the same reason and would hide it. */
static int note(struct builder *b, int rc, const error_info *err)
{
    if (rc != 0 && b->status == 0) {
        b->status = -1;
        b->err = *err;
    }
    return rc;
}

int builder_create_path(struct builder *b, const char *path)
{
    memset(b, 0, sizeof *b);
    snprintf(b->path, sizeof b->path, "%s", path);
    b->next_correlation = 1000;
    b->trace = store_create(b->path, STORE_OVERWRITE | STORE_FAST_UNSAFE, &b->err);
    if (!b->trace || store_begin(b->trace, &b->err) != 0)
        b->status = -1;
    return b->status;
}

int builder_create(struct builder *b, const char *directory, const char *name)
{
    char path[sizeof b->path];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    return builder_create_path(b, path);
}

int builder_finish(struct builder *b)
{
    if (b->status != 0)
        return -1;
    error_info err;
    if (note(b, store_commit(b->trace, &err), &err) != 0 ||
        note(b, store_finalize(b->trace, &err), &err) != 0)
        return -1;
    return 0;
}

void builder_close(struct builder *b)
{
    store_close(b->trace, NULL);
    b->trace = NULL;
}

struct store_process builder_process_row(int64_t pid, int64_t rank)
{
    struct store_process row = store_process_unknown();
    row.pid = pid;
    row.rank = rank;
    row.dropped_records = 0;
    return row;
}

int64_t builder_insert_process(struct builder *b, struct store_process row)
{
    error_info err;
    return note(b, store_insert_process(b->trace, &row, &err), &err) == 0 ? row.process_id : 0;
}

int64_t builder_process(struct builder *b, int64_t rank)
{
    struct store_process row = builder_process_row(4000 + rank, rank);
    row.local_rank = rank;
    return builder_insert_process(b, row);
}

struct store_device builder_h100_row(int64_t process_id, int64_t device_id)
{
    return (struct store_device){.process_id = process_id,
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
}

void builder_insert_device(struct builder *b, struct store_device row)
{
    error_info err;
    note(b, store_insert_device(b->trace, &row, &err), &err);
}

void builder_h100(struct builder *b, int64_t process_id, int64_t device_id)
{
    builder_insert_device(b, builder_h100_row(process_id, device_id));
}

struct store_stream builder_stream_row(int64_t process_id, int64_t device_id, int64_t stream_id,
                                       int64_t legacy, int64_t flags, int64_t priority)
{
    return (struct store_stream){.process_id = process_id,
                                 .device_id = device_id,
                                 .context_id = 1,
                                 .stream_id = stream_id,
                                 .is_legacy_default = legacy,
                                 .is_per_thread_default = 0,
                                 .priority = priority,
                                 .flags = flags,
                                 .label = NULL};
}

void builder_insert_stream(struct builder *b, struct store_stream row)
{
    error_info err;
    note(b, store_insert_stream(b->trace, &row, &err), &err);
}

void builder_stream(struct builder *b, int64_t process_id, int64_t device_id, int64_t stream_id,
                    int64_t legacy, int64_t flags, int64_t priority)
{
    builder_insert_stream(b, builder_stream_row(process_id, device_id, stream_id, legacy, flags, priority));
}

struct store_kernel builder_kernel_row_ns(int64_t process_id, int64_t stream_id, int64_t start_ns,
                                          int64_t end_ns, int64_t grid, int64_t block, const char *name)
{
    return (struct store_kernel){.process_id = process_id,
                                 .device_id = 0,
                                 .context_id = 1,
                                 .stream_id = stream_id,
                                 .correlation_id = STORE_NULL,
                                 .start_ns = start_ns,
                                 .end_ns = end_ns,
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
}

struct store_kernel builder_kernel_row(int64_t process_id, int64_t stream_id, double start_us, double end_us,
                                       int64_t grid, int64_t block, const char *name)
{
    return builder_kernel_row_ns(process_id, stream_id, AT(start_us), AT(end_us), grid, block, name);
}

struct store_kernel builder_plain_kernel_row_ns(int64_t process_id, int64_t stream_id, int64_t start_ns,
                                                int64_t end_ns, const char *name)
{
    struct store_kernel row =
        builder_kernel_row_ns(process_id, stream_id, start_ns, end_ns, STORE_NULL, STORE_NULL, name);
    int64_t *launch = &row.grid_x;
    for (int f = 0; f < 23; f++) /* grid_x .. priority, in the struct's order */
        launch[f] = STORE_NULL;
    return row;
}

int64_t builder_insert_kernel(struct builder *b, struct store_kernel row)
{
    error_info err;
    int64_t rowid = 0;
    note(b, store_insert_kernel(b->trace, &row, &rowid, &err), &err);
    return rowid;
}

struct store_memcpy builder_memcpy_row_ns(int64_t process_id, int64_t stream_id, int64_t start_ns,
                                          int64_t end_ns, int64_t copy_kind, int64_t host_kind, int64_t bytes)
{
    return (struct store_memcpy){.process_id = process_id,
                                 .device_id = 0,
                                 .context_id = 1,
                                 .stream_id = stream_id,
                                 .correlation_id = STORE_NULL,
                                 .start_ns = start_ns,
                                 .end_ns = end_ns,
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
}

struct store_memcpy builder_memcpy_row(int64_t process_id, int64_t stream_id, double start_us, double end_us,
                                       int64_t copy_kind, int64_t host_kind, int64_t bytes)
{
    return builder_memcpy_row_ns(process_id, stream_id, AT(start_us), AT(end_us), copy_kind, host_kind,
                                 bytes);
}

void builder_insert_memcpy(struct builder *b, struct store_memcpy row)
{
    error_info err;
    note(b, store_insert_memcpy(b->trace, &row, &err), &err);
}

struct store_memset builder_memset_row_ns(int64_t process_id, int64_t stream_id, int64_t start_ns,
                                          int64_t end_ns, int64_t bytes)
{
    return (struct store_memset){.process_id = process_id,
                                 .device_id = 0,
                                 .context_id = 1,
                                 .stream_id = stream_id,
                                 .correlation_id = STORE_NULL,
                                 .start_ns = start_ns,
                                 .end_ns = end_ns,
                                 .value = 0,
                                 .bytes = bytes,
                                 .memory_kind = STORE_MEMORY_DEVICE,
                                 .is_async = 1,
                                 .channel_id = STORE_NULL,
                                 .channel_type = STORE_NULL,
                                 .graph_id = STORE_NULL,
                                 .graph_node_id = STORE_NULL};
}

void builder_insert_memset(struct builder *b, struct store_memset row)
{
    error_info err;
    note(b, store_insert_memset(b->trace, &row, &err), &err);
}

struct store_api_call builder_api_row_ns(int64_t process_id, int64_t thread_id, const char *name,
                                         int64_t start_ns, int64_t end_ns, int64_t correlation)
{
    return (struct store_api_call){.process_id = process_id,
                                   .thread_id = thread_id,
                                   .api_domain = STORE_API_RUNTIME,
                                   .callback_id = STORE_NULL,
                                   .correlation_id = correlation,
                                   .start_ns = start_ns,
                                   .end_ns = end_ns,
                                   .return_value = 0,
                                   .name = name};
}

void builder_insert_api(struct builder *b, struct store_api_call row)
{
    error_info err;
    note(b, store_insert_api_call(b->trace, &row, &err), &err);
}

int64_t builder_api(struct builder *b, int64_t process_id, int64_t thread_id, const char *name,
                    double start_us, double end_us, int64_t correlation)
{
    if (correlation == 0)
        correlation = b->next_correlation++;
    builder_insert_api(
        b, builder_api_row_ns(process_id, thread_id, name, AT(start_us), AT(end_us), correlation));
    return correlation;
}

struct store_nvtx builder_nvtx_row_ns(int64_t process_id, int64_t thread_id, int64_t device_id,
                                      const char *message, int64_t start_ns, int64_t end_ns)
{
    return (struct store_nvtx){.process_id = process_id,
                               .thread_id = thread_id,
                               .device_id = device_id,
                               .stream_id = STORE_NULL,
                               .kind = STORE_NVTX_PUSH_POP,
                               .domain = NULL,
                               .message = message,
                               .category = STORE_NULL,
                               .color = STORE_NULL,
                               .start_ns = start_ns,
                               .end_ns = end_ns,
                               .depth = 0};
}

void builder_insert_nvtx(struct builder *b, struct store_nvtx row)
{
    error_info err;
    note(b, store_insert_nvtx(b->trace, &row, &err), &err);
}

void builder_nvtx(struct builder *b, int64_t process_id, int64_t thread_id, int64_t device_id,
                  const char *message, double start_us, double end_us)
{
    builder_insert_nvtx(
        b, builder_nvtx_row_ns(process_id, thread_id, device_id, message, AT(start_us), AT(end_us)));
}

struct store_collective builder_collective_row_ns(int64_t process_id, int64_t stream_id, const char *op,
                                                  int64_t bytes, const char *communicator, int64_t rank,
                                                  int64_t nranks, int64_t kernel_rowid, int64_t start_ns,
                                                  int64_t end_ns)
{
    return (struct store_collective){.process_id = process_id,
                                     .device_id = 0,
                                     .stream_id = stream_id,
                                     .op = op,
                                     .bytes = bytes,
                                     .element_count = STORE_NULL,
                                     .dtype = NULL,
                                     .root = STORE_NULL,
                                     .algorithm = NULL,
                                     .protocol = NULL,
                                     .communicator = communicator,
                                     .rank = rank,
                                     .nranks = nranks,
                                     .sequence_number = STORE_NULL,
                                     .kernel_rowid = kernel_rowid,
                                     .start_ns = start_ns,
                                     .end_ns = end_ns,
                                     .detail_source = STORE_DETAIL_KERNEL_NAME};
}

void builder_insert_collective(struct builder *b, struct store_collective row)
{
    error_info err;
    note(b, store_insert_collective(b->trace, &row, &err), &err);
}
