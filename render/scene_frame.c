/* scene_frame.c: the layers around the lanes: the title with the analysis's key figures, the
 * legend of what the picture's colours and hatchings mean, and the time axis with its grid. */
#include "scene_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "units.h"

/* --- the legend --- */

struct legend_entry {
    int kind;  /* palette kind, or one of the two below */
    int level; /* concurrency level for LEGEND_CONCURRENCY */
    const char *name;
};
enum {
    LEGEND_WAIT = 100,
    LEGEND_CONCURRENCY = 101,
    LEGEND_CONCURRENCY_TITLE = 102,
    LEGEND_ACCOUNTING = 110 /* + a timeline_accounting_style */
};

static size_t legend_entries(const struct scene *scene, struct legend_entry *entries)
{
    int64_t busy[PALETTE_KIND_COUNT] = {0};
    for (size_t i = 0; i < scene->lane_count; i++)
        for (int k = 0; k < PALETTE_KIND_COUNT; k++)
            busy[k] += scene->lanes[i].lane->intervals_by_kind[k];
    size_t count = 0;
    for (int k = 0; k < PALETTE_KIND_COUNT; k++)
        if (busy[k] > 0)
            entries[count++] = (struct legend_entry){k, 0, palette_name(k)};
    if (scene_waits_to_draw(scene) > 0)
        entries[count++] = (struct legend_entry){LEGEND_WAIT, 0, "explained wait (cause)"};
    for (int style = 0; style < TIMELINE_ACCOUNTING_STYLE_COUNT; style++)
        if (scene->accounting_styles[style] > 0)
            entries[count++] =
                (struct legend_entry){LEGEND_ACCOUNTING + style, 0, scene_accounting_looks[style].legend};
    entries[count++] = (struct legend_entry){LEGEND_CONCURRENCY_TITLE, 0, "streams busy:"};
    static const char *const levels[4] = {"0", "1", "2", "3+"};
    for (int level = 0; level < 4; level++)
        entries[count++] = (struct legend_entry){LEGEND_CONCURRENCY, level, levels[level]};
    return count;
}

static double legend_entry_width(cairo_t *cr, const struct legend_entry *entry)
{
    scene_select_font(cr, LEGEND_SIZE, 0);
    double text = scene_shown_width(cr, entry->name);
    if (entry->kind == LEGEND_CONCURRENCY_TITLE)
        return text + 6;
    if (entry->kind == LEGEND_CONCURRENCY)
        return SWATCH + 4 + text + 8;
    return SWATCH + 6 + text + 20;
}
static int record_swatch(struct scene *scene, const struct timeline_box *box, uint32_t rgb, int hatched,
                         const char *name)
{
    struct timeline_layout *layout = scene->layout;
    if (layout->legend_count == scene->legend_capacity) {
        size_t grown = scene->legend_capacity ? scene->legend_capacity * 2 : 16;
        struct timeline_swatch *resized = realloc(layout->legend, grown * sizeof *resized);
        if (!resized)
            return -1;
        layout->legend = resized;
        scene->legend_capacity = grown;
    }
    struct timeline_swatch *swatch = &layout->legend[layout->legend_count++];
    swatch->box = *box;
    swatch->rgb = rgb;
    swatch->hatched = hatched;
    snprintf(swatch->name, sizeof swatch->name, "%s", name);
    return 0;
}

/* Lays the legend out in rows that fit the width; paints when cr is not NULL. Returns the
 * height used, or -1 when out of memory. */
double scene_legend(struct scene *scene, cairo_t *cr, cairo_t *measure, double top)
{
    struct legend_entry entries[PALETTE_KIND_COUNT + 8 + TIMELINE_ACCOUNTING_STYLE_COUNT];
    size_t count = legend_entries(scene, entries);
    double x = MARGIN, y = top, right = scene->input.width_css - MARGIN;
    for (size_t i = 0; i < count; i++) {
        const struct legend_entry *entry = &entries[i];
        double width = legend_entry_width(measure, entry), unit_width = width;
        /* "streams busy: 0 1 2 3+" wraps as one unit. */
        for (size_t j = i + 1; entry->kind == LEGEND_CONCURRENCY_TITLE && j < count; j++)
            unit_width += legend_entry_width(measure, &entries[j]);
        if ((entry->kind != LEGEND_CONCURRENCY && x + unit_width > right) && x > MARGIN) {
            x = MARGIN;
            y += LEGEND_ROW;
        }
        if (cr) {
            struct timeline_box swatch = {x, y + 2, SWATCH, SWATCH};
            double text_x = x + SWATCH + (entry->kind == LEGEND_CONCURRENCY ? 4 : 6);
            int look = entry->kind - LEGEND_ACCOUNTING;
            int is_accounting = look >= 0 && look < TIMELINE_ACCOUNTING_STYLE_COUNT;
            int hatched =
                entry->kind == LEGEND_WAIT || (is_accounting && scene_accounting_looks[look].hatched);
            uint32_t rgb = entry->kind < PALETTE_KIND_COUNT    ? palette_colour(entry->kind)
                           : entry->kind == LEGEND_CONCURRENCY ? palette_concurrency_colour(entry->level)
                           : is_accounting                     ? scene_accounting_looks[look].fill
                                                               : PALETTE_WAIT;
            if (entry->kind == LEGEND_CONCURRENCY_TITLE) {
                text_x = x;
            } else {
                if (hatched) {
                    scene_set_colour(cr, entry->kind == LEGEND_WAIT ? PALETTE_LANE_BACKGROUND : rgb, 1);
                    cairo_rectangle(cr, swatch.x, swatch.y, swatch.width, swatch.height);
                    cairo_fill(cr);
                    scene_hatch(cr, swatch.x, swatch.y, swatch.width, swatch.height, 1.2);
                } else {
                    scene_set_colour(cr, rgb, 1);
                    cairo_rectangle(cr, swatch.x, swatch.y, swatch.width, swatch.height);
                    cairo_fill(cr);
                }
                scene_set_colour(cr, 0x666666, 1);
                cairo_set_line_width(cr, 0.75);
                cairo_rectangle(cr, swatch.x + 0.375, swatch.y + 0.375, swatch.width - 0.75,
                                swatch.height - 0.75);
                cairo_stroke(cr);
                if (record_swatch(scene, &swatch, rgb, hatched, entry->name) != 0)
                    return -1;
            }
            struct text_style style = {LEGEND_SIZE, 0, PALETTE_TEXT, ALIGN_LEFT, right - text_x, 0, 0};
            if (scene_draw_text(scene, cr, TIMELINE_TEXT_LEGEND, entry->name, text_x, y + 2 + SWATCH - 2,
                                &style) < 0)
                return -1;
        }
        x += width;
    }
    return y + LEGEND_ROW - top;
}

/* --- the title --- */

static void describe_window(const struct scene *scene, char *text, size_t size)
{
    const struct canvas *canvas = scene->input.canvas;
    char from[32], to[32], whole[32];
    int64_t step = axis_tick_step_ns(canvas->window_end_ns - canvas->window_start_ns, 100);
    int64_t largest = canvas->window_end_ns - scene->input.origin_ns;
    axis_format_tick(from, sizeof from, canvas->window_start_ns - scene->input.origin_ns, step, largest);
    axis_format_tick(to, sizeof to, largest, step, largest);
    if (scene->input.trace_end_ns != STORE_NULL && (canvas->window_start_ns > scene->input.origin_ns ||
                                                    canvas->window_end_ns < scene->input.trace_end_ns))
        snprintf(
            text, size, "window %s \xe2\x80\x93 %s of %s", from, to,
            units_format_duration(whole, sizeof whole, scene->input.trace_end_ns - scene->input.origin_ns));
    else
        snprintf(text, size, "%s of GPU time", units_format_duration(whole, sizeof whole, largest));
    const char *note = scene->input.window_note;
    if (note && note[0]) {
        size_t used = strlen(text);
        snprintf(text + used, size - used, "  \xc2\xb7  %s", note);
    }
}

/* "  ·  GPU idle 3.87 ms (68%, most: host-sync)": the drawn devices' idle time summed, its share
 * of their spans, and its largest cause (the accounting's whole-span entries, summed per cause
 * over the devices); "GPUs idle" for several devices; "" when they never idled. */
static void idle_figure(const struct analysis_result *analysis, char *text, size_t size)
{
    int64_t idle_ns = 0, span_ns = 0, by_cause[ACCOUNTING_CAUSE_COUNT] = {0};
    for (size_t i = 0; i < analysis->device_count; i++) {
        idle_ns += analysis->devices[i].idle_ns;
        span_ns += analysis->devices[i].span_end_ns - analysis->devices[i].span_start_ns;
    }
    for (size_t a = 0; a < analysis->accounting_count; a++)
        for (size_t e = 0;
             analysis->accountings[a].step == -1 && e < analysis->accountings[a].idle.entry_count; e++) {
            const struct accounting_entry *entry = &analysis->accountings[a].idle.entries[e];
            if (entry->cause >= 0 && entry->cause < ACCOUNTING_CAUSE_COUNT)
                by_cause[entry->cause] += entry->ns;
        }
    int top = 0;
    for (int c = 1; c < ACCOUNTING_CAUSE_COUNT; c++)
        top = by_cause[c] > by_cause[top] ? c : top;
    text[0] = '\0';
    if (idle_ns <= 0 || span_ns <= 0)
        return;
    char idle[32], most[48] = "";
    if (by_cause[top] > 0)
        snprintf(most, sizeof most, ", most: %s", accounting_cause_tag((enum accounting_cause)top));
    snprintf(text, size, "  \xc2\xb7  GPU%s idle %s (%.0f%%%s)", analysis->device_count > 1 ? "s" : "",
             units_format_duration(idle, sizeof idle, idle_ns), 100.0 * (double)idle_ns / (double)span_ns,
             most);
}

static void key_figures(const struct scene *scene, char *text, size_t size)
{
    const struct analysis_result *analysis = scene->input.analysis;
    char window[256], exposed[32], total[32], lost[32], cause[64] = "";
    describe_window(scene, window, sizeof window);
    if (!analysis) {
        snprintf(text, size, "%s  \xc2\xb7  overlap figures: run with the analyzer", window);
        return;
    }
    char communication[160];
    if (analysis->total_communication_ns > 0)
        snprintf(communication, sizeof communication,
                 "communication overlapped %.1f%%  \xc2\xb7  exposed communication %s of %s",
                 100.0 * analysis->communication_overlap_ratio,
                 units_format_duration(exposed, sizeof exposed, analysis->total_exposed_communication_ns),
                 units_format_duration(total, sizeof total, analysis->total_communication_ns));
    else
        snprintf(communication, sizeof communication, "no NCCL communication");
    if (analysis->causes[0].lost_ns > 0)
        snprintf(cause, sizeof cause, " (most: %s)", analysis_cause_tag(analysis->causes[0].cause));
    char idle[128];
    idle_figure(analysis, idle, sizeof idle);
    snprintf(text, size, "%s  \xc2\xb7  lost to waits %s%s%s  \xc2\xb7  %s", communication,
             units_format_duration(lost, sizeof lost, analysis->total_lost_ns), cause, idle, window);
}

#define FIGURES_SEPARATOR "  \xc2\xb7  "
#define FIGURES_LINE 19.0
#define FIGURES_MAX_LINES 4 /* a 600 px picture of a DDP run needs 4 */

/* Breaks the key figures into lines that fit the width, only between figures. Returns the
 * number of lines written into lines[] (at most max_lines). */
static int figure_lines(const struct scene *scene, cairo_t *measure, char lines[][512], int max_lines)
{
    char figures[512];
    key_figures(scene, figures, sizeof figures);
    scene_select_font(measure, SUBTITLE_SIZE, 0);
    double width = scene->input.width_css - 2 * MARGIN;
    int count = 0;
    lines[0][0] = '\0';
    for (char *figure = figures; figure && count < max_lines;) {
        char *next = strstr(figure, FIGURES_SEPARATOR);
        if (next) {
            *next = '\0';
            next += strlen(FIGURES_SEPARATOR);
        }
        char candidate[512];
        snprintf(candidate, sizeof candidate, "%s%s%s", lines[count],
                 lines[count][0] ? FIGURES_SEPARATOR : "", figure);
        /* A line also ends before the layout's record of a text would cut it. */
        if (lines[count][0] && (scene_shown_width(measure, candidate) > width ||
                                strlen(candidate) >= sizeof scene->layout->texts->text)) {
            if (++count == max_lines)
                break;
            snprintf(lines[count], 512, "%s", figure);
        } else {
            snprintf(lines[count], 512, "%s", candidate);
        }
        figure = next;
    }
    return count < max_lines ? count + 1 : max_lines;
}

double scene_title_height(const struct scene *scene, cairo_t *measure)
{
    char lines[FIGURES_MAX_LINES][512];
    return TITLE_SIZE + 8 + figure_lines(scene, measure, lines, FIGURES_MAX_LINES) * FIGURES_LINE + 6;
}

int scene_paint_title(struct scene *scene, cairo_t *cr)
{
    double width = scene->input.width_css - 2 * MARGIN;
    struct text_style title = {TITLE_SIZE, 1, PALETTE_TEXT, ALIGN_LEFT, width, 0, 0};
    struct text_style subtitle = {SUBTITLE_SIZE, 0, PALETTE_MUTED_TEXT, ALIGN_LEFT, width, 0, 0};
    char lines[FIGURES_MAX_LINES][512];
    int count = figure_lines(scene, cr, lines, FIGURES_MAX_LINES);
    if (scene_draw_text(scene, cr, TIMELINE_TEXT_TITLE, scene->input.title, MARGIN, MARGIN + TITLE_SIZE,
                        &title) < 0)
        return -1;
    for (int i = 0; i < count; i++)
        if (scene_draw_text(scene, cr, TIMELINE_TEXT_TITLE, lines[i], MARGIN,
                            MARGIN + TITLE_SIZE + 8 + (i + 1) * FIGURES_LINE - 4, &subtitle) < 0)
            return -1;
    return 0;
}

/* --- the time axis --- */

int scene_paint_axis(struct scene *scene, cairo_t *cr)
{
    const struct canvas *canvas = scene->input.canvas;
    int64_t span = canvas->window_end_ns - canvas->window_start_ns;
    int max_ticks = (int)((scene->plot_right - scene->plot_left) / 80);
    int64_t step = axis_tick_step_ns(span, max_ticks < 2 ? 2 : max_ticks);
    int64_t origin = scene->input.origin_ns, largest = canvas->window_end_ns - origin;
    scene->layout->tick_step_ns = step;
    int64_t first = canvas->window_start_ns - origin;
    first = first >= 0 ? (first + step - 1) / step * step : -(-first / step * step);
    double bottom = scene->height - MARGIN;
    for (int64_t value = first; value + origin <= canvas->window_end_ns; value += step) {
        double x = floor(scene_x_of(scene, value + origin)) + 0.5;
        scene_set_colour(cr, PALETTE_GRID, 1);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, x, scene->axis_y);
        cairo_line_to(cr, x, bottom);
        cairo_stroke(cr);
        scene_set_colour(cr, PALETTE_MUTED_TEXT, 1);
        cairo_move_to(cr, x, scene->axis_y - 5);
        cairo_line_to(cr, x, scene->axis_y);
        cairo_stroke(cr);
        char text[32];
        axis_format_tick(text, sizeof text, value, step, largest);
        struct text_style style = {AXIS_SIZE, 0, PALETTE_TEXT, ALIGN_CENTER, 200, 1, 0};
        if (x + scene_text_width(cr, text) / 2 > scene->input.width_css - 2)
            style.align = ALIGN_RIGHT;
        else if (x - scene_text_width(cr, text) / 2 < scene->plot_left - 2)
            style.align =
                ALIGN_LEFT; /* a tick at the plot's left edge: its label must not take the caption's place */
        if (scene_draw_text(scene, cr, TIMELINE_TEXT_AXIS, text, x, scene->axis_y - 8, &style) < 0)
            return -1;
    }
    scene_set_colour(cr, PALETTE_MUTED_TEXT, 1);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, scene->plot_left, scene->axis_y + 0.5);
    cairo_line_to(cr, scene->plot_right, scene->axis_y + 0.5);
    cairo_stroke(cr);
    struct text_style caption = {AXIS_SIZE, 0, PALETTE_MUTED_TEXT, ALIGN_RIGHT, LABEL_COLUMN - 12, 1, 0};
    return scene_draw_text(scene, cr, TIMELINE_TEXT_AXIS, "time since first GPU activity",
                           scene->plot_left - 10, scene->axis_y - 8, &caption) < 0
               ? -1
               : 0;
}
