/* cmd_diff.c: `overlapscope diff A B`: the named metrics and the causes of two traces side by side
 * with the change from A to B (text, --json or --markdown); --fail-on METRIC=DELTA exits 1 when B
 * is worse than A by more than DELTA. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filters.h"
#include "number_text.h"
#include "report.h"
#include "trace_input.h"

enum { OPTION_JSON = 1, OPTION_MARKDOWN, OPTION_FAIL_ON };
enum { MAX_THRESHOLDS = 64 };

/* --fail-on METRIC=DELTA: the most B may be worse than A, as a magnitude. */
struct threshold {
    char name[64];
    double allowed;
    int higher_is_better;
};

/* Parses "METRIC=DELTA". A sign, when given, must point the metric's worse way (comm_overlap=-0.05,
 * exposed_comm_ms=+2): a sign the other way would ask for an improvement, which this is not.
 * Returns 0, or prints and returns -1. */
static int parse_threshold(const char *command, const char *text, struct threshold *threshold)
{
    const char *equals = strchr(text, '=');
    if (!equals || equals == text || (size_t)(equals - text) >= sizeof threshold->name)
        return cli_usage_error(command, "--fail-on '%s' is not METRIC=DELTA", text), -1;
    memcpy(threshold->name, text, (size_t)(equals - text));
    threshold->name[equals - text] = '\0';
    if (!report_metric_known(threshold->name)) {
        char names[4096]; /* every metric's name: one per cause row, and the rows grow */
        report_metric_names(names, sizeof names);
        return cli_error(command, "unknown metric '%s' (metrics: %s)", threshold->name, names), -1;
    }
    double delta = 0;
    if (number_text_double(equals + 1, &delta) != 0)
        return cli_usage_error(command, "--fail-on '%s' wants a decimal number after '='", text), -1;
    threshold->higher_is_better = report_metric_higher_is_better(threshold->name);
    char sign = equals[1];
    /* A signed zero allows no worsening either way: -0 and +0 are 0. */
    if (delta != 0 &&
        ((sign == '-' && !threshold->higher_is_better) || (sign == '+' && threshold->higher_is_better)))
        return cli_usage_error(command, "--fail-on '%s': %s is better %s, so a worsening is %s", text,
                               threshold->name, threshold->higher_is_better ? "higher" : "lower",
                               threshold->higher_is_better ? "negative" : "positive"),
               -1;
    threshold->allowed = fabs(delta);
    return 0;
}

/* One line per threshold on out; returns 1 when B is worse than A by more than one allows. A
 * metric either trace cannot measure is not compared. */
static int check_thresholds(FILE *out, const struct analysis_result *a, const struct analysis_result *b,
                            const struct threshold *thresholds, size_t count)
{
    int failed = 0;
    for (size_t i = 0; i < count; i++) {
        const struct threshold *t = &thresholds[i];
        const char *unmeasured = report_metric_unmeasured(a, t->name);
        if (!unmeasured)
            unmeasured = report_metric_unmeasured(b, t->name);
        if (unmeasured) {
            fprintf(out, "ok   %s not measured: %s (not compared)\n", t->name, unmeasured);
            continue;
        }
        double value_a = 0, value_b = 0;
        report_metric_value(a, t->name, &value_a);
        report_metric_value(b, t->name, &value_b);
        double worsening = t->higher_is_better ? value_a - value_b : value_b - value_a;
        int holds = worsening <= t->allowed;
        fprintf(out, "%s %s %.6g -> %.6g (change %+.6g; fails when %s by more than %.6g)\n",
                holds ? "ok  " : "FAIL", t->name, value_a, value_b, value_b - value_a,
                t->higher_is_better ? "lower" : "higher", t->allowed);
        failed |= !holds;
    }
    return failed;
}

/* The analysis of one side, imported first when it is not an overlapscope trace; NULL when it
 * fails, said on stderr. */
static struct analysis_result *analyze_input(const char *command, const char *argument,
                                             const struct analysis_options *options)
{
    struct cli_trace_input input;
    struct analysis_result *result = NULL;
    error_info err;
    if (cli_trace_input_open(&input, command, argument) == 0) {
        result = report_analyze_file(input.path, options, &err);
        if (!result)
            cli_error(command, "%s", err.message);
    }
    cli_trace_input_release(&input);
    return result;
}

int cmd_diff(int argc, char **argv)
{
    static const struct option table[] = {{"json", no_argument, 0, OPTION_JSON},
                                          {"markdown", no_argument, 0, OPTION_MARKDOWN},
                                          {"fail-on", required_argument, 0, OPTION_FAIL_ON},
                                          CLI_FILTER_OPTIONS,
                                          {0, 0, 0, 0}};
    struct threshold thresholds[MAX_THRESHOLDS];
    size_t threshold_count = 0;
    struct cli_filters filters;
    cli_filters_init(&filters);
    enum report_format format = REPORT_TEXT;
    error_info err;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, "", table, NULL)) != -1) {
        if (option == OPTION_JSON)
            format = REPORT_JSON;
        else if (option == OPTION_MARKDOWN)
            format = REPORT_MARKDOWN;
        else if (option == OPTION_FAIL_ON) {
            if (threshold_count == MAX_THRESHOLDS)
                return cli_usage_error(argv[0], "at most %d --fail-on", MAX_THRESHOLDS);
            if (parse_threshold(argv[0], optarg, &thresholds[threshold_count]) != 0)
                return CLI_EXIT_ERROR;
            threshold_count++;
        } else if (cli_filters_take(&filters, argv, option) != 0)
            return CLI_EXIT_ERROR;
    }
    if (argc - optind != 2)
        return cli_usage_error(argv[0], "expected two trace files");
    struct analysis_result *a = analyze_input(argv[0], argv[optind], &filters.analysis);
    if (!a)
        return CLI_EXIT_ERROR;
    struct analysis_result *b = analyze_input(argv[0], argv[optind + 1], &filters.analysis);
    if (!b) {
        analysis_free(a);
        return CLI_EXIT_ERROR;
    }
    int status = report_write_diff(stdout, a, b, argv[optind], argv[optind + 1], format,
                                   cli_terminal_width(stdout), &err);
    /* after the text diff; on stderr when stdout is a JSON or Markdown document */
    int failed = status == 0 &&
                 check_thresholds(format == REPORT_TEXT ? stdout : stderr, a, b, thresholds, threshold_count);
    analysis_free(a);
    analysis_free(b);
    if (status != 0)
        return cli_error(argv[0], "%s", err.message);
    return failed ? CLI_EXIT_CHECK_FAILED : CLI_EXIT_OK;
}
