/* Bestiary core: small helpers compiled, each the twin of a Python function in core/speedups.py that gives
 * the same answer (tests/core/test_speedups.py compares them). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* is_listed(item, items): whether `item` itself (not an equal copy) is among `items`, a list or a tuple */
static PyObject *is_listed(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "is_listed(item, items)");
        return NULL;
    }
    PyObject *item = args[0], *items = args[1];
    PyObject **entries;
    Py_ssize_t count;
    if (PyList_Check(items)) {
        entries = ((PyListObject *)items)->ob_item;
        count = PyList_GET_SIZE(items);
    } else if (PyTuple_Check(items)) {
        entries = ((PyTupleObject *)items)->ob_item;
        count = PyTuple_GET_SIZE(items);
    } else {
        PyErr_SetString(PyExc_TypeError, "is_listed: items must be a list or a tuple");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++)
        if (entries[i] == item) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* mark_indices(mask, actions): mask[action.index] = 1 for each action of `actions` (a list or a tuple), in a
 * writable contiguous buffer of one-byte numbers (numpy int8, uint8 or bool) */
static PyObject *mark_indices(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    static PyObject *index_name = NULL;
    if (index_name == NULL && (index_name = PyUnicode_InternFromString("index")) == NULL) return NULL;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "mark_indices(mask, actions)");
        return NULL;
    }
    PyObject *actions = PySequence_Fast(args[1], "mark_indices: actions must be a list or a tuple");
    if (actions == NULL) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(actions);
        return NULL;
    }
    PyObject *result = Py_None;
    if (view.itemsize != 1) {
        PyErr_SetString(PyExc_ValueError, "mark_indices: the mask must hold one-byte numbers");
        result = NULL;
    }
    char *marks = view.buf;
    for (Py_ssize_t i = 0; result != NULL && i < PySequence_Fast_GET_SIZE(actions); i++) {
        PyObject *index = PyObject_GetAttr(PySequence_Fast_GET_ITEM(actions, i), index_name);
        Py_ssize_t at = index == NULL ? -1 : PyNumber_AsSsize_t(index, PyExc_IndexError);
        Py_XDECREF(index);
        if (PyErr_Occurred()) {
            result = NULL;
        } else if (at < 0 || at >= view.len) {
            PyErr_Format(PyExc_IndexError, "mark_indices: index %zd outside a mask of %zd", at, view.len);
            result = NULL;
        } else {
            marks[at] = 1;
        }
    }
    PyBuffer_Release(&view);
    Py_DECREF(actions);
    Py_XINCREF(result);
    return result;
}

static PyMethodDef methods[] = {
    {"is_listed", (PyCFunction)(void (*)(void))is_listed, METH_FASTCALL,
     "is_listed(item, items) -> bool: whether item itself is among items (a list or a tuple)"},
    {"mark_indices", (PyCFunction)(void (*)(void))mark_indices, METH_FASTCALL,
     "mark_indices(mask, actions): mask[action.index] = 1 for each action, in a one-byte-per-number buffer"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speedups", "Bestiary core helpers, compiled.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
