/* event_chain: per rep, a kernel on each of N non-blocking streams, each stream waiting
 * (cudaStreamWaitEvent) for an event recorded after the previous stream's kernel. The kernels
 * would fit on the device together, but the dependencies serialize them by design: a correct
 * analysis reports no overlap and names the stream-wait-event chain as the cause, not resources.
 * --no-deps drops the waits (control: full overlap). */
#include "spin.cuh"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int stream_count = 3, reps = 3, device_ordinal = 0, no_deps = 0;
    double spin_us = 1000;
    const struct wl_option options[] = {
        {"--streams", WL_OPT_INT, &stream_count, "streams in the chain", 0},
        {"--spin-us", WL_OPT_DOUBLE, &spin_us, "how long each kernel runs (microseconds)", 0},
        {"--no-deps", WL_OPT_SET, &no_deps, "launch the same kernels without the event waits", 1},
        {"--reps", WL_OPT_INT, &reps, "repetitions, each ended by cudaDeviceSynchronize", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "Kernels on N streams chained by cudaStreamWaitEvent: serialized by design.",
                  options, sizeof options / sizeof options[0]);
    if (stream_count < 2 || reps < 1)
        wl_fail("need --streams >= 2 and --reps >= 1");

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    int blocks = wl_spin_resident_blocks(&device) / stream_count;
    if (blocks < 1)
        wl_fail("%d streams do not fit on the device", stream_count);
    size_t per_stream = (size_t)blocks * WL_SPIN_BLOCK_THREADS;
    float *out = wl_device_zeros(per_stream * stream_count);
    cudaStream_t *streams = (cudaStream_t *)calloc(stream_count, sizeof *streams);
    cudaEvent_t *done = (cudaEvent_t *)calloc(stream_count, sizeof *done);
    for (int s = 0; s < stream_count; s++) {
        WL_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        WL_CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    }

    double start = wl_now_seconds();
    for (int rep = 0; rep < reps; rep++) {
        wl_range_push("rep %d", rep);
        for (int s = 0; s < stream_count; s++) {
            if (s > 0 && !no_deps)
                WL_CHECK(cudaStreamWaitEvent(streams[s], done[s - 1], 0));
            wl_launch_spin(blocks, streams[s], out + per_stream * s, (long long)(spin_us * 1e3), 1.0f);
            WL_CHECK(cudaEventRecord(done[s], streams[s]));
        }
        WL_CHECK(cudaDeviceSynchronize());
        wl_range_pop();
    }
    double elapsed = wl_now_seconds() - start;

    wl_expect_sum("sum of outputs", wl_device_sum(out, per_stream * stream_count),
                  (double)per_stream * stream_count * reps);
    printf("event_chain: %s, %d streams %s, %d blocks x %.0f us each: %.3f ms per rep\n",
           device.name, stream_count, no_deps ? "independent" : "chained by events", blocks,
           spin_us, elapsed * 1e3 / reps);
    for (int s = 0; s < stream_count; s++) {
        WL_CHECK(cudaStreamDestroy(streams[s]));
        WL_CHECK(cudaEventDestroy(done[s]));
    }
    WL_CHECK(cudaFree(out));
    free(streams);
    free(done);
    return 0;
}
