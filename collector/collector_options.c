/* collector_options.c: the OVERLAPSCOPE_* variables (see collector_options.h). */
#include "collector_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned bit;
} kind_names[] = {
    {"kernel", COLLECTOR_KIND_KERNEL}, {"memcpy", COLLECTOR_KIND_MEMCPY}, {"memset", COLLECTOR_KIND_MEMSET},
    {"sync", COLLECTOR_KIND_SYNC},     {"device", COLLECTOR_KIND_DEVICE}, {"context", COLLECTOR_KIND_CONTEXT},
    {"stream", COLLECTOR_KIND_STREAM}, {"event", COLLECTOR_KIND_EVENT},   {"runtime", COLLECTOR_KIND_RUNTIME},
    {"driver", COLLECTOR_KIND_DRIVER}, {"nvtx", COLLECTOR_KIND_NVTX},     {"all", COLLECTOR_KIND_ALL}};

int collector_kinds_parse(const char *list, unsigned *kinds, error_info *err)
{
    *kinds = 0;
    const char *word = list;
    while (*word) {
        size_t length = strcspn(word, ",");
        int known = 0;
        for (size_t i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++) {
            if (strlen(kind_names[i].name) == length && strncmp(word, kind_names[i].name, length) == 0) {
                *kinds |= kind_names[i].bit;
                known = 1;
            }
        }
        if (!known && length > 0)
            return error_set(
                err,
                "unknown activity kind '%.*s' (known: kernel memcpy memset sync device context stream"
                " event runtime driver nvtx all)",
                (int)length, word);
        word += length;
        if (*word == ',')
            word++;
    }
    if (*kinds == 0)
        return error_set(err, "no activity kind given");
    return 0;
}

/* A positive integer variable; fallback when unset. */
static int positive_variable(const char *name, long long fallback, long long *value, error_info *err)
{
    const char *text = getenv(name);
    *value = fallback;
    if (!text || !*text)
        return 0;
    char *end;
    long long number = strtoll(text, &end, 10);
    if (*end != '\0' || number <= 0)
        return error_set(err, "%s='%s' is not a positive integer", name, text);
    *value = number;
    return 0;
}

int collector_api_set_parse(const char *name, enum collector_api_set *api_set, unsigned *kinds,
                            error_info *err)
{
    if (strcmp(name, "analysis") == 0) {
        *api_set = COLLECTOR_API_ANALYSIS;
    } else if (strcmp(name, "all") == 0) {
        *api_set = COLLECTOR_API_ALL;
    } else if (strcmp(name, "none") == 0) {
        *api_set = COLLECTOR_API_ANALYSIS;
        if (kinds)
            *kinds &= ~(unsigned)(COLLECTOR_KIND_RUNTIME | COLLECTOR_KIND_DRIVER);
    } else {
        return error_set(err, "unknown API set '%s' (analysis, all or none)", name);
    }
    return 0;
}

/* OVERLAPSCOPE_CAPTURE_RANGE, _DELAY and _DURATION into options->capture (all kept by default). */
static int capture_from_environment(struct capture_range_spec *capture, error_info *err)
{
    const char *range = getenv("OVERLAPSCOPE_CAPTURE_RANGE");
    if (range && *range && capture_range_parse(range, capture, err) != 0)
        return error_prefix(err, "OVERLAPSCOPE_CAPTURE_RANGE");
    const char *delay = getenv("OVERLAPSCOPE_DELAY");
    if (delay && *delay && capture_range_parse_seconds(delay, &capture->delay_ns, err) != 0)
        return error_prefix(err, "OVERLAPSCOPE_DELAY");
    const char *duration = getenv("OVERLAPSCOPE_DURATION");
    if (duration && *duration && capture_range_parse_seconds(duration, &capture->duration_ns, err) != 0)
        return error_prefix(err, "OVERLAPSCOPE_DURATION");
    return 0;
}

int collector_options_from_environment(struct collector_options *options, error_info *err)
{
    memset(options, 0, sizeof *options);
    const char *kinds = getenv("OVERLAPSCOPE_KINDS");
    options->kinds = COLLECTOR_KIND_ALL;
    if (kinds && *kinds && collector_kinds_parse(kinds, &options->kinds, err) != 0)
        return error_prefix(err, "OVERLAPSCOPE_KINDS");
    const char *no_api = getenv("OVERLAPSCOPE_NO_API");
    if (no_api && strcmp(no_api, "1") == 0)
        options->kinds &= ~(unsigned)(COLLECTOR_KIND_RUNTIME | COLLECTOR_KIND_DRIVER);
    const char *api = getenv("OVERLAPSCOPE_API");
    if (api && *api && collector_api_set_parse(api, &options->api_set, &options->kinds, err) != 0)
        return error_prefix(err, "OVERLAPSCOPE_API");
    const char *nccl = getenv("OVERLAPSCOPE_NCCL");
    options->nccl = !(nccl && strcmp(nccl, "0") == 0);
    const char *launch_callbacks = getenv("OVERLAPSCOPE_LAUNCH_CALLBACKS");
    options->launch_callbacks = !(launch_callbacks && strcmp(launch_callbacks, "0") == 0);
    if (launch_callbacks && strcmp(launch_callbacks, "probe") == 0)
        options->launch_callbacks = 2; /* LAUNCH_WATCH_PROBE_API_CALLS: diagnostic (launch_watch.c) */
    const char *calls_from = getenv("OVERLAPSCOPE_CALLS_FROM");
    options->calls_from_activity = options->api_set == COLLECTOR_API_ALL;
    if (calls_from && *calls_from) {
        if (strcmp(calls_from, "activity") != 0 && strcmp(calls_from, "callbacks") != 0)
            return error_set(err, "OVERLAPSCOPE_CALLS_FROM='%s' is neither 'callbacks' nor 'activity'",
                             calls_from);
        options->calls_from_activity = strcmp(calls_from, "activity") == 0;
    }
    const char *call_sources = getenv("OVERLAPSCOPE_CALL_SOURCES");
    options->call_sources = !(call_sources && strcmp(call_sources, "0") == 0);
    const char *flush_forced = getenv("OVERLAPSCOPE_FLUSH_FORCED");
    options->flush_forced = flush_forced && strcmp(flush_forced, "1") == 0;
    const char *discard = getenv("OVERLAPSCOPE_DISCARD");
    options->discard = discard && strcmp(discard, "1") == 0;
    long long flush_ms, buffer_bytes, buffer_count, device_buffer_bytes;
    if (positive_variable("OVERLAPSCOPE_FLUSH_MS", 500, &flush_ms, err) != 0 ||
        positive_variable("OVERLAPSCOPE_BUFFER_BYTES", 8 << 20, &buffer_bytes, err) != 0 ||
        positive_variable("OVERLAPSCOPE_BUFFER_COUNT", 64, &buffer_count, err) != 0 ||
        positive_variable("OVERLAPSCOPE_DEVICE_BUFFER_BYTES", 0, &device_buffer_bytes, err) != 0)
        return -1;
    options->device_buffer_bytes = (size_t)device_buffer_bytes;
    options->flush_ms = flush_ms > 3600000 ? 3600000 : (int)flush_ms;
    options->buffer_bytes = (size_t)buffer_bytes;
    options->buffer_count = buffer_count > 100000 ? 100000 : (int)buffer_count;
    if (capture_from_environment(&options->capture, err) != 0)
        return -1;
    const char *sample_hz = getenv("OVERLAPSCOPE_SAMPLE_HZ");
    options->sample_hz = COLLECTOR_DEFAULT_SAMPLE_HZ;
    if (sample_hz && *sample_hz) {
        char *end;
        long long hz = strtoll(sample_hz, &end, 10);
        if (*end != '\0' || hz < 0 || hz > COLLECTOR_MAX_SAMPLE_HZ)
            return error_set(err, "OVERLAPSCOPE_SAMPLE_HZ='%s' is not a whole number from 0 to %d", sample_hz,
                             COLLECTOR_MAX_SAMPLE_HZ);
        options->sample_hz = (int)hz;
    }
    const char *directory = getenv("OVERLAPSCOPE_OUTPUT_DIR");
    snprintf(options->output_dir, sizeof options->output_dir, "%s",
             directory && *directory ? directory : ".");
    return 0;
}
