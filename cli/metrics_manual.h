/* metrics_manual.h: the manual of every check/diff metric and every cause, written from the
 * metric list (report_metric_at) and the cause table (causes.def), never by hand, so that a new
 * row shows up in `overlapscope help metrics` and in overlapscope-metrics(7) without an edit.
 * docs/metrics.md stays the long form (definitions, rules, evidence); this is the index. */
#ifndef OVERLAPSCOPE_METRICS_MANUAL_H
#define OVERLAPSCOPE_METRICS_MANUAL_H

/* The page's name and its one-line summary (the man page's NAME line). */
#define METRICS_MANUAL_PAGE "overlapscope-metrics"
#define METRICS_MANUAL_SUMMARY "the metrics and causes of overlapscope report, check and diff"

/* The manual as Markdown in the dialect of manual_markdown.h (a level-1 heading first), or NULL
 * when out of memory. The caller frees it. */
char *metrics_manual_markdown(void);

#endif
