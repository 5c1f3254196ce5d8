/* scene_lanes.c: a device group's layers: its header, concurrency strip, stream and host lanes
 * (each pixel column in the colour of what covered most of it, kept intervals outlined and
 * labelled) and the what-if's ghost end. */
#include "scene_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

static uint32_t darker(uint32_t rgb, double factor)
{
    uint32_t r = (uint32_t)(((rgb >> 16) & 0xFF) * factor), g = (uint32_t)(((rgb >> 8) & 0xFF) * factor),
             b = (uint32_t)((rgb & 0xFF) * factor);
    return r << 16 | g << 8 | b;
}

/* Fills every run of columns whose scene->column_keys share a key (-1: nothing) with that key's
 * colour (rgb[key], alpha[key]), one Cairo fill per key present rather than one per run: in a
 * picture of millions of short intervals nearly every column differs from the next, and a
 * fill per run cost more than all the rest of the drawing. Runs never overlap, so the order of
 * the fills changes nothing. The runs are bucketed by key first (a counting sort), so the
 * work grows with columns plus keys. */
void scene_paint_runs(const struct scene *scene, cairo_t *cr, const uint32_t *rgb, const double *alpha,
                      int key_count, double y, double height)
{
    int columns = scene->input.canvas->columns;
    const int *keys = scene->column_keys;
    int *first = scene->run_first, *by_key = scene->run_by_key, *start_of_key = scene->key_start;
    int runs = 0;
    memset(start_of_key, 0, (size_t)(key_count + 1) * sizeof *start_of_key);
    for (int column = 0; column < columns; column++)
        if (keys[column] >= 0 && keys[column] < key_count &&
            (column == 0 || keys[column - 1] != keys[column])) {
            first[runs++] = column;
            start_of_key[keys[column] + 1]++;
        }
    for (int key = 0; key < key_count; key++)
        start_of_key[key + 1] += start_of_key[key];
    for (int run = 0; run < runs; run++)
        by_key[start_of_key[keys[first[run]]]++] =
            first[run]; /* start_of_key[k] ends as the end of k's runs */
    for (int key = 0, done = 0; key < key_count; key++) {
        if (start_of_key[key] == done)
            continue;
        for (; done < start_of_key[key]; done++) {
            int column = by_key[done], end = column + 1;
            while (end < columns && keys[end] == key)
                end++;
            cairo_rectangle(cr, scene->plot_left + column * scene->column_width, y,
                            (end - column) * scene->column_width, height);
        }
        scene_set_colour(cr, rgb[key], alpha[key]);
        cairo_fill(cr);
    }
}

/* A lane's columns: the kind covering most of each, paler the less of the column is covered
 * (in 16ths, never below a faint 30% so nothing that ran vanishes). */
static void paint_lane_columns(const struct scene *scene, cairo_t *cr, const struct canvas_lane *lane,
                               double y, double height)
{
    enum { LEVELS = PAINT_LEVELS, KEYS = PAINT_KEYS };
    uint32_t rgb[KEYS];
    double alpha[KEYS];
    for (int kind = 0; kind < PALETTE_KIND_COUNT; kind++)
        for (int level = 1; level <= LEVELS; level++) {
            rgb[kind * LEVELS + level - 1] = palette_colour(kind);
            alpha[kind * LEVELS + level - 1] = 0.3 + 0.7 * level / (double)LEVELS;
        }
    for (int column = 0; column < scene->input.canvas->columns; column++) {
        int kind = -1;
        double coverage = canvas_column_coverage(lane, column, &kind);
        int level = kind < 0 ? 0 : (int)ceil(coverage * LEVELS);
        scene->column_keys[column] =
            kind < 0 || kind >= PALETTE_KIND_COUNT || level == 0 ? -1 : kind * LEVELS + level - 1;
    }
    scene_paint_runs(scene, cr, rgb, alpha, KEYS, y, height);
}

/* A device's concurrency strip: in each column, how many of its streams were busy most of it. */
static void paint_strip(const struct scene *scene, cairo_t *cr, const struct canvas_device *device, double y)
{
    uint32_t rgb[4];
    double alpha[4];
    for (int level = 0; level < 4; level++) {
        rgb[level] = palette_concurrency_colour(level);
        alpha[level] = 1;
    }
    for (int column = 0; column < scene->input.canvas->columns; column++) {
        const float *fractions = device->level_fraction + (size_t)column * 4;
        float best = 0;
        int level = -1;
        for (int l = 0; l < 4; l++)
            if (fractions[l] > best) {
                best = fractions[l];
                level = l;
            }
        scene->column_keys[column] = level;
    }
    scene_paint_runs(scene, cr, rgb, alpha, 4, y, STRIP_HEIGHT);
}

static int compare_intervals(const void *left, const void *right)
{
    const struct canvas_interval *a = left, *b = right;
    return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* Outlines each kept interval, so neighbours of one colour stay apart. */
static void paint_outlines(const struct scene *scene, cairo_t *cr, const struct canvas_lane *lane, double y,
                           double height)
{
    if (lane->kept_count > 1)
        qsort(lane->kept, lane->kept_count, sizeof *lane->kept, compare_intervals);
    double hairline = 1 / scene->input.scale;
    cairo_set_line_width(cr, hairline);
    for (size_t i = 0; i < lane->kept_count; i++) {
        const struct canvas_interval *interval = &lane->kept[i];
        double x0 = scene_clamp_x(scene, scene_x_of(scene, interval->start_ns)),
               x1 = scene_clamp_x(scene, scene_x_of(scene, interval->end_ns));
        scene_set_colour(cr, darker(palette_colour(interval->kind), 0.55), 1);
        cairo_rectangle(cr, x0 + hairline / 2, y + hairline / 2, x1 - x0 - hairline, height - hairline);
        cairo_stroke(cr);
    }
}

/* Writes each kept interval's label where it fits without touching text already placed (the
 * wait tags go first: the explanation matters more than a name). */
int scene_paint_interval_labels(struct scene *scene, cairo_t *cr, const struct canvas_lane *lane, double y,
                                double height)
{
    if (height < MIN_LABELLED_LANE)
        return 0;
    for (size_t i = 0; i < lane->kept_count; i++) {
        const struct canvas_interval *interval = &lane->kept[i];
        double x0 = scene_clamp_x(scene, scene_x_of(scene, interval->start_ns)),
               x1 = scene_clamp_x(scene, scene_x_of(scene, interval->end_ns));
        if (x1 - x0 < 24)
            continue;
        char text[160];
        labels_text(scene->labels, interval, text, sizeof text);
        uint32_t colour = palette_colour(interval->kind);
        struct text_style style = {
            INTERVAL_SIZE, 0, palette_text_on(colour), ALIGN_CENTER, x1 - x0 - 6, 1, 0};
        if (scene_draw_text(scene, cr, TIMELINE_TEXT_INTERVAL, text, (x0 + x1) / 2,
                            y + height / 2 + INTERVAL_SIZE * 0.36, &style) < 0)
            return -1;
    }
    return 0;
}

int scene_record_lane(struct scene *scene, enum timeline_lane_kind kind, const struct canvas_lane *lane,
                      const struct group *group, double y, double height, const char *title)
{
    struct timeline_layout *layout = scene->layout;
    struct timeline_lane_place *place = &layout->lanes[layout->lane_count++];
    memset(place, 0, sizeof *place);
    place->kind = kind;
    place->process_id = group->process_id;
    place->rank = group->rank;
    place->device_id = group->device_id;
    if (lane) {
        place->stream_id = lane->stream_id;
        place->thread_id = lane->thread_id;
        place->depth = lane->depth;
    }
    place->box = (struct timeline_box){scene->plot_left, y, scene->plot_right - scene->plot_left, height};
    snprintf(place->title, sizeof place->title, "%s", title);
    return 0;
}

/* The what-if's ghost end (docs/metrics.md, "What-if"): a thin dashed line across the device's
 * lanes where its span would end with every proved fix made (span end minus the model's headroom),
 * labelled with the saving. Nothing when the model predicts no saving, or when the analysis or the
 * picture does not span the whole run: the saving shortens the whole span of the work replayed, so a
 * line inside a window (the default steady-state picture, whose analysis is the window's) would
 * mark a time the fix has nothing to do with. */
static int paint_ghost_end(struct scene *scene, cairo_t *cr, const struct group *group)
{
    const struct analysis_result *analysis = scene->input.analysis;
    const struct analysis_device *device = NULL;
    for (size_t i = 0; analysis && group->device && i < analysis->device_count; i++)
        if (analysis->devices[i].process_id == group->process_id &&
            analysis->devices[i].device_id == group->device_id)
            device = &analysis->devices[i];
    if (!device || device->headroom_ns <= 0 || group->lane_count == 0 || analysis->selection.time_restricted)
        return 0;
    int64_t ghost_ns = device->span_end_ns - device->headroom_ns;
    const struct canvas *canvas = scene->input.canvas;
    if (ghost_ns < canvas->window_start_ns || canvas->window_end_ns < device->span_end_ns)
        return 0;
    double x = scene_x_of(scene, ghost_ns);
    const struct placed_lane *last = &scene->lanes[group->first_lane + group->lane_count - 1];
    static const double dash[] = {4, 3};
    scene_set_colour(cr, PALETTE_MUTED_TEXT, 0.9);
    cairo_set_line_width(cr, 1);
    cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, x, group->strip_y);
    cairo_line_to(cr, x, last->y + scene->lane_height);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    char saving[32], label[48];
    units_format_duration(saving, sizeof saving, device->headroom_ns);
    /* "up to" as the report says it, by the one rule (kernels side by side, all the host's work) */
    struct analysis_what_if all = {.fix = ANALYSIS_FIX_ALL,
                                   .predicted_saving_ns = device->headroom_ns,
                                   .newly_together_ns = device->fix_together_ns[ANALYSIS_FIX_ALL],
                                   .host_work_ns = analysis_device_host_work_ns(device, ANALYSIS_FIX_ALL)};
    snprintf(label, sizeof label, "if fixed: %s-%s", analysis_what_if_upper_bound(&all) ? "up to " : "",
             saving);
    /* Left of the line when it fits there, else right of it. */
    double baseline = group->strip_y + STRIP_HEIGHT - 2;
    struct text_style style = {AXIS_SIZE, 0, PALETTE_MUTED_TEXT, ALIGN_RIGHT, x - scene->plot_left - 3, 1,
                               1,         1};
    int drawn = scene_draw_text(scene, cr, TIMELINE_TEXT_WAIT, label, x - 3, baseline, &style);
    style.align = ALIGN_LEFT;
    style.max_width = scene->plot_right - x - 3;
    if (drawn == 0)
        drawn = scene_draw_text(scene, cr, TIMELINE_TEXT_WAIT, label, x + 3, baseline, &style);
    return drawn < 0 ? -1 : 0;
}

int scene_paint_group_head(struct scene *scene, cairo_t *cr, const struct group *group)
{
    struct text_style header = {GROUP_SIZE, 1, PALETTE_TEXT, ALIGN_LEFT, scene->input.width_css - 2 * MARGIN,
                                0,          0};
    if (scene_draw_text(scene, cr, TIMELINE_TEXT_GROUP, group->title, MARGIN,
                        group->header_y + GROUP_HEADER - 7, &header) < 0)
        return -1;
    struct text_style lane_title = {LANE_TITLE_SIZE, 0, PALETTE_TEXT, ALIGN_RIGHT, LABEL_COLUMN - 20, 0, 0};
    if (group->device) {
        paint_strip(scene, cr, group->device, group->strip_y);
        struct text_style strip_title = lane_title;
        strip_title.size = AXIS_SIZE;
        strip_title.rgb = PALETTE_MUTED_TEXT;
        if (scene_draw_text(scene, cr, TIMELINE_TEXT_LANE, "streams busy", scene->plot_left - 10,
                            group->strip_y + STRIP_HEIGHT - 2, &strip_title) < 0 ||
            scene_record_lane(scene, TIMELINE_LANE_CONCURRENCY, NULL, group, group->strip_y, STRIP_HEIGHT,
                              "streams busy") != 0)
            return -1;
    }
    return 0;
}

int scene_paint_group_lanes(struct scene *scene, cairo_t *cr, const struct group *group)
{
    struct text_style lane_title = {LANE_TITLE_SIZE, 0, PALETTE_TEXT, ALIGN_RIGHT, LABEL_COLUMN - 20, 0, 0};
    for (size_t i = 0; i < group->lane_count; i++) {
        const struct placed_lane *placed = &scene->lanes[group->first_lane + i];
        double y = placed->y, height = scene->lane_height;
        paint_lane_columns(scene, cr, placed->lane, y, height);
        paint_outlines(scene, cr, placed->lane, y, height);
        lane_title.size = height < LANE_TITLE_SIZE + 2 ? height - 2 : LANE_TITLE_SIZE;
        if (lane_title.size >= 6 &&
            scene_draw_text(scene, cr, TIMELINE_TEXT_LANE, placed->title, scene->plot_left - 10,
                            y + height / 2 + lane_title.size * 0.36, &lane_title) < 0)
            return -1;
        enum timeline_lane_kind kind = placed->lane->kind == CANVAS_LANE_GPU    ? TIMELINE_LANE_GPU
                                       : placed->lane->kind == CANVAS_LANE_HOST ? TIMELINE_LANE_HOST
                                                                                : TIMELINE_LANE_NVTX;
        scene_record_lane(scene, kind, placed->lane, group, y, height, placed->title);
    }
    return paint_ghost_end(scene, cr, group);
}
