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

static void
call_deleter(void *managed, bool versioned)
{
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
}

static void
imported_dealloc(DLAImportedTensorObject *self)
{
    if (self->managed != NULL) {
        call_deleter(self->managed, self->versioned);
        self->managed = NULL;
    }
    Py_CLEAR(self->assigned_device);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
imported_get_pointer(DLAImportedTensorObject *self, void *c)
{
    if (self->managed == NULL) { /* seen by the SYCL check, before ownership moves */
        Py_RETURN_NONE;
    }
    DLTensor *t = imported_dltensor(self);
    return PyLong_FromVoidPtr((char *)t->data + t->byte_offset);
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
     "True if it came in a 'dltensor_versioned' capsule.", NULL},
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

/* ---- consume(capsule) ---- */

PyObject *
dla_consume_capsule(PyObject *module, PyObject *capsule)
{
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError,
                     "expected a DLPack capsule (from x.__dlpack__()), got %.200s",
                     Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    const char *name = PyCapsule_GetName(capsule);
    if (name == NULL && PyErr_Occurred()) {
        return NULL;
    }
    bool versioned;
    if (name != NULL && strcmp(name, "dltensor_versioned") == 0) {
        versioned = true;
    }
    else if (name != NULL && strcmp(name, "dltensor") == 0) {
        versioned = false;
    }
    else if (name != NULL && strncmp(name, "used_dltensor", 13) == 0) {
        PyErr_Format(PyExc_ValueError,
                     "this DLPack capsule ('%s') was already consumed; a "
                     "capsule can be imported only once. Call x.__dlpack__() "
                     "again for a new one",
                     name);
        return NULL;
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "expected a capsule named 'dltensor' or "
                     "'dltensor_versioned', got one named %s%s%s",
                     name ? "'" : "", name ? name : "NULL", name ? "'" : "");
        return NULL;
    }
    void *managed = PyCapsule_GetPointer(capsule, name);
    if (managed == NULL) {
        return NULL;
    }

    DLTensor *t;
    DLPackVersion version = {0, 0};
    uint64_t dl_flags = 0;
    if (versioned) {
        DLManagedTensorVersioned *m = managed;
        version = m->version;
        if (version.major != DLPACK_MAJOR_VERSION) {
            /* Nothing past `flags` may be read at another major version;
             * the spec says to call the deleter, so the capsule is ours. */
            if (PyCapsule_SetName(capsule, "used_dltensor_versioned") < 0) {
                return NULL;
            }
            call_deleter(m, true);
            PyErr_Format(PyExc_BufferError,
                         "the producer sent a DLPack %u.%u tensor; dlarray "
                         "reads major version %d only (it asked for "
                         "max_version=(%d, %d)). The tensor was released",
                         version.major, version.minor, DLPACK_MAJOR_VERSION,
                         DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
            return NULL;
        }
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
    DLAImportedTensorObject *owner =
        PyObject_New(DLAImportedTensorObject, &DLAImportedTensor_Type);
    if (owner == NULL) {
        return NULL;
    }
    owner->managed = NULL; /* set below, once nothing can fail */
    owner->assigned_device = NULL;
    owner->versioned = versioned;
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
     * pointer in the device's default context (dpctl's kDLOneAPI rules);
     * the check runs before ownership moves, so a refusal leaves the
     * capsule (and its deleter) with the producer. */
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
    if (PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned"
                                             : "used_dltensor") < 0) {
        Py_DECREF(array);
        return NULL;
    }
    owner->managed = managed;
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

PyObject *
dla_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                PyObject *kwnames)
{
    if (nargs != 1 || kwnames != NULL || general_from_dlpack == NULL) {
        return PyObject_Vectorcall(general_from_dlpack ? general_from_dlpack : Py_None,
                                   args, (size_t)nargs, kwnames);
    }
    /* Streams: a producer on a device with streams must be told which one
     * dlarray will use; when that is not None, Python chooses it. */
    int none_is_right = stream_none_is_right(args[0]);
    if (none_is_right <= 0) {
        if (none_is_right < 0) {
            return NULL;
        }
        return PyObject_Vectorcall(general_from_dlpack, args, 1, NULL);
    }
    /* x.__dlpack__(stream=None, max_version=(1, 3)), without creating a
     * bound method.  stream=None is passed, not left out: PyTorch's default
     * is -1 ("do not synchronise"), not the spec's None. */
    PyObject *call_args[3] = {args[0], Py_None, dla_state.max_version};
    PyObject *capsule = PyObject_VectorcallMethod(
        dla_state.str_dunder_dlpack, call_args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
        dla_state.kwnames_stream_max_version);
    if (capsule == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            /* Either x is no producer, and the Python path words that error,
             * or its __dlpack__ raised AttributeError itself, which must
             * propagate without asking the producer a second time. */
            DLA_SAVE_EXCEPTION(raised);
            PyObject *method = PyObject_GetAttr((PyObject *)Py_TYPE(args[0]),
                                                dla_state.str_dunder_dlpack);
            if (method != NULL) {
                Py_DECREF(method);
                DLA_RESTORE_EXCEPTION(raised);
                return NULL;
            }
            PyErr_Clear();
            DLA_RESTORE_EXCEPTION(raised);
            PyErr_Clear();
            return PyObject_Vectorcall(general_from_dlpack, args, 1, NULL);
        }
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
            return NULL;
        }
        /* A producer older than DLPack 1.0 rejects max_version; ask again
         * for a legacy capsule, as the spec recommends, with no keywords:
         * some such producers take none, and their default is None. */
        PyErr_Clear();
        capsule = PyObject_VectorcallMethod(dla_state.str_dunder_dlpack, call_args,
                                            1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        if (capsule == NULL) {
            return NULL;
        }
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
