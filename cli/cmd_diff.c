/* cmd_diff.c: `overlapscope diff A B`: the named metrics and the causes of two traces side by side
 * with the change from A to B (text, --json or --markdown). */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "report.h"

enum { OPTION_JSON = 1, OPTION_MARKDOWN, OPTION_FILTER };

int cmd_diff(int argc, char **argv)
{
    static const struct option table[] = {
        {"json", no_argument, 0, OPTION_JSON},           {"markdown", no_argument, 0, OPTION_MARKDOWN},
        {"rank", required_argument, 0, OPTION_FILTER},   {"device", required_argument, 0, OPTION_FILTER},
        {"stream", required_argument, 0, OPTION_FILTER}, {"window", required_argument, 0, OPTION_FILTER},
        {"range", required_argument, 0, OPTION_FILTER},  {"step", required_argument, 0, OPTION_FILTER},
        {0, 0, 0, 0}};
    struct analysis_options options;
    analysis_options_init(&options);
    enum report_format format = REPORT_TEXT;
    error_info err;
    optind = 1;
    int option, index = 0;
    while ((option = getopt_long(argc, argv, "", table, &index)) != -1) {
        if (option == OPTION_JSON)
            format = REPORT_JSON;
        else if (option == OPTION_MARKDOWN)
            format = REPORT_MARKDOWN;
        else if (option == OPTION_FILTER && report_apply_filter(&options, table[index].name, optarg, &err) == 0)
            continue;
        else if (option == OPTION_FILTER)
            return cli_usage_error(argv[0], "%s", err.message);
        else
            return cli_usage_error(argv[0], "unknown option");
    }
    if (argc - optind != 2)
        return cli_usage_error(argv[0], "expected two trace files");
    struct analysis_result *a = report_analyze_file(argv[optind], &options, &err);
    if (!a)
        return cli_error(argv[0], "%s", err.message);
    struct analysis_result *b = report_analyze_file(argv[optind + 1], &options, &err);
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
