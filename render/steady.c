/* steady.c: see steady.h. */
#include "steady.h"

#include <stdint.h>
#include <stdlib.h>

/* Of the span, the least a choice must leave out to be worth saying so. */
#define MIN_LEFT_OUT 0.05
/* Rule 2: an operation this much of the span, alone at one end. */
#define DOMINANT_SHARE 0.5
/* Rule 3: a stretch at least this much of the span, busy at most IDLE_DENSITY_SHARE of the
 * window's average. */
#define IDLE_STRETCH_SHARE 0.2
#define IDLE_DENSITY_SHARE 0.25
/* Rule 1: a leading step longer than this many median steps is warm-up; told apart only among at
 * least this many steps. */
#define WARMUP_FACTOR 2
#define MIN_STEPS_FOR_WARMUP 3

static int64_t time_of_column(const struct canvas *canvas, int column)
{
    return canvas->window_start_ns + (int64_t)((double)column / canvas->columns_per_ns);
}

/* busy[c]: the streams' summed coverage of column c, at most 1. Coverage, not the concurrency
 * levels: those round a slot's sum, and thousands of kernels shorter than a slot round to 0. */
static void busy_columns(const struct canvas *canvas, double *busy)
{
    for (int c = 0; c < canvas->columns; c++) {
        double sum = 0;
        for (size_t i = 0; i < canvas->lane_count; i++)
            if (canvas->lanes[i]->kind == CANVAS_LANE_GPU)
                sum += canvas_column_coverage(canvas->lanes[i], c, NULL);
        busy[c] = sum < 1 ? sum : 1;
    }
}

/* Whether any GPU lane other than `except` has something in columns [from, to). */
static int others_busy(const struct canvas *canvas, const struct canvas_lane *except, int from, int to)
{
    for (size_t i = 0; i < canvas->lane_count; i++) {
        const struct canvas_lane *lane = canvas->lanes[i];
        if (lane == except || lane->kind != CANVAS_LANE_GPU)
            continue;
        for (int c = from < 0 ? 0 : from; c < to && c < canvas->columns; c++)
            if (canvas_column_coverage(lane, c, NULL) > 0)
                return 1;
    }
    return 0;
}

/* Whether the lane holds something in columns [from, to) besides `interval`. */
static int lane_busy_besides(const struct canvas *canvas, const struct canvas_lane *lane,
                             const struct canvas_interval *interval, int from, int to)
{
    int first = (int)canvas_column_of(canvas, interval->start_ns),
        last = (int)canvas_column_of(canvas, interval->end_ns);
    for (int c = from < 0 ? 0 : from; c < to && c < canvas->columns; c++)
        if ((c < first - 1 || c > last + 1) && canvas_column_coverage(lane, c, NULL) > 0)
            return 1;
    return 0;
}

/* Rule 2: narrows [*start, *end) (columns) past one dominant operation alone at an end. */
static void drop_dominant(const struct canvas *canvas, int *start, int *end)
{
    double least = DOMINANT_SHARE * (*end - *start);
    for (size_t i = 0; i < canvas->lane_count; i++) {
        const struct canvas_lane *lane = canvas->lanes[i];
        if (lane->kind != CANVAS_LANE_GPU)
            continue;
        for (size_t k = 0; k < lane->kept_count; k++) {
            const struct canvas_interval *op = &lane->kept[k];
            double x0 = canvas_column_of(canvas, op->start_ns), x1 = canvas_column_of(canvas, op->end_ns);
            if (x1 - x0 < least)
                continue;
            int first = (int)x0, last = (int)x1;
            /* One column of slack: neighbours may share the operation's first or last column. */
            if (x0 < *start - 1 || x1 > *end + 1)
                continue; /* not inside the window any more */
            if (!others_busy(canvas, lane, first + 1, *end) &&
                !lane_busy_besides(canvas, lane, op, first + 1, *end) && first > *start) {
                *end = first + 1; /* alone at the end: everything else ran before it */
                return;
            }
            if (!others_busy(canvas, lane, *start, last) &&
                !lane_busy_besides(canvas, lane, op, *start, last) && last < *end) {
                *start = last; /* alone at the start */
                return;
            }
        }
    }
}

/* Rule 3: narrows [*start, *end) (columns) past mostly idle stretches at either end. A leading
 * cut at L leaves out L columns holding B(L) of busy time where the window's average density D
 * would put L * D. Among the cuts sparse enough (B(L) <= D/4 * L), the one that leaves out most
 * busy deficit, L * D - B(L), ends where the density rises above average; it is taken when the
 * stretch is long enough. */
static void drop_idle_ends(const struct canvas *canvas, const double *busy, int *start, int *end)
{
    double total = 0;
    for (int c = *start; c < *end; c++)
        total += busy[c];
    int width = *end - *start;
    if (total <= 0 || width <= 0)
        return;
    double density = total / width, min_columns = IDLE_STRETCH_SHARE * canvas->columns;
    double sum = 0, best = 0;
    int lead = *start;
    for (int c = *start; c < *end; c++) {
        sum += busy[c];
        double length = c + 1 - *start, deficit = length * density - sum;
        if (deficit > best && sum <= IDLE_DENSITY_SHARE * density * length) {
            best = deficit;
            lead = c + 1;
        }
    }
    if (lead - *start >= min_columns)
        *start = lead;
    sum = best = 0;
    int tail = *end;
    for (int c = *end - 1; c >= *start; c--) {
        sum += busy[c];
        double length = *end - c, deficit = length * density - sum;
        if (deficit > best && sum <= IDLE_DENSITY_SHARE * density * length) {
            best = deficit;
            tail = c;
        }
    }
    if (*end - tail >= min_columns)
        *end = tail;
}

static int compare_durations(const void *left, const void *right)
{
    int64_t a = *(const int64_t *)left, b = *(const int64_t *)right;
    return a < b ? -1 : a > b;
}

/* The median step's duration; -1 when there are too few steps to tell a warm-up step apart. */
static int64_t median_step_ns(const struct analysis_step *steps, size_t step_count)
{
    if (step_count < MIN_STEPS_FOR_WARMUP)
        return -1;
    int64_t *durations = malloc(step_count * sizeof *durations);
    if (!durations)
        return -1;
    for (size_t i = 0; i < step_count; i++)
        durations[i] = steps[i].end_ns - steps[i].start_ns;
    qsort(durations, step_count, sizeof *durations, compare_durations);
    int64_t median = durations[step_count / 2];
    free(durations);
    return median;
}

/* Rule 1: from the first steady step's start to the last step's end. The steps before the first
 * one that lasts at most WARMUP_FACTOR times the median are warm-up (the first iteration builds
 * its buffers, NCCL its communicators, cuDNN its plans: ddp's step 0 lasts 9 times the others)
 * and are left out with the set-up; *warmup_steps counts their distinct step numbers. */
static int steps_window(const struct analysis_step *steps, size_t step_count, int64_t *start_ns,
                        int64_t *end_ns, int *warmup_steps)
{
    int64_t median = median_step_ns(steps, step_count), first_steady = INT64_MAX;
    for (size_t i = 0; i < step_count; i++) {
        int64_t duration = steps[i].end_ns - steps[i].start_ns;
        if (median < 0 || duration <= WARMUP_FACTOR * median)
            first_steady = steps[i].start_ns < first_steady ? steps[i].start_ns : first_steady;
        *end_ns = steps[i].end_ns > *end_ns ? steps[i].end_ns : *end_ns;
    }
    *start_ns = first_steady;
    *warmup_steps = 0;
    for (size_t i = 0; i < step_count; i++) {
        int counted = 0;
        for (size_t j = 0; j < i && !counted; j++)
            counted = steps[j].number == steps[i].number && steps[j].start_ns < first_steady;
        *warmup_steps += steps[i].start_ns < first_steady && !counted;
    }
    return step_count > 0 && *end_ns > *start_ns;
}

void steady_choose(const struct canvas *whole, const struct analysis_step *steps, size_t step_count,
                   struct steady_window *out)
{
    *out = (struct steady_window){
        whole->window_start_ns, whole->window_end_ns, whole->window_start_ns, whole->window_end_ns, 0, 0, 0};
    int64_t span_ns = whole->window_end_ns - whole->window_start_ns;
    int64_t start_ns = whole->window_end_ns, end_ns = whole->window_start_ns;
    int warmup_steps = 0;
    int by_steps = steps_window(steps, step_count, &start_ns, &end_ns, &warmup_steps);
    if (!by_steps) {
        double *busy = malloc((size_t)whole->columns * sizeof *busy);
        if (!busy)
            return; /* out of memory: the whole trace is drawn, which is never wrong */
        busy_columns(whole, busy);
        int start = 0, end = whole->columns;
        drop_idle_ends(whole, busy, &start, &end);
        drop_dominant(whole, &start, &end);
        drop_idle_ends(whole, busy, &start, &end);
        free(busy);
        start_ns = time_of_column(whole, start);
        end_ns = end >= whole->columns ? whole->window_end_ns : time_of_column(whole, end);
    }
    if (start_ns < whole->window_start_ns)
        start_ns = whole->window_start_ns;
    if (end_ns > whole->window_end_ns)
        end_ns = whole->window_end_ns;
    if (end_ns <= start_ns || (double)(span_ns - (end_ns - start_ns)) < MIN_LEFT_OUT * (double)span_ns)
        return;
    out->start_ns = start_ns;
    out->end_ns = end_ns;
    out->by_steps = by_steps;
    out->warmup_steps = by_steps ? warmup_steps : 0;
    out->trimmed = 1;
}
