/* host_sync: per rep, a kernel on stream s1, then a host-side call, then a kernel on stream s2.
 * The kernels fit on the device together; what keeps them apart is the call in between:
 *   --op stream-sync: cudaStreamSynchronize(s1) holds the host until s1's kernel is done.
 *   --op device-sync: cudaDeviceSynchronize() holds it until all work is done.
 *   --op free: cudaFree() of a device buffer waits for the device to go idle before it releases
 *     the memory (the programming guide lists device memory allocation among the implicit
 *     synchronizations between streams, "Implicit Synchronization"; cudaFreeAsync exists to
 *     avoid exactly this).
 *   --op malloc: cudaMalloc() of a new buffer; the guide allows it to serialize, drivers often
 *     do not: report what the trace shows.
 *   --op none: nothing in between (control: full overlap). */
#include "spin.cuh"

#include <stdio.h>
#include <string.h>

enum host_op { OP_NONE, OP_STREAM_SYNC, OP_DEVICE_SYNC, OP_MALLOC, OP_FREE };

static enum host_op parse_op(const char *name)
{
    static const char *const names[] = {"none", "stream-sync", "device-sync", "malloc", "free"};
    for (int i = 0; i < 5; i++)
        if (strcmp(name, names[i]) == 0)
            return (enum host_op)i;
    fprintf(stderr, "%s: --op must be none, stream-sync, device-sync, malloc or free, not '%s'\n",
            wl_program_name(), name);
    exit(2);
}

int main(int argc, char **argv)
{
    int reps = 3, device_ordinal = 0;
    double spin_us = 1000, alloc_mib = 64;
    const char *op_name = "stream-sync";
    const struct wl_option options[] = {
        {"--op", WL_OPT_STRING, &op_name,
         "call between the launches: none, stream-sync, device-sync, malloc, free", 0},
        {"--spin-us", WL_OPT_DOUBLE, &spin_us, "how long each kernel runs (microseconds)", 0},
        {"--alloc-mib", WL_OPT_DOUBLE, &alloc_mib, "size of the buffer --op malloc/free handles", 0},
        {"--reps", WL_OPT_INT, &reps, "repetitions, each ended by cudaDeviceSynchronize", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "A synchronizing host call between launches on two streams serializes them.",
                  options, sizeof options / sizeof options[0]);
    enum host_op op = parse_op(op_name);
    if (reps < 1)
        wl_fail("need --reps >= 1");

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    int blocks = wl_spin_resident_blocks(&device) / 2;
    size_t per_stream = (size_t)blocks * WL_SPIN_BLOCK_THREADS;
    float *out = wl_device_zeros(per_stream * 2);
    cudaStream_t first, second;
    WL_CHECK(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
    WL_CHECK(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
    size_t alloc_bytes = (size_t)(alloc_mib * 1024 * 1024);
    long long spin_ns = (long long)(spin_us * 1e3);

    double start = wl_now_seconds();
    for (int rep = 0; rep < reps; rep++) {
        void *scratch = NULL;
        if (op == OP_FREE)
            WL_CHECK(cudaMalloc(&scratch, alloc_bytes));
        wl_range_push("rep %d", rep);
        wl_launch_spin(blocks, first, out, spin_ns, 1.0f);
        switch (op) {
        case OP_NONE: break;
        case OP_STREAM_SYNC: WL_CHECK(cudaStreamSynchronize(first)); break;
        case OP_DEVICE_SYNC: WL_CHECK(cudaDeviceSynchronize()); break;
        case OP_MALLOC: WL_CHECK(cudaMalloc(&scratch, alloc_bytes)); break;
        case OP_FREE: WL_CHECK(cudaFree(scratch)); scratch = NULL; break;
        }
        wl_launch_spin(blocks, second, out + per_stream, spin_ns, 1.0f);
        WL_CHECK(cudaDeviceSynchronize());
        wl_range_pop();
        if (scratch)
            WL_CHECK(cudaFree(scratch));
    }
    double elapsed = wl_now_seconds() - start;

    wl_expect_sum("sum of outputs", wl_device_sum(out, per_stream * 2), (double)per_stream * 2 * reps);
    printf("host_sync: %s, --op %s between two %d-block %.0f us kernels: %.3f ms per rep "
           "(overlapped %.3f, serial %.3f)\n",
           device.name, op_name, blocks, spin_us, elapsed * 1e3 / reps, spin_us / 1e3,
           2 * spin_us / 1e3);
    WL_CHECK(cudaStreamDestroy(first));
    WL_CHECK(cudaStreamDestroy(second));
    WL_CHECK(cudaFree(out));
    return 0;
}
