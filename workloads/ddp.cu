/* ddp: one data-parallel training step after another, one process per GPU, the way PyTorch DDP
 * does it. An MLP (--layers x --size, batch --batch per rank) runs forward, MSE loss and
 * backward; weight gradients land in --buckets buckets (the last layers' first, as DDP orders
 * them). With --overlap (default) each bucket, once complete, is all-reduced on a communication
 * stream (cudaStreamWaitEvent on the bucket's event) while the rest of backward runs; with
 * --no-overlap the all-reduces start after backward. The optimizer waits for the last all-reduce.
 * GEMM grids are capped at --fill of the device's resident capacity, leaving SMs for NCCL's
 * kernels. The default, 1/16, is one 256-thread GEMM block on half the SMs: an NCCL block is large
 * (seen on H200 with NCCL 2.28, AllReduce RING_LL: 544 threads x 96 registers, 102 KB of shared
 * memory) and fits beside no GEMM block. Registers are held per SM sub-partition (4 x 16k): one
 * 8-warp GEMM block leaves room for 4 warps of 3072 registers in each, 16 in all, and NCCL's block
 * has 17 warps; at --fill 1/8 (one GEMM block on every SM) every bucket's all-reduce after the first
 * waited ~500 us for a GEMM's blocks to retire. Shared memory is the other limit: the SM splits it
 * with L1 per kernel (the carve-out), and the driver gave these GEMMs 64 KB, so the GEMMs ask for
 * the largest (cudaFuncAttributePreferredSharedMemoryCarveout; --carveout driver: the driver's
 * choice). --saturate launches every tile at once (several waves), so NCCL's kernels queue
 * behind compute blocks. --comm-priority high gives the communication stream the highest
 * priority (the block scheduler then prefers its blocks). --skew-us N makes rank --skew-rank (1)
 * burn N us more host time than the others before backward every step, after every rank's host
 * waited for its forward pass (cudaStreamSynchronize; a Python hook that reads the loss, then CPU
 * work, slower on one rank): that rank's GPU idles N us longer than the others' and its
 * all-reduces start late, so the other ranks wait for it at every step's collectives (arrival
 * skew; it is the straggler).
 * NVTX: "step N" per step and forward/backward/allreduce/optimizer inside.
 * Verification: every bucket carries a probe element each rank sets to 1 and that must read
 * WORLD_SIZE after the all-reduce (every step); in step 0 each bucket's all-reduced sum must
 * equal the sum of the ranks' local sums; at the end all ranks must hold identical weights. */
#include "layers.cuh"
#include "ranks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SKEW_BASE_US = 100 }; /* host work of every rank before backward, with --skew-us */

struct config {
    int layers, size, batch, bucket_count, steps, overlap, saturate, comm_high_priority, carveout_max_shared;
    double fill, rate;
    double skew_us; /* host time the skewed rank spends before each backward */
    int skew_rank;
};

struct bucket {
    int first_layer, last_layer; /* backward fills it from last_layer down to first_layer */
    size_t count;                /* gradient floats, plus one probe float at the end */
    float *grad;
    cudaEvent_t ready;
    double *local_sum; /* device, step 0 only */
};

struct trainer {
    struct config cfg;
    int rank, world, max_blocks;
    ncclComm_t comm;
    cudaStream_t compute, communication;
    float **w, **act, **layer_grad; /* layer_grad[l] points into its bucket */
    float *x, *target, *grad[2], *loss;
    int *probe_errors;
    struct bucket *buckets;
    cudaEvent_t backward_done, allreduce_done;
};

/* Sets the bucket's probe to 1 before its all-reduce: afterwards it must be the world size. */
static __global__ void bucket_ready_probe(float *probe) { *probe = 1.0f; }

/* Counts buckets whose probe did not come back as the world size. */
static __global__ void check_bucket_probes(float *const *probes, int count, float world, int *errors)
{
    for (int b = threadIdx.x; b < count; b += blockDim.x)
        if (*probes[b] != world)
            atomicAdd(errors, 1);
}

/* Deterministic sum of a bucket's gradients into *out (one block). */
static __global__ void bucket_sum(const float *values, size_t count, double *out)
{
    __shared__ double partial[512];
    double sum = 0;
    for (size_t i = threadIdx.x; i < count; i += blockDim.x)
        sum += values[i];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = partial[0];
}

static float *alloc_floats(size_t count)
{
    float *p = NULL;
    WL_CHECK(cudaMalloc(&p, count * sizeof(float)));
    return p;
}

static void trainer_open(struct trainer *t, const struct wl_device *device)
{
    const struct config *c = &t->cfg;
    size_t weights = (size_t)c->size * c->size, act = (size_t)c->batch * c->size;
    t->max_blocks = c->saturate ? 0 : (int)(c->fill * wl_gemm_resident_blocks(device));
    if (!c->saturate && t->max_blocks < 1)
        t->max_blocks = 1;
    if (c->carveout_max_shared)
        wl_gemm_prefer_shared_memory();
    int least_priority, greatest_priority;
    WL_CHECK(cudaDeviceGetStreamPriorityRange(&least_priority, &greatest_priority));
    WL_CHECK(cudaStreamCreateWithFlags(&t->compute, cudaStreamNonBlocking));
    WL_CHECK(cudaStreamCreateWithPriority(&t->communication, cudaStreamNonBlocking,
                                          c->comm_high_priority ? greatest_priority : least_priority));
    t->w = (float **)calloc(c->layers, sizeof(float *));
    t->act = (float **)calloc(c->layers, sizeof(float *));
    t->layer_grad = (float **)calloc(c->layers, sizeof(float *));
    for (int l = 0; l < c->layers; l++) {
        t->w[l] = alloc_floats(weights);
        t->act[l] = alloc_floats(act);
        /* Same initial weights on every rank, as DDP broadcasts them. */
        wl_fill(0, t->w[l], weights, 100 + l, 1.7f / sqrtf((float)c->size));
    }
    t->x = alloc_floats(act);
    t->target = alloc_floats(act);
    t->grad[0] = alloc_floats(act);
    t->grad[1] = alloc_floats(act);
    t->loss = wl_device_zeros(1);
    WL_CHECK(cudaMalloc(&t->probe_errors, sizeof(int)));
    WL_CHECK(cudaMemset(t->probe_errors, 0, sizeof(int)));

    t->buckets = (struct bucket *)calloc(c->bucket_count, sizeof(struct bucket));
    for (int b = 0; b < c->bucket_count; b++) {
        struct bucket *k = &t->buckets[b];
        /* Bucket 0 holds the last layers: backward produces their gradients first. */
        k->last_layer = c->layers - 1 - b * c->layers / c->bucket_count;
        k->first_layer = c->layers - (b + 1) * c->layers / c->bucket_count;
        k->count = (size_t)(k->last_layer - k->first_layer + 1) * weights + 1;
        k->grad = alloc_floats(k->count);
        for (int l = k->first_layer; l <= k->last_layer; l++)
            t->layer_grad[l] = k->grad + (size_t)(l - k->first_layer) * weights;
        WL_CHECK(cudaEventCreateWithFlags(&k->ready, cudaEventDisableTiming));
        WL_CHECK(cudaMalloc(&k->local_sum, sizeof(double)));
    }
    WL_CHECK(cudaEventCreateWithFlags(&t->backward_done, cudaEventDisableTiming));
    WL_CHECK(cudaEventCreateWithFlags(&t->allreduce_done, cudaEventDisableTiming));
    WL_CHECK(cudaDeviceSynchronize());
}

static void forward(struct trainer *t, int step)
{
    const struct config *c = &t->cfg;
    size_t act = (size_t)c->batch * c->size;
    wl_range_push("forward");
    unsigned long long seed = ((unsigned long long)t->rank << 32) | (unsigned)step;
    wl_fill(t->compute, t->x, act, seed * 2 + 1, 1.0f);
    wl_fill(t->compute, t->target, act, seed * 2 + 2, 1.0f);
    const float *x = t->x;
    for (int l = 0; l < c->layers; l++) {
        wl_linear_forward(t->compute, c->batch, c->size, c->size, x, t->w[l], t->act[l],
                          l < c->layers - 1, t->max_blocks);
        x = t->act[l];
    }
    wl_mse(t->compute, t->act[c->layers - 1], t->target, t->grad[0], act, t->loss);
    wl_range_pop();
}

static void allreduce_bucket(struct trainer *t, struct bucket *k, int index)
{
    wl_range_push("allreduce bucket %d", index);
    WL_CHECK_NCCL(ncclAllReduce(k->grad, k->grad, k->count, ncclFloat, ncclSum, t->comm,
                                t->communication));
    wl_range_pop();
}

/* Backward from the last layer down; a bucket is handed to the communication stream as soon as
 * its lowest layer's weight gradient is written (--overlap). */
static void backward(struct trainer *t, int step)
{
    const struct config *c = &t->cfg;
    size_t act = (size_t)c->batch * c->size;
    wl_range_push("backward");
    int g = 0, next_bucket = 0;
    for (int l = c->layers - 1; l >= 0; l--) {
        const float *layer_input = l == 0 ? t->x : t->act[l - 1];
        wl_linear_backward_weight(t->compute, c->batch, c->size, c->size, t->grad[g], layer_input,
                                  t->layer_grad[l], t->max_blocks);
        if (l > 0) {
            wl_linear_backward_input(t->compute, c->batch, c->size, c->size, t->grad[g], t->w[l],
                                     t->grad[1 - g], t->max_blocks);
            wl_relu_backward(t->compute, t->grad[1 - g], t->act[l - 1], act);
            g = 1 - g;
        }
        struct bucket *k = &t->buckets[next_bucket];
        if (l == k->first_layer) {
            bucket_ready_probe<<<1, 1, 0, t->compute>>>(k->grad + k->count - 1);
            WL_CHECK_LAUNCH();
            if (step == 0) {
                bucket_sum<<<1, 512, 0, t->compute>>>(k->grad, k->count, k->local_sum);
                WL_CHECK_LAUNCH();
            }
            WL_CHECK(cudaEventRecord(k->ready, t->compute));
            if (c->overlap) {
                WL_CHECK(cudaStreamWaitEvent(t->communication, k->ready, 0));
                allreduce_bucket(t, k, next_bucket);
            }
            next_bucket++;
        }
    }
    WL_CHECK(cudaEventRecord(t->backward_done, t->compute));
    wl_range_pop();
    if (!c->overlap) {
        wl_range_push("allreduce");
        WL_CHECK(cudaStreamWaitEvent(t->communication, t->backward_done, 0));
        for (int b = 0; b < c->bucket_count; b++)
            allreduce_bucket(t, &t->buckets[b], b);
        wl_range_pop();
    }
    WL_CHECK(cudaEventRecord(t->allreduce_done, t->communication));
}

static void optimizer(struct trainer *t, float *const *probe_addresses)
{
    const struct config *c = &t->cfg;
    wl_range_push("optimizer");
    WL_CHECK(cudaStreamWaitEvent(t->compute, t->allreduce_done, 0));
    check_bucket_probes<<<1, 32, 0, t->compute>>>(probe_addresses, c->bucket_count,
                                                  (float)t->world, t->probe_errors);
    WL_CHECK_LAUNCH();
    for (int l = 0; l < c->layers; l++)
        wl_sgd(t->compute, t->w[l], t->layer_grad[l], (size_t)c->size * c->size,
               (float)(c->rate / t->world));
    wl_range_pop();
}

/* Step 0: each bucket's all-reduced gradients must sum to the ranks' local sums, summed. */
static void verify_bucket_sums(struct trainer *t)
{
    for (int b = 0; b < t->cfg.bucket_count; b++) {
        struct bucket *k = &t->buckets[b];
        WL_CHECK_NCCL(ncclAllReduce(k->local_sum, k->local_sum, 1, ncclFloat64, ncclSum, t->comm,
                                    t->compute));
        WL_CHECK(cudaStreamSynchronize(t->compute));
        double want;
        WL_CHECK(cudaMemcpy(&want, k->local_sum, sizeof want, cudaMemcpyDeviceToHost));
        struct wl_checksum got = wl_device_checksum("gradient bucket", k->grad, k->count - 1);
        want -= t->world; /* the local sums included each rank's probe (1) */
        if (fabs(got.sum - want) > 1e-5 * got.magnitude + 1e-6)
            wl_fail("verification failed: bucket %d all-reduced to sum %.9g, ranks' sums add to %.9g",
                    b, got.sum, want);
    }
}

/* All ranks must end with identical weights: max and min of each checksum over ranks agree. */
static struct wl_checksum verify_same_weights(struct trainer *t)
{
    struct wl_checksum total = {0, 0};
    for (int l = 0; l < t->cfg.layers; l++) {
        struct wl_checksum c = wl_device_checksum("weights", t->w[l], (size_t)t->cfg.size * t->cfg.size);
        total.sum += c.sum;
        total.magnitude += c.magnitude;
    }
    double local[4] = {total.sum, -total.sum, total.magnitude, -total.magnitude}, *device_values;
    WL_CHECK(cudaMalloc(&device_values, sizeof local));
    WL_CHECK(cudaMemcpy(device_values, local, sizeof local, cudaMemcpyHostToDevice));
    WL_CHECK_NCCL(ncclAllReduce(device_values, device_values, 4, ncclFloat64, ncclMax, t->comm, t->compute));
    double extremes[4];
    WL_CHECK(cudaStreamSynchronize(t->compute));
    WL_CHECK(cudaMemcpy(extremes, device_values, sizeof extremes, cudaMemcpyDeviceToHost));
    if (extremes[0] != -extremes[1] || extremes[2] != -extremes[3])
        wl_fail("verification failed: ranks hold different weights (checksums %.17g..%.17g)",
                -extremes[1], extremes[0]);
    WL_CHECK(cudaFree(device_values));
    return total;
}

int main(int argc, char **argv)
{
    struct config cfg = {8, 1024, 512, 4, 10, 1, 0, 0, 1, 0.0625, 0.01, 0, 1};
    int nproc = 0;
    const char *id_file = NULL, *comm_priority = "normal", *carveout = "max-shared";
    const struct wl_option options[] = {
        {"--layers", WL_OPT_INT, &cfg.layers, "layers of the MLP", 0},
        {"--size", WL_OPT_INT, &cfg.size, "width of every layer", 0},
        {"--batch", WL_OPT_INT, &cfg.batch, "rows per rank and step", 0},
        {"--buckets", WL_OPT_INT, &cfg.bucket_count, "gradient buckets (each all-reduced once)", 0},
        {"--steps", WL_OPT_INT, &cfg.steps, "training steps", 0},
        {"--overlap", WL_OPT_SET, &cfg.overlap, "all-reduce each bucket during backward", 1},
        {"--no-overlap", WL_OPT_SET, &cfg.overlap, "all-reduce after backward", 0},
        {"--saturate", WL_OPT_SET, &cfg.saturate, "GEMM grids cover every tile (several waves)", 1},
        {"--fill", WL_OPT_DOUBLE, &cfg.fill, "without --saturate: GEMM grid cap, fraction of the resident capacity", 0},
        {"--comm-priority", WL_OPT_STRING, &comm_priority, "communication stream priority: normal or high", 0},
        {"--carveout", WL_OPT_STRING, &carveout,
         "GEMM shared-memory carveout: max-shared (room for NCCL's blocks) or driver (the driver's choice)", 0},
        {"--lr", WL_OPT_DOUBLE, &cfg.rate, "SGD learning rate", 0},
        {"--skew-us", WL_OPT_DOUBLE, &cfg.skew_us, "host time rank --skew-rank burns before each backward (us)", 0},
        {"--skew-rank", WL_OPT_INT, &cfg.skew_rank, "the rank --skew-us delays", 0},
        {"--nproc", WL_OPT_INT, &nproc, "ranks to fork (0: one per visible GPU)", 0},
        {"--id-file", WL_OPT_STRING, &id_file,
         "with a launcher (RANK, WORLD_SIZE, LOCAL_RANK set): file for the NCCL id", 0},
    };
    wl_parse_args(argc, argv,
                  "Data-parallel training with NCCL: bucketed gradient all-reduce overlapped "
                  "with backward (or not), one process per GPU.",
                  options, sizeof options / sizeof options[0]);
    if (cfg.layers < 1 || cfg.size < 1 || cfg.batch < 1 || cfg.steps < 1 || cfg.bucket_count < 1 ||
        cfg.bucket_count > cfg.layers || cfg.fill <= 0 || nproc < 0 || cfg.skew_us < 0 || cfg.skew_rank < 0)
        wl_fail("need --layers, --size, --batch, --steps >= 1, 1 <= --buckets <= --layers, --fill > 0, "
                "--skew-us >= 0, --skew-rank >= 0");
    if (strcmp(comm_priority, "high") != 0 && strcmp(comm_priority, "normal") != 0)
        wl_fail("--comm-priority must be normal or high, not '%s'", comm_priority);
    cfg.comm_high_priority = strcmp(comm_priority, "high") == 0;
    if (strcmp(carveout, "max-shared") != 0 && strcmp(carveout, "driver") != 0)
        wl_fail("--carveout must be max-shared or driver, not '%s'", carveout);
    cfg.carveout_max_shared = strcmp(carveout, "max-shared") == 0;

    struct wl_ranks ranks;
    wl_ranks_start(nproc, id_file, &ranks);
    int device_count = 0;
    WL_CHECK(cudaGetDeviceCount(&device_count));
    struct wl_device device;
    wl_device_open(ranks.local_rank % device_count, &device);
    struct trainer t;
    memset(&t, 0, sizeof t);
    t.cfg = cfg;
    t.rank = ranks.rank;
    t.world = ranks.world_size;
    t.comm = wl_ranks_communicator(&ranks);
    trainer_open(&t, &device);
    float **probe_addresses;
    WL_CHECK(cudaMalloc(&probe_addresses, cfg.bucket_count * sizeof(float *)));
    for (int b = 0; b < cfg.bucket_count; b++) {
        float *probe = t.buckets[b].grad + t.buckets[b].count - 1;
        WL_CHECK(cudaMemcpy(&probe_addresses[b], &probe, sizeof probe, cudaMemcpyHostToDevice));
    }

    double start = 0;
    for (int step = 0; step < cfg.steps; step++) {
        if (step == 1) {
            WL_CHECK(cudaDeviceSynchronize());
            start = wl_now_seconds();
        }
        wl_range_push("step %d", step);
        forward(&t, step);
        /* With a skew every rank's host waits for its forward pass, as a hook reading the loss
         * would, then works on the CPU: a host running ahead of its GPU absorbs a delay in its
         * queue (seen on 2x H200: 2 ms of host time in a 23 ms step delayed only the first two
         * steps), a rank alone in waiting issues its backward from an empty queue, later by its
         * launch costs (N + 75-800 us seen), and a rank that launches straight after the wait
         * reaches its GPU 50-60 us later than one that spun first (N - 60 us seen). So every rank
         * spins SKEW_BASE_US and the delayed one N us more: the ranks differ by N alone. */
        if (cfg.skew_us > 0) {
            WL_CHECK(cudaStreamSynchronize(t.compute));
            wl_range_push("skew");
            wl_host_busy_us(SKEW_BASE_US + (t.rank == cfg.skew_rank ? cfg.skew_us : 0));
            wl_range_pop();
        }
        backward(&t, step);
        if (step == 0) {
            WL_CHECK(cudaStreamWaitEvent(t.compute, t.allreduce_done, 0));
            verify_bucket_sums(&t);
        }
        optimizer(&t, probe_addresses);
        wl_range_pop();
    }
    WL_CHECK(cudaDeviceSynchronize());
    double per_step = cfg.steps > 1 ? (wl_now_seconds() - start) / (cfg.steps - 1) : 0;

    int probe_errors = 0;
    WL_CHECK(cudaMemcpy(&probe_errors, t.probe_errors, sizeof probe_errors, cudaMemcpyDeviceToHost));
    if (probe_errors)
        wl_fail("verification failed: %d bucket all-reduces did not sum all %d ranks", probe_errors, t.world);
    float loss;
    WL_CHECK(cudaMemcpy(&loss, t.loss, sizeof loss, cudaMemcpyDeviceToHost));
    if (!isfinite(loss))
        wl_fail("verification failed: loss is %g", (double)loss);
    struct wl_checksum weights = verify_same_weights(&t);
    printf("ddp: rank %d/%d on %s: %d layers x %d, batch %d, %d buckets, %s%s%s: %.3f ms per step, "
           "loss %.6g, all-reduces verified, checksum=%.17g\n",
           t.rank, t.world, device.name, cfg.layers, cfg.size, cfg.batch, cfg.bucket_count,
           cfg.overlap ? "overlap" : "no-overlap", cfg.saturate ? ", saturate" : "",
           cfg.comm_high_priority ? ", high-priority comm" : "", per_step * 1e3, loss, weights.sum);
    WL_CHECK_NCCL(ncclCommDestroy(t.comm));
    return 0;
}
