/* python_api.c: CPython's C API found with dlsym (python_api.h). */
#include "python_api.h"

#include <dlfcn.h>

#define RESOLVE(field, name) (*(void **)&api->field = dlsym(RTLD_DEFAULT, name)) != NULL

int python_api_resolve(struct python_api *api)
{
    int found = RESOLVE(add_pending_call, "Py_AddPendingCall");
    found &= RESOLVE(unicode_from_string, "PyUnicode_FromString");
    found &= RESOLVE(unicode_as_utf8, "PyUnicode_AsUTF8");
    found &= RESOLVE(get_module, "PyImport_GetModule");
    found &= RESOLVE(module_dict, "PyImport_GetModuleDict");
    found &= RESOLVE(dict_next, "PyDict_Next");
    found &= RESOLVE(module_filename, "PyModule_GetFilenameObject");
    found &= RESOLVE(get_attr, "PyObject_GetAttrString");
    found &= RESOLVE(call_method, "PyObject_CallMethod");
    found &= RESOLVE(long_as_long, "PyLong_AsLong");
    found &= RESOLVE(list_append, "PyList_Append");
    found &= RESOLVE(tuple_item, "PyTuple_GetItem");
    found &= RESOLVE(new_function, "PyCFunction_NewEx");
    found &= RESOLVE(incref, "Py_IncRef");
    found &= RESOLVE(decref, "Py_DecRef");
    found &= RESOLVE(error_clear, "PyErr_Clear");
    api->none = (py_object *)dlsym(RTLD_DEFAULT, "_Py_NoneStruct");
    return found && api->none != NULL;
}

py_object *python_api_none(const struct python_api *api)
{
    api->incref(api->none);
    return api->none;
}

void python_api_release(const struct python_api *api, py_object *object)
{
    if (object)
        api->decref(object);
}
