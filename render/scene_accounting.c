/* scene_accounting.c: the accounting lane under a device's strip: where its idle time, its
 * exposed communication and its exposed copy time went (analyzer/accounting.h), each stretch in
 * its style, the causes named where there is room. */
#include "scene_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "naming.h"

const struct scene_accounting_look scene_accounting_looks[TIMELINE_ACCOUNTING_STYLE_COUNT] = {
    [TIMELINE_IDLE_HOST_BLOCKED] = {"idle: host blocked", PALETTE_LANE_BACKGROUND, 1},
    [TIMELINE_IDLE_OTHER] = {"idle: other cause", PALETTE_IDLE, 0},
    [TIMELINE_EXPOSED_COMMUNICATION] = {"exposed comm", PALETTE_EXPOSED_COMMUNICATION, 1},
    [TIMELINE_IDLE_DATA_LOADING] = {"idle: waiting for the DataLoader", PALETTE_IDLE_DATA_LOADING, 0},
    [TIMELINE_IDLE_HOST_WORK] = {"idle: host Python/C++ work", PALETTE_IDLE_HOST_WORK, 0},
    [TIMELINE_IDLE_LOCK_WAIT] = {"idle: lock or GIL wait", PALETTE_IDLE_LOCK_WAIT, 1},
    [TIMELINE_EXPOSED_COPY] = {"exposed copy: SMs wait", PALETTE_EXPOSED_COPY, 1},
};

/* The idle causes' styles come from their rows' picture column (causes.def). */
static enum timeline_accounting_style accounting_style(enum accounting_cause cause)
{
    if (accounting_cause_picture(cause) == CAUSE_PICTURE_EXPOSED_COPY)
        return TIMELINE_EXPOSED_COPY;
    if (!accounting_cause_is_idle(cause))
        return TIMELINE_EXPOSED_COMMUNICATION;
    switch (accounting_cause_picture(cause)) {
    case CAUSE_PICTURE_HOST_BLOCKED:
        return TIMELINE_IDLE_HOST_BLOCKED;
    case CAUSE_PICTURE_DATA_LOADING:
        return TIMELINE_IDLE_DATA_LOADING;
    case CAUSE_PICTURE_HOST_WORK:
        return TIMELINE_IDLE_HOST_WORK;
    case CAUSE_PICTURE_LOCK_WAIT:
        return TIMELINE_IDLE_LOCK_WAIT;
    default:
        return TIMELINE_IDLE_OTHER;
    }
}

/* The device group an accounting interval belongs to, when the picture shows that device. */
static struct group *accounting_group(struct scene *scene, const struct accounting_interval *interval)
{
    const struct analysis_result *analysis = scene->input.analysis;
    if (interval->device >= analysis->device_count)
        return NULL;
    const struct analysis_device *device = &analysis->devices[interval->device];
    for (size_t g = 0; g < scene->group_count; g++)
        if (scene->groups[g].device && scene->groups[g].process_id == device->process_id &&
            scene->groups[g].device_id == device->device_id)
            return &scene->groups[g];
    return NULL;
}

/* The part of an interval inside the window; 0 when none of it is. */
static int accounting_clip(const struct scene *scene, const struct accounting_interval *interval,
                           int64_t *start_ns, int64_t *end_ns)
{
    const struct canvas *canvas = scene->input.canvas;
    *start_ns = interval->start_ns > canvas->window_start_ns ? interval->start_ns : canvas->window_start_ns;
    *end_ns = interval->end_ns < canvas->window_end_ns ? interval->end_ns : canvas->window_end_ns;
    return *end_ns > *start_ns;
}

/* Gives an accounting lane to every device with accounted time in the window, counts the stretches
 * of each style (the legend's entries) and returns how many stretches will be drawn. */
size_t scene_mark_accounting_lanes(struct scene *scene)
{
    const struct analysis_result *analysis = scene->input.analysis;
    size_t count = 0;
    for (size_t i = 0; analysis && i < analysis->accounting_interval_count; i++) {
        const struct accounting_interval *interval = &analysis->accounting_intervals[i];
        int64_t start_ns, end_ns;
        struct group *group = accounting_group(scene, interval);
        if (!group || !accounting_clip(scene, interval, &start_ns, &end_ns))
            continue;
        group->has_accounting = 1;
        scene->accounting_styles[accounting_style(interval->cause)]++;
        count++;
    }
    return count;
}

/* Adds a rectangle for every run of columns whose key is `key`. */
static void add_runs_of_key(const struct scene *scene, cairo_t *cr, int key, double y, double height)
{
    const int *keys = scene->column_keys;
    int columns = scene->input.canvas->columns;
    for (int column = 0; column < columns;) {
        if (keys[column] != key) {
            column++;
            continue;
        }
        int end = column + 1;
        while (end < columns && keys[end] == key)
            end++;
        cairo_rectangle(cr, scene->plot_left + column * scene->column_width, y,
                        (end - column) * scene->column_width, height);
        column = end;
    }
}

/* Records the group's stretches and adds each one's share of every pixel column it meets to
 * cover[column * TIMELINE_ACCOUNTING_STYLE_COUNT + style]. */
static void accounting_cover(struct scene *scene, const struct group *group, double *cover)
{
    const struct analysis_result *analysis = scene->input.analysis;
    struct timeline_layout *layout = scene->layout;
    double scale = scene->input.scale;
    int columns = scene->input.canvas->columns;
    for (size_t i = 0; i < analysis->accounting_interval_count; i++) {
        const struct accounting_interval *interval = &analysis->accounting_intervals[i];
        int64_t start_ns, end_ns;
        if (accounting_group(scene, interval) != group ||
            !accounting_clip(scene, interval, &start_ns, &end_ns))
            continue;
        enum timeline_accounting_style style = accounting_style(interval->cause);
        double x0 = scene_x_of(scene, start_ns), x1 = scene_x_of(scene, end_ns);
        layout->accounting_marks[layout->accounting_mark_count++] =
            (struct timeline_accounting_mark){{x0, group->accounting_y, x1 - x0, ACCOUNTING_LANE}, i, style};
        double from = (x0 - scene->plot_left) * scale, to = (x1 - scene->plot_left) * scale;
        for (int column = (int)floor(from); column < columns && column <= (int)floor(to); column++) {
            if (column < 0)
                continue;
            double share = fmin(to, column + 1.0) - fmax(from, (double)column);
            /* An instant still shows: nothing that happened is dropped. */
            cover[(size_t)column * TIMELINE_ACCOUNTING_STYLE_COUNT + style] += share > 1e-6 ? share : 1e-6;
        }
    }
}

/* Writes the cause's name centred on [x0, x1] of the group's accounting lane: whole, else its
 * short tag ("host-sync"), else nothing. Returns 1 drawn, 0 not, -1 out of memory. */
static int label_accounting_run(struct scene *scene, cairo_t *cr, const struct group *group,
                                const struct accounting_interval *head, double x0, double x1)
{
    char name[160];
    const char *tries[2] = {naming_accounting(name, sizeof name, head->cause, head->label),
                            accounting_cause_tag(head->cause)};
    /* Over hatching a light box keeps the name readable (as a wait's tag); the pale fill needs
     * none, and a white box there would read as busy time. */
    int backed = scene_accounting_looks[accounting_style(head->cause)].hatched;
    struct text_style style = {ACCOUNTING_SIZE, 0, PALETTE_TEXT, ALIGN_CENTER, x1 - x0 - 4, 1, backed, 1};
    for (int i = 0; i < 2; i++) {
        int drawn =
            scene_draw_text(scene, cr, TIMELINE_TEXT_ACCOUNTING, tries[i], (x0 + x1) / 2,
                            group->accounting_y + ACCOUNTING_LANE / 2 + ACCOUNTING_SIZE * 0.36, &style);
        if (drawn != 0)
            return drawn;
    }
    return 0;
}

/* Whether a run of head's cause and label was named less than ACCOUNTING_LABEL_SPACING before x. */
static int named_nearby(const struct accounting_interval *const *named, const double *named_x, size_t count,
                        const struct accounting_interval *head, double x)
{
    for (size_t i = 0; i < count; i++)
        if (named[i]->cause == head->cause && strcmp(named[i]->label, head->label) == 0 &&
            x - named_x[i] < ACCOUNTING_LABEL_SPACING)
            return 1;
    return 0;
}

static int same_entry(const struct accounting_interval *a, const struct accounting_interval *b)
{
    return a->device == b->device && a->cause == b->cause && strcmp(a->label, b->label) == 0;
}

/* The run of stretches of marks[first]'s cause and label that starts there: the next ones of
 * that entry, each at most ACCOUNTING_RUN_GAP after the run's end (stretches of other causes may
 * lie between: a loop alternates causes). Marks them taken; returns the run's end in *x1 and the
 * width its own stretches cover. The analysis lists a device's idle stretches in time order,
 * then its exposed ones: a stretch of the same list past the gap ends the run. */
static double accounting_run(const struct scene *scene, size_t first, char *taken, double *x1)
{
    const struct analysis_result *analysis = scene->input.analysis;
    const struct timeline_accounting_mark *marks = scene->layout->accounting_marks;
    const struct accounting_interval *head = &analysis->accounting_intervals[marks[first].interval_index];
    double covered = 0;
    *x1 = marks[first].box.x;
    for (size_t m = first; m < scene->layout->accounting_mark_count; m++) {
        const struct accounting_interval *next = &analysis->accounting_intervals[marks[m].interval_index];
        if (accounting_cause_is_idle(next->cause) != accounting_cause_is_idle(head->cause) ||
            next->device != head->device)
            continue;
        if (marks[m].box.x > *x1 + ACCOUNTING_RUN_GAP)
            break;
        if (taken[m] || !same_entry(next, head))
            continue;
        taken[m] = 1;
        covered += marks[m].box.width;
        *x1 = fmax(*x1, marks[m].box.x + marks[m].box.width);
    }
    return covered;
}

/* The cause's name over each run of one cause and label that is wide enough and at least a third
 * that cause (a name over busy time sprinkled with a few short gaps would say the GPU was idle
 * there), once per ACCOUNTING_LABEL_SPACING of the lane: a loop's every gap named is noise.
 * Returns 0, or -1 when out of memory. */
static int label_accounting_runs(struct scene *scene, cairo_t *cr, const struct group *group)
{
    const struct analysis_result *analysis = scene->input.analysis;
    const struct timeline_layout *layout = scene->layout;
    const struct timeline_accounting_mark *marks = layout->accounting_marks;
    enum { MAX_NAMED = 64 };
    const struct accounting_interval *named[MAX_NAMED];
    double named_x[MAX_NAMED];
    size_t named_count = 0;
    char *taken = calloc(layout->accounting_mark_count + 1, 1);
    if (!taken)
        return -1;
    int status = 0;
    for (size_t run = 0; run < layout->accounting_mark_count && named_count < MAX_NAMED && status == 0;
         run++) {
        const struct accounting_interval *head = &analysis->accounting_intervals[marks[run].interval_index];
        if (taken[run] || accounting_group(scene, head) != group)
            continue;
        double x0 = marks[run].box.x, x1, covered = accounting_run(scene, run, taken, &x1);
        if (x1 - x0 < MIN_ACCOUNTING_LABEL || covered * 3 < x1 - x0 ||
            named_nearby(named, named_x, named_count, head, x0))
            continue;
        status = label_accounting_run(scene, cr, group, head, x0, x1);
        if (status > 0) {
            named[named_count] = head;
            named_x[named_count++] = x0;
            status = 0;
        }
    }
    free(taken);
    return status;
}

/* The device's accounting lane: in each pixel column the style covering most of it, the host
 * blocked hatched like a wait, exposed communication in NCCL's colour hatched, other idle causes
 * pale; then the causes' names where there is room. Returns 0, or -1 when out of memory. */
int scene_paint_accounting(struct scene *scene, cairo_t *cr, const struct group *group)
{
    int columns = scene->input.canvas->columns;
    double *cover = calloc((size_t)columns * TIMELINE_ACCOUNTING_STYLE_COUNT + 1, sizeof *cover);
    if (!cover)
        return -1;
    accounting_cover(scene, group, cover);
    for (int column = 0; column < columns; column++) {
        int best = -1;
        for (int style = 0; style < TIMELINE_ACCOUNTING_STYLE_COUNT; style++)
            if (cover[(size_t)column * TIMELINE_ACCOUNTING_STYLE_COUNT + style] > 0 &&
                (best < 0 || cover[(size_t)column * TIMELINE_ACCOUNTING_STYLE_COUNT + style] >
                                 cover[(size_t)column * TIMELINE_ACCOUNTING_STYLE_COUNT + best]))
                best = style;
        scene->column_keys[column] = best;
    }
    free(cover);
    uint32_t rgb[TIMELINE_ACCOUNTING_STYLE_COUNT];
    double alpha[TIMELINE_ACCOUNTING_STYLE_COUNT];
    for (int style = 0; style < TIMELINE_ACCOUNTING_STYLE_COUNT; style++) {
        rgb[style] = scene_accounting_looks[style].fill;
        alpha[style] = 1;
    }
    double y = group->accounting_y;
    scene_paint_runs(scene, cr, rgb, alpha, TIMELINE_ACCOUNTING_STYLE_COUNT, y, ACCOUNTING_LANE);
    for (int style = 0; style < TIMELINE_ACCOUNTING_STYLE_COUNT; style++) {
        if (!scene_accounting_looks[style].hatched || scene->accounting_styles[style] == 0)
            continue;
        cairo_save(cr);
        add_runs_of_key(scene, cr, style, y, ACCOUNTING_LANE);
        cairo_clip(cr);
        scene_hatch(cr, scene->plot_left, y, scene->plot_right - scene->plot_left, ACCOUNTING_LANE, 1.1);
        cairo_restore(cr);
    }
    struct text_style title = {AXIS_SIZE, 0, PALETTE_MUTED_TEXT, ALIGN_RIGHT, LABEL_COLUMN - 20, 0, 0};
    if (scene_draw_text(scene, cr, TIMELINE_TEXT_LANE, ACCOUNTING_TITLE, scene->plot_left - 10,
                        y + ACCOUNTING_LANE / 2 + AXIS_SIZE * 0.36, &title) < 0 ||
        scene_record_lane(scene, TIMELINE_LANE_ACCOUNTING, NULL, group, y, ACCOUNTING_LANE,
                          ACCOUNTING_TITLE) != 0)
        return -1;
    return label_accounting_runs(scene, cr, group);
}
