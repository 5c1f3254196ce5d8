/* test_capture_range.c: record --capture-range, --delay and --duration as the collector's state
 * machine sees them (collector/capture_range.h): each scenario a timeline of events in seconds and
 * the windows captured; and the parsing of the options, each bad value refused with its reason. */
#include <string.h>

#include "capture_range.h"
#include "check.h"

#define S(seconds) ((int64_t)((seconds)*1e9))

static struct capture_range_spec spec_of(const char *range, double delay, double duration)
{
    struct capture_range_spec spec = {0};
    error_info err = {{0}};
    if (range)
        CHECK_INT(capture_range_parse(range, &spec, &err), 0);
    spec.delay_ns = S(delay);
    spec.duration_ns = S(duration);
    return spec;
}

static void check_windows(const struct capture_state *state, const char *expected)
{
    char text[512];
    CHECK_STR(capture_state_windows_text(state, text, sizeof text), expected);
}

/* no option: on from the start, one window to the end */
static void test_everything(void)
{
    struct capture_range_spec spec = spec_of(NULL, 0, 0);
    CHECK_INT(capture_range_restricts(&spec), 0);
    struct capture_state state;
    CHECK_INT(capture_state_init(&state, &spec, S(1)), CAPTURE_START);
    CHECK_INT(capture_state_profiler_stop(&state, S(2)), CAPTURE_KEEP);
    capture_state_finish(&state, S(5));
    check_windows(&state, "1000000000:5000000000");
}

/* kernels before, inside and after cudaProfilerStart/Stop, twice; a Stop without a Start */
static void test_profiler_api(void)
{
    struct capture_range_spec spec = spec_of("cudaProfilerApi", 0, 0);
    struct capture_state state;
    CHECK_INT(capture_state_init(&state, &spec, 0), CAPTURE_KEEP);
    CHECK_INT(capture_state_profiler_stop(&state, S(0.5)), CAPTURE_KEEP);
    CHECK_INT(capture_state_next_tick_ns(&state, S(0.5)), -1); /* nothing to time */
    CHECK_INT(capture_state_profiler_start(&state, S(1)), CAPTURE_START);
    CHECK_INT(capture_state_profiler_start(&state, S(1.5)), CAPTURE_KEEP); /* already on */
    CHECK_INT(capture_state_nvtx_open(&state, "train", S(1.6)), CAPTURE_KEEP);
    CHECK_INT(capture_state_profiler_stop(&state, S(2)), CAPTURE_STOP);
    CHECK_INT(capture_state_profiler_start(&state, S(3)), CAPTURE_START);
    capture_state_finish(&state, S(4)); /* the process ended inside the second pair */
    check_windows(&state, "1000000000:2000000000,3000000000:4000000000");
}

/* nvtx:step@2: the first two "step" ranges, nested ones of the same name counted once, others
 * ignored */
static void test_nvtx_count(void)
{
    struct capture_range_spec spec = spec_of("nvtx:step@2", 0, 0);
    CHECK_STR(spec.nvtx_name, "step");
    CHECK_INT(spec.nvtx_count, 2);
    struct capture_state state;
    CHECK_INT(capture_state_init(&state, &spec, 0), CAPTURE_KEEP);
    CHECK_INT(capture_state_nvtx_open(&state, "warmup", S(0.5)), CAPTURE_KEEP);
    CHECK_INT(capture_state_nvtx_close(&state, "warmup", S(0.7)), CAPTURE_KEEP);
    CHECK_INT(capture_state_nvtx_open(&state, "step", S(1)), CAPTURE_START);
    CHECK_INT(capture_state_nvtx_open(&state, "step", S(1.2)), CAPTURE_KEEP);
    CHECK_INT(capture_state_nvtx_close(&state, "step", S(1.4)), CAPTURE_KEEP);
    CHECK_INT(capture_state_nvtx_close(&state, "step", S(1.5)), CAPTURE_STOP);
    CHECK_INT(capture_state_nvtx_open(&state, "step", S(2)), CAPTURE_START);
    CHECK_INT(capture_state_nvtx_close(&state, "step", S(2.5)), CAPTURE_STOP);
    CHECK_INT(capture_state_nvtx_open(&state, "step", S(3)), CAPTURE_KEEP); /* the third: not */
    CHECK_INT(capture_state_nvtx_close(&state, "step", S(3.5)), CAPTURE_KEEP);
    CHECK_INT(capture_state_nvtx_close(&state, "step", S(3.6)), CAPTURE_KEEP); /* unbalanced pop */
    capture_state_finish(&state, S(9));
    check_windows(&state, "1000000000:1500000000,2000000000:2500000000");
}

/* --delay 2 --duration 1.5: on at 2 s after the start, off 1.5 s later for good */
static void test_delay_duration(void)
{
    struct capture_range_spec spec = spec_of(NULL, 2, 1.5);
    CHECK_INT(capture_range_restricts(&spec), 1);
    struct capture_state state;
    CHECK_INT(capture_state_init(&state, &spec, S(10)), CAPTURE_KEEP);
    CHECK_INT(capture_state_next_tick_ns(&state, S(10.5)), S(1.5));
    CHECK_INT(capture_state_tick(&state, S(11)), CAPTURE_KEEP);
    CHECK_INT(capture_state_tick(&state, S(12.1)), CAPTURE_START); /* the window opens at 12 s */
    CHECK_INT(capture_state_next_tick_ns(&state, S(13)), S(0.5));
    CHECK_INT(capture_state_tick(&state, S(13.7)), CAPTURE_STOP); /* and closes at 13.5 s */
    CHECK_INT(capture_state_tick(&state, S(20)), CAPTURE_KEEP);
    CHECK_INT(capture_state_next_tick_ns(&state, S(20)), -1);
    capture_state_finish(&state, S(30));
    check_windows(&state, "12000000000:13500000000");
}

/* a delay with the profiler API: a Start before the delay's end counts from the delay's end */
static void test_delay_profiler_api(void)
{
    struct capture_range_spec spec = spec_of("cudaProfilerApi", 1, 0);
    struct capture_state state;
    capture_state_init(&state, &spec, 0);
    CHECK_INT(capture_state_profiler_start(&state, S(0.5)), CAPTURE_KEEP);
    CHECK_INT(capture_state_next_tick_ns(&state, S(0.6)), S(0.4));
    CHECK_INT(capture_state_tick(&state, S(1.2)), CAPTURE_START);
    CHECK_INT(capture_state_profiler_stop(&state, S(2)), CAPTURE_STOP);
    capture_state_finish(&state, S(3));
    check_windows(&state, "1000000000:2000000000");
}

/* cudaProfilerApi with --duration 0.5: the clock starts at the first Start; once it ran out, a
 * later pair captures nothing */
static void test_profiler_api_duration(void)
{
    struct capture_range_spec spec = spec_of("cudaProfilerApi", 0, 0.5);
    struct capture_state state;
    capture_state_init(&state, &spec, 0);
    CHECK_INT(capture_state_next_tick_ns(&state, S(0.2)), -1); /* nothing to time before a Start */
    CHECK_INT(capture_state_profiler_start(&state, S(1)), CAPTURE_START);
    CHECK_INT(capture_state_next_tick_ns(&state, S(1.1)), S(0.4));
    CHECK_INT(capture_state_tick(&state, S(1.6)), CAPTURE_STOP);
    CHECK_INT(capture_state_profiler_stop(&state, S(2)), CAPTURE_KEEP);
    CHECK_INT(capture_state_profiler_start(&state, S(3)), CAPTURE_KEEP);
    CHECK_INT(capture_state_next_tick_ns(&state, S(3)), -1);
    capture_state_finish(&state, S(4));
    check_windows(&state, "1000000000:1500000000");
}

static void test_describe(void)
{
    char text[128];
    struct capture_range_spec spec = spec_of("nvtx:train step@3", 2, 0.5);
    CHECK_STR(capture_range_describe(&spec, text, sizeof text),
              "nvtx:train step@3, delay 2 s, duration 0.5 s");
    spec = spec_of("cudaProfilerApi", 0, 0);
    CHECK_STR(capture_range_describe(&spec, text, sizeof text), "cudaProfilerApi");
}

static void check_refused(const char *range, const char *reason)
{
    struct capture_range_spec spec = {0};
    error_info err = {{0}};
    CHECK_INT(capture_range_parse(range, &spec, &err), -1);
    CHECK_CONTAINS(err.message, reason);
}

static void check_seconds_refused(const char *text, const char *reason)
{
    int64_t ns = 0;
    error_info err = {{0}};
    CHECK_INT(capture_range_parse_seconds(text, &ns, &err), -1);
    CHECK_CONTAINS(err.message, reason);
}

static void test_parse(void)
{
    check_refused("cudaprofilerapi", "neither cudaProfilerApi nor nvtx:NAME[@COUNT]");
    check_refused("nvtx:", "names no NVTX range");
    check_refused("nvtx:@2", "names no NVTX range");
    check_refused("nvtx:step@0", "at least 1, not '0'");
    check_refused("nvtx:step@x", "at least 1, not 'x'");
    check_refused("nvtx:step@-1", "at least 1");
    struct capture_range_spec spec = {0};
    error_info err = {{0}};
    CHECK_INT(capture_range_parse("nvtx:a@b@4", &spec, &err), 0); /* the last '@' counts */
    CHECK_STR(spec.nvtx_name, "a@b");
    CHECK_INT(spec.nvtx_count, 4);
    int64_t ns = 0;
    CHECK_INT(capture_range_parse_seconds("1.5s", &ns, &err), 0);
    CHECK_INT(ns, S(1.5));
    CHECK_INT(capture_range_parse_seconds("2", &ns, &err), 0);
    CHECK_INT(ns, S(2));
    check_seconds_refused("0", "out of range");
    check_seconds_refused("-1", "out of range");
    check_seconds_refused("1e9", "out of range");
    check_seconds_refused("nan", "not a number of seconds");
    check_seconds_refused("2ms", "not a number of seconds");
    check_seconds_refused("", "not a number of seconds");
}

int main(void)
{
    test_everything();
    test_profiler_api();
    test_nvtx_count();
    test_delay_duration();
    test_delay_profiler_api();
    test_profiler_api_duration();
    test_describe();
    test_parse();
    return check_finish();
}
