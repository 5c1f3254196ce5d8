/* spin.cuh: the calibrated "spin" kernel most workloads are built from.
 * wl_spin_kernel: every thread waits spin_ns on the GPU's global timer, then adds `value` to its
 * own element out[blockIdx.x * blockDim.x + threadIdx.x]. Its duration is set in time, not in
 * work, so a kernel's length does not depend on clocks or on what shares the SM; its footprint
 * (blocks per SM) is what the occupancy query says. The sum of `out` proves every block ran.
 * Defined `static` in each program on purpose: the launch must be compiled in the program's own
 * translation unit, because stream handle 0 means the legacy or the per-thread default stream
 * depending on how that unit was compiled (nvcc --default-stream). */
#ifndef WORKLOADS_SPIN_CUH
#define WORKLOADS_SPIN_CUH

#include "common.h"

enum { WL_SPIN_BLOCK_THREADS = 256 };

/* %globaltimer is the GPU's nanosecond wall clock (PTX ISA, "Special Registers"); it does not
 * depend on the SM clock, so a spin lasts as long on a throttled GPU as on a boosted one. */
static __device__ unsigned long long wl_global_timer_ns(void)
{
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
}

static __global__ void wl_spin_kernel(float *out, long long spin_ns, float value)
{
    unsigned long long start = wl_global_timer_ns();
    while ((long long)(wl_global_timer_ns() - start) < spin_ns) {
    }
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] += value;
}

static inline void wl_launch_spin(int blocks, cudaStream_t stream, float *out, long long spin_ns,
                                  float value)
{
    wl_spin_kernel<<<blocks, WL_SPIN_BLOCK_THREADS, 0, stream>>>(out, spin_ns, value);
    WL_CHECK_LAUNCH();
}

/* Thread blocks of the spin kernel the whole device holds at once (per-SM occupancy x SMs). */
static inline int wl_spin_resident_blocks(const struct wl_device *device)
{
    return wl_blocks_per_sm((const void *)wl_spin_kernel, WL_SPIN_BLOCK_THREADS, 0) *
           device->sm_count;
}

#endif
