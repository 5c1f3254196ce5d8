/* Whether another CUPTI client got in the way, judged from the counters a recording ends with
 * (collector/competing_profiler.c). Each case is what was seen on a GPU, or the edge next to it,
 * and the verdict the user is told. */
#include <string.h>

#include "check.h"
#include "competing_profiler.h"

/* A clean recording: 1000 launches, 1000 kernel records, every buffer back. */
static struct competing_profiler_evidence clean(void)
{
    return (struct competing_profiler_evidence){.kernels_enabled = 1,
                                                .watching_launches = 1,
                                                .launches = 1000,
                                                .kernels = 1000,
                                                .dropped = 0,
                                                .buffers_requested = 3,
                                                .buffers_completed = 3,
                                                .earlier_subscriber = 0,
                                                .earlier_name = "",
                                                .refused_subscribers = 0};
}

static int judge(const struct competing_profiler_evidence *evidence,
                 struct competing_profiler_finding *findings)
{
    return competing_profiler_judge(evidence, findings, 3);
}

static void check_contains(const char *text, const char *fragment)
{
    CHECK(strstr(text, fragment) != NULL);
    if (!strstr(text, fragment))
        fprintf(stderr, "  '%s' lacks '%s'\n", text, fragment);
}

int main(void)
{
    struct competing_profiler_finding findings[3];

    /* Nothing happened: nothing to say. */
    struct competing_profiler_evidence e = clean();
    CHECK_INT(judge(&e, findings), 0);

    /* CUDA 12 with torch.profiler (gpu-notes.md): Kineto registered its activity callbacks after
     * ours; launches seen, no kernel record, our buffers went to Kineto. */
    e = clean();
    e.kernels = 0;
    e.buffers_completed = 0;
    CHECK_INT(judge(&e, findings), 1);
    CHECK_STR(findings[0].code, COMPETING_PROFILER_CODE);
    check_contains(findings[0].message, "1000 kernel launches seen but no kernel record arrived");
    check_contains(findings[0].message, "overlapscope import");

    /* Buffers handed out never came back, some kernels did arrive. */
    e = clean();
    e.buffers_requested = 5;
    e.buffers_completed = 3;
    CHECK_INT(judge(&e, findings), 1);
    CHECK_STR(findings[0].code, COMPETING_PROFILER_CODE);
    check_contains(findings[0].message, "2 activity buffers never came back");

    /* Taken part of the time: 300 records for 1000 launches (none dropped). */
    e = clean();
    e.kernels = 300;
    CHECK_INT(judge(&e, findings), 1);
    check_contains(findings[0].message, "only 300 kernel records for 1000 kernel launches");
    /* ... but 300 records and 250 counted drops is CUPTI's overflow, reported as drops elsewhere. */
    e.dropped = 250;
    CHECK_INT(judge(&e, findings), 0);
    /* ... and a few launches without records (a graph capture) are no verdict either. */
    e = clean();
    e.launches = 50;
    e.kernels = 10;
    CHECK_INT(judge(&e, findings), 0);
    /* Kernel records not asked for (--kinds memcpy): launches without kernels mean nothing. */
    e = clean();
    e.kernels_enabled = 0;
    e.kernels = 0;
    CHECK_INT(judge(&e, findings), 0);
    /* No subscriber of ours: no launch count to compare with. */
    e = clean();
    e.watching_launches = 0;
    e.launches = 0;
    e.kernels = 0;
    CHECK_INT(judge(&e, findings), 0);

    /* CUDA 13 with torch.profiler (the last GPU run): Kineto's cuptiSubscribe was refused because
     * we hold the subscriber; our trace is complete: the warning says so, and it is not the
     * "import instead" code. */
    e = clean();
    e.refused_subscribers = 1;
    CHECK_INT(judge(&e, findings), 1);
    CHECK_STR(findings[0].code, COMPETING_REFUSED_CODE);
    check_contains(findings[0].message, "this trace is complete");
    check_contains(findings[0].message, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
    /* The same, learnt another way: records of kinds only another client enables (Kineto's
     * EXTERNAL_CORRELATION) arrived in our buffers, and nothing of ours is missing. */
    e = clean();
    e.foreign_records = 40;
    CHECK_INT(judge(&e, findings), 1);
    CHECK_STR(findings[0].code, COMPETING_REFUSED_CODE);
    check_contains(findings[0].message, "40 such records arrived");
    check_contains(findings[0].message, "this trace is complete");
    /* A notice from CUPTI is the firmer evidence: one finding, the notice's. */
    e.refused_subscribers = 1;
    CHECK_INT(judge(&e, findings), 1);
    check_contains(findings[0].message, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
    e.refused_subscribers = 0;
    /* ... and when our records are missing too, that is what the user must hear. */
    e.kernels = 0;
    e.buffers_completed = 0;
    CHECK_INT(judge(&e, findings), 1);
    CHECK_STR(findings[0].code, COMPETING_PROFILER_CODE);

    e = clean();
    e.refused_subscribers = 1;
    /* Refused, and yet our records went missing: the missing records are what matters. */
    e.kernels = 0;
    CHECK_INT(judge(&e, findings), 1);
    CHECK_STR(findings[0].code, COMPETING_PROFILER_CODE);

    /* Another client attached before us (Nsight, another injection): named. */
    e = clean();
    e.earlier_subscriber = 1;
    e.earlier_name = "nsys";
    e.watching_launches = 0;
    CHECK_INT(judge(&e, findings), 1);
    CHECK_STR(findings[0].code, COMPETING_PROFILER_CODE);
    check_contains(findings[0].message, "another CUPTI client (nsys) was already attached");
    e.earlier_name = NULL;
    e.buffers_completed = 1;
    CHECK_INT(judge(&e, findings), 2);
    check_contains(findings[0].message, "(unnamed)");
    check_contains(findings[1].message, "2 activity buffers never came back");

    /* Room for one finding only: the first one wins, nothing is written past the array. */
    CHECK_INT(competing_profiler_judge(&e, findings, 1), 1);
    return check_finish();
}
