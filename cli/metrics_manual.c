/* metrics_manual.c: see metrics_manual.h. Each list is a walk over a table; the only words
 * written here are the sections' introductions. */
#include "metrics_manual.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causes.h"
#include "report.h"

/* 1 when name is the metric of a cause row: it is listed under its cause, not twice. */
static int is_cause_metric(const char *name)
{
    for (int i = 0; i < ANALYSIS_CAUSE_COUNT; i++)
        if (strcmp(analysis_cause_metric((enum analysis_cause)i), name) == 0)
            return 1;
    for (int i = 0; i < ACCOUNTING_CAUSE_COUNT; i++)
        if (strcmp(accounting_cause_metric((enum accounting_cause)i), name) == 0)
            return 1;
    return 0;
}

static void write_trace_metrics(FILE *out)
{
    fputs("## Trace-wide metrics\n\n"
          "Every name works with `overlapscope check --min NAME=V` and `--max NAME=V`, is a row of "
          "`overlapscope diff` and a key of the JSON `summary`. Durations are in milliseconds, "
          "ratios in [0, 1]. Definitions: docs/metrics.md, \"Metric names\".\n\n",
          out);
    for (size_t i = 0; i < report_metric_count(); i++) {
        const struct report_metric *metric = report_metric_at(i);
        if (!is_cause_metric(metric->name))
            fprintf(out, "- `%s` (%s): %s.\n", metric->name, metric->unit, metric->description);
    }
    fputs("\n", out);
}

static void write_fix(enum analysis_fix fix, FILE *out)
{
    if (fix < ANALYSIS_FIX_COUNT)
        fprintf(out, " What-if `%s`: %s.", analysis_fix_tag(fix), analysis_fix_title(fix));
}

static void write_wait_causes(FILE *out)
{
    fputs("## Causes of missed overlap\n\n"
          "A wait is an operation that could have run beside another and did not; each goes to the "
          "first cause its rule proves (docs/metrics.md, \"Waits\"). `report` names the cause by "
          "its tag; the metric is the time lost to its waits, in ms.\n\n",
          out);
    for (int i = 0; i < ANALYSIS_CAUSE_COUNT; i++) {
        enum analysis_cause cause = (enum analysis_cause)i;
        fprintf(out, "- `%s`: %s (tag `%s`). Advice: %s (%s).", analysis_cause_metric(cause),
                analysis_cause_title(cause), analysis_cause_tag(cause), analysis_cause_advice(cause),
                analysis_cause_advice_source(cause));
        write_fix(analysis_cause_fix(cause), out);
        fputs("\n", out);
    }
    fputs("\n", out);
}

/* The accounting causes of one kind (idle, exposed communication or exposed copy). */
static void write_accounting_causes(const char *heading, const char *introduction, int copy, int idle,
                                    FILE *out)
{
    fprintf(out, "## %s\n\n%s\n\n", heading, introduction);
    for (int i = 0; i < ACCOUNTING_CAUSE_COUNT; i++) {
        enum accounting_cause cause = (enum accounting_cause)i;
        if (accounting_cause_is_copy(cause) != copy || (!copy && accounting_cause_is_idle(cause) != idle))
            continue;
        fprintf(out, "- `%s`: %s (tag `%s`).", accounting_cause_metric(cause), accounting_cause_title(cause),
                accounting_cause_tag(cause));
        write_fix(accounting_cause_fix(cause), out);
        fputs("\n", out);
    }
    fputs("\n", out);
}

static void write_fixes(FILE *out)
{
    fputs("## What-ifs\n\n"
          "The fixes the replay models: each removes what its causes cost and replays the trace "
          "(docs/metrics.md, \"What-if\"). `report --json` names them by tag.\n\n",
          out);
    for (int i = 0; i < ANALYSIS_FIX_COUNT; i++) {
        enum analysis_fix fix = (enum analysis_fix)i;
        fprintf(out, "- `%s`: %s.%s\n", analysis_fix_tag(fix), analysis_fix_title(fix),
                analysis_fix_by_design(fix)
                    ? " By design: its gain is the price of what the program asked for."
                    : "");
    }
    fputs("\n", out);
}

char *metrics_manual_markdown(void)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return NULL;
    fputs("# overlapscope metrics\n\n"
          "The figures `overlapscope report` prints and `check` and `diff` compare, and the causes "
          "it names for missed overlap, idle time, exposed communication and exposed copies. This "
          "page is generated from the tool's own tables; docs/metrics.md is the long form.\n\n",
          out);
    write_trace_metrics(out);
    write_wait_causes(out);
    write_accounting_causes("Causes of idle time",
                            "Where a device's idle time (span minus busy) went, per device; each "
                            "metric sums one cause over all devices, in ms (docs/metrics.md, \"Idle "
                            "time\").",
                            0, 1, out);
    write_accounting_causes("Causes of exposed communication",
                            "Communication is exposed while no compute kernel of its device runs: "
                            "the SMs wait for the collective. Each metric sums one cause over all "
                            "ranks, in ms (docs/metrics.md, \"Exposed communication\").",
                            0, 0, out);
    write_accounting_causes("Causes of exposed copies",
                            "A copy is exposed while no kernel of its device runs: the SMs wait for "
                            "the copy. `exposed_copy_ms` is the union of a device's copies minus the "
                            "union of its kernels, summed over devices, and `kernel_busy_ratio` is "
                            "busy time without that copy-only time, so a GPU fed from pageable "
                            "memory does not read as busy. Each copy's exposed time goes to the "
                            "first cause below that it proves; the metrics sum one cause over all "
                            "devices, in ms (docs/metrics.md, \"Exposed copies\").",
                            1, 0, out);
    write_fixes(out);
    fputs("## See also\n\noverlapscope-report(1), overlapscope-check(1), overlapscope-diff(1) and "
          "docs/metrics.md.\n",
          out);
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
