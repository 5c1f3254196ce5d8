/* capture_range.c: see capture_range.h. */
#include "capture_range.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SECONDS (7.0 * 24 * 3600)

int capture_range_parse(const char *text, struct capture_range_spec *spec, error_info *err)
{
    if (strcmp(text, "cudaProfilerApi") == 0) {
        spec->kind = CAPTURE_RANGE_PROFILER_API;
        return 0;
    }
    if (strncmp(text, "nvtx:", 5) != 0)
        return error_set(err, "'%s' is neither cudaProfilerApi nor nvtx:NAME[@COUNT]", text);
    const char *name = text + 5;
    const char *at = strrchr(name, '@');
    size_t length = at ? (size_t)(at - name) : strlen(name);
    if (length == 0)
        return error_set(err, "'%s' names no NVTX range (nvtx:NAME or nvtx:NAME@COUNT)", text);
    if (length >= sizeof spec->nvtx_name)
        return error_set(err, "the NVTX range name in '%.40s...' is longer than %d characters", text,
                         CAPTURE_RANGE_NAME_MAX - 1);
    int64_t count = 0;
    if (at) {
        char *end = NULL;
        errno = 0;
        long long value = strtoll(at + 1, &end, 10);
        if (at[1] < '0' || at[1] > '9' || *end != '\0' || errno != 0 || value < 1)
            return error_set(err, "'%s': the count after '@' must be a whole number of at least 1, not '%s'",
                             text, at + 1);
        count = value;
    }
    spec->kind = CAPTURE_RANGE_NVTX;
    memcpy(spec->nvtx_name, name, length);
    spec->nvtx_name[length] = '\0';
    spec->nvtx_count = count;
    return 0;
}

int capture_range_parse_seconds(const char *text, int64_t *nanoseconds, error_info *err)
{
    char *end = NULL;
    errno = 0;
    double seconds = strtod(text, &end);
    if (end == text || (strcmp(end, "") != 0 && strcmp(end, "s") != 0) || errno != 0 || !isfinite(seconds))
        return error_set(err, "'%s' is not a number of seconds (2, 0.5 or 1.5s)", text);
    if (seconds <= 0 || seconds > MAX_SECONDS)
        return error_set(err, "'%s' seconds is out of range (more than 0, at most a week)", text);
    *nanoseconds = (int64_t)(seconds * 1e9 + 0.5); /* rounded: 0.1 s is 100,000,000 ns */
    if (*nanoseconds <= 0)
        return error_set(err, "'%s' seconds is shorter than a nanosecond", text);
    return 0;
}

int capture_range_restricts(const struct capture_range_spec *spec)
{
    return spec->kind != CAPTURE_RANGE_ALL || spec->delay_ns > 0 || spec->duration_ns > 0;
}

static void append(char *buffer, size_t size, size_t *used, const char *format, double value,
                   const char *text)
{
    if (*used >= size)
        return;
    int written = text ? snprintf(buffer + *used, size - *used, format, text)
                       : snprintf(buffer + *used, size - *used, format, value);
    if (written > 0)
        *used += (size_t)written;
}

char *capture_range_describe(const struct capture_range_spec *spec, char *buffer, size_t size)
{
    size_t used = 0;
    buffer[0] = '\0';
    if (spec->kind == CAPTURE_RANGE_PROFILER_API)
        append(buffer, size, &used, "%s", 0, "cudaProfilerApi");
    else if (spec->kind == CAPTURE_RANGE_NVTX) {
        append(buffer, size, &used, "nvtx:%s", 0, spec->nvtx_name);
        if (spec->nvtx_count > 0)
            append(buffer, size, &used, "@%.0f", (double)spec->nvtx_count, NULL);
    } else
        append(buffer, size, &used, "%s", 0, "all");
    if (spec->delay_ns > 0)
        append(buffer, size, &used, ", delay %g s", (double)spec->delay_ns / 1e9, NULL);
    if (spec->duration_ns > 0)
        append(buffer, size, &used, ", duration %g s", (double)spec->duration_ns / 1e9, NULL);
    return buffer;
}

static int after_delay(const struct capture_state *state, int64_t now_ns)
{
    return now_ns - state->process_start_ns >= state->spec.delay_ns;
}

static enum capture_action start(struct capture_state *state, int64_t now_ns)
{
    if (state->capturing || state->finished)
        return CAPTURE_KEEP;
    state->capturing = 1;
    if (state->first_start_ns == INT64_MIN)
        state->first_start_ns = now_ns;
    if (state->window_count < CAPTURE_RANGE_MAX_WINDOWS)
        state->windows[state->window_count++] = (struct capture_window){now_ns, INT64_MAX};
    else
        state->windows_dropped++;
    return CAPTURE_START;
}

static enum capture_action stop(struct capture_state *state, int64_t now_ns)
{
    if (!state->capturing)
        return CAPTURE_KEEP;
    state->capturing = 0;
    if (state->windows_dropped == 0 && state->window_count > 0)
        state->windows[state->window_count - 1].end_ns = now_ns;
    return CAPTURE_STOP;
}

enum capture_action capture_state_init(struct capture_state *state, const struct capture_range_spec *spec,
                                       int64_t process_start_ns)
{
    memset(state, 0, sizeof *state);
    state->spec = *spec;
    state->process_start_ns = process_start_ns;
    state->first_start_ns = INT64_MIN;
    if (spec->kind == CAPTURE_RANGE_ALL && spec->delay_ns <= 0)
        return start(state, process_start_ns);
    return CAPTURE_KEEP;
}

enum capture_action capture_state_profiler_start(struct capture_state *state, int64_t now_ns)
{
    if (state->spec.kind != CAPTURE_RANGE_PROFILER_API)
        return CAPTURE_KEEP;
    state->profiler_started = 1;
    return after_delay(state, now_ns) ? start(state, now_ns) : CAPTURE_KEEP;
}

enum capture_action capture_state_profiler_stop(struct capture_state *state, int64_t now_ns)
{
    if (state->spec.kind != CAPTURE_RANGE_PROFILER_API)
        return CAPTURE_KEEP;
    state->profiler_started = 0;
    return stop(state, now_ns);
}

/* The next range of the name may be captured: after the delay, and not past the count. */
static enum capture_action open_counted_range(struct capture_state *state, int64_t now_ns)
{
    if (state->finished || !after_delay(state, now_ns))
        return CAPTURE_KEEP;
    if (state->spec.nvtx_count > 0 && state->nvtx_seen >= state->spec.nvtx_count)
        return CAPTURE_KEEP;
    state->nvtx_seen++;
    return start(state, now_ns);
}

enum capture_action capture_state_nvtx_open(struct capture_state *state, const char *name, int64_t now_ns)
{
    if (state->spec.kind != CAPTURE_RANGE_NVTX || !name || strcmp(name, state->spec.nvtx_name) != 0)
        return CAPTURE_KEEP;
    if (state->nvtx_depth++ > 0)
        return CAPTURE_KEEP; /* nested in one of the same name: one window */
    return open_counted_range(state, now_ns);
}

enum capture_action capture_state_nvtx_close(struct capture_state *state, const char *name, int64_t now_ns)
{
    if (state->spec.kind != CAPTURE_RANGE_NVTX || !name || strcmp(name, state->spec.nvtx_name) != 0 ||
        state->nvtx_depth == 0)
        return CAPTURE_KEEP;
    if (--state->nvtx_depth > 0)
        return CAPTURE_KEEP;
    enum capture_action action = stop(state, now_ns);
    if (state->spec.nvtx_count > 0 && state->nvtx_seen >= state->spec.nvtx_count)
        state->finished = 1;
    return action;
}

enum capture_action capture_state_tick(struct capture_state *state, int64_t now_ns)
{
    if (state->capturing && state->spec.duration_ns > 0 &&
        now_ns - state->first_start_ns >= state->spec.duration_ns) {
        enum capture_action action = stop(state, state->first_start_ns + state->spec.duration_ns);
        state->finished = 1;
        return action;
    }
    if (state->capturing || state->finished || !after_delay(state, now_ns))
        return CAPTURE_KEEP;
    /* the delay is over: capture now when the range would be open already */
    int64_t at = state->process_start_ns + state->spec.delay_ns;
    switch (state->spec.kind) {
    case CAPTURE_RANGE_ALL:
        return state->first_start_ns == INT64_MIN ? start(state, at) : CAPTURE_KEEP;
    case CAPTURE_RANGE_PROFILER_API:
        return state->profiler_started && state->first_start_ns == INT64_MIN ? start(state, at)
                                                                             : CAPTURE_KEEP;
    case CAPTURE_RANGE_NVTX:
        return state->nvtx_depth > 0 && state->nvtx_seen == 0 ? open_counted_range(state, at) : CAPTURE_KEEP;
    }
    return CAPTURE_KEEP;
}

int64_t capture_state_next_tick_ns(const struct capture_state *state, int64_t now_ns)
{
    if (state->finished)
        return -1;
    if (state->capturing && state->spec.duration_ns > 0) {
        int64_t left = state->first_start_ns + state->spec.duration_ns - now_ns;
        return left > 0 ? left : 0;
    }
    /* the delay's end, while it is ahead (past it, only an event starts the capture) */
    int64_t left = state->process_start_ns + state->spec.delay_ns - now_ns;
    return state->first_start_ns == INT64_MIN && state->spec.delay_ns > 0 && left > 0 ? left : -1;
}

void capture_state_finish(struct capture_state *state, int64_t end_ns)
{
    capture_state_tick(state, end_ns);
    stop(state, end_ns);
}

char *capture_state_windows_text(const struct capture_state *state, char *buffer, size_t size)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (size_t i = 0; i < state->window_count && used < size; i++) {
        int written = snprintf(buffer + used, size - used, "%s%" PRId64 ":%" PRId64, i ? "," : "",
                               state->windows[i].start_ns, state->windows[i].end_ns);
        if (written < 0 || (size_t)written >= size - used) {
            buffer[used] = '\0'; /* no half window */
            break;
        }
        used += (size_t)written;
    }
    return buffer;
}
