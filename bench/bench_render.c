/* bench_render.c: how long `render` takes for a trace of N GPU intervals (default 10 million)
 * against two baselines measured in the same run: Cairo encoding a PNG of the same picture
 * (the target: render <= 1.5 x PNG encoding) and a bare SQLite scan of the same rows
 * (the floor: no renderer that reads every row from the store can beat it).
 *
 *   bench_render [N] [WIDTH]
 *
 * Writes a trace of N kernels (2 devices x 4 streams, 0.2-1 us each, 1.2 us apart: all far
 * narrower than a pixel) to a temporary file, then prints:
 *   overview_build_s overview_build (render/overview.h): what finishing the trace adds, once
 *   render_s         timeline_draw to PNG, no analysis, no window given: end to end (the
 *                    trace's overview read and resampled, drawing, PNG file), best of 3, in a
 *                    child process whose peak memory is printed
 *   render_scan_s    the same with the overview removed: one scan of every GPU table
 *   picture_diff     how far the two pictures differ
 *   render_window_s  the same with the window given, as `overlapscope render` passes the
 *                    analyzer's window (no estimate needed)
 *   analyzer_s       analysis_run over the same trace: what `overlapscope render` also spends
 *                    for the waits and key figures, measured apart
 *   png_encode_s     cairo_surface_write_to_png of the rendered picture (read back), same size,
 *                    warm (best of 3 in this process); png_cold_s the same in fresh processes
 *   bare_scan_s      the reader's kernels query stepped alone, its columns read, nothing done
 *   aggregate_s      canvas_add of the same N intervals from memory (no SQLite)
 *   ratios           render / png_encode and render / bare_scan */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "canvas.h"
#include "overview.h"
#include "scene.h"
#include "timeline.h"
#include "trace_builder.h"

#define DEVICES 2
#define STREAMS 4

static double now_s(void)
{
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

/* Lane `lane`'s i-th kernel: xorshift durations so lanes do not line up. */
static void interval_of(long long i, int lane, int64_t *start_ns, int64_t *end_ns)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)lane * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    *start_ns = BASE_NS + i * 1200 + (int64_t)(x % 300);
    *end_ns = *start_ns + 200 + (int64_t)(x % 800);
}

static int write_trace(const char *path, long long count)
{
    struct builder b;
    if (builder_create_path(&b, path) != 0) {
        fprintf(stderr, "bench_render: %s\n", b.err.message);
        builder_close(&b);
        return -1;
    }
    store_set_batch_rows(b.trace, 200000);
    struct store_process process = builder_process_row(1, 0);
    process.command_line = "bench_render";
    builder_insert_process(&b, process);
    static const char *const names[3] = {
        "_Z13sgemm_256x128PKfS0_Pfi", "_Z11fill_kernelPfi",
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"};
    long long per_lane = count / (DEVICES * STREAMS);
    for (int device = 0; device < DEVICES && b.status == 0; device++) {
        for (long long i = 0; i < per_lane && b.status == 0; i++) {
            for (int stream = 0; stream < STREAMS && b.status == 0; stream++) {
                int64_t start_ns = 0, end_ns = 0;
                interval_of(i, device * STREAMS + stream, &start_ns, &end_ns);
                struct store_kernel kernel =
                    builder_plain_kernel_row_ns(1, 13 + stream, start_ns, end_ns, names[(i + stream) % 3]);
                kernel.device_id = device;
                builder_insert_kernel(&b, kernel);
                if (b.status == 0 && store_maybe_commit(b.trace, &b.err) != 0)
                    b.status = -1;
            }
        }
    }
    int status = builder_finish(&b);
    if (status != 0)
        fprintf(stderr, "bench_render: %s\n", b.err.message);
    builder_close(&b);
    return status;
}

/* Builds the trace's overview (min_rows 0), or removes it (min_rows INT64_MAX), as `record`,
 * `import` and `merge` do when they finish a trace. Returns the seconds, or -1. */
static double overview_seconds(const char *path, int64_t min_rows)
{
    error_info err;
    store *trace = store_open(path, 0, &err);
    double began = now_s();
    int status = trace ? overview_build(trace, min_rows, 0, &err) : -1;
    double seconds = now_s() - began;
    if (status != 0)
        fprintf(stderr, "bench_render: %s\n", err.message);
    if (trace && store_close(trace, status ? NULL : &err) != 0)
        status = -1;
    return status == 0 ? seconds : -1;
}

static long long overview_bytes(const char *path)
{
    error_info err;
    store *trace = store_open(path, 1, &err);
    sqlite3_stmt *query = NULL;
    long long bytes = -1;
    if (trace &&
        sqlite3_prepare_v2(store_db(trace),
                           "SELECT SUM(IFNULL(LENGTH(cells), 0) + IFNULL(LENGTH(kept), 0) + 64)"
                           " FROM render_overview",
                           -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        bytes = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    store_close(trace, NULL);
    return bytes;
}

/* How far two pictures of the same size differ: the share of pixels that differ at all and the
 * largest difference of one channel (0-255). Returns -1 when they cannot be compared. */
static int compare_pictures(const char *a_path, const char *b_path, double *differing_share,
                            double *visible_share, int *largest)
{
    cairo_surface_t *a = cairo_image_surface_create_from_png(a_path),
                    *b = cairo_image_surface_create_from_png(b_path);
    int status = -1;
    int width = cairo_image_surface_get_width(a), height = cairo_image_surface_get_height(a);
    if (cairo_surface_status(a) == CAIRO_STATUS_SUCCESS && cairo_surface_status(b) == CAIRO_STATUS_SUCCESS &&
        width == cairo_image_surface_get_width(b) && height == cairo_image_surface_get_height(b)) {
        long long differing = 0, visible = 0;
        *largest = 0;
        for (int y = 0; y < height; y++) {
            const uint32_t *row_a = (const uint32_t *)(cairo_image_surface_get_data(a) +
                                                       (size_t)y * (size_t)cairo_image_surface_get_stride(a));
            const uint32_t *row_b = (const uint32_t *)(cairo_image_surface_get_data(b) +
                                                       (size_t)y * (size_t)cairo_image_surface_get_stride(b));
            for (int x = 0; x < width; x++) {
                if ((row_a[x] & 0xFFFFFFu) == (row_b[x] & 0xFFFFFFu))
                    continue;
                differing++;
                int pixel_largest = 0;
                for (int shift = 0; shift < 24; shift += 8) {
                    int delta = abs((int)((row_a[x] >> shift) & 255) - (int)((row_b[x] >> shift) & 255));
                    if (delta > pixel_largest)
                        pixel_largest = delta;
                }
                visible += pixel_largest > 16;
                if (pixel_largest > *largest)
                    *largest = pixel_largest;
            }
        }
        *differing_share = (double)differing / ((double)width * height);
        *visible_share = (double)visible / ((double)width * height);
        status = 0;
    }
    cairo_surface_destroy(a);
    cairo_surface_destroy(b);
    return status;
}

/* The aggregation alone: the same intervals, from memory, in the order they were stored. */
static double aggregate_seconds(long long count, int columns)
{
    int64_t start, end, last;
    interval_of(count / (DEVICES * STREAMS), 0, &last, &end);
    struct canvas *canvas = canvas_new(BASE_NS, end + 1000, columns, 3.0);
    double began = now_s();
    long long per_lane = count / (DEVICES * STREAMS);
    for (int device = 0; device < DEVICES; device++) {
        for (long long i = 0; i < per_lane; i++) {
            for (int stream = 0; stream < STREAMS; stream++) {
                interval_of(i, device * STREAMS + stream, &start, &end);
                struct canvas_interval interval = {start, end, 0, 0, ANALYSIS_COMPUTE, CANVAS_DETAIL_KERNEL};
                canvas_add(canvas, canvas_gpu_lane(canvas, 1, device, 13 + stream), &interval);
            }
        }
    }
    canvas_finish(canvas);
    double seconds = now_s() - began;
    canvas_free(canvas);
    return seconds;
}

/* The floor: the statement the reader runs over kernels, each row's columns read, nothing else. */
static double bare_scan_seconds(const char *path)
{
    error_info err;
    store *trace = store_open(path, 1, &err);
    sqlite3_stmt *query = NULL;
    double began = now_s();
    int64_t sum = 0;
    sqlite3_prepare_v2(
        store_db(trace),
        "SELECT process_id, device_id, stream_id, start_ns, end_ns, name_id, rowid FROM kernels", -1, &query,
        NULL);
    while (sqlite3_step(query) == SQLITE_ROW)
        for (int column = 0; column < 7; column++)
            sum += sqlite3_column_int64(query, column);
    sqlite3_finalize(query);
    double seconds = now_s() - began;
    store_close(trace, NULL);
    return sum != 0 ? seconds : -1;
}

static double analyzer_seconds(const char *path, int64_t *window_start_ns, int64_t *window_end_ns)
{
    error_info err;
    store *trace = store_open(path, 1, &err);
    struct analysis_options options;
    analysis_options_init(&options);
    double began = now_s();
    struct analysis_result *result = analysis_run(trace, &options, &err);
    double seconds = now_s() - began;
    if (!result) {
        fprintf(stderr, "bench_render: analyzer: %s\n", err.message);
        seconds = -1;
    } else {
        *window_start_ns = result->selection.window_start_ns;
        *window_end_ns = result->selection.window_end_ns;
    }
    analysis_free(result);
    store_close(trace, NULL);
    return seconds;
}

/* Runs measure(arg) in a child process, so that it starts as cold as a command would and its
 * peak memory is its own (*max_rss_mb, when not NULL). Returns the seconds it reported, or -1. */
static double in_child(double (*measure)(const void *arg), const void *arg, double *max_rss_mb)
{
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0)
        return -1;
    pid_t child = fork();
    if (child == 0) {
        close(pipe_ends[0]);
        double seconds = measure(arg);
        ssize_t written = write(pipe_ends[1], &seconds, sizeof seconds);
        _exit(written == sizeof seconds ? 0 : 1);
    }
    close(pipe_ends[1]);
    double seconds = -1;
    if (child < 0 || read(pipe_ends[0], &seconds, sizeof seconds) != sizeof seconds)
        seconds = -1;
    close(pipe_ends[0]);
    struct rusage usage;
    int status = 0;
    if (child > 0 && wait4(child, &status, 0, &usage) == child && max_rss_mb)
        *max_rss_mb = usage.ru_maxrss / 1024.0;
    return seconds;
}

struct png_job {
    const char *picture, *copy;
};

/* Encoding the picture as the render's child does it: the first encoding in a fresh process
 * (forked before any PNG was written here), libpng and zlib cold. Decoding is not timed. */
static double encode_png(const void *arg)
{
    const struct png_job *job = arg;
    cairo_surface_t *surface = cairo_image_surface_create_from_png(job->picture);
    double began = now_s();
    cairo_status_t status = cairo_surface_write_to_png(surface, job->copy);
    double seconds = status == CAIRO_STATUS_SUCCESS ? now_s() - began : -1;
    cairo_surface_destroy(surface);
    return seconds;
}

struct render_job {
    const char *trace_path, *picture;
    int width;
    int64_t window_start_ns, window_end_ns;
};

static double render_picture(const void *arg)
{
    const struct render_job *job = arg;
    error_info err;
    store *trace = store_open(job->trace_path, 1, &err);
    struct timeline_options options;
    timeline_options_init(&options);
    options.width_px = job->width;
    options.force = 1; /* the same picture file, drawn again and again */
    options.selection.window_start_ns = job->window_start_ns;
    options.selection.window_end_ns = job->window_end_ns;
    double began = now_s();
    int status = trace ? timeline_draw(trace, NULL, &options, job->picture, NULL, &err) : -1;
    double seconds = status == 0 ? now_s() - began : -1;
    if (status != 0)
        fprintf(stderr, "bench_render: %s\n", err.message);
    store_close(trace, NULL);
    return seconds;
}

/* timeline_draw in a child process. Returns the seconds, or -1. */
static double render_seconds(const char *trace_path, const char *picture, int width, int64_t window_start_ns,
                             int64_t window_end_ns, double *max_rss_mb)
{
    struct render_job job = {trace_path, picture, width, window_start_ns, window_end_ns};
    return in_child(render_picture, &job, max_rss_mb);
}

int main(int argc, char **argv)
{
    long long count = argc > 1 ? atoll(argv[1]) : 10000000;
    int width = argc > 2 ? atoi(argv[2]) : 1600;
    char trace_path[] = "/tmp/overlapscope-bench-render-XXXXXX";
    int descriptor = mkstemp(trace_path);
    if (descriptor < 0)
        return 1;
    close(descriptor);
    char picture[sizeof trace_path + 8], copy[sizeof trace_path + 16];
    snprintf(picture, sizeof picture, "%s.png", trace_path);
    snprintf(copy, sizeof copy, "%s-copy.png", trace_path);
    printf("intervals      %lld (%d devices x %d streams)\n", count, DEVICES, STREAMS);
    double began = now_s();
    if (write_trace(trace_path, count) != 0)
        return 1;
    printf("trace_write_s  %.2f (not part of the measure)\n", now_s() - began);
    double overview_build_s = overview_seconds(trace_path, 0);
    if (overview_build_s < 0)
        return 1;

    /* The bare scan first: it also brings the file into the page cache, so every measure after
     * it reads from memory alike. */
    double bare_scan_s = bare_scan_seconds(trace_path);
    double rss_mb = 0, window_rss_mb = 0;
    /* Best of three for the short measures: a 30 ms figure moves with the machine's noise. */
    double render_s = -1;
    for (int run = 0; run < 3; run++) {
        double seconds = render_seconds(trace_path, picture, width, STORE_NULL, STORE_NULL, &rss_mb);
        if (seconds < 0)
            return 1;
        if (render_s < 0 || seconds < render_s)
            render_s = seconds;
        if (getenv("BENCH_RENDER_VERBOSE"))
            printf("render run %d   %.3f s\n", run + 1, seconds);
    }
    int64_t window_start_ns = STORE_NULL, window_end_ns = STORE_NULL;
    double analyzer_s = analyzer_seconds(trace_path, &window_start_ns, &window_end_ns);
    double render_window_s = -1;
    for (int run = 0; run < 3; run++) {
        double seconds =
            render_seconds(trace_path, picture, width, window_start_ns, window_end_ns, &window_rss_mb);
        if (seconds >= 0 && (render_window_s < 0 || seconds < render_window_s))
            render_window_s = seconds;
    }
    double png_cold_s = -1;
    for (int run = 0; run < 3; run++) {
        struct png_job job = {picture, copy};
        double seconds = in_child(encode_png, &job, NULL);
        if (seconds >= 0 && (png_cold_s < 0 || seconds < png_cold_s))
            png_cold_s = seconds;
    }
    cairo_surface_t *surface = cairo_image_surface_create_from_png(picture);
    double png_s = -1;
    for (int run = 0; run < 3; run++) {
        began = now_s();
        cairo_surface_write_to_png(surface, copy);
        double seconds = now_s() - began;
        if (png_s < 0 || seconds < png_s)
            png_s = seconds;
    }
    int picture_width = cairo_image_surface_get_width(surface),
        picture_height = cairo_image_surface_get_height(surface);
    cairo_surface_destroy(surface);
    /* The same picture without the overview: the scan of every row it replaces. */
    long long stored_bytes = overview_bytes(trace_path);
    char scanned[sizeof trace_path + 16];
    snprintf(scanned, sizeof scanned, "%s-scan.png", trace_path);
    double scan_rss_mb = 0, differing_share = -1, visible_share = -1;
    int largest_difference = -1;
    double render_scan_s =
        overview_seconds(trace_path, INT64_MAX) < 0
            ? -1
            : render_seconds(trace_path, scanned, width, STORE_NULL, STORE_NULL, &scan_rss_mb);
    if (render_scan_s < 0 ||
        compare_pictures(picture, scanned, &differing_share, &visible_share, &largest_difference) != 0)
        return 1;
    if (!getenv("BENCH_RENDER_KEEP"))
        unlink(scanned);
    double plot_left, plot_right;
    double aggregate_s = aggregate_seconds(count, scene_plot_columns(width, 1, &plot_left, &plot_right));
    printf("picture          %d x %d px\n", picture_width, picture_height);
    printf("overview_build_s %.3f (once, when record/import/merge finish the trace; %.1f MB stored)\n",
           overview_build_s, stored_bytes / 1048576.0);
    printf("render_s         %.3f (best of 3, no window given, from the overview; peak RSS %.1f MB)\n",
           render_s, rss_mb);
    printf("render_scan_s    %.3f (the same without an overview: every row scanned; peak RSS %.1f MB)\n",
           render_scan_s, scan_rss_mb);
    printf("picture_diff     %.4f of pixels differ (%.4f by more than 16 of 255), by at most %d in a channel"
           " (overview vs scan)\n",
           differing_share, visible_share, largest_difference);
    printf("render_window_s  %.3f (best of 3, window given, as after the analyzer; peak RSS %.1f MB)\n",
           render_window_s, window_rss_mb);
    printf(
        "analyzer_s       %.3f (analysis_run alone; `overlapscope render` = analyzer_s + render_window_s)\n",
        analyzer_s);
    printf("png_encode_s     %.3f (best of 3, warm: the third encoding in one process)\n", png_s);
    printf("png_cold_s       %.3f (best of 3, each the first encoding in a fresh process, as in a render)\n",
           png_cold_s);
    printf("bare_scan_s      %.3f (%.1f ns per row)\n", bare_scan_s, bare_scan_s * 1e9 / (double)count);
    printf("aggregate_s      %.3f (%.1f ns per interval, from memory)\n", aggregate_s,
           aggregate_s * 1e9 / (double)count);
    printf("ratio_png        %.2f (render_s / png_encode_s; target <= 1.5)\n", render_s / png_s);
    printf("ratio_png_cold   %.2f (render_s / png_cold_s: both in fresh processes)\n", render_s / png_cold_s);
    printf("ratio_bare_scan  %.2f (render_s / bare_scan_s; 1.0 is the floor for reading every row)\n",
           render_s / bare_scan_s);
    printf("ratio_window     %.2f / %.2f (render_window_s / png_encode_s, / bare_scan_s)\n",
           render_window_s / png_s, render_window_s / bare_scan_s);
    printf("ratio_scan       %.2f / %.2f (render_scan_s / png_encode_s, / bare_scan_s)\n",
           render_scan_s / png_s, render_scan_s / bare_scan_s);
    unlink(copy);
    if (getenv("BENCH_RENDER_KEEP")) {
        printf("kept           %s, its pictures %s (overview) and %s (scan)\n", trace_path, picture, scanned);
    } else {
        unlink(picture);
        unlink(trace_path);
    }
    return 0;
}
