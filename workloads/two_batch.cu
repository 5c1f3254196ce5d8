/* two_batch: seed 000's demo in C. Each rank (one process per GPU) runs two batches on two
 * streams; per stream: fc1 + ReLU, an NCCL all_gather of the result over all ranks, fc2 on the
 * gathered rows; then the host synchronizes both streams, as the seed does. Both all_gathers use
 * the one communicator, and NCCL chains the operations of a communicator through its internal
 * stream (each launch waits for the previous one; NCCL enqueue.cc), so the two streams'
 * all_gather kernels never run at the same time. With the seed's tiny layers (10 -> 20 -> 2,
 * batch 20) each compute kernel lasts a few microseconds and the GPU mostly waits for the host.
 * Verifies every gathered chunk against the sum its owner computed. */
#include "layers.cuh"
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct branch { /* one batch on one stream */
    cudaStream_t stream;
    float *x, *hidden, *gathered, *y;
};

static void branch_step(struct branch *b, ncclComm_t comm, int world, int batch, int in, int hidden,
                        int out, const float *w1, const float *w2, unsigned long long seed)
{
    wl_fill(b->stream, b->x, (size_t)batch * in, seed, 1.0f);
    wl_linear_forward(b->stream, batch, in, hidden, b->x, w1, b->hidden, 1, 0);
    WL_CHECK_NCCL(ncclAllGather(b->hidden, b->gathered, (size_t)batch * hidden, ncclFloat, comm,
                                b->stream));
    wl_linear_forward(b->stream, world * batch, hidden, out, b->gathered, w2, b->y, 0, 0);
}

/* Every rank's chunk of the gathered rows must sum to what that rank computed locally. */
static void verify_gather(struct branch *b, ncclComm_t comm, int rank, int world, size_t chunk)
{
    float *host = (float *)malloc(chunk * world * sizeof(float));
    double *sums = NULL, *device_sums = NULL;
    if (!host)
        wl_fail("out of host memory");
    WL_CHECK(cudaMemcpy(host, b->gathered, chunk * world * sizeof(float), cudaMemcpyDeviceToHost));
    double local = 0;
    float *mine = (float *)malloc(chunk * sizeof(float));
    WL_CHECK(cudaMemcpy(mine, b->hidden, chunk * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < chunk; i++)
        local += mine[i];
    WL_CHECK(cudaMalloc(&device_sums, world * sizeof(double)));
    WL_CHECK(cudaMemcpy(device_sums + rank, &local, sizeof local, cudaMemcpyHostToDevice));
    WL_CHECK_NCCL(ncclAllGather(device_sums + rank, device_sums, 1, ncclFloat64, comm, b->stream));
    WL_CHECK(cudaStreamSynchronize(b->stream));
    sums = (double *)malloc(world * sizeof(double));
    WL_CHECK(cudaMemcpy(sums, device_sums, world * sizeof(double), cudaMemcpyDeviceToHost));
    for (int r = 0; r < world; r++) {
        double chunk_sum = 0;
        for (size_t i = 0; i < chunk; i++)
            chunk_sum += host[r * chunk + i];
        wl_expect_sum("gathered chunk", chunk_sum, sums[r]);
    }
    free(host);
    free(mine);
    free(sums);
    WL_CHECK(cudaFree(device_sums));
}

int main(int argc, char **argv)
{
    int steps = 50, batch = 20, in = 10, hidden = 20, out = 2, nproc = 0;
    const char *id_file = NULL;
    const struct wl_option options[] = {
        {"--steps", WL_OPT_INT, &steps, "steps (each: both batches, then a host sync)", 0},
        {"--batch", WL_OPT_INT, &batch, "rows per batch and rank", 0},
        {"--in", WL_OPT_INT, &in, "input features", 0},
        {"--hidden", WL_OPT_INT, &hidden, "fc1 outputs (what is all-gathered)", 0},
        {"--out", WL_OPT_INT, &out, "fc2 outputs", 0},
        {"--nproc", WL_OPT_INT, &nproc, "ranks to fork (0: one per visible GPU)", 0},
        {"--id-file", WL_OPT_STRING, &id_file,
         "with a launcher (RANK, WORLD_SIZE, LOCAL_RANK set): file for the NCCL id", 0},
    };
    wl_parse_args(argc, argv,
                  "Seed 000: two batches on two streams, each with an NCCL all_gather; one process "
                  "per GPU.",
                  options, sizeof options / sizeof options[0]);
    if (steps < 1 || batch < 1 || in < 1 || hidden < 1 || out < 1 || nproc < 0)
        wl_fail("need --steps, --batch, --in, --hidden, --out >= 1");

    struct wl_ranks ranks;
    wl_ranks_start(nproc, id_file, &ranks);
    int device_count = 0;
    WL_CHECK(cudaGetDeviceCount(&device_count));
    struct wl_device device;
    wl_device_open(ranks.local_rank % device_count, &device);
    ncclComm_t comm = wl_ranks_communicator(&ranks);
    int world = ranks.world_size;

    float *w1, *w2;
    WL_CHECK(cudaMalloc(&w1, (size_t)hidden * in * sizeof(float)));
    WL_CHECK(cudaMalloc(&w2, (size_t)out * hidden * sizeof(float)));
    wl_fill(0, w1, (size_t)hidden * in, 11, 0.3f);
    wl_fill(0, w2, (size_t)out * hidden, 12, 0.3f);
    struct branch branches[2];
    for (int i = 0; i < 2; i++) {
        struct branch *b = &branches[i];
        WL_CHECK(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
        WL_CHECK(cudaMalloc(&b->x, (size_t)batch * in * sizeof(float)));
        WL_CHECK(cudaMalloc(&b->hidden, (size_t)batch * hidden * sizeof(float)));
        WL_CHECK(cudaMalloc(&b->gathered, (size_t)world * batch * hidden * sizeof(float)));
        WL_CHECK(cudaMalloc(&b->y, (size_t)world * batch * out * sizeof(float)));
    }
    WL_CHECK(cudaDeviceSynchronize());

    double start = wl_now_seconds();
    for (int step = 0; step < steps; step++) {
        wl_range_push("step %d", step);
        for (int i = 0; i < 2; i++) {
            wl_range_push(i == 0 ? "odd batch" : "even batch");
            unsigned long long seed = ((unsigned long long)ranks.rank << 40) | ((unsigned long long)step << 8) | (unsigned)i;
            branch_step(&branches[i], comm, world, batch, in, hidden, out, w1, w2, seed);
            wl_range_pop();
        }
        for (int i = 0; i < 2; i++)
            WL_CHECK(cudaStreamSynchronize(branches[i].stream));
        wl_range_pop();
    }
    double elapsed = wl_now_seconds() - start;

    for (int i = 0; i < 2; i++) {
        verify_gather(&branches[i], comm, ranks.rank, world, (size_t)batch * hidden);
        wl_device_checksum("fc2 output", branches[i].y, (size_t)world * batch * out);
    }
    printf("two_batch: rank %d/%d on %s: %d steps of 2 batches (%d x %d -> %d -> all_gather -> "
           "%d): %.1f us per step, gathers verified\n",
           ranks.rank, world, device.name, steps, batch, in, hidden, out, elapsed * 1e6 / steps);
    WL_CHECK_NCCL(ncclCommDestroy(comm));
    return 0;
}
