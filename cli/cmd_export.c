/* cmd_export.c: `overlapscope export TRACE --chrome OUT.json`: a trace and its analysis (the
 * waits the report explains, on the report's time axis) for Perfetto and chrome://tracing. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "chrome_export.h"
#include "cli.h"
#include "filters.h"
#include "gpu_devices.h"
#include "store.h"
#include "trace_input.h"
#include "units.h"

/* The analyzer's result for what the filter options chose (the whole trace without them), as the
 * report computes it (one call), or NULL with *status 0 when the trace has no GPU activity (nothing
 * to analyze; the export still has the host's). */
static struct analysis_result *analyze(store *trace, struct analysis_options *options, int *status,
                                       error_info *err)
{
    struct store_gpu_device *devices = NULL;
    size_t count = 0;
    *status = store_list_gpu_devices(trace, &devices, &count, err);
    free(devices);
    if (*status != 0 || count == 0)
        return NULL;
    options->max_waits = CHROME_EXPORT_MAX_WAITS;
    struct analysis_result *result = analysis_run(trace, options, err);
    *status = result ? 0 : -1;
    return result;
}

/* Warnings about what the export could not carry as recorded: one line each, on stderr. */
static void warn(const char *command, const struct chrome_export_counts *counts)
{
    char count[64];
    if (counts->shared_correlation_ids > 0)
        fprintf(stderr,
                "overlapscope: %s: warning: %s shared by several API calls (each GPU operation's launch"
                " arrow comes from the first of them)\n",
                command,
                units_format_count(count, sizeof count, counts->shared_correlation_ids, "correlation id"));
    if (counts->overflow_tracks > 0)
        fprintf(stderr,
                "overlapscope: %s: warning: %s for slices that overlapped others of their track without"
                " nesting (clock skew?)\n",
                command, units_format_count(count, sizeof count, counts->overflow_tracks, "extra track"));
    if (counts->implausible_rows > 0)
        fprintf(stderr, "overlapscope: %s: warning: left out %s with impossible times\n", command,
                units_format_count(count, sizeof count, counts->implausible_rows, "row"));
}

/* Writes the export of the trace at trace_path; command names the command in messages. */
static int export(const char *command, const char *trace_path, const char *chrome_path, int force,
                  struct cli_filters *filters, struct chrome_export_options *export_options)
{
    error_info err;
    store *trace = store_open(trace_path, 1, &err);
    if (!trace)
        return cli_error(command, "%s", err.message);
    int status;
    struct analysis_result *analysis = analyze(trace, &filters->analysis, &status, &err);
    if (status != 0 && store_work_exceeded(trace, &err) == 0)
        error_prefix(&err, "%s", trace_path);
    if (status != 0) {
        store_close(trace, NULL);
        return cli_error(command, "%s", err.message);
    }
    int analyzed = analysis != NULL;
    /* --window/--range/--step: the slices are cut to the very window the report analyzes. */
    if (analysis && cli_filters_choose_time(filters)) {
        export_options->from_ns = analysis->selection.window_start_ns;
        export_options->to_ns = analysis->selection.window_end_ns;
    }
    struct chrome_export_counts counts;
    status = chrome_export_write(trace, analysis, export_options, chrome_path, force, &counts, &err);
    if (status != 0)
        store_work_exceeded(trace, &err);
    analysis_free(analysis);
    store_close(trace, NULL);
    if (status != 0)
        return cli_error(command, "%s", err.message);
    warn(command, &counts);
    char slices[48], launches[48], waits[48], arrows[48];
    if (strcmp(chrome_path, "-") != 0)
        cli_print_safe(
            stdout, "%s: %s, %s, %s with %s; time 0 is %s (open in ui.perfetto.dev)\n", chrome_path,
            units_format_count(slices, sizeof slices, counts.complete_events, "slice"),
            units_format_count(launches, sizeof launches, counts.launch_arrows, "launch arrow"),
            units_format_count(waits, sizeof waits, counts.wait_slices, "wait"),
            units_format_count(arrows, sizeof arrows, counts.wait_arrows, "arrow"),
            analyzed && export_options->origin == CHROME_EXPORT_ORIGIN_REPORT ? "the report's +0"
                                                                              : "the first activity");
    return CLI_EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
    enum { OPTION_ORIGIN = 1 };
    static const struct option options[] = {{"chrome", required_argument, 0, 'c'},
                                            {"force", no_argument, 0, 'f'},
                                            {"origin", required_argument, 0, OPTION_ORIGIN},
                                            CLI_FILTER_OPTIONS,
                                            {0, 0, 0, 0}};
    struct cli_filters filters;
    cli_filters_init(&filters);
    const char *chrome_path = NULL;
    int force = 0;
    struct chrome_export_options export_options;
    chrome_export_options_init(&export_options);
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, "c:f", options, NULL)) != -1) {
        switch (option) {
        case 'c':
            chrome_path = optarg;
            break;
        case 'f':
            force = 1;
            break;
        case OPTION_ORIGIN:
            if (strcmp(optarg, "report") == 0)
                export_options.origin = CHROME_EXPORT_ORIGIN_REPORT;
            else if (strcmp(optarg, "trace") == 0)
                export_options.origin = CHROME_EXPORT_ORIGIN_TRACE;
            else
                return cli_usage_error(argv[0], "--origin is 'report' or 'trace', not '%s'", optarg);
            break;
        default:
            if (cli_filters_take(&filters, argv, option) != 0)
                return CLI_EXIT_ERROR;
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(argv[0], "expected one trace file");
    if (!chrome_path)
        return cli_usage_error(argv[0], "missing --chrome OUT.json (the only export format)");
    struct cli_trace_input input;
    int status = cli_trace_input_open(&input, argv[0], argv[optind]);
    if (status == 0)
        status = export(argv[0], input.path, chrome_path, force, &filters, &export_options);
    cli_trace_input_release(&input);
    return status;
}
