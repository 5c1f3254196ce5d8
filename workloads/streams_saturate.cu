/* streams_saturate: one spin kernel per stream on N non-blocking streams, each grid --waves times
 * the device's resident capacity (occupancy x SMs). Every SM is full of the first kernel's blocks
 * until its last wave drains, so the next stream's kernel only starts in that tail: overlap only
 * in tails, cause SM saturation. --fraction F sizes each grid to F of the resident capacity
 * instead (F <= 1/N: all grids fit, full overlap; larger: partial). */
#include "spin.cuh"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int stream_count = 2, reps = 2, device_ordinal = 0;
    double waves = 8, fraction = 0, block_us = 50;
    const struct wl_option options[] = {
        {"--streams", WL_OPT_INT, &stream_count, "non-blocking streams, one kernel each per rep", 0},
        {"--waves", WL_OPT_DOUBLE, &waves, "grid size in multiples of the resident capacity", 0},
        {"--fraction", WL_OPT_DOUBLE, &fraction,
         "instead of --waves: grid size as a fraction of the resident capacity (0: unused)", 0},
        {"--block-us", WL_OPT_DOUBLE, &block_us, "how long each thread block runs (microseconds)", 0},
        {"--reps", WL_OPT_INT, &reps, "repetitions, each ended by cudaDeviceSynchronize", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "Kernels on N streams whose grids each fill every SM many times over (SM "
                  "saturation: overlap only in the tails), or a --fraction of the device each.",
                  options, sizeof options / sizeof options[0]);
    if (stream_count < 1 || reps < 1 || waves <= 0 || fraction < 0)
        wl_fail("need --streams >= 1, --reps >= 1, --waves > 0 and --fraction >= 0");

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    int capacity = wl_spin_resident_blocks(&device);
    double grid_in_capacities = fraction > 0 ? fraction : waves;
    int blocks = (int)(capacity * grid_in_capacities);
    if (blocks < 1)
        wl_fail("a grid of %g x %d blocks is empty", grid_in_capacities, capacity);

    size_t per_stream = (size_t)blocks * WL_SPIN_BLOCK_THREADS;
    float *out = wl_device_zeros(per_stream * stream_count);
    cudaStream_t *streams = (cudaStream_t *)calloc(stream_count, sizeof *streams);
    for (int s = 0; s < stream_count; s++)
        WL_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));

    double start = wl_now_seconds();
    for (int rep = 0; rep < reps; rep++) {
        wl_range_push("rep %d", rep);
        for (int s = 0; s < stream_count; s++)
            wl_launch_spin(blocks, streams[s], out + per_stream * s, (long long)(block_us * 1e3), 1.0f);
        WL_CHECK(cudaDeviceSynchronize());
        wl_range_pop();
    }
    double elapsed = wl_now_seconds() - start;

    wl_expect_sum("sum of outputs", wl_device_sum(out, per_stream * stream_count),
                  (double)per_stream * stream_count * reps);
    printf("streams_saturate: %s, %d streams x %d blocks (%.2f x capacity %d), %.0f us blocks: "
           "%.3f ms per rep\n",
           device.name, stream_count, blocks, (double)blocks / capacity, capacity, block_us,
           elapsed * 1e3 / reps);
    for (int s = 0; s < stream_count; s++)
        WL_CHECK(cudaStreamDestroy(streams[s]));
    WL_CHECK(cudaFree(out));
    free(streams);
    return 0;
}
