/* host_bound: a loop in which the GPU is mostly idle because of what the host does, one mode per
 * idle-time cause (docs/metrics.md, "Idle time"). Each iteration launches one short spin kernel
 * (--kernel-us, one block) on one stream, then:
 *   --mode sync:   cudaDeviceSynchronize() (seed 004: torch.mm then torch.cuda.synchronize()): the
 *                  host waits for the queue to drain before it issues the next kernel: host-sync,
 *                  named cudaDeviceSynchronize.
 *   --mode item:   a 4-byte cudaMemcpyAsync to pageable host memory and cudaStreamSynchronize, as
 *                  PyTorch's .item() does (a loss read every step): host-sync, ".item()-style".
 *   --mode cpu:    --host-us of host work and no CUDA call (Python, a data loader): host-cpu.
 *   --mode launch: nothing: one-block kernels shorter than a launch call, so the GPU drains each
 *                  before the next arrives: launch-bound (launch rate and per-launch cost).
 * and the same loops with the fix made, the what-if pairs of issue 17 (docs/metrics.md, "What-if"):
 *   --mode none:         the kernels alone, back to back (sync, item and cpu with the host's part
 *                        removed).
 *   --mode launch-graph: launch's empty kernels captured once in a CUDA graph and launched as one
 *                        graph (the capture happens before the timed range).
 * The kernels' sum (each adds 1 to every element of its block) proves every one ran. */
#include "spin.cuh"

#include <stdio.h>
#include <string.h>

enum host_mode { MODE_SYNC, MODE_ITEM, MODE_CPU, MODE_LAUNCH, MODE_NONE, MODE_LAUNCH_GRAPH };

static enum host_mode parse_mode(const char *name)
{
    static const char *const names[] = {"sync", "item", "cpu", "launch", "none", "launch-graph"};
    for (int i = 0; i < 6; i++)
        if (strcmp(name, names[i]) == 0)
            return (enum host_mode)i;
    fprintf(stderr, "%s: --mode must be sync, item, cpu, launch, none or launch-graph, not '%s'\n",
            wl_program_name(), name);
    exit(2);
}

int main(int argc, char **argv)
{
    int iterations = 300, device_ordinal = 0;
    double kernel_us = 5, host_us = 200;
    const char *mode_name = "sync";
    const struct wl_option options[] = {
        {"--mode", WL_OPT_STRING, &mode_name, "what the host does each iteration: sync, item, cpu, launch, none, launch-graph", 0},
        {"--iterations", WL_OPT_INT, &iterations, "loop iterations (one kernel each)", 0},
        {"--kernel-us", WL_OPT_DOUBLE, &kernel_us, "how long each kernel spins (microseconds; --mode launch: 0)", 0},
        {"--host-us", WL_OPT_DOUBLE, &host_us, "--mode cpu: host work per iteration (microseconds)", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv, "A loop whose GPU idles because of the host: one mode per idle cause.", options,
                  sizeof options / sizeof options[0]);
    enum host_mode mode = parse_mode(mode_name);
    if (iterations < 1 || kernel_us < 0 || host_us < 0)
        wl_fail("need --iterations >= 1, --kernel-us >= 0 and --host-us >= 0");
    if (mode == MODE_LAUNCH || mode == MODE_LAUNCH_GRAPH)
        kernel_us = 0;

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    float *out = wl_device_zeros(WL_SPIN_BLOCK_THREADS);
    cudaStream_t stream;
    WL_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    long long spin_ns = (long long)(kernel_us * 1e3);
    float readback = 0; /* pageable, as .item()'s destination is */

    cudaGraphExec_t graph_exec = NULL;
    if (mode == MODE_LAUNCH_GRAPH) { /* the loop's launches, captured once */
        cudaGraph_t graph;
        WL_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        for (int i = 0; i < iterations; i++)
            wl_launch_spin(1, stream, out, spin_ns, 1.0f);
        WL_CHECK(cudaStreamEndCapture(stream, &graph));
        WL_CHECK(cudaGraphInstantiate(&graph_exec, graph, 0));
        WL_CHECK(cudaGraphDestroy(graph));
    }

    wl_range_push("host_bound %s", mode_name);
    double start = wl_now_seconds();
    if (graph_exec)
        WL_CHECK(cudaGraphLaunch(graph_exec, stream));
    for (int i = 0; !graph_exec && i < iterations; i++) {
        wl_launch_spin(1, stream, out, spin_ns, 1.0f);
        switch (mode) {
        case MODE_SYNC: WL_CHECK(cudaDeviceSynchronize()); break;
        case MODE_ITEM:
            WL_CHECK(cudaMemcpyAsync(&readback, out, sizeof readback, cudaMemcpyDeviceToHost, stream));
            WL_CHECK(cudaStreamSynchronize(stream));
            if (readback != (float)(i + 1))
                wl_fail("verification failed: iteration %d read back %g", i, (double)readback);
            break;
        case MODE_CPU: wl_host_busy_us(host_us); break;
        case MODE_LAUNCH:
        case MODE_NONE:
        case MODE_LAUNCH_GRAPH: break;
        }
    }
    WL_CHECK(cudaDeviceSynchronize());
    double elapsed = wl_now_seconds() - start;
    wl_range_pop();

    wl_expect_sum("sum of counters", wl_device_sum(out, WL_SPIN_BLOCK_THREADS),
                  (double)WL_SPIN_BLOCK_THREADS * iterations);
    printf("host_bound: %s, --mode %s, %d iterations of a %.1f us kernel: %.3f ms (%.2f us per iteration)\n",
           device.name, mode_name, iterations, kernel_us, elapsed * 1e3, elapsed * 1e6 / iterations);
    if (graph_exec)
        WL_CHECK(cudaGraphExecDestroy(graph_exec));
    WL_CHECK(cudaStreamDestroy(stream));
    WL_CHECK(cudaFree(out));
    return 0;
}
