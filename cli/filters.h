/* filters.h: the options that choose what a command looks at (--rank, --device, --stream,
 * --window, --range, --step, --all) and how many devices its analysis walks at once (--jobs), parsed here
 * once for report, check, diff, render and export, so that the same flags mean the same interval everywhere.
 * They fill an analysis_options; the analyzer alone turns it into GPU time (analysis_run: result->selection,
 * analysis_selection.h), and a picture draws the selection the analysis resolved. Meanings:
 * docs/overlapscope-report.md. */
#ifndef OVERLAPSCOPE_CLI_FILTERS_H
#define OVERLAPSCOPE_CLI_FILTERS_H

#include <getopt.h>

#include "analysis.h"
#include "progress.h"

/* getopt_long values of the filter options; a command's own options use values below 0x100. */
enum {
    CLI_FILTER_RANK = 0x100,
    CLI_FILTER_DEVICE,
    CLI_FILTER_STREAM,
    CLI_FILTER_WINDOW,
    CLI_FILTER_RANGE,
    CLI_FILTER_STEP,
    CLI_FILTER_ALL,
    CLI_FILTER_JOBS
};

/* The rows to put in a command's getopt_long table (before its terminating zero row). */
#define CLI_FILTER_OPTIONS                                                                                   \
    {"rank", required_argument, 0, CLI_FILTER_RANK}, {"device", required_argument, 0, CLI_FILTER_DEVICE},    \
        {"stream", required_argument, 0, CLI_FILTER_STREAM},                                                 \
        {"window", required_argument, 0, CLI_FILTER_WINDOW},                                                 \
        {"range", required_argument, 0, CLI_FILTER_RANGE}, {"step", required_argument, 0, CLI_FILTER_STEP},  \
        {"all", no_argument, 0, CLI_FILTER_ALL},                                                             \
    {                                                                                                        \
        "jobs", required_argument, 0, CLI_FILTER_JOBS                                                        \
    }

struct cli_filters {
    struct analysis_options analysis; /* what the options chose; value strings point into argv */
    int all;                          /* --all: the whole run, set-up included */
    int unitless_warned;              /* the bare-number warning was printed */
    struct cli_progress progress;     /* the analysis's progress line (analysis.progress_context) */
};

/* The analysis looks at the steady state (steady_state.h) unless --all, --window, --range or --step
 * choose otherwise. Also hands the analysis a progress line on a terminal (progress.h): filters must stay
 * where it is while the analysis runs. */
void cli_filters_init(struct cli_filters *filters);

/* Takes a getopt_long result (option, with optarg and optind as getopt_long left them) that the
 * command's own options did not: applies a filter option and returns 0; for a wrong value, an
 * unknown option or a missing value, prints the usage error naming the command (argv[0]) and
 * returns CLI_EXIT_ERROR. A window number without a unit is taken as
 * nanoseconds, with one warning on stderr per command. */
int cli_filters_take(struct cli_filters *filters, char **argv, int option);

/* 1 when the filters choose a part of the time (--window, --range or --step). */
int cli_filters_choose_time(const struct cli_filters *filters);

#endif
