/* python_gc.h: which thread CPython's garbage collector runs on, right now, for the host sampler
 * (issue 31: "garbage collection, when the stack shows it").
 *
 * A collection is C code inside whatever Python line allocated (or called gc.collect()): the frame
 * reader (python_frames.h) sees only that line, so a GC pause reads as the line's own work. CPython
 * calls every function in gc.callbacks with "start" before a collection and "stop" after it, on the
 * collecting thread and under the GIL; python_gc_install appends one whose only work is to store
 * that thread's id in an atomic (or 0), which python_gc_running_on reads from the sampler thread.
 *
 * Installing needs the GIL (the module gc, a list append), which the collector never takes, and
 * PyTorch releases around every operator and CUDA call: python_gc_install asks CPython to do it
 * (Py_AddPendingCall, which any thread may call without the GIL), and the main thread runs the
 * install between two bytecodes, GIL held. The host sampler asks once it has found a running
 * CPython. No Python.h and no link to libpython, as python_frames.c: the symbols come from
 * dlsym(RTLD_DEFAULT). A process that does not run CPython costs one failed lookup. Once installed,
 * each collection costs CPython two calls of a C function and the info dict it builds for
 * callbacks. */
#ifndef OVERLAPSCOPE_PYTHON_GC_H
#define OVERLAPSCOPE_PYTHON_GC_H

#include <stdint.h>

enum python_gc_status {
    PYTHON_GC_PENDING = 0, /* not asked yet, asked and not run yet, or gc not imported yet */
    PYTHON_GC_INSTALLED,   /* the callback is in gc.callbacks */
    PYTHON_GC_ABSENT,      /* no CPython here, or it refused (no gc module yet counts as pending) */
};

/* Asks CPython to install the callback (see above), unless asked already or decided: then one
 * atomic load. Thread-safe. Returns the status (PENDING until the main thread has run it). */
enum python_gc_status python_gc_install(void);

/* The status without trying. */
enum python_gc_status python_gc_status(void);

/* 1 while a collection runs on thread tid (its kernel id), else 0. Async-signal-safe, lock-free. */
int python_gc_running_on(uint32_t tid);

#endif
