/* report.h: what `overlapscope report`, `check` and `diff` print, built from an analysis_result:
 * the human summary (text), JSON (schema in docs/report-json.md, versioned by
 * REPORT_JSON_SCHEMA_VERSION) and Markdown for CI summaries; the table of named trace-wide
 * metrics that check gates on and diff compares (docs/metrics.md). Writers print only to the FILE* they are
 * given and never exit. */
#ifndef OVERLAPSCOPE_REPORT_H
#define OVERLAPSCOPE_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "analysis.h"
#include "error.h"

#define REPORT_JSON_SCHEMA_VERSION 3

/* What the writers say about the run besides the result. */
struct report_context {
    const char *trace_path;
    const struct analysis_options *options; /* the filters used (may be NULL) */
    size_t top;                             /* causes and waits listed; 0: 5 */
    int width;                              /* text: lines wrap at this many columns; 0: 80 */
    int all_rows; /* text and Markdown: a row per device however many (else a summary past 16) */
};

/* --- one trace --- */
int report_write_text(FILE *out, const struct analysis_result *result, const struct report_context *context);
int report_write_markdown(FILE *out, const struct analysis_result *result,
                          const struct report_context *context);
int report_write_json(FILE *out, const struct analysis_result *result, const struct report_context *context,
                      error_info *err);
/* The report's tables as CSV (docs/overlapscope-report.md, "CSV"): the JSON's figures under its
 * key names, one document per table. Returns 0, or -1 with err filled when out is in error. */
int report_write_csv(FILE *out, const struct analysis_result *result, error_info *err);
/* The JSON document (caller frees with cJSON_Delete), or NULL when out of memory. */
cJSON *report_to_json(const struct analysis_result *result, const struct report_context *context);

/* --- named metrics --- */
struct report_metric {
    const char *name; /* "comm_overlap", "exposed_comm_ms", "sm_saturation_ms", ... */
    const char *unit; /* "ratio", "ms", "count" */
    const char *description;
};
/* The metrics, in documentation order: index 0 .. report_metric_count() - 1. */
size_t report_metric_count(void);
const struct report_metric *report_metric_at(size_t index);
/* 1 when a metric has that name. */
int report_metric_known(const char *name);
/* 1 when a larger value of the metric is better (the overlap and busy ratios), 0 when a smaller
 * one is (times, counts, headroom_ratio) or no metric has that name: what diff --fail-on calls
 * worse. */
int report_metric_higher_is_better(const char *name);
/* Looks a metric up by name and computes its value. Returns 0, or -1 when no metric has that name. */
int report_metric_value(const struct analysis_result *result, const char *name, double *value);
/* Why a metric is not measured on this result ("no communication": a ratio with nothing to divide
 * by; its value reads 0), or NULL when it is measured or unknown. */
const char *report_metric_unmeasured(const struct analysis_result *result, const char *name);
/* "comm_overlap, exposed_comm_ms, ..." into buffer. */
void report_metric_names(char *buffer, size_t size);

/* --- two traces --- */
enum report_format { REPORT_TEXT = 0, REPORT_JSON = 1, REPORT_MARKDOWN = 2 };
/* width: the text's columns (0: 80); JSON and Markdown do not depend on it. */
int report_write_diff(FILE *out, const struct analysis_result *a, const struct analysis_result *b,
                      const char *label_a, const char *label_b, enum report_format format, int width,
                      error_info *err);

/* --- shared by the subcommands --- */
/* Opens the trace read-only, analyzes it and closes it. NULL with err filled ("FILE: reason"). */
struct analysis_result *report_analyze_file(const char *path, const struct analysis_options *options,
                                            error_info *err);
/* The same, the reason led by name instead of path (a trace made for the command: --mpi's
 * process's own import of its rank files, named by what the user gave). */
struct analysis_result *report_analyze_file_named(const char *path, const char *name,
                                                  const struct analysis_options *options, error_info *err);

#endif
