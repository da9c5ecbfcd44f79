/*
 * host_buffer.c -- host memory aligned to 256 bytes.
 *
 * DLPack asks for data pointers aligned to 256 bytes (what cudaMalloc gives)
 * so that consumers may use vector loads; every allocation dlarray makes on
 * the host honours that, including zero-byte ones, which still get a real
 * block so that `pointer` is never NULL for a live buffer.
 */
#include "core.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/mman.h>
#include <unistd.h>
#endif

/* Blocks of 4 MiB or more ask the kernel for transparent huge pages, as
 * NumPy does for its own arrays of that size.  Where Linux grants them only
 * on request (transparent_hugepage "madvise", many distributions' default),
 * the first touch of a fresh large block took several times NumPy's time
 * without it, a page fault per 4 KiB (docs/benchmarks.md, "The figures
 * behind decisions in the code"), and every copy into a new array --
 * to_device("cpu") of a GPU array, asarray(copy=True) -- paid that.
 * Advice only: where huge pages are off, nothing changes. */
#define DLA_HUGE_PAGE_MIN ((size_t)1 << 22)

static void
advise_huge_pages(void *p, size_t nbytes)
{
#ifdef MADV_HUGEPAGE
    if (nbytes < DLA_HUGE_PAGE_MIN) {
        return;
    }
    /* Asked each time (a cheap call beside a 4 MiB allocation), so no
     * static is shared between threads of a free-threaded build. */
    long size = sysconf(_SC_PAGESIZE);
    uintptr_t page = size > 0 ? (uintptr_t)size : 4096;
    /* madvise takes whole pages: the ones inside the block. */
    uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)p + nbytes) & ~(page - 1);
    if (end > start) {
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)nbytes;
#endif
}

static void *
aligned_host_alloc(size_t nbytes)
{
#ifdef _WIN32
    return _aligned_malloc(nbytes ? nbytes : 1, DLA_HOST_ALIGNMENT);
#else
    void *p = NULL;
    if (posix_memalign(&p, DLA_HOST_ALIGNMENT, nbytes ? nbytes : 1) != 0) {
        return NULL;
    }
    advise_huge_pages(p, nbytes);
    return p;
#endif
}

static void
aligned_host_free(void *p)
{
#ifdef _WIN32
    _aligned_free(p);
#else
    free(p);
#endif
}

static PyObject *
host_buffer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"nbytes", "zero", NULL};
    Py_ssize_t nbytes;
    int zero = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n|$p:HostBuffer", kwlist,
                                     &nbytes, &zero)) {
        return NULL;
    }
    if (nbytes < 0) {
        PyErr_Format(PyExc_ValueError,
                     "HostBuffer(nbytes=%zd): a size cannot be negative",
                     nbytes);
        return NULL;
    }
    DLAHostBufferObject *self = (DLAHostBufferObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->pointer = aligned_host_alloc((size_t)nbytes);
    if (self->pointer == NULL) {
        Py_DECREF(self);
        return PyErr_Format(PyExc_MemoryError,
                            "could not allocate %zd bytes of host memory",
                            nbytes);
    }
    if (zero) {
        memset(self->pointer, 0, (size_t)nbytes);
    }
    self->nbytes = nbytes;
    return (PyObject *)self;
}

static void
host_buffer_dealloc(DLAHostBufferObject *self)
{
    if (self->pointer != NULL) {
        aligned_host_free(self->pointer);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
host_buffer_get_pointer(DLAHostBufferObject *self, void *closure)
{
    return PyLong_FromVoidPtr(self->pointer);
}

static PyObject *
host_buffer_get_nbytes(DLAHostBufferObject *self, void *closure)
{
    return PyLong_FromSsize_t(self->nbytes);
}

static PyGetSetDef host_buffer_getset[] = {
    {"pointer", (getter)host_buffer_get_pointer, NULL,
     "Address of the first byte (an int), aligned to 256 bytes.\n\n"
     "Examples\n--------\n"
     ">>> from dlarray.storage import HostStorage\n"
     ">>> HostStorage(64).pointer % 256\n"
     "0\n", NULL},
    {"nbytes", (getter)host_buffer_get_nbytes, NULL,
     "Size of the allocation in bytes.\n\n"
     "Examples\n--------\n"
     ">>> from dlarray.storage import HostStorage\n"
     ">>> HostStorage(64).nbytes\n"
     "64\n", NULL},
    {NULL},
};

PyTypeObject DLAHostBuffer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dlarray._core.HostBuffer",
    .tp_doc = "HostBuffer(nbytes, *, zero=False)\n--\n\n"
              "A block of host memory aligned to 256 bytes, freed when the "
              "object dies.",
    .tp_basicsize = sizeof(DLAHostBufferObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = host_buffer_new,
    .tp_dealloc = (destructor)host_buffer_dealloc,
    .tp_getset = host_buffer_getset,
};
