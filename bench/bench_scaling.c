/* bench_scaling.c: whether the analysis is linear in each of its counts (issue 32, item 6).
 *
 * Generates a synthetic training loop: R ranks, each running S steps (ProfilerStep#k host ranges),
 * each step launching G kernels on each of T streams in turn, an idle gap before each (the host
 * late), and C AllReduce collectives on an NCCL stream (a collectives row each). It times
 * analysis_run on a base trace, then on traces with one count multiplied by --factor (default 10)
 * at a time, and prints each time ratio. The analysis is linear when each ratio stays near the
 * factor: it fails (exit 1) when one exceeds --limit (default 12, 1.2x the factor). The export (the
 * analysis, then chrome_export_write of the trace to a file, as `overlapscope export --chrome`
 * does) is timed and bounded the same way: each ratio is printed for both. Times are CPU time,
 * fastest of --repeat runs (default 2), so a shared machine's load moves them less.
 *
 * --steps N times one analysis of a trace of N steps (the base's other counts) and prints it,
 * failing when it exceeds --seconds (default: no bound): "100,000 steps analysed in under 5 s";
 * --keep PATH writes that trace to PATH and keeps it (to time the CLI's commands on it).
 * --base-steps N sets the base trace's steps (default 1000; CI's smoke run uses a smaller one),
 * --ranks N its ranks (default 2). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "bench_rows.h"
#include "chrome_export.h"
#include "store.h"

struct shape {
    int64_t ranks, steps, gaps, collectives, streams;
};

struct generator {
    struct builder builder;
    int64_t correlation, clock;
};

static double cpu_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* One kernel and its launch call, the call 5 us before the kernel starts. Returns the kernel's
 * rowid. */
static int64_t add_kernel(struct generator *g, int64_t process, int64_t stream, int64_t start, int64_t end,
                          const char *name)
{
    int64_t correlation = ++g->correlation;
    builder_insert_api(&g->builder, bench_launch_row(process, start - 5000, start - 2000, correlation));
    return builder_insert_kernel(&g->builder,
                                 bench_kernel_row(process, stream, start, end, 1024, 256, correlation, name));
}

/* One step of one rank from g->clock: G kernels a stream, each after a 20 us gap, round-robin over
 * the streams, then C collectives on the NCCL stream (one past the compute streams), back to back. */
static void add_step(struct generator *g, const struct shape *shape, int64_t process, int64_t rank,
                     int64_t step)
{
    int64_t step_start = g->clock;
    for (int64_t k = 0; k < shape->gaps * shape->streams; k++) {
        int64_t start = g->clock + 20000, end = start + 30000;
        add_kernel(g, process, 1 + k % shape->streams, start, end, "sgemm_256x128");
        g->clock = end;
    }
    for (int64_t c = 0; c < shape->collectives; c++) {
        int64_t start = g->clock + 1000, end = start + 10000;
        int64_t rowid =
            add_kernel(g, process, 1 + shape->streams, start, end, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        struct store_collective collective =
            builder_collective_row_ns(process, 1 + shape->streams, "AllReduce", 1 << 20, "0xc0mm", rank,
                                      shape->ranks, rowid, start, end);
        collective.element_count = 1 << 18;
        collective.dtype = "f32";
        collective.sequence_number = step * shape->collectives + c;
        builder_insert_collective(&g->builder, collective);
        g->clock = end;
    }
    char message[64];
    snprintf(message, sizeof message, "ProfilerStep#%" PRId64, step);
    builder_insert_nvtx(
        &g->builder, builder_nvtx_row_ns(process, 100 + process, STORE_NULL, message, step_start, g->clock));
}

static int generate(const char *path, const struct shape *shape)
{
    struct generator g = {0};
    struct builder *b = &g.builder;
    if (builder_create_path(b, path) != 0) {
        fprintf(stderr, "bench_scaling: %s\n", b->err.message);
        builder_close(b);
        return -1;
    }
    store_set_batch_rows(b->trace, 100000);
    for (int64_t rank = 0; rank < shape->ranks && b->status == 0; rank++) {
        int64_t process = bench_process(b, rank, shape->ranks);
        builder_h100(b, process, 0);
        g.clock = BASE_NS + rank * 3000;
        for (int64_t s = 0; s < shape->steps && b->status == 0; s++) {
            add_step(&g, shape, process, rank, s);
            if (b->status == 0 && store_maybe_commit(b->trace, &b->err) != 0)
                b->status = -1;
        }
    }
    int status = builder_finish(b);
    if (status != 0)
        fprintf(stderr, "bench_scaling: %s\n", b->err.message);
    builder_close(b);
    return status;
}

/* The CPU seconds of one analysis of trace, then (json not NULL) of its export to json; < 0 on
 * failure. */
static double time_once(store *trace, const char *json)
{
    error_info err;
    double started = cpu_seconds();
    struct analysis_result *result = analysis_run(trace, NULL, &err);
    int status = result ? 0 : -1;
    if (result && json)
        status = chrome_export_write(trace, result, NULL, json, 1, NULL, &err);
    double spent = cpu_seconds() - started;
    if (status != 0)
        fprintf(stderr, "bench_scaling: %s\n", err.message);
    analysis_free(result);
    if (json)
        unlink(json);
    return status ? -1 : spent;
}

/* The fastest of repeat analyses of a trace of this shape, in CPU seconds, and (*exported not
 * NULL) the fastest of repeat analyses and exports; < 0 on failure. The trace is removed unless
 * kept. */
static double time_shape(const struct shape *shape, int64_t repeat, const char *path, int kept,
                         double *exported)
{
    if (generate(path, shape) != 0)
        return -1;
    error_info err;
    store *trace = store_open(path, 1, &err);
    if (!trace) {
        fprintf(stderr, "bench_scaling: %s\n", err.message);
        return -1;
    }
    char json[600];
    snprintf(json, sizeof json, "%s.json", path);
    double best = -1, best_export = -1;
    for (int64_t run = 0; run < repeat; run++) {
        double spent = time_once(trace, NULL), spent_export = exported ? time_once(trace, json) : 0;
        if (spent < 0 || spent_export < 0) {
            best = -1;
            break;
        }
        if (best < 0 || spent < best)
            best = spent;
        if (best_export < 0 || spent_export < best_export)
            best_export = spent_export;
    }
    if (exported)
        *exported = best < 0 ? -1 : best_export;
    store_close(trace, NULL);
    if (!kept)
        unlink(path);
    return best;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {{"factor", required_argument, 0, 'f'},
                                            {"limit", required_argument, 0, 'l'},
                                            {"repeat", required_argument, 0, 'r'},
                                            {"base-steps", required_argument, 0, 'b'},
                                            {"steps", required_argument, 0, 's'},
                                            {"seconds", required_argument, 0, 'x'},
                                            {"ranks", required_argument, 0, 'k'},
                                            {"keep", required_argument, 0, 'p'},
                                            {0, 0, 0, 0}};
    int64_t factor = 10, repeat = 2, steps = 0;
    double limit = 12, seconds = 0;
    const char *keep = NULL;
    struct shape base = {.ranks = 2, .steps = 1000, .gaps = 2, .collectives = 1, .streams = 2};
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (option == 'f' && (factor = strtoll(optarg, NULL, 10)) > 1)
            continue;
        if (option == 'l' && (limit = strtod(optarg, NULL)) > 0)
            continue;
        if (option == 'r' && (repeat = strtoll(optarg, NULL, 10)) > 0)
            continue;
        if (option == 'b' && (base.steps = strtoll(optarg, NULL, 10)) > 0)
            continue;
        if (option == 's' && (steps = strtoll(optarg, NULL, 10)) > 0)
            continue;
        if (option == 'x' && (seconds = strtod(optarg, NULL)) > 0)
            continue;
        if (option == 'k' && (base.ranks = strtoll(optarg, NULL, 10)) > 0)
            continue;
        if (option == 'p') {
            keep = optarg;
            continue;
        }
        fprintf(stderr, "usage: bench_scaling [--factor N] [--limit RATIO] [--repeat N] [--base-steps N]"
                        " [--steps N [--seconds S] [--keep PATH]] [--ranks N]\n");
        return 2;
    }
    char directory[] = "/tmp/overlapscope-bench-scaling-XXXXXX", path[512];
    if (!mkdtemp(directory))
        return 2;
    snprintf(path, sizeof path, "%s/trace.db", directory);
    int status = 0;
    if (steps) {
        struct shape shape = base;
        shape.steps = steps;
        double spent = time_shape(&shape, 1, keep ? keep : path, keep != NULL, NULL);
        if (spent < 0)
            status = 2;
        else {
            printf("%" PRId64 " steps (%" PRId64 " ranks, %" PRId64 " kernels and %" PRId64
                   " collectives a step): %.2f s CPU%s\n",
                   steps, shape.ranks, shape.gaps, shape.collectives, spent,
                   seconds > 0 && spent > seconds ? " (over the bound)" : "");
            if (seconds > 0 && spent > seconds)
                status = 1;
        }
        rmdir(directory);
        return status;
    }
    double base_export = 0, base_time = time_shape(&base, repeat, path, 0, &base_export);
    if (base_time < 0) {
        rmdir(directory);
        return 2;
    }
    printf("base: %" PRId64 " ranks x %" PRId64 " steps, %" PRId64 " gaps and %" PRId64
           " collectives a step, %" PRId64 " streams: %.3f s CPU (with the export %.3f s)\n",
           base.ranks, base.steps, base.gaps, base.collectives, base.streams, base_time, base_export);
    static const char *const names[] = {"steps", "gaps", "collectives", "streams"};
    for (int which = 0; which < 4 && status != 2; which++) {
        struct shape shape = base;
        int64_t *count = which == 0   ? &shape.steps
                         : which == 1 ? &shape.gaps
                         : which == 2 ? &shape.collectives
                                      : &shape.streams;
        *count *= factor;
        double exported = 0, spent = time_shape(&shape, repeat, path, 0, &exported);
        if (spent < 0) {
            status = 2;
            break;
        }
        double ratio = spent / base_time, export_ratio = exported / base_export;
        printf("%-12s x%" PRId64
               ": %.3f s CPU, ratio %.2f; with the export %.3f s, ratio %.2f (limit %.1f)%s\n",
               names[which], factor, spent, ratio, exported, export_ratio, limit,
               ratio > limit || export_ratio > limit ? "  OVER" : "");
        if (ratio > limit || export_ratio > limit)
            status = 1;
    }
    rmdir(directory);
    return status;
}
