/* timeline.c: see timeline.h. Checks the request, streams the trace into a canvas, lays the
 * scene out and paints it on the Cairo surface of the output's format. */
#include "timeline.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "axis.h"
#include "canvas.h"
#include "describe.h"
#include "gpu_devices.h"
#include "output_file.h"
#include "overview.h"
#include "reader.h"
#include "scene.h"
#include "steps.h"
#include "units.h"

/* Intervals at least this many output pixels wide get an outline and may carry a label. */
#define KEEP_MIN_PIXELS 3.0

void timeline_options_init(struct timeline_options *options)
{
    memset(options, 0, sizeof *options);
    options->selection = analysis_selection_of(NULL);
    options->width_px = 1600;
    options->dpi = 96;
    options->max_waits = 64;
}

int timeline_format_from_path(const char *path, enum timeline_format *format, error_info *err)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    if (dot && strcasecmp(dot, ".png") == 0)
        *format = TIMELINE_PNG;
    else if (dot && strcasecmp(dot, ".svg") == 0)
        *format = TIMELINE_SVG;
    else if (dot && strcasecmp(dot, ".pdf") == 0)
        *format = TIMELINE_PDF;
    else if (dot)
        return error_set(err, "'%s': unknown picture format '%s' (use .png, .svg or .pdf)", path, dot);
    else
        return error_set(err, "'%s': no extension to tell the picture format (use .png, .svg or .pdf)", path);
    return 0;
}

static int trace_origin(store *trace, int64_t *origin_ns, error_info *err)
{
    struct store_gpu_device *devices = NULL;
    size_t count = 0;
    if (store_list_gpu_devices(trace, &devices, &count, err) != 0)
        return error_prefix(err, "%s", store_path(trace));
    *origin_ns = store_gpu_devices_first_start(devices, count);
    free(devices);
    if (count == 0)
        return error_set(err, "%s: no GPU activity in the trace", store_path(trace));
    return 0;
}

/* The last end needs a scan (no index orders by end_ns): done only when no window end was
 * given and no analysis says it. */
static int trace_last_end(store *trace, int64_t *last_end_ns, error_info *err)
{
    int found = store_gpu_span(trace, NULL, last_end_ns, err);
    if (found < 0)
        return error_prefix(err, "%s", store_path(trace));
    return found == 1 ? 0 : error_set(err, "%s: no GPU activity in the trace", store_path(trace));
}

static int check_options(const struct timeline_options *options, error_info *err)
{
    if (options->width_px < 320 || options->width_px > 30000)
        return error_set(err, "width %d px is out of range (320 to 30000)", options->width_px);
    if (options->height_px != 0 && (options->height_px < 120 || options->height_px > TIMELINE_MAX_HEIGHT_PX))
        return error_set(err, "height %d px is out of range (120 to %d)", options->height_px,
                         TIMELINE_MAX_HEIGHT_PX);
    if (!(options->dpi >= 24 && options->dpi <= 1200))
        return error_set(err, "dpi %g is out of range (24 to 1200)", options->dpi);
    return 0;
}

/* Settles the window: the options', else the analysis's, else the trace's GPU span. Without a
 * given end, known_end_ns (the overview's, STORE_NULL when none), else an estimate from the
 * indexes (end_is_estimate: reader_fill says whether it was short) rather than a scan of every
 * table. */
static int settle_window(store *trace, const struct analysis_result *analysis,
                         const struct timeline_options *options, int64_t origin_ns, int64_t known_end_ns,
                         int64_t *start_ns, int64_t *end_ns, int *end_is_estimate, error_info *err)
{
    *end_is_estimate = 0;
    const struct analysis_selection *chosen = &options->selection;
    *start_ns = chosen->window_start_ns != STORE_NULL ? chosen->window_start_ns
                : analysis                            ? analysis->selection.window_start_ns
                                                      : origin_ns;
    *end_ns = chosen->window_end_ns != STORE_NULL ? chosen->window_end_ns
              : analysis                          ? analysis->selection.window_end_ns
                                                  : known_end_ns;
    if (*end_ns == STORE_NULL) {
        if (store_gpu_devices_estimate_last_end(trace, end_ns, err) != 0)
            return error_prefix(err, "%s", store_path(trace));
        *end_is_estimate = 1;
        if (*end_ns <= *start_ns && trace_last_end(trace, end_ns, err) != 0)
            return -1;
    }
    if (*end_ns <= *start_ns) {
        char from[32], to[32];
        return error_set(err, "the window %s to %s is empty",
                         units_format_duration(from, sizeof from, *start_ns - origin_ns),
                         units_format_duration(to, sizeof to, *end_ns - origin_ns));
    }
    return 0;
}

/* Says why a window holds nothing: outside the trace, or a quiet part of it. */
static int empty_window_error(store *trace, const struct canvas *canvas, int64_t origin_ns, int64_t last_end,
                              int64_t rank, error_info *err)
{
    char from[32], to[32], span[32];
    units_format_duration(from, sizeof from, canvas->window_start_ns - origin_ns);
    units_format_duration(to, sizeof to, canvas->window_end_ns - origin_ns);
    if (canvas->window_end_ns < origin_ns || canvas->window_start_ns > last_end)
        return error_set(err, "%s: the window %s to %s is outside the trace (GPU activity from 0 to %s)",
                         store_path(trace), from, to,
                         units_format_duration(span, sizeof span, last_end - origin_ns));
    if (rank >= 0)
        return error_set(err, "%s: no GPU activity of rank %" PRId64 " in the window %s to %s",
                         store_path(trace), rank, from, to);
    return error_set(err, "%s: no GPU activity in the window %s to %s", store_path(trace), from, to);
}

static int has_intervals(const struct canvas *canvas)
{
    for (size_t i = 0; i < canvas->lane_count; i++)
        if (canvas->lanes[i]->interval_count > 0)
            return 1;
    return 0;
}

/* The picture's title: the recorded command, else the first process's command line, else the
 * trace's file name. Returns a malloc'd string. */
static char *default_title(store *trace)
{
    char *command = store_get_meta(trace, "command");
    if (command && command[0])
        return command;
    free(command);
    char *title = store_first_command_line(trace);
    if (!title) {
        const char *slash = strrchr(store_path(trace), '/');
        title = strdup(slash ? slash + 1 : store_path(trace));
    }
    return title;
}

static cairo_status_t write_to_file(void *closure, const unsigned char *data, unsigned int length)
{
    return fwrite(data, 1, length, (FILE *)closure) == length ? CAIRO_STATUS_SUCCESS
                                                              : CAIRO_STATUS_WRITE_ERROR;
}

static cairo_surface_t *create_surface(enum timeline_format format, FILE *file, int width_px, int height_px)
{
    switch (format) {
    case TIMELINE_SVG:
        return cairo_svg_surface_create_for_stream(write_to_file, file, width_px, height_px);
    case TIMELINE_PDF:
        return cairo_pdf_surface_create_for_stream(write_to_file, file, width_px, height_px);
    default:
        return cairo_image_surface_create(CAIRO_FORMAT_RGB24, width_px, height_px);
    }
}

/* Paints the scene onto a surface of the format and writes it to file. */
static int paint_and_write(struct scene *scene, enum timeline_format format, FILE *file, int width_px,
                           double scale, const char *path, error_info *err)
{
    int height_px = (int)ceil(scene_height_css(scene) * scale);
    cairo_surface_t *surface = create_surface(format, file, width_px, height_px);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        error_set(err, "cannot create a %dx%d picture: %s", width_px, height_px,
                  cairo_status_to_string(cairo_surface_status(surface)));
        cairo_surface_destroy(surface);
        return -1;
    }
    cairo_t *cr = cairo_create(surface);
    cairo_scale(cr, scale, scale);
    int status = scene_paint(scene, cr, err);
    cairo_destroy(cr);
    if (status == 0) {
        cairo_status_t written = CAIRO_STATUS_SUCCESS;
        if (format == TIMELINE_PNG)
            written = cairo_surface_write_to_png_stream(surface, write_to_file, file);
        cairo_surface_finish(surface);
        if (written == CAIRO_STATUS_SUCCESS)
            written = cairo_surface_status(surface);
        if (written != CAIRO_STATUS_SUCCESS)
            status = error_set(err, "cannot write '%s': %s", path,
                               written == CAIRO_STATUS_WRITE_ERROR ? strerror(errno)
                                                                   : cairo_status_to_string(written));
    }
    cairo_surface_destroy(surface);
    return status;
}

/* Reads the window into a new canvas: from the trace's overview when it has one (has_overview)
 * that serves this picture (overview.h), else by reader_read. */
static struct canvas *read_canvas(store *trace, const struct timeline_options *options, int has_overview,
                                  int64_t start_ns, int64_t end_ns, int end_is_estimate, int columns,
                                  int64_t *trace_end_ns, int *from_overview, error_info *err)
{
    *from_overview = 0;
    /* The overview keeps whole devices of every stream: a --device or --stream picture reads rows. */
    if (has_overview && !options->show_host_calls && !options->show_nvtx &&
        options->selection.device_id < 0 && options->selection.stream_id < 0) {
        struct canvas *canvas = canvas_new(start_ns, end_ns, columns, KEEP_MIN_PIXELS);
        if (!canvas) {
            error_set(err, "out of memory");
            return NULL;
        }
        int filled = overview_fill(canvas, trace, options->selection.rank, trace_end_ns, err);
        if (filled == 1) {
            *from_overview = 1;
            return canvas;
        }
        canvas_free(canvas);
        if (filled < 0) {
            error_prefix(err, "%s", store_path(trace));
            return NULL;
        }
    }
    struct reader_selection selection = {options->selection.rank, options->selection.device_id,
                                         options->selection.stream_id, options->show_host_calls,
                                         options->show_nvtx};
    struct canvas *canvas = reader_read(trace, &selection, start_ns, end_ns, end_is_estimate, columns,
                                        KEEP_MIN_PIXELS, trace_end_ns, err);
    if (!canvas)
        error_prefix(err, "%s", store_path(trace));
    return canvas;
}

/* A picture taller than --height allows (Cairo's image surfaces stop at 32767 px) is refused
 * before it is painted: so many lanes that even the lowest ones do not fit (docs/security.md). */
static int check_height(const struct scene *scene, const struct canvas *canvas, double scale, store *trace,
                        error_info *err)
{
    double height_px = ceil(scene_height_css(scene) * scale);
    if (height_px <= TIMELINE_MAX_HEIGHT_PX)
        return 0;
    return error_set(
        err,
        "%s: %zu lanes make a picture %.0f px tall, over the limit of %d px (docs/security.md); draw fewer"
        " with --rank or --window",
        store_path(trace), canvas->lane_count, height_px, TIMELINE_MAX_HEIGHT_PX);
}

/* What the picture's plot reads: its window's canvas and where it lies in the trace. */
struct plot_source {
    struct canvas *canvas;
    int64_t origin_ns, trace_end_ns;
    int from_overview;
};

/* Settles the window and reads it into source->canvas. Returns 0, or -1 with err filled. */
static int read_plot(store *trace, const struct analysis_result *analysis,
                     const struct timeline_options *options, struct plot_source *source, error_info *err)
{
    int64_t start_ns = 0, end_ns = 0, span_end_ns = STORE_NULL;
    int end_is_estimate = 0;
    *source = (struct plot_source){0};
    /* A current overview knows the GPU span: no index walks for the origin and the end. */
    int has_overview = overview_span(trace, &source->origin_ns, &span_end_ns, err);
    if (has_overview < 0)
        return error_prefix(err, "%s", store_path(trace));
    if ((has_overview == 0 && trace_origin(trace, &source->origin_ns, err) != 0) ||
        settle_window(trace, analysis, options, source->origin_ns, span_end_ns, &start_ns, &end_ns,
                      &end_is_estimate, err) != 0)
        return -1;
    /* Beyond these no recording reaches (store.h); sums over such a window would overflow. */
    if (start_ns < -STORE_MAX_ABS_TIME_NS || end_ns > STORE_MAX_ABS_TIME_NS + STORE_MAX_DURATION_NS ||
        end_ns - start_ns > STORE_MAX_SPAN_NS + STORE_MAX_DURATION_NS)
        return error_set(err,
                         "%s: the window from %" PRId64 " ns to %" PRId64
                         " ns is longer than any recording (the trace is damaged, or the window wrong)",
                         store_path(trace), start_ns, end_ns);
    double scale = options->dpi / 96.0, width_css = options->width_px / scale, plot_left, plot_right;
    int columns = scene_plot_columns(width_css, scale, &plot_left, &plot_right);
    if (columns < 16)
        return error_set(err, "width %d px at %g dpi leaves no room for the plot", options->width_px,
                         options->dpi);
    source->canvas = read_canvas(trace, options, has_overview, start_ns, end_ns, end_is_estimate, columns,
                                 &source->trace_end_ns, &source->from_overview, err);
    if (!source->canvas)
        return -1;
    if (!has_intervals(source->canvas)) {
        empty_window_error(trace, source->canvas, source->origin_ns, source->trace_end_ns,
                           options->selection.rank, err);
        canvas_free(source->canvas);
        source->canvas = NULL;
        return -1;
    }
    return 0;
}

/* Reads the window into a canvas and paints it to the open file. */
static int render(store *trace, const struct analysis_result *analysis,
                  const struct timeline_options *options, enum timeline_format format, FILE *file,
                  const char *path, struct timeline_layout **layout, error_info *err)
{
    struct plot_source source;
    if (read_plot(trace, analysis, options, &source, err) != 0)
        return -1;
    double scale = options->dpi / 96.0, width_css = options->width_px / scale;
    struct canvas *canvas = source.canvas;
    char *title = NULL;
    struct scene *scene = NULL;
    int status = -1;
    title = options->title ? strdup(options->title) : default_title(trace);
    struct scene_input input = {.canvas = canvas,
                                .trace = trace,
                                .analysis = analysis,
                                .title = title ? title : "",
                                .origin_ns = source.origin_ns,
                                .trace_end_ns = source.trace_end_ns,
                                .width_css = width_css,
                                .scale = scale,
                                .height_px = options->height_px,
                                .max_waits = options->max_waits,
                                .window_note = options->window_note};
    scene = scene_new(&input, err);
    if (!scene || check_height(scene, canvas, scale, trace, err) != 0 ||
        paint_and_write(scene, format, file, options->width_px, scale, path, err) != 0)
        goto done;
    if (layout) {
        *layout = scene_take_layout(scene);
        (*layout)->width_px = options->width_px;
        (*layout)->height_px = (int)ceil(scene_height_css(scene) * scale);
        (*layout)->from_overview = source.from_overview;
    }
    status = 0;
done:
    scene_free(scene);
    free(title);
    canvas_free(canvas);
    return status;
}

int timeline_draw(store *trace, const struct analysis_result *analysis,
                  const struct timeline_options *options, const char *path, struct timeline_layout **layout,
                  error_info *err)
{
    struct timeline_options defaults;
    if (!options) {
        timeline_options_init(&defaults);
        options = &defaults;
    }
    if (layout)
        *layout = NULL;
    enum timeline_format format;
    if (timeline_format_from_path(path, &format, err) != 0 || check_options(options, err) != 0)
        return -1;
    /* Checked and reserved before the work, so a refused or unwritable path fails at once. */
    const char *input = store_path(trace);
    output_file *out = output_file_begin(path, options->force, &input, 1, err);
    FILE *file = out ? output_file_stream(out, err) : NULL;
    if (!file) {
        output_file_discard(out);
        return -1;
    }
    int status = render(trace, analysis, options, format, file, path, layout, err);
    if (status == 0)
        status = output_file_commit(out, err);
    else
        output_file_discard(out);
    if (status != 0 && layout) {
        timeline_layout_free(*layout);
        *layout = NULL;
    }
    return status;
}

void timeline_release_caches(void)
{
    cairo_debug_reset_static_data();
    FcFini();
}
