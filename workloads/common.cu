/* common.cu: the shared helpers declared in common.h. */
#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nvtx3/nvToolsExt.h>

static const char *program_name = "workload";

const char *wl_program_name(void) { return program_name; }

void wl_fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

void wl_check_cuda(cudaError_t status, const char *what, const char *file, int line)
{
    if (status != cudaSuccess)
        wl_fail("%s:%d: %s failed: %s (%s)", file, line, what, cudaGetErrorString(status),
                cudaGetErrorName(status));
}

/* ---- options ----------------------------------------------------------------------------- */

static void print_default(const struct wl_option *option)
{
    switch (option->kind) {
    case WL_OPT_INT: printf(" (default %d)", *(int *)option->value); break;
    case WL_OPT_LONG: printf(" (default %lld)", *(long long *)option->value); break;
    case WL_OPT_DOUBLE: printf(" (default %g)", *(double *)option->value); break;
    case WL_OPT_STRING: {
        const char *text = *(const char **)option->value;
        if (text)
            printf(" (default %s)", text);
        break;
    }
    case WL_OPT_SET:
        if (*(int *)option->value == option->set_to)
            printf(" (default)");
        break;
    }
}

static void print_usage(const char *summary, const struct wl_option *options, int option_count)
{
    printf("usage: %s [options]\n\n%s\n\noptions:\n", program_name, summary);
    for (int i = 0; i < option_count; i++) {
        const char *metavar = options[i].kind == WL_OPT_SET      ? ""
                              : options[i].kind == WL_OPT_STRING ? " TEXT"
                                                                 : " N";
        printf("  %s%s\n      %s", options[i].name, metavar, options[i].help);
        print_default(&options[i]);
        printf("\n");
    }
    printf("  --help\n      print this text\n");
}

static void usage_error(const char *format, const char *argument)
{
    fprintf(stderr, "%s: ", program_name);
    fprintf(stderr, format, argument);
    fprintf(stderr, " (try --help)\n");
    exit(2);
}

static void store_value(const struct wl_option *option, const char *text)
{
    char *end = NULL;
    errno = 0;
    switch (option->kind) {
    case WL_OPT_INT: {
        long parsed = strtol(text, &end, 0);
        if (errno || *end || end == text || parsed < -2147483647L || parsed > 2147483647L)
            usage_error("not an integer: '%s'", text);
        *(int *)option->value = (int)parsed;
        break;
    }
    case WL_OPT_LONG: {
        long long parsed = strtoll(text, &end, 0);
        if (errno || *end || end == text)
            usage_error("not an integer: '%s'", text);
        *(long long *)option->value = parsed;
        break;
    }
    case WL_OPT_DOUBLE: {
        double parsed = strtod(text, &end);
        if (errno || *end || end == text || !isfinite(parsed))
            usage_error("not a number: '%s'", text);
        *(double *)option->value = parsed;
        break;
    }
    case WL_OPT_STRING: *(const char **)option->value = text; break;
    case WL_OPT_SET: break;
    }
}

void wl_parse_args(int argc, char **argv, const char *summary, const struct wl_option *options,
                   int option_count)
{
    const char *slash = strrchr(argv[0], '/');
    program_name = slash ? slash + 1 : argv[0];
    for (int i = 1; i < argc; i++) {
        const char *argument = argv[i];
        if (strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0) {
            print_usage(summary, options, option_count);
            exit(0);
        }
        const char *equals = strchr(argument, '=');
        size_t name_length = equals ? (size_t)(equals - argument) : strlen(argument);
        const struct wl_option *match = NULL;
        for (int k = 0; k < option_count && !match; k++)
            if (strlen(options[k].name) == name_length &&
                strncmp(options[k].name, argument, name_length) == 0)
                match = &options[k];
        if (!match)
            usage_error("unknown option '%s'", argument);
        if (match->kind == WL_OPT_SET) {
            if (equals)
                usage_error("option '%s' takes no value", argument);
            *(int *)match->value = match->set_to;
            continue;
        }
        const char *value = equals ? equals + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!value)
            usage_error("option '%s' needs a value", argument);
        store_value(match, value);
    }
}

/* ---- device ------------------------------------------------------------------------------ */

void wl_device_open(int ordinal, struct wl_device *device)
{
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    WL_CHECK(cudaSetDevice(ordinal));
    WL_CHECK(cudaFree(0));
    memset(device, 0, sizeof *device);
    device->ordinal = ordinal;
    cudaDeviceProp properties;
    WL_CHECK(cudaGetDeviceProperties(&properties, ordinal));
    snprintf(device->name, sizeof device->name, "%s", properties.name);
    WL_CHECK(cudaDeviceGetAttribute(&device->sm_count, cudaDevAttrMultiProcessorCount, ordinal));
    WL_CHECK(cudaDeviceGetAttribute(&device->async_engine_count, cudaDevAttrAsyncEngineCount,
                                    ordinal));
    WL_CHECK(cudaDeviceGetAttribute(&device->max_threads_per_sm,
                                    cudaDevAttrMaxThreadsPerMultiProcessor, ordinal));
}

int wl_blocks_per_sm(const void *kernel, int block_threads, size_t dynamic_shared_bytes)
{
    int blocks = 0;
    WL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads,
                                                           dynamic_shared_bytes));
    if (blocks < 1)
        wl_fail("a %d-thread block of this kernel does not fit on an SM", block_threads);
    return blocks;
}

/* ---- NVTX -------------------------------------------------------------------------------- */

void wl_range_push(const char *format, ...)
{
    char text[128];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    nvtxRangePushA(text);
}

void wl_range_pop(void) { nvtxRangePop(); }

/* ---- time -------------------------------------------------------------------------------- */

double wl_now_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

void wl_host_busy_us(double microseconds)
{
    double until = wl_now_seconds() + microseconds * 1e-6;
    while (wl_now_seconds() < until) {
    }
}

/* ---- buffers ---------------------------------------------------------------------------- */

float *wl_device_zeros(size_t count)
{
    float *buffer = NULL;
    WL_CHECK(cudaMalloc(&buffer, count * sizeof(float)));
    WL_CHECK(cudaMemset(buffer, 0, count * sizeof(float)));
    return buffer;
}

double wl_device_sum(const float *device_values, size_t count)
{
    float *host = (float *)malloc(count * sizeof(float));
    if (!host)
        wl_fail("out of host memory (%zu floats)", count);
    WL_CHECK(cudaMemcpy(host, device_values, count * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (size_t i = 0; i < count; i++)
        sum += host[i];
    free(host);
    return sum;
}

void wl_expect_sum(const char *what, double got, double want)
{
    double tolerance = 1e-6 * fmax(1.0, fabs(want));
    if (!isfinite(got) || fabs(got - want) > tolerance)
        wl_fail("verification failed: %s is %.9g, expected %.9g", what, got, want);
}
