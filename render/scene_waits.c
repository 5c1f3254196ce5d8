/* scene_waits.c: the explained waits: the hatched window on the waiting lane, a connector from
 * the blocking operation, and the cause's tag on the lane, in the device's tag row, or cut short. */
#include "scene_private.h"

#include <math.h>
#include <stdlib.h>

void scene_hatch(cairo_t *cr, double x, double y, double width, double height, double line_width)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, width, height);
    cairo_clip(cr);
    scene_set_colour(cr, PALETTE_WAIT, 0.8);
    cairo_set_line_width(cr, line_width);
    for (double d = -height; d < width + height; d += HATCH_SPACING) {
        cairo_move_to(cr, x + d, y + height);
        cairo_line_to(cr, x + d + height, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* --- explained waits --- */

static const struct placed_lane *placed_lane_of_op(const struct scene *scene, const struct analysis_op *op)
{
    const struct analysis_result *analysis = scene->input.analysis;
    if (!analysis || op->lane >= analysis->lane_count)
        return NULL;
    const struct analysis_lane *key = &analysis->lanes[op->lane];
    for (size_t i = 0; i < scene->lane_count; i++) {
        const struct canvas_lane *lane = scene->lanes[i].lane;
        if (lane->kind == CANVAS_LANE_GPU && lane->process_id == key->process_id &&
            lane->device_id == key->device_id && lane->stream_id == key->stream_id)
            return &scene->lanes[i];
    }
    return NULL;
}

static int wait_is_drawn(const struct scene *scene, const struct analysis_wait *wait)
{
    const struct canvas *canvas = scene->input.canvas;
    return wait->wait_end_ns >= canvas->window_start_ns && wait->wait_start_ns <= canvas->window_end_ns &&
           placed_lane_of_op(scene, &wait->waiting) != NULL;
}

int scene_waits_to_draw(const struct scene *scene)
{
    const struct analysis_result *analysis = scene->input.analysis;
    int count = 0;
    for (size_t i = 0; analysis && i < analysis->wait_count && count < scene->input.max_waits; i++)
        count += wait_is_drawn(scene, &analysis->waits[i]);
    return count;
}

/* The group of a placed lane. */
static struct group *group_of(struct scene *scene, const struct placed_lane *placed)
{
    size_t index = (size_t)(placed - scene->lanes);
    for (size_t g = 0; g < scene->group_count; g++)
        if (index >= scene->groups[g].first_lane &&
            index < scene->groups[g].first_lane + scene->groups[g].lane_count)
            return &scene->groups[g];
    return NULL;
}

/* A line from the blocking op's end to the waiting op's start, with an arrowhead there; a
 * white halo under it keeps it visible over any colour. */
static void paint_connector(cairo_t *cr, double x0, double y0, double x1, double y1)
{
    double angle = atan2(y1 - y0, x1 - x0), head = 6;
    for (int pass = 0; pass < 2; pass++) {
        scene_set_colour(cr, pass == 0 ? PALETTE_BACKGROUND : PALETTE_WAIT, pass == 0 ? 0.9 : 1);
        cairo_set_line_width(cr, pass == 0 ? 3.5 : 1.4);
        cairo_move_to(cr, x0, y0);
        cairo_line_to(cr, x1, y1);
        cairo_stroke(cr);
        cairo_move_to(cr, x1, y1);
        cairo_line_to(cr, x1 - head * cos(angle - 0.45), y1 - head * sin(angle - 0.45));
        cairo_line_to(cr, x1 - head * cos(angle + 0.45), y1 - head * sin(angle + 0.45));
        cairo_close_path(cr);
        cairo_fill(cr);
    }
}

static int record_wait(struct scene *scene, const struct timeline_box *box, size_t index, int has_tag,
                       int has_connector)
{
    struct timeline_layout *layout = scene->layout;
    layout->waits[layout->wait_count++] = (struct timeline_wait_mark){*box, index, has_tag, has_connector};
    return 0;
}

/* Whether the lane shows nothing between x0 and x1 (CSS pixels): a tag there hides no bar. */
static int lane_clear(const struct scene *scene, const struct canvas_lane *lane, double x0, double x1)
{
    double scale = scene->input.scale;
    int first = (int)floor((x0 - scene->plot_left) * scale),
        last = (int)ceil((x1 - scene->plot_left) * scale);
    for (int c = first < 0 ? 0 : first; c <= last && c < scene->input.canvas->columns; c++)
        if (canvas_column_coverage(lane, c, NULL) > 0)
            return 0;
    return 1;
}

/* Where a wait's tag is tried on its lane, in order: whole, inside the hatched window, smaller
 * inside, right of it, left of it; or (shortened) cut short inside. */
static const struct {
    double size;
    enum align align;
    int whole;
} tag_tries[] = {{WAIT_SIZE, ALIGN_CENTER, 1},
                 {WAIT_SIZE - 2, ALIGN_CENTER, 1},
                 {WAIT_SIZE, ALIGN_LEFT, 1},
                 {WAIT_SIZE, ALIGN_RIGHT, 1},
                 {WAIT_SIZE - 2, ALIGN_CENTER, 0}};
#define TAG_TRIES (sizeof tag_tries / sizeof tag_tries[0])

/* Where try i puts the tag for the window [x0, x1] on lane: its anchor, the room it has, and the
 * span [*left, *right] it would take. Returns 1 when that span shows no bar of the lane (and,
 * for a whole try, the tag fits the room). */
static int tag_try(const struct scene *scene, cairo_t *cr, const struct canvas_lane *lane, const char *tag,
                   double x0, double x1, size_t i, double *anchor, double *room, double *left, double *right)
{
    enum align align = tag_tries[i].align;
    *anchor = align == ALIGN_CENTER ? (x0 + x1) / 2 : align == ALIGN_LEFT ? x1 + 4 : x0 - 4;
    *room = align == ALIGN_CENTER ? x1 - x0 - 6
            : align == ALIGN_LEFT ? scene->plot_right - *anchor
                                  : *anchor - scene->plot_left;
    scene_select_font(cr, tag_tries[i].size, 1);
    double full = scene_shown_width(cr, tag), width = fmin(full, *room);
    *left = align == ALIGN_CENTER ? *anchor - width / 2 : align == ALIGN_LEFT ? *anchor : *anchor - width;
    *right = *left + width;
    return (!tag_tries[i].whole || full <= *room) && lane_clear(scene, lane, *left, *right);
}

/* The cause's tag on the waiting lane, as tag_tries says. Never over a bar of the lane (the
 * waiting op starts where the window ends). Returns 1 drawn, 0 not, -1 no memory. */
static int paint_tag(struct scene *scene, cairo_t *cr, const struct canvas_lane *lane, const char *tag,
                     double x0, double x1, double y, double height, int shortened)
{
    if (!lane)
        return 0;
    for (size_t i = 0; i < TAG_TRIES; i++) {
        double anchor, room, left, right;
        if (tag_tries[i].whole == shortened ||
            !tag_try(scene, cr, lane, tag, x0, x1, i, &anchor, &room, &left, &right))
            continue;
        struct text_style style = {tag_tries[i].size, 1, PALETTE_TEXT, tag_tries[i].align, room, 1, 1};
        style.whole = tag_tries[i].whole;
        int drawn = scene_draw_text(scene, cr, TIMELINE_TEXT_WAIT, tag, anchor,
                                    y + height / 2 + tag_tries[i].size * 0.36, &style);
        if (drawn != 0)
            return drawn;
    }
    return 0;
}

/* A tag that found no clear place on its lane goes to its device's tag row, above the lanes at
 * the wait's time, where no bar is. Returns 1 drawn, 0 not (no room), -1 no memory. */
static int paint_row_tag(struct scene *scene, cairo_t *cr, const struct group *group, const char *tag,
                         const struct timeline_wait_mark *mark)
{
    if (!group || !group->has_tag_row)
        return 0;
    double middle = mark->box.x + mark->box.width / 2, baseline = group->tag_row_y + TAG_ROW - 5;
    const enum align aligns[] = {ALIGN_CENTER, ALIGN_LEFT, ALIGN_RIGHT};
    for (size_t i = 0; i < 3; i++) {
        double anchor = aligns[i] == ALIGN_LEFT ? middle - 2 : aligns[i] == ALIGN_RIGHT ? middle + 2 : middle;
        double room = aligns[i] == ALIGN_CENTER
                          ? 2 * fmin(middle - scene->plot_left, scene->plot_right - middle)
                      : aligns[i] == ALIGN_LEFT ? scene->plot_right - anchor
                                                : anchor - scene->plot_left;
        struct text_style style = {
            WAIT_SIZE - 1, 1, PALETTE_TEXT, aligns[i], room, 1, 1, 1}; /* backed: a gap */
        int drawn = scene_draw_text(scene, cr, TIMELINE_TEXT_WAIT, tag, anchor, baseline, &style);
        if (drawn != 0)
            return drawn;
    }
    return 0;
}

/* Where a wait is drawn: its window on the waiting lane, widened to MIN_WAIT_WIDTH so that a
 * short one still shows. Returns 0 when the wait is narrower than that (drawn lighter). */
static int wait_box(const struct scene *scene, const struct analysis_wait *wait, struct timeline_box *box)
{
    const struct placed_lane *waiting = placed_lane_of_op(scene, &wait->waiting);
    double x0 = scene_clamp_x(scene, scene_x_of(scene, wait->wait_start_ns)),
           x1 = scene_clamp_x(scene, scene_x_of(scene, wait->wait_end_ns));
    int wide = x1 - x0 >= MIN_WAIT_WIDTH;
    if (!wide) {
        double middle = (x0 + x1) / 2;
        x0 = scene_clamp_x(scene, middle - MIN_WAIT_WIDTH / 2);
        x1 = scene_clamp_x(scene, x0 + MIN_WAIT_WIDTH);
    }
    *box = (struct timeline_box){x0, waiting->y, x1 - x0, scene->lane_height};
    return wide;
}

/* The hatching; a dark frame only around waits wide enough to have an inside, since a frame
 * around a 3-pixel mark is a black bar and a row of them a black blot. */
static void paint_wait_mark(cairo_t *cr, const struct timeline_box *box, int wide)
{
    scene_hatch(cr, box->x, box->y, box->width, box->height, 1.3);
    if (!wide)
        return;
    scene_set_colour(cr, PALETTE_WAIT, 1);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, box->x + 0.5, box->y + 0.5, box->width - 1, box->height - 1);
    cairo_stroke(cr);
}

/* A connector from the blocking op's end to the waiting window, when both lanes show and the
 * blocking end is in the window. Returns 1 when drawn. */
static int paint_wait_connector(const struct scene *scene, cairo_t *cr, const struct analysis_wait *wait,
                                const struct timeline_box *box)
{
    const struct placed_lane *waiting = placed_lane_of_op(scene, &wait->waiting);
    const struct placed_lane *blocking = placed_lane_of_op(scene, &wait->blocking);
    if (!blocking || blocking == waiting || wait->blocking.end_ns < scene->input.canvas->window_start_ns ||
        wait->blocking.end_ns > scene->input.canvas->window_end_ns)
        return 0;
    double from_y = blocking->y + (blocking->y < box->y ? scene->lane_height : 0);
    double to_y = blocking->y < box->y ? box->y : box->y + box->height;
    paint_connector(cr, scene_x_of(scene, wait->blocking.end_ns), from_y, box->x + box->width, to_y);
    return 1;
}

/* A tag placed whole on its lane while laying out, to see whether the next one still fits. */
struct lane_tag {
    const struct placed_lane *lane;
    double left, right;
};

/* Whether the wait's tag finds a whole place on its lane beside the tags placed before it (the
 * waits come largest first, as paint_waits places them); records the place in tags. */
static int tag_fits_on_lane(const struct scene *scene, cairo_t *cr, const struct analysis_wait *wait,
                            struct lane_tag *tags, size_t *count)
{
    const struct placed_lane *waiting = placed_lane_of_op(scene, &wait->waiting);
    struct timeline_box box;
    wait_box(scene, wait, &box);
    for (size_t i = 0; i < TAG_TRIES; i++) {
        double anchor, room, left, right;
        if (!tag_tries[i].whole || !tag_try(scene, cr, waiting->lane, analysis_cause_tag(wait->cause), box.x,
                                            box.x + box.width, i, &anchor, &room, &left, &right))
            continue;
        int free = 1;
        for (size_t t = 0; t < *count && free; t++)
            free = tags[t].lane != waiting || right + 4 <= tags[t].left || tags[t].right + 4 <= left;
        if (free) {
            tags[(*count)++] = (struct lane_tag){waiting, left, right};
            return 1;
        }
    }
    return 0;
}

/* Gives a tag row to every device with a wait whose tag finds no whole place on its lane: a row
 * nothing is written in is an empty band in the picture. Returns 0, or -1 when out of memory. */
int scene_mark_tag_rows(struct scene *scene, cairo_t *measure)
{
    const struct analysis_result *analysis = scene->input.analysis;
    int limit = scene->input.max_waits, count = 0;
    struct lane_tag *tags = calloc(limit > 0 ? (size_t)limit : 1, sizeof *tags);
    size_t placed = 0;
    if (!tags)
        return -1;
    for (size_t i = 0; analysis && i < analysis->wait_count && count < limit; i++) {
        const struct analysis_wait *wait = &analysis->waits[i];
        if (!wait_is_drawn(scene, wait))
            continue;
        count++;
        struct group *group = group_of(scene, placed_lane_of_op(scene, &wait->waiting));
        if (group && !tag_fits_on_lane(scene, measure, wait, tags, &placed))
            group->has_tag_row = 1;
    }
    free(tags);
    return 0;
}

/* Waits in three passes, so that no mark is drawn over an earlier wait's tag: every hatching,
 * then the connectors of the largest waits (MAX_CONNECTORS: beyond that the arrows hide the
 * lanes), then the tags, largest wait first, each where it overlaps no text already placed:
 * whole on its lane where no bar is, else whole in the device's tag row, else cut short. */
int scene_paint_waits(struct scene *scene, cairo_t *cr)
{
    const struct analysis_result *analysis = scene->input.analysis;
    struct timeline_layout *layout = scene->layout;
    for (size_t i = 0;
         analysis && i < analysis->wait_count && layout->wait_count < (size_t)scene->input.max_waits; i++) {
        if (!wait_is_drawn(scene, &analysis->waits[i]))
            continue;
        struct timeline_box box;
        int wide = wait_box(scene, &analysis->waits[i], &box);
        paint_wait_mark(cr, &box, wide);
        record_wait(scene, &box, i, 0, 0);
    }
    for (size_t w = 0; w < layout->wait_count && w < MAX_CONNECTORS; w++)
        layout->waits[w].has_connector = paint_wait_connector(
            scene, cr, &analysis->waits[layout->waits[w].wait_index], &layout->waits[w].box);
    for (size_t w = 0; w < layout->wait_count; w++) {
        struct timeline_wait_mark *mark = &layout->waits[w];
        if (mark->box.height < MIN_LABELLED_LANE)
            continue;
        const struct analysis_wait *wait = &analysis->waits[mark->wait_index];
        const struct placed_lane *waiting = placed_lane_of_op(scene, &wait->waiting);
        const char *tag = analysis_cause_tag(wait->cause);
        const struct timeline_box *box = &mark->box;
        int drawn =
            paint_tag(scene, cr, waiting->lane, tag, box->x, box->x + box->width, box->y, box->height, 0);
        if (drawn == 0)
            drawn = paint_row_tag(scene, cr, group_of(scene, waiting), tag, mark);
        if (drawn == 0)
            drawn =
                paint_tag(scene, cr, waiting->lane, tag, box->x, box->x + box->width, box->y, box->height, 1);
        if (drawn < 0)
            return -1;
        mark->has_tag = drawn;
    }
    return 0;
}
