/*
 * fast_function.c -- namespace functions whose common case runs in C.
 *
 * dlarray.add(x, y) on two small arrays spends as long getting into a
 * Python function as NumPy spends computing.  So the namespace functions
 * that dlarray/_engine/host_fast_path.py lists (the elementwise functions,
 * matmul, the reductions over every axis) are published as objects of this
 * type: calling one with its positional arguments alone tries engine_call.c's fast path
 * (dla_engine_fast: arrays of one allowed dtype on one device, or an array
 * and a Python scalar that joins its dtype) and otherwise calls the Python
 * function it wraps, which applies the standard's rules and raises its
 * errors.  To readers and tools the object is that Python function: its
 * name, docstring and module are the function's, `__wrapped__` leads to it
 * (inspect.signature follows it), and it pickles by name as functions do.
 *
 *   fast_function(kernel, allowed, nargs, general) -> the function
 */
#include "core.h"
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *kernel;  /* the host engine's kernel */
    PyObject *allowed; /* frozenset of the DTypes the fast path takes */
    uint64_t allowed_rows; /* the same, as a mask over the dtype table's rows */
    PyObject *general; /* the Python function: everything else */
    Py_ssize_t nargs;  /* 1 or 2 positional arguments */
    vectorcallfunc vectorcall;
} FastFunctionObject;

static PyObject *
fast_function_vectorcall(PyObject *self_obj, PyObject *const *args, size_t nargsf,
                         PyObject *kwnames)
{
    FastFunctionObject *self = (FastFunctionObject *)self_obj;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == self->nargs && kwnames == NULL) {
        PyObject *result = dla_engine_fast(self->kernel, self->allowed_rows, args,
                                           nargs, nargs == 2);
        if (result != Py_None) {
            return result; /* the array, or NULL with the kernel's error */
        }
        Py_DECREF(result);
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

PyObject *
dla_fast_function(PyObject *module, PyObject *args)
{
    PyObject *kernel, *allowed, *general;
    Py_ssize_t nargs;
    if (!PyArg_ParseTuple(args, "OO!nO:fast_function", &kernel, &PyFrozenSet_Type, &allowed,
                          &nargs, &general)) {
        return NULL;
    }
    if (nargs != 1 && nargs != 2) {
        PyErr_SetString(PyExc_ValueError, "fast_function: nargs must be 1 or 2");
        return NULL;
    }
    if (!PyCallable_Check(kernel) || !PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "fast_function: kernel and general must be callable");
        return NULL;
    }
    uint64_t allowed_rows = dla_allowed_rows(allowed);
    if (allowed_rows == 0) {
        return NULL;
    }
    FastFunctionObject *self = PyObject_GC_New(FastFunctionObject, &DLAFastFunction_Type);
    if (self == NULL) {
        return NULL;
    }
    self->allowed_rows = allowed_rows;
    self->kernel = Py_NewRef(kernel);
    self->allowed = Py_NewRef(allowed);
    self->general = Py_NewRef(general);
    self->nargs = nargs;
    self->vectorcall = fast_function_vectorcall;
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

static int
fast_function_traverse(FastFunctionObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->kernel);
    Py_VISIT(self->allowed);
    Py_VISIT(self->general);
    return 0;
}

static int
fast_function_clear(FastFunctionObject *self)
{
    Py_CLEAR(self->kernel);
    Py_CLEAR(self->allowed);
    Py_CLEAR(self->general);
    return 0;
}

static void
fast_function_dealloc(FastFunctionObject *self)
{
    PyObject_GC_UnTrack(self);
    fast_function_clear(self);
    PyObject_GC_Del(self);
}

/* The wrapped function's attributes, read and written through. */
static PyObject *
get_from_general(FastFunctionObject *self, void *name)
{
    return PyObject_GetAttrString(self->general, (const char *)name);
}

static int
set_on_general(FastFunctionObject *self, PyObject *value, void *name)
{
    return PyObject_SetAttrString(self->general, (const char *)name, value);
}

static PyGetSetDef fast_function_getset[] = {
    {"__name__", (getter)get_from_general, (setter)set_on_general, NULL, "__name__"},
    {"__qualname__", (getter)get_from_general, (setter)set_on_general, NULL, "__qualname__"},
    {"__doc__", (getter)get_from_general, (setter)set_on_general, NULL, "__doc__"},
    {"__module__", (getter)get_from_general, (setter)set_on_general, NULL, "__module__"},
    {"__annotations__", (getter)get_from_general, NULL, NULL, "__annotations__"},
    {NULL},
};

static PyMemberDef fast_function_members[] = {
    {"__wrapped__", T_OBJECT, offsetof(FastFunctionObject, general), READONLY,
     "The Python function that handles every call the fast path does not."},
    {"_kernel", T_OBJECT, offsetof(FastFunctionObject, kernel), READONLY,
     "The host engine's kernel of the fast path."},
    {"_allowed", T_OBJECT, offsetof(FastFunctionObject, allowed), READONLY,
     "The dtypes the fast path takes."},
    {NULL},
};

/* Pickled by name, as functions are: the module attribute of that name. */
static PyObject *
fast_function_reduce(FastFunctionObject *self, PyObject *unused)
{
    return PyObject_GetAttrString(self->general, "__qualname__");
}

static PyMethodDef fast_function_methods[] = {
    {"__reduce__", (PyCFunction)fast_function_reduce, METH_NOARGS, NULL},
    {NULL},
};

static PyObject *
fast_function_repr(FastFunctionObject *self)
{
    return PyObject_Repr(self->general);
}

/* Returns itself when looked up on a class, as a function stored with
 * staticmethod would: having __get__ also makes tools (inspect.isroutine,
 * Sphinx) treat the object as a function. */
static PyObject *
fast_function_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    return Py_NewRef(self);
}

PyTypeObject DLAFastFunction_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dlarray._core.FastFunction",
    .tp_doc = "A namespace function whose common case runs in C (see __wrapped__).",
    .tp_basicsize = sizeof(FastFunctionObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(FastFunctionObject, vectorcall),
    .tp_dealloc = (destructor)fast_function_dealloc,
    .tp_traverse = (traverseproc)fast_function_traverse,
    .tp_clear = (inquiry)fast_function_clear,
    .tp_getset = fast_function_getset,
    .tp_members = fast_function_members,
    .tp_methods = fast_function_methods,
    .tp_repr = (reprfunc)fast_function_repr,
    .tp_descr_get = fast_function_descr_get,
};
