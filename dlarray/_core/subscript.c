/*
 * subscript.c -- views: x[key] for basic keys, x.T, and the one rule every
 * view follows (dla_make_view), without leaving C.
 *
 * Basic indexing (integers, slices, Ellipsis, None) only computes a new
 * shape, new strides and a new offset over the same memory, so it needs no
 * engine.  Doing it here makes x[i] cost about what NumPy's does; written in
 * Python it cost forty times more.  x[key] with any other key -- arrays,
 * integer-like objects that are not ints -- goes to the Python method
 * `_getitem_general` (the indexing chapter), which gives the basic part of
 * its keys back to this file (ArrayBase._basic_view).  Every other view
 * (reshape, permute_dims, ...) is made by ArrayBase._subview, so that the
 * rule of packed sub-byte views and the 64-bit layout checks are written
 * once, here.
 */
#include "core.h"

/* Bytes between consecutive elements in memory, for address arithmetic. */
static int64_t
element_bytes(const DLAArrayObject *a)
{
    return a->dtype.bits < 8 ? 1 : a->dtype.bits / 8;
}

static bool
is_packed_subbyte(const DLAArrayObject *a)
{
    return a->dtype.bits < 8 && !(a->flags & DLA_FLAG_PADDED);
}

static PyObject *
general_getitem(DLAArrayObject *self, PyObject *key)
{
    return PyObject_CallMethodOneArg((PyObject *)self, dla_state.str_getitem_general, key);
}

static bool
is_basic_item(PyObject *k)
{
    return k == Py_None || k == Py_Ellipsis || PySlice_Check(k) ||
           (PyLong_CheckExact(k));
}

/* The error of a view whose layout leaves 64-bit byte arithmetic: only a
 * producer's layout whose strides reach past the address space gets there,
 * as no memory has offsets that large. */
static PyObject *
layout_overflow(void)
{
    PyErr_SetString(PyExc_ValueError,
                    "the view's strides or offset overflow 64-bit byte arithmetic, so the "
                    "array's layout (see x.strides) addresses no real memory. Ask its "
                    "producer for a valid layout");
    return NULL;
}

/* Whether a layout is C-contiguous, axes of extent 1 aside. */
static bool
c_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides)
{
    int64_t expected = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        if (shape[i] != 1 && strides[i] != expected) {
            return false;
        }
        if (dla_mul_overflows(expected, shape[i], &expected)) {
            return false;
        }
    }
    return true;
}

/* The rule itself, inlined into x[key]'s path (dla_make_view below is the
 * same for the other files). */
static inline PyObject *
make_view(DLAArrayObject *self, int32_t ndim, const int64_t *shape, const int64_t *strides,
          int64_t offset_elements)
{
    int64_t offset_bytes;
    if (is_packed_subbyte(self)) {
        int64_t offset_bits;
        if (dla_mul_overflows(offset_elements, self->dtype.bits, &offset_bits) ||
            offset_bits % 8 != 0 || !c_contiguous(ndim, shape, strides)) {
            PyObject *dtype = dla_array_dtype_object(self); /* borrowed */
            PyObject *name = dtype ? PyObject_GetAttrString(dtype, "name") : NULL;
            if (name != NULL) {
                PyErr_Format(PyExc_ValueError,
                             "this view of a packed %S array would not be C-contiguous or "
                             "would start inside a byte; packed sub-byte elements have no "
                             "address of their own. Unpack the data first (dlarray.subbyte)",
                             name);
                Py_DECREF(name);
            }
            return NULL;
        }
        offset_bytes = offset_bits / 8;
    }
    else if (dla_mul_overflows(offset_elements, element_bytes(self), &offset_bytes)) {
        return layout_overflow();
    }
    /* The parent's byte_offset fits in int64 (dla_array_new checks it). */
    int64_t byte_offset;
    if (dla_add_overflows((int64_t)self->byte_offset, offset_bytes, &byte_offset)) {
        return layout_overflow();
    }
    void *data = self->data;
    if (byte_offset < 0) {
        /* The view starts before `data`: a producer's negative-stride view
         * (NumPy's a[::-1] exports data at its last element).  The element
         * is in the producer's memory, so the view's data is its address
         * and its byte_offset 0; the byte_offset field cannot go negative.
         * An address below 0 is a layout that addresses no memory. */
        if (!dla_rebase_before(self->data, byte_offset, &data)) {
            return layout_overflow();
        }
        byte_offset = 0;
    }
    return (PyObject *)dla_array_new(self->owner, data, (uint64_t)byte_offset, self->device,
                                     self->dtype, ndim, shape, strides, self->flags);
}

PyObject *
dla_make_view(DLAArrayObject *self, int32_t ndim, const int64_t *shape,
              const int64_t *strides, int64_t offset_elements)
{
    return make_view(self, ndim, shape, strides, offset_elements);
}

/* An integer item of a key as a C index: an int, or any object with
 * __index__ but a bool (a bool is no index, as for Python's sequences).
 * 0, or -1 with an exception; *too_big when it does not fit in 64 bits. */
static int
index_item(PyObject *k, long long *index, bool *too_big, PyObject **as_int)
{
    if (PyBool_Check(k) || !PyIndex_Check(k)) {
        /* The words of the indexing chapter's message (indexing_object.py,
         * _VALID_INDICES), which checks a key's items before they get here. */
        PyErr_Format(PyExc_TypeError,
                     "only integers, slices, Ellipsis (...), None and integer or boolean "
                     "arrays are valid indices, got %R",
                     k);
        return -1;
    }
    *as_int = PyNumber_Index(k);
    if (*as_int == NULL) {
        return -1;
    }
    int overflow;
    *index = PyLong_AsLongLongAndOverflow(*as_int, &overflow);
    *too_big = overflow != 0;
    return *index == -1 && PyErr_Occurred() ? -1 : 0;
}

/* x[key] for a key of basic items (integers, slices, ..., None) given as
 * `items`: a view, computed here and only here (ArrayBase._basic_view gives
 * it to the Python indexing chapter). */
static inline PyObject *
basic_view(DLAArrayObject *self, PyObject *const *items, Py_ssize_t n_items)
{
    int n_ellipsis = 0, n_axes = 0, n_new = 0;
    for (Py_ssize_t i = 0; i < n_items; i++) {
        PyObject *k = items[i];
        n_ellipsis += k == Py_Ellipsis;
        n_new += k == Py_None;
        n_axes += k != Py_Ellipsis && k != Py_None;
    }
    if (n_ellipsis > 1) {
        PyErr_SetString(PyExc_IndexError,
                        "an index can only have a single ellipsis ('...')");
        return NULL;
    }
    if (n_axes > self->ndim) {
        PyErr_Format(PyExc_IndexError,
                     "too many indices: the array has %d axes, the index uses %d",
                     (int)self->ndim, n_axes);
        return NULL;
    }

    int64_t stack_dims[2 * 16];
    int32_t max_ndim = self->ndim + n_new;
    int64_t *shape = stack_dims;
    if (max_ndim > 16) {
        shape = PyMem_Malloc(2 * (size_t)max_ndim * sizeof(int64_t));
        if (shape == NULL) {
            return PyErr_NoMemory();
        }
    }
    int64_t *strides = shape + max_ndim;
    int32_t out = 0, axis = 0;
    int64_t offset = 0; /* in elements */
    bool ellipsis_seen = false;
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i <= n_items; i++) {
        PyObject *k;
        if (i == n_items) {
            if (ellipsis_seen) {
                break;
            }
            k = Py_Ellipsis; /* a key without ... ends with an implicit one */
        }
        else {
            k = items[i];
        }
        if (k == Py_None) {
            shape[out] = 1;
            strides[out++] = 0;
        }
        else if (k == Py_Ellipsis) {
            ellipsis_seen = true;
            for (int32_t j = 0; j < self->ndim - n_axes; j++, axis++) {
                shape[out] = self->shape[axis];
                strides[out++] = self->strides[axis];
            }
        }
        else if (PySlice_Check(k)) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(k, &start, &stop, &step) < 0) {
                goto done;
            }
            Py_ssize_t length =
                PySlice_AdjustIndices((Py_ssize_t)self->shape[axis], &start, &stop, step);
            int64_t stride = self->strides[axis], scaled, moved;
            /* A stride times step that does not fit can only come from a
             * step past the axis' end, where at most one element is taken
             * and the stride is never used to address memory: it keeps the
             * parent's (and dla_array_new stores 0 for one whose byte
             * value does not fit either). */
            if (dla_mul_overflows(stride, (int64_t)step, &scaled)) {
                if (length > 1) {
                    layout_overflow();
                    goto done;
                }
                scaled = stride;
            }
            shape[out] = length;
            strides[out++] = scaled;
            if (length > 0) {
                if (dla_mul_overflows((int64_t)start, stride, &moved) ||
                    dla_add_overflows(offset, moved, &offset)) {
                    layout_overflow();
                    goto done;
                }
            }
            axis++;
        }
        else {
            long long index;
            bool too_big;
            PyObject *as_int = NULL; /* a new reference, for a key that is no int */
            int64_t extent = self->shape[axis];
            if (PyLong_CheckExact(k)) { /* the common key, without __index__ */
                int overflow;
                index = PyLong_AsLongLongAndOverflow(k, &overflow);
                too_big = overflow != 0;
            }
            else if (index_item(k, &index, &too_big, &as_int) < 0) {
                Py_XDECREF(as_int);
                goto done;
            }
            if (too_big || index < -extent || index >= extent) {
                PyErr_Format(PyExc_IndexError,
                             "index %R is out of bounds for axis %d with size %lld",
                             as_int != NULL ? as_int : k, (int)axis, (long long)extent);
                Py_XDECREF(as_int);
                goto done;
            }
            Py_XDECREF(as_int);
            if (index < 0) {
                index += extent;
            }
            int64_t moved;
            if (dla_mul_overflows((int64_t)index, self->strides[axis], &moved) ||
                dla_add_overflows(offset, moved, &offset)) {
                layout_overflow();
                goto done;
            }
            axis++;
        }
    }
    result = make_view(self, out, shape, strides, offset);
done:
    if (shape != stack_dims) {
        PyMem_Free(shape);
    }
    return result;
}

/* The items of a key: the tuple's, or the key alone. */
#define KEY_ITEMS(key, items, n_items)                 \
    PyObject *single_[1] = {key};                      \
    PyObject *const *items = single_;                  \
    Py_ssize_t n_items = 1;                            \
    if (PyTuple_CheckExact(key)) {                     \
        items = &PyTuple_GET_ITEM(key, 0);             \
        n_items = PyTuple_GET_SIZE(key);               \
    }

static PyObject *
dla_array_subscript(PyObject *self_obj, PyObject *key)
{
    DLAArrayObject *self = (DLAArrayObject *)self_obj;
    KEY_ITEMS(key, items, n_items)
    if (Py_TYPE(key) == dla_state.array_type && !is_packed_subbyte(self)) {
        /* x[mask]: a bool array on x's device, both already viewed by the
         * engine, selects through the engine (no floating-point work, so
         * no quiet context).  Everything else about arrays as keys, and
         * every error message, is the Python path's. */
        DLAArrayObject *k = (DLAArrayObject *)key;
        PyObject *view = dla_engine_view(self_obj), *mask = dla_engine_view(key);
        if (k->dtype.code == kDLBool && view != NULL && mask != NULL &&
            k->device.device_type == self->device.device_type &&
            k->device.device_id == self->device.device_id) {
            PyObject *selected = PyObject_GetItem(view, mask);
            Py_DECREF(view);
            Py_DECREF(mask);
            if (selected == NULL) {
                return NULL;
            }
            PyObject *result = dla_engine_adopt(NULL, selected);
            Py_DECREF(selected);
            return result;
        }
        Py_XDECREF(view);
        Py_XDECREF(mask);
    }
    for (Py_ssize_t i = 0; i < n_items; i++) {
        if (!is_basic_item(items[i])) {
            return general_getitem(self, key);
        }
    }
    return basic_view(self, items, n_items);
}

/* ArrayBase._basic_view(key): x[key] for a key of basic items, integer-like
 * objects included; the Python indexing chapter calls it for the keys it
 * finds basic (with 0-d integer arrays made Python ints). */
static PyObject *
dla_array_basic_view(PyObject *self_obj, PyObject *key)
{
    KEY_ITEMS(key, items, n_items)
    return basic_view((DLAArrayObject *)self_obj, items, n_items);
}

/* ArrayBase._subview(shape, strides, offset): a view of the same memory
 * with this layout (in elements), starting `offset` elements from the
 * first; the views of dlarray._views and the manipulation chapter. */
static PyObject *
dla_array_subview(PyObject *self_obj, PyObject *args)
{
    PyObject *shape_obj, *strides_obj;
    long long offset;
    if (!PyArg_ParseTuple(args, "O!O!L:_subview", &PyTuple_Type, &shape_obj, &PyTuple_Type,
                          &strides_obj, &offset)) {
        return NULL;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape_obj);
    if (ndim > DLA_MAX_NDIM || PyTuple_GET_SIZE(strides_obj) != ndim) {
        if (ndim > DLA_MAX_NDIM) {
            dla_check_shape(PyExc_ValueError, "an array", (int32_t)Py_MIN(ndim, INT32_MAX),
                            NULL, ((DLAArrayObject *)self_obj)->dtype);
        }
        else {
            PyErr_SetString(PyExc_TypeError, "_subview: strides must be as long as shape");
        }
        return NULL;
    }
    int64_t dims[2 * DLA_MAX_NDIM];
    for (Py_ssize_t i = 0; i < 2 * ndim; i++) {
        PyObject *item = i < ndim ? PyTuple_GET_ITEM(shape_obj, i)
                                  : PyTuple_GET_ITEM(strides_obj, i - ndim);
        int overflow;
        dims[i] = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (dims[i] == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (overflow) {
            return layout_overflow();
        }
    }
    return dla_make_view((DLAArrayObject *)self_obj, (int32_t)ndim, dims, dims + ndim, offset);
}

/* x.T: the axes reversed (a packed sub-byte array with more than one axis
 * of extent above 1 is refused by dla_make_view's rule). */
static PyObject *
dla_array_transpose(PyObject *self_obj, void *closure)
{
    DLAArrayObject *self = (DLAArrayObject *)self_obj;
    int64_t dims[2 * DLA_MAX_NDIM];
    int64_t *shape = dims, *strides = dims + self->ndim;
    for (int32_t i = 0; i < self->ndim; i++) {
        shape[i] = self->shape[self->ndim - 1 - i];
        strides[i] = self->strides[self->ndim - 1 - i];
    }
    return dla_make_view(self, self->ndim, shape, strides, 0);
}

/* The array type's views (module.c adds them to the type). */
PyMethodDef dla_view_methods[] = {
    {"_subview", (PyCFunction)dla_array_subview, METH_VARARGS,
     "_subview(shape, strides, offset) -> a view of this memory with this layout "
     "(in elements) from `offset` elements on, by the rule of views (subscript.c)."},
    {"_basic_view", (PyCFunction)dla_array_basic_view, METH_O,
     "_basic_view(key) -> x[key] for a key of integers, slices, ... and None."},
    {NULL},
};

PyGetSetDef dla_view_getset[] = {
    {"T", dla_array_transpose, NULL,
     "The array with its axes reversed (a view sharing the memory)."
     "\n\nExamples\n--------\n>>> import dlarray\n>>> x = dlarray.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n>>> x.T.shape\n(3, 2)\n>>> float(x.T[0, 1]) == float(x[1, 0])\nTrue\n>>> from dlarray import abi\n>>> abi.data_pointer(x.T) == abi.data_pointer(x)  # a view: the same memory\nTrue\n", NULL},
    {NULL},
};

PyMappingMethods dla_array_as_mapping = {
    .mp_subscript = dla_array_subscript,
};
