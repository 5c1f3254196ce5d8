/* scene_private.h: the scene's state, its geometry and what its layers share (render/scene*.c
 * only; the contract with the timeline is scene.h). The scene is painted in layers, one file
 * each: scene_text.c places and fits every text, scene_rows.c orders the lanes into device groups
 * and lays the rows out, scene_frame.c paints the title, legend and time axis, scene_lanes.c the
 * device groups' lanes, scene_accounting.c their idle and exposed-communication lanes,
 * scene_waits.c the explained waits, and scene.c runs them in order. */
#ifndef OVERLAPSCOPE_SCENE_PRIVATE_H
#define OVERLAPSCOPE_SCENE_PRIVATE_H

#include <stdint.h>

#include "labels.h"
#include "palette.h"
#include "scene.h"

/* Geometry in CSS pixels, in one place because the layers are sized against each other. Text
 * sizes follow what stays readable in a pull request's image preview, which GitHub scales down
 * to the column width (about 880 px). */
#define MARGIN 16.0
#define LABEL_COLUMN 232.0
#define FONT "DejaVu Sans"
#define TITLE_SIZE 17.0
#define SUBTITLE_SIZE 13.0
#define LEGEND_SIZE 12.0
#define AXIS_SIZE 11.5
#define GROUP_SIZE 13.0
#define LANE_TITLE_SIZE 12.0
#define INTERVAL_SIZE 11.0
#define WAIT_SIZE 11.0
#define LEGEND_ROW 22.0
#define SWATCH 13.0
#define AXIS_HEIGHT 28.0
#define GROUP_HEADER 24.0
#define STRIP_HEIGHT 12.0
#define STRIP_GAP 5.0
#define LANE_HEIGHT 24.0
#define LANE_GAP 3.0
#define GROUP_GAP 14.0
#define TAG_ROW 17.0         /* above a device's lanes: the cause tags that would cover a bar in the lane */
#define ACCOUNTING_LANE 15.0 /* under a device's strip: where its idle and exposed time went */
#define ACCOUNTING_SIZE 9.5
#define MIN_ACCOUNTING_LABEL 40.0      /* a run of one cause narrower than this carries no label */
#define ACCOUNTING_LABEL_SPACING 320.0 /* one cause named at most once per this much of the lane */
#define ACCOUNTING_RUN_GAP 12.0        /* stretches of one cause this close form one run to name */
#define ACCOUNTING_TITLE "idle \xc2\xb7 exposed"
#define MIN_LANE_HEIGHT 6.0
#define MAX_LANE_HEIGHT 64.0
#define MIN_LABELLED_LANE 15.0 /* lanes lower than this carry no interval text */
#define HATCH_SPACING 6.0
#define MIN_WAIT_WIDTH 3.0
#define MAX_CONNECTORS 12

struct placed_lane {
    struct canvas_lane *lane;
    int64_t rank, pid;
    int is_legacy_default;
    char title[96];
    double y;
};

struct group {
    int64_t process_id, rank, pid, device_id; /* device_id -1: the process's host lanes */
    char title[192];
    struct canvas_device *device;
    size_t first_lane, lane_count;
    double header_y, strip_y, tag_row_y, accounting_y;
    int has_tag_row;    /* a wait is drawn on one of its lanes */
    int has_accounting; /* the analysis accounts for some of its time in the window */
};

/* Colour keys of a lane's columns: a palette kind at one of 16 coverage levels. */
#define PAINT_LEVELS 16
#define PAINT_KEYS (PALETTE_KIND_COUNT * PAINT_LEVELS)

struct scene {
    struct scene_input input;
    struct placed_lane *lanes;
    size_t lane_count;
    struct group *groups;
    size_t group_count;
    double lane_height, title_height, legend_height, height;
    double plot_left, plot_right, column_width;
    double axis_y, lanes_top;
    struct labels *labels;
    struct timeline_layout *layout;
    size_t text_capacity, legend_capacity;
    int *column_keys;            /* scratch for paint_runs: a colour key per column, */
    int *run_first, *run_by_key; /* the first column of each run, and the runs by key, */
    int *key_start;              /* and where each key's runs begin (PAINT_KEYS + 1) */
    size_t accounting_styles[TIMELINE_ACCOUNTING_STYLE_COUNT]; /* stretches drawn, per style */
};

/* --- colour and position --- */

static inline void scene_set_colour(cairo_t *cr, uint32_t rgb, double alpha)
{
    cairo_set_source_rgba(cr, ((rgb >> 16) & 0xFF) / 255.0, ((rgb >> 8) & 0xFF) / 255.0, (rgb & 0xFF) / 255.0,
                          alpha);
}

static inline double scene_x_of(const struct scene *scene, int64_t time_ns)
{
    const struct canvas *canvas = scene->input.canvas;
    return scene->plot_left + (double)(time_ns - canvas->window_start_ns) *
                                  (scene->plot_right - scene->plot_left) /
                                  (double)(canvas->window_end_ns - canvas->window_start_ns);
}

static inline double scene_clamp_x(const struct scene *scene, double x)
{
    return x < scene->plot_left ? scene->plot_left : x > scene->plot_right ? scene->plot_right : x;
}

/* --- text (scene_text.c) --- */

enum align { ALIGN_LEFT, ALIGN_CENTER, ALIGN_RIGHT };

struct text_style {
    double size;
    int bold;
    uint32_t rgb;
    enum align align;
    double max_width;
    int must_be_free; /* refuse to draw over an already placed text */
    int backed;       /* white box behind the text (wait tags over hatching) */
    int whole;        /* never shorten: draw all of it or nothing */
};

void scene_select_font(cairo_t *cr, double size, int bold);
/* The width of text in the font selected. */
double scene_text_width(cairo_t *cr, const char *text);
/* The width text takes as drawn: with what the font cannot show replaced (glyphs.h). */
double scene_shown_width(cairo_t *cr, const char *text);
/* Draws text with its baseline at y, anchored at x; records its box. Returns 1 when drawn,
 * 0 when it did not fit or would overlap, -1 when out of memory. */
int scene_draw_text(struct scene *scene, cairo_t *cr, enum timeline_text_kind kind, const char *text,
                    double x, double y, const struct text_style *style);

/* --- rows (scene_rows.c) --- */

/* Orders the canvas's lanes with their titles and groups them by process and device. Returns 0,
 * or -1 when out of memory. */
int scene_place_lanes(struct scene *scene);
/* Places the groups and their lanes under the title and legend; sets the picture's height. */
void scene_layout_rows(struct scene *scene);

/* --- title, legend, axis (scene_frame.c) --- */

double scene_title_height(const struct scene *scene, cairo_t *measure);
int scene_paint_title(struct scene *scene, cairo_t *cr);
/* Lays the legend out in rows that fit the width; paints when cr is not NULL. Returns the
 * height used, or -1 when out of memory. */
double scene_legend(struct scene *scene, cairo_t *cr, cairo_t *measure, double top);
int scene_paint_axis(struct scene *scene, cairo_t *cr);

/* --- lanes (scene_lanes.c) --- */

/* Fills every run of columns whose scene->column_keys share a key (-1: nothing) with that key's
 * colour (rgb[key], alpha[key]). */
void scene_paint_runs(const struct scene *scene, cairo_t *cr, const uint32_t *rgb, const double *alpha,
                      int key_count, double y, double height);
int scene_record_lane(struct scene *scene, enum timeline_lane_kind kind, const struct canvas_lane *lane,
                      const struct group *group, double y, double height, const char *title);
/* A device group is painted head (title, concurrency strip), then its accounting lane
 * (scene_accounting.c), then its lanes and the what-if's ghost end: the texts of each are placed
 * around those of the one before. */
int scene_paint_group_head(struct scene *scene, cairo_t *cr, const struct group *group);
int scene_paint_group_lanes(struct scene *scene, cairo_t *cr, const struct group *group);
/* The kept intervals' labels, painted last: the wait tags go first. */
int scene_paint_interval_labels(struct scene *scene, cairo_t *cr, const struct canvas_lane *lane, double y,
                                double height);

/* --- idle time and exposed communication (scene_accounting.c) --- */

/* The accounting lane's styles: legend text, fill, and whether hatched like a wait. */
extern const struct scene_accounting_look {
    const char *legend;
    uint32_t fill;
    int hatched;
} scene_accounting_looks[TIMELINE_ACCOUNTING_STYLE_COUNT];
/* Gives an accounting lane to every device with accounted time in the window, counts the stretches
 * of each style (the legend's entries) and returns how many stretches will be drawn. */
size_t scene_mark_accounting_lanes(struct scene *scene);
int scene_paint_accounting(struct scene *scene, cairo_t *cr, const struct group *group);

/* --- explained waits (scene_waits.c) --- */

/* Stripes of the wait's colour over the box (a wait, its legend swatch, hatched accounting). */
void scene_hatch(cairo_t *cr, double x, double y, double width, double height, double line_width);
/* How many of the analysis's waits are drawn (max_waits at most). */
int scene_waits_to_draw(const struct scene *scene);
/* Gives a tag row to every device with a wait whose tag finds no whole place on its lane. Returns
 * 0, or -1 when out of memory. */
int scene_mark_tag_rows(struct scene *scene, cairo_t *measure);
int scene_paint_waits(struct scene *scene, cairo_t *cr);

#endif
