/* progress.h: a percentage on stderr, rewritten in place, for work that runs longer than two
 * seconds (an import, an analysis), and only when stderr is a terminal: into a pipe or a file
 * nothing is written, so that tests and scripts read the same bytes as before. The library code
 * (import.h, analysis.h) takes cli_progress_update as its progress callback and never prints. */
#ifndef OVERLAPSCOPE_CLI_PROGRESS_H
#define OVERLAPSCOPE_CLI_PROGRESS_H

/* How long work runs before its progress shows: shorter work stays silent. The environment variable
 * OVERLAPSCOPE_PROGRESS_DELAY_MS (a whole number of milliseconds) sets another delay: the tests set
 * 0, so that whether progress shows does not depend on how fast the machine is. */
#define CLI_PROGRESS_DELAY_NS 2000000000LL

struct cli_progress {
    const char *label;    /* "importing", "analyzing" */
    long long delay_ns;   /* CLI_PROGRESS_DELAY_NS, or OVERLAPSCOPE_PROGRESS_DELAY_MS */
    long long started_ns; /* CLOCK_MONOTONIC at the first update; -1 before it */
    int last_percent;     /* the percentage on the line; -1 when none is shown */
};

/* Prepares progress (label: static text). Returns 1 when stderr is a terminal, so that the
 * caller hands cli_progress_update to the library; 0 when progress must stay silent. */
int cli_progress_init(struct cli_progress *progress, const char *label);

/* The callback (context: a struct cli_progress): fraction of the work done, in [0, 1]. The first
 * call starts the clock; from two seconds on, the percentage shows. A fraction of 1 or more ends
 * the work: the line is cleared and the next call starts again (a second analysis). */
void cli_progress_update(void *context, double fraction);

/* Clears a shown line (after work that failed before reaching 1). */
void cli_progress_finish(struct cli_progress *progress);

#endif
