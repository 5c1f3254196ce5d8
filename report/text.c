/* text.c: the human summary and its Markdown twin. Both print the same rows (one per rank and
 * device), the top causes with the evidence of their largest wait, and the largest waits; only
 * the framing differs, so the rows are built once as text cells. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "accounting_report.h"
#include "call_source.h"
#include "naming.h"
#include "report.h"
#include "steady_state.h"
#include "text_layout.h"
#include "text_safe.h"
#include "text_wrap.h"
#include "units.h"
#include "world.h"
#include "writer.h"

enum { COLUMN_COUNT = 2 + REPORT_FIGURE_COUNT, CELL_SIZE = REPORT_FIGURE_CELL };

/* rank, device, then the figures (world.h) */
static void column_titles(const char *titles[COLUMN_COUNT])
{
    titles[0] = "rank";
    titles[1] = "device";
    memcpy(titles + 2, report_figure_titles, sizeof report_figure_titles);
}

static size_t top_of(const struct report_context *context)
{
    return context && context->top ? context->top : 5;
}

static void device_cells(const struct analysis_device *device, char cells[COLUMN_COUNT][CELL_SIZE])
{
    if (device->rank >= 0)
        snprintf(cells[0], CELL_SIZE, "%" PRId64, device->rank);
    else
        snprintf(cells[0], CELL_SIZE, "pid %" PRId64, device->pid);
    snprintf(cells[1], CELL_SIZE, "%" PRId64, device->device_id);
    for (int f = 0; f < REPORT_FIGURE_COUNT; f++)
        report_figure_cell(device, f, cells[2 + f]);
}

/* The largest kept wait of a cause, or NULL. */
static const struct analysis_wait *largest_wait(const struct analysis_result *result,
                                                enum analysis_cause cause)
{
    for (size_t i = 0; i < result->wait_count; i++)
        if (result->waits[i].cause == cause)
            return &result->waits[i];
    return NULL;
}

/* Text from the trace or the command line (names, evidence, paths) goes out through text_safe:
 * TERMINAL in the summary, MARKDOWN in its twin. */
static void describe_selection(FILE *out, const struct analysis_result *result,
                               const struct report_context *context, enum text_safe_style style)
{
    char from[32], to[32];
    const struct analysis_options *options = context ? context->options : NULL;
    fprintf(out, "analyzed %zu device%s, %" PRId64 " GPU interval%s, from +%s to +%s", result->device_count,
            result->device_count == 1 ? "" : "s", result->interval_count,
            result->interval_count == 1 ? "" : "s",
            units_format_duration(from, sizeof from, result->selection.window_start_ns - result->origin_ns),
            units_format_duration(to, sizeof to, result->selection.window_end_ns - result->origin_ns));
    if (options && options->range_name) {
        fputs(", inside NVTX ranges '", out);
        text_safe_fputs(options->range_name, style, out);
        fputc('\'', out);
    }
    if (options && options->step >= 0)
        fprintf(out, ", step %" PRId64, options->step);
    if (options && options->stream_id >= 0)
        fprintf(out, ", stream %" PRId64, options->stream_id);
    fprintf(out, "\n");
}

/* What the default window left out of the run, when it did: "the steady state: set-up 0 - 3.99 s
 * left out (--all analyses everything)". */
static const char *describe_left_out(const struct analysis_result *result, enum text_safe_style style,
                                     char *line, size_t size)
{
    char left_out[200];
    steady_state_describe(&result->steady, left_out, sizeof left_out);
    line[0] = '\0';
    if (!left_out[0])
        return line;
    const struct analysis_steady *steady = &result->steady;
    char causes[256] = "", idle[32];
    size_t used = 0;
    for (size_t i = 0; i < 2 && steady->setup_causes[i].cause != ACCOUNTING_CAUSE_COUNT; i++) {
        char ns[32];
        char devices[32] = "";
        if (!i && steady->setup_devices > 1)
            snprintf(devices, sizeof devices, " on %zu devices", steady->setup_devices);
        int n = snprintf(causes + used, sizeof causes - used, "%s%s%s %s %s", i ? "" : "; its GPU idle time",
                         devices, i ? "," : ": most", accounting_cause_tag(steady->setup_causes[i].cause),
                         units_format_duration(ns, sizeof ns, steady->setup_causes[i].ns));
        used += n > 0 && (size_t)n < sizeof causes - used ? (size_t)n : 0;
        if (strcmp(steady->setup_causes[i].label, accounting_cause_tag(steady->setup_causes[i].cause)) != 0) {
            char label[128]; /* from the trace: made safe to print */
            text_safe_copy(label, sizeof label, steady->setup_causes[i].label, style);
            n = snprintf(causes + used, sizeof causes - used, " (%s)", label);
            used += n > 0 && (size_t)n < sizeof causes - used ? (size_t)n : 0;
        }
    }
    if (causes[0])
        snprintf(causes + used, sizeof causes - used, ", of %s idle",
                 units_format_duration(idle, sizeof idle, steady->setup_idle_ns));
    snprintf(line, size, "the steady state: %s left out%s (--all analyses everything)", left_out, causes);
    return line;
}

/* The selection's line, wrapped (a range name can be long). */
static void text_selection(FILE *out, const struct analysis_result *result,
                           const struct report_context *context, int width)
{
    char *line = NULL;
    size_t size = 0;
    FILE *text = open_memstream(&line, &size);
    if (!text) {
        describe_selection(out, result, context, TEXT_SAFE_TERMINAL);
        return;
    }
    describe_selection(text, result, context, TEXT_SAFE_TERMINAL);
    fclose(text);
    text_wrap_write(out, line, "", 2, width);
    free(line);
}

/* One row per rank and device; the columns wrap into bands when the terminal is narrower than
 * the table (report/text_layout.h). */
static void text_table(FILE *out, const struct analysis_result *result, int width)
{
    char(*cells)[COLUMN_COUNT][CELL_SIZE] =
        calloc(result->device_count ? result->device_count : 1, sizeof *cells);
    if (!cells)
        return;
    for (size_t i = 0; i < result->device_count; i++)
        device_cells(&result->devices[i], cells[i]);
    const char *titles[COLUMN_COUNT];
    column_titles(titles);
    struct text_table table = {.column_count = COLUMN_COUNT,
                               .key_count = 2,
                               .titles = titles,
                               .row_count = result->device_count,
                               .cells = &cells[0][0][0],
                               .cell_size = CELL_SIZE};
    text_table_write(out, &table, width);
    free(cells);
}

enum { STREAM_COLUMNS = 7 };
static const char *const stream_titles[STREAM_COLUMNS] = {"rank", "device",    "stream", "role",
                                                          "busy", "intervals", ""};

static void text_streams(FILE *out, const struct analysis_result *result, int width)
{
    fprintf(out, "\nstreams:\n");
    char(*cells)[STREAM_COLUMNS][CELL_SIZE] =
        calloc(result->lane_count ? result->lane_count : 1, sizeof *cells);
    if (!cells)
        return;
    size_t rows = 0;
    for (size_t i = 0; i < result->lane_count; i++) {
        const struct analysis_lane *lane = &result->lanes[i];
        if (!lane->selected)
            continue;
        char(*row)[CELL_SIZE] = cells[rows++];
        naming_process(row[0], CELL_SIZE, lane->rank, lane->pid, lane->process_id);
        snprintf(row[1], CELL_SIZE, "%" PRId64, lane->device_id);
        snprintf(row[2], CELL_SIZE, "%" PRId64, lane->stream_id);
        snprintf(row[3], CELL_SIZE, "%s", lane->role);
        units_format_duration(row[4], CELL_SIZE, lane->busy_ns);
        snprintf(row[5], CELL_SIZE, "%" PRId64, lane->interval_count);
        snprintf(row[6], CELL_SIZE, "%s", lane->is_legacy_default ? "legacy default stream" : "");
    }
    struct text_table table = {.column_count = STREAM_COLUMNS,
                               .key_count = 3,
                               .titles = stream_titles,
                               .row_count = rows,
                               .cells = &cells[0][0][0],
                               .cell_size = CELL_SIZE,
                               .indent = 2};
    text_table_write(out, &table, width);
    free(cells);
}

/* A cause's summary continues under the text after its number ("  1. "); the evidence of its
 * largest wait two columns deeper. */
#define SUMMARY_INDENT 5
#define EVIDENCE_INDENT 7

static void text_causes(FILE *out, const struct analysis_result *result, size_t top, int width)
{
    char lost[32], headroom[32], line[160];
    snprintf(line, sizeof line, "missed overlaps: %" PRId64 " wait%s, %s lost; headroom %s",
             result->wait_total_count, result->wait_total_count == 1 ? "" : "s",
             units_format_duration(lost, sizeof lost, result->total_lost_ns),
             units_format_duration(headroom, sizeof headroom, result->total_headroom_ns));
    fputc('\n', out);
    report_write_wrapped(out, line, "", SUMMARY_INDENT, width);
    size_t shown = 0;
    for (int i = 0; i < ANALYSIS_CAUSE_COUNT && shown < top; i++) {
        const struct analysis_cause_total *total = &result->causes[i];
        if (total->count == 0)
            continue;
        shown++;
        char number[16], summary[768];
        snprintf(number, sizeof number, "  %zu. ", shown);
        snprintf(summary, sizeof summary, "%s: %s lost in %" PRId64 " wait%s; what to do: %s (see %s)",
                 analysis_cause_title(total->cause), units_format_duration(lost, sizeof lost, total->lost_ns),
                 total->count, total->count == 1 ? "" : "s", analysis_cause_advice(total->cause),
                 analysis_cause_advice_source(total->cause));
        /* The summary hangs under its number; its largest wait's evidence sits deeper, so
         * that a reader sees where the one ends and the other begins. */
        report_write_wrapped(out, summary, number, SUMMARY_INDENT, width);
        const struct analysis_wait *wait = largest_wait(result, total->cause);
        if (wait)
            report_write_wrapped(out, wait->evidence, "       ", EVIDENCE_INDENT, width);
    }
}

/* A saving as a share of the what-if's base, "-12%", "-0.4%", "<0.1%": a real saving never
 * reads as 0%. */
static void saving_share(char *out, size_t size, int64_t saving, int64_t base)
{
    double share = base > 0 ? 100.0 * (double)saving / (double)base : 0.0;
    if (share >= 9.95)
        snprintf(out, size, "-%.0f%%", share);
    else if (share >= 0.05)
        snprintf(out, size, "-%.1f%%", share);
    else
        snprintf(out, size, "<0.1%%");
}

/* "; per device 151 ms to 159 ms": the smallest and the largest of the devices' own savings from fix,
 * appended to a summed figure's share. */
static void append_device_range(char *share, size_t size, const struct analysis_result *result,
                                enum analysis_fix fix)
{
    int64_t low = INT64_MAX, high = 0;
    for (size_t d = 0; d < result->device_count; d++) {
        int64_t saving = result->devices[d].fix_saving_ns[fix];
        low = saving < low ? saving : low;
        high = saving > high ? saving : high;
    }
    char first[32], last[32];
    size_t used = strlen(share);
    units_format_duration(first, sizeof first, low);
    units_format_duration(last, sizeof last, high);
    if (low == high)
        snprintf(share + used, size - used, "; %s per device", first);
    else
        snprintf(share + used, size - used, "; per device %s to %s", first, last);
}

/* "; the 1001 calls took 10.2 ms: 3.1 ms waiting for the GPU's work, 7.1 ms on the host" of a
 * remove-host-sync what-if: how much of what the fix removes was a wait the GPU's work set, and how
 * much the calls' own host time, which a faster GPU would not shorten (docs/metrics.md); then
 * ", and 5.2 ms in the library functions around them" where the trace timed their wrappers. */
static void sync_split(char *text, size_t size, const struct analysis_what_if *item)
{
    char took[32], wait[32], host[32], wrapper[32];
    units_format_duration(took, sizeof took, item->sync_wait_ns + item->sync_host_ns);
    units_format_duration(wait, sizeof wait, item->sync_wait_ns);
    units_format_duration(host, sizeof host, item->sync_host_ns);
    units_format_duration(wrapper, sizeof wrapper, item->sync_wrapper_ns);
    int used =
        snprintf(text, size, "; the %lld call%s took %s: %s waiting for the GPU's work, %s on the host",
                 (long long)item->sync_calls, item->sync_calls == 1 ? "" : "s", took, wait, host);
    if (item->sync_wrapper_ns > 0 && used > 0 && (size_t)used < size)
        snprintf(text + used, size - (size_t)used, ", and %s more in the library functions around them",
                 wrapper);
}

/* The what-if replay's prediction per fix (docs/metrics.md, "What-if"), as a share of the span
 * (analysis_what_if_base_ns). */
static void what_if_lines(FILE *out, const struct analysis_result *result, int markdown, int width)
{
    if (result->what_if_count == 0)
        return;
    int64_t base = analysis_what_if_base_ns(result), span = analysis_spans_ns(result);
    fprintf(out, markdown ? "\n### What if\n\n" : "\nwhat if (the recorded work replayed with the fix):\n");
    if (result->device_count > 1) {
        /* The figures add the devices' savings up (docs/metrics.md, "What-if"): on a job of two
         * ranks of 271 ms each, "-310 ms" reads as impossible unless the reader is told. */
        char line[256];
        snprintf(line, sizeof line,
                 "(summed over the %zu devices, each replayed alone; then per device: ranks that "
                 "wait for each other at collectives gain about the smallest, not the sum)",
                 result->device_count);
        if (markdown)
            fprintf(out, "%s\n\n", line);
        else
            report_write_wrapped(out, line, "  ", 2, width);
    }
    if (base != span) {
        char replayed[32], line[256];
        units_format_duration(replayed, sizeof replayed, base);
        snprintf(line, sizeof line,
                 "(percentages of the %s replayed: the whole operations the selection met, some "
                 "reaching outside it)",
                 replayed);
        if (markdown)
            fprintf(out, "%s\n\n", line);
        else
            report_write_wrapped(out, line, "  ", 2, width);
    }
    for (size_t i = 0; i < result->what_if_count; i++) {
        const struct analysis_what_if *item = &result->what_if[i];
        char saving[32], share[80], gain[224], line[576];
        units_format_duration(saving, sizeof saving, item->predicted_saving_ns);
        saving_share(share, sizeof share, item->predicted_saving_ns, base);
        if (result->device_count > 1)
            append_device_range(share, sizeof share, result, item->fix);
        enum analysis_bound bound = analysis_what_if_bound(item);
        if (bound == ANALYSIS_BOUND_SIDE_BY_SIDE) {
            char together[32];
            units_format_duration(together, sizeof together, item->newly_together_ns);
            snprintf(gain, sizeof gain,
                     "up to -%s (%s): kernels newly side by side for %s, at their alone speed", saving, share,
                     together);
        } else if (bound == ANALYSIS_BOUND_ALL_HOST_WORK && item->host_work_ns >= item->predicted_saving_ns) {
            snprintf(gain, sizeof gain,
                     "up to -%s (%s): with all the host's own work gone, the loop's own between launches "
                     "as well as any loading",
                     saving, share);
        } else if (bound == ANALYSIS_BOUND_ALL_HOST_WORK) {
            char work[32];
            units_format_duration(work, sizeof work, item->host_work_ns);
            snprintf(gain, sizeof gain, "up to -%s (%s): %s of it with all the host's own work gone", saving,
                     share, work);
        } else if (bound == ANALYSIS_BOUND_SUSTAINED) {
            snprintf(gain, sizeof gain,
                     "up to -%s (%s): the GPU then computes without a break, at its recorded speed, where "
                     "sustained load lowers its clocks",
                     saving, share);
        } else if (item->predicted_saving_ns > 0) {
            snprintf(gain, sizeof gain, "-%s (%s)", saving, share);
        } else {
            snprintf(gain, sizeof gain, "no gain");
        }
        char calls[224] = "";
        if (item->fix == ANALYSIS_FIX_REMOVE_HOST_SYNC && item->sync_calls > 0)
            sync_split(calls, sizeof calls, item);
        snprintf(line, sizeof line, "%s: %s%s%s", analysis_fix_title(item->fix), gain,
                 item->by_design ? " [by design: the program asked for it]" : "", calls);
        if (markdown) {
            fputs("- ", out);
            text_safe_fputs(line, TEXT_SAFE_MARKDOWN, out); /* "(<0.1%)" */
            fputc('\n', out);
        } else {
            report_write_wrapped(out, line, "  ", 4, width);
        }
    }
}

/* The price of overlap (docs/metrics.md, "Overlap cost"): the totals, then the top families. */
static void overlap_cost_lines(FILE *out, const struct analysis_result *result, size_t top, int markdown,
                               int width)
{
    if (result->total_overlap_saved_ns == 0 && result->overlap_cost_count == 0)
        return;
    char cost[32], saved[32], net[32];
    units_format_duration(cost, sizeof cost, result->total_overlap_cost_ns);
    units_format_duration(saved, sizeof saved, result->total_overlap_saved_ns);
    units_format_duration(net, sizeof net, result->total_overlap_net_ns);
    if (markdown) {
        fprintf(out, "\n### Overlap cost: %s (overlap saved %s, net %s)\n\n", cost, saved, net);
    } else {
        char line[256];
        snprintf(
            line, sizeof line,
            "overlap cost (overlapped kernels against the same kernel alone): %s; overlap saved %s, net %s",
            cost, saved, net);
        fputc('\n', out);
        report_write_wrapped(out, line, "", 2, width);
    }
    if (markdown && result->overlap_cost_count > 0)
        fputs("| device | kernel family | overlapped runs | cost | alone |\n|---|---|---:|---:|---:|\n", out);
    for (size_t i = 0; i < result->overlap_cost_count && i < top; i++) {
        const struct analysis_overlap_cost *row = &result->overlap_costs[i];
        const struct analysis_device *device = &result->devices[row->device];
        char process[32], alone[32];
        naming_process(process, sizeof process, device->rank, device->pid, device->process_id);
        units_format_duration(cost, sizeof cost, row->cost_ns < 0 ? -row->cost_ns : row->cost_ns);
        units_format_duration(alone, sizeof alone, row->alone_ns);
        double share = row->alone_ns > 0 ? 100.0 * (double)row->cost_ns / (double)row->alone_ns : 0.0;
        if (!markdown) {
            char line[512];
            snprintf(line, sizeof line,
                     "%s device %" PRId64 ": %s, %" PRId64 " runs, %s%s (%+.0f%%) vs %s alone", process,
                     device->device_id, row->family, row->overlapped_count, row->cost_ns < 0 ? "-" : "+",
                     cost, share, alone);
            report_write_wrapped(out, line, "  ", 4, width);
            continue;
        }
        fprintf(out, "| %s device %" PRId64 " | ", process, device->device_id);
        text_safe_fputs(row->family, TEXT_SAFE_MARKDOWN, out);
        fprintf(out, " | %" PRId64 " | %s%s (%+.0f%%) | %s |\n", row->overlapped_count,
                row->cost_ns < 0 ? "-" : "+", cost, share, alone);
    }
}

/* Each wait on one line, or under a hanging indent past its loss when it is longer. */
static void text_waits(FILE *out, const struct analysis_result *result, size_t top, int width)
{
    if (result->wait_count == 0)
        return;
    fprintf(out, "\nlargest waits:\n");
    size_t shown = result->wait_count < top ? result->wait_count : top;
    int lost_width = 0;
    for (size_t i = 0; i < shown; i++) {
        char lost[32];
        int length = (int)strlen(units_format_duration(lost, sizeof lost, result->waits[i].lost_ns));
        lost_width = length > lost_width ? length : lost_width;
    }
    int indent = 2 + lost_width + 2;
    for (size_t i = 0; i < shown; i++) {
        const struct analysis_wait *wait = &result->waits[i];
        const struct analysis_lane *waiting = &result->lanes[wait->waiting.lane];
        const struct analysis_lane *blocking = &result->lanes[wait->blocking.lane];
        char lost[32], at[32], process[32], prefix[48], line[2048];
        snprintf(prefix, sizeof prefix, "  %-*s  ", lost_width,
                 units_format_duration(lost, sizeof lost, wait->lost_ns));
        char *source = wait->source[0] ? text_layout_source(wait->source, width - indent - 3) : NULL;
        snprintf(
            line, sizeof line,
            "%s device %" PRId64 " at +%s: %s (stream %" PRId64 ") after %s (stream %" PRId64 ") [%s]%s%s",
            naming_process(process, sizeof process, waiting->rank, waiting->pid, waiting->process_id),
            waiting->device_id, units_format_duration(at, sizeof at, wait->wait_end_ns - result->origin_ns),
            wait->waiting.name, waiting->stream_id, wait->blocking.name, blocking->stream_id,
            analysis_cause_tag(wait->cause), source ? " at " : "", source ? source : "");
        report_write_wrapped(out, line, prefix, indent, width);
        free(source);
    }
}

/* A run whose steps are a small part of it (torch.compile's compilation, a long set-up: 97% of a
 * compiled MLP's 12.4 s before its first step) reads "busy 0.5%" over the whole span (--all): said,
 * with the way back to the steps. Only for the whole run (the steady state or a selection chose its
 * time otherwise). */
static void outside_steps_note(FILE *out, const struct analysis_result *result, int markdown, int width)
{
    double outside_ms = 0;
    int64_t span = analysis_spans_ns(result), first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < result->step_count; i++) {
        first = result->steps[i].start_ns < first ? result->steps[i].start_ns : first;
        last = result->steps[i].end_ns > last ? result->steps[i].end_ns : last;
    }
    if (result->selection.time_restricted || result->step_count == 0 || span <= 0 || last <= first ||
        report_metric_value(result, "idle_step_boundary_ms", &outside_ms) != 0 ||
        outside_ms * 1e6 < 0.5 * (double)span)
        return;
    char line[320];
    snprintf(line, sizeof line,
             "%.0f%% of the span is GPU idle outside every step (set-up, compilation, warm-up): "
             "without --all the report looks at the steps alone",
             100.0 * outside_ms * 1e6 / (double)span);
    if (markdown)
        fprintf(out, "\n%s\n", line);
    else {
        fprintf(out, "\n");
        report_write_wrapped(out, line, "", 2, width);
    }
}

int report_write_text(FILE *out, const struct analysis_result *result, const struct report_context *context)
{
    int width = context && context->width > 0 ? context->width : 80;
    report_write_wrapped(out, context && context->trace_path ? context->trace_path : "trace",
                         "overlapscope report: ", 2, width);
    text_selection(out, result, context, width);
    char left_out[512];
    if (describe_left_out(result, TEXT_SAFE_TERMINAL, left_out, sizeof left_out)[0])
        report_write_wrapped(out, left_out, "", 2, width);
    fprintf(out, "\n");
    int summarized = report_world_summarized(result, context);
    if (summarized)
        report_world_overview(out, result, 0, width);
    else
        text_table(out, result, width);
    outside_steps_note(out, result, 0, width);
    if (summarized)
        report_world_streams(out, result, width);
    else
        text_streams(out, result, width);
    text_causes(out, result, top_of(context), width);
    what_if_lines(out, result, 0, width);
    overlap_cost_lines(out, result, top_of(context), 0, width);
    text_waits(out, result, top_of(context), width);
    report_accounting_text(out, result, top_of(context), 0, width, summarized);
    return ferror(out) ? -1 : 0;
}

/* One row per rank and device. */
static void markdown_table(FILE *out, const struct analysis_result *result)
{
    char cells[COLUMN_COUNT][CELL_SIZE];
    const char *titles[COLUMN_COUNT];
    column_titles(titles);
    fprintf(out, "|");
    for (int c = 0; c < COLUMN_COUNT; c++)
        fprintf(out, " %s |", titles[c]);
    fprintf(out, "\n|");
    for (int c = 0; c < COLUMN_COUNT; c++)
        fprintf(out, "%s|", c < 2 ? "---" : "---:");
    fprintf(out, "\n");
    for (size_t i = 0; i < result->device_count; i++) {
        device_cells(&result->devices[i], cells);
        fprintf(out, "|");
        for (int c = 0; c < COLUMN_COUNT; c++)
            fprintf(out, " %s |", cells[c]);
        fprintf(out, "\n");
    }
}

int report_write_markdown(FILE *out, const struct analysis_result *result,
                          const struct report_context *context)
{
    char lost[32], headroom[32];
    fputs("## overlapscope report: ", out);
    text_safe_markdown_code(context && context->trace_path ? context->trace_path : "trace", out);
    fputs("\n\n", out);
    describe_selection(out, result, context, TEXT_SAFE_MARKDOWN);
    char left_out[512];
    if (describe_left_out(result, TEXT_SAFE_MARKDOWN, left_out, sizeof left_out)[0])
        fprintf(out, "\n%s\n", left_out);
    fprintf(out, "\n");
    if (report_world_summarized(result, context))
        report_world_overview(out, result, 1, 0);
    else
        markdown_table(out, result);
    outside_steps_note(out, result, 1, 0);
    fprintf(out, "\n### Missed overlaps: %" PRId64 " wait%s, %s lost, headroom %s\n\n",
            result->wait_total_count, result->wait_total_count == 1 ? "" : "s",
            units_format_duration(lost, sizeof lost, result->total_lost_ns),
            units_format_duration(headroom, sizeof headroom, result->total_headroom_ns));
    if (result->wait_total_count == 0) {
        what_if_lines(out, result, 1, 0);
        overlap_cost_lines(out, result, top_of(context), 1, 0);
        report_accounting_text(out, result, top_of(context), 1, 0, report_world_summarized(result, context));
        return ferror(out) ? -1 : 0;
    }
    fprintf(out, "| cause | lost | waits | largest: evidence | what to do |\n|---|---:|---:|---|---|\n");
    size_t shown = 0;
    for (int i = 0; i < ANALYSIS_CAUSE_COUNT && shown < top_of(context); i++) {
        const struct analysis_cause_total *total = &result->causes[i];
        if (total->count == 0)
            continue;
        shown++;
        fputs("| ", out);
        text_safe_fputs(analysis_cause_title(total->cause), TEXT_SAFE_MARKDOWN, out);
        fprintf(out, " | %s | %" PRId64 " | ", units_format_duration(lost, sizeof lost, total->lost_ns),
                total->count);
        const struct analysis_wait *wait = largest_wait(result, total->cause);
        text_safe_fputs(wait ? wait->evidence : "", TEXT_SAFE_MARKDOWN, out);
        if (wait && wait->source[0]) {
            char *source = call_source_readable(wait->source, CALL_SOURCE_FULL);
            fputs(" (launched at ", out);
            text_safe_fputs(source ? source : wait->source, TEXT_SAFE_MARKDOWN, out);
            fputc(')', out);
            free(source);
        }
        /* The advice is the tool's own text, escaped all the same: it names calls ("torch.cuda.Stream",
         * "__init__") that Markdown could read as markup. */
        fputs(" | ", out);
        text_safe_fputs(analysis_cause_advice(total->cause), TEXT_SAFE_MARKDOWN, out);
        fputs(" (see ", out);
        text_safe_fputs(analysis_cause_advice_source(total->cause), TEXT_SAFE_MARKDOWN, out);
        fputs(") |\n", out);
    }
    what_if_lines(out, result, 1, 0);
    overlap_cost_lines(out, result, top_of(context), 1, 0);
    report_accounting_text(out, result, top_of(context), 1, 0, report_world_summarized(result, context));
    return ferror(out) ? -1 : 0;
}
