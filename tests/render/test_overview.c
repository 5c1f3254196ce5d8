/* test_overview.c: the stored overview (render/overview.h) against the scan it replaces, on a
 * hand-built trace of two ranks: stream lanes with bursts of short kernels, long kernels that
 * get outlines, an NCCL kernel and a copy. Per lane and column the overview's coverage must be
 * within the documented bound of the scan's (2 / ratio + 1/255), exact where a lane is wholly
 * busy or idle; busy times and counts exact over the whole span; the same kept intervals; the
 * concurrency levels' shares within 0.01 of an exact sweep (the scan rounds averages below its
 * 1/16-pixel slots, so it is no reference there). Then: a picture too wide for it, a partial window, --rank,
 * a trace that grew since (stale), a small trace (none built) and a damaged overview. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canvas.h"
#include "check.h"
#include "overview.h"
#include "reader.h"
#include "trace_builder.h"

#define ORIGIN_NS 1700000000000000000LL
#define SPAN_NS 85000000 /* rank 1's copy ends at 5 + 80 ms */

/* Every GPU interval written, per process (1, 2), for the exact concurrency sweep. */
struct span {
    int64_t start_ns, end_ns;
};
static struct span written[2][16384];
static int written_count[2];

static void remember(int64_t process_id, int64_t start_ns, int64_t end_ns)
{
    int p = (int)process_id - 1;
    if (written_count[p] < 16384)
        written[p][written_count[p]++] = (struct span){ORIGIN_NS + start_ns, ORIGIN_NS + end_ns};
}

static int compare_events(const void *left, const void *right)
{
    const int64_t *a = left, *b = right; /* (time, +1 start / -1 end) pairs */
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : a[1] > b[1]);
}

/* Share of [from, to) with 0, 1, 2, 3+ of the process's intervals running (each stream is
 * serial here, so that is the number of streams busy): an exact sweep over their ends. */
static void exact_levels(int64_t process_id, int64_t from, int64_t to, double share[4])
{
    int p = (int)process_id - 1, count = written_count[p];
    int64_t(*events)[2] = malloc((size_t)count * 2 * sizeof *events);
    for (int i = 0; i < count; i++) {
        events[2 * i][0] = written[p][i].start_ns;
        events[2 * i][1] = 1;
        events[2 * i + 1][0] = written[p][i].end_ns;
        events[2 * i + 1][1] = -1;
    }
    qsort(events, (size_t)count * 2, sizeof *events, compare_events);
    double time_at[4] = {0};
    int64_t previous = from;
    int busy = 0;
    for (int i = 0; i <= 2 * count; i++) {
        int64_t t = i < 2 * count ? events[i][0] : to;
        t = t < from ? from : t > to ? to : t;
        time_at[busy > 3 ? 3 : busy] += (double)(t - previous);
        previous = t;
        if (i < 2 * count)
            busy += (int)events[i][1];
    }
    for (int level = 0; level < 4; level++)
        share[level] = time_at[level] / (double)(to - from);
    free(events);
}

static void add_kernel(struct builder *b, int64_t process_id, int64_t stream, int64_t start_ns,
                       int64_t end_ns, const char *name)
{
    builder_insert_kernel(
        b, builder_plain_kernel_row_ns(process_id, stream, ORIGIN_NS + start_ns, ORIGIN_NS + end_ns, name));
    remember(process_id, start_ns, end_ns);
}

static void add_process(struct builder *b, int64_t pid, int64_t rank)
{
    struct store_process process = builder_process_row(pid, rank);
    process.command_line = "test";
    builder_insert_process(b, process);
}

/* 100 ms per rank: stream 13 busy 0-20 ms in one kernel, then bursts of 1 us kernels every
 * 3 us from 30 to 60 ms; stream 14 an NCCL kernel 10-50 ms and 500 kernels of 7 us from 60 ms;
 * stream 15 one copy 70-80 ms; rank 1 a second process with the pattern shifted 5 ms. */
static void write_trace(const char *path)
{
    struct builder b;
    CHECK_INT(builder_create_path(&b, path), 0);
    add_process(&b, 100, 0);
    add_process(&b, 101, 1);
    for (int64_t process = 1; process <= 2; process++) {
        int64_t shift = (process - 1) * 5000000;
        add_kernel(&b, process, 13, shift, shift + 20000000, "_Z11long_kernelv");
        for (int64_t t = 30000000; t < 60000000; t += 3000)
            add_kernel(&b, process, 13, shift + t, shift + t + 1000, "_Z5burstv");
        add_kernel(&b, process, 14, shift + 10000000, shift + 50000000,
                   "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
        for (int64_t i = 0; i < 500; i++)
            add_kernel(&b, process, 14, shift + 60000000 + i * 20000, shift + 60007000 + i * 20000,
                       "_Z4stepv");
        builder_insert_memcpy(&b, builder_memcpy_row_ns(process, 15, ORIGIN_NS + shift + 70000000,
                                                        ORIGIN_NS + shift + 80000000, STORE_COPY_HTOD,
                                                        STORE_NULL, 1 << 20));
        remember(process, shift + 70000000, shift + 80000000);
    }
    CHECK_INT(builder_finish(&b), 0);
    error_info err;
    CHECK_INT(overview_build(b.trace, 0, 0, &err), 0);
    CHECK(store_close(b.trace, &err) == 0);
}

static struct canvas_lane *find_lane(const struct canvas *canvas, int64_t process_id, int64_t stream_id)
{
    for (size_t i = 0; i < canvas->lane_count; i++)
        if (canvas->lanes[i]->process_id == process_id && canvas->lanes[i]->stream_id == stream_id)
            return canvas->lanes[i];
    return NULL;
}

/* Reads [start, end) into two canvases of `columns`, by the scan and by the overview. */
static int read_both(store *trace, int64_t start_ns, int64_t end_ns, int columns, int64_t rank,
                     struct canvas **scanned, struct canvas **overview)
{
    error_info err;
    int64_t last_end = STORE_NULL, overview_end = STORE_NULL;
    struct reader_selection selection = {.rank = rank, .device_id = -1, .stream_id = -1};
    *scanned = canvas_new(start_ns, end_ns, columns, 3.0);
    *overview = canvas_new(start_ns, end_ns, columns, 3.0);
    CHECK_INT(reader_fill(*scanned, trace, &selection, &last_end, &err), 0);
    int filled = overview_fill(*overview, trace, rank, &overview_end, &err);
    if (filled == 1)
        CHECK_INT(overview_end, last_end);
    return filled;
}

/* Every lane of the scan has its overview twin, within the bound column by column. */
static void compare(const struct canvas *scanned, const struct canvas *overview, int whole)
{
    double ratio = OVERVIEW_COLUMNS *
                   ((double)(scanned->window_end_ns - scanned->window_start_ns) / (double)SPAN_NS) /
                   scanned->columns;
    double bound = 2.0 / ratio + 1.5 / 255;
    CHECK_INT(overview->lane_count, scanned->lane_count);
    for (size_t i = 0; i < scanned->lane_count; i++) {
        const struct canvas_lane *a = scanned->lanes[i];
        const struct canvas_lane *b = find_lane(overview, a->process_id, a->stream_id);
        CHECK(b != NULL);
        if (!b)
            continue;
        double worst = 0;
        int exact_mismatches = 0;
        for (int column = 0; column < scanned->columns; column++) {
            int kind_a = -1, kind_b = -1;
            double coverage_a = canvas_column_coverage(a, column, &kind_a);
            double coverage_b = canvas_column_coverage(b, column, &kind_b);
            if (fabs(coverage_a - coverage_b) > worst)
                worst = fabs(coverage_a - coverage_b);
            /* Wholly idle or wholly busy columns (away from edges) must agree exactly. */
            if ((coverage_a == 0 || coverage_a >= 0.999) && column > 0 && column + 1 < scanned->columns) {
                double left = canvas_column_coverage(a, column - 1, NULL),
                       right = canvas_column_coverage(a, column + 1, NULL);
                if (left == coverage_a && right == coverage_a && fabs(coverage_b - coverage_a) > 1.5 / 255)
                    exact_mismatches++;
            }
            if (coverage_a > 0.05 && kind_a != kind_b)
                exact_mismatches++;
        }
        if (worst > bound)
            fprintf(stderr, "lane %lld/%lld: coverage differs by %.4f (bound %.4f)\n",
                    (long long)a->process_id, (long long)a->stream_id, worst, bound);
        CHECK(worst <= bound);
        CHECK_INT(exact_mismatches, 0);
        CHECK_INT(b->kept_count, a->kept_count);
        for (size_t k = 0; k < a->kept_count && k < b->kept_count; k++) {
            CHECK_INT(b->kept[k].start_ns, a->kept[k].start_ns);
            CHECK_INT(b->kept[k].end_ns, a->kept[k].end_ns);
            CHECK_INT(b->kept[k].detail_b, a->kept[k].detail_b);
        }
        for (int k = 0; k < ANALYSIS_CATEGORY_COUNT; k++) {
            if (whole) {
                CHECK_INT(b->busy_ns[k], a->busy_ns[k]);
                CHECK_INT(b->intervals_by_kind[k], a->intervals_by_kind[k]);
            } else {
                CHECK_NEAR(b->busy_ns[k], a->busy_ns[k], 0.01 * a->busy_ns[k] + 2e5);
                CHECK((b->intervals_by_kind[k] > 0) == (a->intervals_by_kind[k] > 0));
            }
        }
    }
    /* Concurrency: the share of each level over the window, against an exact sweep. */
    CHECK_INT(overview->device_count, scanned->device_count);
    for (size_t d = 0; d < overview->device_count; d++) {
        double share[4] = {0}, exact[4];
        for (int column = 0; column < overview->columns; column++)
            for (int level = 0; level < 4; level++)
                share[level] += overview->devices[d]->level_fraction[column * 4 + level] / overview->columns;
        exact_levels(overview->devices[d]->process_id, overview->window_start_ns, overview->window_end_ns,
                     exact);
        for (int level = 0; level < 4; level++)
            CHECK_NEAR(share[level], exact[level], 0.01);
    }
}

/* What record, import and merge call: a trace of OVERVIEW_MIN_ROWS rows gets its overview; one
 * the reader refuses (a kernel ending in the year 2300) keeps its rows and gets a warning. */
static void test_build_or_warn(int damaged)
{
    char path[] = "/tmp/overlapscope-test-overview-warn-XXXXXX";
    int descriptor = mkstemp(path);
    CHECK(descriptor >= 0);
    close(descriptor);
    struct builder b;
    CHECK_INT(builder_create_path(&b, path), 0);
    store *trace = b.trace;
    error_info err;
    store_set_batch_rows(trace, 50000);
    for (int64_t i = 0; i < OVERVIEW_MIN_ROWS; i++) {
        add_kernel(&b, 1, 13 + i % 2, i * 1000, i * 1000 + 600, "_Z1kv");
        CHECK(store_maybe_commit(trace, &err) == 0);
    }
    if (damaged)
        add_kernel(&b, 1, 13, 2000, 5000000000000000000LL, "_Z6absurdv");
    CHECK_INT(builder_finish(&b), 0);
    CHECK_INT(overview_build_or_warn(trace, &err), 0);
    int64_t start = 0, end = 0;
    CHECK_INT(overview_span(trace, &start, &end, &err), damaged ? 0 : 1);
    sqlite3_stmt *query = NULL;
    CHECK(sqlite3_prepare_v2(store_db(trace),
                             "SELECT COUNT(*), MAX(message) FROM warnings WHERE code = 'overview-skipped'",
                             -1, &query, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(query) == SQLITE_ROW);
    CHECK_INT(sqlite3_column_int64(query, 0), damaged ? 1 : 0);
    if (damaged)
        CHECK(strstr((const char *)sqlite3_column_text(query, 1), "damaged") != NULL);
    sqlite3_finalize(query);
    CHECK_INT(sqlite3_exec(store_db(trace), "SELECT 1", NULL, NULL, NULL), SQLITE_OK);
    store_close(trace, NULL);
    unlink(path);
    written_count[0] = written_count[1] = 0;
}

int main(void)
{
    test_build_or_warn(0);
    test_build_or_warn(1);
    char path[] = "/tmp/overlapscope-test-overview-XXXXXX";
    int descriptor = mkstemp(path);
    CHECK(descriptor >= 0);
    close(descriptor);
    write_trace(path);
    error_info err;
    store *trace = store_open(path, 0, &err);
    CHECK(trace != NULL);
    int64_t span_start = 0, span_end = 0;
    CHECK_INT(overview_span(trace, &span_start, &span_end, &err), 1);
    CHECK_INT(span_start, ORIGIN_NS);
    CHECK_INT(span_end, ORIGIN_NS + SPAN_NS);

    /* The whole span at 1500 columns (about 22 overview columns each). */
    struct canvas *scanned = NULL, *overview = NULL;
    CHECK_INT(read_both(trace, span_start, span_end, 1500, -1, &scanned, &overview), 1);
    compare(scanned, overview, 1);
    canvas_free(scanned);
    canvas_free(overview);

    /* Too wide for it (fewer than 8 overview columns per column): not used, canvas untouched. */
    CHECK_INT(read_both(trace, span_start, span_end, OVERVIEW_COLUMNS / 4, -1, &scanned, &overview), 0);
    CHECK_INT(overview->lane_count, 0);
    canvas_free(scanned);
    canvas_free(overview);

    /* A window of the middle half, 800 columns (about 20 each). */
    CHECK_INT(read_both(trace, span_start + 25000000, span_start + 77500000, 800, -1, &scanned, &overview),
              1);
    compare(scanned, overview, 0);
    canvas_free(scanned);
    canvas_free(overview);

    /* --rank 1: the second process's lanes only. */
    CHECK_INT(read_both(trace, span_start, span_end, 1500, 1, &scanned, &overview), 1);
    CHECK_INT(overview->lane_count, 3);
    for (size_t i = 0; i < overview->lane_count; i++)
        CHECK_INT(overview->lanes[i]->process_id, 2);
    compare(scanned, overview, 1);
    canvas_free(scanned);
    canvas_free(overview);

    /* A damaged overview: a lane's cells cut short. */
    CHECK(sqlite3_exec(store_db(trace),
                       "SAVEPOINT damage; UPDATE render_overview SET cells = x'00' WHERE what = 2", NULL,
                       NULL, NULL) == SQLITE_OK);
    int64_t end = 0;
    overview = canvas_new(span_start, span_end, 1500, 3.0);
    CHECK_INT(overview_fill(overview, trace, -1, &end, &err), -1);
    CHECK(strstr(err.message, "damaged") != NULL);
    canvas_free(overview);
    CHECK(sqlite3_exec(store_db(trace), "ROLLBACK TO damage; RELEASE damage", NULL, NULL, NULL) == SQLITE_OK);

    /* The trace grew after the overview was built: stale, not used. */
    CHECK(store_begin(trace, &err) == 0);
    struct builder later = {.trace = trace}; /* rows added to the open trace */
    add_kernel(&later, 1, 16, 1000, 2000, "_Z4latev");
    CHECK_INT(later.status, 0);
    CHECK(store_commit(trace, &err) == 0);
    CHECK_INT(overview_span(trace, &span_start, &span_end, &err), 0);
    overview = canvas_new(ORIGIN_NS, ORIGIN_NS + SPAN_NS, 1500, 3.0);
    CHECK_INT(overview_fill(overview, trace, -1, &end, &err), 0);
    canvas_free(overview);

    /* Fewer rows than asked for: the overview is removed, none built. */
    CHECK_INT(overview_build(trace, 1000000, 0, &err), 0);
    CHECK_INT(overview_span(trace, &span_start, &span_end, &err), 0);
    store_close(trace, NULL);
    unlink(path);
    return check_finish();
}
