/* test_render_accounting.c: the picture marks where a device's idle time and exposed
 * communication went (issue 16, Must 4), on the H100 golden host_bound_sync (a kernel, then
 * cudaDeviceSynchronize, 300 times: the GPU idles while the host is blocked in the call):
 *   - the device has one accounting lane, between its concurrency strip and its stream lanes;
 *   - every stretch the analyzer accounted in the window is marked on it at exactly its interval
 *     (timeline_layout_x of its start and end), the host-blocked ones hatched like a wait, and
 *     the hatching is there in the pixels;
 *   - the host-blocked stretches add up to the analysis's host-sync idle time;
 *   - the cause is named on the lane ("host blocked in cudaDeviceSynchronize"), over its marks;
 *   - the legend has the hatched "idle: host blocked" entry;
 *   - the title's figures give the idle time, its share and its largest cause.
 * And on the 2x H200 golden torch_copy_pageable (ResNet-18 fed from pageable memory, issue 36), in
 * its range "epoch 1": every exposed-copy stretch is marked in the exposed-copy style, they add up
 * to the device's exposed copy time, the batches' are pageable and the legend has the entry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "palette.h"
#include "timeline.h"
#include "units.h"

static const struct timeline_lane_place *lane_of_kind(const struct timeline_layout *layout,
                                                      enum timeline_lane_kind kind, size_t *count)
{
    const struct timeline_lane_place *found = NULL;
    *count = 0;
    for (size_t i = 0; i < layout->lane_count; i++)
        if (layout->lanes[i].kind == kind) {
            found = found ? found : &layout->lanes[i];
            (*count)++;
        }
    return found;
}

/* The device's whole-span host-sync idle time, as the report prints it. */
static int64_t host_sync_idle_ns(const struct analysis_result *analysis)
{
    int64_t total = 0;
    for (size_t a = 0; a < analysis->accounting_count; a++) {
        const struct analysis_accounting *books = &analysis->accountings[a];
        for (size_t e = 0; books->step == -1 && e < books->idle.entry_count; e++)
            if (books->idle.entries[e].cause == ACCOUNTING_IDLE_HOST_SYNC)
                total += books->idle.entries[e].ns;
    }
    return total;
}

static void check_marks(const struct analysis_result *analysis, const struct timeline_layout *layout,
                        const struct timeline_lane_place *lane)
{
    size_t in_window = 0, host_blocked = 0;
    int64_t host_blocked_ns = 0;
    for (size_t i = 0; i < analysis->accounting_interval_count; i++) {
        const struct accounting_interval *interval = &analysis->accounting_intervals[i];
        if (interval->end_ns <= layout->window_start_ns || interval->start_ns >= layout->window_end_ns)
            continue;
        in_window++;
        const struct timeline_accounting_mark *mark = NULL;
        for (size_t m = 0; m < layout->accounting_mark_count && !mark; m++)
            if (layout->accounting_marks[m].interval_index == i)
                mark = &layout->accounting_marks[m];
        CHECK(mark != NULL);
        if (!mark)
            continue;
        double x0 = timeline_layout_x(layout, interval->start_ns),
               x1 = timeline_layout_x(layout, interval->end_ns);
        CHECK(fabs(mark->box.x - x0) < 1e-6 && fabs(mark->box.x + mark->box.width - x1) < 1e-6);
        CHECK(mark->box.y == lane->box.y && mark->box.height == lane->box.height);
        int blocked = interval->cause == ACCOUNTING_IDLE_HOST_SYNC;
        CHECK_INT(mark->style == TIMELINE_IDLE_HOST_BLOCKED, blocked);
        host_blocked += blocked;
        host_blocked_ns += blocked ? interval->end_ns - interval->start_ns : 0;
    }
    CHECK_INT(layout->accounting_mark_count, in_window);
    CHECK(host_blocked >= 300); /* one gap per cudaDeviceSynchronize at least */
    CHECK_INT(host_blocked_ns, host_sync_idle_ns(analysis));
}

/* Dark hatch pixels inside the widest host-blocked mark. */
static void check_hatching(const struct timeline_layout *layout, const char *picture)
{
    const struct timeline_accounting_mark *widest = NULL;
    for (size_t m = 0; m < layout->accounting_mark_count; m++)
        if (layout->accounting_marks[m].style == TIMELINE_IDLE_HOST_BLOCKED &&
            (!widest || layout->accounting_marks[m].box.width > widest->box.width))
            widest = &layout->accounting_marks[m];
    struct fixture_png png;
    CHECK(widest && widest->box.width >= 3);
    if (!widest || fixture_png_open(&png, picture) != 0)
        return;
    int dark = 0;
    for (double y = widest->box.y + 1; y < widest->box.y + widest->box.height - 1; y += 1)
        for (double x = widest->box.x + 0.5; x < widest->box.x + widest->box.width - 0.5; x += 0.5)
            dark += fixture_colour_distance(fixture_png_pixel(&png, x * layout->scale, y * layout->scale),
                                            PALETTE_WAIT) < 110;
    CHECK(dark > 0);
    fixture_png_close(&png);
}

/* The title's figures say how much of the time the GPU idled and the largest cause. */
static void check_title(const struct analysis_result *analysis, const struct timeline_layout *layout)
{
    const struct analysis_device *device = &analysis->devices[0];
    char idle[32], expected[96];
    snprintf(expected, sizeof expected, "GPU idle %s (%.0f%%, most: host-sync)",
             units_format_duration(idle, sizeof idle, device->idle_ns),
             100.0 * (double)device->idle_ns / (double)(device->span_end_ns - device->span_start_ns));
    CHECK_INT(analysis->device_count, 1);
    CHECK(host_sync_idle_ns(analysis) * 2 > device->idle_ns); /* the largest cause, by far */
    int found = 0;
    for (size_t i = 0; i < layout->text_count; i++)
        found |= layout->texts[i].kind == TIMELINE_TEXT_TITLE && strstr(layout->texts[i].text, expected);
    if (!found)
        fprintf(stderr, "no title holds '%s'\n", expected);
    CHECK(found);
}

static void check_name_and_legend(const struct timeline_layout *layout,
                                  const struct timeline_lane_place *lane)
{
    int named = 0;
    for (size_t i = 0; i < layout->text_count; i++) {
        const struct timeline_text *text = &layout->texts[i];
        if (text->kind != TIMELINE_TEXT_ACCOUNTING ||
            strcmp(text->text, "host blocked in cudaDeviceSynchronize"))
            continue;
        named++;
        CHECK(text->box.y >= lane->box.y - 2 &&
              text->box.y + text->box.height <= lane->box.y + lane->box.height + 2);
        /* over its own marks: a host-blocked mark under the text's middle */
        double middle = text->box.x + text->box.width / 2;
        int over = 0;
        for (size_t m = 0; m < layout->accounting_mark_count; m++) {
            const struct timeline_box *box = &layout->accounting_marks[m].box;
            over |= layout->accounting_marks[m].style == TIMELINE_IDLE_HOST_BLOCKED &&
                    box->x <= middle + 20 && box->x + box->width >= middle - 20;
        }
        CHECK(over);
    }
    CHECK(named >= 1);
    int legend = 0;
    for (size_t i = 0; i < layout->legend_count; i++)
        legend += strcmp(layout->legend[i].name, "idle: host blocked") == 0 && layout->legend[i].hatched;
    CHECK_INT(legend, 1);
}

/* A golden trace analysed and drawn: its store, analysis, layout and picture file (drawn_free). */
struct drawn {
    store *trace;
    struct analysis_result *analysis;
    struct timeline_layout *layout;
    char picture[128];
};

/* data_name (test-data relative) analysed in range (NULL: all), drawn into picture_name. */
static void draw_golden(struct drawn *d, const char *data_name, const char *range, const char *picture_name)
{
    char path[1024];
    memset(d, 0, sizeof *d);
    fixture_data_path(path, sizeof path, data_name);
    CHECK_INT(fixture_picture_path(d->picture, sizeof d->picture, picture_name), 0);
    error_info err;
    d->trace = store_open(path, 1, &err);
    CHECK(d->trace != NULL);
    struct analysis_options options;
    analysis_options_init(&options);
    options.range_name = range;
    d->analysis = d->trace ? analysis_run(d->trace, &options, &err) : NULL;
    CHECK(d->analysis != NULL);
    if (d->analysis && timeline_draw(d->trace, d->analysis, NULL, d->picture, &d->layout, &err) != 0)
        fprintf(stderr, "%s\n", err.message);
    CHECK(d->layout != NULL);
}

static void drawn_free(struct drawn *d)
{
    timeline_layout_free(d->layout);
    analysis_free(d->analysis);
    if (d->trace)
        store_close(d->trace, NULL);
    unlink(d->picture);
}

/* The exposed copies of the pageable ResNet-18 epoch on the lane. */
static void test_exposed_copy_lane(void)
{
    struct drawn d;
    draw_golden(&d, "gpu-h200x2/torch_copy_pageable.db", "epoch 1", "exposed-copy");
    const struct analysis_result *analysis = d.analysis;
    const struct timeline_layout *layout = d.layout;
    CHECK(analysis == NULL || analysis->device_count == 1);
    if (layout && analysis && analysis->device_count == 1) {
        int64_t copy_ns = 0;
        size_t copy_intervals = 0, copy_marks = 0, pageable = 0;
        for (size_t i = 0; i < analysis->accounting_interval_count; i++) {
            const struct accounting_interval *interval = &analysis->accounting_intervals[i];
            if (accounting_cause_picture(interval->cause) != CAUSE_PICTURE_EXPOSED_COPY)
                continue;
            copy_intervals++;
            copy_ns += interval->end_ns - interval->start_ns;
            pageable += interval->cause == ACCOUNTING_COPY_PAGEABLE;
        }
        for (size_t m = 0; m < layout->accounting_mark_count; m++)
            copy_marks += layout->accounting_marks[m].style == TIMELINE_EXPOSED_COPY;
        CHECK(pageable >= 12); /* 12 batches of 73.5 MiB an epoch, each copied with the SMs idle */
        CHECK_INT(copy_marks, copy_intervals);
        CHECK_INT(copy_ns, analysis->devices[0].exposed_copy_ns);
        int legend = 0;
        for (size_t i = 0; i < layout->legend_count; i++)
            legend +=
                strcmp(layout->legend[i].name, "exposed copy: SMs wait") == 0 && layout->legend[i].hatched;
        CHECK_INT(legend, 1);
    }
    drawn_free(&d);
}

int main(void)
{
    test_exposed_copy_lane();
    struct drawn d;
    draw_golden(&d, "gpu-h100/host_bound_sync.db", NULL, "accounting");
    const struct analysis_result *analysis = d.analysis;
    struct timeline_layout *layout = d.layout;
    const char *picture = d.picture;
    if (layout) {
        size_t count = 0, strips = 0, gpu_lanes = 0;
        const struct timeline_lane_place *lane = lane_of_kind(layout, TIMELINE_LANE_ACCOUNTING, &count);
        const struct timeline_lane_place *strip = lane_of_kind(layout, TIMELINE_LANE_CONCURRENCY, &strips);
        const struct timeline_lane_place *first_gpu = lane_of_kind(layout, TIMELINE_LANE_GPU, &gpu_lanes);
        CHECK_INT(count, 1);
        CHECK(lane && strip && first_gpu && strip->box.y < lane->box.y && lane->box.y < first_gpu->box.y);
        if (lane) {
            check_marks(analysis, layout, lane);
            check_hatching(layout, picture);
            check_name_and_legend(layout, lane);
            check_title(analysis, layout);
        }
    }
    drawn_free(&d);
    timeline_release_caches();
    return check_finish();
}
