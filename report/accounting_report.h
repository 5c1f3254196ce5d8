/* accounting_report.h: the idle-time and exposed-communication sections of the reports
 * (report/accounting.c), called by the JSON and text writers and by the metric table. Private to
 * report/; accounting.c itself depends only on writer.h and text_layout.h. */
#ifndef OVERLAPSCOPE_REPORT_ACCOUNTING_REPORT_H
#define OVERLAPSCOPE_REPORT_ACCOUNTING_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "analysis.h"

/* Adds "idle" and "exposed_communication" to each object of devices (in result->devices order),
 * and "step_accounting" and "straggler" to root. */
void report_accounting_json(cJSON *root, cJSON *devices, const struct analysis_result *result);
/* The breakdowns of every device, top causes each; markdown 1 writes tables, else prose wraps at
 * width columns. summarized (report/world.h): the causes over every device, then the breakdowns
 * of the one device with the most, and each "could not be checked" line once. */
void report_accounting_text(FILE *out, const struct analysis_result *result, size_t top, int markdown,
                            int width, int summarized);
/* A cause's time over every device, in ms. */
double report_accounting_metric(const struct analysis_result *result, enum accounting_cause cause);

#endif
