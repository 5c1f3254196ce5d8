/* test_render_picture.c: the timeline picture of a hand-built scenario (tests/render/fixture.h),
 * read back pixel by pixel: each category's colour at a known time in its stream's lane, the
 * legend's swatches, the concurrency strip, the burst of 10,000 sub-pixel kernels as a filled
 * column, the hatched explained wait with its tag and connector, labels that never overlap, and
 * the same picture at twice the resolution and as SVG and PDF. */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "palette.h"
#include "timeline.h"

static char directory[] = "/tmp/overlapscope-test-render-XXXXXX";

static const char *path_in(const char *name)
{
    static char paths[4][512];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, 512, "%s/%s", directory, name);
    return path;
}

static const struct timeline_lane_place *find_lane(const struct timeline_layout *layout,
                                                   enum timeline_lane_kind kind, int64_t stream_or_thread,
                                                   int64_t depth)
{
    for (size_t i = 0; i < layout->lane_count; i++) {
        const struct timeline_lane_place *lane = &layout->lanes[i];
        if (lane->kind != kind)
            continue;
        if (kind == TIMELINE_LANE_GPU && lane->stream_id == stream_or_thread)
            return lane;
        if ((kind == TIMELINE_LANE_HOST || kind == TIMELINE_LANE_NVTX) &&
            lane->thread_id == stream_or_thread && lane->depth == depth)
            return lane;
        if (kind == TIMELINE_LANE_CONCURRENCY)
            return lane;
    }
    return NULL;
}

static int inside(const struct timeline_box *box, double x, double y)
{
    return x >= box->x && x < box->x + box->width && y >= box->y && y < box->y + box->height;
}

static int on_text(const struct timeline_layout *layout, double x, double y)
{
    for (size_t i = 0; i < layout->text_count; i++)
        if (inside(&layout->texts[i].box, x, y))
            return 1;
    return 0;
}

/* The colour at time t_us in a lane, sampled 3 px below the lane's top (clear of the outline
 * and of text, which is centred); -1 when the lane is missing. */
static int64_t colour_at(const struct fixture_png *png, const struct timeline_layout *layout,
                         const struct timeline_lane_place *lane, double t_us)
{
    if (!lane)
        return -1;
    double x = timeline_layout_x(layout, AT(t_us)), y = lane->box.y + 3;
    if (on_text(layout, x, y))
        return -2;
    return fixture_png_pixel(png, x * layout->scale, y * layout->scale);
}

#define CHECK_COLOUR(actual, expected)                                                                       \
    do {                                                                                                     \
        int64_t colour_ = (actual);                                                                          \
        if (fixture_colour_distance(colour_, (expected)) <= 3) {                                             \
            check_passed++;                                                                                  \
        } else {                                                                                             \
            check_failed++;                                                                                  \
            fprintf(stderr, "%s:%d: %s is #%06" PRIx64 ", expected #%06x\n", __FILE__, __LINE__, #actual,    \
                    (uint64_t)colour_, (unsigned)(expected));                                                \
        }                                                                                                    \
    } while (0)

static const struct timeline_text *find_text(const struct timeline_layout *layout,
                                             enum timeline_text_kind kind, const char *fragment)
{
    for (size_t i = 0; i < layout->text_count; i++)
        if (layout->texts[i].kind == kind && strstr(layout->texts[i].text, fragment))
            return &layout->texts[i];
    return NULL;
}

static void check_no_label_overlaps(const struct timeline_layout *layout)
{
    int overlaps = 0;
    for (size_t i = 0; i < layout->text_count; i++) {
        for (size_t j = i + 1; j < layout->text_count; j++) {
            const struct timeline_box *a = &layout->texts[i].box, *b = &layout->texts[j].box;
            if (a->x < b->x + b->width && b->x < a->x + a->width && a->y < b->y + b->height &&
                b->y < a->y + a->height) {
                fprintf(stderr, "labels overlap: '%s' and '%s'\n", layout->texts[i].text,
                        layout->texts[j].text);
                overlaps++;
            }
        }
    }
    CHECK_INT(overlaps, 0);
    CHECK(layout->text_count > 20);
}

/* How opaque compute is drawn at a pixel of the burst lane: from the red channel, which is 0
 * for compute and 244 for the lane background (0 = background, 1 = full colour). */
static double compute_opacity(int64_t colour)
{
    return colour < 0 ? -1 : (244.0 - (double)((colour >> 16) & 255)) / 244.0;
}

/* The burst [7000 us, 7010 us) spans under two columns. Each column shows compute at 30% plus
 * 70% of the part the burst covers (rounded up to 16ths), so the covered parts read back from
 * the pixels add up to the burst's 10 us. A floor per 1 ns kernel, as there once was, would
 * add up to full columns: twice as much. */
static void check_burst(const struct fixture_png *png, const struct timeline_layout *layout,
                        const struct timeline_lane_place *lane)
{
    double x0 = timeline_layout_x(layout, AT(6980)) * layout->scale,
           x1 = timeline_layout_x(layout, AT(7030)) * layout->scale;
    double ns_per_pixel = (double)(layout->window_end_ns - layout->window_start_ns) /
                          ((layout->plot_right - layout->plot_left) * layout->scale);
    double covered = 0;
    int shown = 0;
    for (double x = floor(x0); x <= x1; x += 1) {
        double opacity = compute_opacity(fixture_png_pixel(png, x, (lane->box.y + 3) * layout->scale));
        if (opacity <= 0.02)
            continue;
        shown++;
        covered += fmax(0, (opacity - 0.3) / 0.7);
    }
    double expected = 10000 / ns_per_pixel;
    if (fabs(covered - expected) > 0.25)
        fprintf(stderr, "the burst reads as %.3f pixels of coverage, expected %.3f\n", covered, expected);
    CHECK(fabs(covered - expected) <= 0.25);
    CHECK(shown >= 2 && shown <= 4);
}

static void check_categories(const struct fixture_png *png, const struct timeline_layout *layout)
{
    const struct timeline_lane_place *legacy = find_lane(layout, TIMELINE_LANE_GPU, 7, 0),
                                     *compute = find_lane(layout, TIMELINE_LANE_GPU, 13, 0),
                                     *nccl = find_lane(layout, TIMELINE_LANE_GPU, 14, 0),
                                     *copy = find_lane(layout, TIMELINE_LANE_GPU, 15, 0),
                                     *burst = find_lane(layout, TIMELINE_LANE_GPU, 16, 0);
    CHECK(legacy && compute && nccl && copy && burst);
    CHECK_COLOUR(colour_at(png, layout, compute, 1000), palette_colour(ANALYSIS_COMPUTE));
    CHECK_COLOUR(colour_at(png, layout, compute, 5800), palette_colour(ANALYSIS_COMPUTE));
    CHECK_COLOUR(colour_at(png, layout, legacy, 3250), palette_colour(ANALYSIS_COMPUTE));
    CHECK_COLOUR(colour_at(png, layout, nccl, 2500), palette_colour(ANALYSIS_COMMUNICATION));
    CHECK_COLOUR(colour_at(png, layout, copy, 6500), palette_colour(ANALYSIS_COPY_HTOD));
    CHECK_COLOUR(colour_at(png, layout, copy, 9500), palette_colour(ANALYSIS_COPY_DTOH));
    CHECK_COLOUR(colour_at(png, layout, copy, 10250), palette_colour(ANALYSIS_MEMSET));
    /* Idle parts of lanes show the lane's background. */
    CHECK_COLOUR(colour_at(png, layout, compute, 8300), PALETTE_LANE_BACKGROUND);
    CHECK_COLOUR(colour_at(png, layout, copy, 3300), PALETTE_LANE_BACKGROUND);
    /* 10,000 kernels of 1 ns each from 7000 us: 10 us, under two pixel columns, drawn as the
     * part of each column they cover (check_burst); the lane is empty beside them. */
    check_burst(png, layout, burst);
    CHECK_COLOUR(colour_at(png, layout, burst, 6900), PALETTE_LANE_BACKGROUND);
    CHECK_COLOUR(colour_at(png, layout, burst, 7100), PALETTE_LANE_BACKGROUND);
}

static void check_concurrency(const struct fixture_png *png, const struct timeline_layout *layout)
{
    const struct timeline_lane_place *strip = find_lane(layout, TIMELINE_LANE_CONCURRENCY, 0, 0);
    CHECK(strip != NULL);
    /* 1000 us: sgemm alone; 2500: sgemm + AllReduce; 3250: and the legacy-stream kernel;
     * 9500: only the DtoH copy; nothing after 10500 but the window ends there. */
    CHECK_COLOUR(colour_at(png, layout, strip, 1000), palette_concurrency_colour(1));
    CHECK_COLOUR(colour_at(png, layout, strip, 2500), palette_concurrency_colour(2));
    CHECK_COLOUR(colour_at(png, layout, strip, 3250), palette_concurrency_colour(3));
    CHECK_COLOUR(colour_at(png, layout, strip, 7500), palette_concurrency_colour(2));
    CHECK_COLOUR(colour_at(png, layout, strip, 9500), palette_concurrency_colour(1));
}

static void check_legend(const struct fixture_png *png, const struct timeline_layout *layout)
{
    static const char *const expected[] = {"compute",   "NCCL",   "copy HtoD",
                                           "copy DtoH", "memset", "explained wait (cause)"};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const struct timeline_swatch *swatch = NULL;
        for (size_t j = 0; j < layout->legend_count; j++)
            if (strcmp(layout->legend[j].name, expected[i]) == 0)
                swatch = &layout->legend[j];
        CHECK(swatch != NULL);
        CHECK(find_text(layout, TIMELINE_TEXT_LEGEND, expected[i]) != NULL);
        if (!swatch || strcmp(expected[i], "explained wait (cause)") == 0)
            continue;
        double x = (swatch->box.x + swatch->box.width / 2) * layout->scale,
               y = (swatch->box.y + swatch->box.height / 2) * layout->scale;
        CHECK_COLOUR(fixture_png_pixel(png, x, y), swatch->rgb);
    }
    for (size_t j = 0; j < layout->legend_count; j++)
        CHECK(strcmp(layout->legend[j].name, "copy peer") != 0); /* only what the picture shows */
}

/* Along a row through the hatched window: dark stripes and light gaps alternate. */
static void check_wait(const struct fixture_png *png, const struct timeline_layout *layout)
{
    CHECK_INT(layout->wait_count, 1);
    if (layout->wait_count != 1)
        return;
    const struct timeline_wait_mark *mark = &layout->waits[0];
    CHECK_NEAR(mark->box.x, timeline_layout_x(layout, AT(5000)), 1);
    CHECK_NEAR(mark->box.x + mark->box.width, timeline_layout_x(layout, AT(6000)), 1);
    CHECK_NEAR(mark->box.y, find_lane(layout, TIMELINE_LANE_GPU, 14, 0)->box.y, 0.01);
    CHECK(mark->has_tag);
    CHECK(mark->has_connector);
    /* The tag does not fit the 1 ms window; beside it on the lane it would cover the AllReduce
     * bars (2-5 ms, 6-8 ms): it goes inside (smaller) or to the device's tag row, whole. */
    const struct timeline_text *tag = find_text(layout, TIMELINE_TEXT_WAIT, "comm-behind-compute");
    const struct timeline_lane_place *lane = find_lane(layout, TIMELINE_LANE_GPU, 14, 0);
    CHECK(tag != NULL && lane != NULL);
    if (tag && lane) {
        int on_lane =
            tag->box.y < lane->box.y + lane->box.height && tag->box.y + tag->box.height > lane->box.y;
        CHECK(!on_lane || (tag->box.x >= timeline_layout_x(layout, AT(5000)) &&
                           tag->box.x + tag->box.width <= timeline_layout_x(layout, AT(6000))));
        CHECK_STR(tag->text, "comm-behind-compute");
    }
    int dark = 0, light = 0, transitions = 0, previous = -1;
    double y = mark->box.y + 2.5; /* above the tag, which sits in the middle */
    for (double x = mark->box.x + 2; x < mark->box.x + mark->box.width - 2; x += 1 / layout->scale) {
        if (on_text(layout, x, y))
            continue;
        int64_t pixel = fixture_png_pixel(png, x * layout->scale, y * layout->scale);
        int is_dark = fixture_colour_distance(pixel, 0x000000) < 110;
        dark += is_dark;
        light += !is_dark;
        transitions += previous >= 0 && previous != is_dark;
        previous = is_dark;
    }
    CHECK(dark > 10);
    CHECK(light > 10);
    CHECK(transitions > 10);
}

static void check_titles(const struct timeline_layout *layout)
{
    CHECK(find_text(layout, TIMELINE_TEXT_TITLE, "python train.py") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_TITLE, "communication overlapped 60.0%") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_TITLE, "exposed communication 2.00 ms") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_GROUP, "rank 0 \xc2\xb7 GPU 0 \xc2\xb7 NVIDIA H100 80GB HBM3") !=
          NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_LANE, "stream 14 \xc2\xb7 NCCL") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_LANE, "stream 15 \xc2\xb7 copy") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_LANE, "stream 7 \xc2\xb7 legacy default") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_INTERVAL, "AllReduce 4.00 MiB") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_INTERVAL, "AllReduce 8.00 MiB") != NULL ||
          find_text(layout, TIMELINE_TEXT_WAIT, "comm-behind-compute") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_INTERVAL, "sgemm_256x128") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_INTERVAL, "HtoD 64.0 MiB (pageable)") != NULL);
    /* Axis: 10.5 ms over ~1350 CSS px (675 at 192 dpi): ticks every 1 ms (2 ms), in ms. */
    CHECK_INT(layout->tick_step_ns, layout->scale > 1 ? 2000000 : 1000000);
    CHECK(find_text(layout, TIMELINE_TEXT_AXIS, "4 ms") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_AXIS, "10 ms") != NULL);
}

static void test_scenario(store *trace, struct analysis_result *analysis, double dpi, const char *name)
{
    struct timeline_options options;
    timeline_options_init(&options);
    options.dpi = dpi;
    struct timeline_layout *layout = NULL;
    error_info err = {{0}};
    const char *path = path_in(name);
    int status = timeline_draw(trace, analysis, &options, path, &layout, &err);
    CHECK_INT(status, 0);
    if (status != 0) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    struct fixture_png png;
    CHECK_INT(fixture_png_open(&png, path), 0);
    CHECK_INT(png.width, 1600);
    CHECK_INT(png.height, layout->height_px);
    CHECK_NEAR(layout->scale, dpi / 96, 1e-9);
    check_categories(&png, layout);
    check_concurrency(&png, layout);
    check_legend(&png, layout);
    check_wait(&png, layout);
    check_titles(layout);
    check_no_label_overlaps(layout);
    fixture_png_close(&png);
    timeline_layout_free(layout);
}

/* The what-if's ghost end: device 0's span ends at 10 ms and the model saves 3 ms, so a dashed
 * line stands at 7 ms with its label beside it, on the device's "streams busy" row. */
static void test_ghost_end(store *trace, struct analysis_result *analysis)
{
    struct analysis_device device = {.process_id = 1,
                                     .device_id = 0,
                                     .span_start_ns = AT(0),
                                     .span_end_ns = AT(10000),
                                     .headroom_ns = 3000000};
    analysis->devices = &device;
    analysis->device_count = 1;
    struct timeline_options options;
    timeline_options_init(&options);
    struct timeline_layout *layout = NULL;
    error_info err = {{0}};
    CHECK_INT(timeline_draw(trace, analysis, &options, path_in("ghost.png"), &layout, &err), 0);
    const struct timeline_text *label =
        layout ? find_text(layout, TIMELINE_TEXT_WAIT, "if fixed: -3.00 ms") : NULL;
    CHECK(label != NULL);
    if (label) {
        double x = timeline_layout_x(layout, AT(7000));
        CHECK(fabs(label->box.x + label->box.width - (x - 3)) < 3 || fabs(label->box.x - (x + 3)) < 3);
    }
    timeline_layout_free(layout);
    /* The same figures from an analysis of a window (the default steady-state picture's): its
     * replay is of whole operations that may reach outside the window, so no line is drawn. */
    layout = NULL;
    analysis->selection.time_restricted = 1;
    CHECK_INT(timeline_draw(trace, analysis, &options, path_in("ghost-window.png"), &layout, &err), 0);
    CHECK(layout && !find_text(layout, TIMELINE_TEXT_WAIT, "if fixed: -3.00 ms"));
    analysis->selection.time_restricted = 0;
    timeline_layout_free(layout);
    /* Fixes that put kernels side by side for 2 ms of the 3 saved: an upper bound, as the report
     * says it ("up to"); for 0.2 ms (under a tenth of the saving) not. */
    device.fix_together_ns[ANALYSIS_FIX_ALL] = 2000000;
    layout = NULL;
    CHECK_INT(timeline_draw(trace, analysis, &options, path_in("ghost-bound.png"), &layout, &err), 0);
    CHECK(layout && find_text(layout, TIMELINE_TEXT_WAIT, "if fixed: up to -3.00 ms"));
    timeline_layout_free(layout);
    device.fix_together_ns[ANALYSIS_FIX_ALL] = 200000;
    layout = NULL;
    CHECK_INT(timeline_draw(trace, analysis, &options, path_in("ghost-small.png"), &layout, &err), 0);
    CHECK(layout && find_text(layout, TIMELINE_TEXT_WAIT, "if fixed: -3.00 ms"));
    analysis->devices = NULL;
    analysis->device_count = 0;
    timeline_layout_free(layout);
}

static void test_host_lanes(store *trace)
{
    struct timeline_options options;
    timeline_options_init(&options);
    options.show_host_calls = 1;
    options.show_nvtx = 1;
    struct timeline_layout *layout = NULL;
    error_info err = {{0}};
    const char *path = path_in("host.png");
    CHECK_INT(timeline_draw(trace, NULL, &options, path, &layout, &err), 0);
    if (!layout)
        return;
    struct fixture_png png;
    CHECK_INT(fixture_png_open(&png, path), 0);
    const struct timeline_lane_place *api = find_lane(layout, TIMELINE_LANE_HOST, 100, 0),
                                     *step = find_lane(layout, TIMELINE_LANE_NVTX, 100, 0),
                                     *forward = find_lane(layout, TIMELINE_LANE_NVTX, 100, 1);
    CHECK(api && step && forward);
    CHECK(api && step && api->box.y > find_lane(layout, TIMELINE_LANE_GPU, 16, 0)->box.y);
    CHECK_COLOUR(colour_at(&png, layout, api, 4050), palette_colour(PALETTE_HOST_API));
    CHECK_COLOUR(colour_at(&png, layout, api, 5300), PALETTE_LANE_BACKGROUND);
    CHECK_COLOUR(colour_at(&png, layout, step, 7000), palette_colour(PALETTE_NVTX));
    CHECK_COLOUR(colour_at(&png, layout, forward, 2000), palette_colour(PALETTE_NVTX));
    CHECK_COLOUR(colour_at(&png, layout, forward, 4300), PALETTE_LANE_BACKGROUND);
    CHECK(find_text(layout, TIMELINE_TEXT_INTERVAL, "ProfilerStep#1") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_TITLE, "run with the analyzer") != NULL);
    CHECK_INT(layout->wait_count, 0);
    check_no_label_overlaps(layout);
    fixture_png_close(&png);
    timeline_layout_free(layout);
}

/* A window of 2000-2100 us: ticks of 10 us, labelled "2.01 ms" ... from the trace's origin. */
static void test_window(store *trace)
{
    struct timeline_options options;
    timeline_options_init(&options);
    options.selection.window_start_ns = AT(2000);
    options.selection.window_end_ns = AT(2100);
    struct timeline_layout *layout = NULL;
    error_info err = {{0}};
    const char *path = path_in("window.png");
    CHECK_INT(timeline_draw(trace, NULL, &options, path, &layout, &err), 0);
    if (!layout)
        return;
    CHECK_INT(layout->tick_step_ns, 10000);
    CHECK(find_text(layout, TIMELINE_TEXT_AXIS, "2.05 ms") != NULL);
    /* The window starts on a tick: its label starts there, and the axis caption keeps its place. */
    const struct timeline_text *first = find_text(layout, TIMELINE_TEXT_AXIS, "2.00 ms");
    CHECK(first != NULL && fabs(first->box.x - timeline_layout_x(layout, AT(2000))) <= 1);
    CHECK(find_text(layout, TIMELINE_TEXT_AXIS, "time since first GPU activity") != NULL);
    struct fixture_png png;
    CHECK_INT(fixture_png_open(&png, path), 0);
    CHECK_COLOUR(colour_at(&png, layout, find_lane(layout, TIMELINE_LANE_GPU, 14, 0), 2050),
                 palette_colour(ANALYSIS_COMMUNICATION));
    CHECK(find_lane(layout, TIMELINE_LANE_GPU, 15, 0) == NULL); /* no copy in this window */
    fixture_png_close(&png);
    timeline_layout_free(layout);
}

static void test_vector_formats(store *trace, struct analysis_result *analysis)
{
    static const struct {
        const char *name, *magic;
    } formats[] = {{"timeline.svg", "<?xml"}, {"timeline.pdf", "%PDF-"}, {"TIMELINE.SVG", "<?xml"}};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        error_info err = {{0}};
        const char *path = path_in(formats[i].name);
        CHECK_INT(timeline_draw(trace, analysis, NULL, path, NULL, &err), 0);
        char head[8] = {0};
        FILE *file = fopen(path, "rb");
        CHECK(file != NULL);
        if (!file)
            continue;
        CHECK(fread(head, 1, 5, file) == 5);
        fclose(file);
        CHECK_STR(head, formats[i].magic);
    }
}

static void test_refusals(store *trace)
{
    struct timeline_options options;
    timeline_options_init(&options);
    error_info err = {{0}};
    CHECK_INT(timeline_draw(trace, NULL, &options, path_in("timeline.jpg"), NULL, &err), -1);
    CHECK_CONTAINS(err.message, "unknown picture format '.jpg'");
    CHECK_INT(timeline_draw(trace, NULL, &options, "/nonexistent-dir/timeline.png", NULL, &err), -1);
    CHECK_CONTAINS(err.message,
                   "cannot write '/nonexistent-dir/timeline.png': folder '/nonexistent-dir': No such file");
    options.selection.window_start_ns = AT(5000);
    options.selection.window_end_ns = AT(5000);
    CHECK_INT(timeline_draw(trace, NULL, &options, path_in("empty.png"), NULL, &err), -1);
    CHECK_CONTAINS(err.message, "the window 5.00 ms to 5.00 ms is empty");
    options.selection.window_start_ns = AT(20000);
    options.selection.window_end_ns = AT(30000);
    CHECK_INT(timeline_draw(trace, NULL, &options, path_in("outside.png"), NULL, &err), -1);
    CHECK_CONTAINS(err.message, "is outside the trace (GPU activity from 0 to 10.5 ms)");
    struct stat info;
    CHECK(stat(path_in("outside.png"), &info) != 0); /* nothing half-written is left behind */
    timeline_options_init(&options);
    options.selection.rank = 3;
    CHECK_INT(timeline_draw(trace, NULL, &options, path_in("rank.png"), NULL, &err), -1);
    CHECK_CONTAINS(err.message, "no GPU activity of rank 3");
}

int main(void)
{
    if (!mkdtemp(directory)) {
        perror("mkdtemp");
        return 1;
    }
    store *trace = fixture_scenario(path_in("scenario.db"));
    CHECK(trace != NULL);
    if (!trace)
        return check_finish();
    struct analysis_result *analysis = fixture_analysis();
    test_scenario(trace, analysis, 96, "scenario.png");
    test_scenario(trace, analysis, 192, "scenario-192dpi.png");
    test_ghost_end(trace, analysis);
    test_host_lanes(trace);
    test_window(trace);
    test_vector_formats(trace, analysis);
    test_refusals(trace);
    fixture_analysis_free(analysis);
    store_close(trace, NULL);
    if (!getenv("OVERLAPSCOPE_KEEP_PICTURES")) {
        char command[600];
        snprintf(command, sizeof command, "rm -rf '%s'", directory);
        if (system(command) != 0)
            fprintf(stderr, "could not remove %s\n", directory);
    } else {
        printf("pictures kept in %s\n", directory);
    }
    timeline_release_caches();
    return check_finish();
}
