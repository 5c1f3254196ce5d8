/* competing_profiler.h: deciding, at the end of a recording, whether another CUPTI client
 * (torch.profiler/Kineto, Nsight, another injection) got in the way, and what to tell the user.
 *
 * CUPTI gives one process one callback subscriber and one pair of activity-buffer callbacks. Two
 * outcomes were seen on GPUs (docs/collector.md, /work/shared/gpu-notes.md):
 *   - the other client registers its activity callbacks after ours: CUPTI hands the buffers to it,
 *     and the collector receives few or no records (launches seen, kernels missing);
 *   - the other client is refused (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, because the
 *     collector holds the subscriber): our trace is complete, the program's own profile is not.
 * The collector gathers counters (collector.c, launch_watch.h) and this module, pure C with no
 * CUDA, turns them into warnings, so the rules are tested on any machine with synthetic counters
 * (tests/collector/test_competing_profiler.c). */
#ifndef OVERLAPSCOPE_COMPETING_PROFILER_H
#define OVERLAPSCOPE_COMPETING_PROFILER_H

#include <stdint.h>

struct competing_profiler_evidence {
    int kernels_enabled;         /* kernel records were asked for */
    int watching_launches;       /* our callback subscriber was in place (launch counts valid) */
    int64_t launches;            /* successful kernel launch API calls seen */
    int64_t kernels;             /* kernel records received */
    int64_t dropped;             /* records CUPTI reported dropped */
    int64_t buffers_requested;   /* activity buffers handed to CUPTI */
    int64_t buffers_completed;   /* activity buffers CUPTI gave back */
    int earlier_subscriber;      /* cuptiSubscribe told us another client was attached first */
    const char *earlier_name;    /* its name, "" or NULL when unknown */
    int64_t refused_subscribers; /* CUPTI notices of a later client refused as a second subscriber */
    int64_t foreign_records;     /* records of kinds the collector never enables (Kineto's
                                    EXTERNAL_CORRELATION, OVERHEAD): another client enabled them */
};

/* The two warning codes. COMPETING_PROFILER_CODE means our trace misses GPU activity (record
 * prints the import suggestion and stores meta competing_profiler=1); COMPETING_REFUSED_CODE means
 * our trace is complete and the program's own profiler's is not. */
#define COMPETING_PROFILER_CODE "competing-profiler"
#define COMPETING_REFUSED_CODE "profiler-refused"

/* A kernel count this far below the launches counts as "records taken" (CUDA graph capture
 * launches without running, which this margin tolerates). */
#define COMPETING_PROFILER_MISSING_FRACTION 0.5
#define COMPETING_PROFILER_MIN_LAUNCHES 100

struct competing_profiler_finding {
    const char *code; /* one of the codes above */
    char message[512];
};

/* Judges evidence; writes at most max findings into findings and returns how many (0: nothing
 * to report). */
int competing_profiler_judge(const struct competing_profiler_evidence *evidence,
                             struct competing_profiler_finding *findings, int max);

#endif
