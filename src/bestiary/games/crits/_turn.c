/* Crit's Creatures: the turn's legal actions, compiled.
 *
 * The same list, in the same order, as flow.python_turn_actions (flow.py), which stays the reference
 * and the fallback where this module is not built: tests/games/crits/test_compiled.py compares the two at
 * every step of seeded random games. The board is read from the state's per-piece lists; the tiles are bit
 * sets of up to MAX_WORDS 64-bit words, as the Python rules hold them in integers. Rule ids are those of
 * docs/rules/crits-creatures.md.
 */
#include "_cpython.h"
#include <stdint.h>
#include <string.h>

#define MAX_TILES (26 * 60) /* the largest board the options allow */
#define MAX_WORDS ((MAX_TILES + 63) / 64)
#define PIECES 32
#define SIDE 16
#define MOVES_PER_TURN 5 /* CRITS-5, CRITS-56 */

/* where a piece is (rules.py) */
enum { RESERVE, BOARD, EQUIPPED, DROPPED, GRAVEYARD, GONE, WAITING };
/* a card's kind, and its activated effect */
enum { KIND_TITAN, KIND_CREATURE, KIND_ITEM };
enum { EFFECT_NONE, EFFECT_NECRO, EFFECT_AIMED };

typedef uint64_t word;
typedef struct {
    word w[MAX_WORDS];
} Bits;

typedef struct {
    PyObject_HEAD
    int width, length, tiles, words, allies_block;
    Bits all, not_first_column, not_last_column, zone[2];
    /* per card */
    int cards;
    int *moves, *range, *dice, *kind, *swift, *effect, *effect_range, *at_enemy, *titans;
    /* per tile: the moves out of it, in the order of the game's move table (out_start[t] .. out_start[t+1]) */
    int *out_start, *out_dest, *out_length;
    PyObject **out_action;
    /* the same moves by destination: move_at[origin * move_span + move_half + destination - origin] (borrowed
     * from out_action), for listing a reach in tile order, which is the move table's order */
    int move_half, move_span;
    PyObject **move_at;
    /* per tile and direction (game.ORTHOGONAL's order), the straight line out and the attacks along it */
    int longest;
    int *ray_length, *ray_tile;
    PyObject **ray_attack;
    /* per tile */
    PyObject **split, **pincer, **use_own, **use_held, **drop_crown;
    int *around_start, *around_tile, *beside_start, *beside_tile;
    PyObject *end_turn, *is_swift;
} TurnTables;

/* -- bit sets ------------------------------------------------------------------------------------------ */
static inline void bits_clear(Bits *b, int words) { memset(b->w, 0, sizeof(word) * (size_t)words); }
static inline void bits_set(Bits *b, int t) { b->w[t >> 6] |= (word)1 << (t & 63); }
static inline int bits_has(const Bits *b, int t) { return (int)(b->w[t >> 6] >> (t & 63) & 1); }

/* out = in << n over words lo..hi (bits shifted past hi are dropped) */
static inline void shift_up(word *out, const word *in, int n, int lo, int hi) {
    int q = n >> 6, r = n & 63;
    for (int i = hi; i >= lo; i--) {
        word v = 0;
        if (i - q >= lo) {
            v = in[i - q] << r;
            if (r && i - q - 1 >= lo) v |= in[i - q - 1] >> (64 - r);
        }
        out[i] = v;
    }
}

/* out = in >> n over words lo..hi */
static inline void shift_down(word *out, const word *in, int n, int lo, int hi) {
    int q = n >> 6, r = n & 63;
    for (int i = lo; i <= hi; i++) {
        word v = 0;
        if (i + q <= hi) {
            v = in[i + q] >> r;
            if (r && i + q + 1 <= hi) v |= in[i + q + 1] << (64 - r);
        }
        out[i] = v;
    }
}

/* -- building the tables ------------------------------------------------------------------------------- */
static int *int_array(PyObject *seq, Py_ssize_t n, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries, expected %zd", what, PySequence_Fast_GET_SIZE(fast), n);
        Py_DECREF(fast);
        return NULL;
    }
    int *out = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int));
    if (out == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            PyMem_Free(out);
            Py_DECREF(fast);
            return NULL;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return out;
}

static PyObject **ref_array(Py_ssize_t n) {
    PyObject **out = PyMem_Calloc((size_t)(n ? n : 1), sizeof(PyObject *));
    if (out == NULL) PyErr_NoMemory();
    return out;
}

/* Keep a strong reference to `action` in `slot` (NULL-safe: None stays NULL). */
static int hold(PyObject **slot, PyObject *action) {
    if (action == Py_None) return 0;
    Py_INCREF(action);
    *slot = action;
    return 0;
}

/* A per-tile sequence of actions (one per tile). */
static PyObject **tile_actions(TurnTables *self, PyObject *seq, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != self->tiles) {
        PyErr_Format(PyExc_ValueError, "%s: one entry per tile", what);
        Py_DECREF(fast);
        return NULL;
    }
    PyObject **out = ref_array(self->tiles);
    if (out != NULL)
        for (int t = 0; t < self->tiles; t++) hold(&out[t], PySequence_Fast_GET_ITEM(fast, t));
    Py_DECREF(fast);
    return out;
}

/* Per tile, a sequence of tiles: flattened with a start index per tile. */
static int neighbour_table(TurnTables *self, PyObject *seq, int **start, int **tiles, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != self->tiles) {
        PyErr_Format(PyExc_ValueError, "%s: one entry per tile", what);
        Py_DECREF(fast);
        return -1;
    }
    *start = PyMem_Calloc((size_t)self->tiles + 1, sizeof(int));
    Py_ssize_t total = 0;
    for (int t = 0; t < self->tiles; t++) total += PyObject_Length(PySequence_Fast_GET_ITEM(fast, t));
    *tiles = PyMem_Calloc((size_t)(total ? total : 1), sizeof(int));
    if (*start == NULL || *tiles == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    int at = 0;
    for (int t = 0; t < self->tiles; t++) {
        (*start)[t] = at;
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(fast, t), what);
        if (row == NULL) {
            Py_DECREF(fast);
            return -1;
        }
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(row); i++)
            (*tiles)[at++] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(row, i));
        Py_DECREF(row);
    }
    (*start)[self->tiles] = at;
    Py_DECREF(fast);
    return PyErr_Occurred() ? -1 : 0;
}

static void tables_dealloc(TurnTables *self) {
    PyObject **per_tile[] = {self->split, self->pincer, self->use_own, self->use_held, self->drop_crown};
    for (size_t k = 0; k < sizeof per_tile / sizeof *per_tile; k++) {
        if (per_tile[k] == NULL) continue;
        for (int t = 0; t < self->tiles; t++) Py_XDECREF(per_tile[k][t]);
        PyMem_Free(per_tile[k]);
    }
    if (self->out_action != NULL) {
        for (int i = 0; self->out_start != NULL && i < self->out_start[self->tiles]; i++) Py_XDECREF(self->out_action[i]);
        PyMem_Free(self->out_action);
    }
    PyMem_Free(self->move_at);
    if (self->ray_attack != NULL) {
        for (int i = 0; i < self->tiles * 4 * self->longest; i++) Py_XDECREF(self->ray_attack[i]);
        PyMem_Free(self->ray_attack);
    }
    int *arrays[] = {self->moves, self->range, self->dice, self->kind, self->swift, self->effect,
                     self->effect_range, self->at_enemy, self->titans, self->out_start, self->out_dest,
                     self->out_length, self->ray_length, self->ray_tile, self->around_start, self->around_tile,
                     self->beside_start, self->beside_tile};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++) PyMem_Free(arrays[k]);
    Py_XDECREF(self->end_turn);
    Py_XDECREF(self->is_swift);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int card_arrays(TurnTables *self, PyObject *spec) {
    struct { const char *key; int **slot; } columns[] = {
        {"moves", &self->moves}, {"range", &self->range}, {"dice", &self->dice}, {"kind", &self->kind},
        {"swift", &self->swift}, {"effect", &self->effect}, {"effect_range", &self->effect_range},
        {"at_enemy", &self->at_enemy}, {"titans", &self->titans}};
    for (size_t k = 0; k < sizeof columns / sizeof *columns; k++) {
        PyObject *seq = spec_item(spec, columns[k].key);
        if (seq == NULL || (*columns[k].slot = int_array(seq, self->cards, columns[k].key)) == NULL) return -1;
    }
    return 0;
}

/* moves_out: per tile, a sequence of (destination, length, Move) in the game's order */
static int move_table(TurnTables *self, PyObject *seq) {
    PyObject *fast = PySequence_Fast(seq, "moves_out");
    if (fast == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != self->tiles) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "moves_out: one entry per tile");
        return -1;
    }
    Py_ssize_t total = 0;
    for (int t = 0; t < self->tiles; t++) total += PyObject_Length(PySequence_Fast_GET_ITEM(fast, t));
    self->out_start = PyMem_Calloc((size_t)self->tiles + 1, sizeof(int));
    self->out_dest = PyMem_Calloc((size_t)total + 1, sizeof(int));
    self->out_length = PyMem_Calloc((size_t)total + 1, sizeof(int));
    self->out_action = ref_array(total + 1);
    if (!self->out_start || !self->out_dest || !self->out_length || !self->out_action) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    int at = 0;
    for (int t = 0; t < self->tiles; t++) {
        self->out_start[t] = at;
        self->out_start[t + 1] = at; /* kept whole while filling, for tables_dealloc */
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(fast, t), "moves_out");
        if (row == NULL) {
            Py_DECREF(fast);
            return -1;
        }
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(row); i++) {
            PyObject *entry = PySequence_Fast_GET_ITEM(row, i);
            if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 3) {
                Py_DECREF(row);
                Py_DECREF(fast);
                PyErr_SetString(PyExc_TypeError, "moves_out: (destination, length, action) entries");
                return -1;
            }
            self->out_dest[at] = (int)PyLong_AsLong(PyTuple_GET_ITEM(entry, 0));
            self->out_length[at] = (int)PyLong_AsLong(PyTuple_GET_ITEM(entry, 1));
            hold(&self->out_action[at], PyTuple_GET_ITEM(entry, 2));
            self->out_start[t + 1] = ++at;
        }
        Py_DECREF(row);
    }
    Py_DECREF(fast);
    if (PyErr_Occurred()) return -1;
    int longest = 0;
    for (int i = 0; i < at; i++) longest = self->out_length[i] > longest ? self->out_length[i] : longest;
    self->move_half = longest * self->width + longest;
    self->move_span = 2 * self->move_half + 1;
    self->move_at = PyMem_Calloc((size_t)self->tiles * (size_t)self->move_span, sizeof(PyObject *));
    if (self->move_at == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int t = 0; t < self->tiles; t++) {
        for (int i = self->out_start[t]; i < self->out_start[t + 1]; i++) {
            int dest = self->out_dest[i];
            if (dest < 0 || dest >= self->tiles || (i > self->out_start[t] && dest <= self->out_dest[i - 1])) {
                PyErr_SetString(PyExc_ValueError, "moves_out: each tile's destinations on the board, in order");
                return -1;
            }
            self->move_at[t * self->move_span + self->move_half + dest - t] = self->out_action[i];
        }
    }
    return 0;
}

/* rays: per tile, four sequences of (tile, Attack) along each direction, nearest first */
static int ray_table(TurnTables *self, PyObject *seq) {
    PyObject *fast = PySequence_Fast(seq, "rays");
    if (fast == NULL) return -1;
    int slots = self->tiles * 4 * self->longest;
    self->ray_length = PyMem_Calloc((size_t)self->tiles * 4, sizeof(int));
    self->ray_tile = PyMem_Calloc((size_t)slots + 1, sizeof(int));
    self->ray_attack = ref_array(slots + 1);
    if (!self->ray_length || !self->ray_tile || !self->ray_attack) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(fast) != self->tiles) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "rays: one entry per tile");
        return -1;
    }
    for (int t = 0; t < self->tiles; t++) {
        PyObject *lines = PySequence_Fast(PySequence_Fast_GET_ITEM(fast, t), "rays");
        if (lines == NULL || PySequence_Fast_GET_SIZE(lines) != 4) {
            Py_XDECREF(lines);
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "rays: four lines per tile");
            return -1;
        }
        for (int d = 0; d < 4; d++) {
            PyObject *line = PySequence_Fast(PySequence_Fast_GET_ITEM(lines, d), "rays");
            if (line == NULL || PySequence_Fast_GET_SIZE(line) > self->longest) {
                Py_XDECREF(line);
                Py_DECREF(lines);
                Py_DECREF(fast);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "rays: a line longer than the longest range");
                return -1;
            }
            int base = (t * 4 + d) * self->longest;
            self->ray_length[t * 4 + d] = (int)PySequence_Fast_GET_SIZE(line);
            for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(line); k++) {
                PyObject *entry = PySequence_Fast_GET_ITEM(line, k);
                self->ray_tile[base + k] = (int)PyLong_AsLong(PyTuple_GetItem(entry, 0));
                PyObject *attack = PyTuple_GetItem(entry, 1);
                if (attack != NULL) hold(&self->ray_attack[base + k], attack);
            }
            Py_DECREF(line);
        }
        Py_DECREF(lines);
    }
    Py_DECREF(fast);
    return PyErr_Occurred() ? -1 : 0;
}

/* TurnTables(spec): spec is the dict CritsCreatures._turn_tables builds. */
static PyObject *tables_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *spec;
    if (!PyArg_ParseTuple(args, "O!:TurnTables", &PyDict_Type, &spec)) return NULL;
    TurnTables *self = (TurnTables *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    if (spec_int(spec, "width", &self->width) || spec_int(spec, "length", &self->length)
        || spec_int(spec, "allies_block", &self->allies_block) || spec_int(spec, "cards", &self->cards)
        || spec_int(spec, "longest", &self->longest))
        goto fail;
    int depth;
    if (spec_int(spec, "start_depth", &depth)) goto fail;
    self->tiles = self->width * self->length;
    self->words = (self->tiles + 63) / 64;
    if (self->tiles > MAX_TILES || self->width < 2 || self->longest < 1) {
        PyErr_SetString(PyExc_ValueError, "TurnTables: a board larger than 26 x 60 tiles");
        goto fail;
    }
    bits_clear(&self->all, MAX_WORDS);
    bits_clear(&self->not_first_column, MAX_WORDS);
    bits_clear(&self->not_last_column, MAX_WORDS);
    bits_clear(&self->zone[0], MAX_WORDS);
    bits_clear(&self->zone[1], MAX_WORDS);
    for (int t = 0; t < self->tiles; t++) {
        bits_set(&self->all, t);
        if (t % self->width > 0) bits_set(&self->not_first_column, t);
        if (t % self->width < self->width - 1) bits_set(&self->not_last_column, t);
        /* CRITS-18, CRITS-44: each side's start zone lies behind its red line */
        if (t < depth * self->width) bits_set(&self->zone[0], t);
        if (t >= self->tiles - depth * self->width) bits_set(&self->zone[1], t);
    }
    if (card_arrays(self, spec)) goto fail;
    PyObject *seq;
    if ((seq = spec_item(spec, "moves_out")) == NULL || move_table(self, seq)) goto fail;
    if ((seq = spec_item(spec, "rays")) == NULL || ray_table(self, seq)) goto fail;
    struct { const char *key; PyObject ***slot; } per_tile[] = {
        {"split", &self->split}, {"pincer", &self->pincer}, {"use_own", &self->use_own},
        {"use_held", &self->use_held}, {"drop_crown", &self->drop_crown}};
    for (size_t k = 0; k < sizeof per_tile / sizeof *per_tile; k++) {
        if ((seq = spec_item(spec, per_tile[k].key)) == NULL) goto fail;
        if ((*per_tile[k].slot = tile_actions(self, seq, per_tile[k].key)) == NULL) goto fail;
    }
    if ((seq = spec_item(spec, "around")) == NULL
        || neighbour_table(self, seq, &self->around_start, &self->around_tile, "around"))
        goto fail;
    if ((seq = spec_item(spec, "beside")) == NULL
        || neighbour_table(self, seq, &self->beside_start, &self->beside_tile, "beside"))
        goto fail;
    if ((seq = spec_item(spec, "end_turn")) == NULL) goto fail;
    Py_INCREF(seq);
    self->end_turn = seq;
    if ((seq = spec_item(spec, "is_swift")) == NULL) goto fail;
    Py_INCREF(seq);
    self->is_swift = seq;
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

/* -- reading the state ---------------------------------------------------------------------------------- */
typedef struct {
    int player, moves_made, attacked;
    uint64_t moved;
    int where[PIECES], card[PIECES], pos[PIECES], side[PIECES], holder[PIECES], used[PIECES];
    short at[MAX_TILES]; /* the piece standing on each tile, or -1 (state.board) */
    PyObject *activators; /* a tuple, owned */
    int king[2];
} View;

/* The actions listed so far: on the stack, or on the heap once a list outgrows it. */
typedef struct {
    PyObject **items;
    Py_ssize_t count, capacity;
    PyObject *stack[1024];
} Listed;

static PyObject *s_player, *s_moves_made, *s_attacked, *s_moved, *s_where, *s_card, *s_pos, *s_side,
    *s_holder, *s_used, *s_activators, *s_king;

static int read_int(PyObject *state, PyObject *name, int *out) {
    PyObject *value = PyObject_GetAttr(state, name);
    if (value == NULL) return -1;
    long v = small_int(value);
    Py_DECREF(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = (int)v;
    return 0;
}

static int read_pieces(PyObject *state, PyObject *name, int *out, Py_ssize_t n) {
    PyObject *list = PyObject_GetAttr(state, name);
    if (list == NULL) return -1;
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) {
        PyErr_Format(PyExc_TypeError, "state.%U: a list of %zd", name, n);
        Py_DECREF(list);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long x = small_int(PyList_GET_ITEM(list, i));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(list);
            return -1;
        }
        out[i] = (int)x;
    }
    Py_DECREF(list);
    return 0;
}

static int read_state(TurnTables *tables, PyObject *state, View *v) {
    if (read_int(state, s_player, &v->player) || read_int(state, s_moves_made, &v->moves_made)
        || read_int(state, s_attacked, &v->attacked))
        return -1;
    PyObject *moved = PyObject_GetAttr(state, s_moved);
    if (moved == NULL) return -1;
    v->moved = PyLong_AsUnsignedLongLong(moved);
    Py_DECREF(moved);
    if (PyErr_Occurred()) return -1;
    if (read_pieces(state, s_where, v->where, PIECES) || read_pieces(state, s_card, v->card, PIECES)
        || read_pieces(state, s_pos, v->pos, PIECES) || read_pieces(state, s_side, v->side, PIECES)
        || read_pieces(state, s_holder, v->holder, PIECES) || read_pieces(state, s_used, v->used, PIECES)
        || read_pieces(state, s_king, v->king, 2))
        return -1;
    /* what the lists index must lie within them: a state that breaks this is refused, never read past */
    for (int p = 0; p < PIECES; p++) {
        if (v->card[p] < 0 || v->card[p] >= tables->cards || v->pos[p] < -1 || v->pos[p] >= tables->tiles
            || ((v->where[p] == BOARD || v->where[p] == DROPPED) && v->pos[p] < 0)
            || v->side[p] < 0 || v->side[p] > 1 || v->holder[p] < -1 || v->holder[p] >= PIECES) {
            PyErr_Format(PyExc_ValueError, "piece %d: card %d, side %d, holder %d, pos %d", p, v->card[p],
                         v->side[p], v->holder[p], v->pos[p]);
            return -1;
        }
    }
    if (v->player < 0 || v->player > 1 || v->king[0] < -1 || v->king[0] >= PIECES || v->king[1] < -1
        || v->king[1] >= PIECES) {
        PyErr_SetString(PyExc_ValueError, "state.player must be 0 or 1, and each King a piece or -1");
        return -1;
    }
    /* the pieces standing on the board, as state.board holds them (put, shift and lift keep the two agreed) */
    memset(v->at, 0xff, sizeof(short) * (size_t)tables->tiles);
    for (int p = 0; p < PIECES; p++)
        if (v->where[p] == BOARD) v->at[v->pos[p]] = (short)p;
    v->activators = PyObject_GetAttr(state, s_activators);
    if (v->activators == NULL) return -1;
    if (!PyTuple_Check(v->activators)) {
        Py_CLEAR(v->activators);
        PyErr_SetString(PyExc_TypeError, "state.activators: a tuple");
        return -1;
    }
    return 0;
}

static inline int on_tile(const View *v, int tile) { return v->at[tile]; }

static int grow(Listed *out) {
    Py_ssize_t capacity = out->capacity * 2;
    PyObject **items = PyMem_Malloc(sizeof(PyObject *) * (size_t)capacity);
    if (items == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(items, out->items, sizeof(PyObject *) * (size_t)out->count);
    if (out->items != out->stack) PyMem_Free(out->items);
    out->items = items;
    out->capacity = capacity;
    return 0;
}

/* borrowed: the tables (or the caller's deploys) hold the action while it is listed */
static inline int append(Listed *out, PyObject *action) {
    if (action == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "TurnTables: an action missing from the tables");
        return -1;
    }
    if (out->count == out->capacity && grow(out)) return -1;
    out->items[out->count++] = action;
    return 0;
}

static PyObject *as_list(const Listed *out) {
    PyObject *list = PyList_New(out->count);
    if (list == NULL) return NULL;
    for (Py_ssize_t i = 0; i < out->count; i++) {
        Py_INCREF(out->items[i]);
        PyList_SET_ITEM(list, i, out->items[i]);
    }
    return list;
}

/* -- the turn's legal actions --------------------------------------------------------------------------- */
/* CRITS-6, CRITS-7: the free tiles the piece on `origin` reaches within `budget`, orthogonal steps costing 1 and
 * diagonal steps 2, over `passable` tiles (rules.reach, layer by layer), into words `*words_from` to `*words_to`
 * of `out`: only the words of the rows within `budget` of the origin are touched, as no layer leaves them. */
static void reach(const TurnTables *t, int origin, int budget, const Bits *passable, const Bits *free, Bits *out,
                  int *words_from, int *words_to) {
    int row = origin / t->width;
    int first = row - budget < 0 ? 0 : row - budget;
    int last_row = row + budget >= t->length ? t->length - 1 : row + budget;
    int lo = first * t->width / 64, hi = (last_row * t->width + t->width - 1) / 64;
    *words_from = lo;
    *words_to = hi;
    word last[MAX_WORDS], unseen[MAX_WORDS], sideways_before[MAX_WORDS], reached[MAX_WORDS];
    word sideways[MAX_WORDS], vertical[MAX_WORDS], a[MAX_WORDS], b[MAX_WORDS];
    for (int i = lo; i <= hi; i++) {
        last[i] = 0;
        sideways_before[i] = 0;
        reached[i] = 0;
    }
    last[origin >> 6] = (word)1 << (origin & 63);
    for (int i = lo; i <= hi; i++) unseen[i] = passable->w[i] & ~last[i];
    for (int step = 0; step < budget; step++) {
        for (int i = lo; i <= hi; i++) a[i] = last[i] & t->not_last_column.w[i];
        for (int i = lo; i <= hi; i++) b[i] = last[i] & t->not_first_column.w[i];
        shift_up(sideways, a, 1, lo, hi);
        shift_down(a, b, 1, lo, hi);
        for (int i = lo; i <= hi; i++) {
            sideways[i] |= a[i];
            vertical[i] = last[i] | sideways_before[i];
        }
        shift_up(a, vertical, t->width, lo, hi);
        shift_down(b, vertical, t->width, lo, hi);
        word any = 0;
        for (int i = lo; i <= hi; i++) {
            last[i] = (sideways[i] | a[i] | b[i]) & unseen[i];
            unseen[i] ^= last[i];
            reached[i] |= last[i];
            sideways_before[i] = sideways[i];
            any |= last[i] | sideways[i];
        }
        if (!any) break; /* nothing left to spread from */
    }
    for (int i = lo; i <= hi; i++) out->w[i] = reached[i] & free->w[i];
}

/* rules.target_at: whether an attack by `player` on `tile` hits something */
static inline int is_target(const View *v, const Bits *dropped, int tile, int player) {
    int occupant = on_tile(v, tile);
    if (occupant >= 0) return v->side[occupant] != player;
    return bits_has(dropped, tile); /* CRITS-37: dropped items can be destroyed */
}

/* rules.has_effect_target: whether the activated effect of `piece` has something to aim at now */
static int has_effect_target(const TurnTables *t, const View *v, const Bits *occupied, int piece) {
    int card = v->card[piece];
    if (v->used[piece] || t->effect[card] == EFFECT_NONE) return 0;
    int holder = v->holder[piece];
    int origin = v->pos[holder >= 0 ? holder : piece];
    if (origin < 0) origin += t->tiles; /* as the Python lists index */
    if (t->effect[card] == EFFECT_NECRO) {
        /* CRITS-28: a creature in the graveyard and a free tile beside the card */
        int player = v->side[piece], graveyard = 0;
        for (int p = player * SIDE; p < player * SIDE + SIDE; p++) graveyard |= v->where[p] == GRAVEYARD;
        if (!graveyard) return 0;
        for (int i = t->beside_start[origin]; i < t->beside_start[origin + 1]; i++)
            if (!bits_has(occupied, t->beside_tile[i])) return 1;
        return 0;
    }
    /* Kill and Sacrifice: a piece of the aimed side within range; CRITS-15, CRITS-16: only a Titan's effect
     * touches Titans */
    int side = v->side[piece] ^ t->at_enemy[card], range = t->effect_range[card];
    int ox = origin % t->width, oy = origin / t->width;
    for (int p = 0; p < PIECES; p++) {
        int tile = v->pos[p];
        int kind = t->kind[v->card[p]];
        if (v->where[p] != BOARD || v->side[p] != side) continue;
        if (kind != KIND_CREATURE && !(kind == KIND_TITAN && t->titans[card])) continue;
        int dx = tile % t->width - ox, dy = tile / t->width - oy;
        if ((dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) <= range) return 1;
    }
    return 0;
}

static PyObject *turn_actions(TurnTables *t, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "turn_actions(state, deploys)");
        return NULL;
    }
    PyObject *state = args[0], *deploys = args[1];
    if (!PyTuple_Check(deploys)) {
        PyErr_SetString(PyExc_TypeError, "turn_actions: deploys must be a tuple");
        return NULL;
    }
    View v;
    v.activators = NULL;
    Listed listed;
    Listed *out = &listed;
    listed.items = listed.stack;
    listed.count = 0;
    listed.capacity = sizeof listed.stack / sizeof *listed.stack;
    PyObject *list = NULL;
    if (read_state(t, state, &v)) goto fail;

    int player = v.player, enemy_side = 1 - player, words = t->words;
    Bits occupancy[2], dropped, occupied, free, passable, reached;
    bits_clear(&occupancy[0], words);
    bits_clear(&occupancy[1], words);
    bits_clear(&dropped, words);
    int fighters[SIDE * 2], fighter_count = 0;
    for (int p = 0; p < PIECES; p++) {
        if (v.where[p] == DROPPED) {
            bits_set(&dropped, v.pos[p]);
            continue;
        }
        if (v.where[p] != BOARD) continue;
        int side = v.side[p], kind = t->kind[v.card[p]];
        bits_set(&occupancy[side], v.pos[p]);
        if (kind != KIND_ITEM && side == player) fighters[fighter_count++] = p;
    }
    for (int i = 0; i < words; i++) {
        occupied.w[i] = occupancy[0].w[i] | occupancy[1].w[i];
        free.w[i] = t->all.w[i] & ~occupied.w[i];
        passable.w[i] = t->allies_block ? free.w[i] : free.w[i] | occupancy[player].w[i];
    }
    int hurried = v.moves_made >= MOVES_PER_TURN;
    int may_attack = !v.attacked;

    /* CRITS-5, CRITS-56: up to five different pieces a turn, each once; Swift cards override (CRITS-54) */
    for (int f = 0; f < fighter_count; f++) {
        int piece = fighters[f], card = v.card[piece], budget = t->moves[card];
        if (budget <= 0 || (v.moved >> piece & 1)) continue;
        if (hurried) {
            if (!t->swift[card]) continue;
            PyObject *swift = PyObject_CallFunction(t->is_swift, "Oi", state, piece);
            if (swift == NULL) goto fail;
            int yes = PyObject_IsTrue(swift);
            Py_DECREF(swift);
            if (yes < 0) goto fail;
            if (!yes) continue;
        }
        int origin = v.pos[piece];
        int lo, hi;
        reach(t, origin, budget, &passable, &free, &reached, &lo, &hi);
        PyObject **moves = t->move_at + origin * t->move_span + t->move_half - origin;
        for (int i = lo; i <= hi; i++) {
            for (word w = reached.w[i]; w; w &= w - 1)
                if (append(out, moves[i * 64 + __builtin_ctzll(w)])) goto fail;
        }
    }
    if (may_attack) {
        /* CRITS-65: an orthogonally adjacent target, never diagonal; CRITS-51: a ranged attack reaches along its
         * row or column up to its range but not past a piece standing or an item lying in between */
        for (int f = 0; f < fighter_count; f++) {
            int piece = fighters[f], card = v.card[piece];
            if (t->dice[card] <= 0) continue;
            int origin = v.pos[piece], range = t->range[card], hits = 0;
            for (int d = 0; d < 4; d++) {
                int base = (origin * 4 + d) * t->longest, length = t->ray_length[origin * 4 + d];
                for (int k = 0; k < length && k < range; k++) {
                    int tile = t->ray_tile[base + k];
                    if (is_target(&v, &dropped, tile, player)) {
                        if (append(out, t->ray_attack[base + k])) goto fail;
                        hits++;
                    }
                    if (on_tile(&v, tile) >= 0 || bits_has(&dropped, tile)) break;
                }
            }
            /* CRITS-62: a piece with several attack dice may split them among several targets */
            if (hits > 1 && t->dice[card] > 1 && append(out, t->split[origin])) goto fail;
        }
        /* CRITS-63: an enemy (not an item) with an attacking piece of ours in front and behind */
        for (int i = 0; i < words; i++) {
            word enemies = occupancy[enemy_side].w[i];
            while (enemies) {
                int tile = i * 64 + __builtin_ctzll(enemies);
                enemies &= enemies - 1;
                int target = on_tile(&v, tile);
                if (target < 0 || t->kind[v.card[target]] == KIND_ITEM) continue;
                if (tile < t->width || tile >= t->tiles - t->width) continue;
                int front = on_tile(&v, tile - t->width), back = on_tile(&v, tile + t->width);
                if (front < 0 || back < 0 || v.side[front] != player || v.side[back] != player) continue;
                if (t->kind[v.card[front]] == KIND_ITEM || t->kind[v.card[back]] == KIND_ITEM) continue;
                if (t->dice[v.card[front]] <= 0 || t->dice[v.card[back]] <= 0) continue;
                if (append(out, t->pincer[tile])) goto fail;
            }
        }
    }
    /* CRITS-52 and the cards' own effects: each activated effect with a target now */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v.activators); i++) {
        long piece = small_int(PyTuple_GET_ITEM(v.activators, i));
        if (piece < 0 || piece >= PIECES) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "state.activators: a piece number");
            goto fail;
        }
        int place = v.where[piece];
        if (v.side[piece] != player || (place != BOARD && place != EQUIPPED)) continue;
        if (!has_effect_target(t, &v, &occupied, (int)piece)) continue;
        int holder = v.holder[piece];
        int source = v.pos[holder >= 0 ? holder : piece];
        if (source < 0) source += t->tiles;
        if (append(out, place == EQUIPPED ? t->use_held[source] : t->use_own[source])) goto fail;
    }
    /* CRITS-23, CRITS-46: Split Second cards enter play while the start zone has a free tile */
    if (PyTuple_GET_SIZE(deploys)) {
        int room = 0;
        for (int i = 0; i < words; i++) room |= (t->zone[player].w[i] & free.w[i]) != 0;
        for (Py_ssize_t i = 0; room && i < PyTuple_GET_SIZE(deploys); i++)
            if (append(out, PyTuple_GET_ITEM(deploys, i))) goto fail;
    }
    /* CRITS-40: the King may hand its crown to a free tile around it */
    int king = v.king[player];
    if (king >= 0) {
        int tile = v.pos[king] < 0 ? v.pos[king] + t->tiles : v.pos[king];
        for (int i = t->around_start[tile]; i < t->around_start[tile + 1]; i++) {
            int to = t->around_tile[i];
            if (on_tile(&v, to) < 0 && append(out, t->drop_crown[to])) goto fail;
        }
    }
    if (append(out, t->end_turn)) goto fail;
    if (!PyErr_Occurred()) list = as_list(out);
fail:
    if (listed.items != listed.stack) PyMem_Free(listed.items);
    Py_XDECREF(v.activators);
    return list;
}

static PyMethodDef tables_methods[] = {
    {"turn_actions", (PyCFunction)(void (*)(void))turn_actions, METH_FASTCALL,
     "turn_actions(state, deploys) -> list: the turn's legal actions (flow.python_turn_actions)"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject TurnTablesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bestiary.games.crits._turn.TurnTables",
    .tp_basicsize = sizeof(TurnTables),
    .tp_dealloc = (destructor)tables_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A game's tables for the compiled turn's legal actions: TurnTables(spec).",
    .tp_methods = tables_methods,
    .tp_new = tables_new,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_turn",
                                    "Crit's Creatures: the turn's legal actions, compiled.", -1, NULL};

PyMODINIT_FUNC PyInit__turn(void) {
    struct { PyObject **slot; const char *name; } names[] = {
        {&s_player, "player"}, {&s_moves_made, "moves_made"}, {&s_attacked, "attacked"}, {&s_moved, "moved"},
        {&s_where, "where"}, {&s_card, "card"}, {&s_pos, "pos"}, {&s_side, "side"}, {&s_holder, "holder"},
        {&s_used, "used"}, {&s_activators, "activators"}, {&s_king, "king"}};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if ((*names[k].slot = PyUnicode_InternFromString(names[k].name)) == NULL) return NULL;
    return module_with_type(&module, &TurnTablesType, "TurnTables");
}
