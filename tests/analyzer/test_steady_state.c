/* test_steady_state.c: the window every command analyses by default (steady_state.h), on hand-built
 * runs whose set-up, warm-up, starved loop and tear-down are laid out in microseconds below, and
 * the report's analysis of that window (what-if and headroom never count the set-up). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "check.h"
#include "crew.h"
#include "steady_state.h"
#include "trace_builder.h"

static char directory[] = "/tmp/overlapscope-test-steady-state-XXXXXX";

/* A bucket of the span, the rule's resolution. */
static int near(int64_t got_ns, int64_t want_ns, int64_t span_ns)
{
    int64_t tolerance = span_ns / STEADY_STATE_BUCKETS + 1;
    return got_ns - want_ns <= tolerance && want_ns - got_ns <= tolerance;
}

static void choose(const char *name, struct builder *b, struct analysis_steady *out)
{
    CHECK_INT(builder_finish(b), 0);
    error_info err;
    CHECK_INT(steady_state_of_trace(b->trace, out, &err), 0);
    printf("%s: trimmed %d, %.3f ms to %.3f ms of %.3f ms\n", name, out->trimmed,
           (double)(out->start_ns - out->span_start_ns) / 1e6,
           (double)(out->end_ns - out->span_start_ns) / 1e6,
           (double)(out->span_end_ns - out->span_start_ns) / 1e6);
}

/* n iterations of kernel "step" (busy_us long) every period_us from start_us. */
static void loop(struct builder *b, int64_t process, double start_us, int n, double busy_us, double period_us)
{
    for (int i = 0; i < n; i++)
        builder_insert_kernel(b, builder_kernel_row(process, 1, start_us + i * period_us,
                                                    start_us + i * period_us + busy_us, 4, 128, "step"));
}

/* Set-up: one 10 us memset-like kernel at 0, then 100 ms of nothing (imports, NCCL). Then a loop
 * starved by its data: 1 ms of GPU work every 5 ms, 20 times (gaps of 4 ms, alike: they stay).
 * The steady state: from the loop's first kernel (100 ms) to the end (199 ms). */
static void test_setup_then_starved_loop(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "starved.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    builder_insert_kernel(&b, builder_kernel_row(process, 1, 0, 10, 1, 32, "init"));
    loop(&b, process, 100000, 20, 1000, 5000);
    struct analysis_steady s;
    choose("set-up then starved loop", &b, &s);
    int64_t span = s.span_end_ns - s.span_start_ns;
    CHECK_INT(s.trimmed, 1);
    CHECK_INT(s.by_steps, 0);
    CHECK(near(s.start_ns, AT(100000), span));
    CHECK_INT(s.end_ns, s.span_end_ns);

    /* The report's analysis of that window: the starved loop's idle is in it, the set-up is not. */
    struct analysis_options options;
    analysis_options_init(&options);
    options.steady_state = 1;
    error_info err;
    struct analysis_result *result = analysis_run(b.trace, &options, &err);
    CHECK(result != NULL);
    if (result) {
        CHECK_INT(result->steady.trimmed, 1);
        CHECK_INT(result->device_count, 1);
        CHECK_INT(result->interval_count, 20);
        /* 19 gaps of 4 ms: 76 ms of idle (the set-up's 100 ms left out) */
        CHECK(result->devices[0].idle_ns >= US(75900) && result->devices[0].idle_ns <= US(76100));
        /* The set-up's own analysis: its one kernel, no gap inside it (the 100 ms gap ends at the
         * window's first kernel: neither side's span holds it). */
        CHECK_INT(result->steady.setup_devices, 1);
        CHECK_INT(result->steady.setup_idle_ns, 0);
        analysis_free(result);
    }
    options.steady_state = 0; /* --all: the whole run */
    result = analysis_run(b.trace, &options, &err);
    CHECK(result != NULL);
    if (result) {
        CHECK_INT(result->steady.trimmed, 0);
        CHECK_INT(result->interval_count, 21);
        CHECK(result->devices[0].idle_ns >= US(175900));
        analysis_free(result);
    }
    builder_close(&b);
}

/* No set-up: the starved loop from the start, gaps alike: nothing left out. */
static void test_starved_loop_alone(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "alone.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    loop(&b, process, 0, 40, 1000, 5000);
    struct analysis_steady s;
    choose("starved loop alone", &b, &s);
    CHECK_INT(s.trimmed, 0);
    CHECK_INT(s.start_ns, s.span_start_ns);
    CHECK_INT(s.end_ns, s.span_end_ns);
    builder_close(&b);
}

/* Warm-up: the first iteration runs "a" after a 15 ms gap and "b" after another (modules loaded,
 * algorithms chosen), then 50 iterations of a and b 100 us apart. The steady state starts at b's
 * first run (30 ms); the loop after it is 50 x 200 us = 10 ms. */
static void test_warmup(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "warmup.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    builder_insert_kernel(&b, builder_kernel_row(process, 1, 0, 5, 1, 32, "init"));
    double t = 15000;
    for (int i = 0; i < 51; i++) {
        builder_insert_kernel(&b, builder_kernel_row(process, 1, t, t + 50, 4, 128, "a"));
        t += i == 0 ? 15000 : 100;
        builder_insert_kernel(&b, builder_kernel_row(process, 1, t, t + 50, 4, 128, "b"));
        t += 100;
    }
    struct analysis_steady s;
    choose("warm-up", &b, &s);
    int64_t span = s.span_end_ns - s.span_start_ns;
    CHECK_INT(s.trimmed, 1);
    CHECK(near(s.start_ns, AT(30000), span));
    CHECK_INT(s.end_ns, s.span_end_ns);
    builder_close(&b);
}

/* Tear-down: a dense loop (100 kernels of 100 us, 10 us apart), then 40 ms of nothing and a last
 * 20 us kernel (a checkpoint's copy back): the window ends with the loop (11 ms). */
static void test_teardown(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "teardown.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    loop(&b, process, 0, 100, 100, 110);
    builder_insert_kernel(&b, builder_kernel_row(process, 1, 51000, 51020, 1, 32, "save"));
    struct analysis_steady s;
    choose("tear-down", &b, &s);
    int64_t span = s.span_end_ns - s.span_start_ns;
    CHECK_INT(s.trimmed, 1);
    CHECK_INT(s.start_ns, s.span_start_ns);
    CHECK(near(s.end_ns, AT(10990), span));
    char text[200];
    steady_state_describe(&s, text, sizeof text);
    CHECK_CONTAINS(text, "tail 11.0 ms \xe2\x80\x93 51.0 ms");
    builder_close(&b);
}

/* The span read on workers (gpu_span with a crew: the GPU tables in chunks of rowids) is the one
 * scan's: 40,000 kernels of two processes (several chunks), the earliest start a memset's after
 * them, the latest end a long kernel's in the middle of the rowids, and a copy. */
static void test_span_on_workers(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "span_workers.db"), 0);
    int64_t processes[2] = {builder_process(&b, 0), builder_process(&b, 1)};
    for (int p = 0; p < 2; p++) {
        builder_h100(&b, processes[p], 0);
        for (int i = 0; i < 20000; i++) {
            double start = 1000 + i * 10.0, end = p == 1 && i == 5000 ? 900000 : start + 5;
            builder_insert_kernel(&b, builder_kernel_row(processes[p], 1, start, end, 4, 128, "k"));
        }
    }
    builder_insert_memcpy(
        &b, builder_memcpy_row(processes[0], 1, 5000, 5100, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 4096));
    builder_insert_memset(&b, builder_memset_row_ns(processes[1], 1, AT(10), AT(20), 64));
    CHECK_INT(builder_finish(&b), 0);
    error_info err;
    struct analysis_steady alone, shared;
    CHECK_INT(steady_state_choose(b.trace, NULL, NULL, 0, &alone, &err), 0);
    crew *team = crew_new(b.trace, 2);
    CHECK(team != NULL);
    CHECK_INT(steady_state_choose(b.trace, team, NULL, 0, &shared, &err), 0);
    crew_free(team, b.trace);
    CHECK_INT(alone.span_start_ns, AT(10));
    CHECK_INT(alone.span_end_ns, AT(900000));
    CHECK_INT(shared.span_start_ns, alone.span_start_ns);
    CHECK_INT(shared.span_end_ns, alone.span_end_ns);
    CHECK_INT(shared.start_ns, alone.start_ns);
    CHECK_INT(shared.end_ns, alone.end_ns);
    builder_close(&b);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    test_setup_then_starved_loop();
    test_starved_loop_alone();
    test_warmup();
    test_teardown();
    test_span_on_workers();
    char command[128];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    if (system(command) != 0)
        return 1;
    return check_finish();
}
