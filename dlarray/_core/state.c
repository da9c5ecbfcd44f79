/*
 * state.c -- the core's one state, dla_state (declared in core.h), the
 * call every file makes into the memory families through it, and DLPack's
 * capsule names.  It sits at
 * the bottom with the tables: every file reads the state, and module.c, at
 * the top, fills it at import.
 */
#include "core.h"

DLAModuleState dla_state;

DLA_ALIGNED_NAME DLA_VERSIONED_NAME[] = "dltensor_versioned";
DLA_ALIGNED_NAME DLA_USED_VERSIONED_NAME[] = "used_dltensor_versioned";
DLA_ALIGNED_NAME DLA_LEGACY_NAME[] = "dltensor";
DLA_ALIGNED_NAME DLA_USED_LEGACY_NAME[] = "used_dltensor";

/* memory.<name>(*args), args built by Py_BuildValue from `format` (a
 * tuple format); NULL with RuntimeError before dlarray has registered. */
PyObject *
dla_call_memory(PyObject *name, const char *format, ...)
{
    if (dla_state.memory == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "dlarray's memory families are not loaded: import dlarray first");
        return NULL;
    }
    va_list va;
    va_start(va, format);
    PyObject *args = Py_VaBuildValue(format, va);
    va_end(va);
    if (args == NULL) {
        return NULL;
    }
    PyObject *method = PyObject_GetAttr(dla_state.memory, name);
    PyObject *result = method ? PyObject_Call(method, args, NULL) : NULL;
    Py_XDECREF(method);
    Py_DECREF(args);
    return result;
}
