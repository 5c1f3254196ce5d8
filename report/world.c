/* world.c: the overview table's figures, one definition for the rows and the summary, and the
 * world summary of a trace with more devices than a reader can scan (world.h). A summary cell is
 * always one device's own cell (the order statistics are nearest-rank, never interpolated), so that
 * `--rank N` and `--all-rows` show the very figure the summary names. */
#include "world.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "naming.h"
#include "text_layout.h"
#include "units.h"
#include "writer.h"

/* Each column's definition is one line of docs/overlapscope-report.md ("Columns"). The two overlap
 * ratios are of what was possible, so that a better schedule never reads worse: time with two
 * streams busy, or copy time under compute, read higher for a schedule that serialized more work
 * onto fewer busy streams, or paired a long copy with a short kernel. */
const char *const report_figure_titles[REPORT_FIGURE_COUNT] = {"span",
                                                               "busy",
                                                               "kernels",
                                                               "idle",
                                                               "overlap of possible",
                                                               "comm",
                                                               "exposed comm",
                                                               "comm overlap",
                                                               "copy overlap of possible",
                                                               "exposed copy",
                                                               "lost",
                                                               "headroom"};

enum {
    FIGURE_SPAN,
    FIGURE_BUSY,
    FIGURE_KERNELS,
    FIGURE_IDLE,
    FIGURE_STREAM_OVERLAP,
    FIGURE_COMM,
    FIGURE_EXPOSED_COMM,
    FIGURE_COMM_OVERLAP,
    FIGURE_COPY_OVERLAP,
    FIGURE_EXPOSED_COPY,
    FIGURE_LOST,
    FIGURE_HEADROOM
};

/* A ratio's part and whole, or a duration (whole -1). */
static void figure_parts(const struct analysis_device *device, int figure, int64_t *part, int64_t *whole)
{
    int64_t span = device->busy_ns + device->idle_ns;
    *whole = -1;
    switch (figure) {
    case FIGURE_SPAN:
        *part = span;
        break;
    case FIGURE_BUSY:
        *part = device->busy_ns, *whole = span;
        break;
    case FIGURE_KERNELS:
        *part = device->kernel_busy_ns, *whole = span;
        break;
    case FIGURE_IDLE:
        *part = device->idle_ns;
        break;
    case FIGURE_STREAM_OVERLAP:
        *part = device->stream_pair_overlap_ns, *whole = device->stream_pair_possible_ns;
        break;
    case FIGURE_COMM:
        *part = device->communication_ns;
        break;
    case FIGURE_EXPOSED_COMM:
        *part = device->exposed_communication_ns;
        break;
    case FIGURE_COMM_OVERLAP:
        *part = device->compute_communication_overlap_ns, *whole = device->communication_ns;
        break;
    case FIGURE_COPY_OVERLAP:
        *part = device->copy_compute_overlap_ns, *whole = device->copy_compute_possible_ns;
        break;
    case FIGURE_EXPOSED_COPY:
        *part = device->exposed_copy_ns;
        break;
    case FIGURE_LOST:
        *part = device->lost_ns;
        break;
    default:
        *part = device->headroom_ns;
        break;
    }
}

void report_figure_cell(const struct analysis_device *device, int figure, char *cell)
{
    int64_t part, whole;
    figure_parts(device, figure, &part, &whole);
    if (whole < 0)
        units_format_duration(cell, REPORT_FIGURE_CELL, part);
    else if (whole == 0)
        snprintf(cell, REPORT_FIGURE_CELL, "-");
    else
        snprintf(cell, REPORT_FIGURE_CELL, "%.1f%%", 100.0 * (double)part / (double)whole);
}

int report_figure_value(const struct analysis_device *device, int figure, double *value)
{
    int64_t part, whole;
    figure_parts(device, figure, &part, &whole);
    if (whole == 0)
        return 0;
    *value = whole < 0 ? (double)part : (double)part / (double)whole;
    return 1;
}

int report_world_summarized(const struct analysis_result *result, const struct report_context *context)
{
    return result->device_count > REPORT_WORLD_MAX_ROWS && !(context && context->all_rows);
}

static int by_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* 1 when a process has more than one device in the result: a device is then named by its rank and
 * its device ordinal (also when out of memory: the longer name is never wrong). Sorted, not paired:
 * a few thousand devices. */
static int several_per_process(const struct analysis_result *result)
{
    int64_t *ids = malloc((result->device_count ? result->device_count : 1) * sizeof *ids);
    if (!ids)
        return 1;
    for (size_t i = 0; i < result->device_count; i++)
        ids[i] = result->devices[i].process_id;
    qsort(ids, result->device_count, sizeof *ids, by_id);
    int several = 0;
    for (size_t i = 1; i < result->device_count && !several; i++)
        several = ids[i] == ids[i - 1];
    free(ids);
    return several;
}

char *report_world_device_name(const struct analysis_result *result, size_t device, char *buffer, size_t size)
{
    const struct analysis_device *d = &result->devices[device];
    char process[32];
    naming_process(process, sizeof process, d->rank, d->pid, d->process_id);
    if (several_per_process(result))
        snprintf(buffer, size, "%s device %" PRId64, process, d->device_id);
    else
        snprintf(buffer, size, "%s", process);
    return buffer;
}

/* The summary's short name of a device in a table cell: its rank column's cell ("37", "pid 12"),
 * ":D" after it when a process has several devices. */
static void device_key(const struct analysis_result *result, size_t device, int several, char *cell)
{
    const struct analysis_device *d = &result->devices[device];
    int n = d->rank >= 0 ? snprintf(cell, REPORT_FIGURE_CELL, "%" PRId64, d->rank)
                         : snprintf(cell, REPORT_FIGURE_CELL, "pid %" PRId64, d->pid);
    if (several && n > 0 && n < REPORT_FIGURE_CELL)
        snprintf(cell + n, (size_t)(REPORT_FIGURE_CELL - n), ":%" PRId64, d->device_id);
}

/* --- order statistics --- */

struct ranked {
    double value;
    size_t item; /* a device's or a stream's index */
};

/* By value, then by index: on a tie the first device in device order comes first. */
static int by_value(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return x->item < y->item ? -1 : x->item > y->item;
}

/* Positions in a sorted list of count >= 1 items: the median is the lower middle ((n - 1) / 2), the
 * p90 the nearest rank (ceil(0.9 n) - 1), the max the first of the largest values in index order. */
struct order {
    size_t min, median, p90, max;
};

static struct order order_of(const struct ranked *sorted, size_t count)
{
    struct order order = {0, (count - 1) / 2, (9 * count + 9) / 10 - 1, count - 1};
    while (order.max > 0 && sorted[order.max - 1].value == sorted[count - 1].value)
        order.max--;
    return order;
}

/* The devices that have the figure, sorted (descending: largest first); the count in *count.
 * NULL when out of memory. */
static struct ranked *devices_by(const struct analysis_result *result, int figure, int descending,
                                 size_t *count)
{
    struct ranked *list = calloc(result->device_count ? result->device_count : 1, sizeof *list);
    *count = 0;
    if (!list)
        return NULL;
    for (size_t i = 0; i < result->device_count; i++) {
        double value;
        if (report_figure_value(&result->devices[i], figure, &value))
            list[(*count)++] = (struct ranked){descending ? -value : value, i};
    }
    qsort(list, *count, sizeof *list, by_value);
    return list;
}

/* --- the distribution table --- */

enum { STAT_MIN, STAT_MIN_AT, STAT_MEDIAN, STAT_P90, STAT_MAX, STAT_MAX_AT, STAT_COUNT };
static const char *const stat_labels[STAT_COUNT] = {"min", "min at", "median", "p90", "max", "max at"};

/* cells[stat][1 + figure]: the distribution of each figure; column 0 holds the statistic's name. */
static void distribution_cells(const struct analysis_result *result,
                               char cells[STAT_COUNT][1 + REPORT_FIGURE_COUNT][REPORT_FIGURE_CELL])
{
    int several = several_per_process(result);
    for (int s = 0; s < STAT_COUNT; s++)
        snprintf(cells[s][0], REPORT_FIGURE_CELL, "%s", stat_labels[s]);
    for (int f = 0; f < REPORT_FIGURE_COUNT; f++) {
        size_t count;
        struct ranked *sorted = devices_by(result, f, 0, &count);
        for (int s = 0; s < STAT_COUNT; s++)
            snprintf(cells[s][1 + f], REPORT_FIGURE_CELL, "%s",
                     s == STAT_MIN_AT || s == STAT_MAX_AT ? "" : "-");
        if (sorted && count > 0) {
            struct order order = order_of(sorted, count);
            const struct analysis_device *devices = result->devices;
            report_figure_cell(&devices[sorted[order.min].item], f, cells[STAT_MIN][1 + f]);
            report_figure_cell(&devices[sorted[order.median].item], f, cells[STAT_MEDIAN][1 + f]);
            report_figure_cell(&devices[sorted[order.p90].item], f, cells[STAT_P90][1 + f]);
            report_figure_cell(&devices[sorted[order.max].item], f, cells[STAT_MAX][1 + f]);
            device_key(result, sorted[order.min].item, several, cells[STAT_MIN_AT][1 + f]);
            device_key(result, sorted[order.max].item, several, cells[STAT_MAX_AT][1 + f]);
        }
        free(sorted);
    }
}

static void distribution_markdown(FILE *out, const char *key_title,
                                  char cells[STAT_COUNT][1 + REPORT_FIGURE_COUNT][REPORT_FIGURE_CELL])
{
    fprintf(out, "| %s |", key_title);
    for (int f = 0; f < REPORT_FIGURE_COUNT; f++)
        fprintf(out, " %s |", report_figure_titles[f]);
    fputs("\n|---|", out);
    for (int f = 0; f < REPORT_FIGURE_COUNT; f++)
        fputs("---:|", out);
    fputc('\n', out);
    for (int s = 0; s < STAT_COUNT; s++) {
        fputc('|', out);
        for (int c = 0; c <= REPORT_FIGURE_COUNT; c++)
            fprintf(out, " %s |", cells[s][c]);
        fputc('\n', out);
    }
}

/* --- the ranks at either end --- */

/* The figures that say where a rank stands, each with its worse end first. */
static const struct {
    int figure;
    const char *worst, *best;
    int worst_is_lowest;
} ends[] = {{FIGURE_BUSY, "lowest busy", "highest busy", 1},
            {FIGURE_IDLE, "most idle", "least idle", 0},
            {FIGURE_EXPOSED_COMM, "most exposed comm", "least exposed comm", 0},
            {FIGURE_LOST, "most lost", "least lost", 0}};
enum { END_COUNT = sizeof ends / sizeof ends[0], END_RANKS = 3, END_LABEL_WIDTH = 20 };

/* "rank 37 69.3%, rank 0 96.0%, rank 1 96.0%": the first END_RANKS devices of figure in that order. */
static void end_line(char *line, size_t size, const struct analysis_result *result, int figure,
                     int descending)
{
    size_t count, used = 0;
    line[0] = '\0';
    struct ranked *sorted = devices_by(result, figure, descending, &count);
    for (size_t i = 0; sorted && i < count && i < END_RANKS && used < size; i++) {
        char name[64], cell[REPORT_FIGURE_CELL];
        report_world_device_name(result, sorted[i].item, name, sizeof name);
        report_figure_cell(&result->devices[sorted[i].item], figure, cell);
        int n = snprintf(line + used, size - used, "%s%s %s", i ? ", " : "", name, cell);
        used += n > 0 ? (size_t)n : 0;
    }
    if (!line[0])
        snprintf(line, size, "-");
    free(sorted);
}

static void ends_lines(FILE *out, const struct analysis_result *result, int markdown, int width)
{
    if (markdown)
        fprintf(out, "\n| ranks at either end | the first %d |\n|---|---|\n", END_RANKS);
    else
        fprintf(out, "\nranks at either end (the first %d of each):\n", END_RANKS);
    for (size_t e = 0; e < END_COUNT; e++) {
        for (int side = 0; side < 2; side++) {
            /* the worst end of busy is its lowest; of the times, their largest */
            int descending = side == 0 ? !ends[e].worst_is_lowest : ends[e].worst_is_lowest;
            char list[512], prefix[48];
            end_line(list, sizeof list, result, ends[e].figure, descending);
            const char *label = side == 0 ? ends[e].worst : ends[e].best;
            if (markdown) {
                fprintf(out, "| %s | %s |\n", label, list);
                continue;
            }
            snprintf(prefix, sizeof prefix, "  %-*s", END_LABEL_WIDTH, label);
            report_write_wrapped(out, list, prefix, 2 + END_LABEL_WIDTH, width);
        }
    }
}

void report_world_overview(FILE *out, const struct analysis_result *result, int markdown, int width)
{
    char(*cells)[1 + REPORT_FIGURE_COUNT][REPORT_FIGURE_CELL] = calloc(STAT_COUNT, sizeof *cells);
    if (!cells)
        return;
    distribution_cells(result, cells);
    char key_title[32];
    snprintf(key_title, sizeof key_title, "%zu devices", result->device_count);
    const char *rank_title = several_per_process(result) ? "rank:device" : "rank";
    char how[320], note[512];
    snprintf(how, sizeof how,
             "min, lower median, p90 (nearest rank) and max of each figure over the devices; the at "
             "rows name the %s holding min and max, the first on a tie",
             rank_title);
    snprintf(note, sizeof note,
             "%zu devices, summarized (more than %d): report --rank N shows a rank's own rows, "
             "--all-rows every device's; --json and --csv list every device",
             result->device_count, REPORT_WORLD_MAX_ROWS);
    if (markdown) {
        distribution_markdown(out, key_title, cells);
        fprintf(out, "\n%s.\n", how);
        ends_lines(out, result, 1, 0);
        fprintf(out, "\n%s.\n", note);
    } else {
        const char *titles[1 + REPORT_FIGURE_COUNT] = {key_title};
        memcpy(titles + 1, report_figure_titles, sizeof report_figure_titles);
        struct text_table table = {.column_count = 1 + REPORT_FIGURE_COUNT,
                                   .key_count = 1,
                                   .titles = titles,
                                   .row_count = STAT_COUNT,
                                   .cells = &cells[0][0][0],
                                   .cell_size = REPORT_FIGURE_CELL};
        text_table_write(out, &table, width);
        char aside[340];
        snprintf(aside, sizeof aside, "(%s)", how);
        report_write_wrapped(out, aside, "  ", 3, width);
        ends_lines(out, result, 0, width);
        fputc('\n', out);
        report_write_wrapped(out, note, "", 2, width);
    }
    free(cells);
}

/* --- JSON --- */

/* The figures' keys in "world" (docs/report-json.md): a device's own key where it has one. */
static const char *const figure_keys[REPORT_FIGURE_COUNT] = {"span_ns",
                                                             "busy",
                                                             "kernels",
                                                             "idle_ns",
                                                             "stream_overlap",
                                                             "communication_ns",
                                                             "exposed_communication_ns",
                                                             "comm_overlap",
                                                             "copy_overlap_of_possible",
                                                             "exposed_copy_ns",
                                                             "lost_ns",
                                                             "headroom_ns"};

static void add_figure_value(cJSON *object, const char *name, const struct analysis_result *result,
                             size_t device, int figure)
{
    double value = 0;
    report_figure_value(&result->devices[device], figure, &value);
    cJSON_AddNumberToObject(object, name, value);
}

/* One figure's distribution: its statistics (null when no device has the figure) and where the
 * min and max are (index into "devices", and that device's rank). */
static cJSON *figure_json(const struct analysis_result *result, int figure)
{
    cJSON *object = cJSON_CreateObject();
    size_t count;
    struct ranked *sorted = devices_by(result, figure, 0, &count);
    cJSON_AddNumberToObject(object, "devices", (double)count);
    static const char *const names[] = {"min", "median", "p90", "max"};
    if (!sorted || count == 0) {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            cJSON_AddNullToObject(object, names[i]);
        free(sorted);
        return object;
    }
    struct order order = order_of(sorted, count);
    const size_t at[] = {sorted[order.min].item, sorted[order.median].item, sorted[order.p90].item,
                         sorted[order.max].item};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        add_figure_value(object, names[i], result, at[i], figure);
    cJSON_AddNumberToObject(object, "min_index", (double)at[0]);
    cJSON_AddNumberToObject(object, "min_rank", (double)result->devices[at[0]].rank);
    cJSON_AddNumberToObject(object, "max_index", (double)at[3]);
    cJSON_AddNumberToObject(object, "max_rank", (double)result->devices[at[3]].rank);
    free(sorted);
    return object;
}

cJSON *report_world_json(const struct analysis_result *result)
{
    if (result->device_count <= REPORT_WORLD_MAX_ROWS)
        return NULL;
    cJSON *world = cJSON_CreateObject();
    if (!world)
        return NULL;
    cJSON_AddNumberToObject(world, "device_count", (double)result->device_count);
    cJSON *figures = cJSON_AddObjectToObject(world, "figures");
    for (int f = 0; figures && f < REPORT_FIGURE_COUNT; f++)
        cJSON_AddItemToObject(figures, figure_keys[f], figure_json(result, f));
    return world;
}

/* --- streams --- */

enum { ROLE_COLUMNS = 7 };
static const char *const role_titles[ROLE_COLUMNS] = {"role",   "streams",  "busy min", "at",
                                                      "median", "busy max", "at"};

/* One role's row: how many selected streams, and their busy time's distribution. */
static void role_row(const struct analysis_result *result, const char *role, int several,
                     char row[ROLE_COLUMNS][REPORT_FIGURE_CELL], struct ranked *list)
{
    size_t count = 0;
    for (size_t i = 0; i < result->lane_count; i++) {
        const struct analysis_lane *lane = &result->lanes[i];
        if (lane->selected && strcmp(lane->role, role) == 0)
            list[count++] = (struct ranked){(double)lane->busy_ns, i};
    }
    qsort(list, count, sizeof *list, by_value);
    struct order order = order_of(list, count);
    snprintf(row[0], REPORT_FIGURE_CELL, "%s", role);
    snprintf(row[1], REPORT_FIGURE_CELL, "%zu", count);
    units_format_duration(row[2], REPORT_FIGURE_CELL, result->lanes[list[order.min].item].busy_ns);
    units_format_duration(row[4], REPORT_FIGURE_CELL, result->lanes[list[order.median].item].busy_ns);
    units_format_duration(row[5], REPORT_FIGURE_CELL, result->lanes[list[order.max].item].busy_ns);
    const size_t at[2] = {list[order.min].item, list[order.max].item};
    for (int k = 0; k < 2; k++) {
        const struct analysis_lane *lane = &result->lanes[at[k]];
        char *cell = row[k ? 6 : 3];
        int n = lane->rank >= 0 ? snprintf(cell, REPORT_FIGURE_CELL, "%" PRId64, lane->rank)
                                : snprintf(cell, REPORT_FIGURE_CELL, "pid %" PRId64, lane->pid);
        if (several && n > 0 && n < REPORT_FIGURE_CELL)
            snprintf(cell + n, (size_t)(REPORT_FIGURE_CELL - n), ":%" PRId64, lane->device_id);
    }
}

void report_world_streams(FILE *out, const struct analysis_result *result, int width)
{
    size_t selected = 0, legacy = 0;
    for (size_t i = 0; i < result->lane_count; i++) {
        selected += result->lanes[i].selected != 0;
        legacy += result->lanes[i].selected && result->lanes[i].is_legacy_default;
    }
    char line[256];
    snprintf(line, sizeof line,
             "streams: %zu on %zu devices, by role (busy time across them; report --rank N lists a "
             "rank's):",
             selected, result->device_count);
    fputc('\n', out);
    report_write_wrapped(out, line, "", 2, width);
    char(*cells)[ROLE_COLUMNS][REPORT_FIGURE_CELL] = calloc(selected ? selected : 1, sizeof *cells);
    struct ranked *list = calloc(selected ? selected : 1, sizeof *list);
    size_t rows = 0;
    int several = several_per_process(result);
    for (size_t i = 0; cells && list && i < result->lane_count; i++) {
        const struct analysis_lane *lane = &result->lanes[i];
        int first = lane->selected;
        for (size_t j = 0; first && j < i; j++)
            first = !(result->lanes[j].selected && strcmp(result->lanes[j].role, lane->role) == 0);
        if (first)
            role_row(result, lane->role, several, cells[rows++], list);
    }
    struct text_table table = {.column_count = ROLE_COLUMNS,
                               .key_count = 1,
                               .titles = role_titles,
                               .row_count = rows,
                               .cells = cells ? &cells[0][0][0] : NULL,
                               .cell_size = REPORT_FIGURE_CELL,
                               .indent = 2};
    if (rows)
        text_table_write(out, &table, width);
    if (legacy) {
        snprintf(line, sizeof line, "%zu of them the legacy default stream", legacy);
        report_write_wrapped(out, line, "  ", 4, width);
    }
    free(list);
    free(cells);
}
