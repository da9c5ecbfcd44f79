/*
 * core.h -- what the C files of dlarray._core share.
 *
 *   dtype_table.c        the one table of element types
 *   device_table.c       the one table of device types and their memory families
 *   host_buffer.c        256-byte aligned host allocations
 *   array.c              the array object: fields, views, copies
 *   subscript.c          basic indexing and transposition, in C for speed
 *   export.c             the producer: __dlpack__, capsules, deleters
 *   exchange_producer.c  dlarray's own DLPack C exchange table
 *   import.c             adoption: validating a producer's tensor, taking it over
 *   exchange_consumer.c  importing through a producer's C exchange table
 *   consumer.c           from_dlpack's entry point: route, stream, __dlpack__ call
 *   capi.c               the C API for extension authors (dlarray_capi.h)
 *   engine_call.c        running an engine kernel and adopting its result
 *   host_adopt.c         taking the host engine's NumPy results without DLPack
 *   operators.c          the array's binary operators and comparisons
 *   fast_function.c      namespace functions whose common case runs in C
 *   module.c             the module, its functions, and the module state
 *
 * The consumer's files call one way, each only files below it (any of
 * them, not just the next):
 *
 *   operators.c, fast_function.c  operators and functions, through engine_call.c
 *   engine_call.c, capi.c   an engine's results; the extensions' C API
 *   consumer.c              from_dlpack's entry point, stream, __dlpack__ call
 *   exchange_consumer.c     import through a producer's exchange table
 *   import.c                adoption of a tensor
 *
 * and, like every file, the two tables, array.c, export.c and dlarray's
 * own exchange table.  Facts several files need -- the registered array
 * class, the host engine's array type, the hooks Python registered -- live
 * in the module state, dla_state, at the end of this file, read through
 * the inlines next to it, never through a call into the file that
 * registered them.
 */
#ifndef DLARRAY_CORE_H
#define DLARRAY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include "dlpack_abi.h"

/* Interpreter shutdown check usable from any thread: the deleters use it to
 * do nothing at all once the interpreter is going away. */
#if PY_VERSION_HEX >= 0x030D0000
#define DLA_FINALIZING() Py_IsFinalizing()
#else
#define DLA_FINALIZING() _Py_IsFinalizing()
#endif

/* Whether the calling thread holds the GIL, answerable from any thread,
 * including one the interpreter has never seen.  From 3.12 the current
 * thread state is a thread-local that is NULL while its thread does not
 * hold the GIL.  On 3.10 and 3.11 it is one process-wide variable naming
 * the GIL *holder*, whichever thread that is, so it must also be this
 * thread's own state (the one PyGILState keeps in thread-local storage):
 * "some thread state is current" alone made a deleter running on a foreign
 * thread believe it held the GIL while another thread did (issue 16). */
static inline bool
dla_this_thread_holds_gil(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyThreadState_GetUnchecked() != NULL;
#elif PY_VERSION_HEX >= 0x030C0000
    return _PyThreadState_UncheckedGet() != NULL;
#else
    PyThreadState *holder = _PyThreadState_UncheckedGet();
    return holder != NULL && holder == PyGILState_GetThisThreadState();
#endif
}

/* Free-threaded CPython (3.13t and later): no GIL serialises the core's
 * small caches of dead objects (the array and import freelists, the export
 * block pool), so they are left out there, and CPython's allocator (which
 * keeps per-thread pages) does their work; docs/design.md, "Threads". */
#ifdef Py_GIL_DISABLED
#define DLA_FREELISTS 0
#else
#define DLA_FREELISTS 1
#endif

/* Per-object critical sections (PEP 703) arrived in 3.13; with the GIL they
 * are no-ops, and before 3.13 the GIL is all there is. */
#if PY_VERSION_HEX < 0x030D0000
#define Py_BEGIN_CRITICAL_SECTION(op) {
#define Py_END_CRITICAL_SECTION() }
#endif

/* Keep an exception aside while running code that may raise another. */
#if PY_VERSION_HEX >= 0x030C0000
#define DLA_SAVE_EXCEPTION(var) PyObject *var = PyErr_GetRaisedException()
#define DLA_RESTORE_EXCEPTION(var) PyErr_SetRaisedException(var)
#else
#define DLA_SAVE_EXCEPTION(var) \
    PyObject *var##_t, *var##_v, *var##_tb; \
    PyErr_Fetch(&var##_t, &var##_v, &var##_tb)
#define DLA_RESTORE_EXCEPTION(var) PyErr_Restore(var##_t, var##_v, var##_tb)
#endif

/* Checked 64-bit arithmetic: each returns true when the exact result does
 * not fit (and *out is then meaningless).  Layout arithmetic -- strides
 * times steps, offsets, byte counts -- takes values from producers and
 * users, so it never relies on signed overflow (undefined in C). */
static inline bool
dla_mul_overflows(int64_t a, int64_t b, int64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_mul_overflow(a, b, out);
#else
    if (a != 0 && b != 0) {
        bool fits = a > 0 ? (b > 0 ? a <= INT64_MAX / b : b >= INT64_MIN / a)
                          : (b > 0 ? a >= INT64_MIN / b : b >= INT64_MAX / a);
        if (!fits) {
            return true;
        }
    }
    *out = a * b;
    return false;
#endif
}

static inline bool
dla_add_overflows(int64_t a, int64_t b, int64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_add_overflow(a, b, out);
#else
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) {
        return true;
    }
    *out = a + b;
    return false;
#endif
}

/* The same, unsigned: a span of strides (import.c) sums magnitudes, and
 * |INT64_MIN| is 2**63, which only an unsigned number holds. */
static inline bool
dla_umul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_mul_overflow(a, b, out);
#else
    *out = a * b;
    return b != 0 && a > UINT64_MAX / b;
#endif
}

static inline bool
dla_uadd_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
    *out = a + b;
    return *out < a;
}

/* Whether the first element's address, data + byte_offset, is no address
 * at all: it wraps around the address space, or byte_offset leaves the
 * signed range that view arithmetic works in.  dla_array_new refuses such
 * an array, and the consumer refuses such a tensor first, by name. */
static inline bool
dla_first_element_out_of_range(const void *data, uint64_t byte_offset)
{
    return byte_offset > (uint64_t)INT64_MAX ||
           (uintptr_t)data + (uintptr_t)byte_offset < (uintptr_t)data;
}

/* The address data + byte_offset, computed on integers: pointer arithmetic
 * that leaves an object is undefined, and a byte_offset is only a number
 * until an array proves it lands inside memory (dla_array_new refuses one
 * that wraps around the address space). */
static inline void *
dla_offset_pointer(const void *data, uint64_t byte_offset)
{
    return (void *)((uintptr_t)data + (uintptr_t)byte_offset);
}

/* A view that starts `offset` (< 0) bytes before `data` (of a producer's
 * negative-stride view): its first element's address, in *out.  False when
 * that address would be below 0, a layout that addresses no memory. */
static inline bool
dla_rebase_before(const void *data, int64_t offset, void **out)
{
    uint64_t back = (uint64_t)0 - (uint64_t)offset; /* |offset|, INT64_MIN too */
    if (back > (uint64_t)(uintptr_t)data) {
        return false;
    }
    *out = (void *)((uintptr_t)data - (uintptr_t)back);
    return true;
}

/* ---- dtype_table.c ---- */
typedef struct {
    const char *name; /* the dtype's name in dlarray, e.g. "float8_e4m3fn" */
    uint8_t code;     /* DLDataTypeCode */
    uint8_t bits;     /* bits of one element; < 8 for the sub-byte types */
    const char *kind; /* "bool", "signed integer", "unsigned integer",
                         "real floating", "complex floating", or
                         "extended floating" for types outside the Array API */
    const char *buffer_format; /* PEP 3118 format ("d", "Zf", ...); NULL: none */
} DLADTypeEntry;

extern const DLADTypeEntry dla_dtype_table[];
extern const Py_ssize_t dla_dtype_table_len;

/* The entry for (code, bits, lanes), or NULL with BufferError set. */
const DLADTypeEntry *dla_dtype_find(DLDataType dtype);
/* The row of (code, bits, lanes) in dla_dtype_table, or -1 (no error set):
 * a look-up inline, for the fast paths, in the rows + 1 (0: none) by
 * (code, bits) that dtype_table.c fills once, at import. */
#define DLA_ROW_CODES 32
#define DLA_ROW_BITS 129
extern int8_t dla_dtype_row_of[DLA_ROW_CODES][DLA_ROW_BITS];
static inline int
dla_dtype_row(DLDataType dtype)
{
    if (dtype.lanes != 1 || dtype.code >= DLA_ROW_CODES || dtype.bits >= DLA_ROW_BITS) {
        return -1;
    }
    return dla_dtype_row_of[dtype.code][dtype.bits] - 1;
}
/* Fills the table dla_dtype_row reads (module.c, once, at import). */
void dla_dtype_row_init(void);
PyObject *dla_dtype_table_as_tuple(void);

/* Bits one element occupies in memory: padded sub-byte elements take a
 * whole byte each, packed ones take exactly `bits`. */
static inline int
dla_storage_bits(DLDataType dtype, bool padded)
{
    if (dtype.bits < 8) {
        return padded ? 8 : dtype.bits;
    }
    return dtype.bits;
}

/* ---- device_table.c ---- */
/* The memory family of a device type: which runtime dlarray drives its
 * memory with.  NONE: dlarray has no runtime for it; it can import and
 * export such memory's addresses but not copy or compute on it. */
typedef enum {
    DLA_FAMILY_NONE = 0,
    DLA_FAMILY_HOST, /* kDLCPU: plain host memory, read directly */
    DLA_FAMILY_CUDA, /* kDLCUDA, kDLCUDAHost, kDLCUDAManaged */
    DLA_FAMILY_SYCL, /* kDLOneAPI (USM device, shared or host) */
} DLADeviceFamily;

typedef struct {
    const char *name;       /* DLPack's name, e.g. "kDLCUDA"; NULL: no such type */
    DLADeviceFamily family;
    bool plain_addresses;   /* data pointers are addresses, which can be offset
                               (not opaque handles: cl_mem, Vulkan, Metal) */
    bool machine_wide;      /* one memory for the whole machine: DLPack numbers
                               it device 0 (host, pinned, managed memory) */
} DLADeviceEntry;

/* Indexed by DLDeviceType; rows without a name are no DLPack 1.3 type. */
#define DLA_DEVICE_TABLE_SIZE 19
extern const DLADeviceEntry dla_device_table[DLA_DEVICE_TABLE_SIZE];

/* The row of a device type, or NULL when DLPack 1.3 has no such type. */
static inline const DLADeviceEntry *
dla_device_entry(int32_t device_type)
{
    if (device_type < 0 || device_type >= DLA_DEVICE_TABLE_SIZE ||
        dla_device_table[device_type].name == NULL) {
        return NULL;
    }
    return &dla_device_table[device_type];
}

/* The family of a device type; DLA_FAMILY_NONE for an unknown one. */
static inline DLADeviceFamily
dla_device_family(int32_t device_type)
{
    const DLADeviceEntry *e = dla_device_entry(device_type);
    return e == NULL ? DLA_FAMILY_NONE : e->family;
}

/* Whether dlarray orders work on this family's memory with streams (CUDA
 * streams, SYCL queues), so that a producer must be told which one. */
static inline bool
dla_family_has_streams(DLADeviceFamily family)
{
    return family == DLA_FAMILY_CUDA || family == DLA_FAMILY_SYCL;
}

/* {device_type: family name} for every DLPack 1.3 type (DEVICE_FAMILIES). */
PyObject *dla_device_families_as_dict(void);
/* frozenset of the machine-wide device types (MACHINE_WIDE_DEVICE_TYPES). */
PyObject *dla_machine_wide_types(void);

/* ---- host_buffer.c ---- */
#define DLA_HOST_ALIGNMENT 256
typedef struct {
    PyObject_HEAD
    void *pointer;
    Py_ssize_t nbytes;
} DLAHostBufferObject;
extern PyTypeObject DLAHostBuffer_Type;

/* ---- array.c ---- */
#define DLA_FLAG_READONLY 1u
#define DLA_FLAG_PADDED 2u   /* sub-byte elements stored one per byte */
#define DLA_INLINE_DIMS 4    /* shape+strides of up to 4-d arrays live inline */

typedef struct {
    PyObject_HEAD
    char *data;             /* base pointer as the memory's owner gave it */
    uint64_t byte_offset;   /* from data to the first element */
    DLDevice device;
    DLDataType dtype;
    int32_t ndim;
    uint32_t flags;         /* DLA_FLAG_* */
    int64_t *shape;         /* ndim entries */
    int64_t *strides;       /* ndim entries, in elements */
    PyObject *owner;        /* keeps the memory alive: storage or import owner */
    PyObject *engine_view;  /* cached compute-engine view of this memory, or NULL */
    PyObject *weakreflist;
    int64_t inline_dims[2 * DLA_INLINE_DIMS];
} DLAArrayObject;

extern PyTypeObject DLAArrayBase_Type;
/* The array's own methods and attributes; the rest of the type's protocols
 * live in the files above (buffer.c, subscript.c, export.c, operators.c),
 * which module.c plugs into the type at import. */
extern PyMethodDef dla_array_methods[];
extern PyGetSetDef dla_array_getset[];
/* buffer.c: the array object's buffer protocol (PEP 3118). */
extern PyBufferProcs dla_array_as_buffer;

#define DLAArray_Check(op) PyObject_TypeCheck(op, &DLAArrayBase_Type)

/* A new array of dla_state.array_type.  Copies shape and strides; strides NULL means
 * C-contiguous.  Steals nothing; takes a new reference to owner. */
DLAArrayObject *dla_array_new(PyObject *owner, void *data, uint64_t byte_offset,
                              DLDevice device, DLDataType dtype, int32_t ndim,
                              const int64_t *shape, const int64_t *strides,
                              uint32_t flags);
/* dla_array_new without its two checks (dla_check_shape and the first
 * element's address), for a caller that has just made them itself: the
 * import, whose errors name the producer's tensor. */
DLAArrayObject *dla_array_new_checked(PyObject *owner, void *data, uint64_t byte_offset,
                                      DLDevice device, DLDataType dtype, int32_t ndim,
                                      const int64_t *shape, const int64_t *strides,
                                      uint32_t flags);
bool dla_array_is_c_contiguous(const DLAArrayObject *a);
/* Makes `cls` the class new arrays are made of; its instances are then
 * allocated and freed by array.c directly when it adds nothing to
 * ArrayBase (1), or by the generic machinery (0). */
int dla_adopt_array_class(PyTypeObject *cls);
/* The registered DType object of a's dtype (borrowed), or NULL with an
 * error set. */
PyObject *dla_array_dtype_object(const DLAArrayObject *a);
int64_t dla_array_size(const DLAArrayObject *a);

/* The most axes an array may have: NumPy's limit (NPY_MAXDIMS), which
 * dlarray's host engine shares, so that every array has a NumPy view. */
#define DLA_MAX_NDIM 64

/* Bytes between consecutive elements, for address arithmetic: sub-byte
 * elements count as one byte (a padded one takes one; a packed array is
 * contiguous and its NumPy form takes one per element). */
static inline int64_t
dla_element_bytes(DLDataType dtype)
{
    return dtype.bits < 8 ? 1 : dtype.bits / 8;
}

/* 0 when dlarray can hold an array of this shape and dtype; otherwise -1
 * with `exc` set, its message starting with `what` ("the DLPack tensor",
 * "an array"): more than DLA_MAX_NDIM axes, a negative extent, or nonzero
 * extents that times the element's bytes overflow int64 (NumPy's rule,
 * for an empty array too).  dla_array_new applies it with ValueError; the
 * import applies it first with BufferError, except for the number of axes,
 * which is a ValueError everywhere (the limit is dlarray's own). */
int dla_check_shape(PyObject *exc, const char *what, int32_t ndim, const int64_t *shape,
                    DLDataType dtype);
/* The same checks in the same pass as the element count: the count (0 for
 * an empty shape), or -1 with `exc` set. */
int64_t dla_check_shape_count(PyObject *exc, const char *what, int32_t ndim,
                              const int64_t *shape, DLDataType dtype);
/* Its too-big refusal, with the shape as the tuple `dims` (for extents that
 * do not even fit in int64). */
void dla_refuse_too_big(PyObject *exc, const char *what, PyObject *dims, DLDataType dtype);

/* a's strides in bytes, into out[] (a->ndim of them): an axis of at most
 * one element whose stride times `itemsize` overflows int64 gets 0 (its
 * stride is never used); a longer one is refused, -1 with `exc` set, its
 * message ending with `consequence` ("so it cannot be copied"). */
int dla_byte_strides(const DLAArrayObject *a, int64_t itemsize, int64_t *out, PyObject *exc,
                     const char *consequence);

/* Byte count of a C-contiguous block of `count` elements, or -1 with
 * BufferError set when it does not fit in a signed 64-bit integer.
 * Inline: every import asks. */
static inline int64_t
dla_nbytes(int64_t count, DLDataType dtype, bool padded)
{
    /* A checked product, not count > (INT64_MAX - 7) / bits: a division
     * by a variable costs tens of cycles on every import. */
    int64_t total_bits;
    if (dla_mul_overflows(count, dla_storage_bits(dtype, padded), &total_bits) ||
        total_bits > INT64_MAX - 7) {
        PyErr_SetString(PyExc_BufferError,
                        "the byte size of the tensor overflows a 64-bit "
                        "integer; the tensor is malformed");
        return -1;
    }
    return (total_bits + 7) / 8;
}

/* Product of a shape with overflow and sign checks (BufferError, -1). */
int64_t dla_shape_product(int32_t ndim, const int64_t *shape);

/* ---- subscript.c ---- */
/* The array type's views: x[key], x.T, _subview, _basic_view. */
extern PyMappingMethods dla_array_as_mapping;
extern PyMethodDef dla_view_methods[];
extern PyGetSetDef dla_view_getset[];
/* The one rule of views: a new array over self's memory with this layout
 * (in elements), starting offset_elements from self's first element.  A
 * packed sub-byte view must be C-contiguous and start on a byte; a layout
 * beyond 64-bit byte arithmetic raises ValueError. */
PyObject *dla_make_view(DLAArrayObject *self, int32_t ndim, const int64_t *shape,
                        const int64_t *strides, int64_t offset_elements);

/* ---- engine_call.c ---- */
PyObject *dla_register_engine(PyObject *module, PyObject *args);
PyObject *dla_engine_call(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames);
/* An engine result as a DLArray that keeps it as its engine view. */
PyObject *dla_engine_adopt(PyObject *module, PyObject *result);
/* HostEngine.promotions ({(DType, DType): DType}) as rows: table[a][b] is
 * the promoted dtype's row + 1 (0: none); -1 with TypeError or ValueError. */
int dla_read_promotions(PyObject *promotions, uint8_t table[64][64]);
/* The kernels' type that takes Python scalars, {scalar type: the dtypes it
 * joins unchanged}, and the promotions' rows (checked by valid_engine and
 * dla_read_promotions: this cannot fail). */
void dla_register_scalar_kernels(PyObject *type, PyObject *joins,
                                 const uint8_t promotions[64][64]);
/* kernel(engine views of xs) as a DLArray when the n (1 or 2) arguments
 * need no rule applied; None (a new reference) when they do; NULL with an
 * exception when the kernel raised.  The allowed dtypes: `allowed_rows`, a
 * mask over the dtype table's rows (dla_allowed_rows).  `scalars`: one of
 * two arguments may be a Python scalar that joins the other's dtype. */
PyObject *dla_engine_fast(PyObject *kernel, uint64_t allowed_rows, PyObject *const *xs,
                          Py_ssize_t n, bool scalars);
/* The rows of the dtype table whose DType objects are in the set `allowed`,
 * as a mask; 0 with an exception set when there are none or on error. */
uint64_t dla_allowed_rows(PyObject *allowed);

/* ---- fast_function.c ---- */
extern PyTypeObject DLAFastFunction_Type;
PyObject *dla_fast_function(PyObject *module, PyObject *args);

/* ---- operators.c ---- */
extern PyNumberMethods dla_array_as_number;
PyObject *dla_array_richcompare(PyObject *self, PyObject *other, int comparison);
PyObject *dla_register_operators(PyObject *module, PyObject *table);

/* ---- host_adopt.c ---- */
/* Whether `type` is NumPy's ndarray (its instances have NumPy's array struct). */
bool dla_is_numpy_array_type(PyTypeObject *type);
/* A NumPy array (exactly numpy.ndarray) as a DLArray that owns it and keeps
 * it as its engine view; None (a new reference) when its dtype or layout
 * needs the DLPack route; NULL with an exception set on failure. */
PyObject *dla_adopt_numpy_result(PyObject *result);

/* ---- export.c ---- */
/* DLPACK_FLAG_BITMASK_* describing a's memory (READ_ONLY, PADDED). */
uint64_t dla_export_flags(const DLAArrayObject *a);
/* An owning versioned export of a, its flags describing a's memory (one
 * block holding a reference to a), or NULL with an exception set. */
DLManagedTensorVersioned *dla_export_versioned(DLAArrayObject *a);
/* A borrowed description of a: shape and strides point into the array. */
void dla_fill_borrowed_dltensor(DLTensor *t, const DLAArrayObject *a);
/* The array type's __dlpack__ and __dlpack_device__. */
extern PyMethodDef dla_export_methods[];

/* ---- import.c ---- */
extern PyTypeObject DLAImportedTensor_Type;
/* consume(capsule): the capsule's tensor as a DLArray, the capsule marked
 * used; NULL with an exception (the capsule then still owns its tensor). */
PyObject *dla_consume_capsule(PyObject *module, PyObject *capsule);
/* A DLArray owning `managed` (stolen: released on failure too). */
PyObject *dla_adopt_versioned(DLManagedTensorVersioned *managed);
/* The same, for a tensor a producer's exchange table gave (the owner's
 * via_table says so). */
PyObject *dla_adopt_from_table(DLManagedTensorVersioned *managed);
/* The tensor in an unconsumed DLPack capsule (still the capsule's), and
 * taking it (renaming the capsule "used_..."). */
void *dla_capsule_tensor(PyObject *capsule, bool *versioned);
/* Claiming a capsule's tensor: its name checked and changed to "used_..."
 * in one step under the capsule's critical section, so that of any number
 * of threads consuming one capsule exactly one gets the tensor and the
 * others the "already consumed" ValueError.  NULL with an exception when
 * there is none to claim; *name is the name it had, for unclaiming: giving
 * the tensor back to the capsule when the import fails before owning it. */
void *dla_capsule_claim(PyObject *capsule, bool *versioned, const char **name);
int dla_capsule_unclaim(PyObject *capsule, const char *name);
/* A managed tensor's deleter, if it has one: `versioned` says which struct
 * `managed` is.  Nothing around it; dla_call_deleter keeps a pending
 * exception aside for deleters that may run Python code. */
static inline void
dla_run_deleter(void *managed, bool versioned)
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
void dla_call_deleter(void *managed, bool versioned);
/* 0 for a tensor of dlarray's major version; otherwise calls its deleter
 * (the spec's rule) and returns -1 with BufferError set. */
int dla_refuse_other_major(DLManagedTensorVersioned *managed);

/* ---- exchange_producer.c ---- */
extern const DLPackExchangeAPI dla_exchange_api;
/* Puts the table on `type` under the DLPack 1.3 and 1.2 attribute names. */
int dla_add_exchange_api_attributes(PyTypeObject *type);

/* ---- exchange_consumer.c ---- */
/* The usable exchange table of a type (cached), NULL without an exception
 * when it has none, NULL with one on failure. */
const DLPackExchangeAPI *dla_exchange_api_of(PyTypeObject *type);
/* from_dlpack(x) through x's table: a DLArray; NULL with an exception; or
 * Py_None (a new reference) when the table cannot be used for this tensor
 * and the caller must fall back to __dlpack__. */
PyObject *dla_import_through_table(PyObject *x, const DLPackExchangeAPI *api);
/* A table function failed: its exception, or a SystemError naming `func`
 * when it set none (which the spec forbids). */
void dla_ensure_table_error(PyObject *x, const char *func);

/* ---- consumer.c ---- */
PyObject *dla_from_dlpack(PyObject *module, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames);
/* The consumer's rules, for dlarray._consumer: where a producer says its
 * memory is, and whether a TypeError refused DLPack 1.0's keywords. */
PyObject *dla_producer_device(PyObject *module, PyObject *x);
PyObject *dla_keywords_refused(PyObject *module, PyObject *exc);
/* The `stream` to pass x.__dlpack__ for its memory to stay where it is,
 * decided from the device table.  *device is where x says its memory is:
 * a DLArray's and the host engine's arrays are not asked; otherwise
 * x.__dlpack_device__(), or {0, 0} (no such device type) when it is
 * missing, fails or returns no pair of ints.
 *   1: *stream is a new reference: None for a family without streams,
 *      otherwise DLArray._memory.consumer_stream's answer;
 *   0: the family has streams and dlarray has not registered yet
 *      (*stream NULL, no exception);
 *  -1: consumer_stream raised (*stream NULL). */
int dla_consumer_stream(PyObject *x, DLDevice *device, PyObject **stream);
/* x.__dlpack__(stream=..., max_version=(1, 3)) with the legacy retry; NULL
 * and *not_a_producer (no exception) when x's type has no __dlpack__. */
PyObject *dla_request_capsule(PyObject *x, PyObject *stream, bool *not_a_producer);

/* ---- capi.c ---- */
/* The capsule "dlarray._core._C_API" (see dlarray_capi.h). */
PyObject *dla_capi_capsule(void);

/* ---- state.c ---- */
/* DLArray._memory.<name>(*args), the args built by Py_BuildValue from
 * `format` (a tuple format): a new reference, or NULL with an exception
 * (RuntimeError before dlarray registered its array class). */
PyObject *dla_call_memory(PyObject *name, const char *format, ...);
/* DLPack's capsule names, one copy each: "dltensor_versioned" and, once a
 * consumer took it, "used_dltensor_versioned"; "dltensor" and
 * "used_dltensor" before DLPack 1.0.  Every exchange compares one of them
 * with strcmp (PyCapsule_GetPointer, a producer's capsule destructor), and
 * glibc's vectorised strcmp takes a slower road for a string near the end
 * of a memory page; so they are aligned to DLA_NAME_ALIGNMENT, which keeps
 * them away from one wherever the linker puts them. */
#define DLA_NAME_ALIGNMENT 256
#if defined(_MSC_VER)
#define DLA_ALIGNED_NAME __declspec(align(DLA_NAME_ALIGNMENT)) const char
#else
#define DLA_ALIGNED_NAME const char __attribute__((aligned(DLA_NAME_ALIGNMENT)))
#endif
extern DLA_ALIGNED_NAME DLA_VERSIONED_NAME[];
extern DLA_ALIGNED_NAME DLA_USED_VERSIONED_NAME[];
extern DLA_ALIGNED_NAME DLA_LEGACY_NAME[];
extern DLA_ALIGNED_NAME DLA_USED_LEGACY_NAME[];

/* ---- state.c: the module state ----
 *
 * Every process-wide object the core holds, in one place: interned strings
 * and constants, and the types and functions dlarray's Python side
 * registers at import.  Each field says who sets it.  All are set before
 * `import dlarray` returns and only read afterwards, so threads share them
 * without locks; they live as long as the process.  (Freelists, the export
 * block pool and the exchange-table cache are caches private to their
 * files; docs/design.md, "Threads", says what protects each.) */
typedef struct {
    /* -- array_type (until register_array_type), interned strings and
     * constants: the first exec (module.c) -- */
    PyObject *str_dlpack_copy;        /* "_dlpack_copy" */
    PyObject *str_dlpack_stream;      /* "_dlpack_check_stream" */
    PyObject *str_host_access;        /* "_prepare_host_access" (buffer.c) */
    PyObject *str_requires_grad;      /* "requires_grad" (exchange_consumer.c) */
    PyObject *kw_stream, *kw_max_version, *kw_dl_device, *kw_copy, *kw_device;
    PyObject *str_dunder_dlpack;      /* "__dlpack__" */
    PyObject *str_dunder_dlpack_device; /* "__dlpack_device__" */
    PyObject *str_keyword;            /* "keyword" */
    PyObject *str_getitem_general;    /* "_getitem_general" */
    PyObject *str_exchange_api;       /* "__dlpack_c_exchange_api__" (DLPack 1.3) */
    PyObject *str_exchange_api_12;    /* "__c_dlpack_exchange_api__" (DLPack 1.2) */
    PyObject *str_quiet_context;      /* "dlarray.engine_quiet_context": the key
                                         of engine_call.c's context in each
                                         thread's state dict */
    PyObject *max_version;            /* (DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION) */
    PyObject *kwnames_stream_max_version; /* ("stream", "max_version") */
    PyObject *kwnames_max_version;        /* ("max_version",) */
    PyObject *kwnames_stream;             /* ("stream",) */

    /* -- everything below is read from the one registered class, by
     * register_array_type (module.c), once at import: dlarray.DLArray names
     * each as a class attribute ("What the C core reads", dlarray/_array.py). */
    /* The class arrays made in C are (dlarray.DLArray); &DLAArrayBase_Type
     * until registered, and then a strong reference. */
    PyTypeObject *array_type;

    /* DLArray._dtype_objects, ._cpu_device, ._device_of: the objects the
     * getters `dtype` and `device` return: one DType per dtype-table row, the
     * CPU Device, and the function making any other Device from
     * (device_type, device_id) and the memory's owner (SYCL memory kinds
     * share one device type, so the owner says which kind). */
    PyObject *dtype_objects;          /* tuple, dtype-table order */
    PyObject *cpu_device;
    PyObject *device_factory;

    /* DLArray._from_dlpack_general: the Python from_dlpack, the whole
     * protocol, for the calls consumer.c does not finish in C. */
    PyObject *general_from_dlpack;

    /* DLArray._memory: the memory families as one object
     * (dlarray._storage.memory.MEMORY).  C calls its methods by name, only
     * for memory other than the host's:
     *   consumer_stream(device_type, device_id) -> the `stream` dlarray
     *       passes a producer whose memory stays there (may raise BufferError);
     *   work_stream(device_type, device_id) -> int: the exchange table's
     *       current_work_stream;
     *   allocate(shape, DType, (device_type, device_id)) -> DLArray: the
     *       exchange table's allocator off the host;
     *   order_import(device_type, device_id, stream) -> bool: order dlarray's
     *       work after a producer's stream (an import through its table);
     *   check_import(array): refuse or label an imported SYCL USM tensor. */
    PyObject *memory;
    PyObject *str_consumer_stream, *str_work_stream, *str_allocate, *str_order_import,
        *str_check_import, *str_operator;

    /* DLArray._host_engine, by register_engine (engine_call.c): */
    PyTypeObject *engine_array_type; /* the host engine's array type (numpy.ndarray),
                                        whose memory is always on the host */
    PyObject *engine_error_state_var; /* a contextvars.ContextVar, or None */
    PyObject *engine_quiet_value;     /* the value that silences it */
    PyObject *engine_fallback_wrap;   /* Python: wrap(result) -> DLArray */
    PyObject *engine_make_view;       /* Python: engine_view(x) -> x's engine view,
                                         cached on x; or NULL */
    bool engine_is_numpy;             /* engine_array_type is NumPy's ndarray, whose
                                         results host_adopt.c takes directly */
    PyObject *engine_dlpack;          /* its __dlpack__ method descriptor, when the
                                         type is immutable (so it cannot change):
                                         called directly, it spares the consumer a
                                         method look-up per import; or NULL */
    /* -- HostEngine.scalar_kernel_type and .scalar_joins (DLArray._host_engine),
     * read by register_array_type (engine_call.c's dla_register_scalar_kernels) -- */
    PyTypeObject *engine_scalar_kernel_type; /* kernels that take Python scalars by
                                                the standard's rules (numpy.ufunc) */
    PyObject *engine_scalar_joins;    /* {scalar type: frozenset of DTypes it
                                         joins unchanged} */
} DLAModuleState;
extern DLAModuleState dla_state;

/* Whether `type` is the host engine's array type (numpy.ndarray), whose
 * memory is always on the host and whose __dlpack_device__ need not be
 * asked. */
static inline bool
dla_is_host_engine_type(PyTypeObject *type)
{
    return dla_state.engine_array_type != NULL && type == dla_state.engine_array_type;
}

/* An array's cached engine view (a new reference, or NULL without an
 * exception), and replacing it.  Threads may share an array, so the slot is
 * read and written under the array's critical section (free-threaded
 * CPython; with the GIL, the GIL): a reader holds its own reference before
 * another thread can drop the view it replaced. */
PyObject *dla_array_get_engine_view(DLAArrayObject *a);
void dla_array_set_engine_view(DLAArrayObject *a, PyObject *view);

/* The host engine's view of an array (a new reference), or NULL (no error
 * set) when it has none: no view yet, no engine registered, or the view of
 * another engine (CuPy, dpnp, the views of managed memory), whose reads go
 * through the Python layer that orders them after pending GPU work and
 * runs them on the array's device. */
static inline PyObject *
dla_engine_view(PyObject *array)
{
    PyObject *view = dla_array_get_engine_view((DLAArrayObject *)array);
    if (view != NULL && (dla_state.engine_array_type == NULL ||
                         Py_TYPE(view) != dla_state.engine_array_type)) {
        Py_CLEAR(view);
    }
    return view;
}

#endif /* DLARRAY_CORE_H */
