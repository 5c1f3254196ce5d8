/* cmd_check.c: `overlapscope check TRACE --min NAME=V --max NAME=V ...`: gates CI on the named
 * metrics of docs/metrics.md. Exit 0 when every bound holds, 1 when one fails (each bound is
 * printed with its value), 2 on a usage or input error. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filters.h"
#include "report.h"

enum { OPTION_MIN = 1, OPTION_MAX, OPTION_STRICT };
enum { MAX_BOUNDS = 64 };

struct bound {
    char name[64];
    double limit;
    int is_minimum;
};

/* Parses "NAME=VALUE" with a known metric name. Returns 0 or prints and returns -1. */
static int parse_bound(const char *command, const char *text, int is_minimum, struct bound *bound)
{
    const char *equals = strchr(text, '=');
    if (!equals || equals == text || (size_t)(equals - text) >= sizeof bound->name) {
        cli_usage_error(command, "bound '%s' is not NAME=VALUE", text);
        return -1;
    }
    memcpy(bound->name, text, (size_t)(equals - text));
    bound->name[equals - text] = '\0';
    if (!report_metric_known(bound->name)) {
        char names[1024];
        report_metric_names(names, sizeof names);
        cli_error(command, "unknown metric '%s' (metrics: %s)", bound->name, names);
        return -1;
    }
    char *end = NULL;
    errno = 0;
    bound->limit = strtod(equals + 1, &end);
    if (end == equals + 1 || *end || errno || !isfinite(bound->limit)) {
        cli_usage_error(command, "bound '%s' wants a number after '='", text);
        return -1;
    }
    bound->is_minimum = is_minimum;
    return 0;
}

/* A bound on a metric the trace cannot measure (comm_overlap without communication) holds, with
 * the reason printed, unless strict: then it fails (docs/overlapscope-check.md). */
static int evaluate(const struct analysis_result *result, const struct bound *bounds, size_t count, int strict)
{
    int failed = 0;
    for (size_t i = 0; i < count; i++) {
        const char *unmeasured = report_metric_unmeasured(result, bounds[i].name);
        if (unmeasured) {
            printf("%s %s not measured: %s (%s %.6g%s)\n", strict ? "FAIL" : "ok  ", bounds[i].name, unmeasured,
                   bounds[i].is_minimum ? "min" : "max", bounds[i].limit,
                   strict ? ", --strict" : "; passes without --strict");
            failed |= strict;
            continue;
        }
        double value = 0;
        report_metric_value(result, bounds[i].name, &value);
        int holds = bounds[i].is_minimum ? value >= bounds[i].limit : value <= bounds[i].limit;
        printf("%s %s = %.6g (%s %.6g)\n", holds ? "ok  " : "FAIL", bounds[i].name, value,
               bounds[i].is_minimum ? "min" : "max", bounds[i].limit);
        failed |= !holds;
    }
    return failed;
}

int cmd_check(int argc, char **argv)
{
    static const struct option table[] = {
        {"min", required_argument, 0, OPTION_MIN}, {"max", required_argument, 0, OPTION_MAX},
        {"strict", no_argument, 0, OPTION_STRICT}, CLI_FILTER_OPTIONS, {0, 0, 0, 0}};
    struct cli_filters filters;
    cli_filters_init(&filters);
    struct bound bounds[MAX_BOUNDS];
    size_t count = 0;
    int strict = 0;
    error_info err;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, "", table, NULL)) != -1) {
        if (option == OPTION_MIN || option == OPTION_MAX) {
            if (count == MAX_BOUNDS)
                return cli_usage_error(argv[0], "at most %d bounds", MAX_BOUNDS);
            if (parse_bound(argv[0], optarg, option == OPTION_MIN, &bounds[count]) != 0)
                return CLI_EXIT_ERROR;
            count++;
        } else if (option == OPTION_STRICT) {
            strict = 1;
        } else if (cli_filters_take(&filters, argv, option) != 0) {
            return CLI_EXIT_ERROR;
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(argv[0], "expected one trace file");
    if (count == 0)
        return cli_usage_error(argv[0], "nothing to check: give --min NAME=VALUE or --max NAME=VALUE");
    struct analysis_result *result = report_analyze_file(argv[optind], &filters.analysis, &err);
    if (!result)
        return cli_error(argv[0], "%s", err.message);
    int failed = evaluate(result, bounds, count, strict);
    analysis_free(result);
    return failed ? CLI_EXIT_CHECK_FAILED : CLI_EXIT_OK;
}
