/* capture_note.c: see capture_note.h. */
#include "capture_note.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

#define MAX_WINDOWS 4096

struct window {
    long long start, end;
};

static int by_start(const void *a, const void *b)
{
    const struct window *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* Windows of "start:end,...", clipped to [first, last]; the time of their union. */
static int64_t captured_ns(const char *text, long long first, long long last, size_t *count)
{
    struct window *windows = malloc(MAX_WINDOWS * sizeof *windows);
    size_t n = 0;
    *count = 0;
    if (!windows)
        return 0;
    for (const char *p = text; p && *p && n < MAX_WINDOWS;) {
        long long start, end;
        if (sscanf(p, "%lld:%lld", &start, &end) != 2)
            break;
        start = start < first ? first : start;
        end = end > last ? last : end;
        if (end > start)
            windows[n++] = (struct window){start, end};
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    *count = n;
    qsort(windows, n, sizeof windows[0], by_start);
    int64_t total = 0;
    long long reached = first;
    for (size_t i = 0; i < n; i++) {
        long long from = windows[i].start > reached ? windows[i].start : reached;
        if (windows[i].end > from)
            total += windows[i].end - from;
        reached = windows[i].end > reached ? windows[i].end : reached;
    }
    free(windows);
    return total;
}

int cli_capture_note(store *trace, char *line, size_t size)
{
    line[0] = '\0';
    char *range = store_get_meta(trace, "capture_range");
    char *windows = store_get_meta(trace, "capture_windows");
    char *process = store_get_meta(trace, "capture_process");
    long long first = 0, last = 0;
    int found = range && process && sscanf(process, "%lld:%lld", &first, &last) == 2 && last >= first;
    if (found) {
        size_t count = 0;
        int64_t captured = captured_ns(windows, first, last, &count);
        /* the profiler API's range by its calls, the way a user wrote them */
        char label[400];
        if (strncmp(range, "cudaProfilerApi", 15) == 0)
            snprintf(label, sizeof label, "cudaProfilerStart..Stop%s", range + 15);
        else
            snprintf(label, sizeof label, "%s", range);
        char of[32], total[32];
        snprintf(line, size, "%s, %zu range%s, %s of %s", label, count, count == 1 ? "" : "s",
                 units_format_duration(of, sizeof of, captured),
                 units_format_duration(total, sizeof total, last - first));
    }
    free(range);
    free(windows);
    free(process);
    return found;
}

int cli_capture_note_of(const char *path, char *line, size_t size)
{
    line[0] = '\0';
    error_info err;
    store *trace = store_open(path, 1, &err);
    if (!trace)
        return 0;
    int found = cli_capture_note(trace, line, size);
    store_close(trace, NULL);
    return found;
}
