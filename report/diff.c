/* diff.c: two analyses side by side: every named metric and every cause's lost time, with the
 * change from A to B. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "text_safe.h"
#include "text_wrap.h"
#include "units.h"
#include "writer.h"

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

/* A fix's prediction in result, NULL when it predicts nothing for it. */
static const struct analysis_what_if *prediction(const struct analysis_result *result, int fix)
{
    for (size_t i = 0; i < result->what_if_count; i++)
        if ((int)result->what_if[i].fix == fix)
            return &result->what_if[i];
    return NULL;
}

/* A fix's predicted saving in result, -1 when it predicts nothing for it. */
static int64_t predicted(const struct analysis_result *result, int fix)
{
    const struct analysis_what_if *item = prediction(result, fix);
    return item ? item->predicted_saving_ns : -1;
}

static int64_t total_span(const struct analysis_result *result)
{
    int64_t span = 0;
    for (size_t i = 0; i < result->device_count; i++)
        span += result->devices[i].busy_ns + result->devices[i].idle_ns;
    return span;
}

/* A fix's prediction in result as the change of the span ("-14.5 ms", "up to -1.35 s" as the report
 * says it), "-" when it has none. */
static void prediction_text(char *buffer, size_t size, const struct analysis_result *result, int fix)
{
    const struct analysis_what_if *item = prediction(result, fix);
    char change[32];
    if (!item) {
        snprintf(buffer, size, "-");
        return;
    }
    format_change(change, sizeof change, -item->predicted_saving_ns);
    snprintf(buffer, size, "%s%s", analysis_what_if_upper_bound(item) ? "up to " : "", change);
}

/* The what-if predictions of A and B, and the span change measured from A to B: when B is A with
 * one fix made, A's saving for that fix is what the change should be (docs/metrics.md, "What-if").
 * In text, a fix's title longer than its column continues under it. */
static void text_predictions(FILE *out, const struct analysis_result *a, const struct analysis_result *b,
                             int markdown, int width)
{
    if (a->what_if_count == 0 && b->what_if_count == 0)
        return;
    char change[32], pa[32], pb[32];
    format_change(change, sizeof change, total_span(b) - total_span(a));
    const char *a_title = "A predicts", *b_title = "B predicts";
    int title_width = 3, a_width = (int)strlen(a_title), b_width = (int)strlen(b_title);
    for (int fix = 0; fix < ANALYSIS_FIX_COUNT; fix++) {
        if (predicted(a, fix) < 0 && predicted(b, fix) < 0)
            continue;
        int length = (int)strlen(analysis_fix_title((enum analysis_fix)fix));
        title_width = length > title_width ? length : title_width;
        prediction_text(pa, sizeof pa, a, fix); /* "up to -1.346 s" is wider than the title */
        prediction_text(pb, sizeof pb, b, fix);
        a_width = (int)strlen(pa) > a_width ? (int)strlen(pa) : a_width;
        b_width = (int)strlen(pb) > b_width ? (int)strlen(pb) : b_width;
    }
    if (title_width > width - 2 - (2 + a_width) - (2 + b_width))
        title_width = width - 2 - (2 + a_width) - (2 + b_width);
    title_width = title_width < 20 ? 20 : title_width;
    if (markdown) {
        fprintf(out, "\n| what if (span B - A: %s) | A predicts | B predicts |\n|---|---:|---:|\n", change);
    } else {
        char line[96];
        snprintf(line, sizeof line, "what if (the spans changed by %s from A to B)", change);
        fputc('\n', out);
        report_write_wrapped(out, line, "", 2, width);
        fprintf(out, "  %-*s  %*s  %*s\n", title_width, "fix", a_width, a_title, b_width, b_title);
    }
    for (int fix = 0; fix < ANALYSIS_FIX_COUNT; fix++) {
        if (predicted(a, fix) < 0 && predicted(b, fix) < 0)
            continue;
        prediction_text(pa, sizeof pa, a, fix);
        prediction_text(pb, sizeof pb, b, fix);
        const char *title = analysis_fix_title((enum analysis_fix)fix);
        if (markdown) {
            fputs("| ", out);
            text_safe_fputs(title, TEXT_SAFE_MARKDOWN, out);
            fprintf(out, " | %s | %s |\n", pa, pb);
            continue;
        }
        const char *rest = text_wrap_skip_spaces(title), *end = text_wrap_line_end(rest, title_width);
        fputs("  ", out);
        int used = text_wrap_put(out, rest, end);
        fprintf(out, "%*s  %*s  %*s\n", title_width - used, "", a_width, pa, b_width, pb);
        for (rest = text_wrap_skip_spaces(end); *rest; rest = text_wrap_skip_spaces(end)) {
            end = text_wrap_line_end(rest, title_width);
            fputs("    ", out);
            text_wrap_put(out, rest, end);
            fputc('\n', out);
        }
    }
}

/* A cause's lost time and waits in result: "1.50 ms (3)". */
static void cause_text(char *buffer, size_t size, const struct analysis_cause_total *total)
{
    char lost[32];
    snprintf(buffer, size, "%s (%" PRId64 ")", units_format_duration(lost, sizeof lost, total->lost_ns),
             total->count);
}

static void text_diff(FILE *out, const struct analysis_result *a, const struct analysis_result *b,
                      int markdown, int width)
{
    char va[32], vb[32], delta[32];
    int name_width = (int)strlen("metric"); /* the longest name's: the figures stay in columns */
    for (size_t i = 0; i < report_metric_count(); i++)
        if ((int)strlen(report_metric_at(i)->name) > name_width)
            name_width = (int)strlen(report_metric_at(i)->name);
    if (markdown)
        fprintf(out, "| metric | A | B | B - A |\n|---|---:|---:|---:|\n");
    else
        fprintf(out, "%-*s %14s %14s %14s\n", name_width, "metric", "A", "B", "B - A");
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
            fprintf(out, "| %s | %s | %s | %s |\n", metric->name, va, vb, delta); /* [a-z_]: no markup */
        else
            fprintf(out, "%-*s %14s %14s %14s\n", name_width, metric->name, va, vb, delta);
    }
    /* The causes' columns as wide as their widest cell, so that the table fits 80 columns. */
    const char *cause_title = "cause (time lost, waits)";
    int title_width = (int)strlen(cause_title), a_width = 1, b_width = 1, delta_width = (int)strlen("B - A");
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++) {
        const struct analysis_cause_total *x = cause_total(a, cause), *y = cause_total(b, cause);
        if (x->count == 0 && y->count == 0)
            continue;
        char ca[48], cb[48];
        int title = (int)strlen(analysis_cause_title((enum analysis_cause)cause));
        cause_text(ca, sizeof ca, x);
        cause_text(cb, sizeof cb, y);
        format_change(delta, sizeof delta, y->lost_ns - x->lost_ns);
        title_width = title > title_width ? title : title_width;
        a_width = (int)strlen(ca) > a_width ? (int)strlen(ca) : a_width;
        b_width = (int)strlen(cb) > b_width ? (int)strlen(cb) : b_width;
        delta_width = (int)strlen(delta) > delta_width ? (int)strlen(delta) : delta_width;
    }
    if (markdown)
        fprintf(out, "\n| cause | A lost (waits) | B lost (waits) | B - A |\n|---|---:|---:|---:|\n");
    else
        fprintf(out, "\n%-*s  %*s  %*s  %*s\n", title_width, cause_title, a_width, "A", b_width, "B",
                delta_width, "B - A");
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++) {
        const struct analysis_cause_total *x = cause_total(a, cause), *y = cause_total(b, cause);
        if (x->count == 0 && y->count == 0)
            continue;
        char ca[48], cb[48];
        cause_text(ca, sizeof ca, x);
        cause_text(cb, sizeof cb, y);
        format_change(delta, sizeof delta, y->lost_ns - x->lost_ns);
        const char *title = analysis_cause_title((enum analysis_cause)cause);
        if (markdown) {
            fputs("| ", out);
            text_safe_fputs(title, TEXT_SAFE_MARKDOWN, out);
            fprintf(out, " | %s | %s | %s |\n", ca, cb, delta);
        } else
            fprintf(out, "%-*s  %*s  %*s  %*s\n", title_width, title, a_width, ca, b_width, cb, delta_width,
                    delta);
    }
    text_predictions(out, a, b, markdown, width);
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
        const struct analysis_what_if *pa = prediction(a, fix), *pb = prediction(b, fix);
        cJSON_AddItemToObject(item, "a_upper_bound",
                              pa ? cJSON_CreateBool(analysis_what_if_upper_bound(pa)) : cJSON_CreateNull());
        cJSON_AddItemToObject(item, "b_upper_bound",
                              pb ? cJSON_CreateBool(analysis_what_if_upper_bound(pb)) : cJSON_CreateNull());
        cJSON_AddItemToArray(what_if, item);
    }
    return root;
}

int report_write_diff(FILE *out, const struct analysis_result *a, const struct analysis_result *b,
                      const char *label_a, const char *label_b, enum report_format format, int width,
                      error_info *err)
{
    if (format == REPORT_JSON) {
        if (report_json_write(out, json_diff(a, b, label_a, label_b), err) != 0)
            return -1;
    } else if (format == REPORT_MARKDOWN) {
        fputs("## overlapscope diff: A = ", out);
        text_safe_markdown_code(label_a, out);
        fputs(", B = ", out);
        text_safe_markdown_code(label_b, out);
        fputs("\n\n", out);
        text_diff(out, a, b, 1, 0);
    } else {
        width = width > 0 ? width : 80;
        /* one line when it fits, else A and B each on their own */
        char *a_text = text_safe_dup(label_a, TEXT_SAFE_TERMINAL),
             *b_text = text_safe_dup(label_b, TEXT_SAFE_TERMINAL);
        const char *shown_a = a_text ? a_text : "?", *shown_b = b_text ? b_text : "?";
        if ((int)strlen("overlapscope diff: A = , B = ") + text_wrap_columns(shown_a, strlen(shown_a)) +
                text_wrap_columns(shown_b, strlen(shown_b)) <=
            width) {
            fprintf(out, "overlapscope diff: A = %s, B = %s\n", shown_a, shown_b);
        } else {
            fputs("overlapscope diff:\n", out);
            text_wrap_write(out, shown_a, "  A = ", 6, width);
            text_wrap_write(out, shown_b, "  B = ", 6, width);
        }
        free(a_text);
        free(b_text);
        fputc('\n', out);
        text_diff(out, a, b, 0, width);
    }
    return ferror(out) ? error_set(err, "cannot write the comparison") : 0;
}
