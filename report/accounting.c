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

void report_accounting_text(FILE *out, const struct analysis_result *result, size_t top, int markdown,
                            int width)
{
    fprintf(out, markdown ? "\n### Idle time and exposed communication\n"
                          : "\nidle time and exposed communication:\n");
    for (size_t i = 0; i < result->accounting_count; i++) {
        const struct analysis_accounting *accounting = &result->accountings[i];
        if (accounting->step >= 0)
            continue;
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
    /* What the trace lacks, said rather than guessed. */
    for (size_t i = 0; i < result->unchecked_count; i++) {
        const struct accounting_unchecked *item = &result->unchecked[i];
        const struct analysis_device *device = &result->devices[item->device];
        char process[32];
        naming_process(process, sizeof process, device->rank, device->pid, device->process_id);
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
