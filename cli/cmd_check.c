/* cmd_check.c: `overlapscope check TRACE --min NAME=V --max NAME=V ...`: gates CI on the named
 * metrics of docs/metrics.md. Exit 0 when every bound holds, 1 when one fails (each bound is
 * printed with its value), 2 on a usage or input error. --json and --markdown print the report
 * of the same analysis with the verdicts, so that CI analyzes a trace once. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filters.h"
#include "mpi_driver.h"
#include "number_text.h"
#include "report.h"
#include "text_safe.h"
#include "trace_input.h"

enum { OPTION_MIN = 1, OPTION_MAX, OPTION_STRICT, OPTION_JSON, OPTION_MARKDOWN, OPTION_MPI };
enum { MAX_BOUNDS = 64 };

struct bound {
    char name[64];
    double limit;
    int is_minimum;
};

/* Parses "NAME=VALUE" with a known metric name. Returns 0 or prints and returns -1. */

/* Whether the metric called name is a ratio (its limits lie in [0, 1]). */
static int metric_is_ratio(const char *name)
{
    for (size_t i = 0; i < report_metric_count(); i++)
        if (strcmp(report_metric_at(i)->name, name) == 0)
            return strcmp(report_metric_at(i)->unit, "ratio") == 0;
    return 0;
}

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
        char names[4096]; /* every metric's name: one per cause row, and the rows grow */
        report_metric_names(names, sizeof names);
        cli_error(command, "unknown metric '%s' (metrics: %s)", bound->name, names);
        return -1;
    }
    if (number_text_double(equals + 1, &bound->limit) != 0) {
        cli_usage_error(command, "bound '%s' wants a decimal number after '='", text);
        return -1;
    }
    if (metric_is_ratio(bound->name) && (bound->limit < 0 || bound->limit > 1)) {
        cli_usage_error(command, "bound '%s': %s is a ratio, from 0 to 1", text, bound->name);
        return -1;
    }
    bound->is_minimum = is_minimum;
    return 0;
}

/* A bound's outcome on one analysis. */
struct verdict {
    const struct bound *bound;
    double value;
    const char *unmeasured; /* why the metric is not measured, or NULL */
    int holds;
};

/* A bound on a metric the trace cannot measure (comm_overlap without communication) holds, with
 * the reason printed, unless strict: then it fails (docs/overlapscope-check.md). Returns 1 when
 * any bound fails. */
static int evaluate(const struct analysis_result *result, const struct bound *bounds, size_t count,
                    int strict, struct verdict *verdicts)
{
    int failed = 0;
    for (size_t i = 0; i < count; i++) {
        struct verdict *verdict = &verdicts[i];
        *verdict = (struct verdict){.bound = &bounds[i]};
        verdict->unmeasured = report_metric_unmeasured(result, bounds[i].name);
        if (verdict->unmeasured) {
            verdict->holds = !strict;
        } else {
            report_metric_value(result, bounds[i].name, &verdict->value);
            verdict->holds =
                bounds[i].is_minimum ? verdict->value >= bounds[i].limit : verdict->value <= bounds[i].limit;
        }
        failed |= !verdict->holds;
    }
    return failed;
}

static void write_text(const struct verdict *verdicts, size_t count, int strict)
{
    for (size_t i = 0; i < count; i++) {
        const struct verdict *v = &verdicts[i];
        const char *kind = v->bound->is_minimum ? "min" : "max";
        if (v->unmeasured)
            printf("%s %s not measured: %s (%s %.6g%s)\n", v->holds ? "ok  " : "FAIL", v->bound->name,
                   v->unmeasured, kind, v->bound->limit, strict ? ", --strict" : "; passes without --strict");
        else
            printf("%s %s = %.6g (%s %.6g)\n", v->holds ? "ok  " : "FAIL", v->bound->name, v->value, kind,
                   v->bound->limit);
    }
}

/* The report's JSON with a "check" object added: passed, strict, and one entry per bound. */
static int write_json(const struct analysis_result *result, const struct report_context *context,
                      const struct verdict *verdicts, size_t count, int strict, int failed)
{
    cJSON *root = report_to_json(result, context);
    cJSON *check = root ? cJSON_AddObjectToObject(root, "check") : NULL;
    cJSON *list = check ? cJSON_AddArrayToObject(check, "bounds") : NULL;
    if (!list) {
        cJSON_Delete(root);
        return -1;
    }
    cJSON_AddBoolToObject(check, "passed", !failed);
    cJSON_AddBoolToObject(check, "strict", strict);
    for (size_t i = 0; i < count; i++) {
        const struct verdict *v = &verdicts[i];
        cJSON *entry = cJSON_CreateObject();
        cJSON_AddItemToArray(list, entry);
        cJSON_AddStringToObject(entry, "metric", v->bound->name);
        cJSON_AddStringToObject(entry, "bound", v->bound->is_minimum ? "min" : "max");
        cJSON_AddNumberToObject(entry, "limit", v->bound->limit);
        if (v->unmeasured) {
            cJSON_AddNullToObject(entry, "value");
            cJSON_AddStringToObject(entry, "unmeasured", v->unmeasured);
        } else {
            cJSON_AddNumberToObject(entry, "value", v->value);
            cJSON_AddNullToObject(entry, "unmeasured");
        }
        cJSON_AddBoolToObject(entry, "holds", v->holds);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -1;
    puts(text);
    free(text);
    return 0;
}

/* The verdicts as a Markdown table first (what a CI job summary shows at the top), then the
 * report's Markdown. */
static int write_markdown(const struct analysis_result *result, const struct report_context *context,
                          const struct verdict *verdicts, size_t count, int strict, int failed)
{
    printf("## overlapscope check: %s\n\n| | metric | value | bound |\n|---|---|---|---|\n",
           failed ? "FAILED" : "passed");
    for (size_t i = 0; i < count; i++) {
        const struct verdict *v = &verdicts[i];
        printf("| %s | ", v->holds ? "ok" : "**FAIL**");
        text_safe_markdown_code(v->bound->name, stdout);
        printf(" | ");
        if (v->unmeasured) {
            fputs("not measured: ", stdout);
            text_safe_fputs(v->unmeasured, TEXT_SAFE_MARKDOWN, stdout);
            fputs(strict ? " (--strict)" : "", stdout);
        } else {
            printf("%.6g", v->value);
        }
        printf(" | %s %.6g |\n", v->bound->is_minimum ? "min" : "max", v->bound->limit);
    }
    fputc('\n', stdout);
    return report_write_markdown(stdout, result, context);
}

int cmd_check(int argc, char **argv)
{
    static const struct option table[] = {{"min", required_argument, 0, OPTION_MIN},
                                          {"max", required_argument, 0, OPTION_MAX},
                                          {"strict", no_argument, 0, OPTION_STRICT},
                                          {"json", no_argument, 0, OPTION_JSON},
                                          {"markdown", no_argument, 0, OPTION_MARKDOWN},
                                          {"mpi", no_argument, 0, OPTION_MPI},
                                          CLI_FILTER_OPTIONS,
                                          {0, 0, 0, 0}};
    struct cli_filters filters;
    cli_filters_init(&filters);
    struct bound bounds[MAX_BOUNDS];
    size_t count = 0;
    int strict = 0;
    enum report_format format = REPORT_TEXT;
    struct cli_mpi mpi = {0};
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
        } else if (option == OPTION_JSON) {
            format = REPORT_JSON;
        } else if (option == OPTION_MARKDOWN) {
            format = REPORT_MARKDOWN;
        } else if (option == OPTION_MPI) {
            mpi.on = 1;
        } else if (cli_filters_take(&filters, argv, option) != 0) {
            return CLI_EXIT_ERROR;
        }
    }
    if (argc - optind < 1)
        return cli_usage_error(argv[0], "expected one trace file");
    if (count == 0)
        return cli_usage_error(argv[0], "nothing to check: give --min NAME=VALUE or --max NAME=VALUE");
    if (mpi.on && cli_mpi_start(&mpi, &filters.analysis) != 0)
        return CLI_EXIT_ERROR;
    char input_path[4096];
    int status;
    struct analysis_result *result =
        cli_mpi_analyze(&mpi, argv[0], argv + optind, argc - optind, &filters.analysis, input_path,
                        sizeof input_path, &status);
    if (!result)
        return cli_mpi_end(&mpi, status);
    struct verdict verdicts[MAX_BOUNDS];
    int failed = evaluate(result, bounds, count, strict, verdicts);
    char inputs_name[4200];
    struct report_context context = {
        .trace_path = cli_mpi_inputs_name(argv + optind, argc - optind, inputs_name, sizeof inputs_name),
        .options = &filters.analysis,
        .top = 5,
        .width = cli_terminal_width(stdout)};
    status = 0;
    if (format == REPORT_JSON)
        status = write_json(result, &context, verdicts, count, strict, failed);
    else if (format == REPORT_MARKDOWN)
        status = write_markdown(result, &context, verdicts, count, strict, failed);
    else
        write_text(verdicts, count, strict);
    analysis_free(result);
    if (status != 0)
        return cli_mpi_end(&mpi, cli_error(argv[0], "cannot write the report"));
    return cli_mpi_end(&mpi, failed ? CLI_EXIT_CHECK_FAILED : CLI_EXIT_OK);
}
