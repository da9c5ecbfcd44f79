/*
 * operators.c -- the array's binary operators and comparisons.
 *
 * `x + y` is the namespace's add(x, y), and on small arrays most of its time
 * is the way there: a Python method, a table lookup, a call.  So the
 * operators are slots of ArrayBase: each tries the C fast path of its
 * elementwise function (engine_call.c's dla_engine_fast: arrays of one
 * allowed dtype on one device, or one array and a Python scalar that joins
 * its dtype) and otherwise calls the array's Python method
 *
 *   x._operator(name, other, reflected)
 *
 * (dlarray/_array.py), which applies the standard's rules and raises its
 * errors; `name` is the namespace function the operator means ("add" for
 * +), `reflected` says whether x was the right operand.  The in-place
 * operators stay Python methods: they write into their left operand, and
 * that has rules of their own.
 *
 * The fast paths come from DLArray._operator_kernels, read once by
 * register_array_type (module.c): {name: (kernel, allowed DTypes)}, a name
 * left out having none.  @ takes no Python scalars; the comparisons have
 * no reflected form (Python reflects them by swapping the comparison).
 */
#include "core.h"

typedef enum {
    OP_ADD,
    OP_SUBTRACT,
    OP_MULTIPLY,
    OP_DIVIDE,
    OP_FLOOR_DIVIDE,
    OP_REMAINDER,
    OP_POW,
    OP_BITWISE_AND,
    OP_BITWISE_OR,
    OP_BITWISE_XOR,
    OP_LEFT_SHIFT,
    OP_RIGHT_SHIFT,
    OP_MATMUL,
    OP_LESS, /* the comparisons, in the order of Py_LT ... Py_GE */
    OP_LESS_EQUAL,
    OP_EQUAL,
    OP_NOT_EQUAL,
    OP_GREATER,
    OP_GREATER_EQUAL,
    OP_COUNT
} Operator;

/* The namespace function each operator means, by the names of the kernels'
 * table (DLArray._operator_kernels, read by register_array_type). */
static const char *const operator_names[OP_COUNT] = {
    "add",         "subtract",   "multiply",           "divide",
    "floor_divide", "remainder", "pow",                "bitwise_and",
    "bitwise_or",  "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "matmul",      "less",       "less_equal",         "equal",
    "not_equal",   "greater",    "greater_equal",
};

typedef struct {
    PyObject *name;      /* the function's name, for x._operator(name, ...) */
    PyObject *kernel;    /* the fast path's kernel, or NULL */
    PyObject *allowed;   /* its frozenset of DTypes */
    uint64_t allowed_rows; /* the same, as a mask over the dtype table's rows */
} OperatorEntry;

/* Registered once, at import; read by every operator call.  (Process-wide,
 * as the rest of dla_state: dlarray is one module per process.) */
static OperatorEntry operators[OP_COUNT];

static void
clear_entry(OperatorEntry *e)
{
    Py_CLEAR(e->name);
    Py_CLEAR(e->kernel);
    Py_CLEAR(e->allowed);
    e->allowed_rows = 0;
}

/* From DLArray._operator_kernels: {name: (kernel, frozenset of DTypes)}. */
PyObject *
dla_register_operators(PyObject *module, PyObject *table)
{
    if (!PyDict_Check(table)) {
        PyErr_SetString(PyExc_TypeError, "_operator_kernels must be a dict");
        return NULL;
    }
    OperatorEntry fresh[OP_COUNT] = {0};
    for (int op = 0; op < OP_COUNT; op++) {
        fresh[op].name = PyUnicode_InternFromString(operator_names[op]);
        if (fresh[op].name == NULL) {
            goto fail;
        }
        PyObject *row = PyDict_GetItemWithError(table, fresh[op].name); /* borrowed */
        if (row == NULL) {
            if (PyErr_Occurred()) {
                goto fail;
            }
            continue; /* no fast path */
        }
        PyObject *kernel, *allowed;
        if (!PyTuple_Check(row) || !PyArg_ParseTuple(row, "OO!", &kernel, &PyFrozenSet_Type,
                                                     &allowed)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "_operator_kernels[%R] must be (kernel, frozenset of dtypes)",
                         fresh[op].name);
            goto fail;
        }
        if ((fresh[op].allowed_rows = dla_allowed_rows(allowed)) == 0) {
            goto fail;
        }
        fresh[op].kernel = Py_NewRef(kernel);
        fresh[op].allowed = Py_NewRef(allowed);
    }
    for (int op = 0; op < OP_COUNT; op++) {
        clear_entry(&operators[op]);
        operators[op] = fresh[op];
    }
    Py_RETURN_NONE;
fail:
    for (int op = 0; op < OP_COUNT; op++) {
        clear_entry(&fresh[op]);
    }
    return NULL;
}

/* `left OP right`, one of them an array of ours: the fast path, else the
 * array's Python method _operator (reflected when the array is the right
 * operand: Python asks it after the left one declined). */
static PyObject *
operate(Operator op, PyObject *left, PyObject *right)
{
    const OperatorEntry *e = &operators[op];
    if (e->name == NULL) {
        Py_RETURN_NOTIMPLEMENTED; /* dlarray has not registered its array class */
    }
    if (e->kernel != NULL) {
        PyObject *operands[2] = {left, right};
        PyObject *result = dla_engine_fast(e->kernel, e->allowed_rows, operands, 2,
                                           op != OP_MATMUL);
        if (result != Py_None) {
            return result; /* the array, or NULL with the error */
        }
        Py_DECREF(result);
    }
    bool reflected = !DLAArray_Check(left);
    if (reflected && op >= OP_LESS) {
        Py_RETURN_NOTIMPLEMENTED; /* comparisons: Python swaps them instead */
    }
    PyObject *args[4] = {reflected ? right : left, e->name, reflected ? left : right,
                         reflected ? Py_True : Py_False};
    return PyObject_VectorcallMethod(dla_state.str_operator, args, 4, NULL);
}

#define BINARY_SLOT(slot, op) \
    static PyObject *slot(PyObject *left, PyObject *right) { return operate(op, left, right); }

BINARY_SLOT(array_add, OP_ADD)
BINARY_SLOT(array_subtract, OP_SUBTRACT)
BINARY_SLOT(array_multiply, OP_MULTIPLY)
BINARY_SLOT(array_divide, OP_DIVIDE)
BINARY_SLOT(array_floor_divide, OP_FLOOR_DIVIDE)
BINARY_SLOT(array_remainder, OP_REMAINDER)
BINARY_SLOT(array_and, OP_BITWISE_AND)
BINARY_SLOT(array_or, OP_BITWISE_OR)
BINARY_SLOT(array_xor, OP_BITWISE_XOR)
BINARY_SLOT(array_left_shift, OP_LEFT_SHIFT)
BINARY_SLOT(array_right_shift, OP_RIGHT_SHIFT)
BINARY_SLOT(array_matmul, OP_MATMUL)

static PyObject *
array_power(PyObject *left, PyObject *right, PyObject *modulo)
{
    if (modulo != Py_None) {
        Py_RETURN_NOTIMPLEMENTED; /* pow(x, y, m): Python raises TypeError */
    }
    return operate(OP_POW, left, right);
}

PyNumberMethods dla_array_as_number = {
    .nb_add = array_add,
    .nb_subtract = array_subtract,
    .nb_multiply = array_multiply,
    .nb_true_divide = array_divide,
    .nb_floor_divide = array_floor_divide,
    .nb_remainder = array_remainder,
    .nb_power = array_power,
    .nb_and = array_and,
    .nb_or = array_or,
    .nb_xor = array_xor,
    .nb_lshift = array_left_shift,
    .nb_rshift = array_right_shift,
    .nb_matrix_multiply = array_matmul,
};

/* Python calls this with an array of ours first: for `other < x` it asks
 * x for `x > other` (Py_LT ... Py_GE map onto OP_LESS ... in order). */
PyObject *
dla_array_richcompare(PyObject *self, PyObject *other, int comparison)
{
    return operate((Operator)(OP_LESS + comparison), self, other);
}
