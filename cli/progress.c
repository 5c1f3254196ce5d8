/* progress.c: see progress.h. */
#include "progress.h"

#include "number_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

int cli_progress_init(struct cli_progress *progress, const char *label)
{
    progress->label = label;
    progress->started_ns = -1;
    progress->last_percent = -1;
    progress->delay_ns = CLI_PROGRESS_DELAY_NS;
    const char *delay_ms = getenv("OVERLAPSCOPE_PROGRESS_DELAY_MS");
    int64_t ms = 0;
    if (delay_ms && number_text_int64(delay_ms, &ms) == 0 && ms >= 0 && ms <= 3600 * 1000)
        progress->delay_ns = ms * 1000000LL;
    return isatty(STDERR_FILENO);
}

void cli_progress_finish(struct cli_progress *progress)
{
    if (progress->last_percent >= 0) {
        fprintf(stderr, "\r%*s\r", 24, "");
        fflush(stderr);
    }
    progress->last_percent = -1;
    progress->started_ns = -1;
}

void cli_progress_update(void *context, double fraction)
{
    struct cli_progress *progress = context;
    if (fraction >= 1) {
        cli_progress_finish(progress);
        return;
    }
    long long now = now_ns();
    if (progress->started_ns < 0)
        progress->started_ns = now;
    if (now - progress->started_ns < progress->delay_ns)
        return;
    int percent = fraction > 0 ? (int)(fraction * 100) : 0;
    if (percent == progress->last_percent)
        return;
    progress->last_percent = percent;
    fprintf(stderr, "\r%s: %3d%%", progress->label, percent);
    fflush(stderr);
}
