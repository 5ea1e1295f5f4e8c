/* What the compiled Crit's Creatures modules (_turn.c, _tensor.c) share: reading small ints, reading a tables'
 * spec, and making a module that holds one type. */
#ifndef BESTIARY_CRITS_CPYTHON_H
#define BESTIARY_CRITS_CPYTHON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* A small Python int's value without the general conversion (the state's lists hold piece and tile numbers). */
static inline long small_int(PyObject *v) {
#if PY_VERSION_HEX >= 0x030C0000
    if (PyLong_CheckExact(v) && PyUnstable_Long_IsCompact((PyLongObject *)v))
        return (long)PyUnstable_Long_CompactValue((PyLongObject *)v);
#else
    if (PyLong_CheckExact(v)) {
        Py_ssize_t size = Py_SIZE(v);
        if (size == 0) return 0;
        if (size == 1) return (long)((PyLongObject *)v)->ob_digit[0];
        if (size == -1) return -(long)((PyLongObject *)v)->ob_digit[0];
    }
#endif
    if (v == Py_True) return 1;
    if (v == Py_False) return 0;
    return PyLong_AsLong(v);
}

/* spec[key], borrowed; a KeyError naming the key when it is missing */
static inline PyObject *spec_item(PyObject *spec, const char *key) {
    PyObject *value = PyDict_GetItemString(spec, key);
    if (value == NULL) PyErr_Format(PyExc_KeyError, "the tables' spec has no '%s'", key);
    return value;
}

static inline int spec_int(PyObject *spec, const char *key, int *out) {
    PyObject *value = spec_item(spec, key);
    if (value == NULL) return -1;
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = (int)v;
    return 0;
}

/* The module of `definition`, holding `type` under `name` */
static inline PyObject *module_with_type(PyModuleDef *definition, PyTypeObject *type, const char *name) {
    if (PyType_Ready(type) < 0) return NULL;
    PyObject *module = PyModule_Create(definition);
    if (module == NULL) return NULL;
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}

#endif
