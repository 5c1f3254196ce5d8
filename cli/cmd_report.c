/* cmd_report.c: `overlapscope report TRACE`: the overlap metrics of every rank and device and the
 * causes of every missed overlap, as text, --json, --markdown or --csv. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_note.h"
#include "cli.h"
#include "filters.h"
#include "mpi_driver.h"
#include "report.h"
#include "text_safe.h"
#include "trace_input.h"

enum { REPORT_MAX_TOP = 10000 };
enum { OPTION_JSON = 1, OPTION_MARKDOWN, OPTION_CSV, OPTION_TOP, OPTION_MPI, OPTION_ALL_ROWS };

/* A recording of part of the job says so under the report (record --capture-range): its figures
 * cover only what was captured. */
static void print_capture_note(const char *path)
{
    char captured[512];
    if (cli_capture_note_of(path, captured, sizeof captured)) {
        fputs("captured: ", stdout);
        text_safe_fputs(captured, TEXT_SAFE_TERMINAL, stdout);
        /* its own line: the note and a long range name would pass 80 columns together */
        fputs("\n  (the figures cover only what was captured)\n", stdout);
    }
}

int cmd_report(int argc, char **argv)
{
    static const struct option table[] = {{"json", no_argument, 0, OPTION_JSON},
                                          {"markdown", no_argument, 0, OPTION_MARKDOWN},
                                          {"csv", no_argument, 0, OPTION_CSV},
                                          {"top", required_argument, 0, OPTION_TOP},
                                          {"mpi", no_argument, 0, OPTION_MPI},
                                          {"all-rows", no_argument, 0, OPTION_ALL_ROWS},
                                          CLI_FILTER_OPTIONS,
                                          {0, 0, 0, 0}};
    struct cli_filters filters;
    cli_filters_init(&filters);
    struct analysis_options *options = &filters.analysis;
    enum report_format format = REPORT_TEXT;
    int csv = 0; /* report only: diff has no CSV */
    struct report_context context = {.options = options, .top = 5};
    struct cli_mpi mpi = {0};
    error_info err;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, "", table, NULL)) != -1) {
        /* The last format named wins, as between --json and --markdown. */
        if (option == OPTION_JSON || option == OPTION_MARKDOWN || option == OPTION_CSV) {
            format = option == OPTION_JSON       ? REPORT_JSON
                     : option == OPTION_MARKDOWN ? REPORT_MARKDOWN
                                                 : REPORT_TEXT;
            csv = option == OPTION_CSV;
        } else if (option == OPTION_TOP) {
            char *end = NULL;
            long top = strtol(optarg, &end, 10);
            if (end == optarg || *end || top <= 0)
                return cli_usage_error(argv[0], "--top wants a positive number, not '%s'", optarg);
            /* The analysis keeps max(top, 1000) waits in memory: a bound, not what a reader can use. */
            if (top > REPORT_MAX_TOP)
                return cli_usage_error(argv[0], "--top is at most %d, not '%s'", REPORT_MAX_TOP, optarg);
            context.top = (size_t)top;
        } else if (option == OPTION_MPI) {
            mpi.on = 1;
        } else if (option == OPTION_ALL_ROWS) {
            context.all_rows = 1; /* else more than 16 devices are summarized (report/world.h) */
        } else if (cli_filters_take(&filters, argv, option) != 0) {
            return CLI_EXIT_ERROR;
        }
    }
    if (argc - optind < 1)
        return cli_usage_error(argv[0], "expected one trace file");
    if (mpi.on && cli_mpi_start(&mpi, options) != 0)
        return CLI_EXIT_ERROR;
    char inputs_name[4200];
    /* what the user named, imported or not */
    context.trace_path = cli_mpi_inputs_name(argv + optind, argc - optind, inputs_name, sizeof inputs_name);
    /* Enough waits to rank causes by their evidence and to list --top of them. */
    options->max_waits = context.top > ANALYSIS_DEFAULT_MAX_WAITS ? context.top : ANALYSIS_DEFAULT_MAX_WAITS;
    char input_path[4096];
    int status;
    /* OVERLAPSCOPE_TIMING=1: each phase's time to stderr (phase_timing.h; docs/scale.md). */
    const char *timing_wanted = getenv("OVERLAPSCOPE_TIMING");
    struct phase_timing timing = {0};
    if (timing_wanted && strcmp(timing_wanted, "1") == 0)
        options->timing = &timing;
    struct phase_mark mark = phase_timing_now();
    struct analysis_result *result = cli_mpi_analyze(&mpi, argv[0], argv + optind, argc - optind, options,
                                                     input_path, sizeof input_path, &status);
    mark = phase_timing_add_rest(options->timing, "open, checks (around the analysis)", mark);
    if (!result)
        return cli_mpi_end(&mpi, status);
    context.width = cli_terminal_width(stdout);
    if (csv)
        status = report_write_csv(stdout, result, &err);
    else if (format == REPORT_JSON)
        status = report_write_json(stdout, result, &context, &err);
    else if (format == REPORT_MARKDOWN)
        status = report_write_markdown(stdout, result, &context);
    else {
        status = report_write_text(stdout, result, &context);
        print_capture_note(input_path);
    }
    mark = phase_timing_add(options->timing, "output", mark, 0, 0);
    analysis_free(result);
    phase_timing_add(options->timing, "free", mark, 0, 0);
    if (options->timing)
        phase_timing_write(&timing, options->jobs, stderr);
    if (status != 0)
        return cli_mpi_end(&mpi, cli_error(argv[0], "cannot write the report"));
    return cli_mpi_end(&mpi, CLI_EXIT_OK);
}
