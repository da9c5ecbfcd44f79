/*
 * import.c -- the consumer: turning a DLPack capsule into a DLArray.
 *
 * Ownership moves in one step.  Everything that can fail (checks, Python
 * allocations) happens first while the capsule still owns the tensor; only
 * when nothing can fail any more is the capsule renamed "used_..." and the
 * tensor handed to an ImportedTensor, whose death calls the producer's
 * deleter exactly once.  So on every error path the producer's capsule
 * destructor remains responsible, and no path calls the deleter twice.
 */
#include "core.h"
#include <string.h>

/* ---- ImportedTensor: owns one producer tensor ---- */

typedef struct {
    PyObject_HEAD
    void *managed;     /* DLManagedTensorVersioned* or DLManagedTensor* */
    bool versioned;
    bool via_table;    /* came through the producer's C exchange table */
    DLPackVersion version; /* (0, 0) for legacy tensors */
    uint64_t flags;
    /* The dlarray.Device of this memory where (device_type, device_id) does
     * not say it all: kDLOneAPI is one device type for three SYCL memory
     * kinds.  Set by the SYCL import check; NULL otherwise. */
    PyObject *assigned_device;
} DLAImportedTensorObject;

static DLTensor *
imported_dltensor(DLAImportedTensorObject *self)
{
    return self->versioned
               ? &((DLManagedTensorVersioned *)self->managed)->dl_tensor
               : &((DLManagedTensor *)self->managed)->dl_tensor;
}

/* Calls a producer's deleter with any pending exception kept aside: a
 * deleter may run Python code (a ctypes producer's, a Python-made
 * capsule's), which cannot run while an exception is set, and an array
 * dying while an exception propagates (`int(x, 10)`) must not lose it. */
void
dla_call_deleter(void *managed, bool versioned)
{
    DLA_SAVE_EXCEPTION(pending);
    if (versioned) {
        DLManagedTensorVersioned *m = managed;
        if (m->deleter != NULL) {
            m->deleter(m);
        }
    }
    else {
        DLManagedTensor *m = managed;
        if (m->deleter != NULL) {
            m->deleter(m);
        }
    }
    DLA_RESTORE_EXCEPTION(pending);
}

/* Every import makes one of these, and latency is the point of an
 * exchange: a few dead ones are kept for reuse, as CPython keeps floats,
 * sparing the allocator a free and a malloc per import. */
#define IMPORTED_FREELIST_SIZE 32
static DLAImportedTensorObject *imported_freelist[IMPORTED_FREELIST_SIZE];
static int imported_free_count;

static DLAImportedTensorObject *
imported_new(void)
{
    if (imported_free_count > 0) {
        DLAImportedTensorObject *self = imported_freelist[--imported_free_count];
        return (DLAImportedTensorObject *)PyObject_Init((PyObject *)self,
                                                        &DLAImportedTensor_Type);
    }
    return PyObject_New(DLAImportedTensorObject, &DLAImportedTensor_Type);
}

static void
imported_dealloc(DLAImportedTensorObject *self)
{
    if (self->managed != NULL) {
        dla_call_deleter(self->managed, self->versioned);
        self->managed = NULL;
    }
    Py_CLEAR(self->assigned_device);
    if (imported_free_count < IMPORTED_FREELIST_SIZE) {
        imported_freelist[imported_free_count++] = self;
        return;
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
imported_get_pointer(DLAImportedTensorObject *self, void *c)
{
    if (self->managed == NULL) { /* seen by the SYCL check, before ownership moves */
        Py_RETURN_NONE;
    }
    DLTensor *t = imported_dltensor(self);
    return PyLong_FromVoidPtr(dla_offset_pointer(t->data, t->byte_offset));
}

static PyObject *
imported_get_device(DLAImportedTensorObject *self, void *c)
{
    if (self->managed == NULL) {
        Py_RETURN_NONE;
    }
    DLTensor *t = imported_dltensor(self);
    return Py_BuildValue("(ii)", (int)t->device.device_type, (int)t->device.device_id);
}

static PyObject *
imported_get_version(DLAImportedTensorObject *self, void *c)
{
    return Py_BuildValue("(II)", self->version.major, self->version.minor);
}

static PyObject *
imported_get_flags(DLAImportedTensorObject *self, void *c)
{
    return PyLong_FromUnsignedLongLong(self->flags);
}

static PyObject *
imported_get_versioned(DLAImportedTensorObject *self, void *c)
{
    return PyBool_FromLong(self->versioned);
}

static PyObject *
imported_get_via_table(DLAImportedTensorObject *self, void *c)
{
    return PyBool_FromLong(self->via_table);
}

static PyObject *
imported_get_assigned_device(DLAImportedTensorObject *self, void *c)
{
    return Py_NewRef(self->assigned_device ? self->assigned_device : Py_None);
}

static int
imported_set_assigned_device(DLAImportedTensorObject *self, PyObject *value, void *c)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "assigned_device cannot be deleted");
        return -1;
    }
    Py_XSETREF(self->assigned_device, value == Py_None ? NULL : Py_NewRef(value));
    return 0;
}

static PyGetSetDef imported_getset[] = {
    {"assigned_device", (getter)imported_get_assigned_device,
     (setter)imported_set_assigned_device,
     "The dlarray.Device dlarray assigned to this memory (SYCL USM kinds), "
     "or None.", NULL},
    {"pointer", (getter)imported_get_pointer, NULL,
     "Address of the first element (data + byte_offset).", NULL},
    {"device", (getter)imported_get_device, NULL,
     "(device_type, device_id) as the producer gave it.", NULL},
    {"version", (getter)imported_get_version, NULL,
     "DLPack version of the tensor; (0, 0) for a legacy capsule.", NULL},
    {"flags", (getter)imported_get_flags, NULL,
     "The producer's DLPACK_FLAG_BITMASK_* bits (0 for legacy).", NULL},
    {"versioned", (getter)imported_get_versioned, NULL,
     "True if it is a versioned tensor (a 'dltensor_versioned' capsule, or "
     "the producer's C exchange table).", NULL},
    {"via_table", (getter)imported_get_via_table, NULL,
     "True if it came through the producer's C exchange table, not a capsule.", NULL},
    {NULL},
};

PyTypeObject DLAImportedTensor_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dlarray._core.ImportedTensor",
    .tp_doc = "Owner of a tensor imported through DLPack; calls the "
              "producer's deleter when it dies.",
    .tp_basicsize = sizeof(DLAImportedTensorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)imported_dealloc,
    .tp_getset = imported_getset,
};

/* ---- validation ---- */

static bool
device_type_known(int32_t type)
{
    return (type >= kDLCPU && type <= kDLOpenCL) || (type >= kDLVulkan && type <= kDLTrn);
}

/* Checks a producer's DLTensor; fills *flags_out (DLA_FLAG_*) on success. */
static int
validate_tensor(const DLTensor *t, uint64_t dl_flags, uint32_t *flags_out)
{
    if (t->ndim < 0) {
        PyErr_Format(PyExc_BufferError,
                     "the DLPack tensor has ndim=%d; a tensor's ndim cannot be "
                     "negative (the producer is broken)",
                     (int)t->ndim);
        return -1;
    }
    if (t->ndim > 0 && t->shape == NULL) {
        PyErr_Format(PyExc_BufferError,
                     "the DLPack tensor has ndim=%d but shape=NULL; shape may "
                     "be NULL only for 0-d tensors (the producer is broken)",
                     (int)t->ndim);
        return -1;
    }
    if (!device_type_known(t->device.device_type)) {
        PyErr_Format(PyExc_BufferError,
                     "unknown DLPack device type %d; dlarray knows the device "
                     "types of DLPack 1.3 (1-4, 7-18)",
                     (int)t->device.device_type);
        return -1;
    }
    if (dla_dtype_find(t->dtype) == NULL) {
        return -1;
    }
    bool padded = t->dtype.bits < 8 &&
                  (dl_flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED);
    int64_t count = dla_shape_product(t->ndim, t->shape);
    if (count < 0 || dla_nbytes(count, t->dtype, padded) < 0) {
        return -1;
    }
    if (dla_first_element_out_of_range(t->data, t->byte_offset)) {
        PyErr_Format(PyExc_BufferError,
                     "the DLPack tensor has byte_offset=%llu, which from data=%p "
                     "overflows the address space (the producer is broken)",
                     (unsigned long long)t->byte_offset, t->data);
        return -1;
    }
    if (count > 0 && t->data == NULL) {
        PyErr_SetString(PyExc_BufferError,
                        "the DLPack tensor has elements but data=NULL (the "
                        "producer is broken)");
        return -1;
    }
    if (t->dtype.bits < 8 && !padded && t->strides != NULL) {
        /* Packed sub-byte elements have no byte address of their own, so
         * dlarray keeps such arrays C-contiguous. */
        int64_t expected = 1;
        for (int32_t i = t->ndim - 1; i >= 0; i--) {
            if (t->shape[i] != 1 && t->strides[i] != expected && count > 0) {
                PyErr_SetString(PyExc_BufferError,
                                "the DLPack tensor holds packed sub-byte "
                                "elements with non-contiguous strides; dlarray "
                                "imports packed sub-byte data only in C order. "
                                "Ask the producer for a contiguous copy");
                return -1;
            }
            expected *= t->shape[i];
        }
    }
    *flags_out = (padded ? DLA_FLAG_PADDED : 0) |
                 ((dl_flags & DLPACK_FLAG_BITMASK_READ_ONLY) ? DLA_FLAG_READONLY : 0);
    return 0;
}

/* ---- taking ownership ---- */

/* Nothing past `flags` may be read at another major version: the spec
 * says to call the deleter, which happens before the exception is set (a
 * deleter may run Python code, which cannot run with an exception set). */
int
dla_refuse_other_major(DLManagedTensorVersioned *managed)
{
    if (managed->version.major == DLPACK_MAJOR_VERSION) {
        return 0;
    }
    DLPackVersion version = managed->version;
    dla_call_deleter(managed, true);
    PyErr_Format(PyExc_BufferError,
                 "the producer sent a DLPack %u.%u tensor; dlarray reads major "
                 "version %d only (it speaks DLPack %d.%d). The tensor was "
                 "released",
                 version.major, version.minor, DLPACK_MAJOR_VERSION,
                 DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
    return -1;
}

/* Checks a producer's tensor and builds the array that will own it.  The
 * array's ImportedTensor does not own the tensor yet (commit_import does
 * that once nothing can fail), so on failure the caller still does. */
static PyObject *
prepare_import(void *managed, bool versioned)
{
    DLTensor *t;
    DLPackVersion version = {0, 0};
    uint64_t dl_flags = 0;
    if (versioned) {
        DLManagedTensorVersioned *m = managed;
        version = m->version;
        dl_flags = m->flags;
        t = &m->dl_tensor;
    }
    else {
        t = &((DLManagedTensor *)managed)->dl_tensor;
    }
    uint32_t flags;
    if (validate_tensor(t, dl_flags, &flags) < 0) {
        return NULL;
    }
    DLAImportedTensorObject *owner = imported_new();
    if (owner == NULL) {
        return NULL;
    }
    owner->managed = NULL; /* set by commit_import */
    owner->assigned_device = NULL;
    owner->versioned = versioned;
    owner->via_table = false; /* dla_adopt_from_table says otherwise */
    owner->version = version;
    owner->flags = dl_flags;
    /* DLPack: "for vanilla CPU memory, pinned memory, or managed memory,
     * [device_id] is set to 0".  Each of those is one memory for the whole
     * machine; a producer that numbers it otherwise (with its current GPU,
     * say) still hands over that memory, so it arrives as device 0, as
     * NumPy and PyTorch treat host memory (the owner keeps the producer's
     * pair). */
    DLDevice device = t->device;
    if (device.device_type == kDLCPU || device.device_type == kDLCUDAHost ||
        device.device_type == kDLCUDAManaged) {
        device.device_id = 0;
    }
    /* Legacy producers predate NULL-strides being forbidden (DLPack 1.2);
     * NULL means C-contiguous, which dla_array_new computes. */
    PyObject *array = (PyObject *)dla_array_new(
        (PyObject *)owner, t->data, t->byte_offset, device, t->dtype,
        t->ndim, t->shape, t->strides, flags);
    Py_DECREF(owner); /* the array holds it now */
    if (array == NULL) {
        return NULL;
    }
    /* SYCL USM is usable only through dpctl, which must recognise the
     * pointer in the device's default context (dpctl's kDLOneAPI rules). */
    if (device.device_type == kDLOneAPI) {
        if (dla_state.sycl_importer == NULL) {
            Py_DECREF(array);
            PyErr_SetString(PyExc_BufferError, "dlarray's SYCL support is not loaded");
            return NULL;
        }
        PyObject *ok = PyObject_CallOneArg(dla_state.sycl_importer, array);
        if (ok == NULL) {
            Py_DECREF(array);
            return NULL;
        }
        Py_DECREF(ok);
    }
    return array;
}

static void
commit_import(PyObject *array, void *managed)
{
    PyObject *owner = ((DLAArrayObject *)array)->owner;
    ((DLAImportedTensorObject *)owner)->managed = managed;
}

PyObject *
dla_adopt_from_table(DLManagedTensorVersioned *managed)
{
    PyObject *array = dla_adopt_versioned(managed);
    if (array != NULL) {
        PyObject *owner = ((DLAArrayObject *)array)->owner;
        ((DLAImportedTensorObject *)owner)->via_table = true;
    }
    return array;
}

PyObject *
dla_adopt_versioned(DLManagedTensorVersioned *managed)
{
    if (dla_refuse_other_major(managed) < 0) {
        return NULL;
    }
    PyObject *array = prepare_import(managed, true);
    if (array == NULL) {
        dla_call_deleter(managed, true); /* keeps the refusal set */
        return NULL;
    }
    commit_import(array, managed);
    return array;
}

/* ---- consume(capsule) ---- */

/* The managed tensor in a DLPack capsule, still owned by the capsule:
 * *versioned says which struct it is.  NULL with an exception for anything
 * that is not an unconsumed DLPack capsule. */
void *
dla_capsule_tensor(PyObject *capsule, bool *versioned)
{
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError,
                     "expected a DLPack capsule (from x.__dlpack__()), got %.200s",
                     Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    /* The common case first, with one name comparison. */
    const char *name = PyCapsule_GetName(capsule);
    if (name != NULL && name[0] == 'd' && strcmp(name, "dltensor_versioned") == 0) {
        *versioned = true;
        return PyCapsule_GetPointer(capsule, name);
    }
    if (name == NULL && PyErr_Occurred()) {
        return NULL;
    }
    if (name != NULL && strcmp(name, "dltensor") == 0) {
        *versioned = false;
        return PyCapsule_GetPointer(capsule, name);
    }
    if (name != NULL && strncmp(name, "used_dltensor", 13) == 0) {
        PyErr_Format(PyExc_ValueError,
                     "this DLPack capsule ('%s') was already consumed; a "
                     "capsule can be imported only once. Call x.__dlpack__() "
                     "again for a new one",
                     name);
        return NULL;
    }
    PyErr_Format(PyExc_TypeError,
                 "expected a capsule named 'dltensor' or "
                 "'dltensor_versioned', got one named %s%s%s",
                 name ? "'" : "", name ? name : "NULL", name ? "'" : "");
    return NULL;
}

int
dla_capsule_take(PyObject *capsule, bool versioned)
{
    return PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned"
                                                : "used_dltensor");
}

PyObject *
dla_consume_capsule(PyObject *module, PyObject *capsule)
{
    bool versioned;
    void *managed = dla_capsule_tensor(capsule, &versioned);
    if (managed == NULL) {
        return NULL;
    }
    if (versioned &&
        ((DLManagedTensorVersioned *)managed)->version.major != DLPACK_MAJOR_VERSION) {
        /* The spec says to call the deleter, so the capsule is ours. */
        if (dla_capsule_take(capsule, true) < 0) {
            return NULL;
        }
        dla_refuse_other_major(managed);
        return NULL;
    }
    /* Everything that can fail happens while the capsule still owns the
     * tensor, so on every error path its destructor remains responsible. */
    PyObject *array = prepare_import(managed, versioned);
    if (array == NULL) {
        return NULL;
    }
    if (dla_capsule_take(capsule, versioned) < 0) {
        Py_DECREF(array);
        return NULL;
    }
    commit_import(array, managed);
    return array;
}

/* ---- from_dlpack(x, /, *, device=None, copy=None) ---- */

/* The Python implementation of the whole protocol (dlarray._consumer),
 * registered at import; the C function below handles only the common case
 * -- no device, no copy -- because that case is latency-critical. */
static PyObject *general_from_dlpack = NULL;

PyObject *
dla_set_general_from_dlpack(PyObject *module, PyObject *func)
{
    Py_XSETREF(general_from_dlpack, Py_NewRef(func));
    Py_RETURN_NONE;
}

/* 1 if asking `x` with no stream (stream=None) is right, 0 if the Python
 * path must choose the stream, -1 with an exception set.
 *
 * None is right for host memory, and for CUDA memory whenever dlarray's
 * work stream is the legacy default stream, which None names: always while
 * CuPy (whose current stream dlarray adopts) has not been imported.  Only
 * then does this cost a __dlpack_device__ call, which is slow in some
 * producers (about 2 us in PyTorch). */
static int
stream_none_is_right(PyObject *x)
{
    PyTypeObject *type = Py_TYPE(x);
    if (type == dla_array_type) {
        return ((DLAArrayObject *)x)->device.device_type == kDLCPU;
    }
    if (dla_engine_is_host_type(type)) {
        return 1;
    }
    /* Without CuPy, None names dlarray's CUDA work stream; without dpctl
     * no SYCL memory can exist in this process. */
    PyObject *modules = PyImport_GetModuleDict();
    PyObject *cupy = PyDict_GetItemWithError(modules, dla_state.str_cupy);
    if (cupy == NULL && PyErr_Occurred()) {
        return -1;
    }
    PyObject *dpctl = PyDict_GetItemWithError(modules, dla_state.str_dpctl);
    if (dpctl == NULL && PyErr_Occurred()) {
        return -1;
    }
    if ((cupy == NULL || cupy == Py_None) && (dpctl == NULL || dpctl == Py_None)) {
        return 1;
    }
    PyObject *device = PyObject_CallMethodNoArgs(x, dla_state.str_dunder_dlpack_device);
    if (device == NULL) {
        PyErr_Clear(); /* no __dlpack_device__, or it failed: Python decides */
        return 0;
    }
    int on_host = 0;
    if (PyTuple_Check(device) && PyTuple_GET_SIZE(device) == 2) {
        long device_type = PyLong_AsLong(PyTuple_GET_ITEM(device, 0));
        if (device_type == -1 && PyErr_Occurred()) {
            PyErr_Clear();
        }
        on_host = device_type == kDLCPU;
    }
    Py_DECREF(device);
    return on_host;
}

/* The pending exception, normalized and holding its traceback (a new
 * reference), and the way back. */
static PyObject *
take_exception(void)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL) {
        PyException_SetTraceback(value, tb);
    }
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
#endif
}

static void
raise_exception(PyObject *exception)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exception);
#else
    PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exception)), exception,
                  PyException_GetTraceback(exception));
#endif
}

/* Whether the TypeError a producer's __dlpack__(stream=..., max_version=...)
 * raised means it refused the keywords, as a pre-1.0 producer does: no
 * code of the producer ran (no traceback yet: Python's argument binding or
 * a C method's parser refused the call), or the message names
 * max_version or a keyword (a decorated method binds inside its wrapper,
 * and some producers raise their own "unexpected keyword argument").  A TypeError
 * from anywhere else inside the producer is its own error and propagates. */
static bool
keywords_refused(PyObject *type_error)
{
    PyObject *tb = PyException_GetTraceback(type_error);
    Py_XDECREF(tb);
    if (tb == NULL) {
        return true;
    }
    PyObject *text = PyObject_Str(type_error);
    if (text == NULL) {
        PyErr_Clear();
        return false;
    }
    int found = PyUnicode_Contains(text, dla_state.kw_max_version);
    if (found == 0) {
        found = PyUnicode_Contains(text, dla_state.str_keyword);
    }
    Py_DECREF(text);
    if (found < 0) {
        PyErr_Clear();
    }
    return found == 1;
}

/* The spec's retry after a TypeError: x.__dlpack__() with no keywords,
 * for a producer that refused them.  When the retry fails too, its error
 * carries the first as __context__, so neither is lost. */
static PyObject *
retry_without_keywords(PyObject *call_args[])
{
    PyObject *refusal = take_exception();
    if (!keywords_refused(refusal)) {
        raise_exception(refusal);
        return NULL;
    }
    PyObject *capsule = PyObject_VectorcallMethod(
        dla_state.str_dunder_dlpack, call_args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    if (capsule != NULL) {
        Py_DECREF(refusal);
        return capsule;
    }
    PyObject *second = take_exception();
    if (second != refusal) {
        PyException_SetContext(second, refusal); /* steals refusal */
    }
    else {
        Py_DECREF(refusal);
    }
    raise_exception(second);
    return NULL;
}

/* x.__dlpack__(stream=stream, max_version=(1, 3)), without creating a bound
 * method.  A producer older than DLPack 1.0 rejects max_version with a
 * TypeError; then it is asked again for a legacy capsule, as the spec
 * recommends, with no keywords: some such producers take none, and their
 * default is None (retry_without_keywords says when a TypeError means
 * that).  NumPy's default stream is None, so for NumPy arrays a
 * None stream is left out, which spares NumPy parsing a keyword.
 *
 * NULL with an exception on failure.  When x's type has no __dlpack__ at
 * all, *not_a_producer is set and no exception is left: each caller words
 * that error its own way.  An AttributeError that a producer's own
 * __dlpack__ raised propagates as it is, without a second call. */
static inline PyObject *
request_capsule(PyObject *x, PyObject *stream, bool *not_a_producer)
{
    *not_a_producer = false;
    PyObject *call_args[3] = {x, stream, dla_state.max_version};
    PyObject *capsule;
    if (stream == Py_None && dla_engine_is_host_type(Py_TYPE(x))) {
        call_args[1] = dla_state.max_version;
        capsule = PyObject_VectorcallMethod(
            dla_state.str_dunder_dlpack, call_args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
            dla_state.kwnames_max_version);
    }
    else {
        capsule = PyObject_VectorcallMethod(
            dla_state.str_dunder_dlpack, call_args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
            dla_state.kwnames_stream_max_version);
    }
    if (capsule != NULL) {
        return capsule;
    }
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        DLA_SAVE_EXCEPTION(raised);
        PyObject *method = PyObject_GetAttr((PyObject *)Py_TYPE(x), dla_state.str_dunder_dlpack);
        PyErr_Clear();
        DLA_RESTORE_EXCEPTION(raised);
        if (method == NULL) {
            PyErr_Clear();
            *not_a_producer = true;
        }
        Py_XDECREF(method);
        return NULL;
    }
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
        return NULL;
    }
    return retry_without_keywords(call_args);
}

/* request_capsule for the C API; from_dlpack's hot path inlines it. */
PyObject *
dla_request_capsule(PyObject *x, PyObject *stream, bool *not_a_producer)
{
    return request_capsule(x, stream, not_a_producer);
}

/* True when from_dlpack's keywords ask for nothing but the zero-copy
 * import a table gives: device=None, copy=None or copy=False.  Keywords
 * written in Python source are interned, so comparing pointers finds them;
 * any other spelling takes the Python path, which is only slower. */
static bool
only_zero_copy_keywords(PyObject *const *values, PyObject *kwnames)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        PyObject *value = values[i];
        bool fine = (key == dla_state.kw_copy && (value == Py_None || value == Py_False)) ||
                    (key == dla_state.kw_device && value == Py_None);
        if (!fine) {
            return false;
        }
    }
    return true;
}

PyObject *
dla_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                PyObject *kwnames)
{
    if (general_from_dlpack == NULL || nargs != 1) {
        return PyObject_Vectorcall(general_from_dlpack ? general_from_dlpack : Py_None,
                                   args, (size_t)nargs, kwnames);
    }
    /* The producer's C exchange table, when its type has one: no Python
     * call at all (see exchange_consumer.c).  copy=False and the defaults
     * take it too, so that one producer's memory is imported the same way
     * whichever is spelled; any other keyword takes the Python path. */
    const DLPackExchangeAPI *api = dla_exchange_api_of(Py_TYPE(args[0]));
    if (api == NULL && PyErr_Occurred()) {
        return NULL;
    }
    if (kwnames != NULL && (api == NULL || !only_zero_copy_keywords(args + 1, kwnames))) {
        return PyObject_Vectorcall(general_from_dlpack, args, 1, kwnames);
    }
    if (api != NULL) {
        PyObject *array = dla_import_through_table(args[0], api);
        if (array != Py_None) {
            return array;
        }
        /* The table refused the tensor, or dlarray cannot order its work
         * after the producer's stream: the protocol decides, and
         * __dlpack__(stream=...) makes the producer order the work. */
        Py_DECREF(array);
        return PyObject_Vectorcall(general_from_dlpack, args, 1, kwnames);
    }
    /* Streams: a producer on a device with streams must be told which one
     * dlarray will use; when that is not None, Python chooses it.
     * stream=None is passed, not left out: PyTorch's default is -1 ("do
     * not synchronise"), not the spec's None. */
    int none_is_right = stream_none_is_right(args[0]);
    if (none_is_right <= 0) {
        if (none_is_right < 0) {
            return NULL;
        }
        return PyObject_Vectorcall(general_from_dlpack, args, 1, NULL);
    }
    bool not_a_producer;
    PyObject *capsule = request_capsule(args[0], Py_None, &not_a_producer);
    if (capsule == NULL) {
        /* The Python path words the error for a non-producer. */
        return not_a_producer ? PyObject_Vectorcall(general_from_dlpack, args, 1, NULL)
                              : NULL;
    }
    PyObject *array = dla_consume_capsule(module, capsule);
    if (array == NULL) {
        /* A refused capsule dies here and its destructor may be Python code
         * (a ctypes producer), which cannot run with an exception set. */
        DLA_SAVE_EXCEPTION(refused);
        Py_DECREF(capsule);
        DLA_RESTORE_EXCEPTION(refused);
        return NULL;
    }
    Py_DECREF(capsule);
    return array;
}
