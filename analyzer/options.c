/* options.c: the analysis options, their defaults, the names of categories (causes: explain/rules.c's
 * table), and the parsing of durations and windows the CLI passes through. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "number_text.h"

static const char *const category_tags[ANALYSIS_CATEGORY_COUNT] = {
    [ANALYSIS_COMPUTE] = "compute",       [ANALYSIS_COMMUNICATION] = "communication",
    [ANALYSIS_COPY_HTOD] = "copy-htod",   [ANALYSIS_COPY_DTOH] = "copy-dtoh",
    [ANALYSIS_COPY_DTOD] = "copy-dtod",   [ANALYSIS_COPY_PEER] = "copy-peer",
    [ANALYSIS_COPY_OTHER] = "copy-other", [ANALYSIS_MEMSET] = "memset",
};

const char *analysis_category_tag(enum analysis_category category)
{
    return (unsigned)category < ANALYSIS_CATEGORY_COUNT ? category_tags[category] : "?";
}

const char *analysis_copy_direction_tag(enum analysis_copy_direction direction)
{
    static const char *const tags[ANALYSIS_COPY_DIRECTION_COUNT] = {"htod", "dtoh", "other"};
    return (unsigned)direction < ANALYSIS_COPY_DIRECTION_COUNT ? tags[direction] : "?";
}

void analysis_options_init(struct analysis_options *options)
{
    *options = (struct analysis_options){.rank = -1,
                                         .device_id = -1,
                                         .stream_id = -1,
                                         .window_start_ns = INT64_MIN,
                                         .window_end_ns = INT64_MIN,
                                         .range_name = NULL,
                                         .step = -1,
                                         .window_is_relative = 0,
                                         .max_waits = 0,
                                         .progress = NULL,
                                         .progress_context = NULL,
                                         .jobs = 0};
}

struct analysis_selection analysis_selection_of(const struct analysis_options *options)
{
    return (struct analysis_selection){.rank = options ? options->rank : -1,
                                       .device_id = options ? options->device_id : -1,
                                       .stream_id = options ? options->stream_id : -1,
                                       .window_start_ns = STORE_NULL,
                                       .window_end_ns = STORE_NULL,
                                       .time_restricted = 0};
}

int analysis_parse_duration(const char *text, int64_t *nanoseconds, int *unitless, error_info *err)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    size_t length = number_text_decimal_length(text);
    errno = 0;
    double value = length ? strtod(text, NULL) : 0;
    if (length == 0 || errno != 0 || !isfinite(value))
        return error_set(err, "'%s' is not a duration (say 250ns, 12us, 1.5ms or 2s)", text);
    const char *end = text + length;
    while (*end == ' ')
        end++;
    double scale = 0;
    if (*end == '\0') {
        scale = 1; /* nanoseconds, the unit of the trace: said so by the caller (unitless) */
        if (unitless && value != 0)
            *unitless = 1; /* a bare 0 is 0 in every unit */
    }
    for (size_t i = 0; scale == 0 && i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0)
            scale = units[i].scale;
    if (scale == 0)
        return error_set(err, "'%s' has an unknown unit (use ns, us, ms or s)", text);
    double scaled = value * scale;
    if (scaled > 9.2e18 || scaled < -9.2e18)
        return error_set(err, "'%s' is out of range", text);
    *nanoseconds = (int64_t)llround(scaled);
    return 0;
}

/* Copies text without its leading and trailing spaces into buffer. Returns 0, or -1 when it does
 * not fit. */
static int trimmed(const char *text, size_t length, char *buffer, size_t size)
{
    while (length > 0 && *text == ' ') {
        text++;
        length--;
    }
    while (length > 0 && text[length - 1] == ' ')
        length--;
    if (length >= size)
        return -1;
    memcpy(buffer, text, length);
    buffer[length] = '\0';
    return 0;
}

int analysis_parse_window(const char *text, struct analysis_options *options, int *unitless, error_info *err)
{
    const char *colon = strchr(text, ':');
    if (!colon)
        return error_set(err, "window '%s' is not START:END (e.g. 10ms:20ms)", text);
    char start[64], end[64];
    if (trimmed(text, (size_t)(colon - text), start, sizeof start) != 0 ||
        trimmed(colon + 1, strlen(colon + 1), end, sizeof end) != 0)
        return error_set(err, "window '%s' is too long", text);
    int64_t start_ns = INT64_MIN, end_ns = INT64_MIN;
    if (start[0] && analysis_parse_duration(start, &start_ns, unitless, err) != 0)
        return -1;
    if (end[0] && analysis_parse_duration(end, &end_ns, unitless, err) != 0)
        return -1;
    /* Times are measured from the trace's first GPU activity: nothing is before 0. */
    if ((start[0] && start_ns < 0) || (end[0] && end_ns < 0))
        return error_set(err, "window '%s' reaches before the trace's start (0): its times are 0 or later",
                         text);
    if (start[0] && end[0] && end_ns <= start_ns)
        return error_set(err, "window '%s' is empty: its end is not after its start", text);
    options->window_start_ns = start_ns;
    options->window_end_ns = end_ns;
    options->window_is_relative = 1;
    return 0;
}
