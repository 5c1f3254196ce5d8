/* bench_device.h: the synthetic H100 device row the analyzer benchmarks give each rank (one
 * definition for bench_analyzer.c and bench_scaling.c). */
#ifndef OVERLAPSCOPE_BENCH_DEVICE_H
#define OVERLAPSCOPE_BENCH_DEVICE_H

#include "store.h"

/* Device 0 of process: an H100 (132 SMs, compute capability 9.0, 3 copy engines). */
static inline int bench_add_device(store *trace, int64_t process, error_info *err)
{
    struct store_device device = {.process_id = process,
                                  .device_id = 0,
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
                                  .max_shared_memory_per_block_optin = STORE_NULL,
                                  .global_memory_bytes = STORE_NULL,
                                  .global_memory_bandwidth_kbps = STORE_NULL,
                                  .l2_cache_bytes = STORE_NULL,
                                  .core_clock_khz = STORE_NULL,
                                  .copy_engine_count = 3,
                                  .warp_size = 32};
    return store_insert_device(trace, &device, err);
}

#endif
