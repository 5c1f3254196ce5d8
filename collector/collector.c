/* collector.c: liboverlapscope-collector.so, the CUPTI injection library.
 *
 * CUDA loads it when CUDA_INJECTION64_PATH names it and calls InitializeInjection at cuInit
 * (CUPTI documentation, "CUPTI Injection"). From then on CUPTI hands completed activity buffers
 * to buffer_completed, which queues them for the one writer thread (collector_writer.h) of the
 * process's own file (process_file.h); records become rows in cupti_convert.c. At exit (on_exit),
 * on SIGINT/SIGTERM (when the program has no handler of its own) and never otherwise, the last
 * buffers are flushed and the file completed. Nothing here may stop the workload: every CUPTI
 * failure becomes one warning row. NVTX loads it too, through NVTX_INJECTION64_PATH, and calls
 * InitializeInjectionNvtx2, which is handed to this library's own libcupti. The CUPTI callback
 * subscriber is launch_watch.c; what its counts mean at exit is competing_profiler.c's to say.
 *
 * Owns the process's only mutable global, `collector` (STYLE.md allows the collector one; the
 * launch watch's state lives inside it and reaches CUPTI as callback userdata). */
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "call_buffers.h"
#include "call_site.h"
#include "call_site_cupti.h"
#include "capture_cupti.h"
#include "collector_options.h"
#include "collector_writer.h"
#include "competing_profiler.h"
#include "cuda_api.h"
#include "cupti_convert.h"
#include "environment_facts.h"
#include "framework_calls.h"
#include "host_calls.h"
#include "host_sampler.h"
#include "launch_watch.h"
#include "nccl_profiler.h"
#include "process_file.h"
#include "python_calls.h"
#include "thread_names.h"

#define EXPORTED __attribute__((visibility("default")))
#define MAX_WARNINGS 16
#define MAX_CONTEXT_DROPS 64
#define SIGNAL_FINISH_TIMEOUT_MS 5000 /* a signal handler waits at most this for the file */
#define SPARE_BUFFERS 8               /* written buffers kept for reuse instead of freed */

struct collector_warning {
    char code[32];
    char message[512];
};

struct context_drops {
    uint32_t context_id;
    int64_t dropped;
};

struct collector_state {
    pthread_mutex_t lock;
    int active;   /* this process records */
    int finished; /* its file is complete */
    pid_t pid;
    struct collector_options options;
    struct process_file file;
    cupti_convert *converter;
    collector_writer *writer;
    int64_t start_ns;

    atomic_llong buffers_requested; /* handed to CUPTI by buffer_requested */
    atomic_llong buffers_completed; /* returned to us by buffer_completed */
    atomic_llong buffers_refused;   /* requests refused at OVERLAPSCOPE_BUFFER_COUNT */
    atomic_llong buffers_outstanding;
    /* Written buffers kept for CUPTI's next requests: a fresh 8 MiB buffer is a new mmap whose
     * pages fault in one by one while CUPTI fills it; a reused one is already mapped. */
    pthread_mutex_t spare_lock;
    uint8_t *spare_buffers[SPARE_BUFFERS];
    int spare_count;

    struct context_drops drops[MAX_CONTEXT_DROPS];
    int drop_count;
    int64_t dropped_total;

    struct collector_warning warnings[MAX_WARNINGS];
    int warning_count;
    int cupti_error_count;

    struct launch_watch watch; /* the callback subscriber's counts (launch_watch.h) */
    /* API calls, synchronizations and event records from our callbacks (host_calls.h); NULL when
     * they come from CUPTI's activity kinds or are not recorded. */
    host_calls *host_calls;
    call_buffers *call_buffers;
    /* Where blocking calls were made (call_site.h); sites.enabled 0 when not recorded. */
    struct call_site sites;
    struct call_site_cupti blocking_calls;
    int earlier_subscriber; /* cuptiSubscribe said another client was attached first */
    char other_subscriber[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1];
    atomic_int nvtx_injection; /* 0 NVTX never initialised us, 1 forwarded to CUPTI, -1 failed */

    struct sigaction previous_int, previous_term;
    int signal_pipe[2], done_pipe[2];
    pthread_t signal_thread;
    int signal_thread_started;
    volatile sig_atomic_t term_signal;

    pthread_t flush_thread;
    int flush_thread_started, flush_thread_stop;
    host_sampler *sampler; /* record --sample-hz (host_sampler.h); NULL when off */
    pthread_cond_t flush_wakeup;
};

static struct collector_state collector = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .spare_lock = PTHREAD_MUTEX_INITIALIZER,
    .flush_wakeup = PTHREAD_COND_INITIALIZER,
    .signal_pipe = {-1, -1},
    .done_pipe = {-1, -1},
};

/* --- warnings, kept in memory until the file is completed --- */

static void add_warning(const char *code, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void add_warning(const char *code, const char *format, ...)
{
    pthread_mutex_lock(&collector.lock);
    if (collector.warning_count < MAX_WARNINGS) {
        struct collector_warning *warning = &collector.warnings[collector.warning_count++];
        snprintf(warning->code, sizeof warning->code, "%s", code);
        va_list args;
        va_start(args, format);
        vsnprintf(warning->message, sizeof warning->message, format, args);
        va_end(args);
    }
    pthread_mutex_unlock(&collector.lock);
}

static const char *cupti_result_text(CUptiResult result)
{
    const char *text = NULL;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text)
        text = "unknown CUPTI error";
    return text;
}

/* The first CUPTI failure is kept as a warning; later ones are only counted. */
static int cupti_ok(CUptiResult result, const char *call)
{
    if (result == CUPTI_SUCCESS)
        return 1;
    pthread_mutex_lock(&collector.lock);
    int first = collector.cupti_error_count++ == 0;
    pthread_mutex_unlock(&collector.lock);
    if (first)
        add_warning("cupti-error", "%s failed: %s (%d)", call, cupti_result_text(result), (int)result);
    return 0;
}

static int64_t now_ns(void)
{
    uint64_t timestamp = 0;
    if (cuptiGetTimestamp(&timestamp) != CUPTI_SUCCESS) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
    }
    return (int64_t)timestamp;
}

/* --- buffers --- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;
    *buffer = NULL;
    *size = 0;
    /* Refusing a buffer makes CUPTI drop records (counted): memory stays bounded when the
     * writer cannot keep up. */
    if (atomic_load(&collector.buffers_outstanding) >= collector.options.buffer_count) {
        atomic_fetch_add(&collector.buffers_refused, 1);
        return;
    }
    void *memory = NULL;
    pthread_mutex_lock(&collector.spare_lock);
    if (collector.spare_count > 0)
        memory = collector.spare_buffers[--collector.spare_count];
    pthread_mutex_unlock(&collector.spare_lock);
    if (!memory && posix_memalign(&memory, 8, collector.options.buffer_bytes) != 0)
        return;
    atomic_fetch_add(&collector.buffers_outstanding, 1);
    atomic_fetch_add(&collector.buffers_requested, 1);
    *buffer = memory;
    *size = collector.options.buffer_bytes;
}

static void release_buffer(void *context, uint8_t *buffer)
{
    (void)context;
    pthread_mutex_lock(&collector.spare_lock);
    if (collector.spare_count < SPARE_BUFFERS) {
        collector.spare_buffers[collector.spare_count++] = buffer;
        buffer = NULL;
    }
    pthread_mutex_unlock(&collector.spare_lock);
    free(buffer);
    atomic_fetch_sub(&collector.buffers_outstanding, 1);
}

static void count_drops(CUcontext context, uint32_t stream_id)
{
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) != CUPTI_SUCCESS || dropped == 0)
        return;
    uint32_t context_id = 0;
    if (context)
        cuptiGetContextId(context, &context_id);
    pthread_mutex_lock(&collector.lock);
    collector.dropped_total += (int64_t)dropped;
    int slot = 0;
    while (slot < collector.drop_count && collector.drops[slot].context_id != context_id)
        slot++;
    if (slot < MAX_CONTEXT_DROPS) {
        if (slot == collector.drop_count)
            collector.drops[collector.drop_count++] = (struct context_drops){context_id, 0};
        collector.drops[slot].dropped += (int64_t)dropped;
    }
    pthread_mutex_unlock(&collector.lock);
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t *buffer, size_t size,
                                      size_t valid_bytes)
{
    (void)size;
    atomic_fetch_add(&collector.buffers_completed, 1);
    count_drops(context, stream_id);
    pthread_mutex_lock(&collector.lock);
    int queued = !collector.options.discard && collector.writer && collector.pid == getpid() &&
                 valid_bytes > 0 && buffer &&
                 collector_writer_submit(collector.writer, buffer, valid_bytes) == 0;
    pthread_mutex_unlock(&collector.lock);
    if (!queued && buffer)
        release_buffer(NULL, buffer);
}

/* Runs on the writer thread. */
static int consume_cupti_buffer(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                                error_info *err)
{
    (void)trace;
    cupti_convert *converter = context;
    CUpti_Activity *record = NULL;
    for (;;) {
        CUptiResult result = cuptiActivityGetNextRecord((uint8_t *)buffer, valid_bytes, &record);
        if (result == CUPTI_ERROR_MAX_LIMIT_REACHED)
            return 0;
        if (result != CUPTI_SUCCESS)
            return error_set(err, "cannot read a CUPTI activity buffer: %s", cupti_result_text(result));
        if (cupti_convert_record(converter, record, err) != 0)
            return -1;
    }
}

static void consume_release(void *context, uint8_t *buffer)
{
    release_buffer(context, buffer);
}

/* Runs on the writer thread: a copy of host call records (call_buffers.h). */
static int consume_host_calls(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                              error_info *err)
{
    (void)trace;
    const struct host_call_record *calls = (const struct host_call_record *)buffer;
    for (size_t i = 0; i < valid_bytes / sizeof *calls; i++)
        if (cupti_convert_host_call(context, &calls[i], err) != 0)
            return -1;
    return 0;
}

static void release_host_calls(void *context, uint8_t *buffer)
{
    (void)context;
    free(buffer);
}

/* call_buffers' submit: queues a copy of records for the writer (which frees it), or frees it. */
static int submit_host_calls(void *context, struct host_call_record *records, size_t count)
{
    (void)context;
    if (collector.options.discard) {
        free(records);
        return 0;
    }
    pthread_mutex_lock(&collector.lock);
    int writing = collector.writer && collector.pid == getpid();
    int queued =
        writing && collector_writer_submit_with(collector.writer, (uint8_t *)records, count * sizeof *records,
                                                consume_host_calls, release_host_calls) == 0;
    pthread_mutex_unlock(&collector.lock);
    if (!writing)
        free(records); /* late records, after the file was completed */
    return queued ? 0 : -1;
}

/* --- where blocking calls were made (call_site.h) --- */

/* Runs on the writer thread: rows of call_site_take. */
static int consume_call_sources(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                                error_info *err)
{
    (void)context;
    return call_site_write_rows(&collector.sites, trace, collector.file.process_id,
                                (const struct call_site_row *)buffer,
                                valid_bytes / sizeof(struct call_site_row), err);
}

static void release_call_sources(void *context, uint8_t *buffer)
{
    (void)context;
    free(buffer);
}

/* Hands size bytes of records (malloc'd; NULL: none) to the writer with their consume function, or
 * frees them where this process writes nothing (a fork child's copy, --discard, after the end). */
static void submit_records(void *records, size_t size, collector_writer_consume consume)
{
    if (!records)
        return;
    pthread_mutex_lock(&collector.lock);
    int writing = collector.writer && collector.pid == getpid() && !collector.options.discard;
    if (writing)
        collector_writer_submit_with(collector.writer, (uint8_t *)records, size, consume,
                                     release_call_sources); /* frees on failure */
    pthread_mutex_unlock(&collector.lock);
    if (!writing)
        free(records);
}

/* Hands the rows kept so far to the writer, in order with the API records they describe (the
 * periodic flush and finish_recording, after call_buffers_flush). */
static void submit_call_sources(void)
{
    size_t count = 0;
    struct call_site_row *rows = collector.sites.enabled ? call_site_take(&collector.sites, &count) : NULL;
    submit_records(rows, count * sizeof *rows, consume_call_sources);
}

/* --- when the library's wrappers of blocking calls ran (python_calls.h) --- */

/* Runs on the writer thread: records of python_calls_take. */
static int consume_python_calls(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                                error_info *err)
{
    (void)context;
    const struct python_call *records = (const struct python_call *)buffer;
    size_t count = valid_bytes / sizeof *records;
    struct store_framework_call rows[256];
    for (size_t done = 0; done < count;) {
        size_t batch = count - done < 256 ? count - done : 256;
        for (size_t i = 0; i < batch; i++) {
            const struct python_call *record = &records[done + i];
            rows[i] = (struct store_framework_call){.thread_id = record->thread_id,
                                                    .start_ns = record->start_ns,
                                                    .end_ns = record->end_ns,
                                                    .function = python_calls_function_name(record->function)};
        }
        if (store_insert_framework_calls(trace, collector.file.process_id, rows, batch, err) != 0)
            return -1;
        done += batch;
    }
    return 0;
}

/* Hands the wrappers' calls timed so far to the writer (with the call sources). */
static void submit_python_calls(void)
{
    size_t count = 0;
    struct python_call *records = collector.sites.enabled ? python_calls_take(&count) : NULL;
    submit_records(records, count * sizeof *records, consume_python_calls);
}

static const char *api_namer(void *context, int64_t api_domain, uint32_t callback_id)
{
    (void)context;
    const char *name = NULL;
    CUpti_CallbackDomain domain =
        api_domain == STORE_API_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
    if (cuptiGetCallbackName(domain, callback_id, &name) != CUPTI_SUCCESS)
        return NULL;
    return name;
}

/* --- the callback subscriber and competing profilers --- */

static void subscribe_to_launches(void)
{
    CUptiResult result =
        launch_watch_subscribe(&collector.watch, collector.options.launch_callbacks,
                               collector.other_subscriber, sizeof collector.other_subscriber);
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        collector.earlier_subscriber = 1;
    else
        cupti_ok(result, "cuptiSubscribe_v2");
}

static void detect_competing_profiler(void)
{
    struct competing_profiler_evidence evidence = {
        .kernels_enabled = (collector.options.kinds & COLLECTOR_KIND_KERNEL) != 0,
        .watching_launches = collector.watch.subscribed && collector.watch.watching_launches,
        .launches = launch_watch_launches(&collector.watch),
        .kernels = collector.converter ? cupti_convert_counts(collector.converter)->kernels : 0,
        .dropped = collector.dropped_total,
        .buffers_requested = atomic_load(&collector.buffers_requested),
        .buffers_completed = atomic_load(&collector.buffers_completed),
        .earlier_subscriber = collector.earlier_subscriber,
        .earlier_name = collector.other_subscriber,
        .refused_subscribers = atomic_load(&collector.watch.refused_subscribers),
        .foreign_records =
            collector.converter ? cupti_convert_counts(collector.converter)->foreign_records : 0,
    };
    struct competing_profiler_finding findings[3];
    int count = competing_profiler_judge(&evidence, findings, 3);
    for (int i = 0; i < count; i++)
        add_warning(findings[i].code, "%s", findings[i].message);
    if (atomic_load(&collector.watch.state_notices) > 0 && collector.watch.first_notice[0])
        add_warning("cupti-notice", "%lld notice(s) from CUPTI; the first: %s",
                    (long long)atomic_load(&collector.watch.state_notices), collector.watch.first_notice);
    int64_t incomplete =
        collector.converter ? cupti_convert_counts(collector.converter)->incomplete_records : 0;
    if (incomplete > 0)
        add_warning("incomplete-records",
                    "%lld kernel, copy or memset record(s) came without timestamps (still running at a forced"
                    " flush) and were skipped",
                    (long long)incomplete);
    if (atomic_load(&collector.nvtx_injection) < 0)
        add_warning("nvtx-unavailable", "NVTX initialised overlapscope but the CUPTI library it uses has no"
                                        " InitializeInjectionNvtx2: no NVTX ranges were recorded");
}

/* Marks every per-thread default stream the launch callbacks found (launch_watch.h). */
static void mark_per_thread_streams(void)
{
    error_info err;
    pthread_mutex_lock(&collector.watch.lock);
    int count = collector.watch.per_thread_stream_count;
    struct launch_watch_stream streams[LAUNCH_WATCH_MAX_STREAMS];
    memcpy(streams, collector.watch.per_thread_streams, (size_t)count * sizeof streams[0]);
    pthread_mutex_unlock(&collector.watch.lock);
    for (int i = 0; i < count; i++)
        if (cupti_convert_mark_per_thread_default(collector.converter, streams[i].context_id,
                                                  streams[i].stream_id, &err) != 0) {
            add_warning("write-error", "%s", err.message);
            return;
        }
}

/* --- starting and finishing --- */

/* The thread id CUPTI writes into API records (pthread_self unless cuptiSetThreadIdType chose
 * SYSTEM, cupti_activity.h), so NCCL events and API records of one thread compare equal. */
/* --- host samples (host_sampler.h), through the one writer --- */

static int consume_host_samples(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                                error_info *err)
{
    (void)context;
    return host_sampler_consume(collector.sampler, trace, buffer, valid_bytes, err);
}

static void release_host_samples(void *context, uint8_t *buffer)
{
    (void)context;
    host_sampler_release(collector.sampler, buffer);
}

/* The sampler's submit: 0 once the writer has the buffer (or has released it), -1 when there is
 * no writer (the sampler takes the buffer back). */
static int submit_host_samples(void *context, uint8_t *buffer, size_t valid_bytes)
{
    (void)context;
    pthread_mutex_lock(&collector.lock);
    int writing = collector.writer && collector.pid == getpid() && !collector.options.discard;
    if (writing)
        collector_writer_submit_with(collector.writer, buffer, valid_bytes, consume_host_samples,
                                     release_host_samples); /* releases on failure */
    pthread_mutex_unlock(&collector.lock);
    return writing ? 0 : -1;
}

/* The allow-listed environment (environment_facts.h) and the sample rate, before the writer owns
 * the file. */
static void write_host_facts(void)
{
    extern char **environ;
    error_info err;
    store *trace = collector.file.trace;
    char hz[16];
    snprintf(hz, sizeof hz, "%d", collector.options.sample_hz);
    if (store_begin(trace, &err) != 0 || environment_facts_write(trace, collector.pid, environ, &err) < 0 ||
        store_set_meta(trace, "host_sample_hz", hz, &err) != 0 || store_commit(trace, &err) != 0)
        add_warning("write-error", "environment facts: %s", err.message);
}

/* A process of the job records itself (a forked child from child_after_fork, an exec'd one from
 * its start) and has its file at once (host_sampler.h: who samples whose CPU). */
static int child_records_itself(pid_t pid)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/proc-%lld-0.db", collector.options.output_dir, (long long)pid);
    return access(path, F_OK) == 0;
}

static void start_host_sampler(void)
{
    if (collector.options.sample_hz <= 0)
        return;
    struct host_sampler_config config = {.hz = collector.options.sample_hz,
                                         .now_ns = now_ns,
                                         .submit = submit_host_samples,
                                         .thread_ids = thread_names_tids,
                                         .records_itself = child_records_itself,
                                         .parent_samples_me = child_records_itself(getppid())};
    error_info err;
    collector.sampler = host_sampler_start(&config, &err);
    if (!collector.sampler)
        add_warning("host-samples", "no host samples: %s", err.message);
}

/* Stops the sampler (before the writer's last drain) and says what it could not do. */
static void stop_host_sampler(void)
{
    if (!collector.sampler)
        return;
    host_sampler_stop(collector.sampler);
    struct host_sampler_counts counts;
    host_sampler_counts(collector.sampler, &counts);
    if (counts.dropped_samples > 0)
        add_warning("host-samples", "%lld of %lld host samples dropped (the writer held every sample buffer)",
                    (long long)counts.dropped_samples,
                    (long long)(counts.dropped_samples + counts.thread_samples + counts.process_samples));
    if (counts.python_note[0])
        add_warning("host-samples", "host samples have no Python stacks: %s", counts.python_note);
}

static int64_t cupti_thread_id(void)
{
    CUpti_ActivityThreadIdType type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
    cuptiGetThreadIdType(&type);
    return type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM ? (int64_t)gettid()
                                                        : (int64_t)(uint32_t)pthread_self();
}

static int start_recording(error_info *err)
{
    struct process_identity identity;
    process_identity_read(&identity);
    collector.pid = getpid();
    collector.start_ns = now_ns();
    if (process_file_create(&collector.file, collector.options.output_dir, &identity, collector.start_ns,
                            err) != 0)
        return -1;
    collector.converter = cupti_convert_new(collector.file.trace, collector.file.process_id, api_namer, NULL);
    if (!collector.converter) {
        process_file_finish(&collector.file, STORE_NULL, STORE_NULL, STORE_NULL, 0, NULL);
        return error_set(err, "out of memory");
    }
    cupti_convert_set_nccl(collector.converter, collector.options.nccl);
    write_host_facts();
    struct nccl_profiler_hooks nccl_hooks = {.now_ns = now_ns, .thread_id = cupti_thread_id};
    if (collector.options.nccl && nccl_profiler_start(&nccl_hooks) != 0)
        add_warning("write-error", "no memory for NCCL profiler events");
    collector.writer = collector_writer_start(collector.file.trace, consume_cupti_buffer, consume_release,
                                              collector.converter, err);
    if (!collector.writer) {
        cupti_convert_free(collector.converter);
        collector.converter = NULL;
        process_file_finish(&collector.file, STORE_NULL, STORE_NULL, STORE_NULL, 0, NULL);
        return -1;
    }
    collector.active = 1;
    start_host_sampler();
    return 0;
}

/* The periodic flush. cuptiActivityFlushPeriod is not used: CUPTI's own timer returns only buffers
 * that are full (CUPTI docs, "Flushing of the activity buffers"), so a job that dies before its
 * 8 MiB buffer fills would lose everything. cuptiActivityFlushAll(0) returns every buffer whose
 * records are all complete, full or not. OVERLAPSCOPE_FLUSH_FORCED=1 (diagnostic) forces the
 * flush: records of work still running come back without timestamps and are skipped (counted). */
static void *flush_main(void *argument)
{
    (void)argument;
    uint32_t flag = collector.options.flush_forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0;
    pthread_mutex_lock(&collector.lock);
    while (!collector.flush_thread_stop) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        int64_t nanoseconds = deadline.tv_nsec + (int64_t)collector.options.flush_ms * 1000000;
        deadline.tv_sec += nanoseconds / 1000000000;
        deadline.tv_nsec = nanoseconds % 1000000000;
        pthread_cond_timedwait(&collector.flush_wakeup, &collector.lock, &deadline);
        if (collector.flush_thread_stop)
            break;
        pthread_mutex_unlock(&collector.lock);
        cuptiActivityFlushAll(flag);
        if (collector.call_buffers)
            call_buffers_flush(collector.call_buffers);
        submit_call_sources();
        submit_python_calls();
        pthread_mutex_lock(&collector.lock);
    }
    pthread_mutex_unlock(&collector.lock);
    return NULL;
}

static void start_periodic_flush(void)
{
    if (pthread_create(&collector.flush_thread, NULL, flush_main, NULL) == 0)
        collector.flush_thread_started = 1;
    else
        add_warning("no-periodic-flush",
                    "the periodic flush thread could not start: a crash loses every record");
}

static void stop_periodic_flush(void)
{
    if (!collector.flush_thread_started)
        return;
    pthread_mutex_lock(&collector.lock);
    collector.flush_thread_stop = 1;
    pthread_cond_signal(&collector.flush_wakeup);
    pthread_mutex_unlock(&collector.lock);
    pthread_join(collector.flush_thread, NULL);
    collector.flush_thread_started = 0;
}

static void write_warnings_and_drops(void)
{
    error_info err;
    store *trace = collector.file.trace;
    for (int i = 0; i < collector.drop_count; i++)
        add_warning("dropped-records",
                    "CUPTI dropped %lld activity records in context %u (buffers full: raise"
                    " --buffer-mb or lower --flush-ms)",
                    (long long)collector.drops[i].dropped, collector.drops[i].context_id);
    long long lost_calls = collector.call_buffers ? call_buffers_lost(collector.call_buffers) : 0;
    if (lost_calls > 0)
        add_warning("dropped-records", "%lld API call records lost (no memory for them)", lost_calls);
    if (collector.sites.dropped_rows > 0)
        add_warning("call-sources",
                    "%lld blocking calls have no source (more than %d distinct sources or %d"
                    " waiting rows, or no memory)",
                    (long long)collector.sites.dropped_rows, CALL_SITE_MAX_SOURCES, CALL_SITE_MAX_PENDING);
    struct python_calls_counts wrappers;
    python_calls_counts(&wrappers);
    if (wrappers.untimed > 0)
        add_warning("framework-calls",
                    "%d of %d library functions around blocking calls were not timed (remove-host-sync"
                    " counts only their CUDA calls): %s",
                    wrappers.untimed, wrappers.untimed + wrappers.timed, wrappers.why);
    if (wrappers.lost > 0)
        add_warning("dropped-records", "%lld framework call records lost (more than 4M between flushes)",
                    wrappers.lost);
    if (atomic_load(&collector.buffers_refused) > 0)
        add_warning("dropped-records", "%lld activity buffer requests refused at the limit of %d buffers",
                    (long long)atomic_load(&collector.buffers_refused), collector.options.buffer_count);
    if (collector.cupti_error_count > 1)
        add_warning("cupti-error", "%d CUPTI calls failed in all (the first is reported above)",
                    collector.cupti_error_count);
    if (store_begin(trace, &err) != 0)
        return;
    for (int i = 0; i < collector.warning_count; i++) {
        struct store_warning row = {.process_id = collector.file.process_id,
                                    .time_ns = STORE_NULL,
                                    .code = collector.warnings[i].code,
                                    .message = collector.warnings[i].message};
        store_insert_warning(trace, &row, &err);
    }
    store_commit(trace, &err);
}

/* What was captured, into the file's meta (record_merge joins the processes'). */
static void finish_capture_range(void)
{
    error_info err;
    if (capture_cupti_finish(collector.file.trace, now_ns(), &err) != 0)
        add_warning("write-error", "the capture windows were not written: %s", err.message);
}

/* Flushes CUPTI, stops the writer and completes the file. Once per process; safe to call from
 * on_exit, the signal thread, and both. */
static void finish_recording(int64_t exit_status, int64_t term_signal)
{
    pthread_mutex_lock(&collector.lock);
    int mine = collector.active && !collector.finished && collector.pid == getpid();
    if (mine)
        collector.finished = 1;
    pthread_mutex_unlock(&collector.lock);
    if (!mine)
        return;
    cupti_ok(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    stop_periodic_flush();
    stop_host_sampler();
    if (collector.call_buffers)
        call_buffers_flush(collector.call_buffers); /* calls made after this are not recorded */
    submit_call_sources();
    submit_python_calls();
    pthread_mutex_lock(&collector.lock);
    collector_writer *writer = collector.writer;
    collector.writer = NULL; /* late buffers are freed, not queued */
    pthread_mutex_unlock(&collector.lock);
    error_info err;
    if (collector_writer_stop(writer, &err) != 0)
        add_warning("write-error", "some activity records were not written: %s", err.message);
    host_sampler_free(collector.sampler); /* the writer has released its buffers */
    collector.sampler = NULL;
    mark_per_thread_streams();
    if (cupti_convert_finish(collector.converter, &err) != 0)
        add_warning("write-error", "%s", err.message);
    if (collector.options.nccl &&
        nccl_profiler_write(collector.file.trace, collector.file.process_id, NULL, &err) != 0)
        add_warning("write-error", "%s", err.message);
    nccl_profiler_stop();
    detect_competing_profiler();
    if (thread_names_write(collector.file.trace, collector.file.process_id, &err) < 0)
        add_warning("write-error", "%s", err.message);
    finish_capture_range();
    write_warnings_and_drops();
    process_file_finish(&collector.file, now_ns(), exit_status, term_signal, collector.dropped_total, NULL);
    cupti_convert_free(collector.converter);
    collector.converter = NULL;
}

static void on_process_exit(int status, void *argument)
{
    (void)argument;
    finish_recording(collector.term_signal ? STORE_NULL : status,
                     collector.term_signal ? collector.term_signal : STORE_NULL);
}

/* --- signals: finish on a thread of our own, then die the way the program would have --- */

static void *signal_main(void *argument)
{
    (void)argument;
    unsigned char signal_number;
    while (read(collector.signal_pipe[0], &signal_number, 1) == 1) {
        finish_recording(STORE_NULL, signal_number);
        unsigned char done = 1;
        if (write(collector.done_pipe[1], &done, 1) != 1)
            break;
    }
    return NULL;
}

static void on_terminating_signal(int signal_number, siginfo_t *info, void *context)
{
    struct sigaction *previous = signal_number == SIGINT ? &collector.previous_int : &collector.previous_term;
    if (previous->sa_flags & SA_SIGINFO) {
        previous->sa_sigaction(signal_number, info, context);
        return;
    }
    if (previous->sa_handler == SIG_IGN)
        return;
    if (previous->sa_handler != SIG_DFL) {
        previous->sa_handler(signal_number); /* the program's own handler decides; on_exit finishes */
        return;
    }
    if (collector.signal_thread_started && collector.pid == getpid()) {
        collector.term_signal = signal_number;
        unsigned char byte = (unsigned char)signal_number;
        if (write(collector.signal_pipe[1], &byte, 1) == 1) {
            struct pollfd done = {.fd = collector.done_pipe[0], .events = POLLIN};
            poll(&done, 1, SIGNAL_FINISH_TIMEOUT_MS);
        }
    }
    signal(signal_number, SIG_DFL);
    raise(signal_number); /* delivered when this handler returns: the default action, death */
}

static void install_signal_handlers(void)
{
    if (pipe2(collector.signal_pipe, O_CLOEXEC) != 0 || pipe2(collector.done_pipe, O_CLOEXEC) != 0)
        return;
    if (pthread_create(&collector.signal_thread, NULL, signal_main, NULL) != 0)
        return;
    pthread_detach(collector.signal_thread);
    collector.signal_thread_started = 1;
    struct sigaction action = {.sa_sigaction = on_terminating_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &collector.previous_int);
    sigaction(SIGTERM, &action, &collector.previous_term);
}

/* --- fork: the child must never touch the parent's file; it writes its own --- */

static void child_after_fork(void)
{
    /* The parent's writer thread does not exist here and its SQLite handle must not be used:
     * forget them (not freed: freeing could touch state another parent thread held). */
    collector.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    int was_active = collector.active && !collector.finished;
    collector.active = 0;
    collector.finished = 0;
    collector.writer = NULL;
    collector.converter = NULL;
    if (collector.file.lock_fd >= 0)
        close(collector.file.lock_fd);
    collector.file = (struct process_file){.lock_fd = -1};
    collector.signal_thread_started = 0;
    collector.flush_thread_started = 0;
    collector.warning_count = 0;
    collector.cupti_error_count = 0;
    collector.drop_count = 0;
    collector.dropped_total = 0;
    launch_watch_reset(&collector.watch);
    collector.earlier_subscriber = 0;
    atomic_store(&collector.buffers_requested, 0);
    atomic_store(&collector.buffers_completed, 0);
    atomic_store(&collector.buffers_refused, 0);
    atomic_store(&collector.buffers_outstanding, 0);
    collector.spare_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    collector.spare_count = 0; /* the parent's spares stay allocated here: a copy of its memory */
    host_sampler_forget_after_fork(collector.sampler); /* restarted by start_recording below */
    collector.sampler = NULL;
    nccl_profiler_forget_after_fork();
    if (collector.call_buffers)
        call_buffers_forget_after_fork(collector.call_buffers);
    host_calls_forget_after_fork();
    thread_names_forget_after_fork();
    if (collector.sites.enabled)
        call_site_forget_after_fork(&collector.sites);
    python_calls_forget_after_fork();
    if (!was_active)
        return;
    error_info err;
    if (start_recording(&err) == 0)
        install_signal_handlers();
}

static void enable_kind(unsigned wanted, unsigned bit, CUpti_ActivityKind kind, const char *name)
{
    if (!(wanted & bit))
        return;
    char call[96];
    snprintf(call, sizeof call, "cuptiActivityEnable(%s)", name);
    cupti_ok(cuptiActivityEnable(kind), call);
}

/* The default API record set: only the calls the analysis reads (common/cuda_api.h), enabled one
 * callback id at a time (cuptiActivityEnableRuntimeApi/DriverApi, CUDA 13 cupti_activity.h), never
 * the whole RUNTIME/DRIVER kind, which would override the per-id switches. PyTorch makes ~16 API
 * calls per kernel, most of them cudaGetDevice and context queries (gpu-notes: 731,106 of 1,184,917
 * records in 800 MLP steps): recording those cost time in the job and 94% of the file. */
static void enable_api_calls(CUpti_CallbackDomain domain)
{
    int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    CUpti_CallbackId ids[LAUNCH_WATCH_MAX_API_IDS];
    int count = launch_watch_analysis_api_ids(domain, ids, LAUNCH_WATCH_MAX_API_IDS);
    for (int i = 0; i < count; i++) {
        CUptiResult result =
            runtime ? cuptiActivityEnableRuntimeApi(ids[i], 1) : cuptiActivityEnableDriverApi(ids[i], 1);
        if (!cupti_ok(result, runtime ? "cuptiActivityEnableRuntimeApi" : "cuptiActivityEnableDriverApi"))
            return; /* the first failure is stored as a warning; the rest would fail alike */
    }
}

static void on_api_called(void *context, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const CUpti_CallbackData *call)
{
    capture_cupti_on_api(domain, id, call);
    if (context)
        host_calls_on_api(context, domain, id, call);
    /* after host_calls took the entry timestamp: the capture is time inside the blocking call */
    if (collector.sites.enabled)
        call_site_cupti_on_api(&collector.blocking_calls, &collector.sites, domain, id, call);
}

/* API calls, synchronizations and event records from our own callbacks (host_calls.h), when the
 * subscriber is ours and the activity kinds were not asked for. Returns 1 when the callbacks
 * record them (or nothing of them is wanted), 0 when the activity kinds must. */
static int record_host_calls_from_callbacks(unsigned kinds)
{
    if (collector.options.calls_from_activity || collector.options.launch_callbacks != 1 ||
        !collector.watch.subscribed)
        return 0;
    struct host_calls_options options = {
        .runtime_rows = (kinds & COLLECTOR_KIND_RUNTIME) != 0,
        .driver_rows = (kinds & COLLECTOR_KIND_DRIVER) != 0,
        .sync_rows = (kinds & COLLECTOR_KIND_SYNC) != 0,
        .event_rows = (kinds & COLLECTOR_KIND_EVENT) != 0,
    };
    if (!options.runtime_rows && !options.driver_rows && !options.sync_rows && !options.event_rows)
        return 1;
    collector.call_buffers = call_buffers_new(0, submit_host_calls, NULL);
    collector.host_calls = collector.call_buffers ? host_calls_new(&options, collector.call_buffers) : NULL;
    if (!collector.host_calls) {
        call_buffers_free(collector.call_buffers);
        collector.call_buffers = NULL;
        return 0;
    }
    collector.watch.api_called_context = collector.host_calls;
    collector.watch.api_called = on_api_called;
    const CUpti_CallbackDomain domains[] = {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API};
    CUpti_CallbackId ids[LAUNCH_WATCH_MAX_API_IDS];
    for (int d = 0; d < 2; d++) {
        int count = host_calls_callback_ids(collector.host_calls, domains[d], ids, LAUNCH_WATCH_MAX_API_IDS);
        if (launch_watch_enable_api_ids(&collector.watch, domains[d], ids, count) != count)
            add_warning("cupti-error", "CUPTI refused some API callbacks: some API calls are not recorded");
    }
    return 1;
}

/* Sources for blocking calls (call_site.h) of the domains whose API calls are recorded, whichever
 * road the records take: with our callback records the callbacks are on already (the blocking
 * calls are in the analysis set) and only the outer call of a nested pair is a row; with CUPTI's
 * API activity kinds the blocking ids get callbacks of their own and inner driver calls are rows
 * too (CUPTI records both). */
static void start_call_sources(unsigned kinds)
{
    if (!collector.options.call_sources || !(kinds & (COLLECTOR_KIND_RUNTIME | COLLECTOR_KIND_DRIVER)) ||
        !collector.watch.subscribed)
        return;
    error_info err;
    if (call_site_init(&collector.sites, 1, &err) != 0) {
        add_warning("call-sources", "no call sources are recorded: %s", err.message);
        return;
    }
    collector.sites.record_inner_calls = collector.host_calls == NULL;
    if (collector.sites.python.status == PYTHON_FRAMES_READY)
        python_calls_enable(now_ns);
    if (collector.sites.python_unsupported[0])
        add_warning("call-sources", "%s", collector.sites.python_unsupported);
    call_site_cupti_init(&collector.blocking_calls, (kinds & COLLECTOR_KIND_RUNTIME) != 0,
                         (kinds & COLLECTOR_KIND_DRIVER) != 0);
    collector.watch.api_called = on_api_called;
    const CUpti_CallbackDomain domains[] = {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API};
    CUpti_CallbackId ids[LAUNCH_WATCH_MAX_API_IDS];
    for (int d = 0; d < 2; d++) {
        int count = call_site_cupti_ids(&collector.blocking_calls, domains[d], ids, LAUNCH_WATCH_MAX_API_IDS);
        if (launch_watch_enable_api_ids(&collector.watch, domains[d], ids, count) != count)
            add_warning("cupti-error", "CUPTI refused some callbacks: some blocking calls have no source");
    }
}

/* record --capture-range, --delay, --duration (capture_cupti.h): after enable_activities, which
 * turned the kinds on; the runtime callbacks reach it through on_api_called. */
static void start_capture_range(void)
{
    if (!capture_range_restricts(&collector.options.capture))
        return;
    if (!collector.watch.api_called)
        collector.watch.api_called = on_api_called; /* its context stays NULL: no host call rows */
    error_info why;
    if (capture_cupti_start(&collector.options.capture, collector.options.kinds, &collector.watch,
                            collector.start_ns, now_ns, &why) != 0)
        add_warning("capture-range", "%s", why.message);
}

static void enable_activities(unsigned kinds, enum collector_api_set api_set)
{
    enable_kind(kinds, COLLECTOR_KIND_DEVICE, CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE");
    enable_kind(kinds, COLLECTOR_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT");
    enable_kind(kinds, COLLECTOR_KIND_STREAM, CUPTI_ACTIVITY_KIND_STREAM, "STREAM");
    enable_kind(kinds, COLLECTOR_KIND_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL");
    enable_kind(kinds, COLLECTOR_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY");
    enable_kind(kinds, COLLECTOR_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET");
    if (record_host_calls_from_callbacks(kinds)) {
        enable_kind(kinds, COLLECTOR_KIND_NVTX, CUPTI_ACTIVITY_KIND_MARKER, "MARKER");
        return;
    }
    enable_kind(kinds, COLLECTOR_KIND_SYNC, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION");
    enable_kind(kinds, COLLECTOR_KIND_EVENT, CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT");
    if (api_set == COLLECTOR_API_ALL) {
        enable_kind(kinds, COLLECTOR_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME");
        enable_kind(kinds, COLLECTOR_KIND_DRIVER, CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER");
    } else {
        if (kinds & COLLECTOR_KIND_RUNTIME)
            enable_api_calls(CUPTI_CB_DOMAIN_RUNTIME_API);
        if (kinds & COLLECTOR_KIND_DRIVER)
            enable_api_calls(CUPTI_CB_DOMAIN_DRIVER_API);
    }
    enable_kind(kinds, COLLECTOR_KIND_NVTX, CUPTI_ACTIVITY_KIND_MARKER, "MARKER");
}

/* CUPTI's device-side buffer for kernel records (CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, 3 MiB by
 * default in CUPTI 13 per cupti_activity.h): a burst of tiny kernels overflows it before CUPTI
 * moves records to our host buffers, and those records are dropped. */
static void set_device_buffer_size(void)
{
    if (collector.options.device_buffer_bytes == 0)
        return;
    size_t value = collector.options.device_buffer_bytes, size = sizeof value;
    cupti_ok(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &size, &value),
             "cuptiActivitySetAttribute(DEVICE_BUFFER_SIZE)");
}

/* NVTX loads the library named by NVTX_INJECTION64_PATH and calls its InitializeInjectionNvtx2
 * (nvtx3/nvtxDetail/nvtxInit.h); CUPTI records NVTX only when that call reaches libcupti
 * (CUPTI docs, "NVTX"). `record` points NVTX_INJECTION64_PATH at this library rather than at
 * libcupti: a program that loaded another libcupti.so first (PyTorch wheels ship one) would
 * otherwise get a second CUPTI instance from NVTX's dlopen, one nobody enabled, and no NVTX
 * record. Here the call goes to the very libcupti this library is linked to: the object that
 * holds cuptiActivityEnable for us. */
typedef const void *(*nvtx_export_table_getter)(uint32_t export_table_id); /* NvtxGetExportTableFunc_t */

EXPORTED int InitializeInjectionNvtx2(nvtx_export_table_getter get_export_table)
{
    Dl_info cupti_object;
    void *cupti = NULL;
    int (*cupti_initialize)(nvtx_export_table_getter) = NULL;
    if (dladdr((void *)cuptiActivityEnable, &cupti_object) && cupti_object.dli_fname)
        cupti = dlopen(cupti_object.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (cupti)
        *(void **)&cupti_initialize = dlsym(cupti, "InitializeInjectionNvtx2");
    if (!cupti_initialize) {
        atomic_store(&collector.nvtx_injection, -1);
        return 0; /* NVTX then stays off: its calls cost nothing */
    }
    atomic_store(&collector.nvtx_injection, 1);
    return cupti_initialize(get_export_table);
}

/* Called by CUDA at cuInit in every process that has CUDA_INJECTION64_PATH. Returns 1 (success)
 * even when recording could not start: the workload must run regardless. */
EXPORTED int InitializeInjection(void)
{
    if (collector.active && collector.pid == getpid())
        return 1;
    error_info err;
    if (collector_options_from_environment(&collector.options, &err) != 0 || start_recording(&err) != 0)
        return 1; /* no file to report into; `record` says that no process was recorded */
    launch_watch_init(&collector.watch);
    collector.watch.launch_exited = nccl_profiler_note_launch;
    if (!cupti_ok(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                  "cuptiActivityRegisterCallbacks"))
        return 1;
    /* docs/trace-format.md promises OS thread ids (what ps, perf and py-spy show); CUPTI's
     * default is the pthread id (cupti_activity.h, CUpti_ActivityThreadIdType). */
    cupti_ok(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), "cuptiSetThreadIdType(SYSTEM)");
    set_device_buffer_size();
    subscribe_to_launches(); /* first: the API records may come from its callbacks */
    enable_activities(collector.options.kinds, collector.options.api_set);
    start_call_sources(collector.options.kinds);
    start_capture_range();
    start_periodic_flush();
    install_signal_handlers();
    on_exit(on_process_exit, NULL);
    pthread_atfork(NULL, NULL, child_after_fork);
    return 1;
}
