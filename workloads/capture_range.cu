/* capture_range: GPU work before, inside and after the ranges record --capture-range selects, one
 * phase a second apart so that --delay and --duration can select by time too. Each phase launches
 * its own number of spin kernels with its own grid (the phase's blocks), so a trace says which
 * phases it captured by the kernels' grid_x alone (tests/gpu/capture_range.sh):
 *   phase  grid  kernels  where
 *   A      11    3        before everything
 *   B      12    5        between cudaProfilerStart and cudaProfilerStop
 *   C      13    7        after cudaProfilerStop, outside any NVTX range
 *   D      14    4        inside the first NVTX range "capture_me"
 *   E      15    2        inside the second NVTX range "capture_me" (nested in one "outer")
 *   F      16    1        after everything
 * Phase A starts at once (t = 0 after the device is open), phase N at about N seconds. */
#include "spin.cuh"

#include <cuda_profiler_api.h>
#include <stdio.h>
#include <time.h>

static void sleep_until(double start, double seconds)
{
    while (wl_now_seconds() - start < seconds) {
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
}

/* One phase: count kernels of grid blocks on stream, then wait for them. */
static void phase(int blocks, int count, float *out, long long spin_ns)
{
    for (int i = 0; i < count; i++)
        wl_launch_spin(blocks, 0, out, spin_ns, 1.0f);
    WL_CHECK_LAUNCH();
    WL_CHECK(cudaDeviceSynchronize());
}

int main(int argc, char **argv)
{
    int device_ordinal = 0;
    double spin_us = 1000, gap_s = 1.0;
    const struct wl_option options[] = {
        {"--spin-us", WL_OPT_DOUBLE, &spin_us, "how long each kernel runs (microseconds)", 0},
        {"--gap-s", WL_OPT_DOUBLE, &gap_s, "seconds from one phase's start to the next's", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "Kernels before, inside and after cudaProfilerStart/Stop and NVTX ranges 'capture_me'.",
                  options, sizeof options / sizeof options[0]);
    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    float *out = wl_device_zeros(16 * WL_SPIN_BLOCK_THREADS);
    long long spin_ns = (long long)(spin_us * 1e3);

    double start = wl_now_seconds();
    phase(11, 3, out, spin_ns); /* A */
    sleep_until(start, 1 * gap_s);
    WL_CHECK(cudaProfilerStart());
    phase(12, 5, out, spin_ns); /* B */
    WL_CHECK(cudaProfilerStop());
    sleep_until(start, 2 * gap_s);
    phase(13, 7, out, spin_ns); /* C */
    sleep_until(start, 3 * gap_s);
    wl_range_push("capture_me");
    phase(14, 4, out, spin_ns); /* D */
    wl_range_pop();
    sleep_until(start, 4 * gap_s);
    wl_range_push("outer");
    wl_range_push("capture_me");
    phase(15, 2, out, spin_ns); /* E */
    wl_range_pop();
    wl_range_pop();
    sleep_until(start, 5 * gap_s);
    phase(16, 1, out, spin_ns); /* F */

    /* every block of every kernel added 1 to its element: blocks 0..10 ran 22 times, ... */
    double want = 0;
    const int grids[] = {11, 12, 13, 14, 15, 16}, counts[] = {3, 5, 7, 4, 2, 1};
    for (int p = 0; p < 6; p++)
        want += (double)grids[p] * counts[p] * WL_SPIN_BLOCK_THREADS;
    wl_expect_sum("capture_range", wl_device_sum(out, 16 * WL_SPIN_BLOCK_THREADS), want);
    printf("capture_range: 22 kernels in 6 phases over %.1f s\n", wl_now_seconds() - start);
    WL_CHECK(cudaFree(out));
    return 0;
}
