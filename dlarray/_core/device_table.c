/*
 * device_table.c -- the single table of DLPack device types dlarray knows.
 *
 * One row per DLDeviceType of DLPack 1.3, saying what the C core needs to
 * know of it: its memory family (which runtime dlarray drives the memory
 * with), whether its data pointers are plain addresses, and whether it is
 * one memory for the whole machine.  Every decision the C files make over
 * device types is a look-up here, and the Python package takes its memory
 * kinds' "family" column from the same rows (_core.DEVICE_FAMILIES), so
 * there is nothing to keep in sync.
 *
 * Families: "host" is kDLCPU alone, the memory the host reads directly;
 * "cuda" the three CUDA memory kinds and "sycl" kDLOneAPI, which dlarray
 * drives through runtimes loaded from Python and orders with streams
 * (queues); "none" every other type: dlarray can import and export such
 * memory's addresses but has no runtime to copy or compute on it.
 */
#include "core.h"

/* name, family, plain_addresses, machine_wide */
const DLADeviceEntry dla_device_table[DLA_DEVICE_TABLE_SIZE] = {
    [kDLCPU] = {"kDLCPU", DLA_FAMILY_HOST, true, true},
    [kDLCUDA] = {"kDLCUDA", DLA_FAMILY_CUDA, true, false},
    [kDLCUDAHost] = {"kDLCUDAHost", DLA_FAMILY_CUDA, true, true},
    [kDLOpenCL] = {"kDLOpenCL", DLA_FAMILY_NONE, false, false},
    [kDLVulkan] = {"kDLVulkan", DLA_FAMILY_NONE, false, false},
    [kDLMetal] = {"kDLMetal", DLA_FAMILY_NONE, false, false},
    [kDLVPI] = {"kDLVPI", DLA_FAMILY_NONE, false, false},
    [kDLROCM] = {"kDLROCM", DLA_FAMILY_NONE, true, false},
    [kDLROCMHost] = {"kDLROCMHost", DLA_FAMILY_NONE, true, false},
    [kDLExtDev] = {"kDLExtDev", DLA_FAMILY_NONE, false, false},
    [kDLCUDAManaged] = {"kDLCUDAManaged", DLA_FAMILY_CUDA, true, true},
    /* Not plain addresses for the export's purpose: see export.c, whose
     * kDLOneAPI tensors keep data as the USM allocation's own pointer. */
    [kDLOneAPI] = {"kDLOneAPI", DLA_FAMILY_SYCL, false, false},
    [kDLWebGPU] = {"kDLWebGPU", DLA_FAMILY_NONE, false, false},
    [kDLHexagon] = {"kDLHexagon", DLA_FAMILY_NONE, false, false},
    [kDLMAIA] = {"kDLMAIA", DLA_FAMILY_NONE, false, false},
    [kDLTrn] = {"kDLTrn", DLA_FAMILY_NONE, false, false},
};

static const char *const family_names[] = {
    [DLA_FAMILY_NONE] = "none",
    [DLA_FAMILY_HOST] = "host",
    [DLA_FAMILY_CUDA] = "cuda",
    [DLA_FAMILY_SYCL] = "sycl",
};

PyObject *
dla_device_families_as_dict(void)
{
    PyObject *families = PyDict_New();
    if (families == NULL) {
        return NULL;
    }
    for (int32_t type = 0; type < DLA_DEVICE_TABLE_SIZE; type++) {
        const DLADeviceEntry *e = dla_device_entry(type);
        if (e == NULL) {
            continue;
        }
        PyObject *key = PyLong_FromLong(type);
        PyObject *value = PyUnicode_InternFromString(family_names[e->family]);
        if (key == NULL || value == NULL || PyDict_SetItem(families, key, value) < 0) {
            Py_XDECREF(key);
            Py_XDECREF(value);
            Py_DECREF(families);
            return NULL;
        }
        Py_DECREF(key);
        Py_DECREF(value);
    }
    return families;
}

PyObject *
dla_machine_wide_types(void)
{
    PyObject *types = PySet_New(NULL);
    if (types == NULL) {
        return NULL;
    }
    for (int32_t type = 0; type < DLA_DEVICE_TABLE_SIZE; type++) {
        const DLADeviceEntry *e = dla_device_entry(type);
        if (e == NULL || !e->machine_wide) {
            continue;
        }
        PyObject *key = PyLong_FromLong(type);
        if (key == NULL || PySet_Add(types, key) < 0) {
            Py_XDECREF(key);
            Py_DECREF(types);
            return NULL;
        }
        Py_DECREF(key);
    }
    PyObject *frozen = PyFrozenSet_New(types);
    Py_DECREF(types);
    return frozen;
}
