/* stats_write.c: the writers of `overlapscope stats` (stats.h): any table as text for a terminal
 * (the row's columns in one line, its details in an indented second one), CSV (RFC 4180: one
 * document per report, every device's rows under one header), JSON (docs/schema/stats.json) and
 * GitHub Markdown. The layouts are documented in docs/overlapscope-stats.md. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "naming.h"
#include "report.h"
#include "stats.h"
#include "text_safe.h"
#include "units.h"
#include "version.h"
#include "writer.h"

#define STATS_JSON_SCHEMA_VERSION 1

static const char *const report_titles[STATS_REPORT_COUNT] = {
    "Kernels", "CUDA API calls", "NVTX ranges", "Copies", "Memsets", "Synchronizations", "NCCL collectives"};

int stats_parse_format(const char *name, enum stats_format *format, error_info *err)
{
    static const char *const names[] = {"text", "csv", "json", "markdown"};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0) {
            *format = (enum stats_format)i;
            return 0;
        }
    return error_set(err, "--format wants text, csv, json or markdown, not '%s'", name);
}

/* A cell as people read it (text, Markdown): durations and bytes with units, "-" when unknown. */
static void format_cell(char *text, size_t size, const struct stats_column *column,
                        const struct stats_cell *cell)
{
    if (cell->kind == STATS_NULL) {
        snprintf(text, size, "-");
    } else if (cell->kind == STATS_STRING) {
        snprintf(text, size, "%s", cell->text);
    } else if (column->unit == STATS_NS) {
        units_format_duration(text, size, cell->integer);
    } else if (column->unit == STATS_BYTES) {
        units_format_bytes(text, size, cell->integer);
    } else if (column->unit == STATS_PERCENT) {
        snprintf(text, size, "%.1f%%", cell->real);
    } else if (cell->kind == STATS_REAL) {
        snprintf(text, size, "%.1f", cell->real);
    } else {
        snprintf(text, size, "%" PRId64, cell->integer);
    }
}

/* "rank 0 (pid 123), device 0 (NVIDIA H200)" */
static void scope_label(char *text, size_t size, const struct stats_table *table)
{
    char process[96];
    naming_process(process, sizeof process, table->rank, table->pid, table->process_id);
    if (table->device_id < 0)
        snprintf(text, size, "%s", process);
    else if (table->device_name[0])
        snprintf(text, size, "%s, device %" PRId64 " (%s)", process, table->device_id, table->device_name);
    else
        snprintf(text, size, "%s, device %" PRId64, process, table->device_id);
}

/* --- text --- */

static void text_heading(FILE *out, const struct stats_table *table, int width)
{
    char scope[256], total[32], line[512];
    scope_label(scope, sizeof scope, table);
    units_format_duration(total, sizeof total, table->total_ns);
    static const char *const nouns[STATS_REPORT_COUNT] = {
        "kernel", "call", "range", "memcpy", "memset", "synchronization", "collective"};
    char count[64];
    units_format_count(count, sizeof count, table->total_count, nouns[table->report]);
    snprintf(line, sizeof line, "%s: %s: %s, %s", report_titles[table->report], scope, count, total);
    report_write_wrapped(out, line, "", 2, width);
}

/* One row: the fixed columns right-aligned, the name in what is left (wrapped, never cut), then
 * the details indented. */
static void text_row(FILE *out, const struct stats_table *table, const struct stats_cell *row, int width,
                     int header)
{
    char line[1024] = "", cell[4096], *safe;
    size_t used = 0;
    const char *rest = NULL;
    for (size_t c = 0; c < table->column_count; c++) {
        const struct stats_column *column = &table->columns[c];
        if (column->text_width == STATS_REST) {
            rest = header ? column->title : NULL;
            if (!header) {
                format_cell(cell, sizeof cell, column, &row[c]);
                rest = cell;
            }
            continue;
        }
        if (column->text_width <= 0)
            continue;
        char value[64];
        if (header)
            snprintf(value, sizeof value, "%s", column->title);
        else
            format_cell(value, sizeof value, column, &row[c]);
        int n =
            snprintf(line + used, sizeof line - used, "%s%*s", used ? " " : "", column->text_width, value);
        if (n > 0 && (size_t)n < sizeof line - used)
            used += (size_t)n;
    }
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "%s ", line);
    safe = text_safe_dup(rest ? rest : "", TEXT_SAFE_TERMINAL);
    report_write_wrapped(out, safe ? safe : "", prefix, (int)used + 1, width);
    free(safe);
    if (header)
        return;
    /* The details wrap between pairs, never inside one ("Max 3.4 us" stays on one line). */
    int column = 0;
    for (size_t c = 0; c < table->column_count; c++) {
        const struct stats_column *column_info = &table->columns[c];
        if (column_info->text_width != STATS_DETAIL || row[c].kind == STATS_NULL)
            continue;
        format_cell(cell, sizeof cell, column_info, &row[c]);
        char pair[4200];
        snprintf(pair, sizeof pair, "%s %s", column_info->title, cell);
        safe = text_safe_dup(pair, TEXT_SAFE_TERMINAL);
        int length = (int)strlen(safe ? safe : pair);
        if (column > 0 && column + 2 + length > width) {
            fputs(",\n", out);
            column = 0;
        }
        column += fprintf(out, "%s%s", column == 0 ? "    " : ", ", safe ? safe : pair);
        free(safe);
    }
    if (column > 0)
        fputc('\n', out);
}

static void write_text(FILE *out, const struct stats_result *stats, int width)
{
    if (stats->table_count == 0)
        fputs("no devices in the selection\n", out);
    for (size_t t = 0; t < stats->table_count; t++) {
        const struct stats_table *table = &stats->tables[t];
        if (t)
            fputc('\n', out);
        text_heading(out, table, width);
        if (table->row_count == 0) {
            fputs("  none\n", out);
            continue;
        }
        text_row(out, table, NULL, width, 1);
        for (size_t r = 0; r < table->row_count; r++)
            text_row(out, table, &table->cells[r * table->column_count], width, 0);
    }
}

/* --- CSV (RFC 4180: csv.h) --- */

static void csv_cell(FILE *out, const struct stats_column *column, const struct stats_cell *cell)
{
    if (cell->kind == STATS_STRING)
        report_csv_field(out, cell->text);
    else if (cell->kind == STATS_INTEGER)
        fprintf(out, "%" PRId64, cell->integer);
    else if (cell->kind == STATS_REAL)
        fprintf(out, column->unit == STATS_PERCENT ? "%.4f" : "%.6g", cell->real);
}

static void write_csv(FILE *out, const struct stats_result *stats)
{
    int blocks = 0;
    for (int report = 0; report < STATS_REPORT_COUNT; report++) {
        int header = 0;
        for (size_t t = 0; t < stats->table_count; t++) {
            const struct stats_table *table = &stats->tables[t];
            if ((int)table->report != report)
                continue;
            if (!header) {
                if (blocks++)
                    fputs("\r\n", out);
                fputs("report,rank,pid,process_id,device,device_name", out);
                for (size_t c = 0; c < table->column_count; c++)
                    fprintf(out, ",%s", table->columns[c].key);
                fputs("\r\n", out);
                header = 1;
            }
            for (size_t r = 0; r < table->row_count; r++) {
                fprintf(out, "%s,", stats_report_tag(table->report));
                if (table->rank >= 0)
                    fprintf(out, "%" PRId64, table->rank);
                fputc(',', out);
                if (table->pid >= 0)
                    fprintf(out, "%" PRId64, table->pid);
                fprintf(out, ",%" PRId64 ",", table->process_id);
                if (table->device_id >= 0)
                    fprintf(out, "%" PRId64, table->device_id);
                fputc(',', out);
                report_csv_field(out, table->device_name);
                for (size_t c = 0; c < table->column_count; c++) {
                    fputc(',', out);
                    csv_cell(out, &table->columns[c], &table->cells[r * table->column_count + c]);
                }
                fputs("\r\n", out);
            }
        }
    }
}

/* --- JSON --- */

static void add_id(cJSON *object, const char *key, int64_t value)
{
    if (value >= 0)
        cJSON_AddNumberToObject(object, key, (double)value);
    else
        cJSON_AddNullToObject(object, key);
}

static cJSON *table_json(const struct stats_table *table)
{
    cJSON *object = cJSON_CreateObject();
    cJSON_AddStringToObject(object, "report", stats_report_tag(table->report));
    add_id(object, "rank", table->rank);
    add_id(object, "pid", table->pid);
    cJSON_AddNumberToObject(object, "process_id", (double)table->process_id);
    add_id(object, "device", table->device_id);
    if (table->device_id >= 0)
        report_json_add_text(object, "device_name", table->device_name);
    else
        cJSON_AddNullToObject(object, "device_name");
    cJSON_AddNumberToObject(object, "total_ns", (double)table->total_ns);
    cJSON_AddNumberToObject(object, "count", (double)table->total_count);
    cJSON *rows = cJSON_AddArrayToObject(object, "rows");
    for (size_t r = 0; r < table->row_count; r++) {
        cJSON *row = cJSON_CreateObject();
        for (size_t c = 0; c < table->column_count; c++) {
            const struct stats_cell *cell = &table->cells[r * table->column_count + c];
            const char *key = table->columns[c].key;
            if (cell->kind == STATS_STRING)
                report_json_add_text(row, key, cell->text);
            else if (cell->kind == STATS_INTEGER)
                cJSON_AddNumberToObject(row, key, (double)cell->integer);
            else if (cell->kind == STATS_REAL)
                cJSON_AddNumberToObject(row, key, cell->real);
            else
                cJSON_AddNullToObject(row, key);
        }
        cJSON_AddItemToArray(rows, row);
    }
    return object;
}

static int write_json(FILE *out, const struct stats_result *stats, const char *trace_path, error_info *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", STATS_JSON_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "tool_version", OVERLAPSCOPE_VERSION);
    report_json_add_text(root, "trace", trace_path);
    cJSON_AddBoolToObject(root, "time_restricted", stats->time_restricted);
    cJSON *tables = cJSON_AddArrayToObject(root, "tables");
    for (size_t t = 0; t < stats->table_count; t++)
        cJSON_AddItemToArray(tables, table_json(&stats->tables[t]));
    return report_json_write(out, root, err);
}

/* --- Markdown --- */

static void markdown_text(FILE *out, const char *text)
{
    text_safe_fputs(text, TEXT_SAFE_MARKDOWN, out);
}

static void write_markdown(FILE *out, const struct stats_result *stats)
{
    if (stats->table_count == 0)
        fputs("No devices in the selection.\n", out);
    for (size_t t = 0; t < stats->table_count; t++) {
        const struct stats_table *table = &stats->tables[t];
        char scope[256], cell[4096];
        scope_label(scope, sizeof scope, table);
        fprintf(out, "%s### %s: ", t ? "\n" : "", report_titles[table->report]);
        markdown_text(out, scope);
        units_format_duration(cell, sizeof cell, table->total_ns);
        fprintf(out, "\n\n%" PRId64 " rows counted, %s in all.\n", table->total_count, cell);
        if (table->row_count == 0)
            continue;
        fputs("\n|", out);
        for (size_t c = 0; c < table->column_count; c++)
            fprintf(out, " %s |", table->columns[c].title);
        fputs("\n|", out);
        for (size_t c = 0; c < table->column_count; c++)
            fputs(table->columns[c].unit == STATS_TEXT ? " --- |" : " ---: |", out);
        fputc('\n', out);
        for (size_t r = 0; r < table->row_count; r++) {
            fputc('|', out);
            for (size_t c = 0; c < table->column_count; c++) {
                format_cell(cell, sizeof cell, &table->columns[c],
                            &table->cells[r * table->column_count + c]);
                fputc(' ', out);
                markdown_text(out, cell);
                fputs(" |", out);
            }
            fputc('\n', out);
        }
    }
}

int stats_write(FILE *out, const struct stats_result *stats, enum stats_format format, const char *trace_path,
                int width, error_info *err)
{
    if (width <= 0)
        width = 80;
    switch (format) {
    case STATS_FORMAT_CSV:
        write_csv(out, stats);
        return 0;
    case STATS_FORMAT_JSON:
        return write_json(out, stats, trace_path, err);
    case STATS_FORMAT_MARKDOWN:
        write_markdown(out, stats);
        return 0;
    default:
        write_text(out, stats, width);
        return 0;
    }
}
