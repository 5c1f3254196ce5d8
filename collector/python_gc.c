/* python_gc.c: a gc.callbacks hook that says which thread collects (python_gc.h). */
#include "python_gc.h"

#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "python_api.h"

/* Requests before giving up, while sys.modules has no "gc" (the sampler asks again each tick). */
#define MAX_ATTEMPTS 1000
enum { REQUESTING = 100, REQUESTED }; /* internal: a request is being made, or waits for the main thread */

static _Atomic int status = PYTHON_GC_PENDING;
static _Atomic long attempts;
static _Atomic uint32_t collecting_tid; /* 0: no collection running */

static struct python_api py;

/* gc.callbacks' call: (phase, info), phase "start" or "stop", under the GIL on the collecting
 * thread. Returns None (a new reference, as a Python function's result is). */
static py_object *on_collection(py_object *self, py_object *args)
{
    (void)self;
    py_object *phase = py.tuple_item(args, 0);
    const char *text = phase ? py.unicode_as_utf8(phase) : NULL;
    if (text && text[0] == 's' && text[1] == 't' && text[2] == 'a')
        atomic_store_explicit(&collecting_tid, (uint32_t)gettid(), memory_order_relaxed);
    else if (text && text[0] == 's' && text[1] == 't' && text[2] == 'o')
        atomic_store_explicit(&collecting_tid, 0, memory_order_relaxed);
    else
        py.error_clear(); /* not a phase we know: say nothing to the collector */
    return python_api_none(&py);
}

static struct py_method_def hook = {"overlapscope_gc_hook",
                                    (void (*)(void))(py_varargs_function)on_collection, PY_METH_VARARGS,
                                    "overlapscope: marks the thread that collects (host samples)"};

/* Appends the hook to gc.callbacks; the GIL held. PYTHON_GC_PENDING when gc is not imported yet. */
static enum python_gc_status append_hook(void)
{
    py_object *name = py.unicode_from_string("gc");
    if (!name) {
        py.error_clear();
        return PYTHON_GC_ABSENT;
    }
    py_object *gc = py.get_module(name); /* sys.modules["gc"], never an import */
    py.decref(name);
    if (!gc) {
        py.error_clear();
        return PYTHON_GC_PENDING;
    }
    py_object *callbacks = py.get_attr(gc, "callbacks");
    py.decref(gc);
    py_object *function = callbacks ? py.new_function(&hook, NULL, NULL) : NULL;
    int appended = function && py.list_append(callbacks, function) == 0;
    if (function)
        py.decref(function); /* the list holds it */
    if (callbacks)
        py.decref(callbacks);
    if (!appended)
        py.error_clear();
    return appended ? PYTHON_GC_INSTALLED : PYTHON_GC_ABSENT;
}

/* Py_AddPendingCall's function: run by CPython on the main thread, between two bytecodes, with the
 * GIL. Returns 0 always: -1 would raise an exception in the program. */
static int install_pending(void *unused)
{
    (void)unused;
    enum python_gc_status result = append_hook();
    if (result == PYTHON_GC_PENDING && atomic_fetch_add(&attempts, 1) >= MAX_ATTEMPTS)
        result = PYTHON_GC_ABSENT;
    atomic_store_explicit(&status, result, memory_order_release);
    return 0;
}

enum python_gc_status python_gc_install(void)
{
    int expected = PYTHON_GC_PENDING;
    if (atomic_load_explicit(&status, memory_order_acquire) != PYTHON_GC_PENDING ||
        !atomic_compare_exchange_strong(&status, &expected, REQUESTING))
        return python_gc_status();
    static int resolved = -1; /* only the requesting thread touches it */
    if (resolved < 0)
        resolved = python_api_resolve(&py);
    /* Py_AddPendingCall takes no GIL and may be called from any thread; -1: its queue is full now. */
    int result = !resolved                                         ? PYTHON_GC_ABSENT
                 : py.add_pending_call(install_pending, NULL) == 0 ? REQUESTED
                                                                   : PYTHON_GC_PENDING;
    /* install_pending may have run already (this is the main thread, in a pending call's window):
     * only a request still outstanding is written. */
    expected = REQUESTING;
    atomic_compare_exchange_strong(&status, &expected, result);
    return python_gc_status();
}

enum python_gc_status python_gc_status(void)
{
    int now = atomic_load_explicit(&status, memory_order_acquire);
    return now == REQUESTING || now == REQUESTED ? PYTHON_GC_PENDING : (enum python_gc_status)now;
}

int python_gc_running_on(uint32_t tid)
{
    return tid != 0 && atomic_load_explicit(&collecting_tid, memory_order_relaxed) == tid;
}
