/* test_occupancy.c: the occupancy calculator against hand-computed answers from the CUDA
 * Occupancy Calculator's rules (cuda_occupancy.h) and the H100 run in gpu-notes. */
#include "check.h"
#include "occupancy.h"

static struct occupancy_device h100(void)
{
    struct occupancy_device device = {.compute_capability_major = 9,
                                      .compute_capability_minor = 0,
                                      .sm_count = 132,
                                      .max_blocks_per_sm = 32,
                                      .max_warps_per_sm = 64,
                                      .max_registers_per_sm = 65536,
                                      .max_registers_per_block = 65536,
                                      .max_shared_memory_per_sm = 233472,
                                      .max_threads_per_block = 1024,
                                      .warp_size = 32};
    CHECK_INT(occupancy_device_complete(&device), 0);
    return device;
}

static void test_h100_big_blocks(void)
{
    /* gpu-notes: 8448 blocks x 1024 threads, two resident per SM, 32 waves on 132 SMs. */
    struct occupancy_device device = h100();
    struct occupancy_kernel kernel = {
        .grid_blocks = 8448, .threads_per_block = 1024, .registers_per_thread = 32};
    struct occupancy_result result;
    CHECK_INT(occupancy_compute(&device, &kernel, &result), 0);
    CHECK_INT(result.blocks_per_sm, 2);
    CHECK_INT(result.limiter, OCCUPANCY_LIMIT_WARPS);
    CHECK_INT(result.waves, 32);
    CHECK_INT(result.last_wave_blocks, 264);
    CHECK(result.fills_device);
    /* Nothing fits beside two 32-warp blocks: the 64 warp slots are taken. */
    struct occupancy_kernel tiny = {.grid_blocks = 1, .threads_per_block = 32, .registers_per_thread = 8};
    CHECK(!occupancy_fits_beside(&device, &result, &tiny));
    struct occupancy_kernel unknown = {0};
    CHECK(!occupancy_fits_beside(&device, &result, &unknown));
}

static void test_register_limit(void)
{
    /* 128 registers x 32 threads = 4096 per warp; a sub-partition has 16384: 4 warps, 16 per SM;
     * 256-thread blocks are 8 warps: 2 blocks. */
    struct occupancy_device device = h100();
    struct occupancy_kernel kernel = {
        .grid_blocks = 1000, .threads_per_block = 256, .registers_per_thread = 128};
    struct occupancy_result result;
    CHECK_INT(occupancy_compute(&device, &kernel, &result), 0);
    CHECK_INT(result.blocks_per_sm, 2);
    CHECK_INT(result.limiter, OCCUPANCY_LIMIT_REGISTERS);
    CHECK_INT(result.registers_per_block, 4096 * 8);
    CHECK_INT(result.waves, 4); /* 1000 / 264 */
    /* 37 registers round up to 1280 per warp (unit 256): 16384 / 1280 = 12 warps per sub-partition. */
    kernel.registers_per_thread = 37;
    kernel.threads_per_block = 128; /* 4 warps: 48 / 4 = 12 blocks */
    CHECK_INT(occupancy_compute(&device, &kernel, &result), 0);
    CHECK_INT(result.blocks_per_sm, 12);
    CHECK_INT(result.limiter, OCCUPANCY_LIMIT_REGISTERS);
}

static void test_shared_memory_limit(void)
{
    /* 48 KiB dynamic + the 1 KiB reserved per block (cc >= 8.0) = 50176 bytes; 233472 / 50176 = 4. */
    struct occupancy_device device = h100();
    struct occupancy_kernel kernel = {.grid_blocks = 528,
                                      .threads_per_block = 128,
                                      .registers_per_thread = 32,
                                      .dynamic_shared_bytes = 48 * 1024};
    struct occupancy_result result;
    CHECK_INT(occupancy_compute(&device, &kernel, &result), 0);
    CHECK_INT(result.shared_bytes_per_block, 50176);
    CHECK_INT(result.blocks_per_sm, 4);
    CHECK_INT(result.limiter, OCCUPANCY_LIMIT_SHARED_MEMORY);
    CHECK(result.fills_device);
    CHECK_INT(result.waves, 1);
    /* 4 x 50176 = 200704 leaves 32768 bytes: a block without shared memory fits, one needing 48 KiB does not.
     */
    struct occupancy_kernel small = {.threads_per_block = 128, .registers_per_thread = 32};
    CHECK(occupancy_fits_beside(&device, &result, &small));
    struct occupancy_kernel hungry = {
        .threads_per_block = 128, .registers_per_thread = 32, .dynamic_shared_bytes = 48 * 1024};
    CHECK(!occupancy_fits_beside(&device, &result, &hungry));
    /* The carve-out the kernel ran with bounds it: with 100 KiB, only 2 such blocks. */
    kernel.shared_memory_per_sm_bytes = 100 * 1024;
    CHECK_INT(occupancy_compute(&device, &kernel, &result), 0);
    CHECK_INT(result.blocks_per_sm, 2);
}

static void test_allocation_granularity(void)
{
    /* cc 8.0: 128-byte units and 1 KiB reserved; cc 7.0: 256-byte units, nothing reserved. */
    struct occupancy_device ampere = {
        .compute_capability_major = 8, .compute_capability_minor = 0, .sm_count = 108};
    CHECK_INT(occupancy_device_complete(&ampere), 0);
    CHECK_INT(ampere.max_blocks_per_sm, 32);
    CHECK_INT(ampere.max_warps_per_sm, 64);
    CHECK_INT(ampere.reserved_shared_memory_per_block, 1024);
    struct occupancy_kernel kernel = {.grid_blocks = 1, .threads_per_block = 64, .static_shared_bytes = 1};
    struct occupancy_result result;
    CHECK_INT(occupancy_compute(&ampere, &kernel, &result), 0);
    CHECK_INT(result.shared_bytes_per_block, 1152);
    struct occupancy_device volta = {
        .compute_capability_major = 7, .compute_capability_minor = 0, .sm_count = 80};
    CHECK_INT(occupancy_device_complete(&volta), 0);
    CHECK_INT(occupancy_compute(&volta, &kernel, &result), 0);
    CHECK_INT(result.shared_bytes_per_block, 256);
    /* cc 8.6 from the tables alone: 16 blocks, 48 warps: 64-thread blocks are block-slot bound. */
    struct occupancy_device ga102 = {
        .compute_capability_major = 8, .compute_capability_minor = 6, .sm_count = 84};
    CHECK_INT(occupancy_device_complete(&ga102), 0);
    struct occupancy_kernel small = {
        .grid_blocks = 10000, .threads_per_block = 64, .registers_per_thread = 16};
    CHECK_INT(occupancy_compute(&ga102, &small, &result), 0);
    CHECK_INT(result.blocks_per_sm, 16);
    CHECK_INT(result.limiter, OCCUPANCY_LIMIT_BLOCKS);
    /* An unknown architecture without limits cannot be completed. */
    struct occupancy_device unknown = {.sm_count = 10};
    CHECK_INT(occupancy_device_complete(&unknown), -1);
}

static void test_nccl_kernel_and_bad_inputs(void)
{
    /* gpu-notes: NCCL kernels run 24 blocks of 544 threads: far from filling 132 SMs. */
    struct occupancy_device device = h100();
    struct occupancy_kernel nccl = {.grid_blocks = 24, .threads_per_block = 544, .registers_per_thread = 96};
    struct occupancy_result result;
    CHECK_INT(occupancy_compute(&device, &nccl, &result), 0);
    CHECK(!result.fills_device);
    CHECK_INT(result.waves, 1);
    struct occupancy_kernel too_big = {
        .grid_blocks = 1, .threads_per_block = 2048, .registers_per_thread = 32};
    CHECK_INT(occupancy_compute(&device, &too_big, &result), 0);
    CHECK_INT(result.blocks_per_sm, 0);
    struct occupancy_kernel unknown = {.grid_blocks = 1};
    CHECK_INT(occupancy_compute(&device, &unknown, &result), -1);
}

static void test_partial_wave_beside(void)
{
    /* workloads/ddp.cu at --fill 1/8 on H200: a GEMM of 132 blocks x 256 threads x 32 registers
     * (one per SM), beside it NCCL's AllReduce RING_LL block: 544 threads x 96 registers, 102 KiB of
     * shared memory. The SM has 65536 - 8192 registers left, more than the 52224 NCCL's 17 warps
     * take, but per sub-partition: 16384 - 2 x 1024 = 14336 holds 4 warps of 3072, 16 in all. */
    struct occupancy_device device = h100();
    struct occupancy_kernel gemm = {.grid_blocks = 132,
                                    .threads_per_block = 256,
                                    .registers_per_thread = 32,
                                    .static_shared_bytes = 2176,
                                    .shared_memory_per_sm_bytes = 233472};
    struct occupancy_result result;
    CHECK_INT(occupancy_compute(&device, &gemm, &result), 0);
    CHECK(!result.fills_device);
    CHECK_INT(occupancy_blocks_on_every_sm(&device, &gemm, &result), 1);
    struct occupancy_kernel nccl = {.threads_per_block = 544,
                                    .registers_per_thread = 96,
                                    .static_shared_bytes = 21568,
                                    .dynamic_shared_bytes = 82240};
    CHECK_INT(occupancy_register_room_warps(&device, &result, 1, &nccl), 16);
    CHECK_INT(occupancy_shortage_beside(&device, &result, 1, &nccl), OCCUPANCY_LIMIT_REGISTERS);
    CHECK_INT(occupancy_shortage_beside(&device, &result, 0, &nccl), OCCUPANCY_LIMIT_UNKNOWN);
    /* At 64 registers per thread (17 warps of 2048) 7 fit per sub-partition: registers suffice. */
    nccl.registers_per_thread = 64;
    CHECK_INT(occupancy_register_room_warps(&device, &result, 1, &nccl), 28);
    CHECK_INT(occupancy_shortage_beside(&device, &result, 1, &nccl), OCCUPANCY_LIMIT_UNKNOWN);
    /* The driver's 64 KiB carve-out for the GEMM leaves no room for 102 KiB. */
    gemm.shared_memory_per_sm_bytes = 65536;
    CHECK_INT(occupancy_compute(&device, &gemm, &result), 0);
    CHECK_INT(occupancy_shortage_beside(&device, &result, 1, &nccl), OCCUPANCY_LIMIT_SHARED_MEMORY);
    /* 66 blocks leave some SMs empty: no block on every SM, nothing proved. */
    gemm.grid_blocks = 66;
    CHECK_INT(occupancy_compute(&device, &gemm, &result), 0);
    CHECK_INT(occupancy_blocks_on_every_sm(&device, &gemm, &result), 0);
}

int main(void)
{
    test_partial_wave_beside();
    test_h100_big_blocks();
    test_register_limit();
    test_shared_memory_limit();
    test_allocation_granularity();
    test_nccl_kernel_and_bad_inputs();
    return check_finish();
}
