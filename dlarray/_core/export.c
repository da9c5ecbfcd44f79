/*
 * export.c -- the producer: DLArray.__dlpack__ and __dlpack_device__.
 *
 * One export is one PyMem_Malloc block: the managed-tensor struct followed by
 * shape[ndim] and strides[ndim].  Its manager_ctx is a strong reference to the
 * exported array, so the memory lives until the consumer calls the deleter.
 *
 * Versioned ("dltensor_versioned") and legacy ("dltensor") exports share every
 * step; they differ only in the struct at the head of the block, the deleter
 * and the capsule names, which the CapsuleKind table below holds.
 */
#include "core.h"
#include <string.h>


/* ---- export blocks ---- */

/* Exports are made and released at a high rate, so the blocks of arrays of
 * up to POOLED_NDIM dimensions (nearly all) are kept for reuse instead of
 * going back to the allocator.  Each block starts with a private prefix,
 * before the managed struct the consumer sees, recording whether it is a
 * pool-sized block: the consumer owns the struct while it holds it, so
 * nothing in it (ndim, say) can be trusted to say which. */
#define POOLED_NDIM 4
#define POOL_CAPACITY 64
typedef struct {
    uint64_t pooled; /* 8 bytes, so the managed struct stays 8-aligned */
} BlockPrefix;
#define POOLED_BODY (sizeof(DLManagedTensorVersioned) + 2 * POOLED_NDIM * sizeof(int64_t))

static void *block_pool[POOL_CAPACITY]; /* prefixes of free pool-sized blocks */
static int block_pool_count;

/* A block whose body (what follows the prefix) has `body` bytes; the
 * caller holds the GIL. */
static void *
block_alloc(size_t body)
{
    bool pooled = body <= POOLED_BODY;
    BlockPrefix *prefix;
    if (DLA_FREELISTS && pooled && block_pool_count > 0) {
        prefix = block_pool[--block_pool_count];
    }
    else {
        prefix = PyMem_Malloc(sizeof(BlockPrefix) + (pooled ? POOLED_BODY : body));
        if (prefix == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
    }
    prefix->pooled = pooled;
    return prefix + 1;
}

/* Frees a block_alloc block by its body; the caller holds the GIL. */
static void
block_free(void *body)
{
    BlockPrefix *prefix = (BlockPrefix *)body - 1;
    if (DLA_FREELISTS && prefix->pooled && block_pool_count < POOL_CAPACITY) {
        block_pool[block_pool_count++] = prefix;
    }
    else {
        PyMem_Free(prefix);
    }
}

/* ---- deleters: called by the consumer, from any thread, at any time ---- */

/* Both deleters free a block whose manager_ctx is a strong reference.  After
 * interpreter shutdown there is no safe way to drop that reference, so they
 * leak instead of crashing (the rule of DLPack's Python spec). */
static void
release_export(void *block, PyObject *manager_ctx)
{
    /* Consumers nearly always call the deleter holding the GIL, which also
     * proves the interpreter is alive; taking the GIL again would cost two
     * thread-local lookups per export.  A thread without it (PyTorch's
     * deleters, a consumer's own C thread) must take it: the reference
     * count and the block pool are guarded by the GIL alone.  Free-threaded
     * CPython has no GIL but the same rule: a reference count may be
     * dropped only by a thread with an attached thread state, which
     * PyGILState_Ensure attaches (skipping it there crashed tvm-ffi,
     * apache/tvm-ffi#529). */
    if (dla_this_thread_holds_gil()) {
        Py_XDECREF(manager_ctx);
        block_free(block);
        return;
    }
    if (!Py_IsInitialized() || DLA_FINALIZING()) {
        return;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF(manager_ctx);
    block_free(block);
    PyGILState_Release(gil);
}

static void
versioned_deleter(DLManagedTensorVersioned *self)
{
    release_export(self, (PyObject *)self->manager_ctx);
}

static void
legacy_deleter(DLManagedTensor *self)
{
    release_export(self, (PyObject *)self->manager_ctx);
}

/* ---- capsule destructors ---- */

/* Runs when the capsule object dies.  A consumer renames the capsules it takes
 * ("used_..."); only a capsule nobody took still owns its tensor.  Our own
 * name is recognised by its address first, so an unconsumed capsule costs no
 * string comparison, and the block is found through the capsule's context
 * (set to it at export), which needs none either.  This can run while an
 * exception is propagating, so it must leave that exception alone. */
static void
destroy_capsule(PyObject *capsule, const char *name, bool versioned)
{
    const char *current = PyCapsule_GetName(capsule);
    if (current != name && (current == NULL || strcmp(current, name) != 0)) {
        return; /* taken by a consumer (GetName cannot fail on a capsule) */
    }
    /* Our context is never NULL, so GetContext cannot fail. */
    void *ptr = PyCapsule_GetContext(capsule);
    if (ptr == NULL) {
        DLA_SAVE_EXCEPTION(in_flight);
        PyErr_WriteUnraisable(capsule);
        DLA_RESTORE_EXCEPTION(in_flight);
        return;
    }
    /* Our deleters call no Python code and set no exception; the
     * deallocations their decref may start are safe with an exception in
     * flight (CPython's finalizers, and dla_call_deleter for an imported
     * owner, put it aside themselves).  So it stays where it is: saving
     * and restoring it cost a tenth of an export. */
    dla_run_deleter(ptr, versioned);
}

static void
destroy_versioned_capsule(PyObject *capsule)
{
    destroy_capsule(capsule, DLA_VERSIONED_NAME, true);
}

static void
destroy_legacy_capsule(PyObject *capsule)
{
    destroy_capsule(capsule, DLA_LEGACY_NAME, false);
}

typedef struct {
    const char *name;
    size_t head_size; /* the managed struct at the start of the block */
    PyCapsule_Destructor destructor;
} CapsuleKind;

static const CapsuleKind VERSIONED = {
    DLA_VERSIONED_NAME, sizeof(DLManagedTensorVersioned), destroy_versioned_capsule};
static const CapsuleKind LEGACY = {DLA_LEGACY_NAME, sizeof(DLManagedTensor),
                                   destroy_legacy_capsule};

/* Devices whose data pointers are plain addresses (the device table's
 * plain_addresses).  For these the export folds byte_offset into data:
 * several consumers (older PyTorch, cuda.core) ignore byte_offset and
 * would read the wrong elements, and DLPack's own header says not to rely
 * on data being aligned.  Opaque handles (OpenCL cl_mem, Vulkan, Metal
 * buffers) cannot be offset, so they keep it.
 *
 * SYCL memory (kDLOneAPI) keeps it too, and is the one family whose size-0
 * tensors get a real pointer: dpnp.tensor, the reference kDLOneAPI consumer,
 * places the elements of a negative-stride view above data + byte_offset
 * (so it misreads a view whose data is its first element), and fails on
 * NULL data (dpnp 0.20).  data stays the USM allocation's own pointer,
 * which is what dpctl's pointer queries expect anyway. */
/* Fills a DLTensor describing `a`; shape and strides point at `dims`
 * (2 * ndim entries, filled by the caller).  Inline: it is on every
 * export's path, and a call here measurably slowed numpy.from_dlpack(x). */
static inline void
fill_dltensor(DLTensor *t, const DLAArrayObject *a, int64_t *dims)
{
    const DLADeviceEntry *device = dla_device_entry(a->device.device_type);
    if (dla_array_size(a) == 0 && !(device != NULL && device->family == DLA_FAMILY_SYCL)) {
        /* The header: "if the tensor is of size zero, then the data pointer
         * should be set to NULL". */
        t->data = NULL;
        t->byte_offset = 0;
    }
    else if (device != NULL && device->plain_addresses) {
        t->data = dla_offset_pointer(a->data, a->byte_offset);
        t->byte_offset = 0;
    }
    else {
        t->data = a->data;
        t->byte_offset = a->byte_offset;
    }
    t->device = a->device;
    t->ndim = a->ndim;
    t->dtype = a->dtype;
    /* Never NULL, even for 0-d arrays: some consumers dereference them. */
    t->shape = dims;
    t->strides = dims + a->ndim;
}

void
dla_fill_borrowed_dltensor(DLTensor *t, const DLAArrayObject *a)
{
    /* The array's own shape and strides are contiguous (strides follow
     * shape) and live as long as the array. */
    fill_dltensor(t, a, a->shape);
}

uint64_t
dla_export_flags(const DLAArrayObject *a)
{
    uint64_t flags = 0;
    if (a->flags & DLA_FLAG_READONLY) {
        flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
    }
    if (a->flags & DLA_FLAG_PADDED) {
        flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    }
    return flags;
}

/* One export is one block: the managed struct, then shape and strides.
 * Both heads hold pointers and 64-bit fields, so they end 8-aligned and the
 * int64 dims can follow directly. */
static void *
export_block(DLAArrayObject *a, const CapsuleKind *kind, uint64_t flags)
{
    char *block = block_alloc(kind->head_size + 2 * (size_t)a->ndim * sizeof(int64_t));
    if (block == NULL) {
        return NULL;
    }
    int64_t *dims = (int64_t *)(block + kind->head_size);
    /* A loop, not memcpy: for the usual one to four axes the call costs
     * more than the copy. */
    for (int32_t i = 0; i < a->ndim; i++) {
        dims[i] = a->shape[i];
        dims[a->ndim + i] = a->strides[i];
    }
    if (kind == &VERSIONED) {
        DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)block;
        m->version.major = DLPACK_MAJOR_VERSION;
        m->version.minor = DLPACK_MINOR_VERSION;
        m->manager_ctx = a;
        m->deleter = versioned_deleter;
        m->flags = flags;
        fill_dltensor(&m->dl_tensor, a, dims);
    }
    else {
        DLManagedTensor *m = (DLManagedTensor *)block;
        m->manager_ctx = a;
        m->deleter = legacy_deleter;
        fill_dltensor(&m->dl_tensor, a, dims);
    }
    /* The block's reference, dropped by the deleter. */
    Py_INCREF(a);
    return block;
}

DLManagedTensorVersioned *
dla_export_versioned(DLAArrayObject *a)
{
    return export_block(a, &VERSIONED, dla_export_flags(a));
}

static PyObject *
make_capsule(DLAArrayObject *a, const CapsuleKind *kind, uint64_t flags)
{
    void *block = export_block(a, kind, flags);
    if (block == NULL) {
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(block, kind->name, kind->destructor);
    if (capsule != NULL && PyCapsule_SetContext(capsule, block) < 0) {
        PyCapsule_SetDestructor(capsule, NULL);
        Py_CLEAR(capsule);
    }
    if (capsule == NULL) {
        /* Nobody else has seen the block: undo it without the deleter. */
        Py_DECREF(a);
        block_free(block);
        return NULL;
    }
    return capsule;
}

/* ---- argument checks ---- */

/* The value of an exact int in [0, 2**30), or -1 for anything else:
 * read inline, with no call, for the (1, 3) of nearly every consumer's
 * max_version and the small pair of a dl_device. */
static inline long long
small_natural(PyObject *obj)
{
    if (!PyLong_CheckExact(obj)) {
        return -1;
    }
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Long_IsCompact((PyLongObject *)obj)) {
        return -1;
    }
    Py_ssize_t value = PyUnstable_Long_CompactValue((PyLongObject *)obj);
    return value >= 0 && value < (1 << 30) ? (long long)value : -1;
#else
    /* 3.11 and older: the size is the signed digit count; one digit holds
     * 30 bits (15 on builds without 64-bit digits, still a natural). */
    Py_ssize_t size = Py_SIZE(obj);
    return size == 0 ? 0 : size == 1 ? (long long)((PyLongObject *)obj)->ob_digit[0] : -1;
#endif
}

/* An integer argument: an int or anything with __index__ (NumPy's integer
 * scalars), but not a bool, which is an int only by accident of history.
 * 1 with *value set; 0 (no exception) when obj is not an integer; -1 with
 * an exception.  *overflow is -1 or +1 when the value does not fit in a
 * long long (*value is then meaningless), as PyLong_AsLongLongAndOverflow
 * says. */
static inline int
integer_argument(PyObject *obj, long long *value, int *overflow)
{
    /* The common case, a plain int as in max_version=(1, 3), without
     * __index__'s new reference (it was a fifth of an export's cost), and
     * a small natural without even a call. */
    if (PyLong_CheckExact(obj)) {
        long long small = small_natural(obj);
        if (small >= 0) {
            *value = small;
            *overflow = 0;
            return 1;
        }
        *value = PyLong_AsLongLongAndOverflow(obj, overflow);
        return *value == -1 && PyErr_Occurred() ? -1 : 1;
    }
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        return 0;
    }
    PyObject *as_int = PyNumber_Index(obj);
    if (as_int == NULL) {
        return -1;
    }
    *value = PyLong_AsLongLongAndOverflow(as_int, overflow);
    Py_DECREF(as_int);
    return *value == -1 && PyErr_Occurred() ? -1 : 1;
}

/* A (a, b) tuple of two integers, each in [low, high]: 0 with both set;
 * -1 with TypeError (wrong types) or ValueError (out of range), worded by
 * the caller's `what`, e.g. "dl_device". */
static inline int
integer_pair(PyObject *obj, const char *what, const char *expected, long long low,
             long long high, long long out[2])
{
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2) {
        goto wrong_type;
    }
    for (int i = 0; i < 2; i++) {
        int overflow = 0;
        int ok = integer_argument(PyTuple_GET_ITEM(obj, i), &out[i], &overflow);
        if (ok < 0) {
            return -1;
        }
        if (ok == 0) {
            goto wrong_type;
        }
        if (overflow != 0 || out[i] < low || out[i] > high) {
            PyErr_Format(PyExc_ValueError,
                         "__dlpack__(%s=%R): each value must be in [%lld, %lld]; "
                         "pass %s",
                         what, obj, low, high, expected);
            return -1;
        }
    }
    return 0;
wrong_type:
    PyErr_Format(PyExc_TypeError,
                 "__dlpack__(%s=%R): %s must be None or %s", what, obj, what, expected);
    return -1;
}

static int
parse_device_pair(PyObject *obj, DLDevice *out)
{
    long long pair[2];
    /* DLDevice holds two 32-bit ints; device types are never negative. */
    if (integer_pair(obj, "dl_device",
                     "a (device_type, device_id) tuple of two ints, as "
                     "__dlpack_device__() returns",
                     0, INT32_MAX, pair) < 0) {
        return -1;
    }
    out->device_type = (DLDeviceType)pair[0];
    out->device_id = (int32_t)pair[1];
    return 0;
}

/* Returns 1 for versioned, 0 for legacy, -1 on error. */
static int
wants_versioned(PyObject *max_version)
{
    if (max_version == Py_None) {
        return 0;
    }
    /* The (1, 3) of nearly every consumer, without integer_pair's checks
     * and calls (docs/benchmarks.md, "The figures behind decisions in the
     * code"). */
    if (PyTuple_CheckExact(max_version) && PyTuple_GET_SIZE(max_version) == 2) {
        long long major = small_natural(PyTuple_GET_ITEM(max_version, 0));
        long long minor = small_natural(PyTuple_GET_ITEM(max_version, 1));
        if (major >= 0 && minor >= 0) {
            return major >= 1; /* as below */
        }
    }
    long long version[2];
    if (integer_pair(max_version, "max_version",
                     "a (major, minor) tuple of two non-negative ints, e.g. (1, 3)",
                     0, UINT32_MAX, version) < 0) {
        return -1;
    }
    /* A consumer that reads major 1 or newer gets our 1.3 tensor; it must
     * check the version it receives, as the spec tells consumers to. */
    return version[0] >= 1;
}

/* Host memory has no streams: None, or -1 ("do not synchronise", which
 * PyTorch sends by default), are the only meaningful values.  Other
 * devices' rules live in Python (dlarray/_cuda/streams.py). */
static int
check_stream(DLAArrayObject *self, PyObject *stream)
{
    if (dla_device_family(self->device.device_type) != DLA_FAMILY_HOST) {
        /* Device kinds with streams validate and order work in Python, for
         * None too: it names a stream there (CUDA's legacy default). */
        PyObject *r = PyObject_CallMethodOneArg((PyObject *)self,
                                                dla_state.str_dlpack_stream, stream);
        Py_XDECREF(r);
        return r == NULL ? -1 : 0;
    }
    if (stream == Py_None) {
        return 0;
    }
    long long value;
    int overflow = 0;
    int is_integer = integer_argument(stream, &value, &overflow);
    if (is_integer < 0) {
        return -1;
    }
    if (is_integer == 0) {
        PyErr_Format(PyExc_TypeError,
                     "__dlpack__(stream=%R): stream must be None or an int",
                     stream);
        return -1;
    }
    if (value == -1 && overflow == 0) {
        return 0;
    }
    PyErr_Format(PyExc_ValueError,
                 "__dlpack__(stream=%R) on a CPU array: CPU memory has no "
                 "streams, so only None (or -1, 'do not synchronise') is "
                 "accepted; pass stream=None",
                 stream);
    return -1;
}

/* ---- the two dunders ---- */

static PyObject *
dla_array_dlpack(PyObject *self_obj, PyObject *const *args, Py_ssize_t nargs,
                 PyObject *kwnames)
{
    DLAArrayObject *self = (DLAArrayObject *)self_obj;
    /* The plain x.__dlpack__() on host memory that no flag needs to
     * describe: a legacy capsule, with none of the checks below to make. */
    if (nargs == 0 && kwnames == NULL &&
        dla_device_family(self->device.device_type) == DLA_FAMILY_HOST &&
        (self->flags & (DLA_FLAG_READONLY | DLA_FLAG_PADDED)) == 0) {
        return make_capsule(self, &LEGACY, 0);
    }
    if (nargs != 0) {
        PyErr_Format(PyExc_TypeError,
                     "__dlpack__() takes only keyword arguments (stream, "
                     "max_version, dl_device, copy); %zd positional given",
                     nargs);
        return NULL;
    }
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None,
             *copy = Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        PyObject *value = args[i];
        if (key == dla_state.kw_max_version || PyUnicode_Compare(key, dla_state.kw_max_version) == 0) {
            max_version = value;
        }
        else if (key == dla_state.kw_stream || PyUnicode_Compare(key, dla_state.kw_stream) == 0) {
            stream = value;
        }
        else if (key == dla_state.kw_dl_device || PyUnicode_Compare(key, dla_state.kw_dl_device) == 0) {
            dl_device = value;
        }
        else if (key == dla_state.kw_copy || PyUnicode_Compare(key, dla_state.kw_copy) == 0) {
            copy = value;
        }
        else {
            PyErr_Format(PyExc_TypeError,
                         "__dlpack__() got an unexpected keyword argument %R; "
                         "it accepts stream, max_version, dl_device and copy",
                         key);
            return NULL;
        }
    }

    int versioned = wants_versioned(max_version);
    if (versioned < 0) {
        return NULL;
    }
    /* The consumer's usual call, __dlpack__(max_version=...) on host
     * memory, needs none of the checks below. */
    if (versioned && stream == Py_None && dl_device == Py_None && copy == Py_None &&
        dla_device_family(self->device.device_type) == DLA_FAMILY_HOST) {
        return make_capsule(self, &VERSIONED, dla_export_flags(self));
    }
    if (copy != Py_None && copy != Py_True && copy != Py_False) {
        PyErr_Format(PyExc_TypeError,
                     "__dlpack__(copy=%R): copy must be None, True or False",
                     copy);
        return NULL;
    }
    DLDevice target = self->device;
    if (dl_device != Py_None && parse_device_pair(dl_device, &target) < 0) {
        return NULL;
    }

    bool other_device = target.device_type != self->device.device_type ||
                        target.device_id != self->device.device_id;
    DLAArrayObject *source = self;
    PyObject *copied = NULL;
    uint64_t flags = 0;
    if (other_device || copy == Py_True) {
        if (copy == Py_False) {
            PyErr_Format(PyExc_BufferError,
                         "__dlpack__(dl_device=(%d, %d), copy=False): the array "
                         "lives on device (%d, %d) and exporting it there needs "
                         "a copy; pass copy=None or copy=True to allow one",
                         (int)target.device_type, (int)target.device_id,
                         (int)self->device.device_type, (int)self->device.device_id);
            return NULL;
        }
        /* Copies are rare and device-specific: the Python side makes them. */
        PyObject *target_pair = Py_BuildValue("(ii)", (int)target.device_type,
                                              (int)target.device_id);
        if (target_pair == NULL) {
            return NULL;
        }
        copied = PyObject_CallMethodOneArg(self_obj, dla_state.str_dlpack_copy,
                                           target_pair);
        Py_DECREF(target_pair);
        if (copied == NULL) {
            return NULL;
        }
        if (!DLAArray_Check(copied)) {
            Py_DECREF(copied);
            PyErr_SetString(PyExc_TypeError, "_dlpack_copy must return a DLArray");
            return NULL;
        }
        source = (DLAArrayObject *)copied;
        flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
    }

    /* Streams are checked on the array actually exported: after a copy,
     * so that the consumer's stream is ordered after the copy too, and a
     * copy to the host is checked by the host's rule (stream=None). */
    if (check_stream(source, stream) < 0) {
        Py_XDECREF(copied);
        return NULL;
    }
    PyObject *capsule = NULL;
    flags |= dla_export_flags(source);
    if (!versioned && (flags & DLPACK_FLAG_BITMASK_READ_ONLY)) {
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__(max_version=None) on a read-only array: a "
                        "legacy 'dltensor' capsule cannot mark memory "
                        "read-only, so exporting would let the consumer write "
                        "to it. Pass max_version=(1, 0) or newer, or copy=True "
                        "for a writable copy");
    }
    else if (!versioned && (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)) {
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__(max_version=None) on a padded sub-byte "
                        "array: a legacy 'dltensor' capsule cannot carry the "
                        "IS_SUBBYTE_TYPE_PADDED flag, so the consumer would "
                        "read it as packed. Pass max_version=(1, 1) or newer");
    }
    else {
        capsule = make_capsule(source, versioned ? &VERSIONED : &LEGACY, flags);
    }
    Py_XDECREF(copied);
    return capsule;
}

static PyObject *
dla_array_dlpack_device(PyObject *self_obj, PyObject *unused)
{
    DLAArrayObject *self = (DLAArrayObject *)self_obj;
    return Py_BuildValue("(ii)", (int)self->device.device_type,
                         (int)self->device.device_id);
}

/* The array type's DLPack methods (module.c adds them to the type). */
PyMethodDef dla_export_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))dla_array_dlpack,
     METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n"
     "--\n\n"
     "Export the array as a DLPack capsule: the producer half of DLPack.\n"
     "\n"
     "``max_version=None`` gives a legacy ``\"dltensor\"`` capsule; ``(1, m)`` or\n"
     "newer a versioned ``\"dltensor_versioned\"`` one, DLPack 1.3, with the\n"
     "READ_ONLY, IS_COPIED and IS_SUBBYTE_TYPE_PADDED flags\n"
     "(:data:`dlarray.abi.READ_ONLY` ...).  ``stream`` is the consumer's\n"
     "stream (only None or -1 on CPU memory); ``dl_device`` and ``copy`` ask\n"
     "for the data elsewhere or copied.  The capsule holds a reference to the\n"
     "array until the consumer calls the deleter.  Consumers written in C can\n"
     "skip the capsule: see ``DLArray.__dlpack_c_exchange_api__``.\n"
     "\n"
     "Raises\n"
     "------\n"
     "BufferError\n"
     "    If the array cannot be exported as asked: a legacy capsule\n"
     "    (``max_version=None``) of a read-only or padded sub-byte array, which\n"
     "    it cannot describe; a ``dl_device`` other than the array's under\n"
     "    ``copy=False``; a ``dl_device`` dlarray has no memory for.\n"
     "    :class:`dlarray.CUDAUnavailableError` (also a ``ValueError``) when\n"
     "    ``dl_device`` is CUDA memory this process cannot reach.\n"
     "TypeError\n"
     "    If an argument is positional, unknown, or of the wrong type\n"
     "    (``stream`` not None or an int, ``max_version`` not a pair of ints,\n"
     "    ``dl_device`` not a ``(device_type, device_id)`` pair, ``copy`` not\n"
     "    None or a bool).\n"
     "ValueError\n"
     "    If ``stream`` is not valid for the array's device (CPU memory has no\n"
     "    streams: only None or -1).\n"
     "\n"
     "Examples\n"
     "--------\n"
     ">>> import dlarray\n"
     ">>> x = dlarray.zeros(3)\n"
     ">>> x.__dlpack__(max_version=(1, 3))  # doctest: +ELLIPSIS\n"
     "<capsule object \"dltensor_versioned\" at 0x...>\n"
     ">>> x.__dlpack__()  # doctest: +ELLIPSIS\n"
     "<capsule object \"dltensor\" at 0x...>\n"
     ">>> x.__dlpack__(stream=1)\n"
     "Traceback (most recent call last):\n"
     "  ...\n"
     "ValueError: __dlpack__(stream=1) on a CPU array: CPU memory has no streams, ...\n"},
    {"__dlpack_device__", dla_array_dlpack_device, METH_NOARGS,
     "__dlpack_device__($self, /)\n--\n\n"
     "Return (device_type, device_id) of the array's memory, as DLPack\n"
     "numbers it (1 is kDLCPU).\n\n"
     "Raises\n"
     "------\n"
     "TypeError\n"
     "    If called with any argument (it takes none).\n"
     "\n"
     "Examples\n--------\n"
     ">>> import dlarray\n"
     ">>> dlarray.zeros(3).__dlpack_device__()\n"
     "(1, 0)\n"},
    {NULL},
};
