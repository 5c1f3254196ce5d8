/* test_analysis_progress.c: analysis_options.progress, the hook behind the CLI's progress line:
 * 0 first, then rising fractions while the operations are walked, 1 last (also when the analysis
 * fails); never called without a callback. 20,000 kernels on two streams of one H100. */
#include <stdlib.h>

#include "analysis.h"
#include "check.h"
#include "trace_builder.h"

static char directory[] = "/tmp/overlapscope-test-progress-XXXXXX";

struct calls {
    double fractions[64];
    size_t count, total; /* kept (the first 64), and all */
};

static void record_call(void *context, double fraction)
{
    struct calls *calls = context;
    if (calls->count < sizeof calls->fractions / sizeof calls->fractions[0])
        calls->fractions[calls->count++] = fraction;
    calls->total++;
}

static void check_calls(const struct calls *calls, size_t at_least)
{
    CHECK(calls->total >= at_least);
    CHECK(calls->count >= 2);
    if (calls->count < 2)
        return;
    CHECK(calls->fractions[0] == 0);
    CHECK(calls->fractions[calls->total - 1 < calls->count ? calls->total - 1 : calls->count - 1] == 1);
    for (size_t i = 1; i < calls->count; i++)
        CHECK(calls->fractions[i] >= calls->fractions[i - 1] && calls->fractions[i] <= 1);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "many.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    for (int i = 0; i < 20000; i++)
        builder_insert_kernel(&b,
                              builder_kernel_row(process, 1 + i % 2, i * 10.0, i * 10.0 + 6, 4, 128, "k"));
    CHECK_INT(builder_finish(&b), 0);

    struct analysis_options options;
    analysis_options_init(&options);
    CHECK(options.progress == NULL);
    struct calls calls = {{0}};
    options.progress = record_call;
    options.progress_context = &calls;
    error_info err = {{0}};
    struct analysis_result *result = analysis_run(b.trace, &options, &err);
    CHECK(result != NULL);
    /* 0, one call per 4,096 operations walked (4 of 20,000), 1 */
    check_calls(&calls, 6);
    if (calls.count >= 4)
        CHECK(calls.fractions[1] > 0 && calls.fractions[1] < 0.9);
    analysis_free(result);

    /* a failed analysis (a device that is not there) still ends with 1: the line is cleared */
    struct calls failed = {{0}};
    options.progress_context = &failed;
    options.device_id = 5;
    CHECK(analysis_run(b.trace, &options, &err) == NULL);
    check_calls(&failed, 2);
    builder_close(&b);

    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
