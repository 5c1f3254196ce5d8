/* launch_bound: many tiny kernels (one 32-thread block, a few microseconds) launched alternately
 * on two streams from one host thread, with --host-us of host work per launch standing in for a
 * framework's per-operator overhead. Each kernel finishes before the host has issued the next, so
 * the GPU idles between launches and the two streams barely overlap although nothing prevents
 * it: a correct analysis reports a low GPU busy fraction and the host launch rate as the cause. */
#include "common.h"

#include <stdio.h>

static __global__ void tiny_add(float *values)
{
    values[threadIdx.x] += 1.0f;
}

int main(int argc, char **argv)
{
    int launches = 1000, device_ordinal = 0;
    double host_us = 5;
    const struct wl_option options[] = {
        {"--launches", WL_OPT_INT, &launches, "kernels per stream", 0},
        {"--host-us", WL_OPT_DOUBLE, &host_us, "host work before each launch (microseconds)", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "Many tiny kernels on two streams from one host thread: the GPU idles between "
                  "launches (launch-bound).",
                  options, sizeof options / sizeof options[0]);
    if (launches < 1 || host_us < 0)
        wl_fail("need --launches >= 1 and --host-us >= 0");

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    enum { THREADS = 32 };
    float *values = wl_device_zeros(2 * THREADS);
    cudaStream_t streams[2];
    for (int s = 0; s < 2; s++)
        WL_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));

    wl_range_push("launch loop");
    double start = wl_now_seconds();
    for (int i = 0; i < launches; i++)
        for (int s = 0; s < 2; s++) {
            wl_host_busy_us(host_us);
            tiny_add<<<1, THREADS, 0, streams[s]>>>(values + s * THREADS);
            WL_CHECK_LAUNCH();
        }
    double issued = wl_now_seconds() - start;
    WL_CHECK(cudaDeviceSynchronize());
    double elapsed = wl_now_seconds() - start;
    wl_range_pop();

    wl_expect_sum("sum of counters", wl_device_sum(values, 2 * THREADS), 2.0 * THREADS * launches);
    printf("launch_bound: %s, %d tiny kernels on 2 streams, %.1f us host work each: issued in "
           "%.3f ms (%.2f us per launch), done %.3f ms after the first\n",
           device.name, 2 * launches, host_us, issued * 1e3, issued * 1e6 / (2 * launches),
           elapsed * 1e3);
    for (int s = 0; s < 2; s++)
        WL_CHECK(cudaStreamDestroy(streams[s]));
    WL_CHECK(cudaFree(values));
    return 0;
}
