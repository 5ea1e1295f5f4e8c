/* Crit's Creatures: the pieces and board fields of the observation tensor, compiled.
 *
 * The same numbers as tensor.python_body (tensor.py), which stays the reference and the fallback where this
 * module is not built: tests/games/crits/test_compiled.py compares the two, and tests/rl/test_fast_tensors.py
 * both with the tensor encoded from the observation dict, at every step of seeded random games. CRITS-46: the
 * other side's cards held off the board show as empty rows (the count is in the sides field).
 */
#include "_cpython.h"
#include <string.h>

#define PIECES 32
#define PLANES 5
enum { RESERVE, BOARD }; /* where a piece is (rules.py) */

typedef struct {
    PyObject_HEAD
    int tiles, per_side, width, cards, places;
    /* columns of a piece's row (tensor.PIECE_STATS, then the places) */
    int visible, own, on_tile, x, y, held, holds_item, moved, used, turns_left, king, attacker, target,
        declared_attacker, declared_target, next_to_place, where_at;
    float *rows;   /* each card's fixed row (tensor.Tables.static) */
    char *is_item; /* per card */
    float *xs, *ys; /* per tile as the viewer faces it: column and row as numbers in [0, 1] */
} TensorTables;

static void tables_dealloc(TensorTables *self) {
    PyMem_Free(self->rows);
    PyMem_Free(self->is_item);
    PyMem_Free(self->xs);
    PyMem_Free(self->ys);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* a bytes value of exactly `size` bytes, copied */
static void *bytes_item(PyObject *spec, const char *key, Py_ssize_t size) {
    PyObject *value = spec_item(spec, key);
    if (value == NULL) return NULL;
    if (!PyBytes_Check(value) || PyBytes_GET_SIZE(value) != size) {
        PyErr_Format(PyExc_ValueError, "TensorTables: '%s' must be %zd bytes", key, size);
        return NULL;
    }
    void *out = PyMem_Malloc((size_t)(size ? size : 1));
    if (out == NULL) return PyErr_NoMemory();
    memcpy(out, PyBytes_AS_STRING(value), (size_t)size);
    return out;
}

static PyObject *tables_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *spec;
    if (!PyArg_ParseTuple(args, "O!:TensorTables", &PyDict_Type, &spec)) return NULL;
    TensorTables *self = (TensorTables *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    struct { const char *key; int *slot; } ints[] = {
        {"tiles", &self->tiles}, {"per_side", &self->per_side}, {"width", &self->width}, {"cards", &self->cards},
        {"places", &self->places}, {"visible", &self->visible}, {"own", &self->own}, {"on_tile", &self->on_tile},
        {"x", &self->x}, {"y", &self->y}, {"held", &self->held}, {"holds_item", &self->holds_item},
        {"moved", &self->moved}, {"used", &self->used}, {"turns_left", &self->turns_left}, {"king", &self->king},
        {"attacker", &self->attacker}, {"target", &self->target}, {"declared_attacker", &self->declared_attacker},
        {"declared_target", &self->declared_target}, {"next_to_place", &self->next_to_place},
        {"where_at", &self->where_at}};
    for (size_t k = 0; k < sizeof ints / sizeof *ints; k++)
        if (spec_int(spec, ints[k].key, ints[k].slot)) goto fail;
    if (2 * self->per_side != PIECES || self->tiles <= 0 || self->where_at + self->places > self->width) {
        PyErr_SetString(PyExc_ValueError, "TensorTables: 16 pieces a side, and the places within a row");
        goto fail;
    }
    Py_ssize_t row_bytes = (Py_ssize_t)self->width * (Py_ssize_t)sizeof(float);
    if ((self->rows = bytes_item(spec, "rows", row_bytes * self->cards)) == NULL) goto fail;
    if ((self->is_item = bytes_item(spec, "is_item", self->cards)) == NULL) goto fail;
    if ((self->xs = bytes_item(spec, "xs", self->tiles * (Py_ssize_t)sizeof(float))) == NULL) goto fail;
    if ((self->ys = bytes_item(spec, "ys", self->tiles * (Py_ssize_t)sizeof(float))) == NULL) goto fail;
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

/* state.<name>: a list of `n` small ints (or bools), into `out`; when n < 0 any length up to -n, returned */
static Py_ssize_t read_list(PyObject *state, const char *name, int *out, Py_ssize_t n) {
    PyObject *list = PyObject_GetAttrString(state, name);
    if (list == NULL) return -1;
    Py_ssize_t size = PyList_Check(list) ? PyList_GET_SIZE(list) : -1;
    if (size < 0 || (n >= 0 && size != n) || (n < 0 && size > -n)) {
        PyErr_Format(PyExc_TypeError, "state.%s: a list of %zd", name, n < 0 ? -n : n);
        Py_DECREF(list);
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        long x = small_int(PyList_GET_ITEM(list, i));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(list);
            return -1;
        }
        out[i] = (int)x;
    }
    Py_DECREF(list);
    return size;
}

static inline int faced(const TensorTables *t, int tile, int viewer) { return viewer == 0 ? tile : t->tiles - 1 - tile; }

/* body(state, viewer, out, attacker, target, next_to_place): write the pieces rows (the viewer's pieces
 * first) and then the board planes into `out`, a writable float32 buffer of exactly that many numbers;
 * attacker, target and next_to_place are pieces or -1 (tensor.observe works them out) */
static PyObject *body(TensorTables *t, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "body(state, viewer, out, attacker, target, next_to_place)");
        return NULL;
    }
    PyObject *state = args[0];
    long viewer = PyLong_AsLong(args[1]);
    long marked[3] = {PyLong_AsLong(args[3]), PyLong_AsLong(args[4]), PyLong_AsLong(args[5])};
    if (PyErr_Occurred()) return NULL;
    if (viewer < 0 || viewer > 1) {
        PyErr_SetString(PyExc_ValueError, "body: the viewer must be 0 or 1");
        return NULL;
    }
    int where[PIECES], side[PIECES], card[PIECES], pos[PIECES], holder[PIECES], held[PIECES], used[PIECES],
        lasts[PIECES], king[2], crown[2], player, aims[64];
    if (read_list(state, "where", where, PIECES) < 0 || read_list(state, "side", side, PIECES) < 0
        || read_list(state, "card", card, PIECES) < 0 || read_list(state, "pos", pos, PIECES) < 0
        || read_list(state, "holder", holder, PIECES) < 0 || read_list(state, "held", held, PIECES) < 0
        || read_list(state, "used", used, PIECES) < 0 || read_list(state, "lasts", lasts, PIECES) < 0
        || read_list(state, "king", king, 2) < 0 || read_list(state, "crown", crown, 2) < 0)
        return NULL;
    Py_ssize_t aimed = read_list(state, "aims", aims, -64);
    if (aimed < 0) return NULL;
    PyObject *value = PyObject_GetAttrString(state, "player");
    if (value == NULL) return NULL;
    player = (int)PyLong_AsLong(value);
    Py_DECREF(value);
    value = PyObject_GetAttrString(state, "moved");
    if (value == NULL) return NULL;
    unsigned long long moved = PyLong_AsUnsignedLongLong(value);
    Py_DECREF(value);
    if (PyErr_Occurred()) return NULL;
    for (int p = 0; p < PIECES; p++) {
        if (card[p] < 0 || card[p] >= t->cards || pos[p] < -1 || pos[p] >= t->tiles || where[p] < 0
            || where[p] >= t->places) {
            PyErr_Format(PyExc_ValueError, "piece %d: card %d, where %d, pos %d", p, card[p], where[p], pos[p]);
            return NULL;
        }
    }
    for (int k = 0; k < 2; k++) {
        if (king[k] < -1 || king[k] >= PIECES || crown[k] < -1 || crown[k] >= t->tiles) {
            PyErr_SetString(PyExc_ValueError, "state.king and state.crown: a piece, a tile or -1 each");
            return NULL;
        }
    }
    for (Py_ssize_t k = 0; k < aimed; k++) {
        if (aims[k] < 0 || aims[k] >= t->tiles) {
            PyErr_SetString(PyExc_ValueError, "state.aims: tiles");
            return NULL;
        }
    }
    for (int k = 0; k < 3; k++) {
        if (marked[k] < -1 || marked[k] >= PIECES) {
            PyErr_SetString(PyExc_ValueError, "body: attacker, target and next_to_place are pieces or -1");
            return NULL;
        }
    }
    /* each declared attack's attacker and target (state.combats: Combat(attacker, target, dice, counter)
       tuples; a list of the same is read alike) */
    char declared_attacker[PIECES] = {0}, declared_target[PIECES] = {0};
    PyObject *combats = PyObject_GetAttrString(state, "combats");
    if (combats == NULL) return NULL;
    if (!PyList_Check(combats)) {
        Py_DECREF(combats);
        PyErr_SetString(PyExc_TypeError, "state.combats: a list");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(combats); i++) {
        PyObject *combat = PyList_GET_ITEM(combats, i);
        long a = -1, b = -1;
        if (PyTuple_Check(combat) && PyTuple_GET_SIZE(combat) >= 2) {
            a = small_int(PyTuple_GET_ITEM(combat, 0));
            b = small_int(PyTuple_GET_ITEM(combat, 1));
        } else if (PyList_Check(combat) && PyList_GET_SIZE(combat) >= 2) {
            a = small_int(PyList_GET_ITEM(combat, 0));
            b = small_int(PyList_GET_ITEM(combat, 1));
        }
        if (a < 0 || a >= PIECES || b < 0 || b >= PIECES) {
            Py_DECREF(combats);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "state.combats: [attacker, target, ...]");
            return NULL;
        }
        declared_attacker[a] = declared_target[b] = 1;
    }
    Py_DECREF(combats);

    Py_buffer view;
    if (PyObject_GetBuffer(args[2], &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    Py_ssize_t numbers = (Py_ssize_t)PIECES * t->width + (Py_ssize_t)PLANES * t->tiles;
    if (view.itemsize != (Py_ssize_t)sizeof(float) || view.format == NULL || strcmp(view.format, "f") != 0
        || view.len != numbers * (Py_ssize_t)sizeof(float)) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "body: out must be %zd float32 numbers", numbers);
        return NULL;
    }
    float *rows = (float *)view.buf, *board = rows + PIECES * t->width;
    memset(board, 0, sizeof(float) * (size_t)(PLANES * t->tiles));
    for (int p = 0; p < PIECES; p++) {
        int slot = (p - (int)viewer * t->per_side + PIECES) % PIECES; /* the viewer's pieces first */
        float *row = rows + slot * t->width;
        int own = side[p] == viewer;
        if (where[p] == RESERVE && !own) { /* CRITS-46: the other side's reserve is only a count */
            memset(row, 0, sizeof(float) * (size_t)t->width);
            continue;
        }
        int item = t->is_item[card[p]];
        memcpy(row, t->rows + (size_t)card[p] * (size_t)t->width, sizeof(float) * (size_t)t->width);
        row[t->visible] = 1.0f;
        row[t->own] = (float)own;
        row[t->where_at + where[p]] = 1.0f;
        if (pos[p] >= 0) {
            int tile = faced(t, pos[p], (int)viewer);
            row[t->on_tile] = 1.0f;
            row[t->x] = t->xs[tile];
            row[t->y] = t->ys[tile];
            if (where[p] == BOARD) board[(own ? 0 : 1) * t->tiles + tile] = 1.0f;
        }
        row[t->held] = (float)(item && holder[p] >= 0);
        row[t->holds_item] = (float)(!item && held[p] >= 0);
        row[t->moved] = (float)((moved >> p & 1) && !item && side[p] == player);
        row[t->used] = (float)(used[p] != 0);
        row[t->turns_left] = (float)(lasts[p] / 10.0); /* tensor.STEP_SCALE */
        row[t->king] = (float)(king[0] == p || king[1] == p);
        row[t->attacker] = (float)(marked[0] == p);
        row[t->target] = (float)(marked[1] == p);
        row[t->declared_attacker] = (float)declared_attacker[p];
        row[t->declared_target] = (float)declared_target[p];
        row[t->next_to_place] = (float)(marked[2] == p);
    }
    for (int k = 0; k < 2; k++)
        if (crown[k] >= 0) board[(k == viewer ? 2 : 3) * t->tiles + faced(t, crown[k], (int)viewer)] = 1.0f;
    for (Py_ssize_t k = 0; k < aimed; k++) board[4 * t->tiles + faced(t, aims[k], (int)viewer)] = 1.0f;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyMethodDef tables_methods[] = {
    {"body", (PyCFunction)(void (*)(void))body, METH_FASTCALL,
     "body(state, viewer, out, attacker, target, next_to_place): the pieces and board fields into out"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject TensorTablesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bestiary.games.crits._tensor.TensorTables",
    .tp_basicsize = sizeof(TensorTables),
    .tp_dealloc = (destructor)tables_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A game's tables for the compiled tensor body: TensorTables(spec).",
    .tp_methods = tables_methods,
    .tp_new = tables_new,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tensor",
                                    "Crit's Creatures: the observation tensor's pieces and board, compiled.", -1, NULL};

PyMODINIT_FUNC PyInit__tensor(void) { return module_with_type(&module, &TensorTablesType, "TensorTables"); }
