/* kineto.c: PyTorch profiler (Kineto) Chrome traces into the store (see kineto.h).
 *
 * Field names follow Kineto's writer (libkineto/src/output_json.cpp): GPU activity carries its
 * device, stream, context and correlation in args; host API calls carry cbid and correlation;
 * cuda_sync events carry cuda_sync_kind, wait_on_stream and wait_on_cuda_event_*. This file reads
 * the trace's top-level members, joins duration events and finishes the process; the handler of
 * each event category is in kineto_events.c (kineto_parts.h). Owns: the per-file import state
 * (stream list, unknown-category tally), freed before returning. */
#include "kineto.h"
#include "kineto_parts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_sources.h"
#include "gpu_vendor.h"
#include "nccl_kernel_name.h"
#include "nccl_names.h"
#include "origins.h"
#include "python_source.h"
#include "stream_set.h"

/* --- duration events ('B' ... 'E') --- */

static void free_value(struct json_value *value)
{
    while (value) {
        struct json_value *next = value->next;
        free_value(value->first);
        free((void *)value->key);
        free((void *)value->text);
        free(value);
        value = next;
    }
}

static char *copy_text(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

/* A deep copy of value (its siblings excepted); *bytes grows by what it takes. NULL when out of memory. */
static struct json_value *copy_value(const struct json_value *value, size_t *bytes)
{
    struct json_value *copy = calloc(1, sizeof *copy);
    if (!copy)
        return NULL;
    *copy = (struct json_value){.type = value->type, .length = value->length, .count = value->count};
    *bytes += sizeof *copy + value->length + 1 + (value->key ? strlen(value->key) + 1 : 0);
    int ok = (!value->key || (copy->key = copy_text(value->key, strlen(value->key)))) &&
             (!value->text || (copy->text = copy_text(value->text, value->length)));
    struct json_value **tail = &copy->first;
    for (const struct json_value *child = value->first; ok && child; child = child->next) {
        *tail = copy_value(child, bytes);
        ok = *tail != NULL;
        if (ok)
            tail = &(*tail)->next;
    }
    if (!ok) {
        free_value(copy);
        return NULL;
    }
    return copy;
}

/* pid or tid as written (a number or a string), to match a 'B' with its 'E'. */
static char *identity(const struct json_value *event, const char *key)
{
    const struct json_value *value = json_get(event, key);
    return value && value->text ? copy_text(value->text, value->length) : copy_text("", 0);
}

static void free_open_range(struct open_range *range)
{
    free_value(range->begin);
    free(range->pid);
    free(range->tid);
}

static int open_range(struct kineto_state *state, uint64_t index, const struct json_value *event,
                      error_info *err)
{
    int64_t start_ns;
    if (json_number_scaled(json_get(event, "ts"), 3, &start_ns) != 0)
        return kineto_fail_event(state, index, json_string(json_get(event, "cat")),
                                 "'ts' is not a number in range", err);
    if (state->open_count == MAX_OPEN_RANGES || state->open_bytes > MAX_OPEN_RANGE_BYTES) {
        state->odd_fields++;
        return 0;
    }
    if (state->open_count == state->open_capacity) {
        size_t capacity = state->open_capacity ? state->open_capacity * 2 : 16;
        struct open_range *grown = realloc(state->open_ranges, capacity * sizeof *grown);
        if (!grown)
            return error_set(err, "%s: out of memory", state->name);
        state->open_ranges = grown;
        state->open_capacity = capacity;
    }
    struct open_range range = {
        .pid = identity(event, "pid"), .tid = identity(event, "tid"), .start_ns = start_ns};
    range.begin = copy_value(event, &range.bytes);
    if (!range.begin || !range.pid || !range.tid) {
        free_open_range(&range);
        return error_set(err, "%s: out of memory", state->name);
    }
    state->open_bytes += range.bytes;
    state->open_ranges[state->open_count++] = range;
    return 0;
}

/* The 'E' closes the latest open 'B' of its pid and tid (Chrome's trace event format: they nest
 * per thread); that 'B' is imported with the duration between them. An 'E' with none is ignored. */
static int close_range(struct kineto_state *state, uint64_t index, const struct json_value *event,
                       error_info *err)
{
    char *pid = identity(event, "pid"), *tid = identity(event, "tid");
    size_t found = state->open_count;
    for (size_t i = state->open_count; pid && tid && i-- > 0;) {
        if (strcmp(state->open_ranges[i].pid, pid) == 0 && strcmp(state->open_ranges[i].tid, tid) == 0) {
            found = i;
            break;
        }
    }
    free(pid);
    free(tid);
    if (found == state->open_count)
        return 0;
    struct open_range range = state->open_ranges[found];
    memmove(&state->open_ranges[found], &state->open_ranges[found + 1],
            (state->open_count - found - 1) * sizeof range);
    state->open_count--;
    int64_t end_ns, duration_ns = 0;
    int status = 0;
    if (json_number_scaled(json_get(event, "ts"), 3, &end_ns) != 0)
        status = kineto_fail_event(state, index, json_string(json_get(range.begin, "cat")),
                                   "'ts' is not a number in range", err);
    else if (__builtin_sub_overflow(end_ns, range.start_ns, &duration_ns) || duration_ns < 0) {
        duration_ns =
            0; /* an end before its begin: a point, counted as complete events with negative 'dur' */
        state->odd_fields++;
    }
    char text[48];
    struct json_value *dur = status == 0 ? calloc(1, sizeof *dur) : NULL;
    if (status == 0 && dur) {
        /* 'dur' in microseconds with three decimals, as the event's own 'ts' is read. */
        int length = snprintf(text, sizeof text, "%lld.%03lld", (long long)(duration_ns / 1000),
                              (long long)(duration_ns % 1000));
        *dur = (struct json_value){.type = JSON_NUMBER,
                                   .key = copy_text("dur", 3),
                                   .text = copy_text(text, (size_t)length),
                                   .length = (size_t)length,
                                   .next = range.begin->first};
        range.begin->first = dur;
        range.begin->count++;
        status = dur->key && dur->text ? kineto_import_event(state, index, range.begin, err)
                                       : error_set(err, "%s: out of memory", state->name);
    } else if (status == 0) {
        status = error_set(err, "%s: out of memory", state->name);
    }
    state->open_bytes -= range.bytes;
    free_open_range(&range);
    return status;
}

static int on_event(void *context, uint64_t index, const struct json_value *event, error_info *err)
{
    struct kineto_state *state = context;
    state->events_seen++;
    if (event->type != JSON_OBJECT && index == 0 && event->type == JSON_ARRAY)
        /* [[times], [[sizes]...]] or [[ts, action, bytes, category]...]: torch.profiler's
         * export_memory_timeline (.json, .json.gz, .raw.gz) */
        return error_set(
            err,
            "%s: a PyTorch memory timeline (export_memory_timeline), not a trace: not supported; "
            "overlapscope reads the profiler's trace (export_chrome_trace, tensorboard_trace_handler)",
            state->name);
    if (event->type != JSON_OBJECT)
        return kineto_fail_event(state, index, NULL, "an event is not a JSON object", err);
    const char *phase = json_string(json_get(event, "ph"));
    const char *category = json_string(json_get(event, "cat"));
    if (phase && strcmp(phase, "E") == 0)
        return close_range(state, index, event, err);
    if (phase && strcmp(phase, "B") == 0 && category)
        return open_range(state, index, event, err);
    return kineto_import_event(state, index, event, err);
}

/* --- top-level members --- */

/* Resident blocks per SM by compute capability: CUDA C++ Programming Guide, "Technical
 * Specifications per Compute Capability" (Kineto's deviceProperties does not carry it). */
static int64_t max_blocks_per_sm(int64_t major, int64_t minor)
{
    if (!store_count_plausible(major, STORE_MAX_COMPUTE_CAPABILITY) ||
        !store_count_plausible(minor, STORE_MAX_COMPUTE_CAPABILITY))
        return STORE_NULL; /* unknown, or no GPU's (the device is then refused as implausible) */
    int capability = (int)(major * 10 + minor);
    switch (capability) {
    case 50:
    case 52:
    case 53:
    case 60:
    case 61:
    case 62:
    case 70:
    case 72:
    case 80:
    case 90:
        return 32;
    case 75:
    case 86:
    case 87:
        return 16;
    case 89:
        return 24;
    default:
        return STORE_NULL;
    }
}

static int import_device(struct kineto_state *state, const struct json_value *properties, error_info *err)
{
    struct store_device row = {.process_id = state->process_id,
                               .uuid = NULL,
                               .pci_bus_id = STORE_NULL,
                               .global_memory_bandwidth_kbps = STORE_NULL,
                               .l2_cache_bytes = STORE_NULL,
                               .core_clock_khz = STORE_NULL,
                               .copy_engine_count = STORE_NULL};
    row.device_id = kineto_optional_int(state, properties, "id");
    if (row.device_id == STORE_NULL)
        return error_set(err, "%s: deviceProperties: a device without a numeric 'id'", state->name);
    row.name = json_string(json_get(properties, "name"));
    row.sm_count = kineto_optional_int(state, properties, "numSms");
    row.compute_capability_major = kineto_optional_int(state, properties, "computeMajor");
    row.compute_capability_minor = kineto_optional_int(state, properties, "computeMinor");
    row.max_threads_per_sm = kineto_optional_int(state, properties, "maxThreadsPerMultiprocessor");
    row.max_threads_per_block = kineto_optional_int(state, properties, "maxThreadsPerBlock");
    row.max_registers_per_block = kineto_optional_int(state, properties, "regsPerBlock");
    row.max_registers_per_sm = kineto_optional_int(state, properties, "regsPerMultiprocessor");
    row.warp_size = kineto_optional_int(state, properties, "warpSize");
    row.max_shared_memory_per_block = kineto_optional_int(state, properties, "sharedMemPerBlock");
    row.max_shared_memory_per_block_optin = kineto_optional_int(state, properties, "sharedMemPerBlockOptin");
    row.max_shared_memory_per_sm = kineto_optional_int(state, properties, "sharedMemPerMultiprocessor");
    if (row.max_shared_memory_per_sm == STORE_NULL) /* ROCm's spelling */
        row.max_shared_memory_per_sm =
            kineto_optional_int(state, properties, "maxSharedMemoryPerMultiProcessor");
    row.global_memory_bytes = kineto_optional_int(state, properties, "totalGlobalMem");
    row.max_warps_per_sm = row.max_threads_per_sm != STORE_NULL && row.warp_size > 0
                               ? row.max_threads_per_sm / row.warp_size
                               : STORE_NULL;
    int is_nvidia = gpu_vendor_is_nvidia(row.name);
    row.max_blocks_per_sm =
        is_nvidia ? max_blocks_per_sm(row.compute_capability_major, row.compute_capability_minor)
                  : STORE_NULL;
    if (store_insert_device(state->s, &row, err) != 0)
        return -1;
    if (!is_nvidia) {
        state->other_vendor_devices++;
        char message[256];
        snprintf(
            message, sizeof message,
            "device %lld is '%s', not an NVIDIA GPU: CUDA occupancy limits and CUPTI-only fields are unknown",
            (long long)row.device_id, row.name ? row.name : "unnamed");
        struct store_warning warning = {.process_id = state->process_id,
                                        .time_ns = STORE_NULL,
                                        .code = "import-other-vendor",
                                        .message = message};
        return store_insert_warning(state->s, &warning, err);
    }
    return 0;
}

static int on_member(void *context, const char *key, const struct json_value *value, error_info *err)
{
    struct kineto_state *state = context;
    /* torch.profiler.ExecutionTraceObserver writes {"schema": "1.0.1", "pid": ..., "nodes": [...]}:
     * the operators' graph, with no time on the GPU. */
    if ((strcmp(key, "schema") == 0 && value->type == JSON_STRING) || strcmp(key, "nodes") == 0)
        return error_set(err,
                         "%s: a PyTorch execution trace (ExecutionTraceObserver: 'schema', 'nodes'), not a"
                         " profiler trace: pass the torch.profiler trace of the same run instead"
                         " (export_chrome_trace or tensorboard_trace_handler, *.pt.trace.json[.gz])",
                         state->name);
    if (strcmp(key, "deviceProperties") == 0) {
        if (value->type != JSON_ARRAY)
            return error_set(err, "%s: deviceProperties is not an array", state->name);
        for (const struct json_value *device = value->first; device; device = device->next)
            if (device->type != JSON_OBJECT)
                state->odd_fields++; /* no device to read: said, not skipped silently */
            else if (import_device(state, device, err) != 0)
                return -1;
    } else if (strcmp(key, "distributedInfo") == 0) {
        if (value->type != JSON_OBJECT)
            return error_set(err, "%s: distributedInfo is not an object", state->name);
        state->rank = kineto_optional_int(state, value, "rank");
        state->world_size = kineto_optional_int(state, value, "world_size");
        /* A rank is a place in the job, 0 <= rank < world_size: info printed "rank -3/2" or "rank
         * 5/2" while report, which reads a negative rank as none, said "pid 100". */
        if (state->world_size != STORE_NULL && state->world_size < 1) {
            state->odd_fields++;
            state->world_size = STORE_NULL;
        }
        if (state->rank != STORE_NULL &&
            (state->rank < 0 || (state->world_size != STORE_NULL && state->rank >= state->world_size))) {
            state->odd_fields++;
            state->rank = STORE_NULL;
        }
    } else if (strcmp(key, "baseTimeNanoseconds") == 0) {
        if (json_number_scaled(value, 0, &state->base_ns) != 0 ||
            !store_interval_plausible(state->base_ns, state->base_ns))
            return error_set(err, "%s: baseTimeNanoseconds is not an integer in range", state->name);
        if (state->events_seen == 0)
            state->applied_base_ns = state->base_ns;
    } else if (strcmp(key, "traceEvents") == 0) {
        return error_set(err, "%s: traceEvents is not an array", state->name);
    }
    return 0;
}

static void on_progress(void *context, double fraction)
{
    struct kineto_state *state = context;
    if (state->progress && state->progress->report)
        state->progress->report(state->progress->context, fraction);
}

/* --- finishing --- */

/* baseTimeNanoseconds after traceEvents (Kineto writes it last): shift what was written. */
static int apply_late_base_time(struct kineto_state *state, error_info *err)
{
    int64_t delta = state->base_ns - state->applied_base_ns;
    if (delta == 0)
        return 0;
    if (store_shift_process_times(state->s, state->process_id, delta, err) != 0)
        return -1;
    if (state->trace_start_ns != STORE_NULL) {
        /* Both within +-2^61 ns: no overflow, but the sum may leave the clock (the process row is
         * the one the plausibility check does not read): then the span is unknown, counted. */
        state->trace_start_ns += delta;
        state->trace_end_ns += delta;
        if (!store_interval_plausible(state->trace_start_ns, state->trace_end_ns)) {
            state->odd_fields++;
            state->trace_start_ns = state->trace_end_ns = STORE_NULL;
        }
    }
    state->applied_base_ns = state->base_ns;
    return 0;
}

static int finish_process(struct kineto_state *state, error_info *err)
{
    struct store_process row = store_process_unknown();
    row.pid = state->host_pid == STORE_NULL ? 0 : state->host_pid;
    row.rank = state->rank;
    row.world_size = state->world_size;
    row.start_ns = state->trace_start_ns;
    row.end_ns = state->trace_end_ns;
    return store_update_process(state->s, state->process_id, &row, STORE_UPDATE_SET, err);
}

static int warn(struct kineto_state *state, const char *code, const char *message, error_info *err)
{
    struct store_warning warning = {
        .process_id = state->process_id, .time_ns = STORE_NULL, .code = code, .message = message};
    return store_insert_warning(state->s, &warning, err);
}

static int insert_warnings(struct kineto_state *state, error_info *err)
{
    char message[1024];
    if (state->unknown_total > 0) {
        int length =
            snprintf(message, sizeof message, "%s: skipped %llu event%s of unknown categories:", state->name,
                     (unsigned long long)state->unknown_total, state->unknown_total == 1 ? "" : "s");
        for (size_t i = 0; i < MAX_UNKNOWN_NAMES && state->unknown[i].count && length < (int)sizeof message;
             i++)
            length +=
                snprintf(message + length, sizeof message - (size_t)length, "%s %s (%llu)", i ? "," : "",
                         state->unknown[i].name, (unsigned long long)state->unknown[i].count);
        if (state->unknown_other && length < (int)sizeof message)
            snprintf(message + length, sizeof message - (size_t)length, ", others (%llu)",
                     (unsigned long long)state->unknown_other);
        if (warn(state, "import-unknown-category", message, err) != 0)
            return -1;
    }
    if (state->duplicates > 0) {
        snprintf(message, sizeof message,
                 "%s: %llu GPU event%s an exact copy of an earlier one (same name, ts, dur, device, stream "
                 "and correlation), imported once",
                 state->name, (unsigned long long)state->duplicates,
                 state->duplicates == 1 ? " was" : "s were");
        if (warn(state, "import-duplicates", message, err) != 0)
            return -1;
    }
    if (state->odd_fields > 0) {
        snprintf(message, sizeof message,
                 "%s: %llu optional field%s missing or of an unexpected type, left unknown", state->name,
                 (unsigned long long)state->odd_fields, state->odd_fields == 1 ? "" : "s");
        if (warn(state, "import-skipped", message, err) != 0)
            return -1;
    }
    if (state->gpu_events == 0 && state->mtia_events > 0)
        return error_set(
            err,
            "%s: an MTIA trace (%llu events of Meta's accelerator, no GPU activity): not supported; "
            "overlapscope reads CUDA and ROCm GPU traces",
            state->name, (unsigned long long)state->mtia_events);
    if (state->gpu_events == 0) {
        snprintf(message, sizeof message, "%s: no GPU activity (kernels, copies, memsets) in this trace",
                 state->name);
        if (warn(state, "import-no-gpu-activity", message, err) != 0)
            return -1;
    } else if (state->sync_events == 0 && state->other_vendor_devices == 0) {
        /* Kineto records CUDA synchronizations (which event a stream waited for) only when asked:
         * without them, the waits PyTorch itself puts between its streams have no visible cause. */
        snprintf(message, sizeof message,
                 "%s: no cuda_sync events, so waits between streams (cudaStreamWaitEvent) and host"
                 " synchronizations cannot be explained: record with torch.profiler.profile(...,"
                 " experimental_config=torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True))"
                 " (docs/recording-with-torch-profiler.md)",
                 state->name);
        if (warn(state, "import-no-cuda-sync", message, err) != 0)
            return -1;
    }
    return 0;
}

static int import_stream(store *s, json_stream *stream, const char *name,
                         const struct kineto_progress *progress, error_info *err)
{
    struct kineto_state *state = calloc(1, sizeof *state);
    if (!state)
        return error_set(err, "%s: out of memory", name);
    *state = (struct kineto_state){.s = s,
                                   .name = name,
                                   .host_pid = STORE_NULL,
                                   .rank = STORE_NULL,
                                   .world_size = STORE_NULL,
                                   .trace_start_ns = STORE_NULL,
                                   .trace_end_ns = STORE_NULL,
                                   .progress = progress};
    struct store_process process = store_process_unknown();
    process.pid = 0; /* until finish_process writes the host pid the trace names, if any */
    process.source_file = name;
    int status = store_insert_process(s, &process, err);
    if (status == 0)
        status = store_insert_process_origin(s, process.process_id, STORE_FORMAT_KINETO,
                                             "PyTorch profiler (Kineto)", NULL, err);
    state->process_id = process.process_id;
    static const struct json_stream_handlers handlers = {
        .member = on_member, .event = on_event, .progress = on_progress};
    if (status == 0) {
        state->frames = store_frames_new(s, err);
        status = state->frames ? 0 : -1;
    }
    if (status == 0)
        status = json_stream_parse_trace(stream, &handlers, state, err);
    /* Before the late base time: frames and calls were read on the same clock. */
    if (status == 0)
        status = store_frames_derive(state->frames, state->process_id, err);
    store_frames_free(state->frames);
    state->odd_fields += state->open_count; /* 'B' events no 'E' closed */
    if (status == 0)
        status = apply_late_base_time(state, err);
    if (status == 0)
        status = finish_process(state, err);
    if (status == 0)
        status = stream_set_write(&state->streams, s, err);
    if (status == 0)
        status = insert_warnings(state, err);
    stream_set_free(&state->streams);
    for (size_t i = 0; i < state->open_count; i++)
        free_open_range(&state->open_ranges[i]);
    free(state->open_ranges);
    free(state->fingerprints);
    free(state);
    return status;
}

int kineto_import_file(store *s, const char *path, const struct kineto_progress *progress, error_info *err)
{
    json_stream *stream = json_stream_open(path, err);
    if (!stream)
        return -1;
    int status = import_stream(s, stream, path, progress, err);
    json_stream_close(stream);
    return status;
}

int kineto_import_memory(store *s, const void *data, size_t size, const char *name, error_info *err)
{
    json_stream *stream = json_stream_open_memory(data, size, name, err);
    if (!stream)
        return -1;
    int status = import_stream(s, stream, name, NULL, err);
    json_stream_close(stream);
    return status;
}
