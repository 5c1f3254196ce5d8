/* default_stream: per rep, a kernel on a created blocking stream s1, a kernel on the default
 * stream (handle 0), then a kernel on a second blocking stream s2; each grid a third of what
 * fits, so only stream semantics can keep them apart.
 *   Built plainly, handle 0 is the legacy default stream: it waits for all prior work in blocking
 *   streams and blocking streams wait for it (CUDA programming guide, "Default Stream"; runtime
 *   API, "Stream synchronization behavior"), so the three kernels run one after another.
 *   Built with nvcc --default-stream per-thread (default_stream_ptds), handle 0 is the per-thread
 *   default stream, which does not synchronize with other streams: all three overlap.
 *   --non-blocking creates s1 and s2 with cudaStreamNonBlocking: they overlap the legacy stream. */
#include "spin.cuh"

#include <stdio.h>

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
static const char *const default_stream_kind = "per-thread";
#else
static const char *const default_stream_kind = "legacy";
#endif

int main(int argc, char **argv)
{
    int reps = 3, device_ordinal = 0, non_blocking = 0;
    double spin_us = 1000;
    const struct wl_option options[] = {
        {"--spin-us", WL_OPT_DOUBLE, &spin_us, "how long each kernel runs (microseconds)", 0},
        {"--non-blocking", WL_OPT_SET, &non_blocking,
         "create s1 and s2 with cudaStreamNonBlocking instead of as blocking streams", 1},
        {"--reps", WL_OPT_INT, &reps, "repetitions, each ended by cudaDeviceSynchronize", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "A default-stream kernel between kernels on two created streams: serialized "
                  "by the legacy default stream, overlapped when built with --default-stream "
                  "per-thread (default_stream_ptds) or with --non-blocking streams.",
                  options, sizeof options / sizeof options[0]);
    if (reps < 1)
        wl_fail("need --reps >= 1");

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    int blocks = wl_spin_resident_blocks(&device) / 3;
    size_t per_kernel = (size_t)blocks * WL_SPIN_BLOCK_THREADS;
    float *out = wl_device_zeros(per_kernel * 3);
    cudaStream_t first, second;
    unsigned flags = non_blocking ? cudaStreamNonBlocking : cudaStreamDefault;
    WL_CHECK(cudaStreamCreateWithFlags(&first, flags));
    WL_CHECK(cudaStreamCreateWithFlags(&second, flags));
    WL_CHECK(cudaDeviceSynchronize());

    long long spin_ns = (long long)(spin_us * 1e3);
    double start = wl_now_seconds();
    for (int rep = 0; rep < reps; rep++) {
        wl_range_push("rep %d", rep);
        wl_launch_spin(blocks, first, out, spin_ns, 1.0f);
        wl_launch_spin(blocks, 0, out + per_kernel, spin_ns, 1.0f);
        wl_launch_spin(blocks, second, out + 2 * per_kernel, spin_ns, 1.0f);
        WL_CHECK(cudaDeviceSynchronize());
        wl_range_pop();
    }
    double elapsed = wl_now_seconds() - start;

    wl_expect_sum("sum of outputs", wl_device_sum(out, per_kernel * 3), (double)per_kernel * 3 * reps);
    printf("default_stream: %s, %s default stream, %s streams, 3 x %d blocks of %.0f us: "
           "%.3f ms per rep (serial %.3f ms, overlapped %.3f ms)\n",
           device.name, default_stream_kind, non_blocking ? "non-blocking" : "blocking", blocks,
           spin_us, elapsed * 1e3 / reps, 3 * spin_us / 1e3, spin_us / 1e3);
    WL_CHECK(cudaStreamDestroy(first));
    WL_CHECK(cudaStreamDestroy(second));
    WL_CHECK(cudaFree(out));
    return 0;
}
