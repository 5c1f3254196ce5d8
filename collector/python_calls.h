/* python_calls.h: when the library's Python functions that wrap the program's blocking CUDA calls
 * ran, entry to return.
 *
 * torch.cuda.synchronize(device) spends about as long in its own Python (a device guard around the
 * call) as in cudaDeviceSynchronize itself when the GPU has nothing left to do: CUDA tracing sees
 * the 2 us call, not the 10 us the program loses, and removing the sync saves the whole function
 * (issue 32, docs/metrics.md). The call sources (call_site.h) name, at each blocking call, the
 * package function the user's line called (python_frames_last_wrapper); this module asks CPython
 * 3.12's sys.monitoring (PEP 669) for PY_START and PY_RETURN events of those code objects only
 * (set_local_events: no other function pays anything), and keeps each call's interval. The
 * analyzer's remove-host-sync then removes the wrapper's whole call (store/framework_calls.h).
 *
 * Everything that touches CPython runs with the GIL: the set-up in a Py_AddPendingCall function
 * (the main thread, between two bytecodes, as python_gc.h does), the events in CPython's own
 * callbacks. python_calls_note runs in a CUDA callback without the GIL and only reads memory
 * (python_frames_code_identity). The code object is found again by its module file and qualified
 * name in sys.modules and checked to be the captured one (an address alone may be stale); one that
 * cannot be found so (a lambda, a nested function) is not timed. CPython before 3.12 has no
 * sys.monitoring: nothing is timed, and the report says the removed syncs' own time only. */
#ifndef OVERLAPSCOPE_PYTHON_CALLS_H
#define OVERLAPSCOPE_PYTHON_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "python_frames.h"

/* Wrapper functions timed at most (distinct code objects). */
#define PYTHON_CALLS_MAX_FUNCTIONS 32

struct python_call {
    int64_t start_ns, end_ns; /* the trace's clock: now_ns at PY_START and at PY_RETURN */
    uint32_t thread_id;       /* OS thread id */
    uint32_t function;        /* python_calls_function_name's index */
};

/* Turns timing on (once per process; later calls do nothing): now_ns is the trace's clock. */
void python_calls_enable(int64_t (*now_ns)(void));

/* At a blocking call's entry, after python_frames_capture on this thread: asks for wrapper (the
 * code object python_frames_last_wrapper gave; 0 is ignored) to be timed from its next call on.
 * Cheap when the thread's wrapper is the one it noted before; never blocks on the GIL. */
void python_calls_note(const struct python_frames *frames, uintptr_t wrapper);

/* The calls recorded since the last take (malloc'd, the caller frees; NULL when none). */
struct python_call *python_calls_take(size_t *count);

/* "FILE:FIRST_LINE QUALIFIED_NAME" of a function index; "" when unknown. */
const char *python_calls_function_name(uint32_t function);

/* Functions timed, functions that could not be (not found, no sys.monitoring), calls lost. */
struct python_calls_counts {
    int timed, untimed;
    long long lost;
    char why[160]; /* the first reason a function was not timed, "" when none */
};
void python_calls_counts(struct python_calls_counts *counts);

/* In a fork child: forgets the parent's records (its monitoring stays installed in the child's
 * copy of the interpreter, and its events keep arriving here). */
void python_calls_forget_after_fork(void);

#endif
