/* filters.c: see filters.h. */
#include "filters.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "number_text.h"

void cli_filters_init(struct cli_filters *filters)
{
    analysis_options_init(&filters->analysis);
    filters->analysis.steady_state = 1;
    filters->all = 0;
    filters->unitless_warned = 0;
    if (cli_progress_init(&filters->progress, "analyzing")) {
        filters->analysis.progress = cli_progress_update;
        filters->analysis.progress_context = &filters->progress;
    }
}

static int parse_count(const char *name, const char *value, int64_t *out, error_info *err)
{
    int64_t number = -1;
    if (*out != -1)
        return error_set(err, "--%s given twice (%lld, then '%s'): give it once", name, (long long)*out,
                         value);
    if (number_text_int64(value, &number) != 0 || number < 0)
        return error_set(err, "--%s wants a non-negative integer, not '%s'", name, value);
    *out = number;
    return 0;
}

static int apply(struct cli_filters *filters, const char *command, int option, const char *value,
                 error_info *err)
{
    struct analysis_options *options = &filters->analysis;
    int unitless = 0;
    switch (option) {
    case CLI_FILTER_RANK:
        return parse_count("rank", value, &options->rank, err);
    case CLI_FILTER_DEVICE:
        return parse_count("device", value, &options->device_id, err);
    case CLI_FILTER_STREAM:
        return parse_count("stream", value, &options->stream_id, err);
    case CLI_FILTER_STEP:
        return parse_count("step", value, &options->step, err);
    case CLI_FILTER_JOBS: {
        int64_t jobs = 0;
        if (options->jobs)
            return error_set(err, "--jobs given twice: give it once");
        if (number_text_int64(value, &jobs) != 0 || jobs < 1 || jobs > 1024)
            return error_set(err, "--jobs wants a number of devices analysed at once, 1 to 1024, not '%s'",
                             value);
        options->jobs = (int)jobs;
        return 0;
    }
    case CLI_FILTER_RANGE:
        if (!value[0])
            return error_set(err, "--range wants an NVTX range name");
        if (options->range_name)
            return error_set(err, "--range given twice ('%s', then '%s'): give it once", options->range_name,
                             value);
        options->range_name = value;
        return 0;
    case CLI_FILTER_ALL:
        filters->all = 1;
        options->steady_state = 0;
        return 0;
    case CLI_FILTER_WINDOW:
        if (options->window_is_relative)
            return error_set(err, "--window given twice: give it once");
        if (analysis_parse_window(value, options, &unitless, err) != 0)
            return error_prefix(err, "--window");
        if (unitless && !filters->unitless_warned) {
            fprintf(stderr,
                    "overlapscope: %s: warning: --window '%s': a number without a unit is read as nanoseconds"
                    " (write the unit: 250ns, 12us, 1.5ms, 2s)\n",
                    command, value);
            filters->unitless_warned = 1;
        }
        return 0;
    default:
        return error_set(err, "not a filter");
    }
}

int cli_filters_take(struct cli_filters *filters, char **argv, int option)
{
    if (option < CLI_FILTER_RANK || option > CLI_FILTER_JOBS)
        return cli_usage_error(argv[0], "unknown option or missing value: '%s'", argv[optind - 1]);
    error_info err;
    if (apply(filters, argv[0], option, optarg, &err) != 0)
        return cli_usage_error(argv[0], "%s", err.message);
    if (filters->all && cli_filters_choose_time(filters))
        return cli_usage_error(argv[0],
                               "--all analyses the whole run and --%s chooses a part of it: give one",
                               filters->analysis.step >= 0    ? "step"
                               : filters->analysis.range_name ? "range"
                                                              : "window");
    return 0;
}

int cli_filters_choose_time(const struct cli_filters *filters)
{
    const struct analysis_options *options = &filters->analysis;
    return options->window_start_ns != STORE_NULL || options->window_end_ns != STORE_NULL ||
           options->range_name || options->step >= 0;
}
