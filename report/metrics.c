/* metrics.c: the named trace-wide metrics of check and diff (docs/metrics.md, "Metric names"). */
#include <stdlib.h>
#include <string.h>

#include "accounting_report.h"
#include "report.h"

enum metric_kind {
    METRIC_COMM_OVERLAP,
    METRIC_EXPOSED_COMM,
    METRIC_COMM,
    METRIC_COPY_OVERLAP,
    METRIC_COPY_OVERLAP_OF_POSSIBLE,
    METRIC_COPY,
    METRIC_BUSY,
    METRIC_IDLE,
    METRIC_SPAN,
    METRIC_BUSY_RATIO,
    METRIC_MULTI_STREAM_RATIO,
    METRIC_STREAM_OVERLAP,
    METRIC_LOST,
    METRIC_HEADROOM,
    METRIC_HEADROOM_RATIO,
    METRIC_WAITS,
    METRIC_OVERLAP_COST,
    METRIC_OVERLAP_NET,
    METRIC_EXPOSED_COPY,
    METRIC_KERNEL_BUSY_RATIO,
    METRIC_CAUSE,
    METRIC_ACCOUNTING
};

struct metric_entry {
    struct report_metric public_part;
    enum metric_kind kind;
    enum analysis_cause cause;
    enum accounting_cause accounting_cause;
};

/* One metric per cause, named and ordered by the rows of causes.def. */
#define CAUSE_METRIC_TEXT "time lost to waits of this cause (see the cause list)"
#define IDLE_METRIC_TEXT "idle time of this cause, all devices (docs/metrics.md, Idle time)"
#define EXPOSED_COPY_METRIC_TEXT                                                                             \
    "exposed copy time of this cause, all devices (docs/metrics.md, Exposed copies)"
#define EXPOSED_METRIC_TEXT                                                                                  \
    "exposed communication of this cause, all ranks (docs/metrics.md, Exposed communication)"

static const struct metric_entry entries[] = {
    {{"comm_overlap", "ratio",
      "communication time overlapped by compute / communication time (HTA's definition)"},
     METRIC_COMM_OVERLAP,
     0},
    {{"exposed_comm_ms", "ms", "communication time with no compute kernel running"}, METRIC_EXPOSED_COMM, 0},
    {{"comm_ms", "ms", "communication time (union of NCCL kernels, per device, summed)"}, METRIC_COMM, 0},
    {{"copy_overlap", "ratio", "copy time overlapped by compute / copy time"}, METRIC_COPY_OVERLAP, 0},
    {{"copy_overlap_of_possible", "ratio",
      "copy time overlapped by compute / the most it could be (copies beside other streams' kernels)"},
     METRIC_COPY_OVERLAP_OF_POSSIBLE,
     0},
    {{"copy_ms", "ms", "copy time (union of all copies, per device, summed)"}, METRIC_COPY, 0},
    {{"busy_ms", "ms", "time with any GPU interval running, per device, summed"}, METRIC_BUSY, 0},
    {{"idle_ms", "ms", "span minus busy, per device, summed"}, METRIC_IDLE, 0},
    {{"span_ms", "ms", "the longest device span (first start to last end)"}, METRIC_SPAN, 0},
    {{"busy_ratio", "ratio", "busy / span, over all devices"}, METRIC_BUSY_RATIO, 0},
    {{"multi_stream_ratio", "ratio", "time with two or more streams busy / busy time"},
     METRIC_MULTI_STREAM_RATIO,
     0},
    {{"stream_overlap", "ratio", "achieved / possible overlap, summed over stream pairs"},
     METRIC_STREAM_OVERLAP,
     0},
    {{"lost_ms", "ms", "time lost to every missed overlap found"}, METRIC_LOST, 0},
    {{"headroom_ms", "ms", "how much shorter the spans could be, summed over devices"}, METRIC_HEADROOM, 0},
    {{"headroom_ratio", "ratio", "headroom / span, over all devices (the replayed span in a time selection)"},
     METRIC_HEADROOM_RATIO,
     0},
    {{"waits", "count", "missed overlaps found"}, METRIC_WAITS, 0},
    {{"overlap_cost_ms", "ms", "time overlapped kernels ran longer than alone (contention), summed"},
     METRIC_OVERLAP_COST,
     0},
    {{"overlap_net_ms", "ms", "time the overlap saved minus its contention cost, summed"},
     METRIC_OVERLAP_NET,
     0},
    {{"exposed_copy_ms", "ms",
      "copy time with no kernel running (the SMs waited for copies), per device, summed"},
     METRIC_EXPOSED_COPY,
     0},
    {{"kernel_busy_ratio", "ratio",
      "time with a kernel running / span, over all devices (busy without copy-only time)"},
     METRIC_KERNEL_BUSY_RATIO,
     0},
#define WAIT_CAUSE(NAME, tag, title, metric, fix, advice, reference)                                         \
    {{metric, "ms", CAUSE_METRIC_TEXT}, METRIC_CAUSE, ANALYSIS_CAUSE_##NAME, 0},
#define IDLE_CAUSE(NAME, tag, title, metric, fix, group, label_format, picture)                              \
    {{metric, "ms", IDLE_METRIC_TEXT}, METRIC_ACCOUNTING, 0, ACCOUNTING_##NAME},
#define COMM_CAUSE(NAME, tag, title, metric, fix, group, label_format, picture)                              \
    {{metric, "ms", EXPOSED_METRIC_TEXT}, METRIC_ACCOUNTING, 0, ACCOUNTING_##NAME},
#define COPY_CAUSE(NAME, tag, title, metric, fix, group, label_format, picture)                              \
    {{metric, "ms", EXPOSED_COPY_METRIC_TEXT}, METRIC_ACCOUNTING, 0, ACCOUNTING_##NAME},
#include "causes.def"
};
#define ENTRY_COUNT (sizeof entries / sizeof entries[0])

size_t report_metric_count(void)
{
    return ENTRY_COUNT;
}

const struct report_metric *report_metric_at(size_t index)
{
    return index < ENTRY_COUNT ? &entries[index].public_part : NULL;
}

void report_metric_names(char *buffer, size_t size)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (size_t i = 0; i < ENTRY_COUNT && used < size; i++) {
        int written =
            snprintf(buffer + used, size - used, "%s%s", i ? ", " : "", entries[i].public_part.name);
        if (written < 0)
            break;
        used += (size_t)written;
    }
}

static double ms(int64_t nanoseconds)
{
    return (double)nanoseconds / 1e6;
}

static double ratio(double part, double whole)
{
    return whole > 0 ? part / whole : 0;
}

struct sums {
    int64_t busy, idle, span, span_max, multi, copy, copy_compute, copy_possible, pair_overlap, pair_possible;
    int64_t kernel_busy;
};

static struct sums sum_devices(const struct analysis_result *result)
{
    struct sums sums = {0};
    for (size_t i = 0; i < result->device_count; i++) {
        const struct analysis_device *device = &result->devices[i];
        int64_t span = device->busy_ns + device->idle_ns;
        sums.busy += device->busy_ns;
        sums.idle += device->idle_ns;
        sums.span += span;
        sums.span_max = span > sums.span_max ? span : sums.span_max;
        sums.multi += device->concurrency_ns[2] + device->concurrency_ns[3];
        sums.copy += device->copy_ns;
        sums.copy_compute += device->copy_compute_overlap_ns;
        sums.kernel_busy += device->kernel_busy_ns;
        sums.copy_possible += device->copy_compute_possible_ns;
        sums.pair_overlap += device->stream_pair_overlap_ns;
        sums.pair_possible += device->stream_pair_possible_ns;
    }
    return sums;
}

static int64_t cause_lost(const struct analysis_result *result, enum analysis_cause cause)
{
    for (int i = 0; i < ANALYSIS_CAUSE_COUNT; i++)
        if (result->causes[i].cause == cause)
            return result->causes[i].lost_ns;
    return 0;
}

static double entry_value(const struct analysis_result *result, const struct metric_entry *entry)
{
    struct sums sums = sum_devices(result);
    switch (entry->kind) {
    case METRIC_COMM_OVERLAP:
        return result->communication_overlap_ratio;
    case METRIC_EXPOSED_COMM:
        return ms(result->total_exposed_communication_ns);
    case METRIC_COMM:
        return ms(result->total_communication_ns);
    case METRIC_COPY_OVERLAP:
        return result->copy_overlap_ratio;
    case METRIC_COPY_OVERLAP_OF_POSSIBLE:
        return ratio((double)sums.copy_compute, (double)sums.copy_possible);
    case METRIC_COPY:
        return ms(sums.copy);
    case METRIC_BUSY:
        return ms(sums.busy);
    case METRIC_IDLE:
        return ms(sums.idle);
    case METRIC_SPAN:
        return ms(sums.span_max);
    case METRIC_BUSY_RATIO:
        return ratio((double)sums.busy, (double)sums.span);
    case METRIC_MULTI_STREAM_RATIO:
        return ratio((double)sums.multi, (double)sums.busy);
    case METRIC_STREAM_OVERLAP:
        return ratio((double)sums.pair_overlap, (double)sums.pair_possible);
    case METRIC_LOST:
        return ms(result->total_lost_ns);
    case METRIC_HEADROOM:
        return ms(result->total_headroom_ns);
    case METRIC_HEADROOM_RATIO:
        return ratio((double)result->total_headroom_ns, (double)analysis_what_if_base_ns(result));
    case METRIC_WAITS:
        return (double)result->wait_total_count;
    case METRIC_OVERLAP_COST:
        return ms(result->total_overlap_cost_ns);
    case METRIC_OVERLAP_NET:
        return ms(result->total_overlap_net_ns);
    case METRIC_EXPOSED_COPY:
        return ms(result->total_exposed_copy_ns);
    case METRIC_KERNEL_BUSY_RATIO:
        return ratio((double)sums.kernel_busy, (double)sums.span);
    case METRIC_CAUSE:
        return ms(cause_lost(result, entry->cause));
    case METRIC_ACCOUNTING:
        return report_accounting_metric(result, entry->accounting_cause);
    }
    return 0;
}

/* Why the metric has no meaning on this trace, or NULL: a ratio whose whole is 0 (the text report
 * prints "-" for it). */
static const char *entry_unmeasured(const struct analysis_result *result, const struct metric_entry *entry)
{
    struct sums sums = sum_devices(result);
    switch (entry->kind) {
    case METRIC_COMM_OVERLAP:
        return result->total_communication_ns > 0 ? NULL : "no communication";
    case METRIC_COPY_OVERLAP:
        return sums.copy > 0 ? NULL : "no copies";
    case METRIC_COPY_OVERLAP_OF_POSSIBLE:
        return sums.copy_possible > 0 ? NULL
               : sums.copy > 0        ? "no compute kernel on a stream other than the copies'"
                                      : "no copies";
    case METRIC_STREAM_OVERLAP:
        return sums.pair_possible > 0 ? NULL : "no two streams could overlap";
    default:
        return NULL;
    }
}

const char *report_metric_unmeasured(const struct analysis_result *result, const char *name)
{
    for (size_t i = 0; i < ENTRY_COUNT; i++)
        if (strcmp(entries[i].public_part.name, name) == 0)
            return entry_unmeasured(result, &entries[i]);
    return NULL;
}

int report_metric_higher_is_better(const char *name)
{
    for (size_t i = 0; i < ENTRY_COUNT; i++)
        if (strcmp(entries[i].public_part.name, name) == 0)
            /* headroom_ratio is the share of the span that could be saved: less is better; the net
             * gain of overlap is time, but more of it is better */
            return (strcmp(entries[i].public_part.unit, "ratio") == 0 &&
                    strcmp(name, "headroom_ratio") != 0) ||
                   entries[i].kind == METRIC_OVERLAP_NET;
    return 0;
}

int report_metric_known(const char *name)
{
    for (size_t i = 0; i < ENTRY_COUNT; i++)
        if (strcmp(entries[i].public_part.name, name) == 0)
            return 1;
    return 0;
}

int report_metric_value(const struct analysis_result *result, const char *name, double *value)
{
    for (size_t i = 0; i < ENTRY_COUNT; i++) {
        if (strcmp(entries[i].public_part.name, name) == 0) {
            *value = entry_value(result, &entries[i]);
            return 0;
        }
    }
    return -1;
}
