/* occupancy.c: see occupancy.h. Every rule below is the CUDA Occupancy Calculator's
 * (cuda_occupancy.h, CUDA 13.0) unless said otherwise. */
#include "occupancy.h"

#include <limits.h>

/* Registers are allocated to a warp in units of 256 (cudaOccRegAllocationGranularity, cc 3.x-12.x). */
#define REGISTER_ALLOCATION_UNIT 256
/* An SM has 4 sub-partitions, each owning a quarter of the register file: a warp's registers come
 * from one of them (cudaOccSubPartitionsPerMultiprocessor; 2 only on cc 6.0). */
#define SUB_PARTITIONS_PER_SM 4

static int64_t divide_round_up(int64_t value, int64_t unit)
{
    return unit > 0 ? (value + unit - 1) / unit : value;
}

static int64_t round_up(int64_t value, int64_t unit)
{
    return divide_round_up(value, unit) * unit;
}

/* cudaOccMaxBlocksPerMultiprocessor. */
static int64_t default_max_blocks_per_sm(int64_t major, int64_t minor)
{
    switch (major) {
    case 3:
        return 16;
    case 5:
    case 6:
        return 32;
    case 7:
        return minor == 5 ? 16 : 32;
    case 8:
        return minor == 0 ? 32 : minor == 9 ? 24 : 16;
    case 9:
        return 32;
    case 10:
        return minor == 1 ? 24 : 32;
    case 11:
        return minor == 0 ? 24 : 32;
    case 12:
        return 24;
    default:
        return 0;
    }
}

/* Programming Guide, "Technical Specifications per Compute Capability": resident warps per SM. */
static int64_t default_max_warps_per_sm(int64_t major, int64_t minor)
{
    switch (major) {
    case 3:
    case 5:
    case 6:
        return 64;
    case 7:
        return minor == 5 ? 32 : 64;
    case 8:
        return minor == 0 ? 64 : 48;
    case 9:
    case 10:
        return 64;
    case 11:
    case 12:
        return 48;
    default:
        return 0;
    }
}

/* Programming Guide: maximum shared memory per SM (the largest carve-out). */
static int64_t default_shared_memory_per_sm(int64_t major, int64_t minor)
{
    switch (major) {
    case 5:
    case 6:
        return 64 * 1024;
    case 7:
        return minor == 5 ? 64 * 1024 : 96 * 1024;
    case 8:
        return minor == 0 || minor == 7 ? 164 * 1024 : 100 * 1024;
    case 9:
    case 10:
        return 228 * 1024;
    case 11:
    case 12:
        return 100 * 1024;
    default:
        return 0;
    }
}

/* cudaOccSMemAllocationGranularity. */
static int64_t shared_memory_allocation_unit(int64_t major)
{
    return major >= 8 ? 128 : 256;
}

int occupancy_device_complete(struct occupancy_device *device)
{
    int64_t major = device->compute_capability_major, minor = device->compute_capability_minor;
    if (major < 0)
        major = device->compute_capability_major = 0;
    if (minor < 0)
        minor = device->compute_capability_minor = 0;
    if (device->warp_size <= 0)
        device->warp_size = 32;
    if (device->max_threads_per_block <= 0)
        device->max_threads_per_block = 1024;
    if (device->max_registers_per_sm <= 0)
        device->max_registers_per_sm = 65536;
    if (device->max_registers_per_block <= 0)
        device->max_registers_per_block = 65536;
    if (device->max_blocks_per_sm <= 0)
        device->max_blocks_per_sm = default_max_blocks_per_sm(major, minor);
    if (device->max_warps_per_sm <= 0)
        device->max_warps_per_sm = default_max_warps_per_sm(major, minor);
    if (device->max_shared_memory_per_sm <= 0)
        device->max_shared_memory_per_sm = default_shared_memory_per_sm(major, minor);
    /* cudaOccSMemPerBlock: "Starting Ampere, CUDA driver reserves additional shared memory per
     * block" (1 KiB: cudaDevAttrReservedSharedMemoryPerBlock on cc 8.x-9.x). */
    if (device->reserved_shared_memory_per_block <= 0)
        device->reserved_shared_memory_per_block = major >= 8 ? 1024 : 0;
    if (device->max_blocks_per_sm <= 0 || device->max_warps_per_sm <= 0 ||
        device->max_shared_memory_per_sm <= 0)
        return -1;
    return 0;
}

static int64_t allocated_registers_per_warp(const struct occupancy_device *device,
                                            int64_t registers_per_thread)
{
    return round_up(registers_per_thread * device->warp_size, REGISTER_ALLOCATION_UNIT);
}

static int64_t allocated_shared_bytes(const struct occupancy_device *device,
                                      const struct occupancy_kernel *kernel)
{
    int64_t bytes = (kernel->static_shared_bytes > 0 ? kernel->static_shared_bytes : 0) +
                    (kernel->dynamic_shared_bytes > 0 ? kernel->dynamic_shared_bytes : 0) +
                    device->reserved_shared_memory_per_block;
    return round_up(bytes, shared_memory_allocation_unit(device->compute_capability_major));
}

static int64_t shared_bytes_per_sm(const struct occupancy_device *device,
                                   const struct occupancy_kernel *kernel)
{
    int64_t carve_out = kernel->shared_memory_per_sm_bytes;
    if (carve_out > 0 && carve_out <= device->max_shared_memory_per_sm)
        return carve_out;
    return device->max_shared_memory_per_sm;
}

/* cudaOccMaxBlocksPerSMRegsLimit: registers come per sub-partition, so the warps an SM can hold
 * are (registers per sub-partition / registers per warp) x sub-partitions. */
static int64_t blocks_by_registers(const struct occupancy_device *device, int64_t registers_per_thread,
                                   int64_t warps_per_block)
{
    if (registers_per_thread <= 0)
        return INT64_MAX;
    int64_t per_warp = allocated_registers_per_warp(device, registers_per_thread);
    int64_t assumed_per_block = per_warp * round_up(warps_per_block, SUB_PARTITIONS_PER_SM);
    if (assumed_per_block > device->max_registers_per_block || registers_per_thread > 256)
        return 0;
    int64_t warps_per_sub_partition = (device->max_registers_per_sm / SUB_PARTITIONS_PER_SM) / per_warp;
    return warps_per_sub_partition * SUB_PARTITIONS_PER_SM / warps_per_block;
}

int occupancy_compute(const struct occupancy_device *device, const struct occupancy_kernel *kernel,
                      struct occupancy_result *result)
{
    *result = (struct occupancy_result){.limiter = OCCUPANCY_LIMIT_UNKNOWN};
    if (kernel->threads_per_block <= 0 || kernel->grid_blocks <= 0 || device->max_warps_per_sm <= 0 ||
        device->sm_count <= 0)
        return -1;
    int64_t warps = divide_round_up(kernel->threads_per_block, device->warp_size);
    result->warps_per_block = warps;
    result->registers_per_block =
        kernel->registers_per_thread > 0
            ? allocated_registers_per_warp(device, kernel->registers_per_thread) * warps
            : 0;
    result->shared_bytes_per_block = allocated_shared_bytes(device, kernel);
    result->shared_bytes_per_sm = shared_bytes_per_sm(device, kernel);

    int64_t limits[4];
    limits[OCCUPANCY_LIMIT_BLOCKS] = device->max_blocks_per_sm;
    limits[OCCUPANCY_LIMIT_WARPS] =
        kernel->threads_per_block > device->max_threads_per_block ? 0 : device->max_warps_per_sm / warps;
    limits[OCCUPANCY_LIMIT_REGISTERS] = blocks_by_registers(device, kernel->registers_per_thread, warps);
    limits[OCCUPANCY_LIMIT_SHARED_MEMORY] = result->shared_bytes_per_block > 0
                                                ? result->shared_bytes_per_sm / result->shared_bytes_per_block
                                                : INT64_MAX;
    int64_t best = INT64_MAX;
    for (int limiter = 0; limiter < 4; limiter++) {
        if (limits[limiter] < best) {
            best = limits[limiter];
            result->limiter = (enum occupancy_limiter)limiter;
        }
    }
    result->blocks_per_sm = best;
    if (best <= 0)
        return 0;
    int64_t per_wave = best * device->sm_count;
    result->waves = divide_round_up(kernel->grid_blocks, per_wave);
    result->last_wave_blocks = kernel->grid_blocks - (result->waves - 1) * per_wave;
    result->fills_device = kernel->grid_blocks >= per_wave;
    return 0;
}

int64_t occupancy_register_room_warps(const struct occupancy_device *device,
                                      const struct occupancy_result *resident, int64_t resident_blocks,
                                      const struct occupancy_kernel *other)
{
    if (other->registers_per_thread <= 0)
        return INT64_MAX;
    int64_t other_per_warp = allocated_registers_per_warp(device, other->registers_per_thread);
    int64_t resident_per_warp =
        resident->warps_per_block > 0 ? resident->registers_per_block / resident->warps_per_block : 0;
    int64_t resident_warps = resident_blocks * resident->warps_per_block;
    int64_t per_sub_partition = device->max_registers_per_sm / SUB_PARTITIONS_PER_SM;
    int64_t room = 0;
    for (int64_t p = 0; p < SUB_PARTITIONS_PER_SM; p++) {
        int64_t held =
            resident_warps / SUB_PARTITIONS_PER_SM + (p < resident_warps % SUB_PARTITIONS_PER_SM ? 1 : 0);
        int64_t left = per_sub_partition - held * resident_per_warp;
        if (left > 0)
            room += left / other_per_warp;
    }
    return room;
}

enum occupancy_limiter occupancy_shortage_beside(const struct occupancy_device *device,
                                                 const struct occupancy_result *resident,
                                                 int64_t resident_blocks,
                                                 const struct occupancy_kernel *other)
{
    /* An unknown need is taken as the smallest possible block (one warp, no registers, only the
     * reservation), so "does not fit" stays a proof. */
    int64_t threads = other->threads_per_block > 0 ? other->threads_per_block : 1;
    int64_t warps = divide_round_up(threads, device->warp_size);
    if (resident_blocks + 1 > device->max_blocks_per_sm)
        return OCCUPANCY_LIMIT_BLOCKS;
    if (resident_blocks * resident->warps_per_block + warps > device->max_warps_per_sm)
        return OCCUPANCY_LIMIT_WARPS;
    int64_t registers = other->registers_per_thread > 0
                            ? allocated_registers_per_warp(device, other->registers_per_thread) * warps
                            : 0;
    if (resident_blocks * resident->registers_per_block + registers > device->max_registers_per_sm ||
        (other->registers_per_thread > 0 &&
         occupancy_register_room_warps(device, resident, resident_blocks, other) < warps))
        return OCCUPANCY_LIMIT_REGISTERS;
    int64_t shared = allocated_shared_bytes(device, other);
    if (resident_blocks * resident->shared_bytes_per_block + shared > resident->shared_bytes_per_sm)
        return OCCUPANCY_LIMIT_SHARED_MEMORY;
    return OCCUPANCY_LIMIT_UNKNOWN;
}

int occupancy_fits_beside(const struct occupancy_device *device, const struct occupancy_result *resident,
                          const struct occupancy_kernel *other)
{
    return occupancy_shortage_beside(device, resident, resident->blocks_per_sm, other) ==
           OCCUPANCY_LIMIT_UNKNOWN;
}

int64_t occupancy_blocks_on_every_sm(const struct occupancy_device *device,
                                     const struct occupancy_kernel *kernel,
                                     const struct occupancy_result *result)
{
    if (result->blocks_per_sm <= 0 || device->sm_count <= 0)
        return 0;
    if (result->fills_device)
        return result->blocks_per_sm;
    int64_t even = kernel->grid_blocks / device->sm_count;
    return even < result->blocks_per_sm ? even : result->blocks_per_sm;
}

int64_t occupancy_shared_bytes_per_block(const struct occupancy_device *device,
                                         const struct occupancy_kernel *kernel)
{
    return allocated_shared_bytes(device, kernel);
}

const char *occupancy_limiter_name(enum occupancy_limiter limiter)
{
    switch (limiter) {
    case OCCUPANCY_LIMIT_BLOCKS:
        return "blocks per SM";
    case OCCUPANCY_LIMIT_WARPS:
        return "warps";
    case OCCUPANCY_LIMIT_REGISTERS:
        return "registers";
    case OCCUPANCY_LIMIT_SHARED_MEMORY:
        return "shared memory";
    default:
        return "unknown";
    }
}
