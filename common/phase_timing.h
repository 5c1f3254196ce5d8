/* phase_timing.h: where a command's time goes, phase by phase (OVERLAPSCOPE_TIMING=1: the CLI
 * prints it to stderr): each phase's wall time, the CPU time of the thread that ran it (the run's
 * thread) and of the worker threads it kept busy meanwhile. For machines without perf (the
 * 16-core GPU machine of the scale benchmark, docs/scale.md): the serial share of a run is the
 * wall time of its phases that the run's thread ran alone. Off (a NULL timing) it costs nothing. */
#ifndef OVERLAPSCOPE_PHASE_TIMING_H
#define OVERLAPSCOPE_PHASE_TIMING_H

#include <stdint.h>
#include <stdio.h>

#define PHASE_TIMING_MAX 32

struct phase_timing_entry {
    char name[48];
    int64_t wall_ns, cpu_ns, worker_cpu_ns;
    int parallel; /* workers ran in it: not part of the serial share */
};

struct phase_timing {
    struct phase_timing_entry entries[PHASE_TIMING_MAX];
    int count;
    int nested; /* 1: phases of an analysis inside the run (the set-up's), named "set-up: NAME" */
};

/* A phase's beginning: now, on the wall clock and this thread's CPU clock. */
struct phase_mark {
    int64_t wall_ns, cpu_ns;
};

struct phase_mark phase_timing_now(void);

/* Adds (or, when a phase of that name is there, adds to) name: from since to now, with
 * worker_cpu_ns of the workers' CPU; parallel when workers ran in it. timing NULL: nothing. Returns
 * now, the next phase's beginning. */
struct phase_mark phase_timing_add(struct phase_timing *timing, const char *name, struct phase_mark since,
                                   int64_t worker_cpu_ns, int parallel);

/* Adds name: the time from since to now that no phase of timing holds (all of them counted after
 * since: what a caller did around them). */
struct phase_mark phase_timing_add_rest(struct phase_timing *timing, const char *name,
                                        struct phase_mark since);

/* The table: one line per phase, then the totals and the serial share, to out. */
void phase_timing_write(const struct phase_timing *timing, int jobs, FILE *out);

#endif
