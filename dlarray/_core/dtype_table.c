/*
 * dtype_table.c -- the single table of element types dlarray knows.
 *
 * Both directions of the mapping come from these rows: the consumer looks a
 * DLDataType up here, and the Python package builds its dtype objects from
 * the same rows (dlarray._dtypes), so there is nothing to keep in sync.
 */
#include "core.h"
#include <limits.h>

/* 64-bit integers in the buffer protocol: C `long` where it is 64 bits
 * (Linux, macOS), as NumPy writes them, so that np.asarray(memoryview(x))
 * has NumPy's own int64 type; `long long` elsewhere (Windows). */
#if LONG_MAX == 0x7fffffffffffffffL
#define DLA_INT64_FORMAT "l"
#define DLA_UINT64_FORMAT "L"
#else
#define DLA_INT64_FORMAT "q"
#define DLA_UINT64_FORMAT "Q"
#endif

const DLADTypeEntry dla_dtype_table[] = {
    {"bool", kDLBool, 8, "bool", "?"},
    {"int8", kDLInt, 8, "signed integer", "b"},
    {"int16", kDLInt, 16, "signed integer", "h"},
    {"int32", kDLInt, 32, "signed integer", "i"},
    {"int64", kDLInt, 64, "signed integer", DLA_INT64_FORMAT},
    {"uint8", kDLUInt, 8, "unsigned integer", "B"},
    {"uint16", kDLUInt, 16, "unsigned integer", "H"},
    {"uint32", kDLUInt, 32, "unsigned integer", "I"},
    {"uint64", kDLUInt, 64, "unsigned integer", DLA_UINT64_FORMAT},
    {"float16", kDLFloat, 16, "real floating", "e"},
    {"float32", kDLFloat, 32, "real floating", "f"},
    {"float64", kDLFloat, 64, "real floating", "d"},
    {"complex64", kDLComplex, 64, "complex floating", "Zf"},
    {"complex128", kDLComplex, 128, "complex floating", "Zd"},
    {"bfloat16", kDLBfloat, 16, "extended floating", NULL},
    {"float8_e3m4", kDLFloat8_e3m4, 8, "extended floating", NULL},
    {"float8_e4m3", kDLFloat8_e4m3, 8, "extended floating", NULL},
    {"float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz, 8, "extended floating", NULL},
    {"float8_e4m3fn", kDLFloat8_e4m3fn, 8, "extended floating", NULL},
    {"float8_e4m3fnuz", kDLFloat8_e4m3fnuz, 8, "extended floating", NULL},
    {"float8_e5m2", kDLFloat8_e5m2, 8, "extended floating", NULL},
    {"float8_e5m2fnuz", kDLFloat8_e5m2fnuz, 8, "extended floating", NULL},
    {"float8_e8m0fnu", kDLFloat8_e8m0fnu, 8, "extended floating", NULL},
    {"float6_e2m3fn", kDLFloat6_e2m3fn, 6, "extended floating", NULL},
    {"float6_e3m2fn", kDLFloat6_e3m2fn, 6, "extended floating", NULL},
    {"float4_e2m1fn", kDLFloat4_e2m1fn, 4, "extended floating", NULL},
};
const Py_ssize_t dla_dtype_table_len =
    (Py_ssize_t)(sizeof(dla_dtype_table) / sizeof(dla_dtype_table[0]));

/* The row of each (code, bits), for dla_dtype_row: rows + 1, 0 for none.
 * Every code and width in the table fits (codes < 32, bits <= 128); filled
 * from the table once, at import, so the table stays the one fact and no
 * thread ever reads it half filled. */
int8_t dla_dtype_row_of[DLA_ROW_CODES][DLA_ROW_BITS];

void
dla_dtype_row_init(void)
{
    for (Py_ssize_t i = 0; i < dla_dtype_table_len; i++) {
        dla_dtype_row_of[dla_dtype_table[i].code][dla_dtype_table[i].bits] = (int8_t)(i + 1);
    }
}

const DLADTypeEntry *
dla_dtype_find(DLDataType dtype)
{
    /* Vector types (lanes > 1) have no Array API meaning; PyTorch sends fp4
     * pairs this way, and silently halving the shape would be worse than
     * refusing. */
    if (dtype.lanes != 1) {
        PyErr_Format(PyExc_BufferError,
                     "DLPack dtype (code=%u, bits=%u, lanes=%u) has lanes=%u; "
                     "dlarray imports only lanes=1. Ask the producer for a "
                     "scalar element type (for example unpack vectors first).",
                     dtype.code, dtype.bits, dtype.lanes, dtype.lanes);
        return NULL;
    }
    /* The row table answers every known dtype in one look-up; the scan
     * below only words the error. */
    int row = dla_dtype_row(dtype);
    if (row >= 0) {
        return &dla_dtype_table[row];
    }
    bool code_known = false;
    for (Py_ssize_t i = 0; i < dla_dtype_table_len; i++) {
        const DLADTypeEntry *e = &dla_dtype_table[i];
        if (e->code == dtype.code) {
            code_known = true;
            if (e->bits == dtype.bits) {
                return e;
            }
        }
    }
    if (code_known) {
        PyErr_Format(PyExc_BufferError,
                     "DLPack dtype code %u does not come with %u bits; dlarray "
                     "knows this code only at the widths listed in "
                     "dlarray.dtypes(). The producer sent an unsupported "
                     "element type.",
                     dtype.code, dtype.bits);
    }
    else {
        PyErr_Format(PyExc_BufferError,
                     "unknown DLPack dtype code %u (bits=%u); dlarray knows "
                     "the codes of DLPack 1.3 (0-2 and 4-17, not 3, the opaque "
                     "handle). The producer sent an element type dlarray "
                     "cannot represent.",
                     dtype.code, dtype.bits);
    }
    return NULL;
}

PyObject *
dla_dtype_table_as_tuple(void)
{
    PyObject *rows = PyTuple_New(dla_dtype_table_len);
    if (rows == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < dla_dtype_table_len; i++) {
        const DLADTypeEntry *e = &dla_dtype_table[i];
        PyObject *row = Py_BuildValue("(siis)", e->name, e->code, e->bits, e->kind);
        if (row == NULL) {
            Py_DECREF(rows);
            return NULL;
        }
        PyTuple_SET_ITEM(rows, i, row);
    }
    return rows;
}
