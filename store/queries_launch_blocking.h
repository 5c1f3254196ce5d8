/* queries_launch_blocking.h: the two facts that prove CUDA_LAUNCH_BLOCKING on a recorded process:
 * its kernel launch calls returned only after their kernels ended (every trace that has launch
 * records, imported ones too), and the variable itself where the recording kept the process's
 * environment (schema 3's process_environment table; older traces did not record it). */
#ifndef OVERLAPSCOPE_QUERIES_LAUNCH_BLOCKING_H
#define OVERLAPSCOPE_QUERIES_LAUNCH_BLOCKING_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* At most this many of a process's kernel launches are read (the first ones by correlation id):
 * the proof is a share, and a long trace's first hundred thousand launches tell it. */
#define STORE_LAUNCH_BLOCKING_MAX_LAUNCHES 100000

struct store_launch_blocking {
    int64_t launches; /* kernel launches (no graph node) whose call and kernel both have times */
    int64_t blocked;  /* of them, those whose call returned at or after its kernel's end */
    /* The median duration of the launch calls that returned before their kernel ended (0: none):
     * a launch's normal latency in this trace. */
    int64_t normal_call_ns;
};

/* Reads the launch facts of process_id (the trace's process id). 0, or -1 with err filled. */
int store_launch_blocking_read(sqlite3 *db, int64_t process_id, struct store_launch_blocking *out,
                               error_info *err);

enum {
    STORE_ENVIRONMENT_SET = 1,          /* value holds the variable's recorded value */
    STORE_ENVIRONMENT_UNSET = 0,        /* the environment was recorded and does not hold it */
    STORE_ENVIRONMENT_NOT_RECORDED = -2 /* no environment kept: schema < 3, or not a recording (no
                                           meta host_sample_hz: an import) */
};

/* The recorded value of the allow-listed variable `name` in the environment of the trace's process
 * process_id (processes.pid is what process_environment names): STORE_ENVIRONMENT_*, or -1 with err
 * filled on a read error. */
int store_process_environment(sqlite3 *db, int64_t process_id, const char *name, char *value, size_t size,
                              error_info *err);

#endif
