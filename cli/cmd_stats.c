/* cmd_stats.c: `overlapscope stats TRACE`: summary tables like nsys stats (kernels, CUDA API calls,
 * NVTX ranges, copies, memsets, synchronizations, NCCL collectives) per device and rank, over the
 * same selection as report, as text, CSV, JSON or Markdown (report/stats.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "filters.h"
#include "stats.h"
#include "trace_input.h"

enum { OPTION_FORMAT = 1, OPTION_REPORT };

/* Analyzes the trace (the selection, the devices) and builds the tables. Returns 0, or -1 with err
 * filled ("FILE: reason"). */
static int build_stats(const char *path, const struct analysis_options *options, unsigned reports,
                       struct stats_result *stats, error_info *err)
{
    memset(stats, 0, sizeof *stats);
    store *trace = store_open(path, 1, err);
    if (!trace)
        return -1;
    struct analysis_result *result = analysis_run(trace, options, err);
    int status = result ? stats_build(trace, result, options, reports, stats, err) : -1;
    if (status != 0 && store_work_exceeded(trace, err) == 0)
        error_prefix(err, "%s", path);
    analysis_free(result);
    store_close(trace, NULL);
    return status;
}

int cmd_stats(int argc, char **argv)
{
    static const struct option table[] = {{"format", required_argument, 0, OPTION_FORMAT},
                                          {"report", required_argument, 0, OPTION_REPORT},
                                          CLI_FILTER_OPTIONS,
                                          {0, 0, 0, 0}};
    struct cli_filters filters;
    cli_filters_init(&filters);
    enum stats_format format = STATS_FORMAT_TEXT;
    unsigned reports = STATS_ALL_REPORTS;
    error_info err;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, "", table, NULL)) != -1) {
        if (option == OPTION_FORMAT) {
            if (stats_parse_format(optarg, &format, &err) != 0)
                return cli_usage_error(argv[0], "%s", err.message);
        } else if (option == OPTION_REPORT) {
            if (stats_parse_reports(optarg, &reports, &err) != 0)
                return cli_usage_error(argv[0], "%s", err.message);
        } else if (cli_filters_take(&filters, argv, option) != 0) {
            return CLI_EXIT_ERROR;
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(argv[0], "expected one trace file");
    struct cli_trace_input input;
    if (cli_trace_input_open(&input, argv[0], argv[optind]) != 0) {
        cli_trace_input_release(&input);
        return CLI_EXIT_ERROR;
    }
    struct stats_result stats;
    int status = build_stats(input.path, &filters.analysis, reports, &stats, &err);
    cli_trace_input_release(&input);
    if (status != 0) {
        stats_free(&stats);
        return cli_error(argv[0], "%s", err.message);
    }
    status = stats_write(stdout, &stats, format, argv[optind], cli_terminal_width(stdout), &err);
    stats_free(&stats);
    if (status != 0)
        return cli_error(argv[0], "%s", err.message);
    return CLI_EXIT_OK;
}
