/*
 * host_adopt.c -- taking the host engine's NumPy results as DLArrays directly.
 *
 * Every namespace call on host memory ends with a NumPy array that must
 * become a DLArray.  Through DLPack that is a __dlpack__ call, a capsule, a
 * managed tensor malloc'd by NumPy and freed by its deleter: as much as a
 * small kernel (docs/benchmarks.md, "The figures behind decisions in the
 * code").  These arrays come from dlarray's own engine and
 * go nowhere else, so the C core reads them the way NumPy's own C code
 * does -- the data pointer, shape, strides and dtype number in NumPy's
 * public array struct -- and the NumPy array itself becomes the DLArray's
 * owner (and its engine view).  Exchanges with every other library stay
 * DLPack; so does any NumPy result this file does not recognise (a dtype
 * outside the table below, byte-swapped or unaligned data), which
 * dla_engine_adopt hands to the DLPack consumer instead.
 *
 * Only NumPy's headers are used, for the struct layout, never its C API
 * table: the core loads without NumPy and calls nothing in it.  The build
 * targets NumPy 2.0's ABI (NPY_TARGET_VERSION below); dlarray needs
 * NumPy >= 2.2 at run time.
 */
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#include "core.h"
#include <numpy/ndarraytypes.h>

/* NumPy's built-in type numbers that DLPack carries: their DLPack dtype.
 * The C integer types are sized by this platform's C compiler, as NumPy's
 * are (long is 32 bits on Windows).  Everything else (long double,
 * strings, objects, datetimes, user dtypes such as ml_dtypes' bfloat16)
 * takes the DLPack route. */
#define INT_CODE(ctype) {kDLInt, (uint8_t)(8 * sizeof(ctype)), 1}
#define UINT_CODE(ctype) {kDLUInt, (uint8_t)(8 * sizeof(ctype)), 1}
static const DLDataType dtype_of_type_num[NPY_NTYPES_LEGACY] = {
    [NPY_BOOL] = {kDLBool, 8, 1},
    [NPY_BYTE] = {kDLInt, 8, 1},
    [NPY_UBYTE] = {kDLUInt, 8, 1},
    [NPY_SHORT] = INT_CODE(short),
    [NPY_USHORT] = UINT_CODE(unsigned short),
    [NPY_INT] = INT_CODE(int),
    [NPY_UINT] = UINT_CODE(unsigned int),
    [NPY_LONG] = INT_CODE(long),
    [NPY_ULONG] = UINT_CODE(unsigned long),
    [NPY_LONGLONG] = INT_CODE(long long),
    [NPY_ULONGLONG] = UINT_CODE(unsigned long long),
    [NPY_HALF] = {kDLFloat, 16, 1},
    [NPY_FLOAT] = {kDLFloat, 32, 1},
    [NPY_DOUBLE] = {kDLFloat, 64, 1},
    [NPY_CFLOAT] = {kDLComplex, 64, 1},
    [NPY_CDOUBLE] = {kDLComplex, 128, 1},
};

bool
dla_is_numpy_array_type(PyTypeObject *type)
{
    /* register_engine's type: NumPy's own ndarray, whose instances have
     * the struct read here (a subclass or another engine's type does not
     * qualify: its results take the DLPack route). */
    return strcmp(type->tp_name, "numpy.ndarray") == 0 &&
           (size_t)type->tp_basicsize >= sizeof(PyArrayObject_fields);
}

PyObject *
dla_adopt_numpy_result(PyObject *result)
{
    PyArrayObject *r = (PyArrayObject *)result;
    PyArray_Descr *descr = PyArray_DESCR(r);
    int type_num = descr->type_num;
    int ndim = PyArray_NDIM(r);
    if (type_num < 0 || type_num >= NPY_NTYPES_LEGACY || ndim > DLA_MAX_NDIM ||
        descr->byteorder == NPY_OPPBYTE ||
        !(PyArray_FLAGS(r) & NPY_ARRAY_ALIGNED)) {
        return Py_NewRef(Py_None);
    }
    DLDataType dtype = dtype_of_type_num[type_num];
    if (dtype.bits == 0) {
        return Py_NewRef(Py_None);
    }
    /* NumPy's strides are in bytes, DLPack's in elements.  The element
     * sizes here are powers of two, so a mask and a shift convert them: a
     * division by a variable takes tens of cycles, per axis, on every
     * result of every operation. */
    int shift = dtype.bits == 8 ? 0 : dtype.bits == 16 ? 1 : dtype.bits == 32 ? 2
              : dtype.bits == 64 ? 3 : 4; /* 128: complex128 */
    uint64_t misaligned = ((uint64_t)1 << shift) - 1;
    int64_t dims[2 * DLA_MAX_NDIM];
    int64_t *shape = dims, *strides = dims + ndim;
    const npy_intp *np_shape = PyArray_DIMS(r), *np_strides = PyArray_STRIDES(r);
    for (int i = 0; i < ndim; i++) {
        int64_t bytes = np_strides[i];
        if ((uint64_t)bytes & misaligned) {
            return Py_NewRef(Py_None);
        }
        shape[i] = np_shape[i];
        /* An exact multiple: the quotient of its magnitude, signed again
         * (no shift of a negative number, whose result C leaves open). */
        uint64_t magnitude = bytes < 0 ? 0 - (uint64_t)bytes : (uint64_t)bytes;
        strides[i] = shift == 0 ? bytes
                     : bytes < 0 ? -(int64_t)(magnitude >> shift)
                                 : (int64_t)(magnitude >> shift);
    }
    uint32_t flags = (PyArray_FLAGS(r) & NPY_ARRAY_WRITEABLE) ? 0 : DLA_FLAG_READONLY;
    DLDevice cpu = {kDLCPU, 0};
    /* dla_array_new's checks hold already: NumPy made this array, so its
     * byte size fits in npy_intp (NumPy's limit is dlarray's) and ndim was
     * checked above; byte_offset is 0. */
    DLAArrayObject *a = dla_array_new_checked(result, PyArray_DATA(r), 0, cpu, dtype, ndim,
                                              shape, strides, flags);
    if (a == NULL) {
        return NULL;
    }
    a->engine_view = Py_NewRef(result);
    return (PyObject *)a;
}
