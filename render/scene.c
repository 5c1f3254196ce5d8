/* scene.c: see scene.h. */
#include "scene.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "describe.h"
#include "glyphs.h"
#include "labels.h"
#include "naming.h"
#include "palette.h"
#include "text_safe.h"
#include "units.h"

/* Geometry in CSS pixels. Text sizes follow what stays readable in a pull request's image
 * preview, which GitHub scales down to the column width (about 880 px). */
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
#define ACCOUNTING_TITLE "idle \xc2\xb7 exposed comm"
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

/* --- small helpers --- */

static void set_colour(cairo_t *cr, uint32_t rgb, double alpha)
{
    cairo_set_source_rgba(cr, ((rgb >> 16) & 0xFF) / 255.0, ((rgb >> 8) & 0xFF) / 255.0, (rgb & 0xFF) / 255.0,
                          alpha);
}

static uint32_t darker(uint32_t rgb, double factor)
{
    uint32_t r = (uint32_t)(((rgb >> 16) & 0xFF) * factor), g = (uint32_t)(((rgb >> 8) & 0xFF) * factor),
             b = (uint32_t)((rgb & 0xFF) * factor);
    return r << 16 | g << 8 | b;
}

static double x_of(const struct scene *scene, int64_t time_ns)
{
    const struct canvas *canvas = scene->input.canvas;
    return scene->plot_left + (double)(time_ns - canvas->window_start_ns) *
                                  (scene->plot_right - scene->plot_left) /
                                  (double)(canvas->window_end_ns - canvas->window_start_ns);
}

static double clamp_x(const struct scene *scene, double x)
{
    return x < scene->plot_left ? scene->plot_left : x > scene->plot_right ? scene->plot_right : x;
}

static int boxes_overlap(const struct timeline_box *a, const struct timeline_box *b)
{
    return a->x < b->x + b->width && b->x < a->x + a->width && a->y < b->y + b->height &&
           b->y < a->y + a->height;
}

static int box_is_free(const struct scene *scene, const struct timeline_box *box)
{
    for (size_t i = 0; i < scene->layout->text_count; i++)
        if (boxes_overlap(box, &scene->layout->texts[i].box))
            return 0;
    return 1;
}

static int record_text(struct scene *scene, enum timeline_text_kind kind, const struct timeline_box *box,
                       const char *text)
{
    struct timeline_layout *layout = scene->layout;
    if (layout->text_count == scene->text_capacity) {
        size_t grown = scene->text_capacity ? scene->text_capacity * 2 : 256;
        struct timeline_text *resized = realloc(layout->texts, grown * sizeof *resized);
        if (!resized)
            return -1;
        layout->texts = resized;
        scene->text_capacity = grown;
    }
    struct timeline_text *entry = &layout->texts[layout->text_count++];
    entry->kind = kind;
    entry->box = *box;
    snprintf(entry->text, sizeof entry->text, "%s", text);
    return 0;
}

static void select_font(cairo_t *cr, double size, int bold)
{
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

static double text_width(cairo_t *cr, const char *text)
{
    cairo_text_extents_t extents;
    cairo_text_extents(cr, text, &extents);
    return extents.x_advance;
}

/* The width text takes as drawn: with what the font cannot show replaced (glyphs.h). */
static double shown_width(cairo_t *cr, const char *text)
{
    char shown[512];
    glyphs_fallback(cr, text, shown, sizeof shown);
    return text_width(cr, shown);
}

/* Shortens text in place to fit max_width, ending it with an ellipsis (as the font can show it);
 * returns 0 when even three characters and the ellipsis do not fit. */
static int fit_text(cairo_t *cr, char *text, double max_width)
{
    if (text_width(cr, text) <= max_width)
        return 1;
    char ellipsis[8];
    glyphs_fallback(cr, "\xe2\x80\xa6", ellipsis, sizeof ellipsis);
    size_t length = strlen(text);
    char shortened[256];
    while (length > 3) {
        length--;
        while (length > 0 && ((unsigned char)text[length] & 0xC0) == 0x80)
            length--; /* never cut a UTF-8 sequence */
        snprintf(shortened, sizeof shortened, "%.*s%s", (int)length, text, ellipsis);
        if (text_width(cr, shortened) <= max_width) {
            strcpy(text, shortened);
            return 1;
        }
    }
    return 0;
}

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

/* Draws text with its baseline at y, anchored at x; records its box. Returns 1 when drawn,
 * 0 when it did not fit or would overlap, -1 when out of memory. */
static int draw_text(struct scene *scene, cairo_t *cr, enum timeline_text_kind kind, const char *text,
                     double x, double y, const struct text_style *style)
{
    char safe[256], fitted[256];
    /* Names from the trace may hold controls or bytes that are not UTF-8: Cairo would refuse
     * the string (and the whole picture with it). Then what the font cannot show is replaced
     * (glyphs.h), before measuring. */
    text_safe_copy(safe, sizeof safe, text, TEXT_SAFE_PICTURE);
    select_font(cr, style->size, style->bold);
    glyphs_fallback(cr, safe, fitted, sizeof fitted);
    if (!fitted[0] ||
        (style->whole ? text_width(cr, fitted) > style->max_width : !fit_text(cr, fitted, style->max_width)))
        return 0;
    cairo_font_extents_t font;
    cairo_font_extents(cr, &font);
    double width = text_width(cr, fitted);
    double left = style->align == ALIGN_LEFT ? x : style->align == ALIGN_CENTER ? x - width / 2 : x - width;
    double pad = style->backed ? 2 : 0;
    struct timeline_box box = {left - pad, y - font.ascent - pad, width + 2 * pad,
                               font.ascent + font.descent + 2 * pad};
    if (style->must_be_free && !box_is_free(scene, &box))
        return 0;
    if (style->backed) {
        set_colour(cr, PALETTE_BACKGROUND, 0.92);
        cairo_rectangle(cr, box.x, box.y, box.width, box.height);
        cairo_fill(cr);
    }
    set_colour(cr, style->rgb, 1);
    cairo_move_to(cr, left, y);
    cairo_show_text(cr, fitted);
    return record_text(scene, kind, &box, fitted) == 0 ? 1 : -1;
}

/* --- lane titles and ordering --- */

static const struct analysis_lane *analysis_lane_of(const struct analysis_result *analysis,
                                                    const struct canvas_lane *lane)
{
    if (!analysis)
        return NULL;
    for (size_t i = 0; i < analysis->lane_count; i++) {
        const struct analysis_lane *candidate = &analysis->lanes[i];
        if (candidate->process_id == lane->process_id && candidate->device_id == lane->device_id &&
            candidate->stream_id == lane->stream_id)
            return candidate;
    }
    return NULL;
}

/* The role a lane shows: the analyzer's when there is one, else the stream's stored label,
 * else what most of its busy time was. */
static void lane_role(const struct scene *scene, const struct canvas_lane *lane, int *is_legacy_default,
                      char *role, size_t size)
{
    const struct analysis_lane *analyzed = analysis_lane_of(scene->input.analysis, lane);
    role[0] = '\0';
    *is_legacy_default = analyzed ? analyzed->is_legacy_default : 0;
    if (analyzed)
        snprintf(role, size, "%s", analyzed->role);
    int stored_legacy = 0;
    char label[64];
    if (store_stream_description(scene->input.trace, lane->process_id, lane->device_id, lane->stream_id,
                                 &stored_legacy, label, sizeof label)) {
        *is_legacy_default |= stored_legacy;
        if (!role[0] && label[0])
            snprintf(role, size, "%s", label);
    }
    if (role[0])
        return;
    snprintf(role, size, "%s", naming_stream_role(lane->busy_ns, 0));
}

static void lane_title(const struct scene *scene, struct placed_lane *placed)
{
    const struct canvas_lane *lane = placed->lane;
    if (lane->kind == CANVAS_LANE_HOST) {
        snprintf(placed->title, sizeof placed->title, "thread %" PRId64 " \xc2\xb7 CUDA API",
                 lane->thread_id);
        return;
    }
    if (lane->kind == CANVAS_LANE_NVTX) {
        if (lane->thread_id < 0)
            snprintf(placed->title, sizeof placed->title, "GPU annotations \xc2\xb7 NVTX %" PRId64,
                     lane->depth);
        else
            snprintf(placed->title, sizeof placed->title, "thread %" PRId64 " \xc2\xb7 NVTX %" PRId64,
                     lane->thread_id, lane->depth);
        return;
    }
    char role[32];
    lane_role(scene, lane, &placed->is_legacy_default, role, sizeof role);
    const char *shown = strcmp(role, "nccl") == 0 ? "NCCL" : role;
    int plain = strcmp(shown, "default") == 0 || strcmp(shown, "compute") == 0 || strcmp(shown, "mixed") == 0;
    if (placed->is_legacy_default && plain)
        snprintf(placed->title, sizeof placed->title, "stream %" PRId64 " \xc2\xb7 legacy default",
                 lane->stream_id);
    else if (placed->is_legacy_default)
        snprintf(placed->title, sizeof placed->title, "stream %" PRId64 " \xc2\xb7 %s, legacy default",
                 lane->stream_id, shown);
    else
        snprintf(placed->title, sizeof placed->title, "stream %" PRId64 " \xc2\xb7 %s", lane->stream_id,
                 shown);
}

/* Ranks first in order (unknown ranks last), then process, then its devices, then its host
 * lanes; within a device by stream, within a host by thread and nesting. */
static int compare_lanes(const void *left, const void *right)
{
    const struct placed_lane *a = left, *b = right;
    uint64_t rank_a = (uint64_t)a->rank, rank_b = (uint64_t)b->rank; /* -1 sorts last */
    if (rank_a != rank_b)
        return rank_a < rank_b ? -1 : 1;
    if (a->lane->process_id != b->lane->process_id)
        return a->lane->process_id < b->lane->process_id ? -1 : 1;
    int host_a = a->lane->kind != CANVAS_LANE_GPU, host_b = b->lane->kind != CANVAS_LANE_GPU;
    if (host_a != host_b)
        return host_a - host_b;
    if (!host_a) {
        if (a->lane->device_id != b->lane->device_id)
            return a->lane->device_id < b->lane->device_id ? -1 : 1;
        return a->lane->stream_id < b->lane->stream_id ? -1 : a->lane->stream_id > b->lane->stream_id;
    }
    if (a->lane->thread_id != b->lane->thread_id)
        return a->lane->thread_id < b->lane->thread_id ? -1 : 1;
    if (a->lane->kind != b->lane->kind)
        return (int)a->lane->kind - (int)b->lane->kind;
    return a->lane->depth < b->lane->depth ? -1 : a->lane->depth > b->lane->depth;
}

/* "rank 0 · GPU 0 · NVIDIA H200 · pid 748"; a process without a rank is named by its pid,
 * first, as the report does ("pid 1823 · GPU 0 · NVIDIA H200"), never "rank -1". */
static void group_title(const struct scene *scene, struct group *group)
{
    char who[48] = "", pid[32] = "", name[96] = "";
    naming_process(who, sizeof who - 4, group->rank, group->pid, group->process_id);
    strcat(who, " \xc2\xb7 ");
    if (group->rank >= 0 && group->pid >= 0)
        snprintf(pid, sizeof pid, " \xc2\xb7 pid %" PRId64, group->pid);
    if (group->device_id < 0) {
        snprintf(group->title, sizeof group->title, "%shost threads%s", who, pid);
        return;
    }
    store_device_name(scene->input.trace, group->process_id, group->device_id, name, sizeof name);
    snprintf(group->title, sizeof group->title, "%sGPU %" PRId64 "%s%s%s", who, group->device_id,
             name[0] ? " \xc2\xb7 " : "", name, pid);
}

static int build_groups(struct scene *scene)
{
    scene->groups = calloc(scene->lane_count ? scene->lane_count : 1, sizeof *scene->groups);
    if (!scene->groups)
        return -1;
    for (size_t i = 0; i < scene->lane_count; i++) {
        const struct placed_lane *placed = &scene->lanes[i];
        int64_t device_id = placed->lane->kind == CANVAS_LANE_GPU ? placed->lane->device_id : -1;
        struct group *last = scene->group_count ? &scene->groups[scene->group_count - 1] : NULL;
        if (last && last->process_id == placed->lane->process_id && last->device_id == device_id) {
            last->lane_count++;
            continue;
        }
        struct group *group = &scene->groups[scene->group_count++];
        group->process_id = placed->lane->process_id;
        group->rank = placed->rank;
        group->pid = placed->pid;
        group->device_id = device_id;
        group->first_lane = i;
        group->lane_count = 1;
        group->device =
            device_id >= 0 ? canvas_find_device(scene->input.canvas, group->process_id, device_id) : NULL;
        group_title(scene, group);
    }
    return 0;
}

static int place_lanes(struct scene *scene)
{
    const struct canvas *canvas = scene->input.canvas;
    scene->lanes = calloc(canvas->lane_count ? canvas->lane_count : 1, sizeof *scene->lanes);
    if (!scene->lanes)
        return -1;
    for (size_t i = 0; i < canvas->lane_count; i++) {
        if (canvas->lanes[i]->interval_count == 0)
            continue;
        struct placed_lane *placed = &scene->lanes[scene->lane_count++];
        placed->lane = canvas->lanes[i];
        store_process_identity(scene->input.trace, placed->lane->process_id, &placed->pid, &placed->rank);
        lane_title(scene, placed);
    }
    qsort(scene->lanes, scene->lane_count, sizeof *scene->lanes, compare_lanes);
    return build_groups(scene);
}

/* --- vertical layout --- */

static double groups_height(const struct scene *scene, double lane_height)
{
    double height = 0;
    for (size_t g = 0; g < scene->group_count; g++) {
        height += GROUP_HEADER + (double)scene->groups[g].lane_count * (lane_height + LANE_GAP) + GROUP_GAP;
        if (scene->groups[g].device)
            height += STRIP_HEIGHT + STRIP_GAP;
        if (scene->groups[g].has_tag_row)
            height += TAG_ROW;
        if (scene->groups[g].has_accounting)
            height += ACCOUNTING_LANE + LANE_GAP;
    }
    return height;
}

static void layout_rows(struct scene *scene)
{
    double top = MARGIN + scene->title_height + scene->legend_height;
    scene->axis_y = top + AXIS_HEIGHT;
    scene->lanes_top = scene->axis_y + 6;
    scene->lane_height = LANE_HEIGHT;
    double fixed = scene->lanes_top + groups_height(scene, 0) + MARGIN;
    double wanted =
        scene->input.options->height_px > 0 ? scene->input.options->height_px / scene->input.scale : 0;
    if (wanted > 0 && scene->lane_count > 0) {
        double lane_height = (wanted - fixed) / (double)scene->lane_count;
        scene->lane_height = lane_height < MIN_LANE_HEIGHT   ? MIN_LANE_HEIGHT
                             : lane_height > MAX_LANE_HEIGHT ? MAX_LANE_HEIGHT
                                                             : lane_height;
    }
    double y = scene->lanes_top;
    for (size_t g = 0; g < scene->group_count; g++) {
        struct group *group = &scene->groups[g];
        group->header_y = y;
        y += GROUP_HEADER;
        if (group->device) {
            group->strip_y = y;
            y += STRIP_HEIGHT + STRIP_GAP;
        }
        if (group->has_accounting) {
            group->accounting_y = y;
            y += ACCOUNTING_LANE + LANE_GAP;
        }
        if (group->has_tag_row) {
            group->tag_row_y = y;
            y += TAG_ROW;
        }
        for (size_t i = 0; i < group->lane_count; i++) {
            scene->lanes[group->first_lane + i].y = y;
            y += scene->lane_height + LANE_GAP;
        }
        y += GROUP_GAP;
    }
    scene->height = wanted > 0 ? wanted : y + MARGIN;
}

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

/* The accounting lane's styles: legend text, fill, and whether hatched like a wait. */
static const struct {
    const char *legend;
    uint32_t fill;
    int hatched;
} accounting_looks[TIMELINE_ACCOUNTING_STYLE_COUNT] = {
    [TIMELINE_IDLE_HOST_BLOCKED] = {"idle: host blocked", PALETTE_LANE_BACKGROUND, 1},
    [TIMELINE_IDLE_OTHER] = {"idle: other cause", PALETTE_IDLE, 0},
    [TIMELINE_EXPOSED_COMMUNICATION] = {"exposed comm", PALETTE_EXPOSED_COMMUNICATION, 1},
};

static int waits_to_draw(const struct scene *scene);

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
    if (waits_to_draw(scene) > 0)
        entries[count++] = (struct legend_entry){LEGEND_WAIT, 0, "explained wait (cause)"};
    for (int style = 0; style < TIMELINE_ACCOUNTING_STYLE_COUNT; style++)
        if (scene->accounting_styles[style] > 0)
            entries[count++] =
                (struct legend_entry){LEGEND_ACCOUNTING + style, 0, accounting_looks[style].legend};
    entries[count++] = (struct legend_entry){LEGEND_CONCURRENCY_TITLE, 0, "streams busy:"};
    static const char *const levels[4] = {"0", "1", "2", "3+"};
    for (int level = 0; level < 4; level++)
        entries[count++] = (struct legend_entry){LEGEND_CONCURRENCY, level, levels[level]};
    return count;
}

static double legend_entry_width(cairo_t *cr, const struct legend_entry *entry)
{
    select_font(cr, LEGEND_SIZE, 0);
    double text = shown_width(cr, entry->name);
    if (entry->kind == LEGEND_CONCURRENCY_TITLE)
        return text + 6;
    if (entry->kind == LEGEND_CONCURRENCY)
        return SWATCH + 4 + text + 8;
    return SWATCH + 6 + text + 20;
}

static void hatch(cairo_t *cr, double x, double y, double width, double height, double line_width)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, width, height);
    cairo_clip(cr);
    set_colour(cr, PALETTE_WAIT, 0.8);
    cairo_set_line_width(cr, line_width);
    for (double d = -height; d < width + height; d += HATCH_SPACING) {
        cairo_move_to(cr, x + d, y + height);
        cairo_line_to(cr, x + d + height, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
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
static double legend(struct scene *scene, cairo_t *cr, cairo_t *measure, double top)
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
            int hatched = entry->kind == LEGEND_WAIT || (is_accounting && accounting_looks[look].hatched);
            uint32_t rgb = entry->kind < PALETTE_KIND_COUNT    ? palette_colour(entry->kind)
                           : entry->kind == LEGEND_CONCURRENCY ? palette_concurrency_colour(entry->level)
                           : is_accounting                     ? accounting_looks[look].fill
                                                               : PALETTE_WAIT;
            if (entry->kind == LEGEND_CONCURRENCY_TITLE) {
                text_x = x;
            } else {
                if (hatched) {
                    set_colour(cr, entry->kind == LEGEND_WAIT ? PALETTE_LANE_BACKGROUND : rgb, 1);
                    cairo_rectangle(cr, swatch.x, swatch.y, swatch.width, swatch.height);
                    cairo_fill(cr);
                    hatch(cr, swatch.x, swatch.y, swatch.width, swatch.height, 1.2);
                } else {
                    set_colour(cr, rgb, 1);
                    cairo_rectangle(cr, swatch.x, swatch.y, swatch.width, swatch.height);
                    cairo_fill(cr);
                }
                set_colour(cr, 0x666666, 1);
                cairo_set_line_width(cr, 0.75);
                cairo_rectangle(cr, swatch.x + 0.375, swatch.y + 0.375, swatch.width - 0.75,
                                swatch.height - 0.75);
                cairo_stroke(cr);
                if (record_swatch(scene, &swatch, rgb, hatched, entry->name) != 0)
                    return -1;
            }
            struct text_style style = {LEGEND_SIZE, 0, PALETTE_TEXT, ALIGN_LEFT, right - text_x, 0, 0};
            if (draw_text(scene, cr, TIMELINE_TEXT_LEGEND, entry->name, text_x, y + 2 + SWATCH - 2, &style) <
                0)
                return -1;
        }
        x += width;
    }
    return y + LEGEND_ROW - top;
}

/* --- title --- */

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
    const char *note = scene->input.options->window_note;
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
    select_font(measure, SUBTITLE_SIZE, 0);
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
        if (lines[count][0] && (shown_width(measure, candidate) > width ||
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

static double title_height(const struct scene *scene, cairo_t *measure)
{
    char lines[FIGURES_MAX_LINES][512];
    return TITLE_SIZE + 8 + figure_lines(scene, measure, lines, FIGURES_MAX_LINES) * FIGURES_LINE + 6;
}

static int paint_title(struct scene *scene, cairo_t *cr)
{
    double width = scene->input.width_css - 2 * MARGIN;
    struct text_style title = {TITLE_SIZE, 1, PALETTE_TEXT, ALIGN_LEFT, width, 0, 0};
    struct text_style subtitle = {SUBTITLE_SIZE, 0, PALETTE_MUTED_TEXT, ALIGN_LEFT, width, 0, 0};
    char lines[FIGURES_MAX_LINES][512];
    int count = figure_lines(scene, cr, lines, FIGURES_MAX_LINES);
    if (draw_text(scene, cr, TIMELINE_TEXT_TITLE, scene->input.title, MARGIN, MARGIN + TITLE_SIZE, &title) <
        0)
        return -1;
    for (int i = 0; i < count; i++)
        if (draw_text(scene, cr, TIMELINE_TEXT_TITLE, lines[i], MARGIN,
                      MARGIN + TITLE_SIZE + 8 + (i + 1) * FIGURES_LINE - 4, &subtitle) < 0)
            return -1;
    return 0;
}

/* --- the time axis --- */

static int paint_axis(struct scene *scene, cairo_t *cr)
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
        double x = floor(x_of(scene, value + origin)) + 0.5;
        set_colour(cr, PALETTE_GRID, 1);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, x, scene->axis_y);
        cairo_line_to(cr, x, bottom);
        cairo_stroke(cr);
        set_colour(cr, PALETTE_MUTED_TEXT, 1);
        cairo_move_to(cr, x, scene->axis_y - 5);
        cairo_line_to(cr, x, scene->axis_y);
        cairo_stroke(cr);
        char text[32];
        axis_format_tick(text, sizeof text, value, step, largest);
        struct text_style style = {AXIS_SIZE, 0, PALETTE_TEXT, ALIGN_CENTER, 200, 1, 0};
        if (x + text_width(cr, text) / 2 > scene->input.width_css - 2)
            style.align = ALIGN_RIGHT;
        else if (x - text_width(cr, text) / 2 < scene->plot_left - 2)
            style.align =
                ALIGN_LEFT; /* a tick at the plot's left edge: its label must not take the caption's place */
        if (draw_text(scene, cr, TIMELINE_TEXT_AXIS, text, x, scene->axis_y - 8, &style) < 0)
            return -1;
    }
    set_colour(cr, PALETTE_MUTED_TEXT, 1);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, scene->plot_left, scene->axis_y + 0.5);
    cairo_line_to(cr, scene->plot_right, scene->axis_y + 0.5);
    cairo_stroke(cr);
    struct text_style caption = {AXIS_SIZE, 0, PALETTE_MUTED_TEXT, ALIGN_RIGHT, LABEL_COLUMN - 12, 1, 0};
    return draw_text(scene, cr, TIMELINE_TEXT_AXIS, "time since first GPU activity", scene->plot_left - 10,
                     scene->axis_y - 8, &caption) < 0
               ? -1
               : 0;
}

/* --- lanes --- */

/* Fills every run of columns whose scene->column_keys share a key (-1: nothing) with that key's
 * colour (rgb[key], alpha[key]), one Cairo fill per key present rather than one per run: in a
 * picture of millions of short intervals nearly every column differs from the next, and a
 * fill per run cost more than all the rest of the drawing. Runs never overlap, so the order of
 * the fills changes nothing. The runs are bucketed by key first (a counting sort), so the
 * work grows with columns plus keys. */
static void paint_runs(const struct scene *scene, cairo_t *cr, const uint32_t *rgb, const double *alpha,
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
        set_colour(cr, rgb[key], alpha[key]);
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
    paint_runs(scene, cr, rgb, alpha, KEYS, y, height);
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
    paint_runs(scene, cr, rgb, alpha, 4, y, STRIP_HEIGHT);
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
        double x0 = clamp_x(scene, x_of(scene, interval->start_ns)),
               x1 = clamp_x(scene, x_of(scene, interval->end_ns));
        set_colour(cr, darker(palette_colour(interval->kind), 0.55), 1);
        cairo_rectangle(cr, x0 + hairline / 2, y + hairline / 2, x1 - x0 - hairline, height - hairline);
        cairo_stroke(cr);
    }
}

/* Writes each kept interval's label where it fits without touching text already placed (the
 * wait tags go first: the explanation matters more than a name). */
static int paint_interval_labels(struct scene *scene, cairo_t *cr, const struct canvas_lane *lane, double y,
                                 double height)
{
    if (height < MIN_LABELLED_LANE)
        return 0;
    for (size_t i = 0; i < lane->kept_count; i++) {
        const struct canvas_interval *interval = &lane->kept[i];
        double x0 = clamp_x(scene, x_of(scene, interval->start_ns)),
               x1 = clamp_x(scene, x_of(scene, interval->end_ns));
        if (x1 - x0 < 24)
            continue;
        char text[160];
        labels_text(scene->labels, interval, text, sizeof text);
        uint32_t colour = palette_colour(interval->kind);
        struct text_style style = {
            INTERVAL_SIZE, 0, palette_text_on(colour), ALIGN_CENTER, x1 - x0 - 6, 1, 0};
        if (draw_text(scene, cr, TIMELINE_TEXT_INTERVAL, text, (x0 + x1) / 2,
                      y + height / 2 + INTERVAL_SIZE * 0.36, &style) < 0)
            return -1;
    }
    return 0;
}

static int record_lane(struct scene *scene, enum timeline_lane_kind kind, const struct canvas_lane *lane,
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
    if (!device || device->headroom_ns <= 0 || group->lane_count == 0 || analysis->time_restricted)
        return 0;
    int64_t ghost_ns = device->span_end_ns - device->headroom_ns;
    const struct canvas *canvas = scene->input.canvas;
    if (ghost_ns < canvas->window_start_ns || canvas->window_end_ns < device->span_end_ns)
        return 0;
    double x = x_of(scene, ghost_ns);
    const struct placed_lane *last = &scene->lanes[group->first_lane + group->lane_count - 1];
    static const double dash[] = {4, 3};
    set_colour(cr, PALETTE_MUTED_TEXT, 0.9);
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
    int drawn = draw_text(scene, cr, TIMELINE_TEXT_WAIT, label, x - 3, baseline, &style);
    style.align = ALIGN_LEFT;
    style.max_width = scene->plot_right - x - 3;
    if (drawn == 0)
        drawn = draw_text(scene, cr, TIMELINE_TEXT_WAIT, label, x + 3, baseline, &style);
    return drawn < 0 ? -1 : 0;
}

/* --- idle time and exposed communication (accounting.h) --- */

static enum timeline_accounting_style accounting_style(enum accounting_cause cause)
{
    if (!accounting_cause_is_idle(cause))
        return TIMELINE_EXPOSED_COMMUNICATION;
    return cause == ACCOUNTING_IDLE_HOST_SYNC ? TIMELINE_IDLE_HOST_BLOCKED : TIMELINE_IDLE_OTHER;
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
static size_t mark_accounting_lanes(struct scene *scene)
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
        double x0 = x_of(scene, start_ns), x1 = x_of(scene, end_ns);
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
    int backed = accounting_looks[accounting_style(head->cause)].hatched;
    struct text_style style = {ACCOUNTING_SIZE, 0, PALETTE_TEXT, ALIGN_CENTER, x1 - x0 - 4, 1, backed, 1};
    for (int i = 0; i < 2; i++) {
        int drawn = draw_text(scene, cr, TIMELINE_TEXT_ACCOUNTING, tries[i], (x0 + x1) / 2,
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
static int paint_accounting(struct scene *scene, cairo_t *cr, const struct group *group)
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
        rgb[style] = accounting_looks[style].fill;
        alpha[style] = 1;
    }
    double y = group->accounting_y;
    paint_runs(scene, cr, rgb, alpha, TIMELINE_ACCOUNTING_STYLE_COUNT, y, ACCOUNTING_LANE);
    for (int style = 0; style < TIMELINE_ACCOUNTING_STYLE_COUNT; style++) {
        if (!accounting_looks[style].hatched || scene->accounting_styles[style] == 0)
            continue;
        cairo_save(cr);
        add_runs_of_key(scene, cr, style, y, ACCOUNTING_LANE);
        cairo_clip(cr);
        hatch(cr, scene->plot_left, y, scene->plot_right - scene->plot_left, ACCOUNTING_LANE, 1.1);
        cairo_restore(cr);
    }
    struct text_style title = {AXIS_SIZE, 0, PALETTE_MUTED_TEXT, ALIGN_RIGHT, LABEL_COLUMN - 20, 0, 0};
    if (draw_text(scene, cr, TIMELINE_TEXT_LANE, ACCOUNTING_TITLE, scene->plot_left - 10,
                  y + ACCOUNTING_LANE / 2 + AXIS_SIZE * 0.36, &title) < 0 ||
        record_lane(scene, TIMELINE_LANE_ACCOUNTING, NULL, group, y, ACCOUNTING_LANE, ACCOUNTING_TITLE) != 0)
        return -1;
    return label_accounting_runs(scene, cr, group);
}

static int paint_group(struct scene *scene, cairo_t *cr, const struct group *group)
{
    struct text_style header = {GROUP_SIZE, 1, PALETTE_TEXT, ALIGN_LEFT, scene->input.width_css - 2 * MARGIN,
                                0,          0};
    if (draw_text(scene, cr, TIMELINE_TEXT_GROUP, group->title, MARGIN, group->header_y + GROUP_HEADER - 7,
                  &header) < 0)
        return -1;
    struct text_style lane_title = {LANE_TITLE_SIZE, 0, PALETTE_TEXT, ALIGN_RIGHT, LABEL_COLUMN - 20, 0, 0};
    if (group->device) {
        paint_strip(scene, cr, group->device, group->strip_y);
        struct text_style strip_title = lane_title;
        strip_title.size = AXIS_SIZE;
        strip_title.rgb = PALETTE_MUTED_TEXT;
        if (draw_text(scene, cr, TIMELINE_TEXT_LANE, "streams busy", scene->plot_left - 10,
                      group->strip_y + STRIP_HEIGHT - 2, &strip_title) < 0 ||
            record_lane(scene, TIMELINE_LANE_CONCURRENCY, NULL, group, group->strip_y, STRIP_HEIGHT,
                        "streams busy") != 0)
            return -1;
    }
    if (group->has_accounting && paint_accounting(scene, cr, group) != 0)
        return -1;
    for (size_t i = 0; i < group->lane_count; i++) {
        const struct placed_lane *placed = &scene->lanes[group->first_lane + i];
        double y = placed->y, height = scene->lane_height;
        paint_lane_columns(scene, cr, placed->lane, y, height);
        paint_outlines(scene, cr, placed->lane, y, height);
        lane_title.size = height < LANE_TITLE_SIZE + 2 ? height - 2 : LANE_TITLE_SIZE;
        if (lane_title.size >= 6 &&
            draw_text(scene, cr, TIMELINE_TEXT_LANE, placed->title, scene->plot_left - 10,
                      y + height / 2 + lane_title.size * 0.36, &lane_title) < 0)
            return -1;
        enum timeline_lane_kind kind = placed->lane->kind == CANVAS_LANE_GPU    ? TIMELINE_LANE_GPU
                                       : placed->lane->kind == CANVAS_LANE_HOST ? TIMELINE_LANE_HOST
                                                                                : TIMELINE_LANE_NVTX;
        record_lane(scene, kind, placed->lane, group, y, height, placed->title);
    }
    return paint_ghost_end(scene, cr, group);
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

static int waits_to_draw(const struct scene *scene)
{
    const struct analysis_result *analysis = scene->input.analysis;
    int count = 0;
    for (size_t i = 0; analysis && i < analysis->wait_count && count < scene->input.options->max_waits; i++)
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
        set_colour(cr, pass == 0 ? PALETTE_BACKGROUND : PALETTE_WAIT, pass == 0 ? 0.9 : 1);
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
    select_font(cr, tag_tries[i].size, 1);
    double full = shown_width(cr, tag), width = fmin(full, *room);
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
        int drawn = draw_text(scene, cr, TIMELINE_TEXT_WAIT, tag, anchor,
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
        int drawn = draw_text(scene, cr, TIMELINE_TEXT_WAIT, tag, anchor, baseline, &style);
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
    double x0 = clamp_x(scene, x_of(scene, wait->wait_start_ns)),
           x1 = clamp_x(scene, x_of(scene, wait->wait_end_ns));
    int wide = x1 - x0 >= MIN_WAIT_WIDTH;
    if (!wide) {
        double middle = (x0 + x1) / 2;
        x0 = clamp_x(scene, middle - MIN_WAIT_WIDTH / 2);
        x1 = clamp_x(scene, x0 + MIN_WAIT_WIDTH);
    }
    *box = (struct timeline_box){x0, waiting->y, x1 - x0, scene->lane_height};
    return wide;
}

/* The hatching; a dark frame only around waits wide enough to have an inside, since a frame
 * around a 3-pixel mark is a black bar and a row of them a black blot. */
static void paint_wait_mark(cairo_t *cr, const struct timeline_box *box, int wide)
{
    hatch(cr, box->x, box->y, box->width, box->height, 1.3);
    if (!wide)
        return;
    set_colour(cr, PALETTE_WAIT, 1);
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
    paint_connector(cr, x_of(scene, wait->blocking.end_ns), from_y, box->x + box->width, to_y);
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
static int mark_tag_rows(struct scene *scene, cairo_t *measure)
{
    const struct analysis_result *analysis = scene->input.analysis;
    int limit = scene->input.options->max_waits, count = 0;
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
static int paint_waits(struct scene *scene, cairo_t *cr)
{
    const struct analysis_result *analysis = scene->input.analysis;
    struct timeline_layout *layout = scene->layout;
    for (size_t i = 0;
         analysis && i < analysis->wait_count && layout->wait_count < (size_t)scene->input.options->max_waits;
         i++) {
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

/* --- the scene's life --- */

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
        !scene->key_start || place_lanes(scene) != 0) {
        scene_free(scene);
        error_set(err, "cannot lay the timeline out: out of memory or a damaged trace");
        return NULL;
    }
    size_t waits = input->analysis ? (size_t)waits_to_draw(scene) : 0;
    size_t stretches = mark_accounting_lanes(scene);
    scene->layout->lanes =
        calloc(scene->lane_count + 2 * scene->group_count + 1, sizeof *scene->layout->lanes);
    scene->layout->waits = calloc(waits + 1, sizeof *scene->layout->waits);
    scene->layout->accounting_marks = calloc(stretches + 1, sizeof *scene->layout->accounting_marks);
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *measure = cairo_create(surface);
    scene->title_height = title_height(scene, measure);
    scene->legend_height = legend(scene, NULL, measure, 0);
    int tag_rows = mark_tag_rows(scene, measure);
    cairo_destroy(measure);
    cairo_surface_destroy(surface);
    if (!scene->layout->lanes || !scene->layout->waits || !scene->layout->accounting_marks || tag_rows != 0) {
        scene_free(scene);
        error_set(err, "out of memory");
        return NULL;
    }
    layout_rows(scene);
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
    set_colour(cr, PALETTE_BACKGROUND, 1);
    cairo_paint(cr);
    /* Lane backgrounds first so the axis's grid lines show through the empty parts of lanes. */
    set_colour(cr, PALETTE_LANE_BACKGROUND, 1);
    for (size_t i = 0; i < scene->lane_count; i++)
        cairo_rectangle(cr, scene->plot_left, scene->lanes[i].y, scene->plot_right - scene->plot_left,
                        scene->lane_height);
    cairo_fill(cr);
    if (paint_title(scene, cr) != 0 || legend(scene, cr, cr, MARGIN + scene->title_height) < 0 ||
        paint_axis(scene, cr) != 0)
        return error_set(err, "out of memory");
    for (size_t g = 0; g < scene->group_count; g++)
        if (paint_group(scene, cr, &scene->groups[g]) != 0)
            return error_set(err, "out of memory");
    if (paint_waits(scene, cr) != 0)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < scene->lane_count; i++)
        if (paint_interval_labels(scene, cr, scene->lanes[i].lane, scene->lanes[i].y, scene->lane_height) !=
            0)
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
