/* many_streams: S non-blocking streams, K dependent kernels each (a kernel waits for the previous
 * one of its stream), launched depth first (all of stream 0, then all of stream 1, ...). All S
 * kernels of a round fit on the device together. The host reaches the GPU through
 * CUDA_DEVICE_MAX_CONNECTIONS hardware queues (default 8; programming guide, environment
 * variables); streams beyond that share queues, and a queue runs in order: stream 2's first
 * kernel sits behind stream 0's second, which waits for stream 0's first. With more streams than
 * connections the streams sharing a queue serialize although nothing in the program orders them
 * ("false serialization"); CUPTI's channelID shows the shared queue. --breadth-first launches
 * round by round instead, which keeps the queues flowing. */
#include "spin.cuh"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int stream_count = 4, kernels = 4, reps = 2, device_ordinal = 0, breadth_first = 0;
    int connections = 0;
    double spin_us = 500;
    const struct wl_option options[] = {
        {"--streams", WL_OPT_INT, &stream_count, "non-blocking streams", 0},
        {"--kernels", WL_OPT_INT, &kernels, "dependent kernels per stream per rep", 0},
        {"--spin-us", WL_OPT_DOUBLE, &spin_us, "how long each kernel runs (microseconds)", 0},
        {"--breadth-first", WL_OPT_SET, &breadth_first,
         "launch round by round (one kernel per stream) instead of stream by stream", 1},
        {"--connections", WL_OPT_INT, &connections,
         "set CUDA_DEVICE_MAX_CONNECTIONS before CUDA starts (0: leave the environment as is)", 0},
        {"--reps", WL_OPT_INT, &reps, "repetitions, each ended by cudaDeviceSynchronize", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "More streams than CUDA_DEVICE_MAX_CONNECTIONS: streams sharing a hardware queue "
                  "serialize (false serialization).",
                  options, sizeof options / sizeof options[0]);
    if (stream_count < 1 || kernels < 1 || reps < 1 || connections < 0)
        wl_fail("need --streams, --kernels, --reps >= 1 and --connections >= 0");
    if (connections > 0) {
        char text[16];
        snprintf(text, sizeof text, "%d", connections);
        setenv("CUDA_DEVICE_MAX_CONNECTIONS", text, 1);
    }
    const char *configured = getenv("CUDA_DEVICE_MAX_CONNECTIONS");

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    int blocks = wl_spin_resident_blocks(&device) / stream_count;
    if (blocks < 1)
        wl_fail("%d streams do not fit on the device", stream_count);
    size_t per_stream = (size_t)blocks * WL_SPIN_BLOCK_THREADS;
    float *out = wl_device_zeros(per_stream * stream_count);
    cudaStream_t *streams = (cudaStream_t *)calloc(stream_count, sizeof *streams);
    for (int s = 0; s < stream_count; s++)
        WL_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));

    long long spin_ns = (long long)(spin_us * 1e3);
    int outer = breadth_first ? kernels : stream_count;
    int inner = breadth_first ? stream_count : kernels;
    double start = wl_now_seconds();
    for (int rep = 0; rep < reps; rep++) {
        wl_range_push("rep %d", rep);
        for (int o = 0; o < outer; o++)
            for (int i = 0; i < inner; i++) {
                int s = breadth_first ? i : o;
                wl_launch_spin(blocks, streams[s], out + per_stream * s, spin_ns, 1.0f);
            }
        WL_CHECK(cudaDeviceSynchronize());
        wl_range_pop();
    }
    double elapsed = wl_now_seconds() - start;

    wl_expect_sum("sum of outputs", wl_device_sum(out, per_stream * stream_count),
                  (double)per_stream * stream_count * kernels * reps);
    printf("many_streams: %s, CUDA_DEVICE_MAX_CONNECTIONS=%s, %d streams x %d kernels (%s), "
           "%.0f us each: %.3f ms per rep (ideal %.3f ms)\n",
           device.name, configured ? configured : "unset (8)", stream_count, kernels,
           breadth_first ? "breadth first" : "depth first", spin_us, elapsed * 1e3 / reps,
           kernels * spin_us / 1e3);
    for (int s = 0; s < stream_count; s++)
        WL_CHECK(cudaStreamDestroy(streams[s]));
    WL_CHECK(cudaFree(out));
    free(streams);
    return 0;
}
