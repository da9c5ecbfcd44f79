/*
 * dlpack_abi.h -- the DLPack ABI as dlarray uses it, declared from the DLPack
 * 1.3 specification.
 *
 * Everything here is a binary contract shared with other libraries: the order
 * and width of every field and the value of every enumerator are fixed by the
 * specification and must never change.  The names follow the specification so
 * that a reader can hold this file next to it.
 */
#ifndef DLARRAY_DLPACK_ABI_H
#define DLARRAY_DLPACK_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The newest version this library reads and writes. */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

/* A (major, minor) pair.  Only the major version changes the layout of
 * DLManagedTensorVersioned; a consumer that sees an unknown major version may
 * do nothing with the tensor except call its deleter. */
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

/* Where the memory lives.  Values 5 and 6 were retired and stay unused. */
typedef enum {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,     /* pinned host memory from cudaMallocHost */
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,    /* pinned host memory from hipMallocHost */
    kDLExtDev = 12,
    kDLCUDAManaged = 13, /* unified memory from cudaMallocManaged */
    kDLOneAPI = 14,      /* SYCL unified shared memory */
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
    kDLTrn = 18,
} DLDeviceType;

typedef struct {
    DLDeviceType device_type; /* an int32-sized enum */
    int32_t device_id;        /* 0 for plain, pinned and managed host memory */
} DLDevice;

/* Element kinds.  The codes 7..17 are the narrow floating-point formats added
 * in DLPack 1.1; their bit widths are fixed (8, 6 or 4). */
typedef enum {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6,
    kDLFloat8_e3m4 = 7,
    kDLFloat8_e4m3 = 8,
    kDLFloat8_e4m3b11fnuz = 9,
    kDLFloat8_e4m3fn = 10,
    kDLFloat8_e4m3fnuz = 11,
    kDLFloat8_e5m2 = 12,
    kDLFloat8_e5m2fnuz = 13,
    kDLFloat8_e8m0fnu = 14,
    kDLFloat6_e2m3fn = 15,
    kDLFloat6_e3m2fn = 16,
    kDLFloat4_e2m1fn = 17,
} DLDataTypeCode;

/* code is stored in a uint8_t to keep the struct at four bytes. */
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

/* A view of memory.  strides count elements, not bytes; since DLPack 1.2 they
 * must be present whenever ndim > 0 (older producers used NULL to mean
 * C-contiguous).  byte_offset is added to data to reach the first element. */
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

/* The pre-1.0 managed tensor, still exchanged in capsules named "dltensor". */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* Bits of DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (UINT64_C(1) << 2)

/* The versioned managed tensor, exchanged in capsules named
 * "dltensor_versioned".  Every field up to and including flags keeps its
 * place in all future versions, so the deleter can always be found. */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* ---- The C exchange API (DLPack 1.3), found on a tensor's type as the
 * capsule `__dlpack_c_exchange_api__` named "dlpack_exchange_api". ---- */

typedef int (*DLPackManagedTensorAllocator)(
    DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
    void (*SetError)(void *error_ctx, const char *kind, const char *message));
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(
    void *py_object, DLManagedTensorVersioned **out);
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);
typedef int (*DLPackCurrentWorkStream)(
    DLDeviceType device_type, int32_t device_id, void **out_current_stream);
typedef int (*DLPackManagedTensorToPyObjectNoSync)(
    DLManagedTensorVersioned *tensor, void **out_py_object);

typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api; /* older table, or NULL */
} DLPackExchangeAPIHeader;

typedef struct DLPackExchangeAPI {
    DLPackExchangeAPIHeader header;
    DLPackManagedTensorAllocator managed_tensor_allocator;
    DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
    DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
    DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync; /* may be NULL */
    DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#endif /* DLARRAY_DLPACK_ABI_H */
