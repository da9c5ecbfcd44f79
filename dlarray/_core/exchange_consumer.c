/*
 * exchange_consumer.c -- using other libraries' DLPack C exchange tables,
 * and the C API dlarray offers extension authors (dlarray_capi.h).
 *
 * Finding a table: DLPack puts it on the producer's *type*, as the capsule
 * `__dlpack_c_exchange_api__` (1.3) or the int `__c_dlpack_exchange_api__`
 * (1.2), and lets consumers cache it per type.  The cache below keeps a
 * strong reference to each type (so its address cannot be reused by
 * another) and the type's version tag, which CPython changes whenever an
 * attribute of the type or of a base changes, so a table set or removed
 * after the first lookup is noticed.
 *
 * Choosing a version: a table whose major version is not 1 may chain older
 * tables through header.prev_api; the first with major version 1 is used,
 * and without one the producer is asked through __dlpack__ instead.
 *
 * Streams: the table's functions do not synchronise.  After taking a
 * tensor on a device with streams, dlarray asks the producer for its
 * current work stream and orders its own work after it (a Python hook,
 * dlarray._exchange.order_import), or, when it cannot, gives the tensor
 * back and asks __dlpack__, which orders the work on the producer's side.
 */
#include "core.h"
#define DLARRAY_CAPI_PROVIDER
#include "dlarray_capi.h"
#include <string.h>

/* ---- finding a type's table ---- */

#define TABLE_CACHE_SIZE 64
#define MAX_PREV_API_HOPS 16 /* a cycle in prev_api must not hang us */

typedef struct {
    PyTypeObject *type; /* strong reference, or NULL for a free slot */
    unsigned int version_tag;
    const DLPackExchangeAPI *api; /* NULL: the type has no usable table */
} TableCacheEntry;

static TableCacheEntry table_cache[TABLE_CACHE_SIZE];

static const DLPackExchangeAPI *
usable_version(const DLPackExchangeAPIHeader *header)
{
    for (int hops = 0; header != NULL && hops < MAX_PREV_API_HOPS; hops++) {
        if (header->version.major == DLPACK_MAJOR_VERSION) {
            const DLPackExchangeAPI *api = (const DLPackExchangeAPI *)header;
            /* Both are required by the spec; a table without them is broken
             * and is ignored rather than called. */
            if (api->managed_tensor_from_py_object_no_sync == NULL ||
                api->current_work_stream == NULL) {
                return NULL;
            }
            return api;
        }
        header = header->prev_api;
    }
    return NULL;
}

/* The attribute `name` of `type`, or NULL without an exception if absent. */
static PyObject *
type_attribute(PyTypeObject *type, PyObject *name)
{
    PyObject *value = PyObject_GetAttr((PyObject *)type, name);
    if (value == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
    }
    return value;
}

/* 0 with *header set (NULL when the type has no table), -1 on error.  A
 * malformed attribute (a capsule of another name, a non-int) is treated as
 * no table: the attribute is optional and __dlpack__ still works. */
static int
find_table(PyTypeObject *type, const DLPackExchangeAPIHeader **header)
{
    *header = NULL;
    PyObject *value = type_attribute(type, dla_state.str_exchange_api);
    if (value == NULL && PyErr_Occurred()) {
        return -1;
    }
    if (value != NULL && PyCapsule_IsValid(value, "dlpack_exchange_api")) {
        *header = PyCapsule_GetPointer(value, "dlpack_exchange_api");
    }
    Py_XDECREF(value);
    if (*header != NULL) {
        return 0;
    }
    value = type_attribute(type, dla_state.str_exchange_api_12);
    if (value == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    /* Only an int that could be the address of a table is read as one:
     * not a bool (True would be address 1), not a negative number, none in
     * the first page (where nothing is ever mapped), none out of pointer
     * range and none misaligned for the table's pointers.  Anything else
     * cannot be a table; dereferencing it would crash. */
    if (PyLong_Check(value) && !PyBool_Check(value)) {
        unsigned long long address = PyLong_AsUnsignedLongLong(value);
        if (address == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear(); /* negative or too large: not an address */
        }
        else if (address >= 4096 && address <= UINTPTR_MAX &&
                 address % _Alignof(DLPackExchangeAPI) == 0) {
            *header = (const DLPackExchangeAPIHeader *)(uintptr_t)address;
        }
    }
    Py_DECREF(value);
    return 0;
}

/* The cache slot of a type: direct-mapped by address, so a lookup is one
 * comparison.  Type objects are at least 16-byte aligned. */
static TableCacheEntry *
cache_slot(PyTypeObject *type)
{
    return &table_cache[((uintptr_t)type >> 4) % TABLE_CACHE_SIZE];
}

const DLPackExchangeAPI *
dla_exchange_api_of(PyTypeObject *type)
{
    TableCacheEntry *slot = cache_slot(type);
    if (slot->type == type && slot->version_tag == type->tp_version_tag &&
        slot->version_tag != 0) {
        return slot->api;
    }
    const DLPackExchangeAPIHeader *header;
    if (find_table(type, &header) < 0) {
        return NULL;
    }
    const DLPackExchangeAPI *api = usable_version(header);
    /* The lookups above gave the type a version tag if it can have one;
     * a type without one is looked up every time, which is only slower. */
#if PY_VERSION_HEX >= 0x030C0000
    PyUnstable_Type_AssignVersionTag(type);
#endif
    if (type->tp_version_tag != 0) {
        PyTypeObject *evicted = slot->type;
        slot->type = (PyTypeObject *)Py_NewRef(type);
        slot->version_tag = type->tp_version_tag;
        slot->api = api;
        Py_XDECREF(evicted);
    }
    return api;
}

/* ---- from_dlpack through a table ---- */

/* A table function said -1 (or gave nothing) without setting an exception,
 * which the spec forbids; say so rather than crash or return NULL silently. */
static void
ensure_table_error(PyObject *x, const char *func)
{
    if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_SystemError,
                     "%.200s's DLPack exchange table: %s failed without setting "
                     "an exception",
                     Py_TYPE(x)->tp_name, func);
    }
}

static DLManagedTensorVersioned *
export_through_table(PyObject *x, const DLPackExchangeAPI *api)
{
    DLManagedTensorVersioned *m = NULL;
    if (api->managed_tensor_from_py_object_no_sync(x, &m) != 0 || m == NULL) {
        ensure_table_error(x, "managed_tensor_from_py_object_no_sync");
        return NULL;
    }
    return m;
}

/* 1 when dlarray's work on the tensor's device is now ordered after the
 * producer's current stream, 0 when dlarray cannot order it, -1 on error. */
static int
order_after_producer(PyObject *x, const DLPackExchangeAPI *api, DLDevice device)
{
    if (device.device_type == kDLCPU) {
        return 1; /* no streams */
    }
    if (dla_state.exchange_order_import == NULL) {
        return 0;
    }
    void *stream = NULL;
    if (api->current_work_stream(device.device_type, device.device_id, &stream) != 0) {
        ensure_table_error(x, "current_work_stream");
        return -1;
    }
    PyObject *done = PyObject_CallFunction(dla_state.exchange_order_import, "iiN",
                                           (int)device.device_type, (int)device.device_id,
                                           PyLong_FromVoidPtr(stream));
    if (done == NULL) {
        return -1;
    }
    int ordered = PyObject_IsTrue(done);
    Py_DECREF(done);
    return ordered;
}

/* The table is an accelerator; the Python protocol stays the authority on
 * what can be exchanged.  So when the table refuses a tensor, __dlpack__
 * is asked instead: it says why in the producer's own words, with the
 * exception the spec asks for (PyTorch 2.13's table raises RuntimeError
 * with a C++ backtrace for sparse, meta and quantized tensors, where its
 * __dlpack__ raises BufferError). */
static bool
table_refused(void)
{
    if (!PyErr_Occurred()) {
        return false; /* -1 without an exception: a broken table (SystemError) */
    }
    PyErr_Clear();
    return true;
}

PyObject *
dla_import_through_table(PyObject *x, const DLPackExchangeAPI *api)
{
    DLManagedTensorVersioned *m = NULL;
    int rc = api->managed_tensor_from_py_object_no_sync(x, &m);
    if (rc != 0 && table_refused()) {
        return Py_NewRef(Py_None);
    }
    if (rc != 0 || m == NULL) {
        ensure_table_error(x, "managed_tensor_from_py_object_no_sync");
        return NULL;
    }
    if (m->version.major == DLPACK_MAJOR_VERSION &&
        m->dl_tensor.dtype.code == kDLComplex) {
        /* DLPack cannot say that a complex tensor is lazily conjugated,
         * and PyTorch 2.13's table exports such tensors' memory as is (its
         * __dlpack__ refuses them): complex data takes the protocol. */
        dla_call_deleter(m, true);
        return Py_NewRef(Py_None);
    }
    PyObject *array = dla_adopt_from_table(m);
    if (array == NULL) {
        return NULL;
    }
    /* m belongs to the array now, and its major version was checked. */
    int ordered = order_after_producer(x, api, m->dl_tensor.device);
    if (ordered <= 0) {
        /* Gives the tensor back: its deleter runs, and may be Python code,
         * which cannot run with an exception set. */
        DLA_SAVE_EXCEPTION(pending);
        Py_DECREF(array);
        DLA_RESTORE_EXCEPTION(pending);
        return ordered < 0 ? NULL : Py_NewRef(Py_None);
    }
    return array;
}

/* ---- the C API for extension authors (dlarray_capi.h) ---- */

/* The stream to pass __dlpack__ for a producer without a table, and the
 * handle the extension launches on: CUDA's legacy default stream (1 for
 * DLPack, cudaStreamLegacy for CUDA) on the CUDA memory kinds, the default
 * (None) elsewhere. */
static int
fallback_stream(PyObject *obj, PyObject **stream_arg, void **stream_handle)
{
    *stream_arg = Py_NewRef(Py_None);
    *stream_handle = NULL;
    if (dla_engine_is_host_type(Py_TYPE(obj))) {
        return 0; /* NumPy: host memory, and its __dlpack_device__ costs */
    }
    PyObject *device = PyObject_CallMethodNoArgs(obj, dla_state.str_dunder_dlpack_device);
    if (device == NULL) {
        PyErr_Clear(); /* no __dlpack_device__: the capsule will say */
        return 0;
    }
    long device_type = -1;
    if (PyTuple_Check(device) && PyTuple_GET_SIZE(device) == 2) {
        device_type = PyLong_AsLong(PyTuple_GET_ITEM(device, 0));
    }
    Py_DECREF(device);
    if (PyErr_Occurred()) {
        Py_SETREF(*stream_arg, NULL);
        return -1;
    }
    if (device_type == kDLCUDA || device_type == kDLCUDAHost ||
        device_type == kDLCUDAManaged) {
        Py_SETREF(*stream_arg, PyLong_FromLong(1));
        *stream_handle = (void *)(uintptr_t)1;
        return *stream_arg == NULL ? -1 : 0;
    }
    return 0;
}

/* obj.__dlpack__(...) (import.c's dla_request_capsule), with the C API's
 * error for an object that is no producer at all. */
static PyObject *
request_capsule(PyObject *obj, PyObject *stream)
{
    bool not_a_producer;
    PyObject *capsule = dla_request_capsule(obj, stream, &not_a_producer);
    if (not_a_producer) {
        PyErr_Format(PyExc_TypeError,
                     "dlarray's C API: %.200s is not a DLPack producer (no "
                     "__dlpack__ method and no exchange table)",
                     Py_TYPE(obj)->tp_name);
    }
    return capsule;
}

/* The checks a consumer owes itself before reading a producer's tensor
 * (the subset of import.c's validation that reading needs). */
static int
check_borrowed(const DLTensor *t)
{
    if (t->ndim < 0 || (t->ndim > 0 && t->shape == NULL)) {
        PyErr_Format(PyExc_BufferError,
                     "the DLPack tensor has ndim=%d and shape=%s; the producer "
                     "is broken",
                     (int)t->ndim, t->shape ? "set" : "NULL");
        return -1;
    }
    return 0;
}

/* Takes the tensor out of a capsule (which becomes "used_..."): the
 * managed pointer, or NULL with an exception and the capsule untouched. */
static void *
take_from_capsule(PyObject *capsule, bool *versioned)
{
    void *managed = dla_capsule_tensor(capsule, versioned);
    if (managed == NULL || dla_capsule_take(capsule, *versioned) < 0) {
        return NULL;
    }
    if (*versioned && dla_refuse_other_major(managed) < 0) {
        return NULL;
    }
    return managed;
}

static void capi_release(DLArrayBorrowed *view);

static int
borrow_through_capsule(PyObject *obj, DLArrayBorrowed *out)
{
    PyObject *stream;
    if (fallback_stream(obj, &stream, &out->stream) < 0) {
        return -1;
    }
    PyObject *capsule = request_capsule(obj, stream);
    Py_DECREF(stream);
    if (capsule == NULL) {
        return -1;
    }
    bool versioned;
    void *managed = take_from_capsule(capsule, &versioned);
    /* A capsule we did not take releases its tensor when it dies here, and
     * its destructor may be Python code (ctypes), which cannot run with an
     * exception set. */
    DLA_SAVE_EXCEPTION(failed);
    Py_DECREF(capsule);
    DLA_RESTORE_EXCEPTION(failed);
    if (managed == NULL) {
        return -1;
    }
    out->owned_ = managed;
    if (versioned) {
        DLManagedTensorVersioned *m = managed;
        out->tensor = m->dl_tensor;
        out->flags = m->flags;
        out->owned_kind_ = 1;
    }
    else {
        out->tensor = ((DLManagedTensor *)managed)->dl_tensor;
        out->owned_kind_ = 2;
    }
    if (check_borrowed(&out->tensor) < 0) {
        capi_release(out);
        return -1;
    }
    return 0;
}

static void
capi_release(DLArrayBorrowed *view)
{
    if (view->owned_ != NULL) {
        void *owned = view->owned_;
        bool versioned = view->owned_kind_ == 1;
        view->owned_ = NULL; /* before the deleter: a second release is harmless */
        view->owned_kind_ = 0;
        /* Extensions release on their error paths too, after setting an
         * exception: dla_call_deleter keeps it aside, since a deleter may
         * be Python code (ctypes). */
        dla_call_deleter(owned, versioned);
    }
}

static int
capi_borrow(PyObject *obj, DLArrayBorrowed *out)
{
    memset(out, 0, sizeof *out);
    if (DLAArray_Check(obj)) {
        /* Our own array: its fields and flags, read directly. */
        DLAArrayObject *a = (DLAArrayObject *)obj;
        dla_fill_borrowed_dltensor(&out->tensor, a);
        out->flags = dla_export_flags(a);
        return a->device.device_type == kDLCPU
                   ? 0
                   : dla_exchange_api.current_work_stream(a->device.device_type,
                                                          a->device.device_id,
                                                          &out->stream);
    }
    const DLPackExchangeAPI *api = dla_exchange_api_of(Py_TYPE(obj));
    if (api == NULL) {
        return PyErr_Occurred() ? -1 : borrow_through_capsule(obj, out);
    }
    if (api->dltensor_from_py_object_no_sync != NULL) {
        if (api->dltensor_from_py_object_no_sync(obj, &out->tensor) != 0) {
            ensure_table_error(obj, "dltensor_from_py_object_no_sync");
            return -1;
        }
    }
    else {
        DLManagedTensorVersioned *m = export_through_table(obj, api);
        if (m == NULL) {
            return -1;
        }
        if (dla_refuse_other_major(m) < 0) {
            return -1;
        }
        out->owned_ = m;
        out->owned_kind_ = 1;
        out->tensor = m->dl_tensor;
        out->flags = m->flags;
    }
    if (check_borrowed(&out->tensor) < 0) {
        capi_release(out);
        return -1;
    }
    DLDevice device = out->tensor.device;
    if (device.device_type != kDLCPU &&
        api->current_work_stream(device.device_type, device.device_id, &out->stream) != 0) {
        ensure_table_error(obj, "current_work_stream");
        capi_release(out);
        return -1;
    }
    return 0;
}

static int
capi_to_managed(PyObject *obj, DLManagedTensorVersioned **out)
{
    *out = NULL;
    /* A DLArray is no special case: its type carries dlarray's own table. */
    const DLPackExchangeAPI *api = dla_exchange_api_of(Py_TYPE(obj));
    if (api != NULL) {
        DLManagedTensorVersioned *m = export_through_table(obj, api);
        if (m == NULL) {
            return -1;
        }
        if (dla_refuse_other_major(m) < 0) {
            return -1;
        }
        *out = m;
        return 0;
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    PyObject *capsule = request_capsule(obj, Py_None);
    if (capsule == NULL) {
        return -1;
    }
    bool versioned = false;
    void *managed = NULL;
    if (dla_capsule_tensor(capsule, &versioned) != NULL && !versioned) {
        PyErr_Format(PyExc_BufferError,
                     "%.200s gave a legacy 'dltensor' capsule (it predates DLPack "
                     "1.0), which has no versioned managed tensor to hand over; "
                     "use borrow() for such producers",
                     Py_TYPE(obj)->tp_name);
    }
    else if (!PyErr_Occurred()) {
        managed = take_from_capsule(capsule, &versioned);
    }
    DLA_SAVE_EXCEPTION(failed);
    Py_DECREF(capsule);
    DLA_RESTORE_EXCEPTION(failed);
    *out = managed;
    return managed == NULL ? -1 : 0;
}

static const DLArray_CAPI capi = {
    .version = DLARRAY_CAPI_VERSION,
    .size = sizeof(DLArray_CAPI),
    .exchange_api_of = dla_exchange_api_of,
    .borrow = capi_borrow,
    .release = capi_release,
    .to_managed = capi_to_managed,
    .exchange_api = &dla_exchange_api,
};

PyObject *
dla_capi_capsule(void)
{
    return PyCapsule_New((void *)&capi, DLARRAY_CAPI_CAPSULE, NULL);
}
