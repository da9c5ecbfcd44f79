/*
 * consumer.c -- from_dlpack's entry point: choosing the route, the stream,
 * and asking the producer.
 *
 * dlarray.from_dlpack is dla_from_dlpack.  It finishes the common call (no
 * device, no copy) in C: through the producer's C exchange table when its
 * type has one (exchange_consumer.c), otherwise by calling
 * x.__dlpack__(stream=..., max_version=(1, 3)) here and handing the capsule
 * to import.c.  Every other call goes to the general from_dlpack, the whole
 * protocol in Python (dlarray._consumer; DLArray._from_dlpack_general).
 *
 * The stream: the policy -- which stream dlarray passes a producer whose
 * memory stays on its device -- is stated once, in Python, by the memory
 * families (DLArray._memory.consumer_stream).  This file decides only from the device table
 * whether to ask it: a family without streams (host memory, or memory
 * dlarray has no runtime for) is asked with stream=None, without a call.
 */
#include "core.h"

/* ---- the stream ---- */

/* One number of a __dlpack_device__ pair: an int or anything with
 * __index__ (an IntEnum, a NumPy integer), in int32 range.  0, or -1 with
 * no exception left. */
static int
device_number(PyObject *item, int32_t *out)
{
    PyObject *number = PyNumber_Index(item);
    if (number == NULL) {
        PyErr_Clear();
        return -1;
    }
    int overflow;
    long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
    Py_DECREF(number);
    if (value == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    if (overflow != 0 || value < INT32_MIN || value > INT32_MAX) {
        return -1;
    }
    *out = (int32_t)value;
    return 0;
}

/* Where x says its memory is: 0 with *device set, or -1 (no exception)
 * when x does not say: no __dlpack_device__, one that fails, or an answer
 * that is no pair of integers -- then the capsule says where it is. */
static int
producer_device(PyObject *x, DLDevice *device)
{
    PyObject *pair = PyObject_CallMethodNoArgs(x, dla_state.str_dunder_dlpack_device);
    if (pair == NULL) {
        PyErr_Clear();
        return -1;
    }
    /* Unpacked as Python unpacks `device_type, device_id = pair`. */
    PyObject *items = PySequence_Fast(pair, "");
    Py_DECREF(pair);
    if (items == NULL) {
        PyErr_Clear();
        return -1;
    }
    int32_t type, id;
    int rc = PySequence_Fast_GET_SIZE(items) == 2 &&
                     device_number(PySequence_Fast_GET_ITEM(items, 0), &type) == 0 &&
                     device_number(PySequence_Fast_GET_ITEM(items, 1), &id) == 0
                 ? 0
                 : -1;
    Py_DECREF(items);
    if (rc == 0) {
        device->device_type = (DLDeviceType)type;
        device->device_id = id;
    }
    return rc;
}

/* Where x says its memory is, by the one rule: a DLArray and the host
 * engine's arrays without asking, any other producer through its
 * __dlpack_device__ (producer_device above). */
static int
source_device(PyObject *x, DLDevice *device)
{
    PyTypeObject *type = Py_TYPE(x);
    if (type == dla_state.array_type) {
        *device = ((DLAArrayObject *)x)->device;
        return 0;
    }
    if (dla_is_host_engine_type(type)) {
        device->device_type = kDLCPU; /* NumPy: host memory, and its */
        device->device_id = 0;        /* __dlpack_device__ costs */
        return 0;
    }
    return producer_device(x, device);
}

/* _core.producer_device(x) -> (device_type, device_id), or None when x
 * does not say (then its capsule says): the rule for the Python consumer. */
PyObject *
dla_producer_device(PyObject *module, PyObject *x)
{
    DLDevice device;
    if (source_device(x, &device) < 0) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(ii)", (int)device.device_type, (int)device.device_id);
}

/* The body of dla_consumer_stream, inline here: the fast path of
 * from_dlpack(numpy_array) runs it on every call. */
static inline int
consumer_stream(PyObject *x, DLDevice *device, PyObject **stream)
{
    *stream = NULL;
    if (source_device(x, device) < 0) {
        device->device_type = (DLDeviceType)0; /* no such type: family "none" */
        device->device_id = 0;
    }
    if (!dla_family_has_streams(dla_device_family(device->device_type))) {
        *stream = Py_NewRef(Py_None);
        return 1;
    }
    if (dla_state.memory == NULL) {
        return 0;
    }
    *stream = dla_call_memory(dla_state.str_consumer_stream, "(ii)", (int)device->device_type,
                              (int)device->device_id);
    return *stream == NULL ? -1 : 1;
}

int
dla_consumer_stream(PyObject *x, DLDevice *device, PyObject **stream)
{
    return consumer_stream(x, device, stream);
}

/* ---- asking the producer: x.__dlpack__(...) ---- */

/* The pending exception, normalized and holding its traceback (a new
 * reference), and the way back. */
static PyObject *
take_exception(void)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL) {
        PyException_SetTraceback(value, tb);
    }
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
#endif
}

static void
raise_exception(PyObject *exception)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exception);
#else
    PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exception)), exception,
                  PyException_GetTraceback(exception));
#endif
}

/* Whether the TypeError a producer's __dlpack__(stream=..., max_version=...)
 * raised means it refused the keywords, as a pre-1.0 producer does: no
 * code of the producer ran (producer_ran false: Python's argument binding or
 * a C method's parser refused the call), or the message names
 * max_version or a keyword (a decorated method binds inside its wrapper,
 * and some producers raise their own "unexpected keyword argument").  A TypeError
 * from anywhere else inside the producer is its own error and propagates. */
static bool
keywords_refused_after(PyObject *type_error, bool producer_ran)
{
    if (!producer_ran) {
        return true;
    }
    PyObject *text = PyObject_Str(type_error);
    if (text == NULL) {
        PyErr_Clear();
        return false;
    }
    int found = PyUnicode_Contains(text, dla_state.kw_max_version);
    if (found == 0) {
        found = PyUnicode_Contains(text, dla_state.str_keyword);
    }
    Py_DECREF(text);
    if (found < 0) {
        PyErr_Clear();
    }
    return found == 1;
}

/* For a TypeError raised straight into C: its traceback is the producer's. */
static bool
keywords_refused(PyObject *type_error)
{
    PyObject *tb = PyException_GetTraceback(type_error);
    Py_XDECREF(tb);
    return keywords_refused_after(type_error, tb != NULL);
}

/* _core.keywords_refused(exc) -> bool: the rule above, for the Python
 * consumer's own retry.  exc is as the Python frame that called __dlpack__
 * caught it: the first entry of its traceback is that frame, and the
 * producer's code ran only if there is a second. */
PyObject *
dla_keywords_refused(PyObject *module, PyObject *exc)
{
    if (!PyExceptionInstance_Check(exc)) {
        PyErr_SetString(PyExc_TypeError, "keywords_refused expects an exception");
        return NULL;
    }
    PyObject *tb = PyException_GetTraceback(exc);
    bool producer_ran = tb != NULL && ((PyTracebackObject *)tb)->tb_next != NULL;
    Py_XDECREF(tb);
    return PyBool_FromLong(keywords_refused_after(exc, producer_ran));
}

/* The spec's retry after a TypeError: x.__dlpack__() for a producer that
 * refused the keywords, with no keywords at all when the stream is None
 * (some such producers take none, and their default is None), otherwise
 * with the stream alone.  call_args is {x, stream, ...} with the slot
 * before it free (PY_VECTORCALL_ARGUMENTS_OFFSET).  When the retry fails
 * too, its error carries the first as __context__, so neither is lost. */
static PyObject *
retry_without_keywords(PyObject *call_args[])
{
    PyObject *refusal = take_exception();
    if (!keywords_refused(refusal)) {
        raise_exception(refusal);
        return NULL;
    }
    PyObject *capsule = PyObject_VectorcallMethod(
        dla_state.str_dunder_dlpack, call_args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
        call_args[1] == Py_None ? NULL : dla_state.kwnames_stream);
    if (capsule != NULL) {
        Py_DECREF(refusal);
        return capsule;
    }
    PyObject *second = take_exception();
    if (second != refusal) {
        PyException_SetContext(second, refusal); /* steals refusal */
    }
    else {
        Py_DECREF(refusal);
    }
    raise_exception(second);
    return NULL;
}

/* x.__dlpack__(stream=stream, max_version=(1, 3)), without creating a bound
 * method.  A producer older than DLPack 1.0 rejects max_version with a
 * TypeError; then it is asked again for a legacy capsule, as the spec
 * recommends (retry_without_keywords says when a TypeError means that).
 * NumPy's default stream is None, so for NumPy arrays a None stream is
 * left out, which spares NumPy parsing a keyword.
 *
 * NULL with an exception on failure.  When x's type has no __dlpack__ at
 * all, *not_a_producer is set and no exception is left: each caller words
 * that error its own way.  An AttributeError that a producer's own
 * __dlpack__ raised propagates as it is, without a second call. */
static inline PyObject *
request_capsule(PyObject *x, PyObject *stream, bool *not_a_producer)
{
    *not_a_producer = false;
    PyObject *call_args[3] = {x, stream, dla_state.max_version};
    PyObject *capsule;
    if (stream == Py_None && dla_is_host_engine_type(Py_TYPE(x))) {
        PyObject *args[3] = {NULL, x, dla_state.max_version};
        capsule = dla_state.engine_dlpack != NULL
                      /* NumPy's method, found once (its type is immutable) */
                      ? PyObject_Vectorcall(dla_state.engine_dlpack, args + 1,
                                            1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                            dla_state.kwnames_max_version)
                      : PyObject_VectorcallMethod(dla_state.str_dunder_dlpack, args + 1,
                                                  1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                                  dla_state.kwnames_max_version);
    }
    else {
        capsule = PyObject_VectorcallMethod(
            dla_state.str_dunder_dlpack, call_args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
            dla_state.kwnames_stream_max_version);
    }
    if (capsule != NULL) {
        return capsule;
    }
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        DLA_SAVE_EXCEPTION(raised);
        PyObject *method = PyObject_GetAttr((PyObject *)Py_TYPE(x), dla_state.str_dunder_dlpack);
        PyErr_Clear();
        DLA_RESTORE_EXCEPTION(raised);
        if (method == NULL) {
            PyErr_Clear();
            *not_a_producer = true;
        }
        Py_XDECREF(method);
        return NULL;
    }
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
        return NULL;
    }
    return retry_without_keywords(call_args);
}

/* request_capsule for the C API; from_dlpack's hot path inlines it. */
PyObject *
dla_request_capsule(PyObject *x, PyObject *stream, bool *not_a_producer)
{
    return request_capsule(x, stream, not_a_producer);
}

/* ---- from_dlpack(x, /, *, device=None, copy=None) ---- */

/* True when from_dlpack's keywords ask for nothing but the zero-copy
 * import a table gives: device=None, copy=None or copy=False.  Keywords
 * written in Python source are interned, so comparing pointers finds them;
 * any other spelling takes the Python path, which is only slower. */
static bool
only_zero_copy_keywords(PyObject *const *values, PyObject *kwnames)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        PyObject *value = values[i];
        bool fine = (key == dla_state.kw_copy && (value == Py_None || value == Py_False)) ||
                    (key == dla_state.kw_device && value == Py_None);
        if (!fine) {
            return false;
        }
    }
    return true;
}

static PyObject *
general(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *func = dla_state.general_from_dlpack;
    return PyObject_Vectorcall(func ? func : Py_None, args, (size_t)nargs, kwnames);
}

PyObject *
dla_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                PyObject *kwnames)
{
    if (dla_state.general_from_dlpack == NULL || nargs != 1) {
        return general(args, nargs, kwnames);
    }
    /* The producer's C exchange table, when its type has one: no Python
     * call at all (see exchange_consumer.c).  copy=False and the defaults
     * take it too, so that one producer's memory is imported the same way
     * whichever is spelled; any other keyword takes the Python path. */
    const DLPackExchangeAPI *api = dla_exchange_api_of(Py_TYPE(args[0]));
    if (api == NULL && PyErr_Occurred()) {
        return NULL;
    }
    if (kwnames != NULL && (api == NULL || !only_zero_copy_keywords(args + 1, kwnames))) {
        return general(args, 1, kwnames);
    }
    if (api != NULL) {
        PyObject *array = dla_import_through_table(args[0], api);
        if (array != Py_None) {
            return array;
        }
        /* The table refused the tensor, or dlarray cannot order its work
         * after the producer's stream: __dlpack__(stream=...) decides, and
         * makes the producer order the work.  With keywords (copy=False)
         * the Python protocol asks, passing them on. */
        Py_DECREF(array);
        if (kwnames != NULL) {
            return general(args, 1, kwnames);
        }
    }
    /* Streams: a producer on a device with streams must be told which one
     * dlarray will use; the memory families say (before dlarray
     * registered, Python decides).  stream=None is passed, not left out:
     * PyTorch's default is -1 ("do not synchronise"), not the spec's None. */
    DLDevice device;
    PyObject *stream;
    int decided = consumer_stream(args[0], &device, &stream);
    if (decided <= 0) {
        return decided < 0 ? NULL : general(args, 1, NULL);
    }
    bool not_a_producer;
    PyObject *capsule = request_capsule(args[0], stream, &not_a_producer);
    Py_DECREF(stream);
    if (capsule == NULL) {
        /* The Python path words the error for a non-producer. */
        return not_a_producer ? general(args, 1, NULL) : NULL;
    }
    PyObject *array = dla_consume_capsule(module, capsule);
    if (array == NULL) {
        /* A refused capsule dies here and its destructor may be Python code
         * (a ctypes producer), which cannot run with an exception set. */
        DLA_SAVE_EXCEPTION(refused);
        Py_DECREF(capsule);
        DLA_RESTORE_EXCEPTION(refused);
        return NULL;
    }
    Py_DECREF(capsule);
    return array;
}
