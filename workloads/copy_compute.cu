/* copy_compute: host<->device copies on a copy stream beside compute, in four modes.
 *   --pageable: cudaMemcpyAsync H2D from malloc'd memory, then a kernel on a compute stream. The
 *     runtime stages pageable memory through a pinned buffer and returns only once the source has
 *     been staged (runtime API, "API synchronization behavior"), so the host thread is held in the
 *     copy call and the kernel is launched when the copy is (nearly) over: no overlap.
 *   --pinned: the same from cudaMallocHost memory: the call returns at once, the DMA and the
 *     kernel overlap (programming guide, "Overlap of Data Transfer and Kernel Execution").
 *   --same-direction: one pinned H2D copy alone, then two at once on two streams: copies of one
 *     direction share one copy engine and the link, so the pair takes about twice as long.
 *   --opposite-directions: the same with one H2D and one D2H: separate engines, full duplex link:
 *     the pair takes about as long as one. */
#include "spin.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { MODE_PAGEABLE, MODE_PINNED, MODE_SAME_DIRECTION, MODE_OPPOSITE_DIRECTIONS };

struct buffers {
    size_t bytes;
    unsigned char *host[2]; /* sources / destinations on the host */
    unsigned char *device[2];
};

static void fill_pattern(unsigned char *bytes, size_t count, unsigned seed)
{
    for (size_t i = 0; i < count; i++)
        bytes[i] = (unsigned char)((i * 2654435761u + seed) >> 13);
}

static void buffers_open(struct buffers *b, size_t bytes, int pinned)
{
    b->bytes = bytes;
    for (int i = 0; i < 2; i++) {
        if (pinned)
            WL_CHECK(cudaMallocHost((void **)&b->host[i], bytes));
        else if (!(b->host[i] = (unsigned char *)malloc(bytes)))
            wl_fail("out of host memory (%zu bytes)", bytes);
        /* Touch every page now: the measured copies show staging, not first-touch faults. */
        fill_pattern(b->host[i], bytes, (unsigned)i);
        WL_CHECK(cudaMalloc((void **)&b->device[i], bytes));
        WL_CHECK(cudaMemset(b->device[i], 0, bytes));
    }
}

static void buffers_close(struct buffers *b, int pinned)
{
    for (int i = 0; i < 2; i++) {
        if (pinned)
            WL_CHECK(cudaFreeHost(b->host[i]));
        else
            free(b->host[i]);
        WL_CHECK(cudaFree(b->device[i]));
    }
}

/* The device copy of host buffer `index` must hold its pattern. */
static void expect_device_copy(const struct buffers *b, int index)
{
    unsigned char *check = (unsigned char *)malloc(b->bytes);
    unsigned char *want = (unsigned char *)malloc(b->bytes);
    if (!check || !want)
        wl_fail("out of host memory");
    WL_CHECK(cudaMemcpy(check, b->device[index], b->bytes, cudaMemcpyDeviceToHost));
    fill_pattern(want, b->bytes, (unsigned)index);
    if (memcmp(check, want, b->bytes) != 0)
        wl_fail("verification failed: device buffer %d differs from what was copied", index);
    free(check);
    free(want);
}

static double copy_beside_kernel(const struct buffers *b, int reps, const struct wl_device *device,
                                 double spin_us)
{
    cudaStream_t copy_stream, compute_stream;
    WL_CHECK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
    WL_CHECK(cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking));
    int blocks = wl_spin_resident_blocks(device) / 2;
    size_t outputs = (size_t)blocks * WL_SPIN_BLOCK_THREADS;
    float *out = wl_device_zeros(outputs);
    double start = wl_now_seconds();
    for (int rep = 0; rep < reps; rep++) {
        wl_range_push("rep %d", rep);
        WL_CHECK(cudaMemcpyAsync(b->device[0], b->host[0], b->bytes, cudaMemcpyHostToDevice,
                                 copy_stream));
        wl_launch_spin(blocks, compute_stream, out, (long long)(spin_us * 1e3), 1.0f);
        WL_CHECK(cudaDeviceSynchronize());
        wl_range_pop();
    }
    double per_rep = (wl_now_seconds() - start) / reps;
    wl_expect_sum("sum of kernel outputs", wl_device_sum(out, outputs), (double)outputs * reps);
    expect_device_copy(b, 0);
    WL_CHECK(cudaFree(out));
    WL_CHECK(cudaStreamDestroy(copy_stream));
    WL_CHECK(cudaStreamDestroy(compute_stream));
    return per_rep;
}

/* One copy alone, then two at once on two streams; returns the pair's time over the solo's. */
static double copy_pair(struct buffers *b, int reps, int opposite)
{
    cudaStream_t streams[2];
    for (int s = 0; s < 2; s++)
        WL_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    double solo = 0, pair = 0;
    for (int rep = 0; rep < reps; rep++) {
        wl_range_push("solo %d", rep);
        double start = wl_now_seconds();
        WL_CHECK(cudaMemcpyAsync(b->device[0], b->host[0], b->bytes, cudaMemcpyHostToDevice,
                                 streams[0]));
        WL_CHECK(cudaDeviceSynchronize());
        solo += wl_now_seconds() - start;
        wl_range_pop();

        wl_range_push("pair %d", rep);
        start = wl_now_seconds();
        WL_CHECK(cudaMemcpyAsync(b->device[0], b->host[0], b->bytes, cudaMemcpyHostToDevice,
                                 streams[0]));
        if (opposite)
            WL_CHECK(cudaMemcpyAsync(b->host[1], b->device[1], b->bytes, cudaMemcpyDeviceToHost,
                                     streams[1]));
        else
            WL_CHECK(cudaMemcpyAsync(b->device[1], b->host[1], b->bytes, cudaMemcpyHostToDevice,
                                     streams[1]));
        WL_CHECK(cudaDeviceSynchronize());
        pair += wl_now_seconds() - start;
        wl_range_pop();
    }
    expect_device_copy(b, 0);
    if (!opposite)
        expect_device_copy(b, 1);
    for (int s = 0; s < 2; s++)
        WL_CHECK(cudaStreamDestroy(streams[s]));
    printf("copy_compute: solo copy %.3f ms, pair %.3f ms, ", solo * 1e3 / reps, pair * 1e3 / reps);
    return pair / solo;
}

int main(int argc, char **argv)
{
    int mode = MODE_PAGEABLE, reps = 3, device_ordinal = 0;
    double mib = 32, spin_us = 500;
    const struct wl_option options[] = {
        {"--pageable", WL_OPT_SET, &mode, "H2D copy from pageable memory beside a kernel", MODE_PAGEABLE},
        {"--pinned", WL_OPT_SET, &mode, "H2D copy from pinned memory beside a kernel", MODE_PINNED},
        {"--same-direction", WL_OPT_SET, &mode,
         "one pinned H2D copy alone, then two H2D copies on two streams", MODE_SAME_DIRECTION},
        {"--opposite-directions", WL_OPT_SET, &mode,
         "one pinned H2D copy alone, then an H2D and a D2H copy on two streams",
         MODE_OPPOSITE_DIRECTIONS},
        {"--mib", WL_OPT_DOUBLE, &mib, "size of each copy (MiB)", 0},
        {"--spin-us", WL_OPT_DOUBLE, &spin_us, "how long the kernel beside the copy runs (us)", 0},
        {"--reps", WL_OPT_INT, &reps, "repetitions, each ended by cudaDeviceSynchronize", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "Copies beside compute: pageable (held back by staging) vs pinned (overlaps); "
                  "two copies of one direction (one copy engine: no gain) vs opposite directions.",
                  options, sizeof options / sizeof options[0]);
    if (reps < 1 || mib <= 0)
        wl_fail("need --reps >= 1 and --mib > 0");

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    int pinned = mode != MODE_PAGEABLE;
    struct buffers b;
    buffers_open(&b, (size_t)(mib * 1024 * 1024), pinned);
    if (mode == MODE_PAGEABLE || mode == MODE_PINNED) {
        double per_rep = copy_beside_kernel(&b, reps, &device, spin_us);
        printf("copy_compute: %s, %s %.0f MiB H2D beside a %.0f us kernel: %.3f ms per rep\n",
               device.name, pinned ? "pinned" : "pageable", mib, spin_us, per_rep * 1e3);
    } else {
        int opposite = mode == MODE_OPPOSITE_DIRECTIONS;
        double ratio = copy_pair(&b, reps, opposite);
        printf("pair/solo %.2f (%s, %s, %d async copy engines, %.0f MiB copies)\n", ratio,
               opposite ? "H2D + D2H" : "H2D + H2D", device.name, device.async_engine_count, mib);
    }
    buffers_close(&b, pinned);
    return 0;
}
