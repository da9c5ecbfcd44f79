/*
 * module.c -- dlarray._core: the module, its functions and constants.  It
 * sits above every other file: it readies the types, assembles the array
 * type from the files that implement its protocols, and fills dla_state.
 */
#include "core.h"

/* new_array(owner, data, byte_offset, shape, strides, dtype, device, flags)
 * -- wrap memory the caller has already allocated and checked. */
static PyObject *
new_array(PyObject *module, PyObject *args)
{
    PyObject *owner, *data_obj, *shape_obj, *strides_obj;
    unsigned long long byte_offset;
    int code, bits, lanes, dev_type, dev_id;
    unsigned int flags;
    if (!PyArg_ParseTuple(args, "OOKO!O(iii)(ii)I:new_array", &owner, &data_obj,
                          &byte_offset, &PyTuple_Type, &shape_obj, &strides_obj,
                          &code, &bits, &lanes, &dev_type, &dev_id, &flags)) {
        return NULL;
    }
    void *data = PyLong_AsVoidPtr(data_obj);
    if (data == NULL && PyErr_Occurred()) {
        return NULL;
    }
    DLDataType dtype = {(uint8_t)code, (uint8_t)bits, (uint16_t)lanes};
    if (dla_dtype_find(dtype) == NULL) {
        return NULL;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape_obj);
    if (ndim > DLA_MAX_NDIM) { /* refused by the count alone: shape is not read */
        dla_check_shape(PyExc_ValueError, "an array", (int32_t)Py_MIN(ndim, INT32_MAX), NULL,
                        dtype);
        return NULL;
    }
    if (strides_obj != Py_None &&
        (!PyTuple_Check(strides_obj) || PyTuple_GET_SIZE(strides_obj) != ndim)) {
        PyErr_SetString(PyExc_TypeError, "strides must be None or a tuple as long as shape");
        return NULL;
    }
    int64_t *dims = PyMem_Malloc((2 * (size_t)ndim + 1) * sizeof(int64_t));
    if (dims == NULL) {
        return PyErr_NoMemory();
    }
    PyObject *res = NULL;
    for (Py_ssize_t i = 0; i < ndim; i++) {
        dims[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape_obj, i));
        if (strides_obj != Py_None) {
            dims[ndim + i] = PyLong_AsLongLong(PyTuple_GET_ITEM(strides_obj, i));
        }
    }
    if (!PyErr_Occurred()) { /* dla_array_new checks the shape */
        DLDevice device = {(DLDeviceType)dev_type, dev_id};
        res = (PyObject *)dla_array_new(owner, data, byte_offset, device, dtype,
                                        (int32_t)ndim, dims,
                                        strides_obj == Py_None ? NULL : dims + ndim,
                                        flags);
    }
    PyMem_Free(dims);
    return res;
}

/* check_shape(shape, dtype) -> None: the ValueError dla_array_new would
 * raise for an array of this shape (a tuple of ints) and DLPack dtype, asked
 * before memory is allocated for it.  An extent beyond int64 is too big. */
static PyObject *
check_shape(PyObject *module, PyObject *args)
{
    PyObject *shape_obj;
    int code, bits, lanes;
    if (!PyArg_ParseTuple(args, "O!(iii):check_shape", &PyTuple_Type, &shape_obj, &code,
                          &bits, &lanes)) {
        return NULL;
    }
    DLDataType dtype = {(uint8_t)code, (uint8_t)bits, (uint16_t)lanes};
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape_obj);
    if (ndim > DLA_MAX_NDIM) {
        dla_check_shape(PyExc_ValueError, "an array", (int32_t)Py_MIN(ndim, INT32_MAX), NULL,
                        dtype);
        return NULL;
    }
    int64_t dims[DLA_MAX_NDIM];
    for (Py_ssize_t i = 0; i < ndim; i++) {
        int overflow;
        dims[i] = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(shape_obj, i), &overflow);
        if (dims[i] == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (overflow > 0) {
            dla_refuse_too_big(PyExc_ValueError, "an array", shape_obj, dtype);
            return NULL;
        }
        if (overflow < 0) {
            dims[i] = INT64_MIN; /* refused as negative */
        }
    }
    if (dla_check_shape(PyExc_ValueError, "an array", (int32_t)ndim, dims, dtype) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The attributes of the registered class that register_array_type reads:
 * each must exist (a class that lacks one is not dlarray's). */
static PyObject *
class_attribute(PyObject *cls, const char *name)
{
    PyObject *value = PyObject_GetAttrString(cls, name);
    if (value == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "register_array_type: %s has no attribute %s, which the C core reads "
                     "(see 'What the C core reads' in dlarray/_array.py)",
                     ((PyTypeObject *)cls)->tp_name, name);
    }
    return value;
}

/* Whether `engine` is what register_engine and register_scalar_kernels
 * take, so that neither can fail once the operators are registered. */
static bool
valid_engine(PyObject *engine)
{
    if (!PyTuple_Check(engine) || PyTuple_GET_SIZE(engine) != 8) {
        return false;
    }
    PyObject *var = PyTuple_GET_ITEM(engine, 1);
    PyObject *view = PyTuple_GET_ITEM(engine, 4);
    return PyType_Check(PyTuple_GET_ITEM(engine, 0)) &&
           (var == Py_None || PyContextVar_CheckExact(var)) &&
           PyCallable_Check(PyTuple_GET_ITEM(engine, 3)) &&
           (view == Py_None || PyCallable_Check(view)) &&
           PyType_Check(PyTuple_GET_ITEM(engine, 5)) && PyDict_Check(PyTuple_GET_ITEM(engine, 6)) &&
           PyDict_Check(PyTuple_GET_ITEM(engine, 7));
}

/* register_array_type(cls): the one call by which dlarray's Python side
 * wires itself into the core (dlarray/__init__.py makes it, once).  Arrays
 * made in C become instances of cls (dlarray.DLArray), and the core reads
 * from it, once, what it calls in Python:
 *   _dtype_objects, _cpu_device, _device_of: what the getters `dtype` and
 *       `device` return (one DType per dtype-table row, in its order);
 *   _from_dlpack_general: the whole from_dlpack protocol (consumer.c);
 *   _memory: the memory families as one object (see dla_state.memory);
 *   _operator_kernels: {operator's function name: (kernel, allowed DTypes)},
 *       the operators' fast paths (operators.c);
 *   _host_engine: None, or a host_fast_path.HostEngine, read by position: (array
 *       type, error-state ContextVar or None, its quiet value, wrap,
 *       engine_view, scalar kernel type, scalar joins, promotions): the
 *       host engine the fast paths call (engine_call.c).
 * Everything is checked before anything is kept.  The methods the core
 * calls on arrays (_operator, _getitem_general, _dlpack_copy, _dlpack_check_stream, _prepare_host_access) are looked up
 * on each array as any method is. */
static PyObject *
register_array_type(PyObject *module, PyObject *cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &DLAArrayBase_Type)) {
        PyErr_SetString(PyExc_TypeError,
                        "register_array_type expects a subclass of ArrayBase");
        return NULL;
    }
    PyObject *dtypes = class_attribute(cls, "_dtype_objects");
    PyObject *cpu = dtypes ? class_attribute(cls, "_cpu_device") : NULL;
    PyObject *factory = cpu ? class_attribute(cls, "_device_of") : NULL;
    PyObject *general = factory ? class_attribute(cls, "_from_dlpack_general") : NULL;
    PyObject *memory = general ? class_attribute(cls, "_memory") : NULL;
    PyObject *kernels = memory ? class_attribute(cls, "_operator_kernels") : NULL;
    PyObject *engine = kernels ? class_attribute(cls, "_host_engine") : NULL;
    PyObject *result = NULL;
    if (engine == NULL) {
        goto done;
    }
    if (!PyTuple_Check(dtypes) || PyTuple_GET_SIZE(dtypes) != dla_dtype_table_len ||
        !PyCallable_Check(factory) || !PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError,
                        "register_array_type: _dtype_objects must be a tuple with one dtype per "
                        "table row, _device_of and _from_dlpack_general callables");
        goto done;
    }
    if (engine != Py_None && !valid_engine(engine)) {
        PyErr_SetString(PyExc_TypeError,
                        "register_array_type: _host_engine must be None or a "
                        "host_fast_path.HostEngine: (array type, ContextVar or None, quiet value, "
                        "wrap, engine_view, scalar kernel type, dict of scalar joins, dict "
                        "of promotions)");
        goto done;
    }
    /* The promotions' rows, read (and checked) before anything is kept. */
    uint8_t promotions[64][64];
    if (engine != Py_None && dla_read_promotions(PyTuple_GET_ITEM(engine, 7), promotions) < 0) {
        goto done;
    }
    /* The operators first: they check every row of their table. */
    PyObject *ok = dla_register_operators(module, kernels);
    if (ok == NULL) {
        goto done;
    }
    Py_DECREF(ok);
    if (engine != Py_None) {
        PyObject *first = PyTuple_GetSlice(engine, 0, 5);
        ok = first ? dla_register_engine(module, first) : NULL;
        Py_XDECREF(first);
        if (ok == NULL) {
            goto done;
        }
        Py_DECREF(ok);
        dla_register_scalar_kernels(PyTuple_GET_ITEM(engine, 5), PyTuple_GET_ITEM(engine, 6),
                                    promotions);
    }
    Py_XSETREF(dla_state.dtype_objects, Py_NewRef(dtypes));
    Py_XSETREF(dla_state.cpu_device, Py_NewRef(cpu));
    Py_XSETREF(dla_state.device_factory, Py_NewRef(factory));
    Py_XSETREF(dla_state.general_from_dlpack, Py_NewRef(general));
    Py_XSETREF(dla_state.memory, Py_NewRef(memory));
    Py_INCREF(cls);
    if (dla_state.array_type != &DLAArrayBase_Type) {
        Py_DECREF(dla_state.array_type);
    }
    dla_state.array_type = (PyTypeObject *)cls;
    dla_adopt_array_class(dla_state.array_type);
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(dtypes);
    Py_XDECREF(cpu);
    Py_XDECREF(factory);
    Py_XDECREF(general);
    Py_XDECREF(memory);
    Py_XDECREF(kernels);
    Py_XDECREF(engine);
    return result;
}

static PyObject *
dtype_table(PyObject *module, PyObject *unused)
{
    return dla_dtype_table_as_tuple();
}

static PyMethodDef module_methods[] = {
    {"consume", dla_consume_capsule, METH_O,
     "consume(capsule) -> DLArray\n\n"
     "Import a 'dltensor' or 'dltensor_versioned' capsule zero-copy and mark "
     "it used."},
    {"from_dlpack", (PyCFunction)(void (*)(void))dla_from_dlpack,
     METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None)\n--\n\n"
     "Import any DLPack producer's array, zero-copy.\n"
     "\n"
     "When ``type(x)`` carries a DLPack C exchange table\n"
     "(``__dlpack_c_exchange_api__``, as ``torch.Tensor`` and ``DLArray`` do),\n"
     "the tensor comes through it with no Python-level call; otherwise through\n"
     "``x.__dlpack__(stream=..., max_version=(1, 3))``.  ``copy=True`` and\n"
     "``device=`` always take ``__dlpack__``.  A producer older than DLPack 1.0,\n"
     "which rejects ``max_version``, is asked again for a legacy capsule, unless\n"
     "``device`` or ``copy`` was given.\n"
     "\n"
     "Parameters\n"
     "----------\n"
     "x\n"
     "    Any DLPack producer: a NumPy, PyTorch, JAX, CuPy or dpnp array,\n"
     "    a DLArray...\n"
     "device : Device, str or (device_type, device_id), optional\n"
     "    Where the result must live.  The producer is asked to export there;\n"
     "    if it cannot, dlarray imports the data where it is and copies it.\n"
     "copy : bool or None\n"
     "    ``True``: a copy; ``False``: never a copy (``BufferError`` if one\n"
     "    is needed); ``None``: the producer's choice.\n"
     "\n"
     "Returns\n"
     "-------\n"
     "DLArray\n"
     "    Sharing the producer's memory unless a copy was asked for or needed;\n"
     "    read-only when the producer marked the memory ``READ_ONLY``.\n"
     "\n"
     "Raises\n"
     "------\n"
     "AttributeError\n"
     "    If ``x`` has no ``__dlpack__`` method (it is not a DLPack producer;\n"
     "    :func:`dlarray.asarray` takes Python data and buffers).\n"
     "BufferError\n"
     "    If the data cannot be exchanged: the producer refuses (its own\n"
     "    ``BufferError`` passes through unchanged, e.g. NumPy's for a dtype\n"
     "    DLPack has no code for), dlarray cannot import the tensor (a device\n"
     "    it has no memory for, vector lanes, a DLPack major version other than\n"
     "    1, more than 64 dimensions, a shape too big for NumPy: nonzero\n"
     "    extents times the element's bytes past 2**63 - 1, even when empty),\n"
     "    or a copy would be needed under ``copy=False``.\n"
     "    :class:`dlarray.CUDAUnavailableError` and\n"
     "    :class:`dlarray.SYCLUnavailableError` (each also a ``ValueError``)\n"
     "    when ``device`` names GPU memory that this process cannot reach.\n"
     "TypeError\n"
     "    If an argument has the wrong type (``copy`` not a bool or None,\n"
     "    ``device`` not a device), a keyword is unknown, or a producer older\n"
     "    than DLPack 1.0 is asked for ``device=`` or ``copy=``, which it\n"
     "    cannot honour.\n"
     "ValueError\n"
     "    If ``device`` names an unknown device kind.\n"
     "\n"
     "See Also\n"
     "--------\n"
     "dlarray.asarray : arrays from Python data, buffers and producers alike.\n"
     "dlarray.abi.consume : the import of one capsule, without keywords.\n"
     "\n"
     "Examples\n"
     "--------\n"
     ">>> import dlarray, numpy as np\n"
     ">>> a = np.arange(3.0)\n"
     ">>> x = dlarray.from_dlpack(a)\n"
     ">>> x\n"
     "dlarray.asarray([0.0, 1.0, 2.0], dtype=dlarray.float64)\n"
     ">>> np.shares_memory(np.from_dlpack(x), a)  # the same memory\n"
     "True\n"
     ">>> from dlarray import abi\n"
     ">>> abi.data_pointer(x) == a.ctypes.data    # the same first element\n"
     "True\n"
     ">>> y = dlarray.from_dlpack(x)  # through dlarray's own exchange table\n"
     ">>> abi.owner(y).via_table\n"
     "True\n"
     ">>> dlarray.from_dlpack([1.0, 2.0])\n"
     "Traceback (most recent call last):\n"
     "  ...\n"
     "AttributeError: from_dlpack: list has no __dlpack__ method, ...\n"},
    {"producer_device", dla_producer_device, METH_O,
     "producer_device(x) -> (device_type, device_id), or None when x does not say "
     "where its memory is (no working __dlpack_device__ returning two ints): the "
     "consumer's rule (consumer.c), for dlarray._consumer."},
    {"keywords_refused", dla_keywords_refused, METH_O,
     "keywords_refused(type_error) -> bool: whether the TypeError a producer's "
     "__dlpack__(stream=..., max_version=...) raised refused DLPack 1.0's keywords "
     "(a pre-1.0 producer), so a legacy retry is right (consumer.c's rule)."},
    {"check_shape", check_shape, METH_VARARGS,
     "check_shape(shape, dtype): raise ValueError unless an array of this "
     "shape and DLPack dtype can exist (at most MAX_NDIM axes, no negative "
     "extent, nonzero extents times the element's bytes within 2**63 - 1)."},
    {"new_array", new_array, METH_VARARGS,
     "new_array(owner, data, byte_offset, shape, strides, dtype, device, "
     "flags) -> DLArray"},
    {"register_array_type", register_array_type, METH_O,
     "register_array_type(cls): the class of arrays made in C, and what the core "
     "calls in Python, read from it once (dlarray/__init__.py calls it)."},
    {"fast_function", dla_fast_function, METH_VARARGS,
     "fast_function(kernel, allowed, nargs, general): a namespace function whose "
     "common case runs in C."},
    {"engine_call", (PyCFunction)(void (*)(void))dla_engine_call, METH_FASTCALL | METH_KEYWORDS,
     "engine_call(kernel, *args, **kwargs) -> the kernel's result as a DLArray."},
    {"dtype_table", dtype_table, METH_NOARGS,
     "dtype_table() -> tuple of (name, code, bits, kind), one row per dtype."},
    {NULL},
};

/* One interpreter only: the main one; any number of threads, with or
 * without the GIL.
 *
 * The core keeps process-wide state -- the registered array class and
 * dtype objects, the engine, the operators, the interned names, the caches
 * -- all of them objects of the interpreter that imported it.  Sharing them
 * with another interpreter would hand that interpreter dead or foreign
 * objects, so every sub-interpreter is refused with ImportError, before any
 * state is touched:
 *   - isolated ones (3.12+, own GIL): CPython refuses them, from the slot
 *     Py_mod_multiple_interpreters below;
 *   - legacy ones (any version): core_exec checks the interpreter.
 * Multi-phase initialisation (PEP 489) lets the module declare, from 3.13,
 * that it runs without the GIL (Py_mod_gil): docs/design.md, "Threads",
 * says what protects each shared structure.  The process-wide state is
 * made once, by the first exec; a module made again in the main
 * interpreter (after `del sys.modules[...]`) shares it, so no module's
 * death may release it: it lives as long as the process. */
static int refuse_sub_interpreter(void);

static int
add_int(PyObject *m, const char *name, long long value)
{
    PyObject *v = PyLong_FromLongLong(value);
    if (v == NULL || PyModule_AddObject(m, name, v) < 0) {
        Py_XDECREF(v);
        return -1;
    }
    return 0;
}

/* A NULL-terminated table joining `count` NULL-terminated tables of `size`-byte
 * entries whose first field is a name (PyMethodDef, PyGetSetDef); it lives
 * as long as the process, as the type does.  NULL with MemoryError. */
static void *
joined_table(const void *const *tables, size_t count, size_t size)
{
    size_t total = 0;
    for (size_t t = 0; t < count; t++) {
        for (const char *e = tables[t]; *(const char *const *)e != NULL; e += size) {
            total++;
        }
    }
    char *out = PyMem_RawCalloc(total + 1, size); /* the last entry all zero */
    if (out == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    char *at = out;
    for (size_t t = 0; t < count; t++) {
        for (const char *e = tables[t]; *(const char *const *)e != NULL; e += size) {
            memcpy(at, e, size);
            at += size;
        }
    }
    return out;
}

/* The array type gathered from the files of each job, all above array.c
 * (which calls none of them): DLPack export (export.c), the buffer protocol
 * (buffer.c), views and subscripts (subscript.c), operators (operators.c). */
static int
assemble_array_type(PyTypeObject *type)
{
    const void *methods[] = {dla_array_methods, dla_export_methods, dla_view_methods};
    const void *getset[] = {dla_array_getset, dla_view_getset};
    type->tp_methods = joined_table(methods, 3, sizeof(PyMethodDef));
    type->tp_getset = joined_table(getset, 2, sizeof(PyGetSetDef));
    if (type->tp_methods == NULL || type->tp_getset == NULL) {
        return -1;
    }
    type->tp_as_mapping = &dla_array_as_mapping;
    type->tp_as_buffer = &dla_array_as_buffer;
    type->tp_as_number = &dla_array_as_number;
    type->tp_richcompare = dla_array_richcompare;
    return 0;
}

/* The process-wide state, made by the first exec (the import lock keeps
 * two execs of this module from running at once). */
static bool process_state_ready;

static int
make_process_state(void)
{
    if (process_state_ready) {
        return 0;
    }
    dla_state.array_type = &DLAArrayBase_Type; /* until register_array_type */
    if (assemble_array_type(&DLAArrayBase_Type) < 0 || PyType_Ready(&DLAArrayBase_Type) < 0 ||
        PyType_Ready(&DLAHostBuffer_Type) < 0 || PyType_Ready(&DLAImportedTensor_Type) < 0 || PyType_Ready(&DLAFastFunction_Type) < 0) {
        return -1;
    }
    dla_state.str_dlpack_copy = PyUnicode_InternFromString("_dlpack_copy");
    dla_state.str_dlpack_stream = PyUnicode_InternFromString("_dlpack_check_stream");
    dla_state.str_host_access = PyUnicode_InternFromString("_prepare_host_access");
    dla_state.str_requires_grad = PyUnicode_InternFromString("requires_grad");
    dla_state.kw_stream = PyUnicode_InternFromString("stream");
    dla_state.kw_max_version = PyUnicode_InternFromString("max_version");
    dla_state.kw_dl_device = PyUnicode_InternFromString("dl_device");
    dla_state.kw_copy = PyUnicode_InternFromString("copy");
    dla_state.kw_device = PyUnicode_InternFromString("device");
    dla_state.str_dunder_dlpack = PyUnicode_InternFromString("__dlpack__");
    dla_state.str_dunder_dlpack_device = PyUnicode_InternFromString("__dlpack_device__");
    dla_state.str_keyword = PyUnicode_InternFromString("keyword");
    dla_state.str_quiet_context = PyUnicode_InternFromString("dlarray.engine_quiet_context");
    dla_state.str_getitem_general = PyUnicode_InternFromString("_getitem_general");
    dla_state.str_exchange_api = PyUnicode_InternFromString("__dlpack_c_exchange_api__");
    dla_state.str_exchange_api_12 = PyUnicode_InternFromString("__c_dlpack_exchange_api__");
    dla_state.str_consumer_stream = PyUnicode_InternFromString("consumer_stream");
    dla_state.str_work_stream = PyUnicode_InternFromString("work_stream");
    dla_state.str_allocate = PyUnicode_InternFromString("allocate");
    dla_state.str_order_import = PyUnicode_InternFromString("order_import");
    dla_state.str_check_import = PyUnicode_InternFromString("check_import");
    dla_state.str_operator = PyUnicode_InternFromString("_operator");
    if (!dla_state.str_consumer_stream || !dla_state.str_work_stream ||
        !dla_state.str_allocate || !dla_state.str_order_import ||
        !dla_state.str_check_import || !dla_state.str_operator) {
        return -1;
    }
    if (!dla_state.str_exchange_api || !dla_state.str_exchange_api_12 ||
        dla_add_exchange_api_attributes(&DLAArrayBase_Type) < 0) {
        return -1;
    }
    dla_state.max_version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
    dla_state.kwnames_stream_max_version =
        Py_BuildValue("(OO)", dla_state.kw_stream, dla_state.kw_max_version);
    dla_state.kwnames_max_version = Py_BuildValue("(O)", dla_state.kw_max_version);
    dla_state.kwnames_stream = Py_BuildValue("(O)", dla_state.kw_stream);
    if (!dla_state.str_dunder_dlpack || !dla_state.str_dunder_dlpack_device ||
        !dla_state.str_keyword || !dla_state.str_quiet_context ||
        !dla_state.kwnames_stream || !dla_state.max_version ||
        !dla_state.str_getitem_general ||
        !dla_state.kwnames_stream_max_version || !dla_state.kwnames_max_version ||
        !dla_state.str_dlpack_copy || !dla_state.str_dlpack_stream ||
        !dla_state.str_host_access || !dla_state.str_requires_grad ||
        !dla_state.kw_stream || !dla_state.kw_max_version ||
        !dla_state.kw_dl_device || !dla_state.kw_copy || !dla_state.kw_device) {
        return -1;
    }
    dla_dtype_row_init(); /* filled here, before any thread can read it */
    process_state_ready = true;
    return 0;
}

/* Whether setup.py built the core with link-time optimisation (it leaves
 * it out where the toolchain cannot link with -flto): the instruction gate
 * prints it, since its budgets were measured on an optimised build. */
#ifndef DLA_LTO
#define DLA_LTO 0
#endif

static int
core_exec(PyObject *m)
{
    if (refuse_sub_interpreter() < 0 || make_process_state() < 0) {
        return -1;
    }
    if (PyModule_AddType(m, &DLAArrayBase_Type) < 0 ||
        PyModule_AddType(m, &DLAHostBuffer_Type) < 0 ||
        PyModule_AddType(m, &DLAImportedTensor_Type) < 0 ||
        PyModule_AddType(m, &DLAFastFunction_Type) < 0 ||
        add_int(m, "DLPACK_MAJOR_VERSION", DLPACK_MAJOR_VERSION) < 0 ||
        add_int(m, "DLPACK_MINOR_VERSION", DLPACK_MINOR_VERSION) < 0 ||
        add_int(m, "FLAG_READ_ONLY", DLPACK_FLAG_BITMASK_READ_ONLY) < 0 ||
        add_int(m, "FLAG_IS_COPIED", DLPACK_FLAG_BITMASK_IS_COPIED) < 0 ||
        add_int(m, "FLAG_IS_SUBBYTE_TYPE_PADDED", DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) < 0 ||
        add_int(m, "ARRAY_READONLY", DLA_FLAG_READONLY) < 0 ||
        add_int(m, "ARRAY_PADDED", DLA_FLAG_PADDED) < 0 ||
        add_int(m, "HOST_ALIGNMENT", DLA_HOST_ALIGNMENT) < 0 ||
        add_int(m, "MAX_NDIM", DLA_MAX_NDIM) < 0 ||
        PyModule_AddObject(m, "DEVICE_FAMILIES", dla_device_families_as_dict()) < 0 ||
        PyModule_AddObject(m, "MACHINE_WIDE_DEVICE_TYPES", dla_machine_wide_types()) < 0 ||
        PyModule_AddObject(m, "_C_API", dla_capi_capsule()) < 0 ||
        PyModule_AddObjectRef(m, "LINK_TIME_OPTIMISED", DLA_LTO ? Py_True : Py_False) < 0) {
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot core_slots[] = {
    {Py_mod_exec, core_exec},
#if PY_VERSION_HEX >= 0x030C0000
    /* "Several interpreters, but no per-interpreter GIL": isolated
     * sub-interpreters are refused by CPython, and legacy ones (which share
     * the GIL) reach core_exec, which refuses them with dlarray's message. */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_SUPPORTED},
#endif
#if PY_VERSION_HEX >= 0x030D0000
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "dlarray._core",
    .m_doc = "The C core of dlarray: DLPack ABI, capsules, array memory.",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = core_slots,
};

static int
refuse_sub_interpreter(void)
{
    if (PyInterpreterState_Get() == PyInterpreterState_Main()) {
        return 0;
    }
    PyErr_SetString(PyExc_ImportError,
                    "dlarray._core cannot be imported in a sub-interpreter: its "
                    "state (freelists, caches, the array class) is process-wide "
                    "and belongs to the main interpreter. Import dlarray in the "
                    "main interpreter (see docs/design.md, 'Interpreters and "
                    "threads')");
    return -1;
}

PyMODINIT_FUNC
PyInit__core(void)
{
    return PyModuleDef_Init(&core_module);
}
