/* host_sampler_probe.c: libhost_sampler_probe.so, the host sampler (collector/host_sampler.h)
 * started on the process that loads it, writing through the collector's writer thread into a
 * trace, as the collector does inside a recorded job. tests/collector/host_sampler.py loads it in
 * a real python3 through ctypes and checks what the samples say about its threads. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector_writer.h"
#include "host_sampler.h"
#include "python_gc.h"
#include "store.h"
#include "thread_names.h"

#define EXPORTED __attribute__((visibility("default")))

static store *trace;
static collector_writer *writer;
static host_sampler *sampler;

static int64_t now_ns(void)
{
    struct timespec time;
    clock_gettime(CLOCK_REALTIME, &time);
    return (int64_t)time.tv_sec * 1000000000 + time.tv_nsec;
}

static int consume_nothing(void *context, store *s, const uint8_t *buffer, size_t valid_bytes,
                           error_info *err)
{
    (void)context, (void)s, (void)buffer, (void)valid_bytes, (void)err;
    return 0;
}

static void release_nothing(void *context, uint8_t *buffer)
{
    (void)context, (void)buffer;
}

static int consume_samples(void *context, store *s, const uint8_t *buffer, size_t valid_bytes,
                           error_info *err)
{
    (void)context;
    return host_sampler_consume(sampler, s, buffer, valid_bytes, err);
}

static void release_samples(void *context, uint8_t *buffer)
{
    (void)context;
    host_sampler_release(sampler, buffer);
}

static int submit(void *context, uint8_t *buffer, size_t valid_bytes)
{
    (void)context;
    collector_writer_submit_with(writer, buffer, valid_bytes, consume_samples, release_samples);
    return 0;
}

/* As a recorded job's processes do: every process records itself (the collector's
 * child_records_itself), so that this process must still sample its direct children's CPU. */
static int everyone_records_itself(pid_t pid)
{
    (void)pid;
    return 1;
}

/* Starts sampling at hz into a new trace at path. Returns 0, or -1 with error filled. */
EXPORTED int probe_start(const char *path, int hz, char *error, size_t size)
{
    error_info err = {{0}};
    trace = store_create(path, STORE_OVERWRITE | STORE_BATCHED_INSERTS, &err);
    if (trace)
        writer = collector_writer_start(trace, consume_nothing, release_nothing, NULL, &err);
    struct host_sampler_config config = {.hz = hz,
                                         .now_ns = now_ns,
                                         .submit = submit,
                                         .thread_ids = thread_names_tids,
                                         .records_itself = everyone_records_itself};
    if (writer)
        sampler = host_sampler_start(&config, &err);
    if (!sampler) {
        snprintf(error, size, "%s", err.message);
        return -1;
    }
    return 0;
}

/* The calling thread is sampled from now on, as a thread that made a CUDA call is. */
EXPORTED void probe_note_thread(void)
{
    thread_names_note((uint32_t)gettid());
}

/* python_gc.h's status, and python_gc_install (the sampler asks once it finds CPython). */
EXPORTED int probe_gc_status(void)
{
    return (int)python_gc_status();
}

EXPORTED int probe_gc_install(void)
{
    return (int)python_gc_install();
}

EXPORTED int probe_gc_running_on(uint32_t tid)
{
    return python_gc_running_on(tid);
}

EXPORTED int64_t probe_now_ns(void)
{
    return now_ns();
}

/* Stops the sampler, writes everything, completes the trace; returns the dropped samples, or -1. */
EXPORTED long long probe_stop(char *error, size_t size)
{
    error_info err = {{0}};
    host_sampler_stop(sampler);
    struct host_sampler_counts counts;
    host_sampler_counts(sampler, &counts);
    int status = collector_writer_stop(writer, &err);
    host_sampler_free(sampler);
    if (status == 0)
        status = store_finalize(trace, &err);
    store_close(trace, NULL);
    if (status != 0) {
        snprintf(error, size, "%s", err.message);
        return -1;
    }
    snprintf(error, size, "%s", counts.python_note);
    return counts.dropped_samples;
}
