/* bench_import.c: `overlapscope import` on a large synthetic Kineto trace against the baseline
 * `python3 -c 'import json,sys; json.load(open(sys.argv[1]))'` reading the same file, in the same
 * run: wall time of each, their ratio, and the peak RSS of both (from wait4's rusage).
 *
 * usage: bench_import [--size-mb N] [--keep DIR]    (default 200 MB, in a temporary directory)
 *
 * The trace imitates a PyTorch profiler trace of a data-parallel training loop: per launch a CPU
 * operator, a cudaLaunchKernel, the kernel with Kineto's args, a launch flow pair; every 16th
 * kernel an NCCL AllReduce with collective args; copies, memsets and step annotations between. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef OVERLAPSCOPE_BINARY
#error "OVERLAPSCOPE_BINARY must name the overlapscope executable"
#endif

static const char *const kernel_names[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
    "void "
    "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_tn_align4>(cutlass_80_tensorop_s1688gemm_"
    "128x128_32x3_tn_align4::Params)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float "
    "const*, float const*, float const*, float*, float*, float*)",
};

/* Writes one step's worth of events; returns bytes written. ts advances in microseconds with a
 * fractional part, as Kineto writes them. */
static size_t write_step(FILE *out, int64_t step, int64_t *correlation, double *ts, int *first)
{
    long start = ftell(out);
    fprintf(out,
            "%s\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%" PRId64
            "\", \"pid\": 4037, \"tid\": 4037, \"ts\": %.3f, \"dur\": 52311.250, \"args\": {\"External id\": "
            "%" PRId64 ", \"Ev Idx\": %" PRId64 "}}",
            *first ? "" : ",", step, *ts, *correlation, *correlation);
    *first = 0;
    for (int launch = 0; launch < 64; launch++) {
        int64_t id = ++*correlation;
        double cpu = *ts + launch * 13.125, gpu = cpu + 41.5;
        fprintf(out,
                ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 4037, \"tid\": "
                "4037, \"ts\": %.3f,"
                " \"dur\": 9.875, \"args\": {\"External id\": %" PRId64
                ", \"Record function id\": 0, \"Ev Idx\": %" PRId64
                ", \"Input Dims\": [[4096, 4096], [4096, 4096], []], \"Input type\": [\"float\", \"float\", "
                "\"Scalar\"]}}",
                cpu, id, id);
        fprintf(out,
                ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
                "4037, \"tid\": 4037,"
                " \"ts\": %.3f, \"dur\": 4.125, \"args\": {\"External id\": %" PRId64
                ", \"cbid\": 211, \"correlation\": %" PRId64 "}}",
                cpu + 3.5, id, id);
        int nccl = launch % 16 == 15;
        fprintf(out,
                ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": "
                "%.3f, \"dur\": %.3f,"
                " \"args\": {\"External id\": %" PRId64
                ", \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": %d,"
                " \"correlation\": %" PRId64
                ", \"registers per thread\": 96, \"shared memory\": 41744, \"blocks per SM\": 0.148148,"
                " \"warps per SM\": 2.962963, \"grid\": [%d, 1, 1], \"block\": [%d, 1, 1], \"est. achieved "
                "occupancy %%\": 5",
                nccl ? "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
                     : kernel_names[launch % 4],
                nccl ? 40 : 7, gpu, nccl ? 2129.375 : 11.5, id, nccl ? 40 : 7, id, nccl ? 8 : 2400,
                nccl ? 544 : 256);
        if (nccl)
            fprintf(out,
                    ", \"Collective name\": \"allreduce\", \"In msg nelems\": %d, \"Out msg nelems\": %d, "
                    "\"Group size\": 8,"
                    " \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Process "
                    "Group Name\": \"0\","
                    " \"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"[0, 1, 2, 3, "
                    "4, 5, 6, 7]\"",
                    2431040 + launch, 2431040 + launch);
        fputs("}}", out);
        fprintf(
            out,
            ",\n{\"ph\": \"s\", \"id\": %" PRId64
            ", \"pid\": 4037, \"tid\": 4037, \"ts\": %.3f, \"cat\": \"ac2g\", \"name\": \"ac2g\"}"
            ",\n{\"ph\": \"f\", \"id\": %" PRId64
            ", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
            id, cpu + 3.5, id, gpu);
        if (launch % 8 == 0)
            fprintf(out,
                    ",\n{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> "
                    "Device)\", \"pid\": 0, \"tid\": 9,"
                    " \"ts\": %.3f, \"dur\": 120.500, \"args\": {\"External id\": %" PRId64
                    ", \"device\": 0, \"context\": 1,"
                    " \"stream\": 9, \"correlation\": %" PRId64
                    ", \"bytes\": 8388608, \"memory bandwidth (GB/s)\": 69.6}}",
                    gpu, id, id);
    }
    *ts += 52311.25;
    return (size_t)(ftell(out) - start);
}

static int write_trace(const char *path, size_t target_bytes)
{
    FILE *out = fopen(path, "w");
    if (!out)
        return -1;
    fputs("{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": "
          "8},\n"
          "\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": "
          "85031714816,"
          " \"computeMajor\": 9, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, "
          "\"maxThreadsPerMultiprocessor\": 2048,"
          " \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32, "
          "\"sharedMemPerBlock\": 49152,"
          " \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": 233472}],\n"
          "\"traceEvents\": [",
          out);
    size_t written = 0;
    int64_t correlation = 1000, step = 0;
    double ts = 4458676388068.751;
    int first = 1;
    while (written < target_bytes)
        written += write_step(out, step++, &correlation, &ts, &first);
    fputs("\n],\n\"traceName\": \"bench\", \"displayTimeUnit\": \"ms\", \"baseTimeNanoseconds\": "
          "1711964646000000000}\n",
          out);
    return fclose(out);
}

struct measurement {
    double seconds;
    long peak_rss_kb;
    int status;
};

static struct measurement run(char *const argv[])
{
    struct measurement result = {0, 0, -1};
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t child = fork();
    if (child == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (child > 0 && wait4(child, &status, 0, &usage) == child) {
        clock_gettime(CLOCK_MONOTONIC, &end);
        result.seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
        result.peak_rss_kb = usage.ru_maxrss;
        result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return result;
}

int main(int argc, char **argv)
{
    size_t size_mb = 200;
    const char *keep = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size-mb") == 0 && i + 1 < argc)
            size_mb = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc)
            keep = argv[++i];
        else {
            fprintf(stderr, "usage: bench_import [--size-mb N] [--keep DIR]\n");
            return 2;
        }
    }
    char directory[] = "/tmp/overlapscope-bench-import-XXXXXX";
    const char *where = keep ? keep : mkdtemp(directory);
    if (!where)
        return 2;
    char trace[512], output[512];
    snprintf(trace, sizeof trace, "%s/synthetic_kineto.json", where);
    snprintf(output, sizeof output, "%s/synthetic.db", where);
    if (write_trace(trace, size_mb << 20) != 0) {
        fprintf(stderr, "bench_import: cannot write %s: %s\n", trace, strerror(errno));
        return 2;
    }
    struct stat info;
    stat(trace, &info);
    printf("trace: %s, %.1f MB\n", trace, (double)info.st_size / 1e6);
    /* $OVERLAPSCOPE names another build's binary (a staged copy on a machine without this tree). */
    char *binary = getenv("OVERLAPSCOPE");
    if (!binary || !*binary)
        binary = OVERLAPSCOPE_BINARY;
    char *import_argv[] = {binary, "import", trace, "-o", output, "--force", NULL};
    char *python_argv[] = {"python3", "-c", "import json,sys; json.load(open(sys.argv[1]))", trace, NULL};
    struct measurement ours = run(import_argv), python = run(python_argv);
    if (ours.status != 0 || python.status != 0) {
        fprintf(stderr, "bench_import: import exited %d, python3 exited %d\n", ours.status, python.status);
        return 1;
    }
    printf("overlapscope import:   %7.2f s  %8.1f MB/s  peak RSS %7.1f MB\n", ours.seconds,
           (double)info.st_size / 1e6 / ours.seconds, (double)ours.peak_rss_kb / 1024);
    printf("python3 json.load:     %7.2f s  %8.1f MB/s  peak RSS %7.1f MB\n", python.seconds,
           (double)info.st_size / 1e6 / python.seconds, (double)python.peak_rss_kb / 1024);
    printf("time ratio (import / json.load): %.2f   (below 1: faster than parsing alone in Python)\n",
           ours.seconds / python.seconds);
    printf("peak RSS ratio (import / json.load): %.3f\n",
           (double)ours.peak_rss_kb / (double)python.peak_rss_kb);
    if (!keep) {
        unlink(trace);
        unlink(output);
        rmdir(where);
    }
    return 0;
}
