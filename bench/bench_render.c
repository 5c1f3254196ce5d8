/* bench_render.c: how long `render` takes for a trace of N GPU intervals (default 10 million)
 * against the time Cairo needs to encode a PNG of the same picture, measured in the same run.
 *
 *   bench_render [N] [WIDTH]
 *
 * Writes a trace of N kernels (2 devices x 4 streams, back to back, 0.2-2 us each: most are
 * narrower than a pixel) to a temporary file, then prints:
 *   render_s       timeline_draw to PNG, end to end (SQLite reads, aggregation, drawing, PNG)
 *   png_encode_s   cairo_surface_write_to_png of that picture (read back), same size
 *   ratio          render_s / png_encode_s (target: <= 1.5)
 *   aggregate_s    the per-column aggregation alone, from memory (no SQLite), N intervals
 *   read_s         SQLite rows stepped, for comparison
 *   max_rss_mb     peak memory of the whole run */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "canvas.h"
#include "timeline.h"

#define DEVICES 2
#define STREAMS 4
#define ORIGIN_NS 1700000000000000000LL

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
    *start_ns = ORIGIN_NS + i * 1200 + (int64_t)(x % 300);
    *end_ns = *start_ns + 200 + (int64_t)(x % 800);
}

static int write_trace(const char *path, long long count)
{
    error_info err;
    store *trace = store_create(path, STORE_OVERWRITE | STORE_FAST_UNSAFE, &err);
    if (!trace || store_begin(trace, &err) != 0) {
        fprintf(stderr, "bench_render: %s\n", err.message);
        return -1;
    }
    store_set_batch_rows(trace, 200000);
    struct store_process process = {.pid = 1, .rank = 0, .parent_pid = STORE_NULL, .local_rank = STORE_NULL,
                                    .world_size = STORE_NULL, .start_ns = STORE_NULL, .end_ns = STORE_NULL,
                                    .exit_status = STORE_NULL, .term_signal = STORE_NULL, .dropped_records = 0,
                                    .command_line = "bench_render"};
    store_insert_process(trace, &process, &err);
    static const char *const names[3] = {"_Z13sgemm_256x128PKfS0_Pfi", "_Z11fill_kernelPfi",
                                         "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"};
    long long per_lane = count / (DEVICES * STREAMS);
    for (int device = 0; device < DEVICES; device++) {
        for (long long i = 0; i < per_lane; i++) {
            for (int stream = 0; stream < STREAMS; stream++) {
                struct store_kernel kernel = {.process_id = 1, .device_id = device, .context_id = 1,
                                              .stream_id = 13 + stream, .correlation_id = STORE_NULL,
                                              .queued_ns = STORE_NULL, .submitted_ns = STORE_NULL,
                                              .name = names[(i + stream) % 3]};
                int64_t *fields = &kernel.grid_x;
                for (int f = 0; f < 23; f++) /* grid_x .. priority: unknown */
                    fields[f] = STORE_NULL;
                interval_of(i, device * STREAMS + stream, &kernel.start_ns, &kernel.end_ns);
                if (store_insert_kernel(trace, &kernel, NULL, &err) != 0 || store_maybe_commit(trace, &err) != 0) {
                    fprintf(stderr, "bench_render: %s\n", err.message);
                    store_close(trace, NULL);
                    return -1;
                }
            }
        }
    }
    int status = store_commit(trace, &err) == 0 && store_finalize(trace, &err) == 0 ? 0 : -1;
    store_close(trace, NULL);
    return status;
}

/* The aggregation alone: the same intervals, from memory, through one device sweep per device. */
static double aggregate_seconds(long long count, int columns)
{
    int64_t start, end, last;
    interval_of(count / (DEVICES * STREAMS), 0, &last, &end);
    struct canvas *canvas = canvas_new(ORIGIN_NS, end + 1000, columns, 3.0);
    double began = now_s();
    long long per_lane = count / (DEVICES * STREAMS);
    for (int device = 0; device < DEVICES; device++) {
        canvas_device_begin(canvas, 1, device);
        for (long long i = 0; i < per_lane; i++) {
            for (int stream = 0; stream < STREAMS; stream++) {
                interval_of(i, device * STREAMS + stream, &start, &end);
                struct canvas_interval interval = {start, end, 0, 0, ANALYSIS_COMPUTE, CANVAS_DETAIL_KERNEL};
                canvas_add_gpu(canvas, canvas_gpu_lane(canvas, 1, device, 13 + stream), &interval);
            }
        }
        canvas_device_end(canvas);
    }
    double seconds = now_s() - began;
    canvas_free(canvas);
    return seconds;
}

static double read_seconds(const char *path)
{
    error_info err;
    store *trace = store_open(path, 1, &err);
    sqlite3_stmt *query = NULL;
    double began = now_s();
    int64_t sum = 0;
    for (int device = 0; device < DEVICES; device++) {
        sqlite3_prepare_v2(store_db(trace),
                           "SELECT stream_id, start_ns, end_ns, rowid, name_id FROM kernels WHERE process_id = 1"
                           " AND device_id = ?1 ORDER BY start_ns",
                           -1, &query, NULL);
        sqlite3_bind_int(query, 1, device);
        while (sqlite3_step(query) == SQLITE_ROW)
            sum += sqlite3_column_int64(query, 2) - sqlite3_column_int64(query, 1);
        sqlite3_finalize(query);
    }
    double seconds = now_s() - began;
    store_close(trace, NULL);
    return sum > 0 ? seconds : -1;
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

    error_info err;
    store *trace = store_open(trace_path, 1, &err);
    struct timeline_options options;
    timeline_options_init(&options);
    options.width_px = width;
    struct timeline_layout *layout = NULL;
    began = now_s();
    int status = timeline_draw(trace, NULL, &options, picture, &layout, &err);
    double render_s = now_s() - began;
    store_close(trace, NULL);
    if (status != 0) {
        fprintf(stderr, "bench_render: %s\n", err.message);
        return 1;
    }
    cairo_surface_t *surface = cairo_image_surface_create_from_png(picture);
    began = now_s();
    cairo_surface_write_to_png(surface, copy);
    double png_s = now_s() - began;
    cairo_surface_destroy(surface);
    int columns = (int)((layout->plot_right - layout->plot_left) * layout->scale);
    printf("picture        %d x %d px, %d columns per lane\n", layout->width_px, layout->height_px, columns);
    printf("render_s       %.3f\n", render_s);
    printf("png_encode_s   %.3f\n", png_s);
    printf("ratio          %.2f (render / PNG encoding of the same picture; target <= 1.5)\n", render_s / png_s);
    double aggregate_s = aggregate_seconds(count, columns), read_s = read_seconds(trace_path);
    printf("aggregate_s    %.3f (%.1f ns per interval, from memory)\n", aggregate_s, aggregate_s * 1e9 / (double)count);
    printf("read_s         %.3f (SQLite rows stepped alone, %.1f ns per row)\n", read_s, read_s * 1e9 / (double)count);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("max_rss_mb     %.1f\n", usage.ru_maxrss / 1024.0);
    timeline_layout_free(layout);
    unlink(picture);
    unlink(copy);
    unlink(trace_path);
    return 0;
}
