/* crew.h: the worker threads of one analysis (--jobs N), kept for its whole run, each with its own
 * read-only connection to the trace (store_open_reader, opened by the worker itself so that N
 * connections open at once, not one after another on the run's thread). The run hands them
 * batches: a task run once for every index of [0, count), indexes taken in increasing order by
 * whichever worker is free; the run's thread waits for index i while the rest go on (the walks'
 * merge in device order), or for the whole batch. Tasks keep their results per index, so that what
 * a batch gives never depends on which worker ran what. Every connection holds one read
 * transaction from its opening to crew_free: all of them read the same trace. */
#ifndef OVERLAPSCOPE_CREW_H
#define OVERLAPSCOPE_CREW_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

typedef struct crew crew;

/* Runs index of a batch on worker (0 to crew_size - 1; a worker's own state may be kept by it),
 * reading through reader. */
typedef void crew_task(void *context, size_t index, size_t worker, store *reader);

/* Starts workers threads for trace. Returns the crew, or NULL when none could start (out of
 * memory, no thread): the caller then works alone. The connections open in the background. */
crew *crew_new(store *trace, size_t workers);

/* Waits for the workers (each runs what it runs) and closes their connections; a work limit one
 * of them reached becomes trace's (store_absorb_work_limit). NULL is ignored. */
void crew_free(crew *team, store *trace);

/* Workers that hold a connection (waits until every worker has tried to open its own): 0 when
 * none could open one, and a batch would then run nowhere. */
size_t crew_size(crew *team);

/* Starts task on [0, count) (the previous batch must be finished). Returns 0, or -1 when the crew
 * has no connection (nothing runs). */
int crew_start(crew *team, size_t count, crew_task *task, void *context);

/* Waits until index of the running batch is done. */
void crew_wait(crew *team, size_t index);

/* Waits until index is done or wait_ns has passed; 1 when done. */
int crew_wait_for(crew *team, size_t index, int64_t wait_ns);

/* No worker takes another index of the batch (those running finish). */
void crew_stop(crew *team);

/* Waits until every index taken of the batch is done (all of them unless crew_stop). */
void crew_finish(crew *team);

/* The workers' CPU time so far (nanoseconds, all workers, their tasks and opening). */
int64_t crew_cpu_ns(crew *team);

/* A task of crew_run: 0, or -1 with err filled. */
typedef int crew_checked_task(void *context, size_t index, size_t worker, store *reader, error_info *err);

/* Runs task on [0, count): on the crew's workers when team has any, else on this thread through
 * alone (worker 0), in order. Returns when every index is done: 0, or -1 with err filled as the
 * lowest failing index filled it (the same error for every team). */
int crew_run(crew *team, store *alone, size_t count, crew_checked_task *task, void *context, error_info *err);

#endif
