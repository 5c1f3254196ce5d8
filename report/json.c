/* json.c: the JSON report (docs/report-json.md). Every timestamp is written relative to
 * "origin_ns" (the trace's first GPU activity), because absolute nanoseconds since 1970 do not
 * fit a JSON number (a double) exactly; origin_ns itself is written as a decimal string. */
#include <inttypes.h>
#include <stdlib.h>

#include "accounting_report.h"
#include "naming.h"
#include "report.h"
#include "store.h"
#include "version.h"
#include "world.h"
#include "writer.h"

static void add_int(cJSON *object, const char *name, int64_t value)
{
    cJSON_AddNumberToObject(object, name, (double)value);
}

/* NULL for unknown (STORE_NULL), else the time relative to the origin. */
static void add_time(cJSON *object, const char *name, int64_t value, int64_t origin_ns)
{
    if (value == STORE_NULL)
        cJSON_AddNullToObject(object, name);
    else
        add_int(object, name, value - origin_ns);
}

/* "process": the label the text report uses ("rank 3" / "pid 1685"). */
static void add_process_label(cJSON *object, int64_t rank, int64_t pid, int64_t process_id)
{
    char label[32];
    cJSON_AddStringToObject(object, "process", naming_process(label, sizeof label, rank, pid, process_id));
}

static cJSON *category_object(const int64_t values[ANALYSIS_CATEGORY_COUNT])
{
    cJSON *object = cJSON_CreateObject();
    for (int c = 0; c < ANALYSIS_CATEGORY_COUNT; c++)
        add_int(object, analysis_category_tag((enum analysis_category)c), values[c]);
    return object;
}

static cJSON *filters_json(const struct analysis_options *options)
{
    cJSON *filters = cJSON_CreateObject();
    if (!options)
        return filters;
    if (options->rank >= 0)
        add_int(filters, "rank", options->rank);
    if (options->device_id >= 0)
        add_int(filters, "device", options->device_id);
    if (options->stream_id >= 0)
        add_int(filters, "stream", options->stream_id);
    if (options->range_name)
        report_json_add_text(filters, "range", options->range_name);
    if (options->step >= 0)
        add_int(filters, "step", options->step);
    return filters;
}

static cJSON *summary_json(const struct analysis_result *result)
{
    cJSON *summary = cJSON_CreateObject();
    for (size_t i = 0; i < report_metric_count(); i++) {
        double value = 0;
        report_metric_value(result, report_metric_at(i)->name, &value);
        cJSON_AddNumberToObject(summary, report_metric_at(i)->name, value);
    }
    return summary;
}

/* The summary's metrics that read 0 only because there is nothing to measure, with the reason. */
static cJSON *unmeasured_json(const struct analysis_result *result)
{
    cJSON *unmeasured = cJSON_CreateObject();
    for (size_t i = 0; i < report_metric_count(); i++) {
        const char *why = report_metric_unmeasured(result, report_metric_at(i)->name);
        if (why)
            cJSON_AddStringToObject(unmeasured, report_metric_at(i)->name, why);
    }
    return unmeasured;
}

/* part / whole, or null when whole is 0 (not measured). */
static void add_ratio(cJSON *object, const char *name, int64_t part, int64_t whole)
{
    if (whole > 0)
        cJSON_AddNumberToObject(object, name, (double)part / (double)whole);
    else
        cJSON_AddNullToObject(object, name);
}

static cJSON *device_json(const struct analysis_device *device, int64_t origin_ns)
{
    cJSON *object = cJSON_CreateObject();
    add_int(object, "rank", device->rank);
    add_process_label(object, device->rank, device->pid, device->process_id);
    add_int(object, "pid", device->pid);
    add_int(object, "process_id", device->process_id);
    add_int(object, "device_id", device->device_id);
    report_json_add_text(object, "name", device->device_name);
    add_int(object, "sm_count", device->sm_count);
    add_time(object, "span_start_ns", device->span_start_ns, origin_ns);
    add_time(object, "span_end_ns", device->span_end_ns, origin_ns);
    add_int(object, "span_ns", device->busy_ns + device->idle_ns);
    add_int(object, "busy_ns", device->busy_ns);
    add_int(object, "idle_ns", device->idle_ns);
    cJSON *concurrency = cJSON_AddArrayToObject(object, "concurrency_ns");
    for (int k = 0; k < 4; k++)
        cJSON_AddItemToArray(concurrency, cJSON_CreateNumber((double)device->concurrency_ns[k]));
    cJSON_AddItemToObject(object, "category_busy_ns", category_object(device->category_busy_ns));
    cJSON *matrix = cJSON_AddObjectToObject(object, "category_overlap_ns");
    for (int c = 0; c < ANALYSIS_CATEGORY_COUNT; c++)
        cJSON_AddItemToObject(matrix, analysis_category_tag((enum analysis_category)c),
                              category_object(device->category_overlap_ns[c]));
    add_int(object, "communication_ns", device->communication_ns);
    add_int(object, "compute_communication_overlap_ns", device->compute_communication_overlap_ns);
    add_int(object, "exposed_communication_ns", device->exposed_communication_ns);
    add_int(object, "copy_ns", device->copy_ns);
    add_int(object, "copy_compute_overlap_ns", device->copy_compute_overlap_ns);
    add_int(object, "kernel_busy_ns", device->kernel_busy_ns);
    add_int(object, "exposed_copy_ns", device->exposed_copy_ns);
    cJSON *directions = cJSON_AddObjectToObject(object, "exposed_copy_by_direction_ns");
    for (int d = 0; d < ANALYSIS_COPY_DIRECTION_COUNT; d++)
        add_int(directions, analysis_copy_direction_tag((enum analysis_copy_direction)d),
                device->exposed_copy_direction_ns[d]);
    add_int(object, "lost_ns", device->lost_ns);
    add_int(object, "headroom_ns", device->headroom_ns);
    add_int(object, "replay_span_ns", device->replay_span_ns);
    add_int(object, "overlap_cost_ns", device->overlap_cost_ns);
    add_int(object, "overlap_saved_ns", device->overlap_saved_ns);
    add_int(object, "overlap_net_ns", device->overlap_net_ns);
    add_int(object, "overlap_untwinned_count", device->overlap_untwinned_count);
    add_int(object, "wait_count", device->wait_count);
    add_int(object, "stream_count", device->stream_count);
    add_int(object, "stream_pair_overlap_ns", device->stream_pair_overlap_ns);
    add_int(object, "stream_pair_possible_ns", device->stream_pair_possible_ns);
    add_ratio(object, "stream_overlap", device->stream_pair_overlap_ns, device->stream_pair_possible_ns);
    add_int(object, "copy_compute_possible_ns", device->copy_compute_possible_ns);
    add_ratio(object, "copy_overlap_of_possible", device->copy_compute_overlap_ns,
              device->copy_compute_possible_ns);
    return object;
}

static cJSON *lane_json(const struct analysis_lane *lane)
{
    cJSON *object = cJSON_CreateObject();
    add_int(object, "rank", lane->rank);
    add_process_label(object, lane->rank, lane->pid, lane->process_id);
    add_int(object, "pid", lane->pid);
    add_int(object, "process_id", lane->process_id);
    add_int(object, "device_id", lane->device_id);
    add_int(object, "stream_id", lane->stream_id);
    cJSON_AddStringToObject(object, "role", lane->role);
    cJSON_AddBoolToObject(object, "legacy_default", lane->is_legacy_default);
    if (lane->priority == STORE_NULL)
        cJSON_AddNullToObject(object, "priority");
    else
        add_int(object, "priority", lane->priority);
    cJSON_AddBoolToObject(object, "selected", lane->selected);
    add_int(object, "busy_ns", lane->busy_ns);
    add_int(object, "interval_count", lane->interval_count);
    cJSON_AddItemToObject(object, "category_ns", category_object(lane->category_ns));
    return object;
}

static cJSON *pair_json(const struct analysis_result *result, const struct analysis_stream_pair *pair)
{
    const struct analysis_lane *a = &result->lanes[pair->lane_a], *b = &result->lanes[pair->lane_b];
    cJSON *object = cJSON_CreateObject();
    add_int(object, "rank", a->rank);
    add_process_label(object, a->rank, a->pid, a->process_id);
    add_int(object, "device_id", a->device_id);
    add_int(object, "stream_a", a->stream_id);
    add_int(object, "stream_b", b->stream_id);
    add_int(object, "overlap_ns", pair->overlap_ns);
    add_int(object, "possible_ns", pair->possible_ns);
    return object;
}

static cJSON *op_json(const struct analysis_result *result, const struct analysis_op *op)
{
    cJSON *object = cJSON_CreateObject();
    add_int(object, "stream_id", result->lanes[op->lane].stream_id);
    report_json_add_text(object, "name", op->full_name ? op->full_name : op->name);
    report_json_add_text(object, "short_name", op->name);
    cJSON_AddStringToObject(object, "category", analysis_category_tag(op->category));
    add_time(object, "start_ns", op->start_ns, result->origin_ns);
    add_time(object, "end_ns", op->end_ns, result->origin_ns);
    add_time(object, "launch_start_ns", op->launch_start_ns, result->origin_ns);
    add_time(object, "launch_end_ns", op->launch_end_ns, result->origin_ns);
    if (op->correlation_id == STORE_NULL)
        cJSON_AddNullToObject(object, "correlation_id");
    else
        add_int(object, "correlation_id", op->correlation_id);
    return object;
}

static cJSON *wait_json(const struct analysis_result *result, const struct analysis_wait *wait)
{
    cJSON *object = cJSON_CreateObject();
    const struct analysis_lane *lane = &result->lanes[wait->waiting.lane];
    cJSON_AddStringToObject(object, "cause", analysis_cause_tag(wait->cause));
    add_int(object, "lost_ns", wait->lost_ns);
    add_int(object, "rank", lane->rank);
    add_process_label(object, lane->rank, lane->pid, lane->process_id);
    add_int(object, "device_id", lane->device_id);
    add_time(object, "wait_start_ns", wait->wait_start_ns, result->origin_ns);
    add_time(object, "wait_end_ns", wait->wait_end_ns, result->origin_ns);
    report_json_add_text(object, "evidence", wait->evidence);
    report_json_add_source(object, wait->source);
    cJSON_AddItemToObject(object, "waiting", op_json(result, &wait->waiting));
    cJSON_AddItemToObject(object, "blocking", op_json(result, &wait->blocking));
    return object;
}

static cJSON *step_json(const struct analysis_step *step, int64_t origin_ns)
{
    cJSON *object = cJSON_CreateObject();
    add_int(object, "process_id", step->process_id);
    add_int(object, "rank", step->rank);
    add_int(object, "number", step->number);
    report_json_add_text(object, "name", step->name);
    add_time(object, "start_ns", step->start_ns, origin_ns);
    add_time(object, "end_ns", step->end_ns, origin_ns);
    cJSON_AddBoolToObject(object, "on_gpu_timeline", step->on_gpu_timeline);
    return object;
}

/* Overlap cost (docs/metrics.md, "Overlap cost"): the totals and one row per device and family. */
static cJSON *overlap_cost_json(const struct analysis_result *result)
{
    cJSON *object = cJSON_CreateObject();
    add_int(object, "cost_ns", result->total_overlap_cost_ns);
    add_int(object, "saved_ns", result->total_overlap_saved_ns);
    add_int(object, "net_ns", result->total_overlap_net_ns);
    cJSON *families = cJSON_AddArrayToObject(object, "families");
    for (size_t i = 0; i < result->overlap_cost_count; i++) {
        const struct analysis_overlap_cost *row = &result->overlap_costs[i];
        const struct analysis_device *device = &result->devices[row->device];
        cJSON *family = cJSON_CreateObject();
        add_process_label(family, device->rank, device->pid, device->process_id);
        add_int(family, "device_id", device->device_id);
        cJSON_AddStringToObject(family, "family", row->family);
        add_int(family, "overlapped_count", row->overlapped_count);
        add_int(family, "overlapped_ns", row->overlapped_ns);
        add_int(family, "alone_ns", row->alone_ns);
        add_int(family, "cost_ns", row->cost_ns);
        cJSON_AddItemToArray(families, family);
    }
    return object;
}

static void add_lists(cJSON *root, const struct analysis_result *result)
{
    cJSON *devices = cJSON_AddArrayToObject(root, "devices");
    for (size_t i = 0; i < result->device_count; i++)
        cJSON_AddItemToArray(devices, device_json(&result->devices[i], result->origin_ns));
    cJSON *streams = cJSON_AddArrayToObject(root, "streams");
    for (size_t i = 0; i < result->lane_count; i++)
        cJSON_AddItemToArray(streams, lane_json(&result->lanes[i]));
    cJSON *pairs = cJSON_AddArrayToObject(root, "stream_pairs");
    for (size_t i = 0; i < result->stream_pair_count; i++)
        cJSON_AddItemToArray(pairs, pair_json(result, &result->stream_pairs[i]));
    cJSON *causes = cJSON_AddArrayToObject(root, "causes");
    for (int i = 0; i < ANALYSIS_CAUSE_COUNT; i++) {
        const struct analysis_cause_total *total = &result->causes[i];
        if (total->count == 0)
            continue;
        cJSON *cause = cJSON_CreateObject();
        cJSON_AddStringToObject(cause, "cause", analysis_cause_tag(total->cause));
        cJSON_AddStringToObject(cause, "title", analysis_cause_title(total->cause));
        add_int(cause, "lost_ns", total->lost_ns);
        add_int(cause, "count", total->count);
        cJSON_AddStringToObject(cause, "advice", analysis_cause_advice(total->cause));
        cJSON_AddStringToObject(cause, "advice_source", analysis_cause_advice_source(total->cause));
        cJSON_AddItemToArray(causes, cause);
    }
    cJSON_AddItemToObject(root, "overlap_cost", overlap_cost_json(result));
    cJSON *what_if = cJSON_AddArrayToObject(root, "what_if");
    for (size_t i = 0; i < result->what_if_count; i++) {
        const struct analysis_what_if *item = &result->what_if[i];
        cJSON *fix = cJSON_CreateObject();
        cJSON_AddStringToObject(fix, "fix", analysis_fix_tag(item->fix));
        cJSON_AddStringToObject(fix, "cause", analysis_what_if_basis(item));
        add_int(fix, "predicted_saving_ns", item->predicted_saving_ns);
        cJSON_AddBoolToObject(fix, "by_design", item->by_design);
        cJSON_AddStringToObject(fix, "assumptions", item->assumptions);
        add_int(fix, "newly_together_ns", item->newly_together_ns);
        cJSON_AddBoolToObject(fix, "upper_bound", analysis_what_if_upper_bound(item));
        add_int(fix, "host_work_ns", item->host_work_ns);
        add_int(fix, "sustained_ns", item->sustained_ns);
        add_int(fix, "sync_calls", item->sync_calls);
        add_int(fix, "sync_wait_ns", item->sync_wait_ns);
        add_int(fix, "sync_host_ns", item->sync_host_ns);
        add_int(fix, "sync_wrapper_ns", item->sync_wrapper_ns);
        /* Each device's own saving, in the devices array's order: the text's "per device" range. */
        cJSON *per_device = cJSON_AddArrayToObject(fix, "device_saving_ns");
        for (size_t d = 0; d < result->device_count; d++)
            cJSON_AddItemToArray(per_device,
                                 cJSON_CreateNumber((double)result->devices[d].fix_saving_ns[item->fix]));
        cJSON_AddItemToArray(what_if, fix);
    }
    add_int(root, "wait_total_count", result->wait_total_count);
    cJSON *waits = cJSON_AddArrayToObject(root, "waits");
    for (size_t i = 0; i < result->wait_count; i++)
        cJSON_AddItemToArray(waits, wait_json(result, &result->waits[i]));
    cJSON *steps = cJSON_AddArrayToObject(root, "steps");
    for (size_t i = 0; i < result->step_count; i++)
        cJSON_AddItemToArray(steps, step_json(&result->steps[i], result->origin_ns));
    report_accounting_json(root, devices, result);
}

cJSON *report_to_json(const struct analysis_result *result, const struct report_context *context)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    char origin[32];
    snprintf(origin, sizeof origin, "%" PRId64, result->origin_ns);
    add_int(root, "schema_version", REPORT_JSON_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "tool_version", OVERLAPSCOPE_VERSION);
    report_json_add_text(root, "trace", context && context->trace_path ? context->trace_path : "");
    cJSON_AddStringToObject(root, "origin_ns", origin);
    cJSON *window = cJSON_AddObjectToObject(root, "window");
    add_time(window, "start_ns", result->selection.window_start_ns, result->origin_ns);
    add_time(window, "end_ns", result->selection.window_end_ns, result->origin_ns);
    if (result->steady.trimmed) {
        /* What the default window left out (steady_state.h). */
        cJSON *steady = cJSON_AddObjectToObject(window, "steady_state");
        cJSON_AddStringToObject(steady, "chosen_by", result->steady.by_steps ? "steps" : "activity");
        add_int(steady, "set_up_ns", result->steady.start_ns - result->steady.span_start_ns);
        add_int(steady, "tear_down_ns", result->steady.span_end_ns - result->steady.end_ns);
        add_int(steady, "warmup_steps", result->steady.warmup_steps);
        add_int(steady, "devices_left_out", result->steady.devices_left_out);
        add_int(steady, "set_up_idle_ns", result->steady.setup_idle_ns);
        add_int(steady, "set_up_devices", (int64_t)result->steady.setup_devices);
        cJSON *causes = cJSON_AddArrayToObject(steady, "set_up_idle_causes");
        for (size_t i = 0; i < 2 && result->steady.setup_causes[i].cause != ACCOUNTING_CAUSE_COUNT; i++) {
            cJSON *cause = cJSON_CreateObject();
            cJSON_AddStringToObject(cause, "cause",
                                    accounting_cause_tag(result->steady.setup_causes[i].cause));
            report_json_add_text(cause, "label", result->steady.setup_causes[i].label);
            add_int(cause, "ns", result->steady.setup_causes[i].ns);
            cJSON_AddItemToArray(causes, cause);
        }
    }
    cJSON_AddItemToObject(root, "filters", filters_json(context ? context->options : NULL));
    add_int(root, "interval_count", result->interval_count);
    cJSON_AddItemToObject(root, "summary", summary_json(result));
    cJSON_AddItemToObject(root, "unmeasured", unmeasured_json(result));
    add_lists(root, result);
    cJSON *world = report_world_json(result); /* only past 16 devices: the goldens' JSON unchanged */
    if (world)
        cJSON_AddItemToObject(root, "world", world);
    return root;
}

int report_write_json(FILE *out, const struct analysis_result *result, const struct report_context *context,
                      error_info *err)
{
    if (report_json_write(out, report_to_json(result, context), err) != 0)
        return -1;
    return ferror(out) ? error_set(err, "cannot write the report") : 0;
}
