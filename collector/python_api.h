/* python_api.h: the few CPython C-API functions the collector calls itself, with the GIL, from
 * functions CPython runs for it (a Py_AddPendingCall function, gc.callbacks, sys.monitoring's
 * callbacks): python_gc.h and python_calls.h. No Python.h and no link to libpython: each comes
 * from dlsym(RTLD_DEFAULT), so a process that runs no Python costs one failed lookup; every one of
 * them is in CPython's stable C API since 3.7. */
#ifndef OVERLAPSCOPE_PYTHON_API_H
#define OVERLAPSCOPE_PYTHON_API_H

#include <stddef.h>

typedef struct py_object py_object; /* only passed through */

/* PyMethodDef, with the layout it has had in every CPython 3 (Include/methodobject.h); function is
 * a py_varargs_function (METH_VARARGS) or a py_fast_function (METH_FASTCALL), cast. */
struct py_method_def {
    const char *name;
    void (*function)(void);
    int flags;
    const char *doc;
};
#define PY_METH_VARARGS 0x0001
#define PY_METH_FASTCALL 0x0080
typedef py_object *(*py_varargs_function)(py_object *self, py_object *args);
typedef py_object *(*py_fast_function)(py_object *self, py_object *const *args, ptrdiff_t count);

struct python_api {
    int (*add_pending_call)(int (*function)(void *), void *argument); /* callable without the GIL */
    py_object *(*unicode_from_string)(const char *);
    const char *(*unicode_as_utf8)(py_object *);
    py_object *(*get_module)(py_object *name); /* sys.modules[name], never an import */
    py_object *(*module_dict)(void);           /* sys.modules, borrowed */
    int (*dict_next)(py_object *dict, ptrdiff_t *position, py_object **key, py_object **value);
    py_object *(*module_filename)(py_object *module); /* reads the module's own dict: no code runs */
    py_object *(*get_attr)(py_object *object, const char *name);
    py_object *(*call_method)(py_object *object, const char *name, const char *format, ...);
    long (*long_as_long)(py_object *);
    int (*list_append)(py_object *list, py_object *item);
    py_object *(*tuple_item)(py_object *tuple, ptrdiff_t index);
    py_object *(*new_function)(struct py_method_def *def, py_object *self, py_object *module);
    void (*incref)(py_object *);
    void (*decref)(py_object *);
    void (*error_clear)(void);
    py_object *none;
};

/* Fills api from this process. Returns 1 when every function is there (a CPython 3.7 or later
 * runs here), 0 otherwise (then none may be called). */
int python_api_resolve(struct python_api *api);

/* None, as a new reference: what a C function called from Python returns when it has nothing. */
py_object *python_api_none(const struct python_api *api);

/* Py_DecRef of object unless it is NULL. */
void python_api_release(const struct python_api *api, py_object *object);

#endif
