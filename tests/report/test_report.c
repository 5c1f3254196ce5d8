/* test_report.c: the writers and the named metrics on the scenarios of scenarios.h: the text
 * summary names the cause with its evidence, the JSON carries the documented fields with the
 * computed values, Markdown is a table, diff shows the change. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "capture.h"
#include "check.h"
#include "report.h"
#include "scenarios.h"

static char directory[] = "/tmp/overlapscope-test-report-XXXXXX";

static struct analysis_result *analyze(const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    error_info err;
    struct analysis_result *result = report_analyze_file(path, NULL, &err);
    if (!result)
        fprintf(stderr, "%s\n", err.message);
    return result;
}

/* Runs a writer into a memory buffer; the caller frees. */
static char *capture_text(const struct analysis_result *result, int markdown, int width)
{
    struct report_context context = {.trace_path = "saturated.db", .top = 3, .width = width};
    return capture_report(result, &context, markdown);
}

static void test_metrics(const struct analysis_result *saturated)
{
    double value = -1;
    CHECK_INT(report_metric_value(saturated, "sm_saturation_ms", &value), 0);
    CHECK_NEAR(value, 3.189, 1e-9);
    CHECK_INT(report_metric_value(saturated, "exposed_comm_ms", &value), 0);
    CHECK_NEAR(value, 0.2, 1e-9); /* the second NCCL kernel ran alone */
    CHECK_INT(report_metric_value(saturated, "comm_overlap", &value), 0);
    CHECK_NEAR(value, 0.5, 1e-12);
    CHECK_INT(report_metric_value(saturated, "span_ms", &value), 0);
    CHECK_NEAR(value, 6.6, 1e-9);
    CHECK_INT(report_metric_value(saturated, "waits", &value), 0);
    CHECK_NEAR(value, 2, 0);
    CHECK_INT(report_metric_value(saturated, "comm_behind_compute_ms", &value), 0);
    CHECK_NEAR(value, 0.2, 1e-9); /* the first NCCL kernel, ready at 0, got an SM at 1000 us */
    CHECK_INT(report_metric_value(saturated, "multi_stream_ratio", &value), 0);
    CHECK_NEAR(value, (200.0 + 11.0) / 6589.0, 1e-9); /* [1000,1200] and [3189,3200] of 6589 busy */
    CHECK_INT(report_metric_value(saturated, "no_such_metric", &value), -1);
    CHECK(report_metric_known("headroom_ms"));
    CHECK(!report_metric_known("headroom"));
    char names[1024];
    report_metric_names(names, sizeof names);
    CHECK_CONTAINS(names, "comm_overlap, exposed_comm_ms");
    CHECK_CONTAINS(names, "unexplained_ms");
    /* Every cause has its metric. */
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++) {
        char name[64];
        snprintf(name, sizeof name, "%s_ms", analysis_cause_tag((enum analysis_cause)cause));
        for (char *p = name; *p; p++)
            *p = *p == '-' ? '_' : *p;
        CHECK(report_metric_known(name));
    }
}

/* Joins the lines of text that start with indent spaces exactly (not more), from *line on,
 * into joined (one space between lines); checks that each fits width. Moves *line past them and
 * returns their count. */
static int join_indented(const char **line, int indent, int width, char *joined, size_t size)
{
    int lines = 0;
    joined[0] = '\0';
    for (; *line && strspn(*line + 1, " ") == (size_t)indent; *line = strchr(*line + 1, '\n')) {
        int length = (int)strcspn(*line + 1 + indent, "\n");
        CHECK(length + indent <= width);
        size_t used = strlen(joined);
        snprintf(joined + used, size - used, "%s%.*s", used ? " " : "", length, *line + 1 + indent);
        lines++;
    }
    return lines;
}

/* Cause summaries and evidence wrap between words at the width and say all of their text: the
 * summary continues under the text after its number ("  1. ", 5 columns), the evidence two
 * columns deeper; joined back, cause 1's summary is its title, loss, advice and source, and its
 * evidence its largest wait's, word for word (no word cut). */
static void test_wrapping(const struct analysis_result *saturated, int width)
{
    char *text = capture_text(saturated, 0, width);
    char summary[1024], evidence[1024], expected[1024];
    snprintf(expected, sizeof expected, "SM saturation: 3.19 ms lost in 1 wait; what to do: %s (see %s)",
             analysis_cause_advice(ANALYSIS_CAUSE_SM_SATURATION),
             analysis_cause_advice_source(ANALYSIS_CAUSE_SM_SATURATION));
    const char *line = strstr(text, "\n  1. ");
    CHECK(line != NULL);
    if (!line) {
        free(text);
        return;
    }
    int first = (int)strcspn(line + 1, "\n");
    CHECK(first <= width);
    snprintf(summary, sizeof summary, "%.*s", first - 5, line + 6);
    line = strchr(line + 1, '\n');
    char rest[1024];
    int summary_lines = 1 + join_indented(&line, 5, width, rest, sizeof rest);
    size_t used = strlen(summary);
    snprintf(summary + used, sizeof summary - used, "%s%s", rest[0] ? " " : "", rest);
    int evidence_lines = join_indented(&line, 7, width, evidence, sizeof evidence);
    CHECK(summary_lines >= 2); /* 150-250 characters: never one line at 80 columns */
    CHECK_STR(summary, expected);
    CHECK(evidence_lines >= 3);
    CHECK_STR(evidence, saturated->waits[0].evidence);
    free(text);
}

static void test_text_and_markdown(const struct analysis_result *saturated)
{
    char *text = capture_text(saturated, 0, 0);
    CHECK_CONTAINS(text, "overlapscope report: saturated.db");
    CHECK_CONTAINS(text, "rank  device  span");
    CHECK_CONTAINS(text, "missed overlaps: 2 waits, 3.39 ms lost");
    CHECK_CONTAINS(text, "2. communication delayed by compute: 200 us lost in 1 wait");
    CHECK_CONTAINS(
        text,
        "AllReduce Sum f32 RING LL started 1.00 ms after it was ready, as a\n       block of it retired");
    CHECK_CONTAINS(text, "1. SM saturation: 3.19 ms lost in 1 wait");
    CHECK_CONTAINS(text, "kernel sgemm_256x128 on stream 13 held all 132 SMs");
    /* a wait longer than its line continues under its description, past its loss */
    CHECK_CONTAINS(text, "\n  3.19 ms  rank 0 device 0 at +3.19 ms: sgemm_128x64 (stream 14) after\n"
                         "           sgemm_256x128 (stream 13) [sm-saturation]\n");
    free(text);
    char *markdown = capture_text(saturated, 1, 0);
    CHECK_CONTAINS(markdown, "| rank | device | span |");
    CHECK_CONTAINS(markdown, "| SM saturation | 3.19 ms | 1 |");
    free(markdown);
}

static void test_json(const struct analysis_result *saturated)
{
    struct report_context context = {.trace_path = "saturated.db"};
    cJSON *root = report_to_json(saturated, &context);
    CHECK(root != NULL);
    if (!root)
        return;
    CHECK_INT(cJSON_GetObjectItem(root, "schema_version")->valuedouble, REPORT_JSON_SCHEMA_VERSION);
    CHECK_STR(cJSON_GetObjectItem(root, "origin_ns")->valuestring, "1700000000000000000");
    cJSON *summary = cJSON_GetObjectItem(root, "summary");
    CHECK_NEAR(cJSON_GetObjectItem(summary, "comm_overlap")->valuedouble, 0.5, 1e-12);
    cJSON *device = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "devices"), 0);
    CHECK_INT(cJSON_GetObjectItem(device, "busy_ns")->valuedouble, 6589000);
    CHECK_INT(cJSON_GetObjectItem(device, "idle_ns")->valuedouble, 11000);
    CHECK_INT(cJSON_GetObjectItem(device, "exposed_communication_ns")->valuedouble, 200000);
    CHECK_INT(cJSON_GetObjectItem(device, "span_start_ns")->valuedouble, 0);
    cJSON *overlap = cJSON_GetObjectItem(cJSON_GetObjectItem(device, "category_overlap_ns"), "compute");
    CHECK_INT(cJSON_GetObjectItem(overlap, "communication")->valuedouble, 200000);
    cJSON *wait = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "waits"), 0);
    CHECK_STR(cJSON_GetObjectItem(wait, "cause")->valuestring, "sm-saturation");
    CHECK_INT(cJSON_GetObjectItem(wait, "lost_ns")->valuedouble, 3189000);
    cJSON *waiting = cJSON_GetObjectItem(wait, "waiting");
    CHECK_INT(cJSON_GetObjectItem(waiting, "stream_id")->valuedouble, 14);
    CHECK_INT(cJSON_GetObjectItem(waiting, "launch_end_ns")->valuedouble, -45000);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(wait, "blocking"), "launch_end_ns")));
    cJSON *cause = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "causes"), 0);
    CHECK_STR(cJSON_GetObjectItem(cause, "cause")->valuestring, "sm-saturation");
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(root, "streams")), 3);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(root, "stream_pairs")), 3);
    cJSON *step = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "steps"), 0);
    CHECK_STR(cJSON_GetObjectItem(step, "name")->valuestring, "ProfilerStep#0");
    CHECK_INT(cJSON_GetObjectItem(step, "end_ns")->valuedouble, 6389000);
    cJSON_Delete(root);
}

static void test_diff(const struct analysis_result *saturated, const struct analysis_result *overlapped)
{
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    error_info err;
    CHECK_INT(report_write_diff(out, saturated, overlapped, "a.db", "b.db", REPORT_TEXT, 0, &err), 0);
    fclose(out);
    CHECK_CONTAINS(buffer, "sm_saturation_ms");
    CHECK_CONTAINS(buffer, "-3.189");
    CHECK_CONTAINS(buffer, "SM saturation");
    free(buffer);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    CHECK_INT(build_scenario(directory, "saturated.db", 1), 0);
    CHECK_INT(build_scenario(directory, "overlapped.db", 0), 0);
    struct analysis_result *saturated = analyze("saturated.db"), *overlapped = analyze("overlapped.db");
    CHECK(saturated && overlapped);
    if (saturated && overlapped) {
        test_metrics(saturated);
        test_text_and_markdown(saturated);
        test_wrapping(saturated, 80);
        test_wrapping(saturated, 50);
        test_json(saturated);
        test_diff(saturated, overlapped);
        CHECK_INT(overlapped->wait_total_count, 0);
    }
    analysis_free(saturated);
    analysis_free(overlapped);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
