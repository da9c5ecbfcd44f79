/*
 * dlarray_ext_demo.c -- a CPython extension that reads and writes the
 * tensors of any DLPack producer through dlarray's C API.
 *
 * An extension function that takes "any tensor" (a torch.Tensor, a NumPy
 * array, a DLArray, a JAX array...) needs three things from it: where the
 * elements are (a DLTensor), how long that description stays valid, and,
 * on a GPU, which stream to run on.  dlarray_capi.h gives all three with one
 * call, DLArray_API->borrow(), and picks the fastest route the producer
 * offers: a C call into the producer's DLPack exchange table
 * (`type(x).__dlpack_c_exchange_api__`, DLPack 1.3) when its type has one,
 * the Python protocol (`x.__dlpack__()`) when it has not.
 *
 *   total(x)                  sum of the elements of a CPU tensor
 *   scale_(x, factor)         multiply a float tensor in place
 *   table_version(x)          (major, minor) of the table dlarray would use
 *   time_exchanges(x, n, how) ns per exchange, timed in C (the benchmark)
 *   to_dlarray(x)             an owning export made into a DLArray
 *
 * Build: python examples/c_extension/build.py (see README.md there), or by
 * hand with -I "$(python -c 'import dlarray; print(dlarray.get_include())')".
 *
 * Ownership, in one place:
 * - borrow() fills a DLArrayBorrowed.  Its shape, strides and data belong
 *   to the producer (or to a managed tensor that borrow() took and that
 *   release() gives back).  We own nothing in it except the duty to call
 *   release() exactly once, on every path, success or error.
 * - to_managed() and a table's managed_tensor_from_py_object_no_sync give
 *   us a DLManagedTensorVersioned that we own: we must call its deleter
 *   once, or hand it to someone who steals it (managed_tensor_to_py_object).
 * - A capsule from __dlpack__ owns its tensor until a consumer renames it
 *   "used_dltensor_versioned"; from then on the consumer owns the tensor
 *   and the capsule's destructor leaves it alone.
 *
 * The GIL: every call into dlarray's C API and into a producer's table
 * needs it (they may run Python code and report errors as Python
 * exceptions).  We also keep it while reading a borrowed view: a view is
 * valid only while no Python code runs, because Python code (another
 * thread, once the GIL is released) may resize or free the producer's
 * memory.  An extension that must release the GIL around a long kernel
 * takes ownership first, with to_managed(), whose tensor stays valid until
 * its deleter runs.
 */
#define PY_SSIZE_T_CLEAN
#include "dlarray_capi.h" /* includes Python.h, which must come first */

#include <stdbool.h>
#include <string.h>
#include <time.h>

/* ---- describing what we were given ---- */

static const char *
device_name(int32_t device_type)
{
    switch (device_type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLOpenCL: return "kDLOpenCL";
    case kDLVulkan: return "kDLVulkan";
    case kDLMetal: return "kDLMetal";
    case kDLROCM: return "kDLROCM";
    case kDLROCMHost: return "kDLROCMHost";
    case kDLCUDAManaged: return "kDLCUDAManaged";
    case kDLOneAPI: return "kDLOneAPI";
    default: return "an unnamed device type";
    }
}

/* The element types this module computes with. */
typedef enum { ELEM_F32, ELEM_F64, ELEM_I32, ELEM_I64 } ElementKind;

/* 0 with *kind set, or -1 with BufferError naming the dtype.  lanes must
 * be 1: a vector dtype (lanes > 1) packs several values per element. */
static int
element_kind(DLDataType dtype, bool floats_only, const char *func, ElementKind *kind)
{
    if (dtype.lanes == 1) {
        if (dtype.code == kDLFloat && dtype.bits == 32) {
            *kind = ELEM_F32;
            return 0;
        }
        if (dtype.code == kDLFloat && dtype.bits == 64) {
            *kind = ELEM_F64;
            return 0;
        }
        if (!floats_only && dtype.code == kDLInt && dtype.bits == 32) {
            *kind = ELEM_I32;
            return 0;
        }
        if (!floats_only && dtype.code == kDLInt && dtype.bits == 64) {
            *kind = ELEM_I64;
            return 0;
        }
    }
    PyErr_Format(PyExc_BufferError,
                 "%s() supports %s; this tensor's dtype is (code=%d, bits=%d, lanes=%d)",
                 func, floats_only ? "float32 and float64" : "float32, float64, int32 and int64",
                 (int)dtype.code, (int)dtype.bits, (int)dtype.lanes);
    return -1;
}

static int64_t
element_size(ElementKind kind)
{
    return kind == ELEM_F32 || kind == ELEM_I32 ? 4 : 8;
}

/* Borrow `obj` and insist on host memory.  0, or -1 with an exception set
 * and nothing left to release. */
static int
borrow_cpu_tensor(PyObject *obj, const char *func, DLArrayBorrowed *view)
{
    if (DLArray_API->borrow(obj, view) < 0) {
        return -1; /* TypeError (not a producer), BufferError, ... */
    }
    /* A tensor from a capsule arrives as the producer made it; a broken
     * producer must not make us read through a NULL shape. */
    int32_t ndim = view->tensor.ndim;
    if (ndim < 0 || (ndim > 0 && view->tensor.shape == NULL)) {
        DLArray_API->release(view);
        PyErr_Format(PyExc_BufferError,
                     "%s(): the producer gave a malformed tensor (ndim=%d%s)", func, (int)ndim,
                     ndim < 0 ? "" : " with a NULL shape");
        return -1;
    }
    DLDevice device = view->tensor.device;
    if (device.device_type != kDLCPU) {
        /* A GPU kernel would be launched on view->stream here: the
         * producer's current work stream, so that it runs after the work
         * that wrote the tensor, with no synchronisation of the host. */
        DLArray_API->release(view);
        PyErr_Format(PyExc_BufferError,
                     "%s() reads host memory; this tensor is on %s:%d (device_type %d). "
                     "Copy it to the CPU first",
                     func, device_name(device.device_type), (int)device.device_id,
                     (int)device.device_type);
        return -1;
    }
    return 0;
}

/* ---- walking a strided tensor ---- */

/* Called once per innermost row: `count` elements, the first at `first`,
 * each `step` bytes after the previous one (step may be negative or 0). */
typedef void (*RowFunction)(char *first, int64_t count, int64_t step, void *state);

/* Calls `row` for every innermost row of `t`.  0, or -1 with MemoryError.
 *
 * DLPack's rules, all honoured here: strides count elements, not bytes;
 * NULL strides (producers before DLPack 1.2) mean C-contiguous; the first
 * element is at data + byte_offset; a tensor with a zero extent has no
 * elements (and its data may be NULL); a 0-d tensor has one. */
static int
for_each_row(const DLTensor *t, int64_t itemsize, RowFunction row, void *state)
{
    int32_t ndim = t->ndim;
    for (int32_t d = 0; d < ndim; d++) {
        if (t->shape[d] == 0) {
            return 0;
        }
    }
    char *base = (char *)t->data + t->byte_offset;
    if (ndim == 0) {
        row(base, 1, 0, state);
        return 0;
    }
    /* Per dimension: its position and its stride in bytes.  Small tensors
     * use the stack; DLPack sets no limit on ndim. */
    int64_t small[16];
    int64_t *work = ndim <= 8 ? small : PyMem_Malloc(2 * (size_t)ndim * sizeof(int64_t));
    if (work == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t *index = work;
    int64_t *step = work + ndim;
    int64_t contiguous = itemsize;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        index[d] = 0;
        step[d] = t->strides != NULL ? t->strides[d] * itemsize : contiguous;
        contiguous *= t->shape[d];
    }
    /* The offset from `base` is kept as an integer: with negative strides a
     * pointer stepped past the last row could point outside the buffer,
     * which C does not allow even without a dereference. */
    int64_t offset = 0;
    int32_t inner = ndim - 1;
    for (;;) {
        row(base + offset, t->shape[inner], step[inner], state);
        int32_t d = inner - 1;
        for (; d >= 0; d--) { /* the odometer: advance the outer positions */
            offset += step[d];
            if (++index[d] < t->shape[d]) {
                break;
            }
            offset -= step[d] * t->shape[d];
            index[d] = 0;
        }
        if (d < 0) {
            break;
        }
    }
    if (work != small) {
        PyMem_Free(work);
    }
    return 0;
}

/* Loads and stores go through memcpy: DLPack does not promise that data is
 * aligned for its type, and memcpy of a fixed size compiles to one move. */

typedef struct {
    ElementKind kind;
    double sum;
} SumState;

#define SUM_ROW(type)                                      \
    for (int64_t i = 0; i < count; i++) {                  \
        type value;                                        \
        memcpy(&value, first + i * step, sizeof value);    \
        acc += (double)value;                              \
    }

static void
sum_row(char *first, int64_t count, int64_t step, void *state)
{
    SumState *s = state;
    double acc = 0.0; /* int64 values beyond 2**53 lose precision: a demo */
    switch (s->kind) {
    case ELEM_F32: SUM_ROW(float) break;
    case ELEM_F64: SUM_ROW(double) break;
    case ELEM_I32: SUM_ROW(int32_t) break;
    case ELEM_I64: SUM_ROW(int64_t) break;
    }
    s->sum += acc;
}

typedef struct {
    ElementKind kind;
    double factor;
} ScaleState;

/* The product is rounded once, to the element's type. */
#define SCALE_ROW(type)                                    \
    for (int64_t i = 0; i < count; i++) {                  \
        type value;                                        \
        memcpy(&value, first + i * step, sizeof value);    \
        value = (type)((double)value * factor);            \
        memcpy(first + i * step, &value, sizeof value);    \
    }

static void
scale_row(char *first, int64_t count, int64_t step, void *state)
{
    const ScaleState *s = state;
    double factor = s->factor;
    if (s->kind == ELEM_F32) {
        SCALE_ROW(float)
    }
    else {
        SCALE_ROW(double)
    }
}

/* ---- total(x) ---- */

PyDoc_STRVAR(total_doc,
"total(x) -> float\n\n"
"The sum of the elements of x, a CPU tensor of float32, float64, int32\n"
"or int64 from any DLPack producer, read in place (no copy).\n\n"
"Raises TypeError when x is not a DLPack producer, BufferError when its\n"
"memory is not on the CPU or its dtype is not one of those four.");

static PyObject *
total(PyObject *Py_UNUSED(module), PyObject *obj)
{
    DLArrayBorrowed view;
    if (borrow_cpu_tensor(obj, "total", &view) < 0) {
        return NULL;
    }
    /* From here to release() the view is valid: we hold the GIL and run no
     * Python code, so the producer cannot change or free its memory. */
    SumState state = {.sum = 0.0};
    int rc = element_kind(view.tensor.dtype, false, "total", &state.kind);
    if (rc == 0) {
        rc = for_each_row(&view.tensor, element_size(state.kind), sum_row, &state);
    }
    /* On every path: gives back what borrow() took (for a producer
     * without a table, the managed tensor out of its capsule). */
    DLArray_API->release(&view);
    return rc < 0 ? NULL : PyFloat_FromDouble(state.sum);
}

/* ---- scale_(x, factor) ---- */

PyDoc_STRVAR(scale_doc,
"scale_(x, factor) -> None\n\n"
"Multiply x, a float32 or float64 CPU tensor from any DLPack producer, by\n"
"factor in place: the producer's own memory changes.\n\n"
"Raises ValueError when the producer marks the memory READ_ONLY, or when\n"
"the view repeats an element (a stride of 0), BufferError when it is a\n"
"copy (IS_COPIED: the writes would be lost), not on the CPU, or not of a\n"
"float dtype.  A producer that cannot say read-only (a legacy capsule:\n"
"JAX) is written: do not pass immutable arrays.");

/* -1 with an exception when writing through `view` would be wrong. */
static int
check_writable(const DLArrayBorrowed *view)
{
    if (view->flags & DLPACK_FLAG_BITMASK_READ_ONLY) {
        PyErr_SetString(PyExc_ValueError,
                        "scale_(): the producer marked this tensor READ_ONLY; it "
                        "cannot be changed in place");
        return -1;
    }
    if (view->flags & DLPACK_FLAG_BITMASK_IS_COPIED) {
        PyErr_SetString(PyExc_BufferError,
                        "scale_(): the producer exported a copy (IS_COPIED), so "
                        "writing into it would not change the caller's tensor");
        return -1;
    }
    const DLTensor *t = &view->tensor;
    for (int32_t d = 0; t->strides != NULL && d < t->ndim; d++) {
        if (t->strides[d] == 0 && t->shape[d] > 1) {
            PyErr_SetString(PyExc_ValueError,
                            "scale_(): this view repeats elements (a stride of 0), "
                            "so they would be scaled more than once");
            return -1;
        }
    }
    return 0;
}

static PyObject *
scale_(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *obj;
    double factor;
    if (!PyArg_ParseTuple(args, "Od:scale_", &obj, &factor)) {
        return NULL;
    }
    DLArrayBorrowed view;
    if (borrow_cpu_tensor(obj, "scale_", &view) < 0) {
        return NULL;
    }
    ScaleState state = {.factor = factor};
    int rc = element_kind(view.tensor.dtype, true, "scale_", &state.kind);
    if (rc == 0) {
        rc = check_writable(&view);
    }
    if (rc == 0) {
        rc = for_each_row(&view.tensor, element_size(state.kind), scale_row, &state);
    }
    DLArray_API->release(&view);
    if (rc < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ---- table_version(x) ---- */

PyDoc_STRVAR(table_version_doc,
"table_version(x) -> (major, minor) or None\n\n"
"The version of the DLPack C exchange table dlarray would use for\n"
"type(x) (after walking prev_api to a major version 1 table), or None\n"
"when the type has none and dlarray would call x.__dlpack__().");

static PyObject *
table_version(PyObject *Py_UNUSED(module), PyObject *obj)
{
    /* The table lives on the type, not the instance, and dlarray caches
     * the lookup per type: one pointer comparison after the first call. */
    const DLPackExchangeAPI *api = DLArray_API->exchange_api_of(Py_TYPE(obj));
    if (api == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(II)", (unsigned)api->header.version.major,
                         (unsigned)api->header.version.minor);
}

/* ---- time_exchanges(x, n, how) ---- */

static int64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

/* A table function returned -1 (or nothing): the spec says an exception is
 * set; a producer that forgot gets a SystemError rather than a crash. */
static int
producer_failed(PyObject *obj, const char *func)
{
    if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_SystemError, "%.200s's %s failed without setting an exception",
                     Py_TYPE(obj)->tp_name, func);
    }
    return -1;
}

/* The exchange table of type(obj), or NULL with BufferError when it has
 * none (or with the lookup's own error). */
static const DLPackExchangeAPI *
table_of(PyObject *obj)
{
    const DLPackExchangeAPI *api = DLArray_API->exchange_api_of(Py_TYPE(obj));
    if (api == NULL && !PyErr_Occurred()) {
        PyErr_Format(PyExc_BufferError,
                     "%.200s has no DLPack C exchange table (__dlpack_c_exchange_api__) "
                     "that dlarray can use",
                     Py_TYPE(obj)->tp_name);
    }
    return api;
}

/* The loops below are the whole cost being measured: no Python object is
 * created per iteration (except by __dlpack__, which is the point of the
 * "capsule" baseline). */

static int
time_borrow(PyObject *obj, Py_ssize_t n, int64_t *elapsed)
{
    int64_t start = now_ns();
    for (Py_ssize_t i = 0; i < n; i++) {
        DLArrayBorrowed view;
        if (DLArray_API->borrow(obj, &view) < 0) {
            return -1;
        }
        DLArray_API->release(&view);
    }
    *elapsed = now_ns() - start;
    return 0;
}

static int
time_managed(PyObject *obj, Py_ssize_t n, int64_t *elapsed)
{
    const DLPackExchangeAPI *api = table_of(obj);
    if (api == NULL) {
        return -1;
    }
    /* exchange_api_of() returns only tables whose required functions
     * (this one and current_work_stream) are present. */
    int64_t start = now_ns();
    for (Py_ssize_t i = 0; i < n; i++) {
        DLManagedTensorVersioned *m = NULL;
        if (api->managed_tensor_from_py_object_no_sync(obj, &m) != 0 || m == NULL) {
            return producer_failed(obj, "managed_tensor_from_py_object_no_sync");
        }
        /* We own m: the deleter gives back the producer's reference. */
        if (m->deleter != NULL) {
            m->deleter(m);
        }
    }
    *elapsed = now_ns() - start;
    return 0;
}

static int
time_dltensor(PyObject *obj, Py_ssize_t n, int64_t *elapsed)
{
    const DLPackExchangeAPI *api = table_of(obj);
    if (api == NULL) {
        return -1;
    }
    if (api->dltensor_from_py_object_no_sync == NULL) { /* optional in the spec */
        PyErr_Format(PyExc_BufferError,
                     "%.200s's exchange table has no dltensor_from_py_object_no_sync",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int64_t start = now_ns();
    for (Py_ssize_t i = 0; i < n; i++) {
        DLTensor t; /* the producer fills it; nothing to give back */
        if (api->dltensor_from_py_object_no_sync(obj, &t) != 0) {
            return producer_failed(obj, "dltensor_from_py_object_no_sync");
        }
    }
    *elapsed = now_ns() - start;
    return 0;
}

/* Take the tensor out of a fresh capsule and delete it, as a consumer of
 * the Python protocol does.  Steals `capsule`.  0, or -1 with an error. */
static int
consume_capsule(PyObject *capsule)
{
    const char *name = PyCapsule_GetName(capsule);
    if (name != NULL && strcmp(name, "dltensor_versioned") == 0) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(capsule, name);
        /* Renamed first: the tensor is ours, the capsule's destructor will
         * no longer delete it. */
        PyCapsule_SetName(capsule, "used_dltensor_versioned");
        Py_DECREF(capsule);
        if (m != NULL && m->deleter != NULL) {
            m->deleter(m);
        }
        return 0;
    }
    if (name != NULL && strcmp(name, "dltensor") == 0) { /* pre-1.0 producers: JAX */
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, name);
        PyCapsule_SetName(capsule, "used_dltensor");
        Py_DECREF(capsule);
        if (m != NULL && m->deleter != NULL) {
            m->deleter(m);
        }
        return 0;
    }
    /* Not ours to take: the capsule's destructor releases the tensor.  It
     * runs before the error is set, since a destructor written in Python
     * cannot run while an exception is pending. */
    PyErr_Clear();
    Py_DECREF(capsule);
    PyErr_SetString(PyExc_TypeError, "__dlpack__ did not return an unused DLPack capsule");
    return -1;
}

static int
time_capsule(PyObject *obj, Py_ssize_t n, int64_t *elapsed)
{
    /* Built once, outside the timed loop. */
    PyObject *method = PyUnicode_InternFromString("__dlpack__");
    PyObject *max_version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
    PyObject *kwnames = Py_BuildValue("(s)", "max_version");
    int rc = method && max_version && kwnames ? 0 : -1;
    /* obj.__dlpack__(max_version=(1, 3)) by vectorcall: the fastest way C
     * can make the call, so the baseline is not slowed by the caller. */
    PyObject *call_args[2] = {obj, max_version};
    int64_t start = now_ns();
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        PyObject *capsule = PyObject_VectorcallMethod(method, call_args, 1, kwnames);
        rc = capsule == NULL ? -1 : consume_capsule(capsule);
    }
    *elapsed = now_ns() - start;
    if (rc < 0 && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        /* dlarray's taxonomy, as borrow() says it: not a producer. */
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%.200s is not a DLPack producer (no __dlpack__ method)",
                     Py_TYPE(obj)->tp_name);
    }
    Py_XDECREF(method);
    Py_XDECREF(max_version);
    Py_XDECREF(kwnames);
    return rc;
}

PyDoc_STRVAR(time_exchanges_doc,
"time_exchanges(x, n, how) -> float\n\n"
"Mean nanoseconds per exchange of x over n exchanges, timed in C with\n"
"CLOCK_MONOTONIC.  how:\n\n"
"  'borrow'   DLArray_API->borrow + release (dlarray's C API)\n"
"  'managed'  type(x)'s table managed_tensor_from_py_object_no_sync + deleter\n"
"  'dltensor' type(x)'s table dltensor_from_py_object_no_sync\n"
"  'capsule'  x.__dlpack__(max_version=(1, 3)), capsule taken and deleted\n"
"             (the Python protocol, for comparison)\n\n"
"Raises BufferError when type(x) has no table or the table lacks the\n"
"function, ValueError for another how or n < 1.");

static PyObject *
time_exchanges(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *obj;
    Py_ssize_t n;
    const char *how;
    if (!PyArg_ParseTuple(args, "Ons:time_exchanges", &obj, &n, &how)) {
        return NULL;
    }
    if (n < 1) {
        PyErr_Format(PyExc_ValueError, "time_exchanges(): n must be at least 1, got %zd", n);
        return NULL;
    }
    int (*timer)(PyObject *, Py_ssize_t, int64_t *) =
        strcmp(how, "borrow") == 0     ? time_borrow
        : strcmp(how, "managed") == 0  ? time_managed
        : strcmp(how, "dltensor") == 0 ? time_dltensor
        : strcmp(how, "capsule") == 0  ? time_capsule
                                       : NULL;
    if (timer == NULL) {
        PyErr_Format(PyExc_ValueError,
                     "time_exchanges(): how must be 'borrow', 'managed', 'dltensor' or "
                     "'capsule', got '%s'",
                     how);
        return NULL;
    }
    int64_t elapsed = 0;
    if (timer(obj, n, &elapsed) < 0) {
        return NULL;
    }
    return PyFloat_FromDouble((double)elapsed / (double)n);
}

/* ---- to_dlarray(x) ---- */

PyDoc_STRVAR(to_dlarray_doc,
"to_dlarray(x) -> DLArray\n\n"
"An owning export of x (dlarray's to_managed: x's table, or\n"
"x.__dlpack__(max_version=(1, 3))) made into a DLArray by dlarray's own\n"
"table, managed_tensor_to_py_object_no_sync: the round trip of DLPack's C\n"
"exchange API.  The DLArray shares x's memory.\n\n"
"Raises BufferError for a producer that gives only legacy capsules (JAX).");

static PyObject *
to_dlarray(PyObject *Py_UNUSED(module), PyObject *obj)
{
    DLManagedTensorVersioned *managed;
    if (DLArray_API->to_managed(obj, &managed) < 0) {
        return NULL;
    }
    /* `managed` is ours, valid until its deleter runs, with or without the
     * GIL: this is the form to keep a tensor beyond this call.  The
     * function below steals it, even when it fails.  No stream ordering
     * happens ("no_sync"): for a GPU tensor the caller would first order
     * its work after the producer's current_work_stream, as
     * dlarray.from_dlpack does. */
    void *array = NULL;
    if (DLArray_API->exchange_api->managed_tensor_to_py_object_no_sync(managed, &array) != 0) {
        return NULL;
    }
    return (PyObject *)array;
}

/* ---- the module ---- */

static PyMethodDef methods[] = {
    {"total", total, METH_O, total_doc},
    {"scale_", scale_, METH_VARARGS, scale_doc},
    {"table_version", table_version, METH_O, table_version_doc},
    {"time_exchanges", time_exchanges, METH_VARARGS, time_exchanges_doc},
    {"to_dlarray", to_dlarray, METH_O, to_dlarray_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "dlarray_ext_demo",
    .m_doc = "Reading and writing any DLPack producer's tensor through dlarray's C API.",
    .m_size = -1, /* DLArray_API is process-wide state: no subinterpreters */
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit_dlarray_ext_demo(void)
{
    /* Imports dlarray and sets DLArray_API; an ImportError when dlarray is
     * missing or older than the header we were compiled with. */
    if (DLArray_ImportCAPI() < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module_def);
#ifdef Py_GIL_DISABLED
    /* Free-threaded CPython: nothing here is shared between threads but
     * DLArray_API, set once above, under the import lock; dlarray's C API
     * is safe without the GIL.  So the module says it needs no GIL. */
    if (m != NULL && PyUnstable_Module_SetGIL(m, Py_MOD_GIL_NOT_USED) < 0) {
        Py_DECREF(m);
        return NULL;
    }
#endif
    return m;
}
