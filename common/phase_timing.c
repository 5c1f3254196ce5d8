/* phase_timing.c: see phase_timing.h. */
#include "phase_timing.h"

#include <string.h>
#include <time.h>

static int64_t clock_ns(clockid_t clock)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

struct phase_mark phase_timing_now(void)
{
    return (struct phase_mark){clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_THREAD_CPUTIME_ID)};
}

struct phase_mark phase_timing_add(struct phase_timing *timing, const char *name, struct phase_mark since,
                                   int64_t worker_cpu_ns, int parallel)
{
    if (!timing)
        return since;
    struct phase_mark now = phase_timing_now();
    char full[sizeof timing->entries[0].name];
    snprintf(full, sizeof full, "%s%s", timing->nested ? "set-up: " : "", name);
    int k = 0;
    while (k < timing->count && strcmp(timing->entries[k].name, full) != 0)
        k++;
    if (k == PHASE_TIMING_MAX)
        return now;
    if (k == timing->count) {
        timing->entries[timing->count] = (struct phase_timing_entry){.parallel = 0};
        memcpy(timing->entries[timing->count++].name, full, sizeof full);
    }
    struct phase_timing_entry *entry = &timing->entries[k];
    entry->wall_ns += now.wall_ns - since.wall_ns;
    entry->cpu_ns += now.cpu_ns - since.cpu_ns;
    entry->worker_cpu_ns += worker_cpu_ns;
    entry->parallel |= parallel;
    return now;
}

struct phase_mark phase_timing_add_rest(struct phase_timing *timing, const char *name,
                                        struct phase_mark since)
{
    if (!timing)
        return since;
    for (int i = 0; i < timing->count; i++) { /* moved later by what the phases counted */
        since.wall_ns += timing->entries[i].wall_ns;
        since.cpu_ns += timing->entries[i].cpu_ns;
    }
    return phase_timing_add(timing, name, since, 0, 0);
}

void phase_timing_write(const struct phase_timing *timing, int jobs, FILE *out)
{
    int64_t wall = 0, cpu = 0, workers = 0, serial = 0;
    fprintf(out, "timing (jobs %d): %-36s %9s %9s %11s\n", jobs, "phase", "wall s", "main CPU",
            "workers CPU");
    for (int i = 0; i < timing->count; i++) {
        const struct phase_timing_entry *entry = &timing->entries[i];
        fprintf(out, "timing (jobs %d): %-36s %9.3f %9.3f %11.3f%s\n", jobs, entry->name,
                entry->wall_ns / 1e9, entry->cpu_ns / 1e9, entry->worker_cpu_ns / 1e9,
                entry->parallel ? "  (parallel)" : "");
        wall += entry->wall_ns;
        cpu += entry->cpu_ns;
        workers += entry->worker_cpu_ns;
        serial += entry->parallel ? 0 : entry->wall_ns;
    }
    fprintf(out, "timing (jobs %d): %-36s %9.3f %9.3f %11.3f\n", jobs, "total", wall / 1e9, cpu / 1e9,
            workers / 1e9);
    /* The run's thread computes alone (the workers wait for a batch or a merge), but for the merge
     * of the walks, which overlaps them: its CPU share is the serial share Amdahl speaks of. */
    fprintf(out, "timing (jobs %d): serial: the run's thread's CPU %.3f s of %.3f s in all (%.1f%%)\n", jobs,
            cpu / 1e9, (cpu + workers) / 1e9,
            cpu + workers ? 100.0 * (double)cpu / (double)(cpu + workers) : 0.0);
    fprintf(out, "timing (jobs %d): phases without workers %.3f s of %.3f s wall\n", jobs, serial / 1e9,
            wall / 1e9);
}
