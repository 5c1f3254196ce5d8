/* scene.h: lays out and paints a filled canvas with Cairo: the title with the command and the
 * analysis's key figures, the legend, the time axis, and per device a header, a concurrency
 * strip and its stream lanes (then each process's host lanes), then the explained waits.
 * Sizes are in CSS pixels; the caller scales the Cairo context to the output's resolution.
 * The scene knows nothing of the timeline's options: it is handed what it draws (scene_input)
 * and fills what it placed (timeline_layout.h). */
#ifndef OVERLAPSCOPE_SCENE_H
#define OVERLAPSCOPE_SCENE_H

#include <cairo.h>

#include "analysis.h"
#include "canvas.h"
#include "error.h"
#include "store.h"
#include "timeline_layout.h"

/* Where the plot goes across a picture of width_css CSS pixels drawn at `scale` output pixels
 * per CSS pixel; plot_left falls on a whole output pixel. Returns the number of output-pixel
 * columns of the plot (< 1 when the width cannot hold a plot). */
int scene_plot_columns(double width_css, double scale, double *plot_left, double *plot_right);

struct scene_input {
    struct canvas *canvas;
    store *trace;
    const struct analysis_result *analysis; /* may be NULL */
    const char *title;
    int64_t origin_ns, trace_end_ns; /* trace_end_ns: STORE_NULL when not known */
    double width_css, scale;
    int height_px;           /* 0: from the number of lanes, else the picture's height in output pixels */
    int max_waits;           /* explained waits drawn, largest first */
    const char *window_note; /* NULL, or what the window is, said after it in the figures line */
};

struct scene;

/* Lays the scene out (lane order, positions, the picture's height). Returns NULL with err
 * filled when out of memory. Free with scene_free. */
struct scene *scene_new(const struct scene_input *input, error_info *err);
void scene_free(struct scene *scene);
double scene_height_css(const struct scene *scene);

/* Paints onto cr (already scaled); returns 0, or -1 with err filled. */
int scene_paint(struct scene *scene, cairo_t *cr, error_info *err);

/* Hands over what was placed; the scene no longer owns it. */
struct timeline_layout *scene_take_layout(struct scene *scene);

#endif
