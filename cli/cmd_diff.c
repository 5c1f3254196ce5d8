/* cmd_diff.c: `overlapscope diff A B`: the named metrics and the causes of two traces side by side
 * with the change from A to B (text, --json or --markdown). */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "filters.h"
#include "report.h"

enum { OPTION_JSON = 1, OPTION_MARKDOWN };

int cmd_diff(int argc, char **argv)
{
    static const struct option table[] = {
        {"json", no_argument, 0, OPTION_JSON},           {"markdown", no_argument, 0, OPTION_MARKDOWN},
        CLI_FILTER_OPTIONS, {0, 0, 0, 0}};
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
        else if (cli_filters_take(&filters, argv, option) != 0)
            return CLI_EXIT_ERROR;
    }
    if (argc - optind != 2)
        return cli_usage_error(argv[0], "expected two trace files");
    struct analysis_result *a = report_analyze_file(argv[optind], &filters.analysis, &err);
    if (!a)
        return cli_error(argv[0], "%s", err.message);
    struct analysis_result *b = report_analyze_file(argv[optind + 1], &filters.analysis, &err);
    if (!b) {
        analysis_free(a);
        return cli_error(argv[0], "%s", err.message);
    }
    int status = report_write_diff(stdout, a, b, argv[optind], argv[optind + 1], format, &err);
    analysis_free(a);
    analysis_free(b);
    if (status != 0)
        return cli_error(argv[0], "%s", err.message);
    return CLI_EXIT_OK;
}
