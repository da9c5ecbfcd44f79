/*
 * buffer.c -- the buffer protocol (PEP 3118) of the array object.
 *
 * memoryview(x), bytes(x), struct and NumPy's np.asarray read an array's
 * elements through this protocol without DLPack.  It describes host memory
 * only: the buffer holds a plain pointer that the caller will dereference.
 *
 * Decisions:
 * - Plain host memory (kDLCPU) is served here directly.  Any other memory
 *   asks the array's `_prepare_host_access` (the memory family decides:
 *   pinned, managed and SYCL shared/host memory are readable once the
 *   device's pending work is done; device memory raises TypeError, and the
 *   protocol never copies it to the host behind the caller's back).
 * - The format comes from the dtype table's buffer_format column, in
 *   native byte order and sizes.  Types PEP 3118 has no code for (bfloat16,
 *   the fp8/fp6/fp4 formats, packed sub-byte elements) raise BufferError:
 *   labelling them "B" or "H" would hand out bits that read as wrong
 *   numbers.
 * - Read-only arrays refuse a writable request with BufferError, as
 *   PyBuffer_FillInfo does.  A consumer that asks for no strides gets the
 *   buffer only when the elements are C-contiguous; one that asks for
 *   Fortran or "any" contiguity gets what it asked for or BufferError.
 * - Shape and strides are converted to Py_ssize_t (bytes) into one block
 *   kept in view->internal and freed by releasebuffer.
 */
#include "core.h"

/* Whether the elements, with these byte strides, are laid out without gaps
 * in Fortran order (first axis fastest). */
static bool
is_f_contiguous(const DLAArrayObject *a, Py_ssize_t itemsize)
{
    int64_t expected = itemsize, stride_bytes;
    for (int32_t i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 0) {
            return true;
        }
        if (a->shape[i] != 1 &&
            (dla_mul_overflows(a->strides[i], itemsize, &stride_bytes) ||
             stride_bytes != expected)) {
            return false;
        }
        expected *= a->shape[i]; /* within int64: dla_check_shape's limit */
    }
    return true;
}

/* The strides in bytes, as Py_ssize_t, into out[]; -1 with BufferError when
 * one that addresses memory does not fit (dla_byte_strides, the one rule:
 * an axis of at most one element reports 0). */
static int
byte_strides(const DLAArrayObject *a, Py_ssize_t itemsize, Py_ssize_t *out)
{
    int64_t bytes[DLA_MAX_NDIM];
    if (dla_byte_strides(a, itemsize, bytes, PyExc_BufferError,
                         "so the buffer protocol cannot describe this array") < 0) {
        return -1;
    }
    for (int32_t i = 0; i < a->ndim; i++) {
        /* (Py_ssize_t is int64_t wherever dlarray's 64-bit layouts can be
         * addressed; a narrower one refuses like an overflow.) */
        if (bytes[i] > PY_SSIZE_T_MAX || bytes[i] < PY_SSIZE_T_MIN) {
            PyErr_Format(PyExc_BufferError,
                         "axis %d's stride of %lld bytes does not fit in this "
                         "platform's Py_ssize_t, so the buffer protocol cannot "
                         "describe this array", (int)i, (long long)bytes[i]);
            return -1;
        }
        out[i] = (Py_ssize_t)bytes[i];
    }
    return 0;
}

static int
refuse_contiguity(const char *wanted)
{
    PyErr_Format(PyExc_BufferError,
                 "the buffer protocol asked for a %s buffer, and this array's "
                 "elements are not laid out that way (it is a strided view); "
                 "make a contiguous copy first with dlarray.asarray(x, copy=True)",
                 wanted);
    return -1;
}

static int
array_getbuffer(DLAArrayObject *self, Py_buffer *view, int flags)
{
    view->obj = NULL;
    if (dla_device_family(self->device.device_type) != DLA_FAMILY_HOST) {
        /* The family of the array's memory decides (see the top). */
        PyObject *r = PyObject_CallMethodNoArgs((PyObject *)self,
                                                dla_state.str_host_access);
        if (r == NULL) {
            return -1;
        }
        Py_DECREF(r);
    }
    const DLADTypeEntry *entry = dla_dtype_find(self->dtype);
    if (entry == NULL) {
        return -1;
    }
    if (entry->buffer_format == NULL && self->dtype.bits < 8) {
        PyErr_Format(PyExc_BufferError,
                     "the buffer protocol (PEP 3118) has no format for %s "
                     "elements, and this array packs them below a byte each, "
                     "so memoryview and bytes cannot describe it; read its codes "
                     "with dlarray.subbyte.to_codes(x), or pad it "
                     "(dlarray.subbyte.pad(x)) and read that with np.asarray "
                     "(NumPy holds padded %s through ml_dtypes), or convert it "
                     "first, e.g. dlarray.astype(x, dlarray.float32)",
                     entry->name, entry->name);
        return -1;
    }
    if (entry->buffer_format == NULL) {
        PyErr_Format(PyExc_BufferError,
                     "the buffer protocol (PEP 3118) has no format for %s "
                     "elements, so memoryview and bytes cannot describe this "
                     "array; read it with np.asarray(x) instead (zero-copy, "
                     "where NumPy holds it through ml_dtypes; np.from_dlpack(x) "
                     "too from NumPy 2.5 with ml_dtypes 0.7), or convert it "
                     "first, e.g. dlarray.astype(x, dlarray.float32)",
                     entry->name);
        return -1;
    }
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && (self->flags & DLA_FLAG_READONLY)) {
        PyErr_SetString(PyExc_BufferError,
                        "a writable buffer was asked for, and this array is "
                        "read-only (memory its producer marked READ_ONLY, or a "
                        "broadcast view); make a writable copy with "
                        "dlarray.asarray(x, copy=True)");
        return -1;
    }
    Py_ssize_t itemsize = (Py_ssize_t)(self->dtype.bits / 8);
    bool c_contiguous = dla_array_is_c_contiguous(self);
    if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c_contiguous) {
        return refuse_contiguity("C-contiguous");
    }
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS &&
        !is_f_contiguous(self, itemsize)) {
        return refuse_contiguity("Fortran-contiguous");
    }
    if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c_contiguous &&
        !is_f_contiguous(self, itemsize)) {
        return refuse_contiguity("contiguous");
    }
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c_contiguous) {
        return refuse_contiguity("C-contiguous (strides were not asked for)");
    }

    Py_ssize_t *dims = NULL;
    if (self->ndim > 0) {
        dims = PyMem_Malloc(2 * (size_t)self->ndim * sizeof(Py_ssize_t));
        if (dims == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (int32_t i = 0; i < self->ndim; i++) {
            dims[i] = (Py_ssize_t)self->shape[i];
        }
        if (byte_strides(self, itemsize, dims + self->ndim) < 0) {
            PyMem_Free(dims);
            return -1;
        }
    }
    view->buf = dla_offset_pointer(self->data, self->byte_offset);
    view->obj = Py_NewRef((PyObject *)self);
    view->len = (Py_ssize_t)dla_array_size(self) * itemsize;
    view->itemsize = itemsize;
    view->readonly = (self->flags & DLA_FLAG_READONLY) ? 1 : 0;
    view->ndim = (int)self->ndim;
    view->format = (flags & PyBUF_FORMAT) ? (char *)entry->buffer_format : NULL;
    view->shape = (flags & PyBUF_ND) ? dims : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES && dims ? dims + self->ndim : NULL;
    view->suboffsets = NULL;
    view->internal = dims;
    return 0;
}

static void
array_releasebuffer(DLAArrayObject *self, Py_buffer *view)
{
    PyMem_Free(view->internal);
    view->internal = NULL;
}

PyBufferProcs dla_array_as_buffer = {
    .bf_getbuffer = (getbufferproc)array_getbuffer,
    .bf_releasebuffer = (releasebufferproc)array_releasebuffer,
};
