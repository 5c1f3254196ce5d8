/* scene.c: the scene's life (see scene.h): laying it out, then painting its layers in order
 * (scene_private.h says which file paints which). */
#include "scene_private.h"

#include <math.h>
#include <stdlib.h>

int scene_plot_columns(double width_css, double scale, double *plot_left, double *plot_right)
{
    *plot_left = round((MARGIN + LABEL_COLUMN) * scale) / scale;
    *plot_right = width_css - MARGIN;
    return (int)floor((*plot_right - *plot_left) * scale);
}

struct scene *scene_new(const struct scene_input *input, error_info *err)
{
    struct scene *scene = calloc(1, sizeof *scene);
    if (!scene) {
        error_set(err, "out of memory");
        return NULL;
    }
    scene->input = *input;
    int columns = scene_plot_columns(input->width_css, input->scale, &scene->plot_left, &scene->plot_right);
    scene->plot_right = scene->plot_left + columns / input->scale;
    scene->column_width = 1 / input->scale;
    scene->labels = labels_new(input->trace);
    scene->layout = calloc(1, sizeof *scene->layout);
    size_t columns_plus = (size_t)input->canvas->columns + 1;
    scene->column_keys = malloc(columns_plus * sizeof *scene->column_keys);
    scene->run_first = malloc(columns_plus * sizeof *scene->run_first);
    scene->run_by_key = malloc(columns_plus * sizeof *scene->run_by_key);
    scene->key_start = malloc((PAINT_KEYS + 1) * sizeof *scene->key_start);
    if (!scene->labels || !scene->layout || !scene->column_keys || !scene->run_first || !scene->run_by_key ||
        !scene->key_start || scene_place_lanes(scene) != 0) {
        scene_free(scene);
        error_set(err, "cannot lay the timeline out: out of memory or a damaged trace");
        return NULL;
    }
    size_t waits = input->analysis ? (size_t)scene_waits_to_draw(scene) : 0;
    size_t stretches = scene_mark_accounting_lanes(scene);
    scene->layout->lanes =
        calloc(scene->lane_count + 2 * scene->group_count + 1, sizeof *scene->layout->lanes);
    scene->layout->waits = calloc(waits + 1, sizeof *scene->layout->waits);
    scene->layout->accounting_marks = calloc(stretches + 1, sizeof *scene->layout->accounting_marks);
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *measure = cairo_create(surface);
    scene->title_height = scene_title_height(scene, measure);
    scene->legend_height = scene_legend(scene, NULL, measure, 0);
    int tag_rows = scene_mark_tag_rows(scene, measure);
    cairo_destroy(measure);
    cairo_surface_destroy(surface);
    if (!scene->layout->lanes || !scene->layout->waits || !scene->layout->accounting_marks || tag_rows != 0) {
        scene_free(scene);
        error_set(err, "out of memory");
        return NULL;
    }
    scene_layout_rows(scene);
    return scene;
}

double scene_height_css(const struct scene *scene)
{
    return scene->height;
}

int scene_paint(struct scene *scene, cairo_t *cr, error_info *err)
{
    struct timeline_layout *layout = scene->layout;
    const struct canvas *canvas = scene->input.canvas;
    layout->scale = scene->input.scale;
    layout->plot_left = scene->plot_left;
    layout->plot_right = scene->plot_right;
    layout->window_start_ns = canvas->window_start_ns;
    layout->window_end_ns = canvas->window_end_ns;
    layout->origin_ns = scene->input.origin_ns;
    scene_set_colour(cr, PALETTE_BACKGROUND, 1);
    cairo_paint(cr);
    /* Lane backgrounds first so the axis's grid lines show through the empty parts of lanes. */
    scene_set_colour(cr, PALETTE_LANE_BACKGROUND, 1);
    for (size_t i = 0; i < scene->lane_count; i++)
        cairo_rectangle(cr, scene->plot_left, scene->lanes[i].y, scene->plot_right - scene->plot_left,
                        scene->lane_height);
    cairo_fill(cr);
    if (scene_paint_title(scene, cr) != 0 || scene_legend(scene, cr, cr, MARGIN + scene->title_height) < 0 ||
        scene_paint_axis(scene, cr) != 0)
        return error_set(err, "out of memory");
    for (size_t g = 0; g < scene->group_count; g++) {
        const struct group *group = &scene->groups[g];
        if (scene_paint_group_head(scene, cr, group) != 0 ||
            (group->has_accounting && scene_paint_accounting(scene, cr, group) != 0) ||
            scene_paint_group_lanes(scene, cr, group) != 0)
            return error_set(err, "out of memory");
    }
    if (scene_paint_waits(scene, cr) != 0)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < scene->lane_count; i++)
        if (scene_paint_interval_labels(scene, cr, scene->lanes[i].lane, scene->lanes[i].y,
                                        scene->lane_height) != 0)
            return error_set(err, "out of memory");
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return error_set(err, "cannot draw: %s", cairo_status_to_string(cairo_status(cr)));
    return 0;
}

struct timeline_layout *scene_take_layout(struct scene *scene)
{
    struct timeline_layout *layout = scene->layout;
    scene->layout = NULL;
    return layout;
}

void scene_free(struct scene *scene)
{
    if (!scene)
        return;
    labels_free(scene->labels);
    timeline_layout_free(scene->layout);
    free(scene->lanes);
    free(scene->groups);
    free(scene->column_keys);
    free(scene->run_first);
    free(scene->run_by_key);
    free(scene->key_start);
    free(scene);
}
