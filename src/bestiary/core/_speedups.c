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

static PyMethodDef methods[] = {
    {"is_listed", (PyCFunction)(void (*)(void))is_listed, METH_FASTCALL,
     "is_listed(item, items) -> bool: whether item itself is among items (a list or a tuple)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speedups", "Bestiary core helpers, compiled.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
