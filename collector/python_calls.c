/* python_calls.c: the library's Python wrappers of blocking calls, timed through sys.monitoring
 * (python_calls.h). */
#include "python_calls.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "python_api.h"

/* sys.monitoring's tool ids this file tries, in order: 0 to 2 and 5 are the debugger's, coverage's,
 * the profiler's and the optimizer's by convention (PEP 669); 3 and 4 are free for tools. */
static const int tool_ids[] = {4, 3};
#define MAX_RECORDS (1 << 22) /* a process's calls kept between takes (96 MiB at most) */
#define MAX_DEPTH 8           /* wrappers open at once on a thread */

enum function_state { NOTED, TIMED, UNTIMED };

struct function {
    uintptr_t code; /* the captured code object's address */
    struct python_code_identity identity;
    enum function_state state;
    char name[600]; /* "FILE:FIRST_LINE QUALIFIED_NAME" */
};

static struct {
    pthread_mutex_t lock; /* functions' count and states, records */
    int64_t (*now_ns)(void);
    _Atomic int enabled;
    struct function functions[PYTHON_CALLS_MAX_FUNCTIONS];
    int function_count;
    int install_requested; /* a pending call is queued and has not run */
    int tool;              /* sys.monitoring tool id; -1: none could be had */
    int set_up;            /* 1 once the tool and callbacks are there, -1 when they cannot be */
    char why[160];
    struct python_call *records;
    size_t count, capacity;
    long long lost;
    /* read on the GIL's side only (callbacks, the pending call): the timed code objects */
    uintptr_t timed_code[PYTHON_CALLS_MAX_FUNCTIONS];
    int timed_count;
} calls = {.lock = PTHREAD_MUTEX_INITIALIZER, .tool = -1};

static _Thread_local struct {
    uintptr_t noted; /* the last wrapper this thread noted */
    struct {
        uintptr_t code;
        int64_t start_ns;
    } open[MAX_DEPTH];
    int depth;
} thread_calls;

static struct python_api py;

static void release(py_object *object)
{
    python_api_release(&py, object);
}

/* --- the events (CPython's callbacks, the GIL held) --- */

static int timed_index(uintptr_t code)
{
    for (int i = 0; i < calls.timed_count; i++)
        if (calls.timed_code[i] == code)
            return i;
    return -1;
}

/* PY_START(code, instruction_offset) */
static py_object *on_start(py_object *self, py_object *const *args, ptrdiff_t count)
{
    (void)self;
    if (count >= 1 && thread_calls.depth < MAX_DEPTH) {
        int depth = thread_calls.depth++;
        thread_calls.open[depth].code = (uintptr_t)args[0];
        thread_calls.open[depth].start_ns = calls.now_ns();
    }
    return python_api_none(&py);
}

static void keep(const struct python_call *call)
{
    pthread_mutex_lock(&calls.lock);
    if (calls.count == calls.capacity) {
        size_t capacity = calls.capacity ? calls.capacity * 2 : 1024;
        struct python_call *grown =
            capacity <= MAX_RECORDS ? realloc(calls.records, capacity * sizeof *grown) : NULL;
        if (grown) {
            calls.records = grown;
            calls.capacity = capacity;
        }
    }
    if (calls.count < calls.capacity)
        calls.records[calls.count++] = *call;
    else
        calls.lost++;
    pthread_mutex_unlock(&calls.lock);
}

/* PY_RETURN(code, instruction_offset, value). A call left by an exception raises no local event
 * (PY_UNWIND is global only): its start stays open until a return of an outer one pops it. */
static py_object *on_return(py_object *self, py_object *const *args, ptrdiff_t count)
{
    (void)self;
    int64_t end_ns = calls.now_ns();
    uintptr_t code = count >= 1 ? (uintptr_t)args[0] : 0;
    while (thread_calls.depth > 0) {
        int depth = --thread_calls.depth;
        if (thread_calls.open[depth].code != code)
            continue; /* left by an exception */
        int function = timed_index(code);
        if (function >= 0)
            keep(&(struct python_call){thread_calls.open[depth].start_ns, end_ns, (uint32_t)gettid(),
                                       (uint32_t)function});
        break;
    }
    return python_api_none(&py);
}

static struct py_method_def start_hook = {"overlapscope_call_start",
                                          (void (*)(void))(py_fast_function)on_start, PY_METH_FASTCALL,
                                          "overlapscope: a wrapper of a blocking CUDA call starts"};
static struct py_method_def return_hook = {"overlapscope_call_return",
                                           (void (*)(void))(py_fast_function)on_return, PY_METH_FASTCALL,
                                           "overlapscope: a wrapper of a blocking CUDA call returns"};

/* --- the set-up (the pending call, the GIL held) --- */

static long event_bit(py_object *monitoring, const char *name)
{
    py_object *events = py.get_attr(monitoring, "events");
    py_object *bit = events ? py.get_attr(events, name) : NULL;
    long value = bit ? py.long_as_long(bit) : -1;
    release(bit);
    release(events);
    return value;
}

static py_object *monitoring_module(void)
{
    py_object *name = py.unicode_from_string("sys");
    py_object *sys = name ? py.get_module(name) : NULL;
    release(name);
    py_object *monitoring = sys ? py.get_attr(sys, "monitoring") : NULL;
    release(sys);
    if (!monitoring)
        py.error_clear();
    return monitoring;
}

/* A free tool id into calls.tool, with both callbacks registered. Returns 0, or -1 with why set. */
static int set_up_tool(py_object *monitoring, long start_bit, long return_bit, char *why, size_t size)
{
    for (size_t i = 0; i < sizeof tool_ids / sizeof tool_ids[0] && calls.tool < 0; i++) {
        py_object *holder = py.call_method(monitoring, "get_tool", "i", tool_ids[i]);
        int free_id = holder == py.none;
        release(holder);
        py_object *taken =
            free_id ? py.call_method(monitoring, "use_tool_id", "is", tool_ids[i], "overlapscope") : NULL;
        if (taken)
            calls.tool = tool_ids[i];
        release(taken);
        py.error_clear();
    }
    if (calls.tool < 0) {
        snprintf(why, size, "sys.monitoring tool ids 3 and 4 are taken by other tools");
        return -1;
    }
    py_object *on_start_function = py.new_function(&start_hook, NULL, NULL);
    py_object *on_return_function = py.new_function(&return_hook, NULL, NULL);
    py_object *first = on_start_function ? py.call_method(monitoring, "register_callback", "ilO", calls.tool,
                                                          start_bit, on_start_function)
                                         : NULL;
    py_object *second = on_return_function ? py.call_method(monitoring, "register_callback", "ilO",
                                                            calls.tool, return_bit, on_return_function)
                                           : NULL;
    int registered = first && second;
    release(first);
    release(second);
    release(on_start_function); /* sys.monitoring holds them */
    release(on_return_function);
    if (!registered) {
        py.error_clear();
        snprintf(why, size, "sys.monitoring.register_callback failed");
        return -1;
    }
    return 0;
}

/* The module object whose file is `file` (borrowed), from sys.modules without running any
 * module's code (PyModule_GetFilenameObject reads the module's own dict). */
static py_object *module_of_file(const char *file)
{
    py_object *modules = py.module_dict(); /* borrowed */
    py_object *key, *value, *found = NULL;
    ptrdiff_t position = 0;
    while (!found && modules && py.dict_next(modules, &position, &key, &value)) {
        py_object *filename = py.module_filename(value);
        const char *text = filename ? py.unicode_as_utf8(filename) : NULL;
        if (text && strcmp(text, file) == 0)
            found = value;
        release(filename);
        py.error_clear();
    }
    return found;
}

/* The live code object of function, checked to be the captured one: a new reference, or NULL. */
static py_object *find_code(const struct function *function)
{
    py_object *module = module_of_file(function->identity.file);
    if (!module)
        return NULL;
    py.incref(module);
    py_object *object = module;
    char path[sizeof function->identity.qualified_name];
    snprintf(path, sizeof path, "%s", function->identity.qualified_name);
    for (char *save = NULL, *part = strtok_r(path, ".", &save); part && object;
         part = strtok_r(NULL, ".", &save)) {
        py_object *next = strcmp(part, "<locals>") == 0 ? NULL : py.get_attr(object, part);
        py.decref(object);
        object = next;
    }
    /* the function, or one it wraps (functools.wraps' __wrapped__), whose code is the captured one */
    for (int unwrap = 0; object && unwrap < 4; unwrap++) {
        py_object *code = py.get_attr(object, "__code__");
        if (code && (uintptr_t)code == function->code) {
            py.decref(object);
            return code;
        }
        release(code);
        py_object *inner = py.get_attr(object, "__wrapped__");
        py.decref(object);
        object = inner;
    }
    release(object);
    py.error_clear();
    return NULL;
}

/* Py_AddPendingCall's function: the main thread, between two bytecodes, the GIL held. Returns 0
 * always (-1 would raise an exception in the program). No lock is held while CPython runs: an
 * attribute read may run Python code, which may make a blocking call (python_calls_note) or call
 * a timed wrapper (keep), both of which take the lock. Only this function changes a function's
 * state, the tool and timed_code, and only on the main thread. */
static int install_pending(void *unused)
{
    (void)unused;
    int pending[PYTHON_CALLS_MAX_FUNCTIONS], pending_count = 0;
    pthread_mutex_lock(&calls.lock);
    calls.install_requested = 0;
    int set_up = calls.set_up;
    for (int i = 0; i < calls.function_count; i++)
        if (calls.functions[i].state == NOTED)
            pending[pending_count++] = i;
    pthread_mutex_unlock(&calls.lock);
    char why[sizeof calls.why] = "";
    py_object *monitoring = monitoring_module();
    long start_bit = monitoring ? event_bit(monitoring, "PY_START") : -1;
    long return_bit = monitoring ? event_bit(monitoring, "PY_RETURN") : -1;
    if (set_up == 0 && (start_bit <= 0 || return_bit <= 0)) {
        snprintf(why, sizeof why, "this CPython has no sys.monitoring (3.12 or later has)");
        set_up = -1;
    } else if (set_up == 0) {
        set_up = set_up_tool(monitoring, start_bit, return_bit, why, sizeof why) == 0 ? 1 : -1;
    }
    enum function_state state[PYTHON_CALLS_MAX_FUNCTIONS];
    for (int k = 0; k < pending_count; k++) {
        const struct function *function = &calls.functions[pending[k]]; /* its fields are set once */
        py_object *code = set_up > 0 ? find_code(function) : NULL;
        py_object *set = code ? py.call_method(monitoring, "set_local_events", "iOl", calls.tool, code,
                                               start_bit | return_bit)
                              : NULL;
        state[k] = set ? TIMED : UNTIMED;
        if (set)
            calls.timed_code[pending[k]] = function->code;
        else if (!why[0] && set_up > 0)
            snprintf(why, sizeof why, "%s not found in sys.modules by its qualified name", function->name);
        release(set);
        release(code);
        py.error_clear();
    }
    release(monitoring);
    py.error_clear();
    pthread_mutex_lock(&calls.lock);
    calls.set_up = set_up;
    for (int k = 0; k < pending_count; k++) {
        calls.functions[pending[k]].state = state[k];
        if (state[k] == TIMED && calls.timed_count <= pending[k])
            calls.timed_count = pending[k] + 1;
    }
    if (!calls.why[0] && why[0])
        memcpy(calls.why, why, sizeof why);
    pthread_mutex_unlock(&calls.lock);
    return 0;
}

/* --- the collector's side --- */

void python_calls_enable(int64_t (*now_ns)(void))
{
    if (atomic_load(&calls.enabled) || !python_api_resolve(&py))
        return;
    calls.now_ns = now_ns;
    atomic_store(&calls.enabled, 1);
}

void python_calls_note(const struct python_frames *frames, uintptr_t wrapper)
{
    if (!wrapper || wrapper == thread_calls.noted ||
        !atomic_load_explicit(&calls.enabled, memory_order_relaxed))
        return;
    thread_calls.noted = wrapper;
    pthread_mutex_lock(&calls.lock);
    int known = 0;
    for (int i = 0; i < calls.function_count && !known; i++)
        known = calls.functions[i].code == wrapper;
    if (!known && calls.function_count < PYTHON_CALLS_MAX_FUNCTIONS && calls.set_up >= 0) {
        struct function *function = &calls.functions[calls.function_count];
        struct python_code_identity identity;
        if (python_frames_code_identity(frames, wrapper, &identity) == 0) {
            function->identity = identity;
            function->code = wrapper;
            function->state = NOTED;
            snprintf(function->name, sizeof function->name, "%s:%d %s", identity.file, identity.first_line,
                     identity.qualified_name);
            calls.function_count++;
            /* Py_AddPendingCall takes no GIL; -1: its queue is full now, the next note asks again */
            if (!calls.install_requested && py.add_pending_call(install_pending, NULL) == 0)
                calls.install_requested = 1;
        }
    }
    pthread_mutex_unlock(&calls.lock);
}

struct python_call *python_calls_take(size_t *count)
{
    pthread_mutex_lock(&calls.lock);
    struct python_call *records = calls.count ? calls.records : NULL;
    *count = calls.count;
    if (records) {
        calls.records = NULL;
        calls.count = calls.capacity = 0;
    }
    pthread_mutex_unlock(&calls.lock);
    return records;
}

const char *python_calls_function_name(uint32_t function)
{
    pthread_mutex_lock(&calls.lock);
    const char *name = function < (uint32_t)calls.function_count ? calls.functions[function].name : "";
    pthread_mutex_unlock(&calls.lock);
    return name; /* a function's name never changes once noted */
}

void python_calls_counts(struct python_calls_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    pthread_mutex_lock(&calls.lock);
    for (int i = 0; i < calls.function_count; i++) {
        counts->timed += calls.functions[i].state == TIMED;
        counts->untimed += calls.functions[i].state == UNTIMED;
    }
    counts->lost = calls.lost;
    _Static_assert(sizeof counts->why == sizeof calls.why, "one length");
    memcpy(counts->why, calls.why, sizeof counts->why);
    pthread_mutex_unlock(&calls.lock);
}

void python_calls_forget_after_fork(void)
{
    pthread_mutex_init(&calls.lock, NULL);
    free(calls.records);
    calls.records = NULL;
    calls.count = calls.capacity = 0;
    calls.install_requested = 0; /* the parent's queued call is the parent's */
}
