/* python_gc.h: which thread CPython's garbage collector runs on, right now, for the host sampler
 * (issue 31: "garbage collection, when the stack shows it").
 *
 * A collection is C code inside whatever Python line allocated (or called gc.collect()): the frame
 * reader (python_frames.h) sees only that line, so a GC pause reads as the line's own work. CPython
 * calls every function in gc.callbacks with "start" before a collection and "stop" after it, on the
 * collecting thread and under the GIL; python_gc_install appends one whose only work is to store
 * that thread's id in an atomic (or 0), which python_gc_running_on reads from the sampler thread.
 *
 * Installing needs the GIL (the module gc, a list append), which the collector never takes: the
 * recorder calls python_gc_install from its CUDA API callbacks, and it installs only on a thread that
 * holds the GIL already (PyGILState_Check), else waits for a later call. No Python.h and no link to
 * libpython, as python_frames.c: the symbols come from dlsym(RTLD_DEFAULT). A process that does not
 * run CPython costs one failed lookup. Once installed, each collection costs CPython two calls of a
 * C function and the info dict it builds for callbacks. */
#ifndef OVERLAPSCOPE_PYTHON_GC_H
#define OVERLAPSCOPE_PYTHON_GC_H

#include <stdint.h>

enum python_gc_status {
    PYTHON_GC_PENDING = 0, /* not tried, or tried on a thread without the GIL: try again */
    PYTHON_GC_INSTALLED,   /* the callback is in gc.callbacks */
    PYTHON_GC_ABSENT,      /* no CPython here, or it refused (no gc module yet counts as pending) */
};

/* Tries to install the callback (see above). Cheap when already decided: one atomic load.
 * Thread-safe; at most one thread installs. Returns the status after the attempt. */
enum python_gc_status python_gc_install(void);

/* The status without trying. */
enum python_gc_status python_gc_status(void);

/* 1 while a collection runs on thread tid (its kernel id), else 0. Async-signal-safe, lock-free. */
int python_gc_running_on(uint32_t tid);

#endif
