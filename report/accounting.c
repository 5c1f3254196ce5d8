/* accounting.c: the idle-time and exposed-communication breakdowns (analyzer/accounting.h) in
 * the reports: JSON objects per device and per step (docs/report-json.md), the text and Markdown
 * sections, and the per-cause metrics of check and diff (docs/overlapscope-check.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounting_report.h"
#include "call_source.h"
#include "naming.h"
#include "text_layout.h"
#include "text_safe.h"
#include "text_wrap.h"
#include "units.h"
#include "world.h"
#include "writer.h"

/* --- JSON --- */

static cJSON *breakdown_json(const struct accounting_breakdown *breakdown)
{
    cJSON *object = cJSON_CreateObject();
    cJSON_AddNumberToObject(object, "ns", (double)breakdown->ns);
    cJSON *causes = cJSON_AddArrayToObject(object, "causes");
    for (size_t i = 0; i < breakdown->entry_count; i++) {
        const struct accounting_entry *entry = &breakdown->entries[i];
        cJSON *cause = cJSON_CreateObject();
        cJSON_AddStringToObject(cause, "cause", accounting_cause_tag(entry->cause));
        cJSON_AddStringToObject(cause, "title", accounting_cause_title(entry->cause));
        report_json_add_text(cause, "label", entry->label);
        cJSON_AddNumberToObject(cause, "ns", (double)entry->ns);
        cJSON_AddNumberToObject(cause, "count", (double)entry->count);
        report_json_add_text(cause, "evidence", entry->evidence);
        report_json_add_source(cause, entry->source);
        cJSON_AddItemToArray(causes, cause);
    }
    return object;
}

void report_accounting_json(cJSON *root, cJSON *devices, const struct analysis_result *result)
{
    cJSON *steps = cJSON_AddArrayToObject(root, "step_accounting");
    for (size_t i = 0; i < result->accounting_count; i++) {
        const struct analysis_accounting *accounting = &result->accountings[i];
        cJSON *target = NULL;
        if (accounting->step < 0) {
            target = cJSON_GetArrayItem(devices, (int)accounting->device);
        } else {
            const struct analysis_device *device = &result->devices[accounting->device];
            target = cJSON_CreateObject();
            cJSON_AddNumberToObject(target, "step", (double)accounting->step);
            cJSON_AddNumberToObject(target, "rank", (double)device->rank);
            cJSON_AddNumberToObject(target, "pid", (double)device->pid);
            cJSON_AddNumberToObject(target, "device_id", (double)device->device_id);
            cJSON_AddItemToArray(steps, target);
        }
        if (!target)
            continue;
        cJSON_AddItemToObject(target, "idle", breakdown_json(&accounting->idle));
        cJSON_AddItemToObject(target, "exposed_communication",
                              breakdown_json(&accounting->exposed_communication));
        if (accounting->step < 0)
            cJSON_AddItemToObject(target, "exposed_copy", breakdown_json(&accounting->exposed_copy));
    }
    cJSON *instances = cJSON_AddArrayToObject(root, "collective_instances");
    for (size_t i = 0; i < result->collective_instance_count; i++) {
        const struct accounting_instance *item = &result->collective_instances[i];
        cJSON *object = cJSON_CreateObject();
        report_json_add_text(object, "op", item->op);
        report_json_add_text(object, "communicator", item->communicator);
        cJSON_AddNumberToObject(object, "instance", (double)item->instance);
        cJSON_AddBoolToObject(object, "by_order", item->by_order);
        cJSON_AddNumberToObject(object, "ranks", (double)item->ranks);
        cJSON *late = cJSON_AddObjectToObject(object, "last");
        cJSON_AddNumberToObject(late, "rank", (double)item->last_rank);
        cJSON_AddNumberToObject(late, "pid", (double)item->last_pid);
        cJSON_AddNumberToObject(late, "device_id", (double)item->last_device_id);
        cJSON_AddNumberToObject(object, "skew_ns", (double)item->skew_ns);
        cJSON_AddNumberToObject(object, "transfer_ns", (double)item->transfer_ns);
        if (item->bytes != STORE_NULL)
            cJSON_AddNumberToObject(object, "bytes", (double)item->bytes);
        else
            cJSON_AddNullToObject(object, "bytes");
        cJSON_AddItemToArray(instances, object);
    }
    cJSON_AddBoolToObject(root, "call_sources", result->call_sources_known);
    cJSON *unchecked = cJSON_AddArrayToObject(root, "unchecked");
    for (size_t i = 0; i < result->unchecked_count; i++) {
        const struct accounting_unchecked *item = &result->unchecked[i];
        const struct analysis_device *device = &result->devices[item->device];
        cJSON *object = cJSON_CreateObject();
        cJSON_AddNumberToObject(object, "rank", (double)device->rank);
        cJSON_AddNumberToObject(object, "pid", (double)device->pid);
        cJSON *causes = cJSON_AddArrayToObject(object, "causes");
        char tags[sizeof item->causes];
        snprintf(tags, sizeof tags, "%s", item->causes);
        for (char *save = NULL, *tag = strtok_r(tags, ", ", &save); tag; tag = strtok_r(NULL, ", ", &save))
            cJSON_AddItemToArray(causes, cJSON_CreateString(tag));
        cJSON_AddStringToObject(object, "missing", item->missing);
        cJSON_AddStringToObject(object, "record", item->record);
        cJSON_AddItemToArray(unchecked, object);
    }
    const struct accounting_straggler *straggler = &result->straggler;
    if (straggler->rank < 0) {
        cJSON_AddNullToObject(root, "straggler");
        return;
    }
    cJSON *object = cJSON_AddObjectToObject(root, "straggler");
    cJSON_AddNumberToObject(object, "rank", (double)straggler->rank);
    cJSON_AddNumberToObject(object, "late_count", (double)straggler->late_count);
    cJSON_AddNumberToObject(object, "instance_count", (double)straggler->instance_count);
    cJSON_AddNumberToObject(object, "late_ns", (double)straggler->late_ns);
    report_json_add_text(object, "evidence", straggler->evidence);
    cJSON_AddBoolToObject(object, "load_imbalance", straggler->load_imbalance);
    if (straggler->load_imbalance) {
        cJSON_AddNumberToObject(object, "compute_ns", (double)straggler->compute_ns);
        cJSON_AddNumberToObject(object, "peer_compute_ns", (double)straggler->peer_compute_ns);
        cJSON_AddNumberToObject(object, "mean_compute_ns", (double)straggler->mean_compute_ns);
    }
}

/* --- text and Markdown --- */

static void device_name(const struct analysis_device *device, char *buffer, size_t size)
{
    char process[32];
    snprintf(buffer, size, "%s device %" PRId64,
             naming_process(process, sizeof process, device->rank, device->pid, device->process_id),
             device->device_id);
}

/* The evidence under its cause line, wrapped two columns deeper than the cause. */
#define ACCOUNTING_EVIDENCE_INDENT 6
/* A cause line: "    host-sync      cudaMalloc          541 us   1x", the tag's column as wide as
 * the longest tag ("behind-compute"). */
#define ACCOUNTING_ENTRY_INDENT 4
#define ACCOUNTING_TAG_WIDTH 14
/* The label's column is never narrower, however narrow the terminal. */
#define ACCOUNTING_MIN_LABEL 16

/* The widths of a breakdown's cause lines: its labels' column fits the longest label shown, or
 * what the terminal leaves; time and count are right-aligned. */
struct entry_layout {
    int label, time, count, width;
};

static struct entry_layout entry_layout(const struct accounting_breakdown *breakdown, size_t top, int width)
{
    struct entry_layout layout = {0, 0, 0, width};
    for (size_t i = 0; i < breakdown->entry_count && i < top; i++) {
        const struct accounting_entry *entry = &breakdown->entries[i];
        char label[160], ns[32], count[32];
        text_safe_copy(label, sizeof label, entry->label, TEXT_SAFE_TERMINAL);
        int label_columns = text_wrap_columns(label, strlen(label));
        int time = (int)strlen(units_format_duration(ns, sizeof ns, entry->ns));
        int times = snprintf(count, sizeof count, "%" PRId64 "x", entry->count);
        layout.label = label_columns > layout.label ? label_columns : layout.label;
        layout.time = time > layout.time ? time : layout.time;
        layout.count = times > layout.count ? times : layout.count;
    }
    int room =
        width - (ACCOUNTING_ENTRY_INDENT + ACCOUNTING_TAG_WIDTH + 1 + 2 + layout.time + 2 + layout.count);
    if (layout.label > room)
        layout.label = room > ACCOUNTING_MIN_LABEL ? room : ACCOUNTING_MIN_LABEL;
    return layout;
}

/* The lines of a label after its first, under its column. */
static void label_rest(FILE *out, const char *rest, int label_width)
{
    for (rest = text_wrap_skip_spaces(rest); *rest; rest = text_wrap_skip_spaces(rest)) {
        const char *end = text_wrap_line_end(rest, label_width);
        fprintf(out, "\n%*s", ACCOUNTING_ENTRY_INDENT + ACCOUNTING_TAG_WIDTH + 1, "");
        text_wrap_put(out, rest, end);
        rest = end;
    }
}

/* "at SOURCE" on a line of its own starts here, its continuation 3 columns deeper. */
#define ACCOUNTING_SOURCE_INDENT (ACCOUNTING_EVIDENCE_INDENT + 3)

/* The cause line, its label wrapped in its column when longer; then where in the program, after
 * the figures when it fits, else on a line of its own; then the evidence. */
static void entry_text(FILE *out, const struct accounting_entry *entry, const struct entry_layout *layout)
{
    char ns[32], count[32];
    units_format_duration(ns, sizeof ns, entry->ns);
    snprintf(count, sizeof count, "%" PRId64 "x", entry->count);
    char *label = text_safe_dup(entry->label, TEXT_SAFE_TERMINAL);
    const char *first = text_wrap_skip_spaces(label ? label : "");
    const char *end = text_wrap_line_end(first, layout->label);
    fprintf(out, "%*s%-*s ", ACCOUNTING_ENTRY_INDENT, "", ACCOUNTING_TAG_WIDTH,
            accounting_cause_tag(entry->cause));
    int label_columns = text_wrap_put(out, first, end);
    fprintf(out, "%*s  %*s  %*s", layout->label - label_columns, "", layout->time, ns, layout->count, count);
    int used = ACCOUNTING_ENTRY_INDENT + ACCOUNTING_TAG_WIDTH + 1 + layout->label + 2 + layout->time + 2 +
               layout->count;
    char *source = NULL;
    int own_line = 0;
    if (entry->source[0]) {
        source = text_layout_source(entry->source, layout->width - used - 5);
        own_line = source && used + 5 + text_wrap_columns(source, strlen(source)) > layout->width;
        if (own_line) {
            free(source);
            source = text_layout_source(entry->source, layout->width - ACCOUNTING_SOURCE_INDENT);
        }
    }
    if (source && !own_line)
        fprintf(out, "  at %s", source);
    label_rest(out, end, layout->label);
    fputc('\n', out);
    if (source && own_line)
        text_wrap_write(out, source, "      at ", ACCOUNTING_SOURCE_INDENT, layout->width);
    free(source);
    free(label);
    report_write_wrapped(out, entry->evidence, "      ", ACCOUNTING_EVIDENCE_INDENT, layout->width);
}

static void entry_markdown(FILE *out, const struct accounting_entry *entry)
{
    char ns[32];
    units_format_duration(ns, sizeof ns, entry->ns);
    fprintf(out, "| %s | ", accounting_cause_tag(entry->cause));
    text_safe_fputs(entry->label, TEXT_SAFE_MARKDOWN, out);
    fprintf(out, " | %s | %" PRId64 " | ", ns, entry->count);
    char *source = call_source_readable(entry->source, CALL_SOURCE_FULL);
    text_safe_fputs(source ? source : entry->source, TEXT_SAFE_MARKDOWN, out);
    free(source);
    fputs(" | ", out);
    text_safe_fputs(entry->evidence, TEXT_SAFE_MARKDOWN, out);
    fputs(" |\n", out);
}

static void breakdown_text(FILE *out, const char *what, const char *device,
                           const struct accounting_breakdown *breakdown, int64_t span_ns, size_t top,
                           int markdown, int width)
{
    char total[32], span[32];
    units_format_duration(total, sizeof total, breakdown->ns);
    units_format_duration(span, sizeof span, span_ns);
    if (markdown) {
        fprintf(out,
                "\n**%s %s on %s** (span %s)\n\n| cause | what | time | count | source | evidence |\n"
                "|---|---|---:|---:|---|---|\n",
                what, total, device, span);
        for (size_t i = 0; i < breakdown->entry_count && i < top; i++)
            entry_markdown(out, &breakdown->entries[i]);
        return;
    }
    char line[256];
    snprintf(line, sizeof line, "%s %s on %s (span %s):", what, total, device, span);
    report_write_wrapped(out, line, "  ", ACCOUNTING_ENTRY_INDENT, width);
    struct entry_layout layout = entry_layout(breakdown, top, width);
    for (size_t i = 0; i < breakdown->entry_count && i < top; i++)
        entry_text(out, &breakdown->entries[i], &layout);
    if (breakdown->entry_count > top)
        fprintf(out, "    ... %zu more (report --json lists all)\n", breakdown->entry_count - top);
}

/* "host-cpu 0.90 ms, step-start 0.20 ms": a breakdown's largest causes, by tag. */
static void top_causes(char *text, size_t size, const struct accounting_breakdown *breakdown, size_t count)
{
    text[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < breakdown->entry_count && i < count && used + 1 < size; i++) {
        char ns[32];
        units_format_duration(ns, sizeof ns, breakdown->entries[i].ns);
        int written = snprintf(text + used, size - used, "%s%s %s", i ? ", " : "",
                               accounting_cause_tag(breakdown->entries[i].cause), ns);
        used += written > 0 ? (size_t)written : 0;
    }
}

/* Each step of the device, in step order (at most top; JSON lists all): its idle time and exposed
 * communication with their two largest causes. */
static void steps_text(FILE *out, const struct analysis_result *result, size_t device, size_t top,
                       int markdown, int width)
{
    size_t shown = 0, total = 0;
    int number_width = 0;
    for (size_t i = 0; i < result->accounting_count; i++) {
        const struct analysis_accounting *step = &result->accountings[i];
        char number[32];
        if (step->device == device && step->step >= 0 && total++ < top) {
            int length = snprintf(number, sizeof number, "%" PRId64, step->step);
            number_width = length > number_width ? length : number_width;
        }
    }
    if (total == 0)
        return;
    if (markdown)
        fputs("\n| step | idle | largest idle causes | exposed communication | largest causes |\n"
              "|---:|---:|---|---:|---|\n",
              out);
    else
        report_write_wrapped(out, "per step (idle and exposed communication, each with its largest causes):",
                             "    ", ACCOUNTING_EVIDENCE_INDENT, width);
    for (size_t i = 0; i < result->accounting_count && shown < top; i++) {
        const struct analysis_accounting *step = &result->accountings[i];
        if (step->device != device || step->step < 0)
            continue;
        shown++;
        char idle[32], exposed[32], idle_causes[160], exposed_causes[160];
        units_format_duration(idle, sizeof idle, step->idle.ns);
        units_format_duration(exposed, sizeof exposed, step->exposed_communication.ns);
        top_causes(idle_causes, sizeof idle_causes, &step->idle, 2);
        top_causes(exposed_causes, sizeof exposed_causes, &step->exposed_communication, 2);
        if (markdown) {
            fprintf(out, "| %" PRId64 " | %s | %s | %s | %s |\n", step->step, idle, idle_causes, exposed,
                    exposed_causes);
            continue;
        }
        /* "step 3  idle 1.20 ms (host-cpu 0.90 ms, step-start 0.20 ms); exposed 0 ns", the causes
         * wrapped under "idle" */
        char prefix[64], idle_part[256], exposed_part[256], line[512];
        int indent = snprintf(prefix, sizeof prefix, "      step %-*" PRId64 "  ", number_width, step->step);
        snprintf(idle_part, sizeof idle_part, "idle %s%s%s%s", idle, idle_causes[0] ? " (" : "", idle_causes,
                 idle_causes[0] ? ")" : "");
        snprintf(exposed_part, sizeof exposed_part, "exposed %s%s%s%s", exposed,
                 exposed_causes[0] ? " (" : "", exposed_causes, exposed_causes[0] ? ")" : "");
        snprintf(line, sizeof line, "%s; %s", idle_part, exposed_part);
        /* one line when it fits, else idle and exposed communication each on their own */
        if (indent + text_wrap_columns(line, strlen(line)) <= width) {
            report_write_wrapped(out, line, prefix, indent, width);
        } else {
            report_write_wrapped(out, idle_part, prefix, indent, width);
            snprintf(prefix, sizeof prefix, "%*s", indent, "");
            report_write_wrapped(out, exposed_part, prefix, indent, width);
        }
    }
    if (total > shown)
        fprintf(out,
                markdown ? "\n%zu more steps (report --json lists all).\n"
                         : "      ... %zu more steps (report --json lists all)\n",
                total - shown);
}

/* A device's idle, exposed communication and exposed copy, each by cause, then its steps. */
static void device_breakdowns(FILE *out, const struct analysis_result *result,
                              const struct analysis_accounting *accounting, size_t top, int markdown,
                              int width)
{
    const struct analysis_device *device = &result->devices[accounting->device];
    char name[64];
    device_name(device, name, sizeof name);
    int64_t span = device->busy_ns + device->idle_ns;
    if (accounting->idle.ns > 0)
        breakdown_text(out, "GPU idle", name, &accounting->idle, span, top, markdown, width);
    if (accounting->exposed_communication.ns > 0)
        breakdown_text(out, "exposed communication", name, &accounting->exposed_communication, span, top,
                       markdown, width);
    if (accounting->exposed_copy.ns > 0)
        breakdown_text(out, "exposed copy", name, &accounting->exposed_copy, span, top, markdown, width);
    steps_text(out, result, accounting->device, top, markdown, width);
}

/* --- the world summary (report/world.h): the causes over every device --- */

enum { KIND_COUNT = 3, WORLD_CAUSE_COLUMNS = 6 };
static const char *const kind_names[KIND_COUNT] = {"idle", "exposed comm", "exposed copy"};
static const char *const world_cause_titles[WORLD_CAUSE_COLUMNS] = {"of",      "cause",       "total",
                                                                    "devices", "most on one", "at"};

static const struct accounting_breakdown *kind_of(const struct analysis_accounting *accounting, int kind)
{
    return kind == 0   ? &accounting->idle
           : kind == 1 ? &accounting->exposed_communication
                       : &accounting->exposed_copy;
}

/* One cause of one kind over the devices. */
struct world_cause {
    int kind;
    enum accounting_cause cause;
    int64_t total_ns, most_ns;
    size_t devices, most_at;
};

/* The causes of every kind, summed per device then over the devices, largest total first within a
 * kind; returns how many (at most KIND_COUNT * ACCOUNTING_CAUSE_COUNT). */
static size_t world_causes(const struct analysis_result *result, struct world_cause *causes)
{
    size_t count = 0;
    for (int kind = 0; kind < KIND_COUNT; kind++) {
        struct world_cause *first = causes + count;
        for (int c = 0; c < ACCOUNTING_CAUSE_COUNT; c++)
            first[c] = (struct world_cause){.kind = kind, .cause = (enum accounting_cause)c};
        for (size_t i = 0; i < result->accounting_count; i++) {
            const struct analysis_accounting *accounting = &result->accountings[i];
            if (accounting->step >= 0)
                continue;
            int64_t on_device[ACCOUNTING_CAUSE_COUNT] = {0};
            const struct accounting_breakdown *breakdown = kind_of(accounting, kind);
            for (size_t k = 0; k < breakdown->entry_count; k++)
                on_device[breakdown->entries[k].cause] += breakdown->entries[k].ns;
            for (int c = 0; c < ACCOUNTING_CAUSE_COUNT; c++) {
                if (on_device[c] <= 0)
                    continue;
                first[c].total_ns += on_device[c];
                first[c].devices++;
                if (on_device[c] > first[c].most_ns)
                    first[c].most_ns = on_device[c], first[c].most_at = accounting->device;
            }
        }
        size_t kept = 0; /* the causes with time, largest first (insertion: a few dozen) */
        for (int c = 0; c < ACCOUNTING_CAUSE_COUNT; c++) {
            if (first[c].devices == 0)
                continue;
            struct world_cause item = first[c];
            size_t at = kept++;
            for (; at > 0 && first[at - 1].total_ns < item.total_ns; at--)
                first[at] = first[at - 1];
            first[at] = item;
        }
        count += kept;
    }
    return count;
}

static void world_cause_table(FILE *out, const struct analysis_result *result, int markdown, int width)
{
    struct world_cause causes[KIND_COUNT * ACCOUNTING_CAUSE_COUNT];
    size_t count = world_causes(result, causes);
    if (count == 0)
        return;
    char(*cells)[WORLD_CAUSE_COLUMNS][32] = calloc(count, sizeof *cells);
    if (!cells)
        return;
    for (size_t i = 0; i < count; i++) {
        snprintf(cells[i][0], 32, "%s", kind_names[causes[i].kind]);
        snprintf(cells[i][1], 32, "%s", accounting_cause_tag(causes[i].cause));
        units_format_duration(cells[i][2], 32, causes[i].total_ns);
        snprintf(cells[i][3], 32, "%zu", causes[i].devices);
        units_format_duration(cells[i][4], 32, causes[i].most_ns);
        report_world_device_name(result, causes[i].most_at, cells[i][5], 32);
    }
    if (markdown) {
        fputs("\n| of | cause | total | devices | most on one | at |\n|---|---|---:|---:|---:|---|\n", out);
        for (size_t i = 0; i < count; i++)
            fprintf(out, "| %s | %s | %s | %s | %s | %s |\n", cells[i][0], cells[i][1], cells[i][2],
                    cells[i][3], cells[i][4], cells[i][5]);
    } else {
        struct text_table table = {.column_count = WORLD_CAUSE_COLUMNS,
                                   .key_count = 2,
                                   .titles = world_cause_titles,
                                   .row_count = count,
                                   .cells = &cells[0][0][0],
                                   .cell_size = 32,
                                   .indent = 2};
        text_table_write(out, &table, width);
    }
    free(cells);
}

/* The device with the most idle, exposed communication and exposed copy together (the first on a
 * tie): its breakdowns stand for the rest. NULL when no device has any. */
static const struct analysis_accounting *most_accounted(const struct analysis_result *result)
{
    const struct analysis_accounting *most = NULL;
    int64_t most_ns = 0;
    for (size_t i = 0; i < result->accounting_count; i++) {
        const struct analysis_accounting *accounting = &result->accountings[i];
        int64_t ns = accounting->idle.ns + accounting->exposed_communication.ns + accounting->exposed_copy.ns;
        if (accounting->step < 0 && ns > most_ns)
            most = accounting, most_ns = ns;
    }
    return most;
}

static int same_unchecked(const struct accounting_unchecked *a, const struct accounting_unchecked *b)
{
    return strcmp(a->causes, b->causes) == 0 && strcmp(a->missing, b->missing) == 0 &&
           strcmp(a->record, b->record) == 0;
}

/* "64 processes (rank 0, rank 1, rank 2 and 61 more)": the processes that share item i's line. */
static void unchecked_processes(const struct analysis_result *result, size_t item, char *text, size_t size)
{
    size_t count = 0, used = 0;
    char names[128] = "";
    for (size_t i = item; i < result->unchecked_count; i++) {
        if (!same_unchecked(&result->unchecked[item], &result->unchecked[i]))
            continue;
        if (count++ < 3) {
            const struct analysis_device *device = &result->devices[result->unchecked[i].device];
            char process[32];
            naming_process(process, sizeof process, device->rank, device->pid, device->process_id);
            int n = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", process);
            used += n > 0 && (size_t)n < sizeof names - used ? (size_t)n : 0;
        }
    }
    if (count == 1)
        snprintf(text, size, "%s", names);
    else if (count <= 3)
        snprintf(text, size, "%zu processes (%s)", count, names);
    else
        snprintf(text, size, "%zu processes (%s and %zu more)", count, names, count - 3);
}

/* What the trace lacks, said rather than guessed: one line per process, or in the summary one per
 * distinct line with the processes it holds for. */
static void unchecked_lines(FILE *out, const struct analysis_result *result, int summarized, int markdown,
                            int width)
{
    for (size_t i = 0; i < result->unchecked_count; i++) {
        const struct accounting_unchecked *item = &result->unchecked[i];
        int repeated = 0;
        for (size_t j = 0; summarized && !repeated && j < i; j++)
            repeated = same_unchecked(&result->unchecked[j], item);
        if (repeated)
            continue;
        char process[160];
        if (summarized) {
            unchecked_processes(result, i, process, sizeof process);
        } else {
            const struct analysis_device *device = &result->devices[item->device];
            naming_process(process, sizeof process, device->rank, device->pid, device->process_id);
        }
        if (markdown) {
            fprintf(out, "\n**Could not be checked on %s: %s.** The trace has %s. To get it: ", process,
                    item->causes, item->missing);
            text_safe_fputs(item->record, TEXT_SAFE_MARKDOWN, out);
            fputs(".\n", out);
            continue;
        }
        char line[1024];
        snprintf(line, sizeof line, "could not be checked on %s: %s: the trace has %s; to get it: %s",
                 process, item->causes, item->missing, item->record);
        report_write_wrapped(out, line, "  ", ACCOUNTING_EVIDENCE_INDENT, width);
    }
}

void report_accounting_text(FILE *out, const struct analysis_result *result, size_t top, int markdown,
                            int width, int summarized)
{
    fprintf(out, markdown ? "\n### Idle time and exposed communication\n"
                          : "\nidle time and exposed communication:\n");
    const struct analysis_accounting *most = summarized ? most_accounted(result) : NULL;
    if (summarized) {
        char line[256], name[64];
        snprintf(line, sizeof line, "by cause over the %zu devices%s%s%s", result->device_count,
                 most ? "; then the one with the most, " : "",
                 most ? report_world_device_name(result, most->device, name, sizeof name) : "",
                 most ? " (report --rank N shows another's)" : "");
        if (markdown)
            fprintf(out, "\n%s:\n", line);
        else
            report_write_wrapped(out, line, "  ", 2, width);
        world_cause_table(out, result, markdown, width);
    }
    for (size_t i = 0; i < result->accounting_count; i++) {
        const struct analysis_accounting *accounting = &result->accountings[i];
        if (accounting->step < 0 && (!summarized || accounting == most))
            device_breakdowns(out, result, accounting, top, markdown, width);
    }
    unchecked_lines(out, result, summarized, markdown, width);
    if (result->straggler.rank >= 0) {
        if (markdown) {
            fprintf(out, "\n**Straggler: rank %" PRId64 ".** ", result->straggler.rank);
            text_safe_fputs(result->straggler.evidence, TEXT_SAFE_MARKDOWN, out);
            fputc('\n', out);
            return;
        }
        char line[1024];
        snprintf(line, sizeof line, "straggler: rank %" PRId64 ": %s", result->straggler.rank,
                 result->straggler.evidence);
        report_write_wrapped(out, line, "  ", ACCOUNTING_EVIDENCE_INDENT, width);
    }
}

/* --- metrics --- */

double report_accounting_metric(const struct analysis_result *result, enum accounting_cause cause)
{
    int64_t total = 0;
    for (size_t i = 0; i < result->accounting_count; i++) {
        const struct analysis_accounting *accounting = &result->accountings[i];
        if (accounting->step >= 0)
            continue;
        const struct accounting_breakdown *breakdown = accounting_cause_is_idle(cause) ? &accounting->idle
                                                       : accounting_cause_is_copy(cause)
                                                           ? &accounting->exposed_copy
                                                           : &accounting->exposed_communication;
        for (size_t k = 0; k < breakdown->entry_count; k++)
            if (breakdown->entries[k].cause == cause)
                total += breakdown->entries[k].ns;
    }
    return (double)total / 1e6;
}
