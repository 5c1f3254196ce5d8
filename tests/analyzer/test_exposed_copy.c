/* test_exposed_copy.c: exposed copy time (docs/metrics.md, "Exposed copies") given copy by copy to
 * its cause, on a hand-built device whose answer is worked out next to the timeline. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analyze_builder.h"
#include "check.h"

static char directory[] = "/tmp/overlapscope-test-exposed-copy-XXXXXX";

/* Device 0 of one process, in microseconds (kernels on stream 1: [0,100] and [300,400]):
 *   stream 1: pageable HtoD [100,200] (32 MiB)      -> pageable: [100,200] = 100
 *   stream 2: pinned HtoD [150,250] (1 MiB), its call returns at once: [150,200] is the pageable
 *             copy's (it started first), [200,250] = 50 with no kernel queued -> nothing-beside
 *   stream 1: pinned HtoD [260,280] (1 MiB), async   -> same-stream (stream 1 runs the compute): 20
 *   stream 1: pinned DtoH [400,450] (1 MiB), its call [395,451] returns after it -> synchronous: 50
 *   stream 3: pinned HtoD [500,510] and [520,530], 4 KiB each -> small-copies: 20
 * Exposed copy 240 us, kernels busy 200 us. */
static void test_causes(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "copies.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    builder_insert_kernel(&b, builder_kernel_row(process, 1, 0, 100, 4, 128, "k1"));
    builder_insert_kernel(&b, builder_kernel_row(process, 1, 300, 400, 4, 128, "k2"));
    builder_insert_memcpy(
        &b, builder_memcpy_row(process, 1, 100, 200, STORE_COPY_HTOD, STORE_MEMORY_PAGEABLE, 32 << 20));
    struct store_memcpy early =
        builder_memcpy_row(process, 2, 150, 250, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 1 << 20);
    early.correlation_id = builder_api(&b, process, 7, "cudaMemcpyAsync", 140, 145, 0);
    builder_insert_memcpy(&b, early);
    builder_insert_memcpy(
        &b, builder_memcpy_row(process, 1, 260, 280, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 1 << 20));
    struct store_memcpy back =
        builder_memcpy_row(process, 1, 400, 450, STORE_COPY_DTOH, STORE_MEMORY_PINNED, 1 << 20);
    back.correlation_id = builder_api(&b, process, 7, "cudaMemcpy", 395, 451, 0);
    builder_insert_memcpy(&b, back);
    builder_insert_memcpy(
        &b, builder_memcpy_row(process, 3, 500, 510, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 4096));
    builder_insert_memcpy(
        &b, builder_memcpy_row(process, 3, 520, 530, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 4096));
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    CHECK(result != NULL);
    if (result) {
        const struct analysis_device *device = &result->devices[0];
        CHECK_INT(device->kernel_busy_ns, US(200));
        CHECK_INT(device->exposed_copy_ns, US(240));
        CHECK_INT(device->exposed_copy_direction_ns[ANALYSIS_COPY_DIRECTION_HTOD], US(190));
        CHECK_INT(device->exposed_copy_direction_ns[ANALYSIS_COPY_DIRECTION_DTOH], US(50));
        const struct analysis_accounting *whole = NULL;
        for (size_t i = 0; i < result->accounting_count; i++)
            if (result->accountings[i].step < 0 && result->accountings[i].device == 0)
                whole = &result->accountings[i];
        CHECK(whole != NULL);
        if (whole) {
            const struct accounting_breakdown *copies = &whole->exposed_copy;
            CHECK_INT(copies->ns, US(240));
            CHECK_INT(copies->entry_count, 5);
            static const struct {
                enum accounting_cause cause;
                const char *label;
                int64_t ns, count;
            } expected[] = {
                {ACCOUNTING_COPY_PAGEABLE, "HtoD", US(100), 1},
                {ACCOUNTING_COPY_SYNCHRONOUS, "DtoH", US(50), 1},
                {ACCOUNTING_COPY_NOTHING_BESIDE, "HtoD", US(50), 1},
                {ACCOUNTING_COPY_SAME_STREAM, "HtoD on stream 1", US(20), 1},
                {ACCOUNTING_COPY_SMALL, "HtoD", US(20), 2},
            };
            for (size_t i = 0; i < copies->entry_count && i < 5; i++) {
                CHECK_STR(accounting_cause_tag(copies->entries[i].cause),
                          accounting_cause_tag(expected[i].cause));
                CHECK_STR(copies->entries[i].label, expected[i].label);
                CHECK_INT(copies->entries[i].ns, expected[i].ns);
                CHECK_INT(copies->entries[i].count, expected[i].count);
            }
            /* No pinned HtoD copy rate was measured as pageable; the trace's own pinned HtoD copies
             * (1 MiB in 100 + 20 us, 4 KiB x 2 in 20 us) give the comparison. */
            CHECK(strstr(copies->entries[0].evidence, "from pageable memory at 336 GB/s") != NULL);
            CHECK(strstr(copies->entries[0].evidence,
                         "this device's pinned copies of that direction ran at") != NULL);
        }
        analysis_free(result);
    }
    builder_close(&b);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    test_causes();
    char command[256];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    if (system(command) != 0)
        return 1;
    return check_finish();
}
