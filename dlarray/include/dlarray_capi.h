/*
 * dlarray_capi.h -- dlarray's C API for extension authors.
 *
 * One call turns any Python DLPack producer (a torch.Tensor, a NumPy array, a
 * DLArray, ...) into a DLTensor your C or C++ code can read, with no
 * Python-level call when the producer's type carries a DLPack C exchange
 * table (`__dlpack_c_exchange_api__`), and through `__dlpack__` otherwise:
 *
 *     #include <Python.h>
 *     #include "dlarray_capi.h"      // compile with -I dlarray.get_include()
 *
 *     // once, in PyInit_yourmodule:
 *     if (DLArray_ImportCAPI() < 0) return NULL;
 *
 *     // per call, with the GIL held:
 *     DLArrayBorrowed view;
 *     if (DLArray_API->borrow(obj, &view) < 0) return NULL;  // exception set
 *     ... read view.tensor (launch on view.stream for a GPU tensor) ...
 *     DLArray_API->release(&view);
 *
 * The view is valid until release(), and while `obj` is alive and no Python
 * code runs (a producer may resize or free its memory when Python code runs:
 * DLPack's dltensor_from_py_object_no_sync gives no longer guarantee).  For
 * a tensor to keep, take ownership with to_managed() instead.
 *
 * Every function needs the GIL and reports errors as Python exceptions,
 * with the error taxonomy of dlarray: BufferError when the data cannot be
 * exchanged, TypeError when `obj` is not a DLPack producer.
 *
 * The struct only grows: new functions are appended and `version` goes up,
 * so an extension built against version N runs with any later dlarray.
 * See docs/exchange_api.md.
 */
#ifndef DLARRAY_CAPI_H
#define DLARRAY_CAPI_H

#include <Python.h>
#include "dlpack_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The capsule holding the table, and its version. */
#define DLARRAY_CAPI_CAPSULE "dlarray._core._C_API"
#define DLARRAY_CAPI_VERSION 1

/* A borrowed view of a producer's tensor; fill it with borrow(). */
typedef struct {
    /* The view, checked (ndim >= 0, a shape when ndim > 0).  As in DLPack:
     * shape may be NULL when ndim == 0, and strides NULL means C-contiguous
     * (only producers older than DLPack 1.2 send that). */
    DLTensor tensor;
    /* The producer's current work stream on tensor.device, to launch work
     * on (DLPack's current_work_stream): NULL for CPU memory, for a
     * producer without a table the stream it was asked to order its work
     * before -- on CUDA memory dlarray's work stream (cudaStreamLegacy, 0x1,
     * unless CuPy's current stream is another), NULL where that is no
     * handle (a SYCL producer is passed dlarray's queue object). */
    void *stream;
    /* DLPACK_FLAG_BITMASK_* of the tensor: READ_ONLY means do not write.
     * 0 when the producer could not say (dltensor_from_py_object_no_sync
     * and legacy capsules carry no flags). */
    uint64_t flags;
    /* Private: what release() gives back. */
    void *owned_;    /* DLManagedTensorVersioned*, DLManagedTensor*, or NULL */
    int owned_kind_; /* 0 nothing, 1 versioned, 2 legacy */
} DLArrayBorrowed;

typedef struct {
    uint32_t version; /* DLARRAY_CAPI_VERSION of the dlarray providing it */
    uint32_t size;    /* sizeof this struct there */

    /* The DLPack C exchange table of `type` that dlarray would use: the
     * 1.3 capsule `__dlpack_c_exchange_api__` or the 1.2 integer
     * `__c_dlpack_exchange_api__`, walked through prev_api to a major
     * version 1 table.  NULL without an exception when the type has none
     * dlarray can use; NULL with one on failure.  Cached per type. */
    const DLPackExchangeAPI *(*exchange_api_of)(PyTypeObject *type);

    /* Borrow `obj` as a DLTensor (see the top of this file).  0, or -1
     * with an exception set and nothing to release. */
    int (*borrow)(PyObject *obj, DLArrayBorrowed *out);

    /* Give back what borrow() took; the view must not be used after.
     * Safe to call twice, and on a zeroed struct. */
    void (*release)(DLArrayBorrowed *view);

    /* An owning, versioned managed tensor of `obj` (through the table, or
     * `__dlpack__(max_version=(1, 3))`); call its deleter when done.  0, or
     * -1 with an exception set.  BufferError when the producer can only
     * give a legacy capsule. */
    int (*to_managed)(PyObject *obj, DLManagedTensorVersioned **out);

    /* dlarray's own exchange table, as on the DLArray type: its
     * managed_tensor_to_py_object_no_sync makes a DLArray of any managed
     * tensor, its managed_tensor_allocator allocates dlarray memory. */
    const DLPackExchangeAPI *exchange_api;
} DLArray_CAPI;

/* dlarray's own core defines DLARRAY_CAPI_PROVIDER: it provides the table. */
#ifndef DLARRAY_CAPI_PROVIDER

/* Set by DLArray_ImportCAPI().  Each C file that includes this header has
 * its own copy; call the import in each extension module's init. */
static const DLArray_CAPI *DLArray_API = NULL;

/* Import dlarray and fetch its C API: 0, or -1 with an exception set (an
 * ImportError when dlarray is missing or older than this header). */
static inline int
DLArray_ImportCAPI(void)
{
    const DLArray_CAPI *api =
        (const DLArray_CAPI *)PyCapsule_Import(DLARRAY_CAPI_CAPSULE, 0);
    if (api == NULL) {
        return -1;
    }
    if (api->version < DLARRAY_CAPI_VERSION) {
        PyErr_Format(PyExc_ImportError,
                     "dlarray's C API is version %u; this extension was "
                     "built against version %d: upgrade dlarray",
                     (unsigned)api->version, DLARRAY_CAPI_VERSION);
        return -1;
    }
    DLArray_API = api;
    return 0;
}

#endif /* DLARRAY_CAPI_PROVIDER */

#ifdef __cplusplus
}
#endif

#endif /* DLARRAY_CAPI_H */
