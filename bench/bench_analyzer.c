/* bench_analyzer.c: how fast the analyzer is against reading the same rows from SQLite.
 *
 * Generates a synthetic trace of N GPU intervals (default 1M; --intervals N) over 8 ranks x 16
 * streams into a temporary database, each rank's rows in start order: streams mostly back to back
 * (gaps of 1-5 us), now and then idle (50-500 us), stream 15 of each rank running NCCL kernels, a tenth of
 * the intervals copies and a twentieth memsets, every kernel with its cudaLaunchKernel record. Then it times
 * a bare scan of the interval rows (the same columns, table order) and analysis_run over the whole trace, and
 * prints both, their ratio (target <= 2) and the peak resident memory (ru_maxrss; target <= 2 GB at
 * 10M intervals). The trace is generated in a child process so the peak is the analysis's own.
 * The machine is shared: scan and analysis run --repeat times (default 3), interleaved, and each
 * figure is the fastest run's CPU time (CLOCK_PROCESS_CPUTIME_ID), which other processes' load
 * disturbs far less than wall time; the wall time of the fastest runs is printed beside it.
 * --trace PATH analyzes PATH when it exists (a real recording: a host-bound PyTorch job has an idle
 * gap between nearly every two kernels, a shape the synthetic trace lacks), else writes it there. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "bench_rows.h"

enum { RANKS = 8, STREAMS = 16, NCCL_STREAM = 15 };

static double seconds_of(clockid_t id)
{
    struct timespec clock;
    clock_gettime(id, &clock);
    return (double)clock.tv_sec + (double)clock.tv_nsec / 1e9;
}

static double now_seconds(void)
{
    return seconds_of(CLOCK_MONOTONIC);
}

/* The fastest of several runs: CPU and wall seconds. */
struct timing {
    double cpu, wall;
    int runs;
};

static void timing_start(double started[2])
{
    started[0] = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
    started[1] = now_seconds();
}

static void timing_stop(struct timing *timing, const double started[2])
{
    double cpu = seconds_of(CLOCK_PROCESS_CPUTIME_ID) - started[0], wall = now_seconds() - started[1];
    if (timing->runs++ == 0 || cpu < timing->cpu) {
        timing->cpu = cpu;
        timing->wall = wall;
    }
}

/* xorshift64: a reproducible trace without global state. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static int64_t between(uint64_t *state, int64_t low, int64_t high)
{
    return low + (int64_t)(next_random(state) % (uint64_t)(high - low + 1));
}

struct generator {
    struct builder builder;
    uint64_t random;
    int64_t stream_clock[STREAMS], next_start[STREAMS];
    int64_t correlation;
};

static void add_kernel(struct generator *g, int64_t process, int64_t stream, int64_t start, int64_t end)
{
    static const char *const names[] = {"sgemm_256x128", "elementwise_add", "layer_norm_fwd", "softmax_bwd",
                                        "ncclDevKernel_AllReduce_Sum_f32_RING_LL"};
    int nccl = stream == NCCL_STREAM;
    int64_t correlation = ++g->correlation;
    /* The random draws in the order of the rows' fields: the same trace for the same seed. */
    int64_t call_start = start - between(&g->random, 20000, 200000);
    int64_t grid = nccl ? 24 : between(&g->random, 1, 20000);
    const char *name = nccl ? names[4] : names[between(&g->random, 0, 3)];
    builder_insert_api(&g->builder, bench_launch_row(process, call_start, call_start + 3000, correlation));
    builder_insert_kernel(&g->builder, bench_kernel_row(process, stream, start, end, grid, nccl ? 544 : 256,
                                                        correlation, name));
}

/* The next interval of a stream starts after a gap: mostly 1-5 us, a tenth of the time idle for
 * 50-500 us. */
static void plan_next(struct generator *g, int stream)
{
    int64_t gap =
        between(&g->random, 0, 9) == 0 ? between(&g->random, 50000, 500000) : between(&g->random, 1000, 5000);
    g->next_start[stream] = g->stream_clock[stream] + gap;
}

/* The stream whose next interval starts first: rows are written in start order, as CUPTI delivers
 * them (roughly) and as imports sort them. */
static int earliest_stream(const struct generator *g)
{
    int best = 0;
    for (int s = 1; s < STREAMS; s++)
        if (g->next_start[s] < g->next_start[best])
            best = s;
    return best;
}

static void add_interval(struct generator *g, int64_t process, int64_t stream)
{
    int64_t start = g->next_start[stream], end = start + between(&g->random, 5000, 50000);
    g->stream_clock[stream] = end;
    plan_next(g, (int)stream);
    int64_t kind = stream == NCCL_STREAM ? 0 : between(&g->random, 0, 19);
    if (kind == 0 || kind > 2) {
        add_kernel(g, process, stream, start, end);
    } else if (kind == 1) {
        struct store_memcpy copy = builder_memcpy_row_ns(
            process, stream, start, end, between(&g->random, 1, 2), STORE_MEMORY_PINNED, 1 << 20);
        copy.src_kind =
            STORE_MEMORY_PINNED; /* whichever the direction: the trace the figures were measured on */
        copy.dst_kind = STORE_MEMORY_DEVICE;
        copy.channel_type = 2;
        builder_insert_memcpy(&g->builder, copy);
    } else {
        builder_insert_memset(&g->builder, builder_memset_row_ns(process, stream, start, end, 1 << 20));
    }
}

/* Writes the trace: rank after rank (as merge appends them), each rank's rows in start order. */
static int generate(const char *path, int64_t intervals)
{
    struct generator g = {.random = 0x9e3779b97f4a7c15ull};
    struct builder *b = &g.builder;
    if (builder_create_path(b, path) != 0) {
        fprintf(stderr, "bench_analyzer: %s\n", b->err.message);
        builder_close(b);
        return -1;
    }
    store_set_batch_rows(b->trace, 100000);
    for (int rank = 0; rank < RANKS && b->status == 0; rank++) {
        int64_t process = bench_process(b, rank, RANKS);
        builder_h100(b, process, 0);
        for (int s = 0; s < STREAMS; s++) {
            g.stream_clock[s] = BASE_NS + rank * INT64_C(1000); /* per-rank clock offset */
            plan_next(&g, s);
        }
        int64_t per_rank = intervals / RANKS + (rank < intervals % RANKS);
        for (int64_t i = 0; i < per_rank && b->status == 0; i++) {
            add_interval(&g, process, earliest_stream(&g));
            if (b->status == 0 && store_maybe_commit(b->trace, &b->err) != 0)
                b->status = -1;
        }
    }
    int status = builder_finish(b);
    if (status != 0)
        fprintf(stderr, "bench_analyzer: %s\n", b->err.message);
    builder_close(b);
    return status;
}

/* The baseline: every interval row, the columns the analyzer reads, in table order. */
static int64_t bare_scan(store *trace)
{
    static const char *const sql[] = {
        "SELECT rowid, stream_id, correlation_id, start_ns, end_ns, channel_id, graph_id, priority, name_id,"
        " grid_x * grid_y * grid_z, block_x * block_y * block_z, registers_per_thread, static_shared_bytes,"
        " dynamic_shared_bytes, shared_memory_executed_bytes, process_id, device_id FROM kernels",
        "SELECT rowid, stream_id, correlation_id, start_ns, end_ns, channel_id, graph_id, copy_kind,"
        " src_kind, dst_kind, bytes, src_device_id, dst_device_id, process_id, device_id FROM memcpys",
        "SELECT rowid, stream_id, correlation_id, start_ns, end_ns, channel_id, graph_id, bytes, process_id,"
        " device_id FROM memsets"};
    int64_t rows = 0, checksum = 0;
    for (size_t t = 0; t < 3; t++) {
        sqlite3_stmt *query = NULL;
        sqlite3_prepare_v2(store_db(trace), sql[t], -1, &query, NULL);
        while (query && sqlite3_step(query) == SQLITE_ROW) {
            int columns = sqlite3_column_count(query);
            for (int c = 0; c < columns; c++)
                checksum += sqlite3_column_int64(query, c);
            rows++;
        }
        sqlite3_finalize(query);
    }
    return checksum == 42 ? -rows : rows; /* keeps the reads from being optimized away */
}

int main(int argc, char **argv)
{
    static const struct option options[] = {{"intervals", required_argument, 0, 'n'},
                                            {"trace", required_argument, 0, 't'},
                                            {"repeat", required_argument, 0, 'r'},
                                            {0, 0, 0, 0}};
    int64_t intervals = 1000000, repeat = 3;
    const char *reuse = NULL;
    int option;
    while ((option = getopt_long(argc, argv, "n:t:r:", options, NULL)) != -1) {
        if (option == 't') {
            reuse = optarg;
        } else if (option == 'r' && (repeat = strtoll(optarg, NULL, 10)) > 0) {
            continue;
        } else if (option != 'n' || (intervals = strtoll(optarg, NULL, 10)) <= 0) {
            fprintf(stderr,
                    "usage: bench_analyzer [--intervals N] [--repeat N] [--trace PATH (written if missing,"
                    " then kept)]\n");
            return 2;
        }
    }
    char directory[] = "/tmp/overlapscope-bench-analyzer-XXXXXX", path[512];
    if (reuse)
        snprintf(path, sizeof path, "%s", reuse);
    else if (!mkdtemp(directory))
        return 2;
    else
        snprintf(path, sizeof path, "%s/trace.db", directory);
    double started = now_seconds();
    pid_t child = reuse && access(path, F_OK) == 0 ? 0 : -2;
    if (child == -2)
        child = fork();
    else
        child = -3; /* reusing: nothing to generate */
    if (child == 0)
        _exit(generate(path, intervals) == 0 ? 0 : 1);
    int child_status = 0;
    if (child != -3 && (child < 0 || waitpid(child, &child_status, 0) < 0 || !WIFEXITED(child_status) ||
                        WEXITSTATUS(child_status) != 0)) {
        fprintf(stderr, "bench_analyzer: generating the trace failed\n");
        return 2;
    }
    double generated = now_seconds() - started;
    error_info err;
    store *trace = store_open(path, 1, &err);
    if (!trace) {
        fprintf(stderr, "bench_analyzer: %s\n", err.message);
        return 2;
    }
    struct timing scan = {0}, analysis = {0};
    struct analysis_result *result = NULL;
    int64_t rows = 0;
    for (int64_t run = 0; run < repeat; run++) {
        double started[2];
        timing_start(started);
        rows = bare_scan(trace);
        timing_stop(&scan, started);
        analysis_free(result);
        timing_start(started);
        result = analysis_run(trace, NULL, &err);
        timing_stop(&analysis, started);
        if (!result) {
            fprintf(stderr, "bench_analyzer: %s\n", err.message);
            return 2;
        }
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    if (child == -3) /* a trace of the user's (a real recording): its own shape */
        printf("intervals:          %" PRId64 " (the trace %s)\n", rows, path);
    else
        printf("intervals:          %" PRId64 " (%d ranks x %d streams; trace written in %.1f s)\n", rows,
               RANKS, STREAMS, generated);
    printf("bare SQLite scan:   %.3f s CPU (%.3f s wall), fastest of %" PRId64 "\n", scan.cpu, scan.wall,
           repeat);
    printf("analysis:           %.3f s CPU (%.3f s wall) (%" PRId64 " intervals, %" PRId64
           " waits found, %zu devices)\n",
           analysis.cpu, analysis.wall, result->interval_count, result->wait_total_count,
           result->device_count);
    printf("ratio:              %.2f (target <= 2; wall %.2f)\n", analysis.cpu / scan.cpu,
           analysis.wall / scan.wall);
    printf("peak RSS:           %.1f MB (target <= 2048 MB at 10M intervals)\n",
           (double)usage.ru_maxrss / 1024.0);
    analysis_free(result);
    store_close(trace, NULL);
    if (!reuse) {
        unlink(path);
        rmdir(directory);
    }
    return 0;
}
