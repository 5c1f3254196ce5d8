/* test_report.c: the writers and the named metrics on the scenarios of scenarios.h: the text
 * summary names the cause with its evidence, the JSON carries the documented fields with the
 * computed values, Markdown is a table, diff shows the change. */
#include <stdlib.h>

#include "analysis.h"
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
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    struct report_context context = {.trace_path = "saturated.db", .top = 3, .width = width};
    if (markdown)
        report_write_markdown(out, result, &context);
    else
        report_write_text(out, result, &context);
    fclose(out);
    return buffer;
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

/* Evidence lines wrap between words at the width, indented under their cause, and say all of the
 * evidence: joined back, cause 1's lines are its largest wait's evidence, word for word. */
static void test_wrapping(const struct analysis_result *saturated, int width)
{
    char *text = capture_text(saturated, 0, width);
    char joined[1024] = "";
    int lines = 0;
    const char *line = strstr(text, "\n  1. ");
    for (line = line ? strchr(line + 1, '\n') : NULL; line && strncmp(line, "\n     ", 6) == 0;
         line = strchr(line + 1, '\n')) {
        int length = (int)strcspn(line + 6, "\n");
        CHECK(length + 5 <= width);
        size_t used = strlen(joined);
        snprintf(joined + used, sizeof joined - used, "%s%.*s", used ? " " : "", length, line + 6);
        lines++;
    }
    CHECK(lines >= 3);
    CHECK_STR(joined, saturated->waits[0].evidence);
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
        text, "AllReduce Sum f32 RING LL started 1.00 ms after it was ready, as a block of\n     it retired");
    CHECK_CONTAINS(text, "1. SM saturation: 3.19 ms lost in 1 wait");
    CHECK_CONTAINS(text, "kernel sgemm_256x128 on stream 13 held all 132 SMs");
    CHECK_CONTAINS(text, "sgemm_128x64 (stream 14) after sgemm_256x128 (stream 13) [sm-saturation]");
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
    CHECK_INT(report_write_diff(out, saturated, overlapped, "a.db", "b.db", REPORT_TEXT, &err), 0);
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
