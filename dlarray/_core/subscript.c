/*
 * subscript.c -- x[key] for basic keys, and x.T, without leaving C.
 *
 * Basic indexing (integers, slices, Ellipsis, None) only computes a new
 * shape, new strides and a new offset over the same memory, so it needs no
 * engine.  Doing it here makes x[i] cost about what NumPy's does; written in
 * Python it cost forty times more.  Every key this file does not handle --
 * arrays, integer-like objects that are not ints, packed sub-byte arrays
 * (whose views have extra rules) -- goes to the Python method
 * `_getitem_general`, which implements the whole of the standard's indexing
 * and raises the same errors for the keys handled here.
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

PyObject *
dla_array_subscript(PyObject *self_obj, PyObject *key)
{
    DLAArrayObject *self = (DLAArrayObject *)self_obj;
    PyObject *single[1] = {key};
    PyObject *const *items = single;
    Py_ssize_t n_items = 1;
    if (PyTuple_CheckExact(key)) {
        items = &PyTuple_GET_ITEM(key, 0);
        n_items = PyTuple_GET_SIZE(key);
    }
    if (is_packed_subbyte(self)) {
        return general_getitem(self, key);
    }
    if (Py_TYPE(key) == dla_state.array_type) {
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
            if (selected == NULL) {
                return NULL;
            }
            PyObject *result = dla_engine_adopt(NULL, selected);
            Py_DECREF(selected);
            return result;
        }
    }
    int n_ellipsis = 0, n_axes = 0, n_new = 0;
    for (Py_ssize_t i = 0; i < n_items; i++) {
        PyObject *k = items[i];
        if (!is_basic_item(k)) {
            return general_getitem(self, key);
        }
        if (k == Py_Ellipsis) {
            n_ellipsis++;
        }
        else if (k == Py_None) {
            n_new++;
        }
        else {
            n_axes++;
        }
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
                    goto layout_overflow;
                }
                scaled = stride;
            }
            shape[out] = length;
            strides[out++] = scaled;
            if (length > 0) {
                if (dla_mul_overflows((int64_t)start, stride, &moved) ||
                    dla_add_overflows(offset, moved, &offset)) {
                    goto layout_overflow;
                }
            }
            axis++;
        }
        else {
            int overflow;
            long long index = PyLong_AsLongLongAndOverflow(k, &overflow);
            int64_t extent = self->shape[axis];
            if (overflow || index < -extent || index >= extent) {
                if (!PyErr_Occurred()) {
                    PyErr_Format(PyExc_IndexError,
                                 "index %R is out of bounds for axis %d with size %lld",
                                 k, (int)axis, (long long)extent);
                }
                goto done;
            }
            if (index < 0) {
                index += extent;
            }
            int64_t moved;
            if (dla_mul_overflows((int64_t)index, self->strides[axis], &moved) ||
                dla_add_overflows(offset, moved, &offset)) {
                goto layout_overflow;
            }
            axis++;
        }
    }
    /* The parent's byte_offset fits in int64 (dla_array_new checks it). */
    int64_t byte_offset;
    if (dla_mul_overflows(offset, element_bytes(self), &offset) ||
        dla_add_overflows((int64_t)self->byte_offset, offset, &byte_offset)) {
        goto layout_overflow;
    }
    void *data = self->data;
    if (byte_offset < 0) {
        /* The view starts before `data`: a producer's negative-stride view
         * (NumPy's a[::-1] exports data at its last element).  The element
         * is in the producer's memory, so the view's data is its address
         * and its byte_offset 0; the byte_offset field cannot go negative.
         * An address below 0 is a layout that addresses no memory. */
        if (!dla_rebase_before(self->data, byte_offset, &data)) {
            goto layout_overflow;
        }
        byte_offset = 0;
    }
    result = (PyObject *)dla_array_new(self->owner, data, (uint64_t)byte_offset, self->device,
                                       self->dtype, out, shape, strides, self->flags);
    goto done;
layout_overflow:
    /* Only a producer's layout whose strides reach past the address space
     * gets here: no memory has offsets that large. */
    PyErr_Format(PyExc_ValueError,
                 "x[%R]: the view's strides or offset overflow 64-bit byte "
                 "arithmetic, so the array's layout (see x.strides) addresses "
                 "no real memory. Ask its producer for a valid layout",
                 key);
done:
    if (shape != stack_dims) {
        PyMem_Free(shape);
    }
    return result;
}

/* x.T: the axes reversed.  Packed sub-byte arrays go through Python, which
 * refuses views that would not be contiguous. */
PyObject *
dla_array_transpose(PyObject *self_obj, void *closure)
{
    DLAArrayObject *self = (DLAArrayObject *)self_obj;
    if (is_packed_subbyte(self) && self->ndim > 1) {
        return PyObject_CallMethodNoArgs(self_obj, dla_state.str_transpose_general);
    }
    int64_t stack_dims[2 * 16];
    int64_t *shape = stack_dims;
    if (self->ndim > 16) {
        shape = PyMem_Malloc(2 * (size_t)self->ndim * sizeof(int64_t));
        if (shape == NULL) {
            return PyErr_NoMemory();
        }
    }
    int64_t *strides = shape + self->ndim;
    for (int32_t i = 0; i < self->ndim; i++) {
        shape[i] = self->shape[self->ndim - 1 - i];
        strides[i] = self->strides[self->ndim - 1 - i];
    }
    PyObject *result = (PyObject *)dla_array_new(self->owner, self->data, self->byte_offset,
                                                 self->device, self->dtype, self->ndim,
                                                 shape, strides, self->flags);
    if (shape != stack_dims) {
        PyMem_Free(shape);
    }
    return result;
}
