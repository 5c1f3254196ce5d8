/* test_render_parts.c: the renderer's small algorithms, case by case: 1-2-5 tick steps and their
 * labels, the per-column aggregation of a canvas fed out of time order, and a window end estimated
 * short and read again. (Kernel names and categories: tests/common/test_kernel_name.c and
 * tests/analyzer/test_naming.c.) */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "axis.h"
#include "canvas.h"
#include "check.h"
#include "gpu_devices.h"
#include "labels.h"
#include "reader.h"
#include "timeline.h"
#include "trace_builder.h"

static void test_axis(void)
{
    CHECK_INT(axis_tick_step_ns(10500000, 16), 1000000);
    CHECK_INT(axis_tick_step_ns(10500000, 6), 2000000);
    CHECK_INT(axis_tick_step_ns(10500000, 4), 5000000);
    CHECK_INT(axis_tick_step_ns(100000, 16), 10000);
    CHECK_INT(axis_tick_step_ns(7, 16), 1);
    CHECK_INT(axis_tick_step_ns(3000000000LL, 10), 500000000);
    char text[32];
    CHECK_STR(axis_format_tick(text, sizeof text, 200000, 200000, 1200000), "0.2 ms");
    CHECK_STR(axis_format_tick(text, sizeof text, 1200000, 200000, 1200000), "1.2 ms");
    CHECK_STR(axis_format_tick(text, sizeof text, 300000, 100000, 900000), "300 us");
    CHECK_STR(axis_format_tick(text, sizeof text, 2050000, 10000, 2100000), "2.05 ms");
    CHECK_STR(axis_format_tick(text, sizeof text, 5000100000LL, 100000, 5000200000LL), "5.0001 s");
    CHECK_STR(axis_format_tick(text, sizeof text, 500, 100, 900), "500 ns");
    CHECK_STR(axis_format_tick(text, sizeof text, 0, 100, 900), "0");
}

/* 1000 ns over 10 columns (100 ns each). Intervals are added out of time order, as the
 * reader's storage-order scan delivers them. */
static void test_canvas(void)
{
    struct canvas *canvas = canvas_new(0, 1000, 10, 3.0);
    struct canvas_lane *a = canvas_gpu_lane(canvas, 1, 0, 13), *b = canvas_gpu_lane(canvas, 1, 0, 14);
    CHECK(canvas_gpu_lane(canvas, 1, 0, 13) == a);
    CHECK(canvas_gpu_lane(canvas, 1, 0, 14) == b);
    CHECK(a->device == b->device);
    CHECK(canvas_gpu_lane(canvas, 1, 1, 13) != a); /* same stream id on another device */
    /* Stream 14: 50 kernels of 1 ns from 500 (50 ns of column 5's 100), newest first, then a
     * copy 350-450; stream 13: one kernel 0-400, last. */
    for (int i = 49; i >= 0; i--) {
        struct canvas_interval tiny = {500 + i, 501 + i, 0, 0, ANALYSIS_COMMUNICATION, CANVAS_DETAIL_KERNEL};
        CHECK_INT(canvas_add(canvas, b, &tiny), 0);
    }
    struct canvas_interval overlap = {350, 450, 0, 0, ANALYSIS_COPY_HTOD, CANVAS_DETAIL_MEMCPY};
    CHECK_INT(canvas_add(canvas, b, &overlap), 0);
    struct canvas_interval wide = {0, 400, 0, 0, ANALYSIS_COMPUTE, CANVAS_DETAIL_KERNEL};
    CHECK_INT(canvas_add(canvas, a, &wide), 0);
    canvas_finish(canvas);
    int kind = -2;
    CHECK_NEAR(canvas_column_coverage(a, 2, &kind), 1.0, 1e-6);
    CHECK_INT(kind, ANALYSIS_COMPUTE);
    CHECK_NEAR(canvas_column_coverage(a, 4, &kind), 0.0, 1e-6);
    CHECK_INT(kind, -1);
    CHECK_NEAR(canvas_column_coverage(b, 5, &kind), 0.5, 1e-5);
    CHECK_INT(kind, ANALYSIS_COMMUNICATION);
    CHECK_INT(a->kept_count, 1); /* 4 columns wide: kept for its outline and label */
    CHECK_INT(b->kept_count, 0); /* 1 column at most: not */
    CHECK_INT(b->interval_count, 51);
    /* Concurrency: column 3 (300-400) has 50 ns of one stream, 50 of two; column 4 (400-500)
     * 50 ns of one, 50 of none; column 5 half one, half none. */
    const float *levels = canvas->devices[0]->level_fraction;
    CHECK_NEAR(levels[3 * 4 + 1], 0.5, 1e-5);
    CHECK_NEAR(levels[3 * 4 + 2], 0.5, 1e-5);
    CHECK_NEAR(levels[4 * 4 + 0], 0.5, 1e-5);
    CHECK_NEAR(levels[4 * 4 + 1], 0.5, 1e-5);
    CHECK_NEAR(levels[5 * 4 + 1], 0.5, 1e-5);
    CHECK_NEAR(levels[9 * 4 + 0], 1.0, 1e-5);
    canvas_free(canvas);
}

/* A long kernel on stream 13 (0-10 ms) outlasts the 100 short ones that start after it on
 * stream 14 (all over by 2.1 ms): the window's end, estimated from the last starts, is short,
 * and the picture must still end at 10 ms with the long kernel drawn to the right edge. */
static void test_window_end_outlasted(void)
{
    char path[] = "/tmp/overlapscope-test-render-end-XXXXXX", picture[sizeof path + 8];
    int descriptor = mkstemp(path);
    CHECK(descriptor >= 0);
    close(descriptor);
    snprintf(picture, sizeof picture, "%s.png", path);
    struct builder b;
    CHECK_INT(builder_create_path(&b, path), 0);
    const int64_t origin_ns = BASE_NS;
    builder_insert_kernel(&b,
                          builder_plain_kernel_row_ns(1, 13, origin_ns, origin_ns + 10000000, "_Z6kernelv"));
    for (int i = 0; i < 100; i++)
        builder_insert_kernel(&b, builder_plain_kernel_row_ns(1, 14, origin_ns + 100000 + i * 20000,
                                                              origin_ns + 110000 + i * 20000, "_Z6kernelv"));
    CHECK_INT(builder_finish(&b), 0);
    store *trace = b.trace;
    error_info err;
    int64_t estimate_ns = 0;
    CHECK_INT(store_gpu_devices_estimate_last_end(trace, &estimate_ns, &err), 0);
    CHECK(estimate_ns < origin_ns + 10000000); /* the case under test: the estimate is short */
    struct timeline_layout *layout = NULL;
    CHECK_INT(timeline_draw(trace, NULL, NULL, picture, &layout, &err), 0);
    if (layout) {
        CHECK_INT(layout->window_start_ns, origin_ns);
        CHECK_INT(layout->window_end_ns, origin_ns + 10000000);
    }
    timeline_layout_free(layout);
    store_close(trace, NULL);
    unlink(picture);
    unlink(path);
}

int main(void)
{
    test_axis();
    test_canvas();
    test_window_end_outlasted();
    timeline_release_caches();
    return check_finish();
}
