/* diff.c: two analyses side by side: every named metric and every cause's lost time, with the
 * change from A to B. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "text_safe.h"
#include "units.h"

static const struct analysis_cause_total *cause_total(const struct analysis_result *result, int cause)
{
    for (int i = 0; i < ANALYSIS_CAUSE_COUNT; i++)
        if ((int)result->causes[i].cause == cause)
            return &result->causes[i];
    return &result->causes[0];
}

static void format_value(char *buffer, size_t size, const char *unit, double value, int signed_value)
{
    const char *format = strcmp(unit, "count") == 0 ? (signed_value ? "%+.0f" : "%.0f")
                         : strcmp(unit, "ms") == 0  ? (signed_value ? "%+.3f" : "%.3f")
                                                    : (signed_value ? "%+.4f" : "%.4f");
    snprintf(buffer, size, format, value);
}

static void format_change(char *buffer, size_t size, int64_t nanoseconds)
{
    char text[32];
    units_format_duration(text, sizeof text, nanoseconds);
    snprintf(buffer, size, "%s%s", nanoseconds > 0 ? "+" : "", text);
}

/* A fix's predicted saving in result, -1 when it predicts nothing for it. */
static int64_t predicted(const struct analysis_result *result, int fix)
{
    for (size_t i = 0; i < result->what_if_count; i++)
        if ((int)result->what_if[i].fix == fix)
            return result->what_if[i].predicted_saving_ns;
    return -1;
}

static int64_t total_span(const struct analysis_result *result)
{
    int64_t span = 0;
    for (size_t i = 0; i < result->device_count; i++)
        span += result->devices[i].busy_ns + result->devices[i].idle_ns;
    return span;
}

/* The what-if predictions of A and B, and the span change measured from A to B: when B is A with
 * one fix made, A's saving for that fix is what the change should be (docs/metrics.md, "What-if"). */
static void text_predictions(FILE *out, const struct analysis_result *a, const struct analysis_result *b,
                             int markdown)
{
    if (a->what_if_count == 0 && b->what_if_count == 0)
        return;
    char change[32];
    format_change(change, sizeof change, total_span(b) - total_span(a));
    if (markdown)
        fprintf(out, "\n| what if (span B - A: %s) | A predicts | B predicts |\n|---|---:|---:|\n", change);
    else
        fprintf(out, "\nwhat if (the spans changed by %s from A to B)\n  %-62s %12s %12s\n", change, "fix",
                "A predicts", "B predicts");
    for (int fix = 0; fix < ANALYSIS_FIX_COUNT; fix++) {
        int64_t x = predicted(a, fix), y = predicted(b, fix);
        if (x < 0 && y < 0)
            continue;
        char pa[32] = "-", pb[32] = "-";
        if (x >= 0)
            format_change(pa, sizeof pa, -x);
        if (y >= 0)
            format_change(pb, sizeof pb, -y);
        if (markdown)
            fprintf(out, "| %s | %s | %s |\n", analysis_fix_title((enum analysis_fix)fix), pa, pb);
        else
            fprintf(out, "  %-62s %12s %12s\n", analysis_fix_title((enum analysis_fix)fix), pa, pb);
    }
}

static void text_diff(FILE *out, const struct analysis_result *a, const struct analysis_result *b,
                      int markdown)
{
    char va[32], vb[32], delta[32];
    if (markdown)
        fprintf(out, "| metric | A | B | B - A |\n|---|---:|---:|---:|\n");
    else
        fprintf(out, "%-26s %14s %14s %14s\n", "metric", "A", "B", "B - A");
    for (size_t i = 0; i < report_metric_count(); i++) {
        const struct report_metric *metric = report_metric_at(i);
        double x = 0, y = 0;
        report_metric_value(a, metric->name, &x);
        report_metric_value(b, metric->name, &y);
        format_value(va, sizeof va, metric->unit, x, 0);
        format_value(vb, sizeof vb, metric->unit, y, 0);
        format_value(delta, sizeof delta, metric->unit, y - x, 1);
        /* "-" as in the report: a ratio with nothing to measure is no 0 to subtract from. */
        int a_unmeasured = report_metric_unmeasured(a, metric->name) != NULL;
        int b_unmeasured = report_metric_unmeasured(b, metric->name) != NULL;
        if (a_unmeasured)
            snprintf(va, sizeof va, "-");
        if (b_unmeasured)
            snprintf(vb, sizeof vb, "-");
        if (a_unmeasured || b_unmeasured)
            snprintf(delta, sizeof delta, "-");
        if (markdown)
            fprintf(out, "| %s | %s | %s | %s |\n", metric->name, va, vb, delta);
        else
            fprintf(out, "%-26s %14s %14s %14s\n", metric->name, va, vb, delta);
    }
    if (markdown)
        fprintf(out, "\n| cause | A lost (waits) | B lost (waits) | B - A |\n|---|---:|---:|---:|\n");
    else
        fprintf(out, "\n%-34s %18s %18s %12s\n", "cause (time lost, waits)", "A", "B", "B - A");
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++) {
        const struct analysis_cause_total *x = cause_total(a, cause), *y = cause_total(b, cause);
        if (x->count == 0 && y->count == 0)
            continue;
        char la[32], lb[32], ca[48], cb[48];
        units_format_duration(la, sizeof la, x->lost_ns);
        units_format_duration(lb, sizeof lb, y->lost_ns);
        snprintf(ca, sizeof ca, "%s (%" PRId64 ")", la, x->count);
        snprintf(cb, sizeof cb, "%s (%" PRId64 ")", lb, y->count);
        format_change(delta, sizeof delta, y->lost_ns - x->lost_ns);
        if (markdown)
            fprintf(out, "| %s | %s | %s | %s |\n", analysis_cause_title((enum analysis_cause)cause), ca, cb,
                    delta);
        else
            fprintf(out, "%-34s %18s %18s %12s\n", analysis_cause_title((enum analysis_cause)cause), ca, cb,
                    delta);
    }
    text_predictions(out, a, b, markdown);
}

static cJSON *json_diff(const struct analysis_result *a, const struct analysis_result *b, const char *label_a,
                        const char *label_b)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", REPORT_JSON_SCHEMA_VERSION);
    report_json_add_text(root, "a", label_a);
    report_json_add_text(root, "b", label_b);
    cJSON *metrics = cJSON_AddArrayToObject(root, "metrics");
    for (size_t i = 0; i < report_metric_count(); i++) {
        const struct report_metric *metric = report_metric_at(i);
        double x = 0, y = 0;
        report_metric_value(a, metric->name, &x);
        report_metric_value(b, metric->name, &y);
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", metric->name);
        cJSON_AddStringToObject(item, "unit", metric->unit);
        cJSON_AddNumberToObject(item, "a", x);
        cJSON_AddNumberToObject(item, "b", y);
        cJSON_AddNumberToObject(item, "delta", y - x);
        cJSON_AddItemToArray(metrics, item);
    }
    cJSON *causes = cJSON_AddArrayToObject(root, "causes");
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++) {
        const struct analysis_cause_total *x = cause_total(a, cause), *y = cause_total(b, cause);
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "cause", analysis_cause_tag((enum analysis_cause)cause));
        cJSON_AddNumberToObject(item, "a_lost_ns", (double)x->lost_ns);
        cJSON_AddNumberToObject(item, "b_lost_ns", (double)y->lost_ns);
        cJSON_AddNumberToObject(item, "delta_ns", (double)(y->lost_ns - x->lost_ns));
        cJSON_AddNumberToObject(item, "a_count", (double)x->count);
        cJSON_AddNumberToObject(item, "b_count", (double)y->count);
        cJSON_AddItemToArray(causes, item);
    }
    cJSON_AddNumberToObject(root, "span_change_ns", (double)(total_span(b) - total_span(a)));
    cJSON *what_if = cJSON_AddArrayToObject(root, "what_if");
    for (int fix = 0; fix < ANALYSIS_FIX_COUNT; fix++) {
        int64_t x = predicted(a, fix), y = predicted(b, fix);
        if (x < 0 && y < 0)
            continue;
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "fix", analysis_fix_tag((enum analysis_fix)fix));
        cJSON_AddItemToObject(item, "a_predicted_saving_ns",
                              x >= 0 ? cJSON_CreateNumber((double)x) : cJSON_CreateNull());
        cJSON_AddItemToObject(item, "b_predicted_saving_ns",
                              y >= 0 ? cJSON_CreateNumber((double)y) : cJSON_CreateNull());
        cJSON_AddItemToArray(what_if, item);
    }
    return root;
}

int report_write_diff(FILE *out, const struct analysis_result *a, const struct analysis_result *b,
                      const char *label_a, const char *label_b, enum report_format format, error_info *err)
{
    if (format == REPORT_JSON) {
        cJSON *root = json_diff(a, b, label_a, label_b);
        char *text = root ? cJSON_Print(root) : NULL;
        cJSON_Delete(root);
        if (!text)
            return error_set(err, "out of memory writing JSON");
        fprintf(out, "%s\n", text);
        free(text);
    } else {
        enum text_safe_style style = format == REPORT_MARKDOWN ? TEXT_SAFE_MARKDOWN : TEXT_SAFE_TERMINAL;
        const char *quote = format == REPORT_MARKDOWN ? "`" : "";
        fprintf(out, "%soverlapscope diff: A = %s", format == REPORT_MARKDOWN ? "## " : "", quote);
        text_safe_fputs(label_a, style, out);
        fprintf(out, "%s, B = %s", quote, quote);
        text_safe_fputs(label_b, style, out);
        fprintf(out, "%s\n\n", quote);
        text_diff(out, a, b, format == REPORT_MARKDOWN);
    }
    return ferror(out) ? error_set(err, "cannot write the comparison") : 0;
}
