/*
 * engine_call.c -- run a compute-engine kernel and adopt its result.
 *
 * Every namespace operation ends the same way: call the engine's kernel
 * (a NumPy ufunc, say) on zero-copy views of its inputs with the engine's
 * floating-point warnings silenced, then import the result through DLPack
 * and remember the engine array as the new DLArray's engine view.  In
 * Python those steps cost more than the kernel itself on small arrays, so
 * they are done here.  Nothing engine-specific is compiled in: dlarray
 * registers, from Python, the engine's array type, the context variable
 * that holds its error state and the "quiet" value to put in it, and a
 * Python fallback for results this path does not take (scalars, dtypes
 * DLPack cannot carry).
 *
 *   register_engine(array_type, error_state_var, quiet_value, fallback)
 *   engine_call(kernel, *args, **kwargs) -> DLArray
 *
 * What it registers lives in the module state (dla_state.engine_*), where
 * the consumer files read "is this the host engine's array type" without a
 * call into this file.  The result is imported through consumer.c's
 * dla_from_dlpack.
 */
#include "core.h"

PyObject *
dla_register_engine(PyObject *module, PyObject *args)
{
    PyObject *type, *var, *quiet, *fallback;
    if (!PyArg_ParseTuple(args, "O!OOO:register_engine", &PyType_Type, &type, &var, &quiet,
                          &fallback)) {
        return NULL;
    }
    if (var != Py_None && !PyContextVar_CheckExact(var)) {
        PyErr_SetString(PyExc_TypeError, "register_engine: error_state_var must be a "
                                         "contextvars.ContextVar or None");
        return NULL;
    }
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "register_engine: fallback must be callable");
        return NULL;
    }
    Py_XSETREF(dla_state.engine_array_type, (PyTypeObject *)Py_NewRef(type));
    Py_XSETREF(dla_state.engine_error_state_var, Py_NewRef(var));
    Py_XSETREF(dla_state.engine_quiet_value, Py_NewRef(quiet));
    Py_XSETREF(dla_state.engine_fallback_wrap, Py_NewRef(fallback));
    Py_RETURN_NONE;
}

/* Kernels run inside a context of their own, one per thread, in which the
 * engine's error state is "quiet".  Entering and leaving a context costs a
 * pointer swap; setting and resetting the variable in the caller's context
 * would allocate a new context mapping each time (~300 ns, more than a
 * small kernel).  The price: inside a kernel, other context variables hold
 * the values they had when the thread first called a kernel -- kernels are
 * pure compute and read none but the engine's error state. */
static PyObject *
quiet_context(void)
{
    PyObject *thread_dict = PyThreadState_GetDict(); /* borrowed */
    if (thread_dict == NULL) {
        return NULL;
    }
    PyObject *ctx = PyDict_GetItemWithError(thread_dict, dla_state.str_quiet_context); /* borrowed */
    if (ctx != NULL || PyErr_Occurred()) {
        return ctx;
    }
    ctx = PyContext_CopyCurrent();
    if (ctx == NULL) {
        return NULL;
    }
    if (PyContext_Enter(ctx) < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PyObject *token = PyContextVar_Set(dla_state.engine_error_state_var, dla_state.engine_quiet_value);
    Py_XDECREF(token);
    if (PyContext_Exit(ctx) < 0 || token == NULL ||
        PyDict_SetItem(thread_dict, dla_state.str_quiet_context, ctx) < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    Py_DECREF(ctx); /* the thread dict holds it */
    return ctx;
}

/* kernel(*args, **kwargs) with the engine's floating-point reporting off
 * (kwnames: the keywords' names, whose values follow the nargs positional
 * arguments in args, as in every vectorcall). */
static PyObject *
call_quietly(PyObject *kernel, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (dla_state.engine_error_state_var == Py_None) {
        return PyObject_Vectorcall(kernel, args, (size_t)nargs, kwnames);
    }
    PyObject *ctx = quiet_context();
    if (ctx == NULL) {
        return NULL;
    }
    if (PyContext_Enter(ctx) == 0) {
        PyObject *result = PyObject_Vectorcall(kernel, args, (size_t)nargs, kwnames);
        DLA_SAVE_EXCEPTION(raised);
        if (PyContext_Exit(ctx) < 0) {
            PyErr_WriteUnraisable(ctx);
        }
        DLA_RESTORE_EXCEPTION(raised);
        return result;
    }
    /* Already inside the quiet context (a kernel that calls engine_call):
     * set and reset the variable instead. */
    PyErr_Clear();
    PyObject *token = PyContextVar_Set(dla_state.engine_error_state_var, dla_state.engine_quiet_value);
    if (token == NULL) {
        return NULL;
    }
    PyObject *result = PyObject_Vectorcall(kernel, args, (size_t)nargs, kwnames);
    DLA_SAVE_EXCEPTION(raised);
    if (PyContextVar_Reset(dla_state.engine_error_state_var, token) < 0) {
        /* Cannot happen with a token fresh from Set; report it without
         * hiding the kernel's own outcome. */
        PyErr_WriteUnraisable(dla_state.engine_error_state_var);
    }
    Py_DECREF(token);
    DLA_RESTORE_EXCEPTION(raised);
    return result;
}

/* The engine's result as a DLArray whose engine view is that result. */
PyObject *
dla_engine_adopt(PyObject *module, PyObject *result)
{
    if (Py_TYPE(result) != dla_state.engine_array_type) {
        return PyObject_CallOneArg(dla_state.engine_fallback_wrap, result);
    }
    PyObject *array = dla_from_dlpack(module, &result, 1, NULL);
    if (array == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_BufferError)) {
            return NULL;
        }
        /* A dtype DLPack cannot carry (bfloat16 from ml_dtypes): the Python
         * path knows how to relabel it. */
        PyErr_Clear();
        return PyObject_CallOneArg(dla_state.engine_fallback_wrap, result);
    }
    DLAArrayObject *a = (DLAArrayObject *)array;
    Py_XSETREF(a->engine_view, Py_NewRef(result));
    return array;
}

PyObject *
dla_engine_call(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (dla_state.engine_array_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "engine_call: no engine registered");
        return NULL;
    }
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "engine_call(kernel, *args) needs a kernel");
        return NULL;
    }
    PyObject *result = call_quietly(args[0], args + 1, nargs - 1, kwnames);
    if (result == NULL) {
        return NULL;
    }
    PyObject *array = dla_engine_adopt(module, result);
    Py_DECREF(result);
    return array;
}

/* ---- the common case of an elementwise function, in one call ----
 *
 * engine_unary(kernel, allowed, x) and engine_binary(kernel, allowed, x1, x2)
 * compute kernel(views...) when every argument is a DLArray that already has
 * its engine view, an array of the host engine's type, all share one dtype in the set `allowed` and one device.
 * Otherwise they return None and the Python function takes its general path
 * (promotion, Python scalars, errors, making views).  The rules stay in
 * Python; this only recognises the case where they have nothing to do. */

static bool
same_kind(const DLAArrayObject *a, const DLAArrayObject *b)
{
    return a->dtype.code == b->dtype.code && a->dtype.bits == b->dtype.bits &&
           a->dtype.lanes == b->dtype.lanes &&
           a->device.device_type == b->device.device_type &&
           a->device.device_id == b->device.device_id;
}

static PyObject *
engine_fast(PyObject *module, PyObject *kernel, PyObject *allowed, PyObject *const *xs,
            Py_ssize_t n)
{
    PyObject *views[2];
    for (Py_ssize_t i = 0; i < n; i++) {
        if (Py_TYPE(xs[i]) != dla_state.array_type) {
            Py_RETURN_NONE;
        }
        DLAArrayObject *a = (DLAArrayObject *)xs[i];
        /* The kernels given here are the host engine's (NumPy's ufuncs);
         * any other engine's array takes the general path, which computes
         * through that engine's own namespace. */
        if (a->engine_view == NULL || Py_TYPE(a->engine_view) != dla_state.engine_array_type ||
            (i > 0 && !same_kind((DLAArrayObject *)xs[0], a))) {
            Py_RETURN_NONE;
        }
        views[i] = a->engine_view;
    }
    PyObject *dtype = dla_array_dtype_object((DLAArrayObject *)xs[0]);
    if (dtype == NULL) {
        return NULL; /* cannot happen for an array the core made */
    }
    int ok = PySet_Contains(allowed, dtype);
    if (ok <= 0) {
        if (ok < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    PyObject *result = call_quietly(kernel, views, n, NULL);
    if (result == NULL) {
        return NULL;
    }
    PyObject *array = dla_engine_adopt(module, result);
    Py_DECREF(result);
    return array;
}

PyObject *
dla_engine_unary(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || dla_state.engine_array_type == NULL) {
        PyErr_SetString(PyExc_TypeError, "engine_unary(kernel, allowed, x)");
        return NULL;
    }
    return engine_fast(module, args[0], args[1], args + 2, 1);
}

PyObject *
dla_engine_binary(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || dla_state.engine_array_type == NULL) {
        PyErr_SetString(PyExc_TypeError, "engine_binary(kernel, allowed, x1, x2)");
        return NULL;
    }
    return engine_fast(module, args[0], args[1], args + 2, 2);
}
