/* common.h: what every reference workload shares: error checks that name the failing call with
 * file:line and exit non-zero, a small option parser with --help, device and occupancy queries,
 * NVTX ranges, host timing and buffer checks (the spin kernel is in spin.cuh).
 * Its one global is the program name used in messages, set by wl_parse_args. */
#ifndef WORKLOADS_COMMON_H
#define WORKLOADS_COMMON_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* Every CUDA runtime call goes through WL_CHECK; a kernel launch is followed by WL_CHECK_LAUNCH. */
#define WL_CHECK(call) wl_check_cuda((call), #call, __FILE__, __LINE__)
#define WL_CHECK_LAUNCH() wl_check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
void wl_check_cuda(cudaError_t status, const char *what, const char *file, int line);

/* Prints "NAME: message" to stderr and exits 1 (a failed verification or a runtime failure). */
void wl_fail(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The program's name for messages ("streams_fit"); set by wl_parse_args. */
const char *wl_program_name(void);

/* ---- options ----------------------------------------------------------------------------- */
enum wl_option_kind {
    WL_OPT_INT,    /* --name N          -> *(int *)value */
    WL_OPT_LONG,   /* --name N          -> *(long long *)value */
    WL_OPT_DOUBLE, /* --name X          -> *(double *)value */
    WL_OPT_STRING, /* --name TEXT       -> *(const char **)value */
    WL_OPT_SET     /* --name            -> *(int *)value = set_to (flags and exclusive modes) */
};

struct wl_option {
    const char *name; /* with the dashes: "--streams" */
    enum wl_option_kind kind;
    void *value;
    const char *help;
    int set_to; /* WL_OPT_SET only */
};

/* Parses argv against the table; --help prints the usage (summary, then each option with its
 * default) and exits 0; an unknown option or a bad number prints one line and exits 2. */
void wl_parse_args(int argc, char **argv, const char *summary, const struct wl_option *options,
                   int option_count);

/* ---- device ------------------------------------------------------------------------------ */
struct wl_device {
    int ordinal;
    char name[256];
    int sm_count;
    int async_engine_count; /* copy engines the runtime reports (cudaDevAttrAsyncEngineCount) */
    int max_threads_per_sm;
};

/* Selects the device and creates its context before any measured work. Module loading is made
 * eager first (unless the user set CUDA_MODULE_LOADING): lazy loading would load a kernel's
 * module on its first launch, inside the measured region. */
void wl_device_open(int ordinal, struct wl_device *device);

/* Thread blocks of `kernel` with `block_threads` threads that one SM holds at once
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor: registers, shared memory, threads, block slots);
 * exits when the kernel cannot run at all. */
int wl_blocks_per_sm(const void *kernel, int block_threads, size_t dynamic_shared_bytes);

/* ---- NVTX -------------------------------------------------------------------------------- */
void wl_range_push(const char *format, ...) __attribute__((format(printf, 1, 2)));
void wl_range_pop(void);

/* ---- time -------------------------------------------------------------------------------- */
double wl_now_seconds(void);               /* CLOCK_MONOTONIC */
void wl_host_busy_us(double microseconds); /* burns host CPU time (framework overhead stand-in) */

/* Device buffer of `count` floats set to zero; caller frees with cudaFree. */
float *wl_device_zeros(size_t count);

/* Sum of `count` device floats in double, computed on the host after a synchronous copy. */
double wl_device_sum(const float *device_values, size_t count);

/* Fails (exit 1) unless |got - want| <= 1e-6 * max(1, |want|) and got is a number. */
void wl_expect_sum(const char *what, double got, double want);

#endif
