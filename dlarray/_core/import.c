/*
 * import.c -- adoption: validating a producer's tensor and taking it over.
 *
 * The bottom of the consumer: whoever obtained the tensor (consumer.c from
 * a capsule, exchange_consumer.c from a producer's table, the C exchange
 * table's managed_tensor_to_py_object), this file checks every field,
 * builds the DLArray that owns it and calls the producer's deleter when
 * that array's memory dies.  It calls no other consumer file.
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
 * dying while an exception propagates (`int(x, 10)`) must not lose it.
 * Nearly always none is pending, and then the save and restore (a tenth
 * of an import's cost on 3.11) are skipped; an error a deleter leaves
 * behind is dropped either way, as the restore would drop it. */
void
dla_call_deleter(void *managed, bool versioned)
{
    if (PyErr_Occurred() == NULL) {
        dla_run_deleter(managed, versioned);
        if (PyErr_Occurred() != NULL) {
            PyErr_Clear();
        }
        return;
    }
    DLA_SAVE_EXCEPTION(pending);
    dla_run_deleter(managed, versioned);
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
    if (DLA_FREELISTS && imported_free_count > 0) {
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
    if (DLA_FREELISTS && imported_free_count < IMPORTED_FREELIST_SIZE) {
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

/* A refusal's code kept out of the import's hot path: inlined, it cost the
 * check below register spills on every import. */
#if defined(__GNUC__) || defined(__clang__)
#define DLA_COLD __attribute__((cold, noinline))
#else
#define DLA_COLD
#endif

/* The strides' span: the bytes between a tensor's lowest- and
 * highest-addressed elements, the sum over its axes of |stride| *
 * (extent - 1) * element bytes.  Decision (cupy/cupy#10172): a span past INT64_MAX is
 * refused at import.  An honest tensor's elements lie in memory a process
 * can address, and NumPy, dlarray's host engine, refuses a byte extent
 * past intp; a span that large only comes from strides that are wrong
 * numbers -- CuPy 14.2 divides a negative byte stride by its unsigned
 * itemsize, so -24 bytes of float32 arrive as 2**62 - 6 elements.  Imported,
 * such a tensor failed only later, in a copy, with a confusing "too big".
 * A tensor with elements has no extent 0, and an axis of extent 1 never
 * uses its stride (any value is allowed there).  A padded sub-byte element
 * takes one byte; packed ones are not checked here: they must be in C order
 * instead, which keeps their span within the element count that
 * dla_check_shape_count bounds. */

/* Whether the span of a tensor with elements (every extent at least 1)
 * passes INT64_MAX.  It runs on every import, so it has no branch but the
 * overflows': one checked multiply and add per axis, in elements (an
 * extent of 1 adds 0 whatever its stride, INT64_MIN included), and one
 * multiply by the element's bytes at the end. */
static inline bool
span_overflows(int32_t ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize)
{
    uint64_t span = 0, reach;
    for (int32_t i = 0; i < ndim; i++) {
        uint64_t magnitude = strides[i] < 0 ? 0 - (uint64_t)strides[i] : (uint64_t)strides[i];
        if (dla_umul_overflows(magnitude, (uint64_t)shape[i] - 1, &reach) ||
            dla_uadd_overflows(span, reach, &span)) {
            return true;
        }
    }
    return dla_umul_overflows(span, (uint64_t)itemsize, &span) || span > (uint64_t)INT64_MAX;
}

/* A tuple of n int64 values, for a message. */
static PyObject *
int64_tuple(int32_t n, const int64_t *values)
{
    PyObject *tuple = PyTuple_New(n);
    for (int32_t i = 0; tuple != NULL && i < n; i++) {
        PyObject *value = PyLong_FromLongLong(values[i]);
        if (value == NULL) {
            Py_CLEAR(tuple);
            break;
        }
        PyTuple_SET_ITEM(tuple, i, value);
    }
    return tuple;
}

/* The refusal of a span past INT64_MAX: the layout, the axis where the
 * span passes the limit, the likely cause and what to do. */
DLA_COLD static void
refuse_span(const DLTensor *t)
{
    int64_t itemsize = dla_element_bytes(t->dtype);
    int32_t axis = 0;
    while (axis < t->ndim - 1 && !span_overflows(axis + 1, t->shape, t->strides, itemsize)) {
        axis++;
    }
    PyObject *shape = int64_tuple(t->ndim, t->shape);
    PyObject *strides = shape ? int64_tuple(t->ndim, t->strides) : NULL;
    if (strides != NULL) {
        PyErr_Format(PyExc_BufferError,
                     "the DLPack tensor's strides span more than 2**63 - 1 bytes "
                     "between its first and last elements (shape %R, strides %R in "
                     "elements of %lld bytes; the span passes the limit at axis %d, "
                     "stride %lld): no memory is that large, so the strides are "
                     "wrong. Strides near 2**64 divided by the element's bytes "
                     "(2**62 for 4-byte elements) are negative strides divided as "
                     "unsigned numbers, as CuPy 14.2 exports them "
                     "(https://github.com/cupy/cupy/issues/10172); ask the producer "
                     "for a contiguous copy (x.copy()) before exporting",
                     shape, strides, (long long)itemsize, (int)axis,
                     (long long)t->strides[axis]);
    }
    Py_XDECREF(shape);
    Py_XDECREF(strides);
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
    if (dla_device_entry(t->device.device_type) == NULL) {
        PyErr_Format(PyExc_BufferError,
                     "unknown DLPack device type %d; dlarray knows the device "
                     "types of DLPack 1.3 (1-4, 7-18)",
                     (int)t->device.device_type);
        return -1;
    }
    /* The row table answers a known dtype inline; dla_dtype_find words
     * the refusal of any other. */
    if (dla_dtype_row(t->dtype) < 0 && dla_dtype_find(t->dtype) == NULL) {
        return -1;
    }
    /* dla_array_new's limits, checked first so that the import refuses
     * with the exchange's error; ndim before anything reads the shape. */
    int64_t count = dla_check_shape_count(PyExc_BufferError, "the DLPack tensor", t->ndim,
                                          t->shape, t->dtype);
    if (count < 0) {
        return -1;
    }
    bool padded = t->dtype.bits < 8 &&
                  (dl_flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED);
    if (dla_nbytes(count, t->dtype, padded) < 0) {
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
    /* Strides that address memory (there are elements): packed sub-byte
     * elements have no byte address of their own, so dlarray keeps such
     * arrays C-contiguous; any other layout must span addressable memory. */
    if (t->strides != NULL && count > 0) {
        if (t->dtype.bits < 8 && !padded) {
            int64_t expected = 1;
            for (int32_t i = t->ndim - 1; i >= 0; i--) {
                if (t->shape[i] != 1 && t->strides[i] != expected) {
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
        else if (span_overflows(t->ndim, t->shape, t->strides, dla_element_bytes(t->dtype))) {
            refuse_span(t);
            return -1;
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
    const DLADeviceEntry *entry = dla_device_entry(device.device_type);
    if (entry->machine_wide) { /* validate_tensor found the entry */
        device.device_id = 0;
    }
    /* Legacy producers predate NULL-strides being forbidden (DLPack 1.2);
     * NULL means C-contiguous, which dla_array_new computes.  validate_tensor
     * made dla_array_new's checks, so they are not made twice. */
    PyObject *array = (PyObject *)dla_array_new_checked(
        (PyObject *)owner, t->data, t->byte_offset, device, t->dtype,
        t->ndim, t->shape, t->strides, flags);
    Py_DECREF(owner); /* the array holds it now */
    if (array == NULL) {
        return NULL;
    }
    /* SYCL USM is usable only through dpctl, which must recognise the
     * pointer in the device's default context (dpctl's kDLOneAPI rules). */
    if (entry->family == DLA_FAMILY_SYCL) {
        if (dla_state.memory == NULL) {
            Py_DECREF(array);
            PyErr_SetString(PyExc_BufferError, "dlarray's SYCL support is not loaded");
            return NULL;
        }
        PyObject *ok = dla_call_memory(dla_state.str_check_import, "(O)", array);
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
    /* The common case first, with one name comparison: the one inside
     * PyCapsule_GetPointer.  A capsule of another name makes it raise,
     * and the error is dropped for the checks below. */
    void *versioned_tensor = PyCapsule_GetPointer(capsule, DLA_VERSIONED_NAME);
    if (versioned_tensor != NULL) {
        *versioned = true;
        return versioned_tensor;
    }
    PyErr_Clear();
    const char *name = PyCapsule_GetName(capsule);
    if (name == NULL && PyErr_Occurred()) {
        return NULL;
    }
    if (name != NULL && strcmp(name, DLA_LEGACY_NAME) == 0) {
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

void *
dla_capsule_claim(PyObject *capsule, bool *versioned, const char **name)
{
    void *managed;
    Py_BEGIN_CRITICAL_SECTION(capsule);
    *name = PyCapsule_CheckExact(capsule) ? PyCapsule_GetName(capsule) : NULL;
    managed = dla_capsule_tensor(capsule, versioned);
    if (managed != NULL &&
        PyCapsule_SetName(capsule, *versioned ? DLA_USED_VERSIONED_NAME : DLA_USED_LEGACY_NAME) < 0) {
        managed = NULL;
    }
    Py_END_CRITICAL_SECTION();
    return managed;
}

int
dla_capsule_unclaim(PyObject *capsule, const char *name)
{
    int rc;
    Py_BEGIN_CRITICAL_SECTION(capsule);
    rc = PyCapsule_SetName(capsule, name);
    Py_END_CRITICAL_SECTION();
    return rc;
}

PyObject *
dla_consume_capsule(PyObject *module, PyObject *capsule)
{
    bool versioned;
    const char *name;
    void *managed = dla_capsule_claim(capsule, &versioned, &name);
    if (managed == NULL) {
        return NULL;
    }
    if (versioned &&
        ((DLManagedTensorVersioned *)managed)->version.major != DLPACK_MAJOR_VERSION) {
        /* The spec says to call the deleter: the tensor is ours now. */
        dla_refuse_other_major(managed);
        return NULL;
    }
    /* Everything that can fail happens before the array owns the tensor;
     * a failure gives the tensor back to the capsule, whose destructor
     * stays responsible (and the error is the import's). */
    PyObject *array = prepare_import(managed, versioned);
    if (array == NULL) {
        DLA_SAVE_EXCEPTION(failed);
        dla_capsule_unclaim(capsule, name);
        PyErr_Clear();
        DLA_RESTORE_EXCEPTION(failed);
        return NULL;
    }
    commit_import(array, managed);
    return array;
}
