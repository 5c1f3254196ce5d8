/* csv_report.c: `report --csv`: the report's tables as CSV (docs/overlapscope-report.md, "CSV"):
 * one RFC 4180 document per table (devices, streams, causes, idle, exposed_communication, what_if,
 * summary), separated by one empty line, each with its header and every row starting with its
 * table's name. Columns carry the JSON report's key names and figures (docs/report-json.md): a
 * column "a.b" is the JSON's object a's key b; an unknown value (JSON null) is an empty field. */
#include <inttypes.h>
#include <stdlib.h>

#include "call_source.h"
#include "csv.h"
#include "naming.h"
#include "report.h"
#include "store.h"

/* ",value" after the row's first field (its table). */
static void put_int(FILE *out, int64_t value)
{
    fprintf(out, ",%" PRId64, value);
}

static void put_text(FILE *out, const char *text)
{
    fputc(',', out);
    report_csv_field(out, text);
}

static void put_bool(FILE *out, int value)
{
    fputs(value ? ",true" : ",false", out);
}

/* A time relative to the origin, empty when unknown (STORE_NULL). */
static void put_time(FILE *out, int64_t value, int64_t origin_ns)
{
    if (value == STORE_NULL)
        fputc(',', out);
    else
        put_int(out, value - origin_ns);
}

/* part / whole, empty when whole is 0 (not measured), as the JSON's null. */
static void put_ratio(FILE *out, int64_t part, int64_t whole)
{
    fputc(',', out);
    if (whole > 0)
        report_csv_real(out, (double)part / (double)whole);
}

/* The row's table, then whose it is: rank, process (the text's label: "rank 3", "pid 1685"), pid,
 * process_id, device_id. */
static void put_scope(FILE *out, const char *table, int64_t rank, int64_t pid, int64_t process_id,
                      int64_t device_id)
{
    char label[32];
    fputs(table, out);
    put_int(out, rank);
    put_text(out, naming_process(label, sizeof label, rank, pid, process_id));
    put_int(out, pid);
    put_int(out, process_id);
    put_int(out, device_id);
}

/* Where in the program, as stored and as people read it (the JSON's "source" and
 * "source_demangled"); both empty when the trace cannot know. */
static void put_source(FILE *out, const char *source)
{
    if (!source || !source[0]) {
        fputs(",,", out);
        return;
    }
    put_text(out, source);
    char *readable = call_source_readable(source, CALL_SOURCE_FULL);
    put_text(out, readable ? readable : source);
    free(readable);
}

/* The header of a table: "table" and its columns; a document after the first starts with an
 * empty line. categories: the name of an object of category tags appended ("category_ns"), or
 * NULL. */
static void header(FILE *out, int first, const char *columns, const char *categories)
{
    fprintf(out, "%stable,%s", first ? "" : REPORT_CSV_EOL, columns);
    for (int c = 0; categories && c < ANALYSIS_CATEGORY_COUNT; c++)
        fprintf(out, ",%s.%s", categories, analysis_category_tag((enum analysis_category)c));
    fputs(REPORT_CSV_EOL, out);
}

static void put_categories(FILE *out, const int64_t values[ANALYSIS_CATEGORY_COUNT])
{
    for (int c = 0; c < ANALYSIS_CATEGORY_COUNT; c++)
        put_int(out, values[c]);
}

static void devices_csv(FILE *out, const struct analysis_result *result)
{
    header(out, 1,
           "rank,process,pid,process_id,device_id,name,sm_count,span_start_ns,span_end_ns,span_ns,busy_ns,"
           "idle_ns,busy_ratio,stream_overlap,communication_ns,exposed_communication_ns,"
           "compute_communication_overlap_ns,comm_overlap,copy_ns,copy_compute_overlap_ns,"
           "copy_compute_possible_ns,copy_overlap_of_possible,lost_ns,headroom_ns,replay_span_ns,"
           "overlap_cost_ns,overlap_saved_ns,overlap_net_ns,overlap_untwinned_count,wait_count,stream_count,"
           "stream_pair_overlap_ns,stream_pair_possible_ns",
           "category_busy_ns");
    for (size_t i = 0; i < result->device_count; i++) {
        const struct analysis_device *device = &result->devices[i];
        int64_t span = device->busy_ns + device->idle_ns;
        put_scope(out, "devices", device->rank, device->pid, device->process_id, device->device_id);
        put_text(out, device->device_name);
        put_int(out, device->sm_count);
        put_time(out, device->span_start_ns, result->origin_ns);
        put_time(out, device->span_end_ns, result->origin_ns);
        put_int(out, span);
        put_int(out, device->busy_ns);
        put_int(out, device->idle_ns);
        put_ratio(out, device->busy_ns, span);
        put_ratio(out, device->stream_pair_overlap_ns, device->stream_pair_possible_ns);
        put_int(out, device->communication_ns);
        put_int(out, device->exposed_communication_ns);
        put_int(out, device->compute_communication_overlap_ns);
        put_ratio(out, device->compute_communication_overlap_ns, device->communication_ns);
        put_int(out, device->copy_ns);
        put_int(out, device->copy_compute_overlap_ns);
        put_int(out, device->copy_compute_possible_ns);
        put_ratio(out, device->copy_compute_overlap_ns, device->copy_compute_possible_ns);
        put_int(out, device->lost_ns);
        put_int(out, device->headroom_ns);
        put_int(out, device->replay_span_ns);
        put_int(out, device->overlap_cost_ns);
        put_int(out, device->overlap_saved_ns);
        put_int(out, device->overlap_net_ns);
        put_int(out, device->overlap_untwinned_count);
        put_int(out, device->wait_count);
        put_int(out, device->stream_count);
        put_int(out, device->stream_pair_overlap_ns);
        put_int(out, device->stream_pair_possible_ns);
        put_categories(out, device->category_busy_ns);
        fputs(REPORT_CSV_EOL, out);
    }
}

static void streams_csv(FILE *out, const struct analysis_result *result)
{
    header(out, 0,
           "rank,process,pid,process_id,device_id,stream_id,role,legacy_default,priority,selected,busy_ns,"
           "interval_count",
           "category_ns");
    for (size_t i = 0; i < result->lane_count; i++) {
        const struct analysis_lane *lane = &result->lanes[i];
        put_scope(out, "streams", lane->rank, lane->pid, lane->process_id, lane->device_id);
        put_int(out, lane->stream_id);
        put_text(out, lane->role);
        put_bool(out, lane->is_legacy_default);
        if (lane->priority == STORE_NULL)
            fputc(',', out);
        else
            put_int(out, lane->priority);
        put_bool(out, lane->selected);
        put_int(out, lane->busy_ns);
        put_int(out, lane->interval_count);
        put_categories(out, lane->category_ns);
        fputs(REPORT_CSV_EOL, out);
    }
}

static void causes_csv(FILE *out, const struct analysis_result *result)
{
    header(out, 0, "cause,title,lost_ns,count,advice,advice_source", NULL);
    for (int i = 0; i < ANALYSIS_CAUSE_COUNT; i++) {
        const struct analysis_cause_total *total = &result->causes[i];
        if (total->count == 0)
            continue;
        fputs("causes", out);
        put_text(out, analysis_cause_tag(total->cause));
        put_text(out, analysis_cause_title(total->cause));
        put_int(out, total->lost_ns);
        put_int(out, total->count);
        put_text(out, analysis_cause_advice(total->cause));
        put_text(out, analysis_cause_advice_source(total->cause));
        fputs(REPORT_CSV_EOL, out);
    }
}

/* The idle (idle 1) or exposed-communication causes of every device, each device's whole span
 * (step empty) and each of its steps, in the analysis's order (the JSON's "idle" of a device and
 * of its "step_accounting"). */
static void accounting_csv(FILE *out, const struct analysis_result *result, int idle)
{
    const char *table = idle ? "idle" : "exposed_communication";
    header(out, 0,
           "rank,process,pid,process_id,device_id,step,cause,title,label,ns,count,source,source_demangled,"
           "evidence",
           NULL);
    for (size_t i = 0; i < result->accounting_count; i++) {
        const struct analysis_accounting *accounting = &result->accountings[i];
        const struct analysis_device *device = &result->devices[accounting->device];
        const struct accounting_breakdown *breakdown =
            idle ? &accounting->idle : &accounting->exposed_communication;
        for (size_t k = 0; k < breakdown->entry_count; k++) {
            const struct accounting_entry *entry = &breakdown->entries[k];
            put_scope(out, table, device->rank, device->pid, device->process_id, device->device_id);
            if (accounting->step < 0)
                fputc(',', out);
            else
                put_int(out, accounting->step);
            put_text(out, accounting_cause_tag(entry->cause));
            put_text(out, accounting_cause_title(entry->cause));
            put_text(out, entry->label);
            put_int(out, entry->ns);
            put_int(out, entry->count);
            put_source(out, entry->source);
            put_text(out, entry->evidence);
            fputs(REPORT_CSV_EOL, out);
        }
    }
}

static void what_if_csv(FILE *out, const struct analysis_result *result)
{
    header(out, 0,
           "fix,cause,predicted_saving_ns,by_design,upper_bound,newly_together_ns,host_work_ns,assumptions",
           NULL);
    for (size_t i = 0; i < result->what_if_count; i++) {
        const struct analysis_what_if *item = &result->what_if[i];
        fputs("what_if", out);
        put_text(out, analysis_fix_tag(item->fix));
        put_text(out, analysis_what_if_basis(item));
        put_int(out, item->predicted_saving_ns);
        put_bool(out, item->by_design);
        put_bool(out, analysis_what_if_upper_bound(item));
        put_int(out, item->newly_together_ns);
        put_int(out, item->host_work_ns);
        put_text(out, item->assumptions);
        fputs(REPORT_CSV_EOL, out);
    }
}

static void summary_csv(FILE *out, const struct analysis_result *result)
{
    header(out, 0, "name,unit,value,unmeasured", NULL);
    for (size_t i = 0; i < report_metric_count(); i++) {
        const struct report_metric *metric = report_metric_at(i);
        double value = 0;
        report_metric_value(result, metric->name, &value);
        fputs("summary", out);
        put_text(out, metric->name);
        put_text(out, metric->unit);
        fputc(',', out);
        report_csv_real(out, value);
        const char *why = report_metric_unmeasured(result, metric->name);
        if (why)
            put_text(out, why);
        else
            fputc(',', out);
        fputs(REPORT_CSV_EOL, out);
    }
}

int report_write_csv(FILE *out, const struct analysis_result *result, error_info *err)
{
    devices_csv(out, result);
    streams_csv(out, result);
    causes_csv(out, result);
    accounting_csv(out, result, 1);
    accounting_csv(out, result, 0);
    what_if_csv(out, result);
    summary_csv(out, result);
    return ferror(out) ? error_set(err, "cannot write the report") : 0;
}
