/* competing_profiler.c: the rules of competing_profiler.h. */
#include "competing_profiler.h"

#include <stdarg.h>
#include <stdio.h>

static int add_finding(struct competing_profiler_finding *findings, int count, int max, const char *code,
                       const char *format, ...) __attribute__((format(printf, 5, 6)));
static int add_finding(struct competing_profiler_finding *findings, int count, int max, const char *code,
                       const char *format, ...)
{
    if (count >= max)
        return count;
    findings[count].code = code;
    va_list args;
    va_start(args, format);
    vsnprintf(findings[count].message, sizeof findings[count].message, format, args);
    va_end(args);
    return count + 1;
}

/* Our records went elsewhere: the strongest sign first, one finding. */
static int judge_taken_records(const struct competing_profiler_evidence *e,
                               struct competing_profiler_finding *f, int count, int max)
{
    int64_t missing_buffers = e->buffers_requested - e->buffers_completed;
    if (e->kernels_enabled && e->watching_launches && e->launches > 0 && e->kernels == 0)
        return add_finding(
            f, count, max, COMPETING_PROFILER_CODE,
            "%lld kernel launches seen but no kernel record arrived: another CUPTI client"
            " (torch.profiler/Kineto, Nsight) took over CUPTI's activity records; import its own"
            " trace with 'overlapscope import'",
            (long long)e->launches);
    if (missing_buffers > 0)
        return add_finding(
            f, count, max, COMPETING_PROFILER_CODE,
            "%lld activity buffers never came back to overlapscope: another CUPTI client"
            " (torch.profiler/Kineto?) registered its own activity callbacks and the records in"
            " them are lost; import its own trace with 'overlapscope import'",
            (long long)missing_buffers);
    if (e->kernels_enabled && e->watching_launches && e->launches >= COMPETING_PROFILER_MIN_LAUNCHES &&
        (double)(e->kernels + e->dropped) < (double)e->launches * COMPETING_PROFILER_MISSING_FRACTION)
        return add_finding(f, count, max, COMPETING_PROFILER_CODE,
                           "only %lld kernel records for %lld kernel launches: another CUPTI client"
                           " (torch.profiler/Kineto, Nsight) took over CUPTI's activity records part of the"
                           " time; import its own trace with 'overlapscope import'",
                           (long long)e->kernels, (long long)e->launches);
    return count;
}

int competing_profiler_judge(const struct competing_profiler_evidence *evidence,
                             struct competing_profiler_finding *findings, int max)
{
    int count = 0;
    if (evidence->earlier_subscriber)
        count = add_finding(findings, count, max, COMPETING_PROFILER_CODE,
                            "another CUPTI client (%s) was already attached when the collector started; its"
                            " activity callbacks may take records away from overlapscope",
                            evidence->earlier_name && evidence->earlier_name[0] ? evidence->earlier_name
                                                                                : "unnamed");
    int before = count;
    count = judge_taken_records(evidence, findings, count, max);
    if (evidence->refused_subscribers > 0 && count == before)
        count =
            add_finding(findings, count, max, COMPETING_REFUSED_CODE,
                        "another CUPTI client (torch.profiler/Kineto, Nsight...) tried to attach %lld time(s)"
                        " while overlapscope was recording and CUPTI refused it"
                        " (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): this trace is complete, but"
                        " that profiler's own trace misses GPU activity",
                        (long long)evidence->refused_subscribers);
    else if (evidence->foreign_records > 0 && count == before)
        count =
            add_finding(findings, count, max, COMPETING_REFUSED_CODE,
                        "another CUPTI client (torch.profiler/Kineto?) turned on activity kinds overlapscope"
                        " does not use (%lld such records arrived): this trace is complete, but that"
                        " profiler's own trace is likely incomplete (CUPTI allows one subscriber, and"
                        " overlapscope holds it)",
                        (long long)evidence->foreign_records);
    return count;
}
