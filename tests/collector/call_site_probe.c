/* call_site_probe.c: libcall_site_probe.so, the collector's source capture (python_frames.h,
 * native_caller.h, call_site.h) behind plain C entry points, so that a Python script can call it through
 * ctypes as PyTorch calls CUDA: from a Python line, with the GIL released (ctypes releases it
 * around every foreign call, as torch's gil_scoped_release does around torch.cuda.synchronize).
 * Used by tests/collector/python_frames.py and test_native_caller.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "call_site.h"
#include "native_caller.h"
#include "python_calls.h"
#include "python_frames.h"
#include "trace_builder.h"

#define EXPORTED __attribute__((visibility("default")))

static struct python_frames frames;
static char unsupported_why[256];
static pthread_once_t detected = PTHREAD_ONCE_INIT;

static void detect(void)
{
    python_frames_detect(&frames, unsupported_why, sizeof unsupported_why);
    native_caller_prepare();
}

/* "absent", "ready" or "unsupported: WHY". */
EXPORTED const char *probe_python_status(void)
{
    static char status[300];
    pthread_once(&detected, detect);
    if (frames.status == PYTHON_FRAMES_READY)
        return "ready";
    if (frames.status == PYTHON_FRAMES_ABSENT)
        return "absent";
    snprintf(status, sizeof status, "unsupported: %s", unsupported_why);
    return status;
}

/* The calling thread's Python source; 1 when there is one. */
EXPORTED int probe_python_source(char *source, size_t size)
{
    pthread_once(&detected, detect);
    return python_frames_capture(&frames, source, size);
}

/* python_frames_captures_again of the calling thread. */
EXPORTED unsigned long probe_python_captures_again(void)
{
    return python_frames_captures_again();
}

EXPORTED int probe_native_source(char *source, size_t size)
{
    pthread_once(&detected, detect);
    return native_caller_describe(source, size);
}

struct native_thread_result {
    int found;
    char source[512];
};

static void *capture_on_native_thread(void *argument)
{
    struct native_thread_result *result = argument;
    result->found = probe_python_source(result->source, sizeof result->source);
    return NULL;
}

/* The Python source seen by a thread Python never ran on (none, if all is well): 1 when one was
 * found, -1 when the thread could not start. */
EXPORTED int probe_python_source_on_native_thread(char *source, size_t size)
{
    struct native_thread_result result = {0};
    pthread_t thread;
    if (pthread_create(&thread, NULL, capture_on_native_thread, &result) != 0)
        return -1;
    pthread_join(thread, NULL);
    snprintf(source, size, "%s", result.found ? result.source : "");
    return result.found;
}

/* --- the wrappers' timing (python_calls.h) --- */

static int64_t realtime_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

EXPORTED void probe_python_calls_enable(void)
{
    python_calls_enable(realtime_ns);
}

/* The calls timed since the last take: at most capacity of them into starts, ends, threads and
 * functions; returns how many there were. */
EXPORTED long probe_python_calls_take(int64_t *starts, int64_t *ends, uint32_t *threads, uint32_t *functions,
                                      long capacity)
{
    size_t count = 0;
    struct python_call *calls = python_calls_take(&count);
    for (size_t i = 0; i < count && (long)i < capacity; i++) {
        starts[i] = calls[i].start_ns;
        ends[i] = calls[i].end_ns;
        threads[i] = calls[i].thread_id;
        functions[i] = calls[i].function;
    }
    free(calls);
    return (long)count;
}

EXPORTED const char *probe_python_calls_name(uint32_t function)
{
    return python_calls_function_name(function);
}

/* "TIMED UNTIMED WHY" */
EXPORTED const char *probe_python_calls_counts(void)
{
    static char text[256];
    struct python_calls_counts counts;
    python_calls_counts(&counts);
    snprintf(text, sizeof text, "%d %d %s", counts.timed, counts.untimed, counts.why);
    return text;
}

/* --- the collector's road: call_site.h as the CUDA callback drives it --- */

static struct call_site sites;

/* call_site_init, as InitializeInjection does (enabled 0: OVERLAPSCOPE_CALL_SOURCES=0;
 * record_inner_calls 1: API records from CUPTI's activity kinds, 0: from the collector's callbacks). */
EXPORTED int probe_sites_start(int enabled, int record_inner_calls)
{
    error_info err;
    int status = call_site_init(&sites, enabled, &err);
    sites.record_inner_calls = record_inner_calls;
    return status;
}

/* The callbacks of one cudaDeviceSynchronize (correlation_id) and of the driver's cuCtxSynchronize
 * it calls (correlation_id + 1): entries innermost last, exits innermost first. */
EXPORTED void probe_blocking_call(int64_t correlation_id)
{
    call_site_enter(&sites, correlation_id);
    call_site_enter(&sites, correlation_id + 1);
    call_site_exit(&sites);
    call_site_exit(&sites);
}

/* Seed 004's loop in miniature, one iteration every 300 us: cudaLaunchKernel [0, 5], the kernel
 * [10, 100], cudaDeviceSynchronize [6, 290] (correlation 10 + 2i) with the driver's cuCtxSynchronize
 * inside [7, 289] (11 + 2i). Then the sources probe_blocking_call kept, written as the collector's
 * writer thread writes them (call_site_write). Returns 0, or -1 with error filled. */
EXPORTED int probe_write_sync_trace(const char *directory, const char *name, int iterations, char *error,
                                    size_t size)
{
    struct builder b;
    int status = builder_create(&b, directory, name);
    int64_t process = status == 0 ? builder_process(&b, 0) : 0;
    if (status == 0)
        builder_h100(&b, process, 0);
    for (int i = 0; status == 0 && i < iterations; i++) {
        double t = 300.0 * i;
        struct store_kernel kernel = builder_kernel_row(process, 7, t + 10, t + 100, 1, 32, "step_kernel");
        kernel.correlation_id = builder_api(&b, process, 1, "cudaLaunchKernel", t, t + 5, 0);
        builder_insert_kernel(&b, kernel);
        builder_api(&b, process, 1, "cudaDeviceSynchronize", t + 6, t + 290, 10 + 2 * i);
        struct store_api_call driver = {.process_id = process,
                                        .thread_id = 1,
                                        .api_domain = STORE_API_DRIVER,
                                        .callback_id = STORE_NULL,
                                        .correlation_id = 11 + 2 * i,
                                        .start_ns = AT(t + 7),
                                        .end_ns = AT(t + 289),
                                        .return_value = 0,
                                        .name = "cuCtxSynchronize"};
        store_insert_api_call(b.trace, &driver, &b.err);
    }
    if (status == 0)
        status = call_site_write(&sites, b.trace, process, &b.err);
    if (status == 0)
        status = builder_finish(&b);
    snprintf(error, size, "%s", status == 0 ? "" : b.err.message);
    if (b.trace)
        builder_close(&b);
    call_site_free(&sites);
    return status;
}
