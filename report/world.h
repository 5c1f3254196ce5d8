/* world.h: the overview table's figures, and the world summary that stands in for the report's
 * per-device tables when a trace has more devices than a reader can scan (report/world.c,
 * docs/overlapscope-report.md, "Many ranks"): each figure's distribution across the devices (min,
 * median, p90, max, with the ranks holding min and max), the ranks at either end of the figures
 * that matter, and the streams by role. Private to report/ (text.c and accounting.c). */
#ifndef OVERLAPSCOPE_REPORT_WORLD_H
#define OVERLAPSCOPE_REPORT_WORLD_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis.h"
#include "report.h"

/* More devices than this and the text and Markdown report summarize them (--all-rows: every row).
 * 16 rows, the overview table's two bands in 80 columns, still fit one screen; the goldens have 8. */
#define REPORT_WORLD_MAX_ROWS 16

/* The overview table's figures, after its key columns rank and device: span, busy, kernels, ... */
enum { REPORT_FIGURE_COUNT = 12, REPORT_FIGURE_CELL = 24 };
extern const char *const report_figure_titles[REPORT_FIGURE_COUNT];
/* The figure's cell as the overview table writes it ("36.1 ms", "96.0%", "-" for a ratio of
 * nothing) into cell (REPORT_FIGURE_CELL bytes). */
void report_figure_cell(const struct analysis_device *device, int figure, char *cell);
/* The figure as a number to order devices by (a ratio from 0 to 1, a duration in ns): 1 and value
 * set, or 0 when the device has none (a ratio of nothing). */
int report_figure_value(const struct analysis_device *device, int figure, double *value);

/* 1 when the text and Markdown report summarize the devices: more than REPORT_WORLD_MAX_ROWS of
 * them and no --all-rows. */
int report_world_summarized(const struct analysis_result *result, const struct report_context *context);
/* How the summary names a device: "rank 37", with " device 1" when a process has several in the
 * result; returns buffer. */
char *report_world_device_name(const struct analysis_result *result, size_t device, char *buffer,
                               size_t size);

/* The distribution table, the ranks at either end and how to see the rows left out: text wrapped
 * at width columns, or Markdown. */
void report_world_overview(FILE *out, const struct analysis_result *result, int markdown, int width);
/* The summary's figures for the JSON report ("world", docs/report-json.md): each figure's
 * distribution with where its min and max are; NULL when the devices are not more than
 * REPORT_WORLD_MAX_ROWS (the key is then absent) or out of memory. The caller owns it. */
cJSON *report_world_json(const struct analysis_result *result);
/* The streams by role, with the distribution of their busy time (text only). */
void report_world_streams(FILE *out, const struct analysis_result *result, int width);

#endif
