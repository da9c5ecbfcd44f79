/*
 * engine_call.c -- run a compute-engine kernel and adopt its result.
 *
 * Every namespace operation ends the same way: call the engine's kernel
 * (a NumPy ufunc, say) on zero-copy views of its inputs with the engine's
 * floating-point warnings silenced, then take the result as a DLArray and
 * remember the engine array as its engine view.  In Python those steps
 * cost more than the kernel itself on small arrays, so they are done here.
 * Nothing engine-specific is compiled in: dlarray registers, from Python,
 * the engine's array type, the context variable that holds its error state
 * and the "quiet" value to put in it, a Python fallback for results this
 * path does not take (scalars, dtypes DLPack cannot carry), and the Python
 * function that makes an array's engine view.
 *
 *   register_engine(array_type, error_state_var, quiet_value, fallback, make_view)
 *   engine_call(kernel, *args, **kwargs) -> DLArray
 *
 * What it registers lives in the module state (dla_state.engine_*), where
 * the consumer files read "is this the host engine's array type" without a
 * call into this file.  A NumPy result is taken directly by host_adopt.c;
 * any other through consumer.c's dla_from_dlpack.
 */
#include "core.h"

PyObject *
dla_register_engine(PyObject *module, PyObject *args)
{
    PyObject *type, *var, *quiet, *fallback, *make_view = Py_None;
    if (!PyArg_ParseTuple(args, "O!OOO|O:register_engine", &PyType_Type, &type, &var, &quiet,
                          &fallback, &make_view)) {
        return NULL;
    }
    if (var != Py_None && !PyContextVar_CheckExact(var)) {
        PyErr_SetString(PyExc_TypeError, "register_engine: error_state_var must be a "
                                         "contextvars.ContextVar or None");
        return NULL;
    }
    if (!PyCallable_Check(fallback) || (make_view != Py_None && !PyCallable_Check(make_view))) {
        PyErr_SetString(PyExc_TypeError,
                        "register_engine: fallback and make_view must be callable");
        return NULL;
    }
    Py_XSETREF(dla_state.engine_array_type, (PyTypeObject *)Py_NewRef(type));
    Py_XSETREF(dla_state.engine_error_state_var, Py_NewRef(var));
    Py_XSETREF(dla_state.engine_quiet_value, Py_NewRef(quiet));
    Py_XSETREF(dla_state.engine_fallback_wrap, Py_NewRef(fallback));
    Py_XSETREF(dla_state.engine_make_view, make_view == Py_None ? NULL : Py_NewRef(make_view));
    dla_state.engine_is_numpy = dla_is_numpy_array_type((PyTypeObject *)type);
    PyObject *dlpack = NULL;
    if (PyType_HasFeature((PyTypeObject *)type, Py_TPFLAGS_IMMUTABLETYPE)) {
        dlpack = PyObject_GetAttr(type, dla_state.str_dunder_dlpack);
        if (dlpack == NULL) {
            PyErr_Clear(); /* not a producer: the consumer says so later */
        }
        else if (!Py_IS_TYPE(dlpack, &PyMethodDescr_Type)) {
            Py_CLEAR(dlpack); /* something else (a Python function): look it up */
        }
    }
    Py_XSETREF(dla_state.engine_dlpack, dlpack);
    Py_RETURN_NONE;
}

/* Kernels run inside a context of their own, one per thread, in which the
 * engine's error state is "quiet".  Entering and leaving a context costs a
 * pointer swap; setting and resetting the variable in the caller's context
 * would allocate a new context mapping each time, which costs more than a
 * small kernel (docs/benchmarks.md, "The figures behind decisions in the
 * code").  The price: inside a kernel, other context variables hold
 * the values they had when the thread first called a kernel.  Kernels are
 * pure compute; NumPy reads one more, its memory handler, so a handler
 * installed after that first call does not allocate kernels' results on
 * this thread (docs/design.md, "Re-wrap"). */
static PyObject *make_quiet_context(PyObject *thread_dict);

/* The thread's quiet context, remembered for the thread state that looked
 * it up (a dict lookup per call is a tenth of a small kernel's overhead).
 * Borrowed: the thread state's dict owns it for as long as that thread
 * state lives, and thread-state ids are never reused, so a matching id
 * means the context is still there.  (dlarray's module state is
 * process-wide: one interpreter.) */
static _Thread_local struct {
    uint64_t thread_state_id;
    PyObject *ctx;
} quiet_cache;

static PyObject *
quiet_context(void)
{
    uint64_t id = PyThreadState_GetID(PyThreadState_Get());
    if (quiet_cache.ctx != NULL && quiet_cache.thread_state_id == id) {
        return quiet_cache.ctx;
    }
    PyObject *thread_dict = PyThreadState_GetDict(); /* borrowed */
    if (thread_dict == NULL) {
        return NULL;
    }
    PyObject *ctx = PyDict_GetItemWithError(thread_dict, dla_state.str_quiet_context); /* borrowed */
    if (ctx == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        ctx = make_quiet_context(thread_dict);
        if (ctx == NULL) {
            return NULL;
        }
    }
    quiet_cache.thread_state_id = id;
    quiet_cache.ctx = ctx;
    return ctx;
}

/* A copy of the current context with the engine's error state quiet, kept
 * in the thread's dict (the returned reference is borrowed from it). */
static PyObject *
make_quiet_context(PyObject *thread_dict)
{
    PyObject *ctx = PyContext_CopyCurrent();
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
        if (result != NULL) { /* no exception to keep aside: the usual case */
            if (PyContext_Exit(ctx) < 0) {
                PyErr_WriteUnraisable(ctx);
            }
            return result;
        }
        DLA_SAVE_EXCEPTION(raised);
        if (PyContext_Exit(ctx) < 0) {
            PyErr_WriteUnraisable(ctx);
        }
        DLA_RESTORE_EXCEPTION(raised);
        return NULL;
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
    if (dla_state.engine_is_numpy) {
        PyObject *adopted = dla_adopt_numpy_result(result);
        if (adopted != Py_None) {
            return adopted; /* the array, or NULL with the error */
        }
        Py_DECREF(adopted);
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
    dla_array_set_engine_view((DLAArrayObject *)array, result);
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

/* ---- the common case of a namespace function or an operator, in one call ----
 *
 * dla_engine_fast(kernel, allowed_rows, xs, n, scalars) computes kernel(views...)
 * when the arguments need no rule applied: every argument is a DLArray
 * whose engine view is an array of the host engine's type, all of one
 * dtype in the set `allowed` and on one device -- or, for two arguments
 * with `scalars`, one such array and a Python scalar that joins its dtype
 * -- or two such arrays of two allowed dtypes whose promotion the host
 * engine's kernels make as the standard does, to an allowed dtype (see
 * register_scalar_kernels).  Otherwise it returns None and the caller takes
 * its general path (other promotions, other scalars, errors, making views).
 * The rules stay in Python, which hands their data over once; this only
 * recognises the cases where they have nothing to do.  Its callers are the
 * namespace functions (fast_function.c) and the operators (operators.c), whose
 * kernels and dtypes Python declares in dlarray/_engine/host_fast_path.py. */

/* The promoted dtype's row + 1 for two dtype rows (0: no promotion the fast
 * path makes), from HostEngine.promotions; written once, at import. */
static uint8_t promoted_row[64][64];

/* The dtype table's row of a DType object, or -1 with an exception.  Each
 * DType names its DLPack triple (`dlpack`), whose row the dtype table finds:
 * no registered objects needed, so the namespace's fast functions can be
 * made while dlarray is still importing.  The rows index 64-bit masks. */
static int
row_of_dtype(PyObject *dtype)
{
    PyObject *triple = PyObject_GetAttrString(dtype, "dlpack");
    int code, bits, lanes;
    if (triple == NULL || !PyTuple_Check(triple) ||
        !PyArg_ParseTuple(triple, "iii", &code, &bits, &lanes)) {
        Py_XDECREF(triple);
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%R is no dlarray dtype (no DLPack triple `dlpack`)",
                     dtype);
        return -1;
    }
    Py_DECREF(triple);
    DLDataType dl = {(uint8_t)code, (uint8_t)bits, (uint16_t)lanes};
    const DLADTypeEntry *entry = dla_dtype_find(dl);
    if (entry == NULL) {
        return -1;
    }
    if (entry - dla_dtype_table >= 64) {
        PyErr_SetString(PyExc_SystemError, "the dtype table outgrew a 64-bit mask");
        return -1;
    }
    return (int)(entry - dla_dtype_table);
}

int
dla_read_promotions(PyObject *promotions, uint8_t table[64][64])
{
    if (!PyDict_Check(promotions)) {
        PyErr_SetString(PyExc_TypeError, "promotions must be a dict");
        return -1;
    }
    memset(table, 0, 64 * 64);
    Py_ssize_t at = 0;
    PyObject *pair, *promoted;
    while (PyDict_Next(promotions, &at, &pair, &promoted)) {
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_Format(PyExc_TypeError, "promotions: the key %R is no pair of dtypes", pair);
            return -1;
        }
        int a = row_of_dtype(PyTuple_GET_ITEM(pair, 0));
        int b = a < 0 ? -1 : row_of_dtype(PyTuple_GET_ITEM(pair, 1));
        int p = b < 0 ? -1 : row_of_dtype(promoted);
        if (p < 0) {
            return -1;
        }
        table[a][b] = (uint8_t)(p + 1);
    }
    return 0;
}

void
dla_register_scalar_kernels(PyObject *type, PyObject *joins, const uint8_t promotions[64][64])
{
    memcpy(promoted_row, promotions, sizeof promoted_row);
    Py_XSETREF(dla_state.engine_scalar_kernel_type, (PyTypeObject *)Py_NewRef(type));
    Py_XSETREF(dla_state.engine_scalar_joins, Py_NewRef(joins));
}

static bool
same_device(const DLAArrayObject *a, const DLAArrayObject *b)
{
    return a->device.device_type == b->device.device_type &&
           a->device.device_id == b->device.device_id;
}

static bool
same_kind(const DLAArrayObject *a, const DLAArrayObject *b)
{
    return a->dtype.code == b->dtype.code && a->dtype.bits == b->dtype.bits &&
           a->dtype.lanes == b->dtype.lanes && same_device(a, b);
}

/* The row of a's and b's promoted dtype where the fast path makes that
 * promotion (both on one device), else -1; *b_row: b's dtype row. */
static int
fast_promotion(const DLAArrayObject *a, const DLAArrayObject *b, int *b_row)
{
    int ra = dla_dtype_row(a->dtype), rb = dla_dtype_row(b->dtype);
    if (ra < 0 || rb < 0 || ra >= 64 || rb >= 64 || !same_device(a, b)) {
        return -1;
    }
    *b_row = rb;
    return (int)promoted_row[ra][rb] - 1;
}

/* 1 when `kernel` may take the Python scalar `value` next to an array of
 * `dtype` as it is, 0 when not, -1 on error.  The registered joins table
 * ({float: frozenset of DTypes, ...}) names the dtypes each scalar type
 * takes on unchanged; an int must also fit in 64 bits (a larger one is the
 * general path's to refuse). */
static int
takes_scalar(PyObject *kernel, PyObject *value, PyObject *dtype)
{
    if (dla_state.engine_scalar_joins == NULL ||
        !PyObject_TypeCheck(kernel, dla_state.engine_scalar_kernel_type)) {
        return 0;
    }
    PyObject *joins = PyDict_GetItemWithError(dla_state.engine_scalar_joins,
                                              (PyObject *)Py_TYPE(value)); /* borrowed */
    if (joins == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    int ok = PySet_Contains(joins, dtype);
    if (ok > 0 && PyLong_CheckExact(value)) {
        int overflow;
        (void)PyLong_AsLongLongAndOverflow(value, &overflow);
        ok = overflow == 0;
    }
    return ok;
}

/* The host engine's view of host array `a` (a new reference), made by the
 * registered Python viewer (which caches it on `a`) when `a` has none yet:
 * a fresh view such as x[0] computes here from its first operation.  NULL
 * without an exception when `a` is not the host engine's to compute on. */
static PyObject *
host_engine_view(DLAArrayObject *a)
{
    PyObject *view = dla_array_get_engine_view(a);
    if (view == NULL && a->device.device_type == kDLCPU && dla_state.engine_make_view != NULL) {
        view = PyObject_CallOneArg(dla_state.engine_make_view, (PyObject *)a);
        if (view == NULL) {
            PyErr_Clear(); /* the general path raises it again, with its context */
            return NULL;
        }
    }
    if (view != NULL && Py_TYPE(view) != dla_state.engine_array_type) {
        Py_CLEAR(view);
    }
    return view;
}

uint64_t
dla_allowed_rows(PyObject *allowed)
{
    PyObject *iterator = PyObject_GetIter(allowed);
    if (iterator == NULL) {
        return 0;
    }
    uint64_t rows = 0;
    PyObject *item;
    while ((item = PyIter_Next(iterator)) != NULL) {
        int row = row_of_dtype(item);
        Py_DECREF(item);
        if (row < 0) {
            Py_DECREF(iterator);
            return 0;
        }
        rows |= (uint64_t)1 << row;
    }
    Py_DECREF(iterator);
    if (PyErr_Occurred()) {
        return 0;
    }
    if (rows == 0) {
        PyErr_SetString(PyExc_ValueError, "a fast path needs at least one allowed dtype");
    }
    return rows;
}

/* Whether a result of two promoted operands is of the promoted dtype (the
 * loop the kernel ran is that dtype's, fed exact casts), or bool (a
 * comparison's loop of that dtype). */
static bool
promoted_result(PyObject *array, int promoted)
{
    if (Py_TYPE(array) != dla_state.array_type) {
        return false;
    }
    DLDataType d = ((DLAArrayObject *)array)->dtype;
    return dla_dtype_row(d) == promoted || (d.code == kDLBool && d.bits == 8 && d.lanes == 1);
}

PyObject *
dla_engine_fast(PyObject *kernel, uint64_t allowed_rows, PyObject *const *xs, Py_ssize_t n,
                bool scalars)
{
    DLAArrayObject *first = NULL;
    Py_ssize_t scalar_at = -1;
    int promoted = -1, other_row = -1; /* two arrays of two dtypes: the result's row */
    if (dla_state.engine_array_type == NULL || n > 2) {
        Py_RETURN_NONE;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (Py_TYPE(xs[i]) == dla_state.array_type) {
            DLAArrayObject *a = (DLAArrayObject *)xs[i];
            if (first != NULL && !same_kind(first, a)) {
                if ((promoted = fast_promotion(first, a, &other_row)) < 0) {
                    Py_RETURN_NONE;
                }
            }
            first = first == NULL ? a : first;
        }
        else if (scalars && n == 2 && scalar_at < 0) {
            scalar_at = i;
        }
        else {
            Py_RETURN_NONE;
        }
    }
    if (first == NULL) {
        Py_RETURN_NONE;
    }
    /* Whether the dtype is allowed: a bit of allowed_rows, a mask over the
     * dtype table's rows. */
    int ok, row = dla_dtype_row(first->dtype);
    if (row < 0) {
        Py_RETURN_NONE; /* not a dtype of the table: the general path says why */
    }
    ok = (int)((allowed_rows >> row) & 1);
    if (ok > 0 && scalar_at >= 0) {
        ok = takes_scalar(kernel, xs[scalar_at], PyTuple_GET_ITEM(dla_state.dtype_objects, row));
    }
    if (ok > 0 && promoted >= 0) {
        /* Both dtypes and the result allowed (the general path checks the
         * operands, and the promoted dtype of two allowed ones is allowed),
         * and a kernel that promotes as register_scalar_kernels says. */
        ok = ((allowed_rows >> other_row) & 1) &&
             ((allowed_rows >> promoted) & 1) && dla_state.engine_scalar_kernel_type != NULL &&
             PyObject_TypeCheck(kernel, dla_state.engine_scalar_kernel_type);
    }
    if (ok <= 0) {
        if (ok < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    /* The kernels given here are the host engine's (NumPy's ufuncs); any
     * other engine's array takes the general path, which computes through
     * that engine's own namespace. */
    PyObject *args[2] = {NULL, NULL}; /* new references */
    for (Py_ssize_t i = 0; i < n; i++) {
        args[i] = i == scalar_at ? Py_NewRef(xs[i]) : host_engine_view((DLAArrayObject *)xs[i]);
        if (args[i] == NULL) {
            Py_XDECREF(args[0]);
            Py_RETURN_NONE;
        }
    }
    PyObject *result = call_quietly(kernel, args, n, NULL);
    Py_XDECREF(args[0]);
    Py_XDECREF(args[1]);
    if (result == NULL) {
        /* A ValueError (shapes that do not broadcast, a value the engine
         * refuses) is the general path's to report, in dlarray's words: the
         * kernel made a new array and wrote nothing, so the general path
         * can run the call again. */
        if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        return NULL;
    }
    PyObject *array = dla_engine_adopt(NULL, result);
    Py_DECREF(result);
    if (promoted >= 0 && array != NULL && !promoted_result(array, promoted)) {
        /* A kernel whose loop for these dtypes is not the promoted dtype's
         * (integer divide gives float64): its result is dropped unseen and
         * the general path computes the call by the standard's rules. */
        Py_DECREF(array);
        Py_RETURN_NONE;
    }
    return array;
}
