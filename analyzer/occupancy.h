/* occupancy.h: how many thread blocks of a kernel fit on one SM at once, and whether one block of
 * another kernel still fits beside them. The analyzer uses it to prove SM saturation: a kernel
 * whose grid fills every SM with as many blocks as can be resident leaves nothing for a kernel on
 * another stream until its last wave drains.
 *
 * The rules follow NVIDIA's CUDA Occupancy Calculator as shipped in cuda_occupancy.h (CUDA 13.0,
 * functions cudaOccMaxBlocksPerSMWarpsLimit, ...SmemLimit, ...RegsLimit) and the CUDA C++
 * Programming Guide, "Compute Capabilities" table: registers are allocated per warp in units of
 * 256, and per SM sub-partition (4 per SM: the warp allocation granularity); shared memory is
 * allocated in units of 256 bytes (cc 3.x-7.x) or 128 bytes (cc 8.0 and later), and from cc 8.0 the
 * driver reserves 1 KiB per block (cudaDevAttrReservedSharedMemoryPerBlock). Unknown device limits
 * are taken from the same tables by compute capability. Pure computation: no I/O. */
#ifndef OVERLAPSCOPE_OCCUPANCY_H
#define OVERLAPSCOPE_OCCUPANCY_H

#include <stdint.h>

/* What one SM offers. Fields left 0 are filled from the compute capability by occupancy_device_complete. */
struct occupancy_device {
    int64_t compute_capability_major, compute_capability_minor;
    int64_t sm_count;
    int64_t max_blocks_per_sm, max_warps_per_sm, max_registers_per_sm, max_registers_per_block;
    int64_t max_shared_memory_per_sm, max_threads_per_block, warp_size;
    int64_t reserved_shared_memory_per_block; /* 1024 on cc >= 8.0 */
};

/* One kernel launch's resource needs. shared_memory_per_sm_bytes: the carve-out the kernel ran
 * with (CUPTI's sharedMemoryExecuted) when known, else 0 (the device maximum is used). */
struct occupancy_kernel {
    int64_t grid_blocks, threads_per_block, registers_per_thread;
    int64_t static_shared_bytes, dynamic_shared_bytes, shared_memory_per_sm_bytes;
};

/* What limits residency. */
enum occupancy_limiter {
    OCCUPANCY_LIMIT_BLOCKS = 0,
    OCCUPANCY_LIMIT_WARPS,
    OCCUPANCY_LIMIT_REGISTERS,
    OCCUPANCY_LIMIT_SHARED_MEMORY,
    OCCUPANCY_LIMIT_UNKNOWN
};

struct occupancy_result {
    int64_t blocks_per_sm; /* resident blocks per SM; 0 when a block cannot launch at all */
    enum occupancy_limiter limiter;
    int64_t warps_per_block;
    int64_t registers_per_block;    /* allocated */
    int64_t shared_bytes_per_block; /* allocated, reservation included */
    int64_t shared_bytes_per_sm;    /* what the SM offered this kernel */
    int64_t waves;                  /* ceil(grid / (blocks_per_sm * sm_count)) */
    int64_t last_wave_blocks;       /* blocks in the last wave */
    int fills_device;               /* grid >= blocks_per_sm * sm_count: every SM held a full load */
};

/* Fills zero fields of device from its compute capability. Returns 0, or -1 when the compute
 * capability is unknown and a needed limit is missing. */
int occupancy_device_complete(struct occupancy_device *device);

/* Computes residency for kernel on device (completed). Returns 0, or -1 when an input needed is
 * unknown (threads per block or registers missing: the caller cannot prove anything). */
int occupancy_compute(const struct occupancy_device *device, const struct occupancy_kernel *kernel,
                      struct occupancy_result *result);

/* 1 when one block of `other` fits on an SM that holds `resident.blocks_per_sm` blocks of the
 * kernel described by resident, 0 when it does not (the SM is saturated for `other`). */
int occupancy_fits_beside(const struct occupancy_device *device, const struct occupancy_result *resident,
                          const struct occupancy_kernel *other);

/* The same question for an SM holding resident_blocks blocks (a grid smaller than a full wave
 * still puts grid / sm_count blocks on every SM): OCCUPANCY_LIMIT_UNKNOWN when one block of
 * `other` fits, else the first resource it lacks (block slots, warps, registers, or shared memory,
 * which includes a carve-out too small for it). */
enum occupancy_limiter occupancy_shortage_beside(const struct occupancy_device *device,
                                                 const struct occupancy_result *resident,
                                                 int64_t resident_blocks,
                                                 const struct occupancy_kernel *other);

/* Warps of `other` that still fit, by registers, on an SM holding resident_blocks blocks of the
 * resident kernel: registers belong to the SM's 4 sub-partitions (16k each on cc 7.0 and later),
 * a warp's registers all in one, and the resident warps are spread evenly over them
 * (cudaOccMaxBlocksPerSMRegsLimit's model). A block fits only when all its warps do, so a block of
 * 17 warps of 3072 registers (NCCL's 544 threads x 96) does not fit beside 8 warps of 1024 although
 * the SM as a whole has the registers. INT64_MAX when other's registers are unknown. */
int64_t occupancy_register_room_warps(const struct occupancy_device *device,
                                      const struct occupancy_result *resident, int64_t resident_blocks,
                                      const struct occupancy_kernel *other);

/* Blocks of a kernel that every SM held at its start: blocks_per_sm for a grid of a full wave or
 * more, else grid / sm_count (rounded down; 0 when some SM held none). */
int64_t occupancy_blocks_on_every_sm(const struct occupancy_device *device,
                                     const struct occupancy_kernel *kernel,
                                     const struct occupancy_result *result);

/* Bytes of shared memory one block of kernel takes (allocation unit and reservation included). */
int64_t occupancy_shared_bytes_per_block(const struct occupancy_device *device,
                                         const struct occupancy_kernel *kernel);

const char *occupancy_limiter_name(enum occupancy_limiter limiter);

#endif
