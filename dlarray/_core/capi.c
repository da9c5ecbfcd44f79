/*
 * capi.c -- the C API for extension authors (dlarray_capi.h).
 *
 * borrow(), release() and to_managed() hand an extension any producer's
 * tensor: through its C exchange table when its type has one
 * (exchange_consumer.c), otherwise through __dlpack__, asked with the
 * stream from_dlpack would pass (consumer.c's dla_consumer_stream), and
 * taken out of the capsule with import.c's capsule functions.
 */
#include "core.h"
#define DLARRAY_CAPI_PROVIDER
#include "dlarray_capi.h"
#include <string.h>

/* The stream to pass __dlpack__ for a producer without a table, and the
 * handle the extension launches on (DLArrayBorrowed.stream): the stream
 * from_dlpack would pass (dla_consumer_stream).  An int stream is also the
 * handle; on a CUDA memory kind None names CUDA's legacy default stream,
 * which is then passed as such (1 for DLPack, cudaStreamLegacy for CUDA),
 * as it is before dlarray registers its array class.  Any other stream
 * (a SYCL queue object) and None elsewhere give the handle NULL. */
static int
capsule_stream(PyObject *obj, PyObject **stream_arg, void **stream_handle)
{
    *stream_handle = NULL;
    DLDevice device;
    int decided = dla_consumer_stream(obj, &device, stream_arg);
    if (decided < 0) {
        return -1;
    }
    if (decided == 0) {
        *stream_arg = Py_NewRef(Py_None);
    }
    if (*stream_arg == Py_None && dla_device_family(device.device_type) == DLA_FAMILY_CUDA) {
        Py_SETREF(*stream_arg, PyLong_FromLong(1));
        if (*stream_arg == NULL) {
            return -1;
        }
    }
    if (PyLong_Check(*stream_arg) && !PyBool_Check(*stream_arg)) {
        *stream_handle = PyLong_AsVoidPtr(*stream_arg);
        if (*stream_handle == NULL && PyErr_Occurred()) {
            Py_CLEAR(*stream_arg);
            return -1;
        }
    }
    return 0;
}

/* An owning export of x through its table, or NULL with an exception. */
static DLManagedTensorVersioned *
export_through_table(PyObject *x, const DLPackExchangeAPI *api)
{
    DLManagedTensorVersioned *m = NULL;
    if (api->managed_tensor_from_py_object_no_sync(x, &m) != 0 || m == NULL) {
        dla_ensure_table_error(x, "managed_tensor_from_py_object_no_sync");
        return NULL;
    }
    return m;
}

/* obj.__dlpack__(...) (consumer.c's dla_request_capsule), with the C API's
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
    const char *name;
    void *managed = dla_capsule_claim(capsule, versioned, &name);
    if (managed == NULL) {
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
    if (capsule_stream(obj, &stream, &out->stream) < 0) {
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
        return dla_device_family(a->device.device_type) == DLA_FAMILY_HOST
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
            dla_ensure_table_error(obj, "dltensor_from_py_object_no_sync");
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
    if (dla_device_family(device.device_type) != DLA_FAMILY_HOST &&
        api->current_work_stream(device.device_type, device.device_id, &out->stream) != 0) {
        dla_ensure_table_error(obj, "current_work_stream");
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
    PyObject *stream;
    void *unused_handle;
    if (capsule_stream(obj, &stream, &unused_handle) < 0) {
        return -1;
    }
    PyObject *capsule = request_capsule(obj, stream);
    Py_DECREF(stream);
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
