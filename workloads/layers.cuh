/* layers.cuh: the small dense-network kernels the training workloads (pipeline, two_batch, ddp)
 * are built from: a shared-memory tiled SGEMM with transposes, ReLU and its gradient, MSE loss,
 * SGD, and deterministic hash-based data. Every kernel is deterministic (no atomics), so two runs
 * that issue the same kernels on different streams produce bit-identical weights: the workloads
 * compare checksums across modes to prove their stream synchronization is right.
 * Matrices are row-major float arrays. */
#ifndef WORKLOADS_LAYERS_CUH
#define WORKLOADS_LAYERS_CUH

#include "common.h"

#include <math.h>
#include <stdlib.h>

enum { WL_TILE = 16 };

/* C[M,N] = op(A)[M,K] op(B)[K,N], optionally ReLU'd. op(A) is A (M x K) or, with TRANS_A, the
 * transpose of A stored K x M; likewise op(B) is B (K x N) or B stored N x K. One 16 x 16 output
 * tile per block at a time; blocks loop over the tiles, so the grid can be capped below the tile
 * count to leave SMs free (the ddp workload's default) or cover every tile at once. */
template <int TRANS_A, int TRANS_B>
static __global__ void wl_gemm_kernel(int m, int n, int k, const float *a, const float *b, float *c,
                                      int relu)
{
    __shared__ float a_tile[WL_TILE][WL_TILE + 1];
    __shared__ float b_tile[WL_TILE][WL_TILE + 1];
    int tile_cols = (n + WL_TILE - 1) / WL_TILE;
    int tiles = tile_cols * ((m + WL_TILE - 1) / WL_TILE);
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int row = (tile / tile_cols) * WL_TILE + threadIdx.y;
        int col = (tile % tile_cols) * WL_TILE + threadIdx.x;
        float sum = 0.0f;
        for (int k0 = 0; k0 < k; k0 += WL_TILE) {
            int ak = k0 + threadIdx.x; /* a_tile[y][x] = op(A)[row][k0 + x] */
            int bk = k0 + threadIdx.y; /* b_tile[y][x] = op(B)[k0 + y][col] */
            float a_value = 0.0f, b_value = 0.0f;
            if (row < m && ak < k)
                a_value = TRANS_A ? a[(size_t)ak * m + row] : a[(size_t)row * k + ak];
            if (bk < k && col < n)
                b_value = TRANS_B ? b[(size_t)col * k + bk] : b[(size_t)bk * n + col];
            a_tile[threadIdx.y][threadIdx.x] = a_value;
            b_tile[threadIdx.y][threadIdx.x] = b_value;
            __syncthreads();
            for (int i = 0; i < WL_TILE; i++)
                sum += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
            __syncthreads();
        }
        if (row < m && col < n)
            c[(size_t)row * n + col] = relu ? fmaxf(sum, 0.0f) : sum;
    }
}

/* Output tiles (and so the uncapped grid) of an m x n GEMM. */
static inline int wl_gemm_tiles(int m, int n)
{
    return ((n + WL_TILE - 1) / WL_TILE) * ((m + WL_TILE - 1) / WL_TILE);
}

/* Launches the GEMM with min(tiles, max_blocks) blocks (max_blocks 0: no cap). */
static inline void wl_gemm(cudaStream_t stream, int trans_a, int trans_b, int m, int n, int k,
                           const float *a, const float *b, float *c, int relu, int max_blocks)
{
    dim3 block(WL_TILE, WL_TILE);
    int tiles = wl_gemm_tiles(m, n);
    int grid = max_blocks > 0 && max_blocks < tiles ? max_blocks : tiles;
    if (!trans_a && !trans_b)
        wl_gemm_kernel<0, 0><<<grid, block, 0, stream>>>(m, n, k, a, b, c, relu);
    else if (!trans_a && trans_b)
        wl_gemm_kernel<0, 1><<<grid, block, 0, stream>>>(m, n, k, a, b, c, relu);
    else if (trans_a && !trans_b)
        wl_gemm_kernel<1, 0><<<grid, block, 0, stream>>>(m, n, k, a, b, c, relu);
    else
        wl_gemm_kernel<1, 1><<<grid, block, 0, stream>>>(m, n, k, a, b, c, relu);
    WL_CHECK_LAUNCH();
}

/* Asks for the largest shared-memory carveout for every GEMM variant: the SM then keeps its
 * shared memory free for other kernels' blocks (NCCL's need ~104 KB) while GEMM blocks run. */
static inline void wl_gemm_prefer_shared_memory(void)
{
    const void *kernels[] = {(const void *)wl_gemm_kernel<0, 0>, (const void *)wl_gemm_kernel<0, 1>,
                             (const void *)wl_gemm_kernel<1, 0>, (const void *)wl_gemm_kernel<1, 1>};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        WL_CHECK(cudaFuncSetAttribute(kernels[i], cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared));
}

/* GEMM thread blocks the whole device holds at once (occupancy x SMs). */
static inline int wl_gemm_resident_blocks(const struct wl_device *device)
{
    return wl_blocks_per_sm((const void *)wl_gemm_kernel<0, 1>, WL_TILE * WL_TILE, 0) *
           device->sm_count;
}

/* Layer forward y = x w^T (x: rows x in, w: out x in, y: rows x out). */
static inline void wl_linear_forward(cudaStream_t stream, int rows, int in, int out, const float *x,
                                     const float *w, float *y, int relu, int max_blocks)
{
    wl_gemm(stream, 0, 1, rows, out, in, x, w, y, relu, max_blocks);
}

/* Gradients of y = x w^T: dx = dy w, dw = dy^T x. */
static inline void wl_linear_backward_input(cudaStream_t stream, int rows, int in, int out,
                                            const float *dy, const float *w, float *dx,
                                            int max_blocks)
{
    wl_gemm(stream, 0, 0, rows, in, out, dy, w, dx, 0, max_blocks);
}
static inline void wl_linear_backward_weight(cudaStream_t stream, int rows, int in, int out,
                                             const float *dy, const float *x, float *dw,
                                             int max_blocks)
{
    wl_gemm(stream, 1, 0, out, in, rows, dy, x, dw, 0, max_blocks);
}

static __device__ __forceinline__ float wl_hash_unit(unsigned long long key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return (float)(key >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f; /* [-1, 1) */
}

/* values[i] = scale * uniform[-1, 1) from (seed, i): data and weights without a host copy. */
static __global__ void wl_fill_kernel(float *values, size_t count, unsigned long long seed, float scale)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        values[i] = scale * wl_hash_unit(seed * 0x9e3779b97f4a7c15ULL + i);
}
static inline void wl_fill(cudaStream_t stream, float *values, size_t count, unsigned long long seed,
                           float scale)
{
    int blocks = (int)((count + 255) / 256 < 1024 ? (count + 255) / 256 : 1024);
    wl_fill_kernel<<<blocks, 256, 0, stream>>>(values, count, seed, scale);
    WL_CHECK_LAUNCH();
}

/* dz = dy where the ReLU output y was positive, else 0 (in place on dy). */
static __global__ void wl_relu_backward_kernel(float *dy, const float *y, size_t count)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        if (y[i] <= 0.0f)
            dy[i] = 0.0f;
}
static inline void wl_relu_backward(cudaStream_t stream, float *dy, const float *y, size_t count)
{
    int blocks = (int)((count + 255) / 256 < 1024 ? (count + 255) / 256 : 1024);
    wl_relu_backward_kernel<<<blocks, 256, 0, stream>>>(dy, y, count);
    WL_CHECK_LAUNCH();
}

/* MSE: grad = 2 (y - target) / count; *loss = mean squared error. One block, deterministic. */
static __global__ void wl_mse_kernel(const float *y, const float *target, float *grad, size_t count,
                                     float *loss)
{
    __shared__ float partial[1024];
    float sum = 0.0f;
    for (size_t i = threadIdx.x; i < count; i += blockDim.x) {
        float diff = y[i] - target[i];
        grad[i] = 2.0f * diff / (float)count;
        sum += diff * diff;
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *loss = partial[0] / (float)count;
}
static inline void wl_mse(cudaStream_t stream, const float *y, const float *target, float *grad,
                          size_t count, float *loss)
{
    wl_mse_kernel<<<1, 1024, 0, stream>>>(y, target, grad, count, loss);
    WL_CHECK_LAUNCH();
}

/* w -= rate * g. */
static __global__ void wl_sgd_kernel(float *w, const float *g, size_t count, float rate)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        w[i] -= rate * g[i];
}
static inline void wl_sgd(cudaStream_t stream, float *w, const float *g, size_t count, float rate)
{
    int blocks = (int)((count + 255) / 256 < 1024 ? (count + 255) / 256 : 1024);
    wl_sgd_kernel<<<blocks, 256, 0, stream>>>(w, g, count, rate);
    WL_CHECK_LAUNCH();
}

/* Checksum of device floats (sum and sum of magnitudes, host double); fails on NaN/inf. */
struct wl_checksum {
    double sum, magnitude;
};
static inline struct wl_checksum wl_device_checksum(const char *what, const float *values, size_t count)
{
    float *host = (float *)malloc(count * sizeof(float));
    if (!host)
        wl_fail("out of host memory");
    WL_CHECK(cudaMemcpy(host, values, count * sizeof(float), cudaMemcpyDeviceToHost));
    struct wl_checksum checksum = {0, 0};
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(host[i]))
            wl_fail("verification failed: %s[%zu] is %g", what, i, (double)host[i]);
        checksum.sum += host[i];
        checksum.magnitude += fabs((double)host[i]);
    }
    free(host);
    return checksum;
}

#endif
