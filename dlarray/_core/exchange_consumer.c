/*
 * exchange_consumer.c -- importing through a producer's DLPack C exchange
 * table.
 *
 * Finds and caches a type's table (dla_exchange_api_of), takes a tensor
 * through it and hands it to import.c's adoption, then orders dlarray's
 * work after the producer's stream.  Called by consumer.c (from_dlpack)
 * and capi.c (the C API); calls only import.c.
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
 * DLArray._memory.order_import), or, when it cannot, gives the tensor
 * back and asks __dlpack__, which orders the work on the producer's side.
 *
 * Refusals: a producer's table must not become the way around what its
 * __dlpack__ refuses.  PyTorch's __dlpack__ refuses a tensor that requires
 * grad (BufferError: "use tensor.detach()"), because writes through another
 * library would change an autograd leaf behind autograd's back; its table
 * exports such tensors (it serves kernels called inside autograd).  So a
 * tensor whose type has a `requires_grad` attribute (PyTorch's autograd
 * convention), set to true, takes the protocol, and the producer answers.
 * Complex tensors take the protocol too (see dla_import_through_table).
 */
#include "core.h"

/* ---- finding a type's table ---- */

#define TABLE_CACHE_SIZE 64
#define MAX_PREV_API_HOPS 16 /* a cycle in prev_api must not hang us */

typedef struct {
    PyTypeObject *type; /* strong reference, or NULL for a free slot */
    unsigned int version_tag;
    const DLPackExchangeAPI *api; /* NULL: the type has no usable table */
    bool tracks_gradients;        /* the type has a `requires_grad` attribute */
    /* That attribute's C getter, when it is one (PyTorch's): called
     * directly, it costs a third of a generic attribute lookup.  The
     * descriptor is held by `gradient_descriptor` (strong). */
    PyObject *gradient_descriptor;
    const PyGetSetDef *gradient_getset;
#ifdef Py_GIL_DISABLED
    PyMutex lock; /* free-threaded CPython: guards this slot's fields */
#endif
} TableCacheEntry;

/* Shared by every thread.  With the GIL, the GIL guards it; free-threaded,
 * each slot has its own lock, held only to copy a slot in or out (never
 * while calling Python), so exchanges of different types never wait for
 * each other and those of one type wait a few instructions at most. */
static TableCacheEntry table_cache[TABLE_CACHE_SIZE];

static inline void
slot_lock(TableCacheEntry *slot)
{
#ifdef Py_GIL_DISABLED
    PyMutex_Lock(&slot->lock);
#else
    (void)slot;
#endif
}

static inline void
slot_unlock(TableCacheEntry *slot)
{
#ifdef Py_GIL_DISABLED
    PyMutex_Unlock(&slot->lock);
#else
    (void)slot;
#endif
}

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

/* Whether the slot holds what is known of `type` now: the type itself,
 * with no attribute changed since (the same version tag). */
static bool
slot_is_current(const TableCacheEntry *slot, PyTypeObject *type)
{
    return slot->type == type && slot->version_tag == type->tp_version_tag &&
           slot->version_tag != 0;
}

const DLPackExchangeAPI *
dla_exchange_api_of(PyTypeObject *type)
{
    TableCacheEntry *slot = cache_slot(type);
    slot_lock(slot);
    bool current = slot_is_current(slot, type);
    const DLPackExchangeAPI *cached = slot->api;
    slot_unlock(slot);
    if (current) {
        return cached;
    }
    const DLPackExchangeAPIHeader *header;
    if (find_table(type, &header) < 0) {
        return NULL;
    }
    const DLPackExchangeAPI *api = usable_version(header);
    PyObject *gradients = api == NULL ? NULL : type_attribute(type, dla_state.str_requires_grad);
    if (gradients == NULL && PyErr_Occurred()) {
        return NULL;
    }
    bool tracks_gradients = gradients != NULL;
    const PyGetSetDef *getset = NULL;
    if (gradients != NULL && Py_IS_TYPE(gradients, &PyGetSetDescr_Type) &&
        ((PyGetSetDescrObject *)gradients)->d_getset->get != NULL) {
        getset = ((PyGetSetDescrObject *)gradients)->d_getset;
    }
    /* The lookups above gave the type a version tag if it can have one;
     * a type without one is looked up every time, which is only slower. */
#if PY_VERSION_HEX >= 0x030C0000
    PyUnstable_Type_AssignVersionTag(type);
#endif
    if (type->tp_version_tag != 0) {
        Py_INCREF(type);
        Py_XINCREF(gradients);
        slot_lock(slot);
        PyTypeObject *evicted = slot->type;
        PyObject *evicted_descriptor = slot->gradient_descriptor;
        slot->type = type;
        slot->version_tag = type->tp_version_tag;
        slot->api = api;
        slot->tracks_gradients = tracks_gradients;
        slot->gradient_descriptor = gradients;
        slot->gradient_getset = getset;
        slot_unlock(slot);
        Py_XDECREF(evicted_descriptor); /* outside the lock: may run Python */
        Py_XDECREF(evicted);
    }
    Py_XDECREF(gradients);
    return api;
}

/* ---- from_dlpack through a table ---- */

/* A table function said -1 (or gave nothing) without setting an exception,
 * which the spec forbids; say so rather than crash or return NULL silently. */
void
dla_ensure_table_error(PyObject *x, const char *func)
{
    if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_SystemError,
                     "%.200s's DLPack exchange table: %s failed without setting "
                     "an exception",
                     Py_TYPE(x)->tp_name, func);
    }
}

/* 1 when dlarray's work on the tensor's device is now ordered after the
 * producer's current stream, 0 when dlarray cannot order it, -1 on error. */
static int
order_after_producer(PyObject *x, const DLPackExchangeAPI *api, DLDevice device)
{
    if (dla_device_family(device.device_type) == DLA_FAMILY_HOST) {
        return 1; /* host memory: no streams */
    }
    if (dla_state.memory == NULL) {
        return 0;
    }
    void *stream = NULL;
    if (api->current_work_stream(device.device_type, device.device_id, &stream) != 0) {
        dla_ensure_table_error(x, "current_work_stream");
        return -1;
    }
    PyObject *done = dla_call_memory(dla_state.str_order_import, "(iiN)", (int)device.device_type,
                                     (int)device.device_id, PyLong_FromVoidPtr(stream));
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

/* 1 when x must take its producer's __dlpack__: a tensor that tracks
 * gradients (see the top), or one that will not say; 0 when the table may
 * serve it; -1 with an exception. */
static int
requires_grad(PyObject *x)
{
    PyTypeObject *type = Py_TYPE(x);
    TableCacheEntry *slot = cache_slot(type);
    slot_lock(slot);
    bool cached = slot_is_current(slot, type);
    bool tracks_gradients = slot->tracks_gradients;
    const PyGetSetDef *getset = slot->gradient_getset; /* static data of x's type */
    slot_unlock(slot);
    if (cached && !tracks_gradients) {
        return 0;
    }
    PyObject *flag = cached && getset != NULL ? getset->get(x, getset->closure)
                                              : PyObject_GetAttr(x, dla_state.str_requires_grad);
    if (flag == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            return 0;
        }
        /* The object will not say (PyTorch 2.15's ReadOnlyTensorWrapper
         * raises RuntimeError for every attribute but the DLPack methods):
         * its own __dlpack__ decides, as for a tensor that requires grad.
         * Only errors (Exception) are taken as "will not say"; an interrupt
         * or a MemoryError propagates. */
        if (PyErr_ExceptionMatches(PyExc_Exception)) {
            PyErr_Clear();
            return 1;
        }
        return -1;
    }
    int truth = PyObject_IsTrue(flag);
    Py_DECREF(flag);
    return truth;
}

PyObject *
dla_import_through_table(PyObject *x, const DLPackExchangeAPI *api)
{
    int refused = requires_grad(x);
    if (refused != 0) {
        return refused < 0 ? NULL : Py_NewRef(Py_None); /* the protocol answers */
    }
    DLManagedTensorVersioned *m = NULL;
    int rc = api->managed_tensor_from_py_object_no_sync(x, &m);
    if (rc != 0 && table_refused()) {
        return Py_NewRef(Py_None);
    }
    if (rc != 0 || m == NULL) {
        dla_ensure_table_error(x, "managed_tensor_from_py_object_no_sync");
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
