/* streams_fit: one spin kernel per stream on N non-blocking streams, each grid sized so that the N
 * grids together fit in the device's resident capacity (occupancy x SMs). Nothing holds them
 * apart: a correct analysis reports near-full overlap. */
#include "spin.cuh"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int stream_count = 4, reps = 3, device_ordinal = 0;
    double spin_us = 2000, fill = 0.9;
    const struct wl_option options[] = {
        {"--streams", WL_OPT_INT, &stream_count, "non-blocking streams, one kernel each per rep", 0},
        {"--spin-us", WL_OPT_DOUBLE, &spin_us, "how long each kernel runs (microseconds)", 0},
        {"--fill", WL_OPT_DOUBLE, &fill, "fraction of the resident capacity all grids use together", 0},
        {"--reps", WL_OPT_INT, &reps, "repetitions, each ended by cudaDeviceSynchronize", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "Kernels on N streams whose grids together fit on the SMs: near-full overlap.",
                  options, sizeof options / sizeof options[0]);
    if (stream_count < 1 || reps < 1 || fill <= 0 || fill > 1)
        wl_fail("need --streams >= 1, --reps >= 1 and 0 < --fill <= 1");

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    int capacity = wl_spin_resident_blocks(&device);
    int blocks = (int)(capacity * fill) / stream_count;
    if (blocks < 1)
        wl_fail("%d streams do not fit in %d resident blocks", stream_count, capacity);

    size_t per_stream = (size_t)blocks * WL_SPIN_BLOCK_THREADS;
    float *out = wl_device_zeros(per_stream * stream_count);
    cudaStream_t *streams = (cudaStream_t *)calloc(stream_count, sizeof *streams);
    for (int s = 0; s < stream_count; s++)
        WL_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));

    double start = wl_now_seconds();
    for (int rep = 0; rep < reps; rep++) {
        wl_range_push("rep %d", rep);
        for (int s = 0; s < stream_count; s++)
            wl_launch_spin(blocks, streams[s], out + per_stream * s, (long long)(spin_us * 1e3), 1.0f);
        WL_CHECK(cudaDeviceSynchronize());
        wl_range_pop();
    }
    double elapsed = wl_now_seconds() - start;

    wl_expect_sum("sum of outputs", wl_device_sum(out, per_stream * stream_count),
                  (double)per_stream * stream_count * reps);
    printf("streams_fit: %s, %d streams x %d blocks (capacity %d), %.0f us kernels: "
           "%.3f ms per rep (serial would be %.3f ms)\n",
           device.name, stream_count, blocks, capacity, spin_us, elapsed * 1e3 / reps,
           stream_count * spin_us / 1e3);
    for (int s = 0; s < stream_count; s++)
        WL_CHECK(cudaStreamDestroy(streams[s]));
    WL_CHECK(cudaFree(out));
    free(streams);
    return 0;
}
