/* test_render_golden.c: every trace recorded on the H200s and H100s (every .db under tests/data/gpu
 * and tests/data/gpu-h100) drawn as `overlapscope render` draws it (with the analyzer's waits),
 * then read back pixel by pixel and checked against the trace's own rows:
 *   - in each stream lane, inside the longest interval at least 8 px wide, the pixels are that
 *     interval's category colour (kernels named nccl* are communication; copies by direction);
 *   - every legend swatch shows its colour, and every category the lanes show is in the legend;
 *   - no two texts overlap; a process without a rank is titled "pid N", never "rank -1";
 *   - every explained wait drawn is hatched (dark pixels inside its box) on its own lane;
 *   - each device has its concurrency strip;
 *   - a device's tag row is there only when a tag is written in it;
 *   - no wait tag on a stream lane covers one of the stream's operations. */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "kernel_name.h"
#include "naming.h"
#include "palette.h"
#include "reader.h"
#include "timeline.h"

static int inside(const struct timeline_box *box, double x, double y)
{
    return x >= box->x && x < box->x + box->width && y >= box->y && y < box->y + box->height;
}

/* A pixel that only a lane's intervals paint: no text (nor its anti-aliased edge) and no wait
 * mark over it. */
static int lane_pixel_is_clear(const struct timeline_layout *layout, double x, double y)
{
    for (size_t i = 0; i < layout->text_count; i++) {
        struct timeline_box around = layout->texts[i].box;
        around.x -= 1.5;
        around.y -= 1.5;
        around.width += 3;
        around.height += 3;
        if (inside(&around, x, y))
            return 0;
    }
    for (size_t i = 0; i < layout->wait_count; i++) {
        struct timeline_box around = layout->waits[i].box;
        around.x -= 8; /* the connector's arrowhead lands at the box's edge */
        around.width += 16;
        if (inside(&around, x, y))
            return 0;
    }
    return 1;
}

struct lane_interval {
    int64_t start_ns, end_ns;
    int category;
};

/* The lane's longest interval inside the window, from the rows. Returns 0 when found. */
static int longest_interval(store *trace, const struct timeline_layout *layout,
                            const struct timeline_lane_place *lane, struct lane_interval *found)
{
    static const char sql[] =
        "SELECT * FROM (SELECT start_ns, end_ns, 0 AS source, (SELECT value FROM strings WHERE id = name_id) "
        "AS name,"
        " 0 AS copy_kind, 0 AS src, 0 AS dst FROM kernels"
        " WHERE process_id = ?1 AND device_id = ?2 AND stream_id = ?3 AND start_ns >= ?4 AND end_ns <= ?5"
        " UNION ALL SELECT start_ns, end_ns, 1, NULL, copy_kind, src_device_id, dst_device_id FROM memcpys"
        " WHERE process_id = ?1 AND device_id = ?2 AND stream_id = ?3 AND start_ns >= ?4 AND end_ns <= ?5"
        " UNION ALL SELECT start_ns, end_ns, 2, NULL, 0, 0, 0 FROM memsets"
        " WHERE process_id = ?1 AND device_id = ?2 AND stream_id = ?3 AND start_ns >= ?4 AND end_ns <= ?5"
        ") ORDER BY end_ns - start_ns DESC LIMIT 1";
    sqlite3_stmt *query = NULL;
    int status = -1;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(query, 1, lane->process_id);
    sqlite3_bind_int64(query, 2, lane->device_id);
    sqlite3_bind_int64(query, 3, lane->stream_id);
    sqlite3_bind_int64(query, 4, layout->window_start_ns);
    sqlite3_bind_int64(query, 5, layout->window_end_ns);
    if (sqlite3_step(query) == SQLITE_ROW) {
        found->start_ns = sqlite3_column_int64(query, 0);
        found->end_ns = sqlite3_column_int64(query, 1);
        int table = sqlite3_column_int(query, 2);
        const char *name = (const char *)sqlite3_column_text(query, 3);
        if (table == 0)
            found->category = kernel_name_is_communication(name) ? ANALYSIS_COMMUNICATION : ANALYSIS_COMPUTE;
        else if (table == 1)
            found->category = store_copy_category(
                sqlite3_column_int64(query, 4),
                sqlite3_column_type(query, 5) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 5),
                sqlite3_column_type(query, 6) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(query, 6));
        else
            found->category = ANALYSIS_MEMSET;
        status = 0;
    }
    sqlite3_finalize(query);
    return status;
}

/* Inside the lane's longest interval, 3 px below the lane's top (clear of centred text), the
 * clear pixels are its colour. Returns the number of lanes checked (0 or 1). */
static int check_lane_colour(store *trace, const struct fixture_png *png,
                             const struct timeline_layout *layout, const struct timeline_lane_place *lane,
                             const char *name)
{
    struct lane_interval interval;
    if (longest_interval(trace, layout, lane, &interval) != 0)
        return 0;
    double x0 = timeline_layout_x(layout, interval.start_ns), x1 = timeline_layout_x(layout, interval.end_ns);
    if (x1 - x0 < 8)
        return 0;
    uint32_t expected = palette_colour(interval.category);
    int sampled = 0, matching = 0;
    int64_t odd_pixel = -1;
    double y = lane->box.y + 2.5;
    for (double x = x0 + 2.5; x < x1 - 2.5; x += 1) {
        if (!lane_pixel_is_clear(layout, x, y))
            continue;
        sampled++;
        int64_t pixel = fixture_png_pixel(png, x * layout->scale, y * layout->scale);
        if (fixture_colour_distance(pixel, expected) <= 3)
            matching++;
        else
            odd_pixel = pixel;
    }
    if (sampled < 3)
        return 0;
    if (matching * 10 < sampled * 9) {
        check_failed++;
        fprintf(stderr,
                "%s: %s: %d of %d pixels of its longest interval (%s) are #%06x (one is #%06" PRIx64 ")\n",
                name, lane->title, matching, sampled, analysis_category_tag(interval.category),
                (unsigned)expected, odd_pixel);
        return 1;
    }
    check_passed++;
    return 1;
}

static void check_legend(const struct fixture_png *png, const struct timeline_layout *layout,
                         const char *name)
{
    int shown[PALETTE_KIND_COUNT] = {0};
    for (size_t i = 0; i < layout->legend_count; i++) {
        const struct timeline_swatch *swatch = &layout->legend[i];
        for (int k = 0; k < PALETTE_KIND_COUNT; k++)
            shown[k] |= strcmp(swatch->name, palette_name(k)) == 0;
        if (swatch->hatched)
            continue; /* striped: no one colour */
        double x = (swatch->box.x + swatch->box.width / 2) * layout->scale,
               y = (swatch->box.y + swatch->box.height / 2) * layout->scale;
        if (fixture_colour_distance(fixture_png_pixel(png, x, y), swatch->rgb) > 3) {
            check_failed++;
            fprintf(stderr, "%s: legend swatch '%s' is not #%06x\n", name, swatch->name,
                    (unsigned)swatch->rgb);
        } else {
            check_passed++;
        }
    }
    int categories = 0;
    for (int k = 0; k < ANALYSIS_CATEGORY_COUNT; k++)
        categories += shown[k];
    CHECK(categories > 0);
}

static void check_texts(store *trace, const struct timeline_layout *layout, const char *name)
{
    int overlaps = 0, rank_minus_one = 0;
    for (size_t i = 0; i < layout->text_count; i++) {
        rank_minus_one += strstr(layout->texts[i].text, "rank -1") != NULL;
        for (size_t j = i + 1; j < layout->text_count; j++) {
            const struct timeline_box *a = &layout->texts[i].box, *b = &layout->texts[j].box;
            if (a->x < b->x + b->width && b->x < a->x + a->width && a->y < b->y + b->height &&
                b->y < a->y + a->height) {
                fprintf(stderr, "%s: texts overlap: '%s' and '%s'\n", name, layout->texts[i].text,
                        layout->texts[j].text);
                overlaps++;
            }
        }
    }
    CHECK_INT(overlaps, 0);
    CHECK_INT(rank_minus_one, 0);
    /* Each process without a rank that ran GPU work is titled by its pid (torch.compile's workers
     * are processes of the trace with none). */
    sqlite3_stmt *query = NULL;
    sqlite3_prepare_v2(store_db(trace),
                       "SELECT pid FROM processes p WHERE rank IS NULL AND pid IS NOT NULL AND"
                       " (EXISTS (SELECT 1 FROM kernels k WHERE k.process_id = p.process_id) OR"
                       " EXISTS (SELECT 1 FROM memcpys c WHERE c.process_id = p.process_id))",
                       -1, &query, NULL);
    while (sqlite3_step(query) == SQLITE_ROW) {
        char expected[48];
        snprintf(expected, sizeof expected, "pid %" PRId64 " \xc2\xb7 GPU",
                 (int64_t)sqlite3_column_int64(query, 0));
        int titled = 0, has_lanes = 0;
        for (size_t i = 0; i < layout->text_count; i++)
            titled |= layout->texts[i].kind == TIMELINE_TEXT_GROUP &&
                      strncmp(layout->texts[i].text, expected, strlen(expected)) == 0;
        for (size_t i = 0; i < layout->lane_count; i++)
            has_lanes |= layout->lanes[i].rank < 0 && layout->lanes[i].kind == TIMELINE_LANE_GPU;
        if (has_lanes && !titled) {
            check_failed++;
            fprintf(stderr, "%s: no group titled '%s...'\n", name, expected);
        }
    }
    sqlite3_finalize(query);
}

/* Every wait drawn lies on a GPU lane and has dark hatch pixels inside. */
static void check_waits(const struct fixture_png *png, const struct timeline_layout *layout, const char *name)
{
    for (size_t i = 0; i < layout->wait_count; i++) {
        const struct timeline_box *box = &layout->waits[i].box;
        int on_lane = 0, dark = 0;
        for (size_t l = 0; l < layout->lane_count; l++)
            on_lane |= layout->lanes[l].kind == TIMELINE_LANE_GPU && layout->lanes[l].box.y == box->y;
        for (double y = box->y + 1; y < box->y + box->height - 1; y += 1)
            for (double x = box->x; x < box->x + box->width; x += 0.5)
                dark += fixture_colour_distance(fixture_png_pixel(png, x * layout->scale, y * layout->scale),
                                                PALETTE_WAIT) < 110;
        if (!on_lane || dark == 0) {
            check_failed++;
            fprintf(stderr, "%s: wait %zu %s\n", name, i, on_lane ? "has no hatching" : "is on no lane");
        } else {
            check_passed++;
        }
    }
}

static void check_strips(const struct timeline_layout *layout, const char *name)
{
    for (size_t i = 0; i < layout->lane_count; i++) {
        const struct timeline_lane_place *lane = &layout->lanes[i];
        if (lane->kind != TIMELINE_LANE_GPU)
            continue;
        int strip = 0;
        for (size_t j = 0; j < layout->lane_count; j++)
            strip |= layout->lanes[j].kind == TIMELINE_LANE_CONCURRENCY &&
                     layout->lanes[j].process_id == lane->process_id &&
                     layout->lanes[j].device_id == lane->device_id;
        if (!strip) {
            check_failed++;
            fprintf(stderr, "%s: no concurrency strip for %s\n", name, lane->title);
            return;
        }
    }
    check_passed++;
}

/* The time at x (CSS pixels) on the picture: timeline_layout_x's inverse. */
static int64_t time_at(const struct timeline_layout *layout, double x)
{
    return layout->window_start_ns +
           (int64_t)((x - layout->plot_left) / (layout->plot_right - layout->plot_left) *
                     (double)(layout->window_end_ns - layout->window_start_ns));
}

/* No wait tag written on a stream lane covers one of the lane's operations (issue 14 Must 5): the
 * rows of the lane's stream during the tag's span, from the trace itself. */
static void check_tags_off_bars(store *trace, const struct timeline_layout *layout, const char *name)
{
    static const char sql[] =
        "SELECT COUNT(*) FROM (SELECT process_id, device_id, stream_id, start_ns, end_ns FROM kernels UNION "
        "ALL"
        " SELECT process_id, device_id, stream_id, start_ns, end_ns FROM memcpys UNION ALL"
        " SELECT process_id, device_id, stream_id, start_ns, end_ns FROM memsets)"
        " WHERE process_id = ?1 AND device_id = ?2 AND stream_id = ?3 AND start_ns < ?5 AND end_ns > ?4";
    sqlite3_stmt *query = NULL;
    CHECK_INT(sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL), SQLITE_OK);
    for (size_t t = 0; query && t < layout->text_count; t++) {
        const struct timeline_box *box = &layout->texts[t].box;
        for (size_t l = 0; layout->texts[t].kind == TIMELINE_TEXT_WAIT && l < layout->lane_count; l++) {
            const struct timeline_lane_place *lane = &layout->lanes[l];
            if (lane->kind != TIMELINE_LANE_GPU || box->y + box->height <= lane->box.y ||
                box->y >= lane->box.y + lane->box.height)
                continue;
            sqlite3_reset(query);
            int64_t values[5] = {lane->process_id, lane->device_id, lane->stream_id, time_at(layout, box->x),
                                 time_at(layout, box->x + box->width)};
            for (int v = 0; v < 5; v++)
                sqlite3_bind_int64(query, v + 1, values[v]);
            int64_t covered = sqlite3_step(query) == SQLITE_ROW ? sqlite3_column_int64(query, 0) : -1;
            if (covered != 0) {
                check_failed++;
                fprintf(stderr, "%s: the tag '%s' covers %" PRId64 " operations of %s\n", name,
                        layout->texts[t].text, covered, lane->title);
            } else {
                check_passed++;
            }
        }
    }
    sqlite3_finalize(query);
}

/* A device's tag row (the band between its strip or accounting lane and its first stream lane)
 * is there only when a wait's tag is written in it: an empty band is a hole in the picture. */
static void check_tag_rows(const struct timeline_layout *layout, const char *name)
{
    for (size_t i = 0; i < layout->lane_count; i++) {
        const struct timeline_lane_place *above = &layout->lanes[i];
        if (above->kind != TIMELINE_LANE_CONCURRENCY && above->kind != TIMELINE_LANE_ACCOUNTING)
            continue;
        double top = above->box.y + above->box.height, first = -1;
        for (size_t j = 0; j < layout->lane_count; j++) {
            const struct timeline_lane_place *lane = &layout->lanes[j];
            if (lane->process_id == above->process_id && lane->device_id == above->device_id &&
                lane->box.y >= top && (first < 0 || lane->box.y < first))
                first = lane->box.y;
        }
        if (first < 0 || first - top < 12)
            continue; /* no band (the accounting lane follows the strip, or a lane the band) */
        int tags = 0;
        for (size_t t = 0; t < layout->text_count; t++)
            tags += layout->texts[t].kind == TIMELINE_TEXT_WAIT && layout->texts[t].box.y >= top - 2 &&
                    layout->texts[t].box.y + layout->texts[t].box.height <= first + 2;
        if (tags == 0) {
            check_failed++;
            fprintf(stderr, "%s: an empty tag row above the lanes of GPU %" PRId64 "\n", name,
                    above->device_id);
        } else {
            check_passed++;
        }
    }
}

/* Draws the trace (options NULL: as `overlapscope render` does) and checks the picture.
 * Returns the number of lanes whose colour could be checked. */
static int draw_and_check(store *trace, const struct analysis_result *analysis,
                          const struct timeline_options *options, const char *picture, const char *file)
{
    error_info err;
    struct timeline_layout *layout = NULL;
    unlink(picture); /* render refuses to replace a picture without force, as the CLI does */
    int status = timeline_draw(trace, analysis, options, picture, &layout, &err);
    if (status != 0)
        fprintf(stderr, "%s: %s\n", file, err.message);
    CHECK_INT(status, 0);
    struct fixture_png png;
    int lanes_checked = 0, gpu_lanes = 0;
    if (status == 0 && fixture_png_open(&png, picture) == 0) {
        CHECK_INT(png.height, layout->height_px);
        for (size_t i = 0; i < layout->lane_count; i++) {
            if (layout->lanes[i].kind != TIMELINE_LANE_GPU)
                continue;
            gpu_lanes++;
            lanes_checked += check_lane_colour(trace, &png, layout, &layout->lanes[i], file);
        }
        CHECK(gpu_lanes > 0);
        check_legend(&png, layout, file);
        check_texts(trace, layout, file);
        check_waits(&png, layout, file);
        check_strips(layout, file);
        check_tag_rows(layout, file);
        check_tags_off_bars(trace, layout, file);
        fixture_png_close(&png);
    }
    timeline_layout_free(layout);
    return lanes_checked;
}

/* A window around the trace's longest GPU interval, which then fills half the plot. */
static int window_around_longest(store *trace, struct timeline_options *options)
{
    static const char sql[] =
        "SELECT start_ns, end_ns FROM (SELECT start_ns, end_ns FROM kernels UNION ALL"
        " SELECT start_ns, end_ns FROM memcpys UNION ALL SELECT start_ns, end_ns FROM memsets)"
        " ORDER BY end_ns - start_ns DESC LIMIT 1";
    sqlite3_stmt *query = NULL;
    int status = -1;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW) {
        int64_t start_ns = sqlite3_column_int64(query, 0), end_ns = sqlite3_column_int64(query, 1);
        int64_t margin_ns = (end_ns - start_ns) / 2 + 1;
        options->selection.window_start_ns = start_ns - margin_ns;
        options->selection.window_end_ns = end_ns + margin_ns;
        status = 0;
    }
    sqlite3_finalize(query);
    return status;
}

static void check_trace(const char *directory, const char *file, const char *picture)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", directory, file);
    error_info err;
    store *trace = store_open(path, 1, &err);
    if (!trace) {
        check_failed++;
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    struct analysis_options analysis_options;
    analysis_options_init(&analysis_options);
    struct analysis_result *analysis = analysis_run(trace, &analysis_options, &err);
    CHECK(analysis != NULL);
    int lanes_checked = draw_and_check(trace, analysis, NULL, picture, file);
    /* Where every interval is narrower than 8 px at the trace's full span, zoom in on the
     * longest: every trace has at least one interval to read the colour of. */
    struct timeline_options zoomed;
    timeline_options_init(&zoomed);
    if (lanes_checked == 0 && window_around_longest(trace, &zoomed) == 0)
        lanes_checked = draw_and_check(trace, analysis, &zoomed, picture, file);
    if (lanes_checked == 0)
        fprintf(stderr, "%s: no lane checked\n", file);
    CHECK(lanes_checked > 0);
    analysis_free(analysis);
    store_close(trace, NULL);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Checks every trace of one folder of golden traces; returns how many. */
static size_t check_folder(const char *sub, const char *picture)
{
    char directory[1024];
    fixture_data_path(directory, sizeof directory, sub);
    DIR *folder = opendir(directory);
    CHECK(folder != NULL);
    char *names[256];
    size_t count = 0;
    for (struct dirent *entry; folder && (entry = readdir(folder)) != NULL && count < 256;) {
        size_t length = strlen(entry->d_name);
        if (length > 3 && strcmp(entry->d_name + length - 3, ".db") == 0)
            names[count++] = strdup(entry->d_name);
    }
    if (folder)
        closedir(folder);
    qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; i++) {
        check_trace(directory, names[i], picture);
        free(names[i]);
    }
    return count;
}

int main(void)
{
    char picture[128];
    CHECK_INT(fixture_picture_path(picture, sizeof picture, "golden"), 0);
    /* The H200 recordings, then the H100 ones (tests/data/gpu-h100/README.md). */
    CHECK(check_folder("gpu", picture) >= 20);
    CHECK(check_folder("gpu-h100", picture) >= 20);
    unlink(picture);
    timeline_release_caches();
    return check_finish();
}
