/* options.c: the analysis options, their defaults, the names of categories (causes: explain.c's table), and the
 * parsing of durations and windows the CLI passes through. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static const char *const category_tags[ANALYSIS_CATEGORY_COUNT] = {
    [ANALYSIS_COMPUTE] = "compute",     [ANALYSIS_COMMUNICATION] = "communication",
    [ANALYSIS_COPY_HTOD] = "copy-htod", [ANALYSIS_COPY_DTOH] = "copy-dtoh",
    [ANALYSIS_COPY_DTOD] = "copy-dtod", [ANALYSIS_COPY_PEER] = "copy-peer",
    [ANALYSIS_COPY_OTHER] = "copy-other", [ANALYSIS_MEMSET] = "memset",
};

const char *analysis_category_tag(enum analysis_category category)
{
    return (unsigned)category < ANALYSIS_CATEGORY_COUNT ? category_tags[category] : "?";
}

void analysis_options_init(struct analysis_options *options)
{
    *options = (struct analysis_options){.rank = -1, .device_id = -1, .stream_id = -1,
                                         .window_start_ns = INT64_MIN, .window_end_ns = INT64_MIN,
                                         .range_name = NULL, .step = -1, .window_is_relative = 0,
                                         .max_waits = 0};
}

int analysis_parse_duration(const char *text, int64_t *nanoseconds, error_info *err)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1}};
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(value))
        return error_set(err, "'%s' is not a duration (say 250ns, 12us, 1.5ms or 2s)", text);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].unit) == 0) {
            double scaled = value * units[i].scale;
            if (scaled > 9.2e18 || scaled < -9.2e18)
                return error_set(err, "'%s' is out of range", text);
            *nanoseconds = (int64_t)llround(scaled);
            return 0;
        }
    }
    return error_set(err, "'%s' has an unknown unit (use ns, us, ms or s)", text);
}

int analysis_parse_window(const char *text, struct analysis_options *options, error_info *err)
{
    const char *colon = strchr(text, ':');
    if (!colon)
        return error_set(err, "window '%s' is not START:END (e.g. 10ms:20ms)", text);
    char start[64], end[64];
    size_t start_length = (size_t)(colon - text);
    if (start_length >= sizeof start || strlen(colon + 1) >= sizeof end)
        return error_set(err, "window '%s' is too long", text);
    memcpy(start, text, start_length);
    start[start_length] = '\0';
    snprintf(end, sizeof end, "%s", colon + 1);
    int64_t start_ns = INT64_MIN, end_ns = INT64_MIN;
    if (start[0] && analysis_parse_duration(start, &start_ns, err) != 0)
        return -1;
    if (end[0] && analysis_parse_duration(end, &end_ns, err) != 0)
        return -1;
    if (start[0] && end[0] && end_ns <= start_ns)
        return error_set(err, "window '%s' ends before it starts", text);
    options->window_start_ns = start_ns;
    options->window_end_ns = end_ns;
    options->window_is_relative = 1;
    return 0;
}
