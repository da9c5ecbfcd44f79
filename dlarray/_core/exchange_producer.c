/*
 * exchange_producer.c -- dlarray's DLPack C exchange table (DLPack 1.3).
 *
 * `type(x).__dlpack_c_exchange_api__` is a capsule named
 * "dlpack_exchange_api" pointing at the static table below; the 1.2 name,
 * `__c_dlpack_exchange_api__`, carries the same address as an int for
 * consumers that predate the rename.  A consumer calls these functions
 * straight from C, with no Python-level call:
 *
 *   managed_tensor_from_py_object_no_sync  the owning export (__dlpack__'s
 *                                          versioned capsule, minus the capsule)
 *   dltensor_from_py_object_no_sync        a borrowed view, no allocation
 *   managed_tensor_to_py_object_no_sync    a managed tensor -> DLArray (steals)
 *   managed_tensor_allocator               new dlarray memory, as a managed tensor
 *   current_work_stream                    dlarray's stream on a device
 *
 * "no_sync": nothing here orders work between streams; the consumer asks
 * current_work_stream and orders its own work (see exchange_consumer.c).
 * All but the allocator are called with the GIL held and report errors as
 * Python exceptions; the allocator may be called without the GIL and
 * reports through the caller's SetError (without one, by its return code
 * alone), leaving no exception set.
 */
#include "core.h"

static int
check_own_array(void *py_object, const char *func)
{
    if (py_object != NULL && DLAArray_Check((PyObject *)py_object)) {
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "dlarray's %s was given a %.200s; the table on a type takes "
                 "only instances of that type (here DLArray)",
                 func, py_object ? Py_TYPE((PyObject *)py_object)->tp_name : "NULL");
    return -1;
}

static int
managed_from_py_object(void *py_object, DLManagedTensorVersioned **out)
{
    if (check_own_array(py_object, "managed_tensor_from_py_object_no_sync") < 0) {
        return -1;
    }
    DLAArrayObject *a = py_object;
    *out = dla_export_versioned(a);
    return *out == NULL ? -1 : 0;
}

/* A DLTensor has no flags, so an array whose flags matter cannot be
 * described by one: the same rule as for a legacy capsule. */
static int
dltensor_from_py_object(void *py_object, DLTensor *out)
{
    if (check_own_array(py_object, "dltensor_from_py_object_no_sync") < 0) {
        return -1;
    }
    DLAArrayObject *a = py_object;
    if (a->flags & DLA_FLAG_READONLY) {
        PyErr_SetString(PyExc_BufferError,
                        "dltensor_from_py_object_no_sync on a read-only DLArray: "
                        "a bare DLTensor cannot mark memory read-only, so the "
                        "consumer could write to it. Use "
                        "managed_tensor_from_py_object_no_sync, whose flags say so");
        return -1;
    }
    if (a->flags & DLA_FLAG_PADDED) {
        PyErr_SetString(PyExc_BufferError,
                        "dltensor_from_py_object_no_sync on a padded sub-byte "
                        "DLArray: a bare DLTensor cannot carry "
                        "IS_SUBBYTE_TYPE_PADDED, so the consumer would read it "
                        "as packed. Use managed_tensor_from_py_object_no_sync");
        return -1;
    }
    dla_fill_borrowed_dltensor(out, a);
    return 0;
}

static int
managed_to_py_object(DLManagedTensorVersioned *tensor, void **out_py_object)
{
    if (tensor == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "managed_tensor_to_py_object_no_sync got a NULL tensor");
        return -1;
    }
    PyObject *array = dla_adopt_versioned(tensor); /* steals, even on failure */
    *out_py_object = array;
    return array == NULL ? -1 : 0;
}

static int
current_work_stream(DLDeviceType device_type, int32_t device_id, void **out)
{
    *out = NULL;
    DLADeviceFamily family = dla_device_family(device_type);
    if (family == DLA_FAMILY_HOST) {
        return 0; /* host memory has no streams */
    }
    if (!dla_family_has_streams(family)) {
        PyErr_Format(PyExc_ValueError,
                     "current_work_stream(device_type=%d, device_id=%d): dlarray "
                     "has no arrays on that device type, so no stream there",
                     (int)device_type, (int)device_id);
        return -1;
    }
    PyObject *stream =
        dla_call_memory(dla_state.str_work_stream, "(ii)", (int)device_type, (int)device_id);
    if (stream == NULL) {
        return -1;
    }
    *out = PyLong_AsVoidPtr(stream);
    Py_DECREF(stream);
    return *out == NULL && PyErr_Occurred() ? -1 : 0;
}

/* ---- the allocator ---- */

static DLAArrayObject *
allocate_host(const DLTensor *prototype, int64_t count)
{
    int64_t nbytes = dla_nbytes(count, prototype->dtype, false);
    if (nbytes < 0) {
        return NULL;
    }
    PyObject *buffer = PyObject_CallFunction((PyObject *)&DLAHostBuffer_Type, "L",
                                             (long long)nbytes);
    if (buffer == NULL) {
        return NULL;
    }
    DLDevice cpu = {kDLCPU, 0};
    DLAArrayObject *a = dla_array_new(buffer, ((DLAHostBufferObject *)buffer)->pointer, 0,
                                      cpu, prototype->dtype, prototype->ndim,
                                      prototype->shape, NULL, 0);
    Py_DECREF(buffer);
    return a;
}

static DLAArrayObject *
allocate_elsewhere(const DLTensor *prototype, const DLADTypeEntry *entry)
{
    if (dla_state.memory == NULL || dla_state.dtype_objects == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "dlarray's device support is not loaded");
        return NULL;
    }
    PyObject *shape = PyTuple_New(prototype->ndim);
    if (shape == NULL) {
        return NULL;
    }
    for (int32_t i = 0; i < prototype->ndim; i++) {
        PyObject *n = PyLong_FromLongLong(prototype->shape[i]);
        if (n == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
        PyTuple_SET_ITEM(shape, i, n);
    }
    PyObject *dtype = PyTuple_GET_ITEM(dla_state.dtype_objects, entry - dla_dtype_table);
    PyObject *array = dla_call_memory(dla_state.str_allocate, "(OO(ii))", shape, dtype,
                                      (int)prototype->device.device_type,
                                      (int)prototype->device.device_id);
    Py_DECREF(shape);
    if (array != NULL && !DLAArray_Check(array)) {
        Py_DECREF(array);
        PyErr_SetString(PyExc_TypeError, "dlarray's allocate hook must return a DLArray");
        return NULL;
    }
    return (DLAArrayObject *)array;
}

static DLManagedTensorVersioned *
allocate(const DLTensor *prototype)
{
    if (prototype == NULL || prototype->ndim < 0 ||
        (prototype->ndim > 0 && prototype->shape == NULL)) {
        PyErr_SetString(PyExc_ValueError,
                        "managed_tensor_allocator: the prototype must be a DLTensor "
                        "with ndim >= 0 and a shape");
        return NULL;
    }
    const DLADTypeEntry *entry = dla_dtype_find(prototype->dtype);
    if (entry == NULL) {
        return NULL;
    }
    if (prototype->ndim > DLA_MAX_NDIM) { /* refused before the shape is read */
        dla_check_shape(PyExc_ValueError, "managed_tensor_allocator's prototype",
                        prototype->ndim, NULL, prototype->dtype);
        return NULL;
    }
    int64_t count = dla_shape_product(prototype->ndim, prototype->shape);
    if (count < 0) {
        return NULL;
    }
    DLAArrayObject *a = dla_device_family(prototype->device.device_type) == DLA_FAMILY_HOST
                            ? allocate_host(prototype, count)
                            : allocate_elsewhere(prototype, entry);
    if (a == NULL) {
        return NULL;
    }
    /* The managed tensor is the array's only owner once this returns. */
    DLManagedTensorVersioned *m = dla_export_versioned(a);
    Py_DECREF(a);
    return m;
}

/* DLPack's allocator reports errors through SetError, so that a caller
 * need not use Python's API; the Python exception is turned into a call of
 * SetError(error_ctx, "<exception type>", "<message>") and cleared.
 * Without a SetError the return code alone reports the failure, and the
 * exception is cleared all the same: left set, it would surface later on
 * the calling thread as an unrelated error -- in a caller that held no
 * GIL, at whatever Python code next runs there (issue 28). */
static void
report_to_caller(void *error_ctx,
                 void (*SetError)(void *error_ctx, const char *kind, const char *message))
{
    if (SetError == NULL) {
        PyErr_Clear();
        return;
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *value = PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
#endif
    const char *kind = value ? Py_TYPE(value)->tp_name : "RuntimeError";
    PyObject *text = value ? PyObject_Str(value) : NULL;
    const char *message = text ? PyUnicode_AsUTF8(text) : NULL;
    if (message == NULL) {
        PyErr_Clear();
        message = "(the error message could not be formatted)";
    }
    SetError(error_ctx, kind, message);
    Py_XDECREF(text);
    Py_XDECREF(value);
}

static int
managed_tensor_allocator(DLTensor *prototype, DLManagedTensorVersioned **out,
                         void *error_ctx,
                         void (*SetError)(void *error_ctx, const char *kind,
                                          const char *message))
{
    PyGILState_STATE gil = PyGILState_Ensure();
    *out = allocate(prototype);
    if (*out == NULL) {
        report_to_caller(error_ctx, SetError);
    }
    PyGILState_Release(gil);
    return *out == NULL ? -1 : 0;
}

/* ---- the table and its registration ---- */

const DLPackExchangeAPI dla_exchange_api = {
    .header = {.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, .prev_api = NULL},
    .managed_tensor_allocator = managed_tensor_allocator,
    .managed_tensor_from_py_object_no_sync = managed_from_py_object,
    .managed_tensor_to_py_object_no_sync = managed_to_py_object,
    .dltensor_from_py_object_no_sync = dltensor_from_py_object,
    .current_work_stream = current_work_stream,
};

int
dla_add_exchange_api_attributes(PyTypeObject *type)
{
    /* The table is static and never freed, so the capsule has no destructor. */
    PyObject *capsule = PyCapsule_New((void *)&dla_exchange_api, "dlpack_exchange_api", NULL);
    PyObject *address = PyLong_FromVoidPtr((void *)&dla_exchange_api);
    int rc = -1;
    if (capsule != NULL && address != NULL &&
        PyDict_SetItemString(type->tp_dict, "__dlpack_c_exchange_api__", capsule) == 0 &&
        PyDict_SetItemString(type->tp_dict, "__c_dlpack_exchange_api__", address) == 0) {
        PyType_Modified(type);
        rc = 0;
    }
    Py_XDECREF(capsule);
    Py_XDECREF(address);
    return rc;
}
