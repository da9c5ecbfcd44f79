/*
 * array.c -- the array object's C half: its fields, views and copies.
 *
 * dlarray.DLArray is a Python subclass of ArrayBase.  The fields a DLPack
 * exchange needs (pointer, device, dtype, shape, strides, owner) live here in
 * C so that exporting and importing never touch Python attributes.
 */
#include "core.h"
#include <string.h>
#include <structmember.h>


/* The element count, refusing a shape whose extents other than zero
 * multiply past int64 even when a zero extent makes the count 0: the
 * C-contiguous strides of such a shape would overflow (NumPy refuses it
 * too: "array is too big"). */
int64_t
dla_shape_product(int32_t ndim, const int64_t *shape)
{
    int64_t nonzero_product = 1;
    bool empty = false;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            PyErr_Format(PyExc_BufferError,
                         "shape[%d] is %lld; DLPack shapes cannot be negative",
                         (int)i, (long long)shape[i]);
            return -1;
        }
        if (shape[i] == 0) {
            empty = true;
        }
        else if (dla_mul_overflows(nonzero_product, shape[i], &nonzero_product)) {
            PyErr_SetString(PyExc_BufferError,
                            "the number of elements in the shape overflows a "
                            "64-bit integer (counting its nonzero extents, which "
                            "set its strides); the tensor is malformed");
            return -1;
        }
    }
    return empty ? 0 : nonzero_product;
}

static PyObject *int64_tuple(int32_t n, const int64_t *values);

/* The too-big refusal: the shape and dtype by name, and the limit. */
static void
refuse_too_big(PyObject *exc, const char *what, int32_t ndim, const int64_t *shape,
               DLDataType dtype)
{
    PyObject *dims = int64_tuple(ndim, shape);
    if (dims == NULL) {
        return;
    }
    dla_refuse_too_big(exc, what, dims, dtype);
    Py_DECREF(dims);
}

void
dla_refuse_too_big(PyObject *exc, const char *what, PyObject *dims, DLDataType dtype)
{
    int row = dla_dtype_row(dtype);
    PyErr_Format(exc,
                 "%s of shape %R and dtype %s is too big: its nonzero extents "
                 "times its %lld-byte elements overflow the limit of %lld "
                 "bytes (2**63 - 1, NumPy's, which holds for an empty array "
                 "too: its strides are computed from those extents); use a "
                 "smaller shape",
                 what, dims, row < 0 ? "(unknown)" : dla_dtype_table[row].name,
                 (long long)dla_element_bytes(dtype), (long long)INT64_MAX);
}

/* Decision: dlarray refuses at the door -- where an array is made or
 * imported -- every shape NumPy could not hold, since every operation of
 * the host engine views the array through NumPy: refused here, the error
 * names the limit; accepted, each later operation failed with NumPy's own
 * message (issue 28). */
int64_t
dla_check_shape_count(PyObject *exc, const char *what, int32_t ndim, const int64_t *shape,
                      DLDataType dtype)
{
    if (ndim > DLA_MAX_NDIM) {
        /* A ValueError also at import (issue 28): a limit of dlarray's, not
         * a tensor DLPack could not describe. */
        PyErr_Format(PyExc_ValueError,
                     "%s has %d dimensions; dlarray arrays have at most %d (NumPy's "
                     "limit, which dlarray's host engine shares); use fewer dimensions",
                     what, (int)ndim, DLA_MAX_NDIM);
        return -1;
    }
    /* One pass: the nonzero extents' product in bytes (the limit) and in
     * elements, which stays below the bytes and so cannot overflow. */
    int64_t bytes = dla_element_bytes(dtype), elements = 1;
    bool too_big = false, empty = false;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            PyErr_Format(exc, "%s has shape[%d] = %lld; an extent cannot be negative",
                         what, (int)i, (long long)shape[i]);
            return -1;
        }
        if (shape[i] == 0) {
            empty = true;
        }
        else if (!too_big) {
            too_big = dla_mul_overflows(bytes, shape[i], &bytes);
            if (!too_big) {
                elements *= shape[i]; /* at most bytes: no overflow */
            }
        }
    }
    if (too_big) {
        refuse_too_big(exc, what, ndim, shape, dtype);
        return -1;
    }
    return empty ? 0 : elements;
}

int
dla_check_shape(PyObject *exc, const char *what, int32_t ndim, const int64_t *shape,
                DLDataType dtype)
{
    return dla_check_shape_count(exc, what, ndim, shape, dtype) < 0 ? -1 : 0;
}

int64_t
dla_array_size(const DLAArrayObject *a)
{
    int64_t n = 1;
    for (int32_t i = 0; i < a->ndim; i++) {
        n *= a->shape[i]; /* checked for overflow when the array was made */
    }
    return n;
}

bool
dla_array_is_c_contiguous(const DLAArrayObject *a)
{
    int64_t expected = 1;
    for (int32_t i = a->ndim - 1; i >= 0; i--) {
        if (a->shape[i] == 0) {
            return true;
        }
        /* The stride of a length-1 axis is never used to address memory. */
        if (a->shape[i] != 1 && a->strides[i] != expected) {
            return false;
        }
        expected *= a->shape[i];
    }
    return true;
}

/* Every exchange makes an array and drops one, so allocation is a good
 * part of an exchange's latency.  Arrays of the registered class are made
 * and freed here without the generic machinery: a few dead ones are kept
 * for reuse (as CPython keeps tuples), and they skip subtype_dealloc, whose
 * work (instance dicts, extra slots, finalizers) dlarray.DLArray does not
 * need: register_array_type checks that it has none. */
#define ARRAY_FREELIST_SIZE 64
static DLAArrayObject *array_freelist[ARRAY_FREELIST_SIZE];
static int array_free_count;

static DLAArrayObject *
array_alloc(void)
{
    if (!DLA_FREELISTS || array_free_count == 0) {
        return (DLAArrayObject *)dla_state.array_type->tp_alloc(dla_state.array_type, 0);
    }
    DLAArrayObject *a = array_freelist[--array_free_count];
    PyObject_Init((PyObject *)a, dla_state.array_type); /* a reference to the class too */
    a->owner = NULL;
    a->engine_view = NULL;
    a->weakreflist = NULL;
    PyObject_GC_Track(a); /* as tp_alloc returns it: tracked, nothing to visit */
    return a;
}

static void
array_release_fields(DLAArrayObject *self)
{
    PyObject_GC_UnTrack(self);
    if (self->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)self);
    }
    if (self->shape != NULL && self->shape != self->inline_dims) {
        PyMem_Free(self->shape);
    }
    self->shape = NULL;
    Py_CLEAR(self->owner);
    Py_CLEAR(self->engine_view);
}

/* tp_dealloc of the registered class (see above). */
static void
registered_array_dealloc(DLAArrayObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    array_release_fields(self);
    if (DLA_FREELISTS && type == dla_state.array_type &&
        array_free_count < ARRAY_FREELIST_SIZE) {
        array_freelist[array_free_count++] = self;
    }
    else {
        type->tp_free((PyObject *)self);
    }
    Py_DECREF(type); /* instances of a heap type hold a reference to it */
}

int
dla_adopt_array_class(PyTypeObject *cls)
{
    while (array_free_count > 0) {
        PyObject_GC_Del(array_freelist[--array_free_count]);
    }
    if (cls != &DLAArrayBase_Type && cls->tp_dictoffset == 0 &&
        cls->tp_basicsize == sizeof(DLAArrayObject) && cls->tp_finalize == NULL &&
        cls->tp_del == NULL && cls->tp_free == PyObject_GC_Del) {
        cls->tp_dealloc = (destructor)registered_array_dealloc;
        return 1;
    }
    return 0;
}

DLAArrayObject *
dla_array_new(PyObject *owner, void *data, uint64_t byte_offset, DLDevice device,
              DLDataType dtype, int32_t ndim, const int64_t *shape,
              const int64_t *strides, uint32_t flags)
{
    /* The invariant every address computation relies on. */
    if (dla_first_element_out_of_range(data, byte_offset)) {
        PyErr_Format(PyExc_BufferError,
                     "byte_offset %llu from data %p overflows the address "
                     "space; the tensor is malformed",
                     (unsigned long long)byte_offset, data);
        return NULL;
    }
    if (dla_check_shape(PyExc_ValueError, "an array", ndim, shape, dtype) < 0) {
        return NULL;
    }
    return dla_array_new_checked(owner, data, byte_offset, device, dtype, ndim, shape,
                                 strides, flags);
}

DLAArrayObject *
dla_array_new_checked(PyObject *owner, void *data, uint64_t byte_offset, DLDevice device,
                      DLDataType dtype, int32_t ndim, const int64_t *shape,
                      const int64_t *strides, uint32_t flags)
{
    DLAArrayObject *a = array_alloc();
    if (a == NULL) {
        return NULL;
    }
    if (ndim > DLA_INLINE_DIMS) {
        a->shape = PyMem_Malloc(2 * (size_t)ndim * sizeof(int64_t));
        if (a->shape == NULL) {
            Py_DECREF(a);
            return (DLAArrayObject *)PyErr_NoMemory();
        }
    }
    else {
        a->shape = a->inline_dims;
    }
    a->strides = a->shape + ndim;
    a->ndim = ndim;
    if (ndim > 0) {
        memcpy(a->shape, shape, (size_t)ndim * sizeof(int64_t));
    }
    if (strides != NULL) {
        /* The stride of an axis of at most one element never addresses
         * memory; one whose byte value does not fit in int64 (a step far
         * past the end, a producer's) is stored as 0, as a new axis's is,
         * so that no byte arithmetic on the layout -- the buffer
         * protocol's, a consumer's -- overflows. */
        int64_t itemsize = dla_element_bytes(dtype), unused;
        for (int32_t i = 0; i < ndim; i++) {
            a->strides[i] = shape[i] <= 1 && dla_mul_overflows(strides[i], itemsize, &unused)
                                ? 0
                                : strides[i];
        }
    }
    else {
        int64_t step = 1;
        for (int32_t i = ndim - 1; i >= 0; i--) {
            a->strides[i] = step;
            step *= shape[i] > 0 ? shape[i] : 1;
        }
    }
    a->data = data;
    a->byte_offset = byte_offset;
    a->device = device;
    a->dtype = dtype;
    a->flags = flags;
    Py_XINCREF(owner);
    a->owner = owner;
    return a;
}

static PyObject *
array_base_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyErr_Format(PyExc_TypeError,
                 "%s objects cannot be constructed directly; make arrays with "
                 "dlarray.asarray, dlarray.empty, dlarray.zeros or "
                 "dlarray.from_dlpack",
                 type->tp_name);
    return NULL;
}

static int
array_traverse(DLAArrayObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->owner);
    Py_VISIT(self->engine_view);
    return 0;
}

static int
array_clear(DLAArrayObject *self)
{
    Py_CLEAR(self->owner);
    Py_CLEAR(self->engine_view);
    return 0;
}

static void
array_dealloc(DLAArrayObject *self)
{
    array_release_fields(self);
    /* For instances of the Python subclass, subtype_dealloc drops the
     * reference to the heap type after this returns. */
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ---- attribute getters ---- */

static PyObject *
int64_tuple(int32_t n, const int64_t *values)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        return NULL;
    }
    for (int32_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

static PyObject *
get_shape(DLAArrayObject *self, void *c)
{
    return int64_tuple(self->ndim, self->shape);
}

static PyObject *
get_strides(DLAArrayObject *self, void *c)
{
    return int64_tuple(self->ndim, self->strides);
}

static PyObject *
get_ndim(DLAArrayObject *self, void *c)
{
    return PyLong_FromLong(self->ndim);
}

PyObject *
dla_array_get_engine_view(DLAArrayObject *a)
{
    PyObject *view;
    Py_BEGIN_CRITICAL_SECTION(a);
    view = Py_XNewRef(a->engine_view);
    Py_END_CRITICAL_SECTION();
    return view;
}

void
dla_array_set_engine_view(DLAArrayObject *a, PyObject *view)
{
    PyObject *replaced;
    Py_BEGIN_CRITICAL_SECTION(a);
    replaced = a->engine_view;
    a->engine_view = Py_XNewRef(view);
    Py_END_CRITICAL_SECTION();
    Py_XDECREF(replaced); /* outside the section: its death may run Python */
}

static PyObject *
get_engine_view(DLAArrayObject *self, void *c)
{
    PyObject *view = dla_array_get_engine_view(self);
    return view != NULL ? view : Py_NewRef(Py_None);
}

static int
set_engine_view(DLAArrayObject *self, PyObject *value, void *c)
{
    dla_array_set_engine_view(self, value == Py_None ? NULL : value);
    return 0;
}

/* The number of elements: checked to fit in int64 when the array was made. */
static PyObject *
get_size(DLAArrayObject *self, void *c)
{
    int64_t n = 1;
    for (int32_t i = 0; i < self->ndim; i++) {
        n *= self->shape[i];
    }
    return PyLong_FromLongLong(n);
}

static PyObject *
get_data(DLAArrayObject *self, void *c)
{
    return PyLong_FromVoidPtr(self->data);
}

static PyObject *
get_byte_offset(DLAArrayObject *self, void *c)
{
    return PyLong_FromUnsignedLongLong(self->byte_offset);
}

static PyObject *
get_dl_dtype(DLAArrayObject *self, void *c)
{
    return Py_BuildValue("(iii)", self->dtype.code, self->dtype.bits,
                         self->dtype.lanes);
}

static PyObject *
get_dl_device(DLAArrayObject *self, void *c)
{
    return Py_BuildValue("(ii)", (int)self->device.device_type,
                         (int)self->device.device_id);
}

static PyObject *
get_readonly(DLAArrayObject *self, void *c)
{
    return PyBool_FromLong(self->flags & DLA_FLAG_READONLY);
}

static PyObject *
get_padded(DLAArrayObject *self, void *c)
{
    return PyBool_FromLong(self->flags & DLA_FLAG_PADDED);
}

static PyObject *
get_owner(DLAArrayObject *self, void *c)
{
    return Py_NewRef(self->owner ? self->owner : Py_None);
}

/* The DType object of this array's dtype-table row.  Looked up here, in C,
 * because every operation reads it: a Python property building a tuple and
 * indexing a dict costs several times more. */
PyObject *
dla_array_dtype_object(const DLAArrayObject *a)
{
    if (dla_state.dtype_objects == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "dlarray has not registered its dtypes");
        return NULL;
    }
    int row = dla_dtype_row(a->dtype);
    if (row < 0) {
        const DLADTypeEntry *e = dla_dtype_find(a->dtype); /* or the error saying why */
        return e == NULL ? NULL : PyTuple_GET_ITEM(dla_state.dtype_objects, e - dla_dtype_table);
    }
    return PyTuple_GET_ITEM(dla_state.dtype_objects, row);
}

static PyObject *
get_dtype(DLAArrayObject *self, void *c)
{
    PyObject *dtype = dla_array_dtype_object(self);
    return dtype == NULL ? NULL : Py_NewRef(dtype);
}

static PyObject *
get_device(DLAArrayObject *self, void *c)
{
    if (dla_state.cpu_device == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "dlarray has not registered its devices");
        return NULL;
    }
    if (self->device.device_type == kDLCPU && self->device.device_id == 0) {
        return Py_NewRef(dla_state.cpu_device);
    }
    return PyObject_CallFunction(dla_state.device_factory, "((ii)O)",
                                 (int)self->device.device_type,
                                 (int)self->device.device_id, self->owner);
}

/* The array's own attributes; module.c adds subscript.c's (T). */
PyGetSetDef dla_array_getset[] = {
    {"dtype", (getter)get_dtype, NULL,
     "The element type (a dlarray.DType)."
     "\n\nExamples\n--------\n>>> import dlarray\n>>> x = dlarray.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n>>> x.dtype\ndlarray.float64\n", NULL},
    {"device", (getter)get_device, NULL,
     "Where the memory lives (a dlarray.Device)."
     "\n\nExamples\n--------\n>>> import dlarray\n>>> x = dlarray.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n>>> x.device\nDevice('cpu', 0)\n", NULL},
    {"shape", (getter)get_shape, NULL,
     "Length of each axis (a tuple)."
     "\n\nExamples\n--------\n>>> import dlarray\n>>> x = dlarray.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n>>> x.shape\n(2, 3)\n", NULL},
    {"ndim", (getter)get_ndim, NULL,
     "Number of axes."
     "\n\nExamples\n--------\n>>> import dlarray\n>>> x = dlarray.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n>>> x.ndim\n2\n", NULL},
    {"size", (getter)get_size, NULL,
     "Number of elements: the product of ``shape`` (1 for a 0-d array)."
     "\n\nExamples\n--------\n>>> import dlarray\n>>> dlarray.zeros((2, 3, 4)).size, dlarray.asarray(7.0).size\n(24, 1)\n", NULL},
    {"_strides", (getter)get_strides, NULL,
     "Step between elements along each axis, in elements.", NULL},
    {"_data", (getter)get_data, NULL,
     "Base address the memory's owner gave (add _byte_offset).", NULL},
    {"_byte_offset", (getter)get_byte_offset, NULL,
     "Bytes from _data to the first element.", NULL},
    {"_dl_dtype", (getter)get_dl_dtype, NULL, "(code, bits, lanes).", NULL},
    {"_dl_device", (getter)get_dl_device, NULL,
     "(device_type, device_id), as __dlpack_device__ returns it.", NULL},
    {"_readonly", (getter)get_readonly, NULL, "True if writes are refused.", NULL},
    {"_padded", (getter)get_padded, NULL,
     "True if sub-byte elements take a byte each.", NULL},
    {"_engine_view", (getter)get_engine_view, (setter)set_engine_view,
     "The compute engine's cached zero-copy view of this array (or None).", NULL},
    {"_owner", (getter)get_owner, NULL,
     "The object keeping the memory alive.", NULL},
    {NULL},
};

/* ---- methods ---- */

/* Parse a tuple of n Python ints into out. */
static int
int64_array_from_tuple(PyObject *tup, Py_ssize_t n, int64_t *out, const char *what)
{
    if (!PyTuple_Check(tup) || PyTuple_GET_SIZE(tup) != n) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of %zd ints", what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tup, i));
        if (out[i] == -1 && PyErr_Occurred()) {
            return -1;
        }
    }
    return 0;
}

/* _view(shape, strides, byte_offset) -> a new array over the same memory.
 * The Python side (dlarray._views) has already worked out that the view stays
 * inside the parent's memory; this only builds it.  A negative byte_offset
 * is a view that starts before `data` (of a producer's negative-stride view:
 * NumPy's a[::-1] exports data at its last element); it gets its first
 * element's address as data, since the byte_offset field is unsigned. */
static PyObject *
array_view(DLAArrayObject *self, PyObject *args)
{
    PyObject *shape_obj, *strides_obj;
    long long byte_offset;
    if (!PyArg_ParseTuple(args, "O!O!L:_view", &PyTuple_Type, &shape_obj,
                          &PyTuple_Type, &strides_obj, &byte_offset)) {
        return NULL;
    }
    void *data = self->data;
    if (byte_offset < 0) {
        if (!dla_rebase_before(self->data, byte_offset, &data)) {
            PyErr_Format(PyExc_ValueError,
                         "the view starts %llu bytes before the array's data pointer, "
                         "below address 0: the array's layout addresses no real memory",
                         (unsigned long long)0 - (unsigned long long)byte_offset);
            return NULL;
        }
        byte_offset = 0;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape_obj);
    if (ndim > DLA_MAX_NDIM) { /* refused by the count alone: shape is not read */
        dla_check_shape(PyExc_ValueError, "an array", (int32_t)Py_MIN(ndim, INT32_MAX), NULL,
                        self->dtype);
        return NULL;
    }
    int64_t *dims = PyMem_Malloc((2 * (size_t)ndim + 1) * sizeof(int64_t));
    if (dims == NULL) {
        return PyErr_NoMemory();
    }
    PyObject *res = NULL;
    if (int64_array_from_tuple(shape_obj, ndim, dims, "shape") == 0 &&
        int64_array_from_tuple(strides_obj, ndim, dims + ndim, "strides") == 0) {
        res = (PyObject *)dla_array_new(self->owner, data, (uint64_t)byte_offset,
                                        self->device, self->dtype, (int32_t)ndim,
                                        dims, dims + ndim, self->flags);
    }
    PyMem_Free(dims);
    return res;
}

/* Copy element bytes of src into dst, both strided (in bytes), same
 * shape.  Recursion depth is ndim; the innermost axis is a tight loop. */
static void
strided_copy(char *dst, const int64_t *dst_strides, const char *src,
             const int64_t *src_strides, const int64_t *shape, int32_t ndim,
             int64_t itemsize)
{
    if (ndim == 0) {
        memcpy(dst, src, (size_t)itemsize);
        return;
    }
    int64_t ds = dst_strides[0], ss = src_strides[0];
    if (ndim == 1) {
        if (ds == itemsize && ss == itemsize) {
            memcpy(dst, src, (size_t)(shape[0] * itemsize));
            return;
        }
        for (int64_t i = 0; i < shape[0]; i++) {
            memcpy(dst + i * ds, src + i * ss, (size_t)itemsize);
        }
        return;
    }
    for (int64_t i = 0; i < shape[0]; i++) {
        strided_copy(dst + i * ds, dst_strides + 1, src + i * ss,
                     src_strides + 1, shape + 1, ndim - 1, itemsize);
    }
}

int
dla_byte_strides(const DLAArrayObject *a, int64_t itemsize, int64_t *out, PyObject *exc,
                 const char *consequence)
{
    for (int32_t i = 0; i < a->ndim; i++) {
        if (dla_mul_overflows(a->strides[i], itemsize, &out[i])) {
            if (a->shape[i] > 1) {
                PyErr_Format(exc,
                             "axis %d's stride of %lld elements is past the address "
                             "space in bytes, %s: its producer's layout addresses no "
                             "real memory",
                             (int)i, (long long)a->strides[i], consequence);
                return -1;
            }
            out[i] = 0; /* one element: the stride is never used */
        }
    }
    return 0;
}

static char *
first_element(const DLAArrayObject *a)
{
    return dla_offset_pointer(a->data, a->byte_offset);
}

/* _copy_from(src): copy src's elements into self (same shape, same storage
 * width).  Host memory only: callers check the device. */
static PyObject *
array_copy_from(DLAArrayObject *self, PyObject *src_obj)
{
    if (!DLAArray_Check(src_obj)) {
        PyErr_SetString(PyExc_TypeError, "_copy_from expects a DLArray");
        return NULL;
    }
    DLAArrayObject *src = (DLAArrayObject *)src_obj;
    if (self->flags & DLA_FLAG_READONLY) {
        PyErr_SetString(PyExc_ValueError,
                        "cannot copy into a read-only array; make a writable "
                        "copy first");
        return NULL;
    }
    int dst_bits = dla_storage_bits(self->dtype, self->flags & DLA_FLAG_PADDED);
    int src_bits = dla_storage_bits(src->dtype, src->flags & DLA_FLAG_PADDED);
    if (self->ndim != src->ndim ||
        memcmp(self->shape, src->shape, (size_t)self->ndim * sizeof(int64_t)) != 0 ||
        dst_bits != src_bits) {
        PyErr_SetString(PyExc_ValueError,
                        "_copy_from needs arrays of the same shape and element width");
        return NULL;
    }
    int64_t n = dla_array_size(self);
    if (n == 0) {
        Py_RETURN_NONE;
    }
    if (dst_bits < 8) {
        /* Packed sub-byte arrays are always C-contiguous (see _views.py) and
         * start on a byte boundary, so a byte copy is exact. */
        int64_t nbytes = dla_nbytes(n, self->dtype, false);
        memcpy(first_element(self), first_element(src), (size_t)nbytes);
        Py_RETURN_NONE;
    }
    int64_t itemsize = dst_bits / 8, steps[2 * DLA_MAX_NDIM];
    if (dla_byte_strides(self, itemsize, steps, PyExc_ValueError, "so it cannot be copied") < 0 ||
        dla_byte_strides(src, itemsize, steps + DLA_MAX_NDIM, PyExc_ValueError,
                         "so it cannot be copied") < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    strided_copy(first_element(self), steps, first_element(src), steps + DLA_MAX_NDIM,
                 self->shape, self->ndim, itemsize);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *
array_is_c_contiguous(DLAArrayObject *self, PyObject *unused)
{
    return PyBool_FromLong(dla_array_is_c_contiguous(self));
}

/* The array's own methods; module.c adds those of export.c (__dlpack__,
 * __dlpack_device__) and subscript.c (the views) to the type. */
PyMethodDef dla_array_methods[] = {
    {"_view", (PyCFunction)array_view, METH_VARARGS,
     "_view(shape, strides, byte_offset) -> array sharing this memory, as it is "
     "(a twin with the same layout, a span); views go through _subview."},
    {"_copy_from", (PyCFunction)array_copy_from, METH_O,
     "_copy_from(src): copy src's elements into this host array."},
    {"_is_c_contiguous", (PyCFunction)array_is_c_contiguous, METH_NOARGS,
     "True if elements are laid out in C order without gaps."},
    {NULL},
};

static PyMemberDef array_members[] = {
    {NULL},
};

PyTypeObject DLAArrayBase_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dlarray._core.ArrayBase",
    .tp_doc = "The C half of dlarray.DLArray: memory, layout and DLPack export.",
    .tp_basicsize = sizeof(DLAArrayObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = array_base_new,
    .tp_dealloc = (destructor)array_dealloc,
    .tp_traverse = (traverseproc)array_traverse,
    .tp_clear = (inquiry)array_clear,
    .tp_weaklistoffset = offsetof(DLAArrayObject, weakreflist),
    .tp_members = array_members,
    /* tp_methods, tp_getset, tp_as_mapping, tp_as_buffer, tp_as_number and
     * tp_richcompare: module.c's assemble_array_type, from the files that
     * implement them (all above this one). */
};
