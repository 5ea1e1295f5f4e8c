/* Cube Creatures for N games at once, compiled: the twin of the numpy engine in games/cube/batch.py.
 *
 * It works on the same structure of arrays CubeBatch keeps (one row per game), handed over as a tuple in the
 * order of batch.KERNEL_ARRAYS, with the sizes and tensor offsets in batch.KERNEL_INTS. It goes game by game
 * instead of rule by rule: `advance` applies each listed game's action and then, where asked, plays the other
 * seats (uniformly random legal actions) and the attack die from the game's own counter-based stream
 * (rl/batched.py, Streams) until the learner's seat is asked or the game ends; `legal_mask` and `observation`
 * read every listed game; `start` deals new games (CUBE-15, CUBE-18) and takes them to their first decision.
 * Every shuffle is the scalar engine's own (ShuffleSource's Mersenne Twister orders, below), seeded as the
 * numpy engine seeds it from the game's stream. tests/rl/test_batched_cube.py plays this
 * kernel, the numpy engine and the scalar engine side by side. Rule ids are those of
 * docs/rules/cube-creatures.md.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* The codes batch.py uses (CODES below lets it check that they agree). */
#define MAX_SPOTS 5
#define PLACED_AT_SETUP 2
#define BATTLEFIELD_LIMIT 3
enum { FIRST_PLAYER, PLACE, MAIN, TARGET, RESPOND, ROLL, OVER };
enum { ATTACK_WINDOW, ACTION_WINDOW, POWER_WINDOW };
#define NO_WINDOW (-1)
enum { ACTION_KIND, POWER_KIND };
enum { DID_CREATURE = 1, DID_ACTION = 2, DID_UPGRADE = 4, DID_POWER = 8, DID_GUARD = 16 };
#define TERMINAL_PLAYER (-4)
enum { CREATURE = 0, UPGRADE = 1, ACTION = 2, REACTION = 3 };
enum { DEAL_DAMAGE, HEAL, DRAW, DESTROY_UPGRADE, SWAP_GUARD, RESET_POWER, BOOST_ATTACK, ATTACK_ANY, EXTRA_SPOT,
       PREVENT_ATTACK, REDUCE_DAMAGE, CANCEL_EFFECT };
enum { NO_TARGET, ENEMY_GUARD, ENEMY_ANY, OWN_ANY, ALL_ENEMY_GUARDS, ATTACKER, OWN_GUARD, OWN_ALL, SELF, DEFENDER };
enum { ALWAYS, ENEMY_IN_PLAY, OWN_DAMAGED, OWN_POWER_USED, ENEMY_BEHIND_GUARD, ENEMY_WEAPON, ENEMY_ARMOR,
       ENEMY_UPGRADE, ROOM_TO_WIDEN, NEVER, PLAYABLE_TESTS };
enum { PLAY_CREATURE, PLAY_ACTION, SETUP_PLACEMENT, ATTACH, USE_POWER, SWAP, DECLARE_ATTACK, END_TURN, CHOOSE_TARGET,
       REACT, PASS };
#define DIE_FACES 6
#define DOUBLE 4
#define MISS 5
static const int64_t FACE_ADDS[DIE_FACES] = {2, 1, -1, -2, 0, 0};
#define STAT_SCALE 20.0
#define TURN_PARTS 5
#define PENDING_KINDS 2
#define MAX_CARDS 1024
#define MAX_PLAYERS 8
#define BLOCK 32 /* Streams.block */
#define GOLDEN 0x9E3779B97F4A7C15ULL

/* batch.KERNEL_ARRAYS, in order: the tables, then the state */
enum { T_CTYPE, T_ATTACK, T_HEALTH, T_BONUS, T_IS_WEAPON, T_CARD_EFFECT, T_CARD_POWER, T_KEYWORD, T_AMOUNT, T_TARGET,
       T_UPGRADE_KIND, T_CHOSEN, T_EFFECT_TEST, T_REACTIONS, T_REACTION_WINDOW, T_REACTION_KEYWORD,
       T_REACTION_TARGET, T_PLAY_INDEX, T_UPGRADES, T_ATTACH_INDEX, T_REACT_INDEX, T_POWER_INDEX, T_GUARD_INDEX,
       T_ACTION_CARD, T_ACTION_SPOT, T_ACTION_PLAYER, T_ACTION_TARGET_SPOT, T_ACTION_ATTACKER_SPOT,
       T_ACTION_HANDLER, T_PLAYED_CARDS, T_PLAYED_TESTS, T_PLACE_COLUMNS, T_CARD_CELLS, T_IN_PLAY,
       S_PHASE, S_TURN, S_CURRENT, S_FIRST, S_DECK, S_DECK_COUNT, S_PLACE, S_DISCARDED_AT, S_DISCARD_CLOCK,
       S_DISCARD_COUNT, S_FIELD, S_FIELD_COUNT, S_HAND_COUNT, S_VICTORY_COUNT, S_DAMAGE, S_WEAPON, S_ARMOR, S_USED,
       S_LIMITS, S_OUT, S_DONE, S_BOOST, S_ATTACK_ANY, S_PENDING, S_PENDING_KIND, S_PENDING_TARGET, S_CANCELLED,
       S_ATTACKER, S_DEFENDER, S_PREVENTED, S_REDUCE, S_WINDOW, S_ASKED, S_LAST_ROLL, S_WINNERS, S_SHUFFLE_SEED,
       S_SHUFFLE_COUNT, ARRAYS };
/* batch.KERNEL_INTS, in order */
enum { I_GAMES, I_PLAYERS, I_CARDS, I_ACTIONS, I_WIN_AT, I_TURN_LIMIT, I_HAND_SIZE, I_POWERS_IN_PLAY, I_EFFECTS,
       I_REACTIONS, I_UPGRADES, I_PLAYED, I_CREATURES, I_ATTACK_START, I_TARGET_START, I_END_TURN, I_PASS, I_SIZE,
       I_UNDER_WAY, I_AT_PHASE, I_AT_PROGRESS, I_AT_ROLES, I_AT_COUNTS, I_AT_TURN_PARTS, I_AT_BOOST, I_AT_ATTACK,
       I_AT_PENDING, I_AT_WINDOW, I_AT_LAST_ROLL, I_AT_CARD_PLACES, I_AT_STATS, I_STATS_WIDTH, I_IN_PLAY,
       I_MAX_REDRAWS, INTS };

typedef int64_t i64;
typedef uint8_t flag;

typedef struct {
    i64 n, P, C, none, A, win_at, turn_limit, hand_size, powers, effects, reactions, upgrades, played, creatures,
        attack_start, target_start, end_turn, pass, size, under_way, places, at[INTS];
    /* tables */
    i64 *ctype, *attack, *health, *bonus, *card_effect, *card_power, *keyword, *amount, *target, *upgrade_kind,
        *effect_test, *reaction_cards, *reaction_window, *reaction_keyword, *reaction_target, *play_index,
        *upgrade_cards, *attach_index, *react_index, *power_index, *guard_index, *action_card, *action_spot,
        *action_player, *action_target_spot, *action_attacker_spot, *action_handler, *played_cards, *played_tests,
        *place_columns, *card_cells, *in_play;
    flag *is_weapon, *chosen;
    /* state */
    i64 *phase, *turn, *current, *first, *deck, *deck_count, *place, *discarded_at, *discard_clock, *discard_count,
        *field, *field_count, *hand_count, *victory_count, *damage, *weapon, *armor, *limits, *done, *boost, *pending,
        *pending_kind, *pending_target, *attacker, *defender, *reduce, *window, *last_roll, *shuffle_seed,
        *shuffle_count;
    flag *used, *out, *attack_any, *cancelled, *prevented, *asked, *winners;
    /* the random streams (Streams' arrays) */
    uint64_t *keys, *blocks_made, *numbers;
    i64 *stream_used;
    /* the places: the deck, the discard pile, then each seat's hand, battlefield and victory pile */
    i64 DECK, DISCARD, HAND, FIELD, VICTORY;
    Py_buffer views[ARRAYS + 8]; /* the arrays, the streams' four, a call's own */
    int viewed;
} Cube;

/* -- loading ----------------------------------------------------------------------------------------------- */
static void release(Cube *k) {
    for (int i = 0; i < k->viewed; i++) PyBuffer_Release(&k->views[i]);
    k->viewed = 0;
}

/* a contiguous writable buffer of `count` items of `itemsize` bytes, or NULL with an error set */
static void *view(Cube *k, PyObject *obj, const char *name, Py_ssize_t count, Py_ssize_t itemsize) {
    Py_buffer *v = &k->views[k->viewed];
    if (PyObject_GetBuffer(obj, v, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    k->viewed++;
    if (v->itemsize != itemsize || v->len != count * itemsize) {
        PyErr_Format(PyExc_ValueError, "cube kernel: %s must hold %zd items of %zd bytes, not %zd of %zd", name,
                     count, itemsize, v->len / (v->itemsize ? v->itemsize : 1), v->itemsize);
        return NULL;
    }
    return v->buf;
}

static int load(Cube *k, PyObject *ints_obj, PyObject *arrays) {
    k->viewed = 0;
    Py_buffer iv;
    if (PyObject_GetBuffer(ints_obj, &iv, PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (iv.itemsize != 8 || iv.len != INTS * 8) {
        PyBuffer_Release(&iv);
        PyErr_Format(PyExc_ValueError, "cube kernel: the ints must be %d int64 numbers", INTS);
        return -1;
    }
    memcpy(k->at, iv.buf, sizeof(k->at));
    PyBuffer_Release(&iv);
    i64 *at = k->at;
    k->n = at[I_GAMES], k->P = at[I_PLAYERS], k->C = at[I_CARDS], k->none = k->C, k->A = at[I_ACTIONS];
    k->win_at = at[I_WIN_AT], k->turn_limit = at[I_TURN_LIMIT], k->hand_size = at[I_HAND_SIZE];
    k->powers = at[I_POWERS_IN_PLAY], k->effects = at[I_EFFECTS], k->reactions = at[I_REACTIONS];
    k->upgrades = at[I_UPGRADES], k->played = at[I_PLAYED], k->creatures = at[I_CREATURES];
    k->attack_start = at[I_ATTACK_START], k->target_start = at[I_TARGET_START], k->end_turn = at[I_END_TURN];
    k->pass = at[I_PASS], k->size = at[I_SIZE], k->under_way = at[I_UNDER_WAY];
    k->DECK = 0, k->DISCARD = 1, k->HAND = 2, k->FIELD = 2 + k->P, k->VICTORY = 2 + 2 * k->P;
    k->places = k->VICTORY + k->P + 1;
    if (!PyTuple_Check(arrays) || PyTuple_GET_SIZE(arrays) != ARRAYS) {
        PyErr_Format(PyExc_ValueError, "cube kernel: the arrays must be a tuple of %d", ARRAYS);
        return -1;
    }
    if (k->P < 2 || k->P > MAX_PLAYERS || k->C < 1 || k->C > MAX_CARDS || k->A < 1 || k->A > MAX_CARDS ||
        at[I_IN_PLAY] < 0 || at[I_IN_PLAY] > k->C) {
        PyErr_Format(PyExc_ValueError, "cube kernel: 2 to %d players, 1 to %d cards and actions", MAX_PLAYERS,
                     MAX_CARDS);
        return -1;
    }
    i64 n = k->n, P = k->P, C1 = k->C + 1;
    struct { int index; void **to; Py_ssize_t count; int itemsize; } spec[] = {
        {T_CTYPE, (void **)&k->ctype, C1, 8}, {T_ATTACK, (void **)&k->attack, C1, 8},
        {T_HEALTH, (void **)&k->health, C1, 8}, {T_BONUS, (void **)&k->bonus, C1, 8},
        {T_IS_WEAPON, (void **)&k->is_weapon, C1, 1}, {T_CARD_EFFECT, (void **)&k->card_effect, C1, 8},
        {T_CARD_POWER, (void **)&k->card_power, C1, 8}, {T_KEYWORD, (void **)&k->keyword, k->effects, 8},
        {T_AMOUNT, (void **)&k->amount, k->effects, 8}, {T_TARGET, (void **)&k->target, k->effects, 8},
        {T_UPGRADE_KIND, (void **)&k->upgrade_kind, k->effects, 8}, {T_CHOSEN, (void **)&k->chosen, k->effects, 1},
        {T_EFFECT_TEST, (void **)&k->effect_test, k->effects + 1, 8},
        {T_REACTIONS, (void **)&k->reaction_cards, k->reactions, 8},
        {T_REACTION_WINDOW, (void **)&k->reaction_window, k->reactions, 8},
        {T_REACTION_KEYWORD, (void **)&k->reaction_keyword, k->reactions, 8},
        {T_REACTION_TARGET, (void **)&k->reaction_target, k->reactions, 8},
        {T_PLAY_INDEX, (void **)&k->play_index, k->C, 8}, {T_UPGRADES, (void **)&k->upgrade_cards, k->upgrades, 8},
        {T_ATTACH_INDEX, (void **)&k->attach_index, k->upgrades * MAX_SPOTS, 8},
        {T_REACT_INDEX, (void **)&k->react_index, k->reactions, 8},
        {T_POWER_INDEX, (void **)&k->power_index, MAX_SPOTS, 8},
        {T_GUARD_INDEX, (void **)&k->guard_index, MAX_SPOTS - 1, 8},
        {T_ACTION_CARD, (void **)&k->action_card, k->A, 8}, {T_ACTION_SPOT, (void **)&k->action_spot, k->A, 8},
        {T_ACTION_PLAYER, (void **)&k->action_player, k->A, 8},
        {T_ACTION_TARGET_SPOT, (void **)&k->action_target_spot, k->A, 8},
        {T_ACTION_ATTACKER_SPOT, (void **)&k->action_attacker_spot, k->A, 8},
        {T_ACTION_HANDLER, (void **)&k->action_handler, k->A, 8},
        {T_PLAYED_CARDS, (void **)&k->played_cards, k->played, 8},
        {T_PLAYED_TESTS, (void **)&k->played_tests, k->played, 8},
        {T_PLACE_COLUMNS, (void **)&k->place_columns, P * k->places, 8},
        {T_CARD_CELLS, (void **)&k->card_cells, k->C, 8}, {T_IN_PLAY, (void **)&k->in_play, at[I_IN_PLAY], 8},
        {S_PHASE, (void **)&k->phase, n, 8}, {S_TURN, (void **)&k->turn, n, 8},
        {S_CURRENT, (void **)&k->current, n, 8}, {S_FIRST, (void **)&k->first, n, 8},
        {S_DECK, (void **)&k->deck, n * k->C, 8}, {S_DECK_COUNT, (void **)&k->deck_count, n, 8},
        {S_PLACE, (void **)&k->place, n * C1, 8}, {S_DISCARDED_AT, (void **)&k->discarded_at, n * C1, 8},
        {S_DISCARD_CLOCK, (void **)&k->discard_clock, n, 8}, {S_DISCARD_COUNT, (void **)&k->discard_count, n, 8},
        {S_FIELD, (void **)&k->field, n * P * MAX_SPOTS, 8}, {S_FIELD_COUNT, (void **)&k->field_count, n * P, 8},
        {S_HAND_COUNT, (void **)&k->hand_count, n * P, 8}, {S_VICTORY_COUNT, (void **)&k->victory_count, n * P, 8},
        {S_DAMAGE, (void **)&k->damage, n * C1, 8}, {S_WEAPON, (void **)&k->weapon, n * C1, 8},
        {S_ARMOR, (void **)&k->armor, n * C1, 8}, {S_USED, (void **)&k->used, n * C1, 1},
        {S_LIMITS, (void **)&k->limits, n * P, 8}, {S_OUT, (void **)&k->out, n * P, 1},
        {S_DONE, (void **)&k->done, n, 8}, {S_BOOST, (void **)&k->boost, n, 8},
        {S_ATTACK_ANY, (void **)&k->attack_any, n, 1}, {S_PENDING, (void **)&k->pending, n, 8},
        {S_PENDING_KIND, (void **)&k->pending_kind, n, 8}, {S_PENDING_TARGET, (void **)&k->pending_target, n, 8},
        {S_CANCELLED, (void **)&k->cancelled, n, 1}, {S_ATTACKER, (void **)&k->attacker, n, 8},
        {S_DEFENDER, (void **)&k->defender, n, 8}, {S_PREVENTED, (void **)&k->prevented, n, 1},
        {S_REDUCE, (void **)&k->reduce, n, 8}, {S_WINDOW, (void **)&k->window, n, 8},
        {S_ASKED, (void **)&k->asked, n * P, 1}, {S_LAST_ROLL, (void **)&k->last_roll, n, 8},
        {S_WINNERS, (void **)&k->winners, n * P, 1}, {S_SHUFFLE_SEED, (void **)&k->shuffle_seed, n, 8},
        {S_SHUFFLE_COUNT, (void **)&k->shuffle_count, n, 8},
    };
    for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
        char name[32];
        snprintf(name, sizeof(name), "array %d", spec[i].index);
        *spec[i].to = view(k, PyTuple_GET_ITEM(arrays, spec[i].index), name, spec[i].count, spec[i].itemsize);
        if (*spec[i].to == NULL) {
            release(k);
            return -1;
        }
    }
    return 0;
}

static int load_streams(Cube *k, PyObject *streams) {
    const char *names[] = {"keys", "blocks_made", "numbers", "used"};
    void **to[] = {(void **)&k->keys, (void **)&k->blocks_made, (void **)&k->numbers, (void **)&k->stream_used};
    Py_ssize_t counts[] = {k->n, k->n, k->n * BLOCK, k->n};
    for (int i = 0; i < 4; i++) {
        PyObject *array = PyObject_GetAttrString(streams, names[i]);
        if (array == NULL) return -1;
        *to[i] = view(k, array, names[i], counts[i], 8);
        Py_DECREF(array);
        if (*to[i] == NULL) return -1;
    }
    return 0;
}

/* -- the streams (rl/batched.py, Streams) ------------------------------------------------------------------- */
static inline uint64_t mix64(uint64_t z) {
    z += GOLDEN;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Streams.seed_bits for one game: its next number as 53 bits, making the next block of 32 when it is spent */
static uint64_t seed_bits(Cube *k, i64 g) {
    uint64_t *numbers = k->numbers + g * BLOCK;
    if (k->stream_used[g] == BLOCK) {
        uint64_t first = k->blocks_made[g] * BLOCK;
        for (uint64_t j = 0; j < BLOCK; j++) numbers[j] = mix64(k->keys[g] + (first + j) * GOLDEN) >> 11;
        k->blocks_made[g] += 1;
        k->stream_used[g] = 0;
    }
    return numbers[k->stream_used[g]++];
}

/* Streams.draw for one game: a number from 0 to count − 1 */
static inline i64 draw(Cube *k, i64 g, i64 count) { return (i64)((seed_bits(k, g) * (uint64_t)count) >> 53); }


/* -- the scalar engine's shuffle ------------------------------------------------------------------------------
 * core/chance.py, ShuffleSource: the n-th shuffle of a game with seed s is CPython's random.Random seeded with
 * the text "bestiary-shuffle/s/n" (the text's bytes and their SHA-512 read as one big-endian integer, whose
 * 32-bit words, least significant first, seed the Mersenne Twister by init_by_array), then random.shuffle:
 * for i from the last index down to 1, swap with j = a number below i + 1 (the top bits of the next 32-bit
 * output, redrawn while too large). tests/rl/test_batched_cube.py compares it with ShuffleSource. */
static const uint64_t SHA_K[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
    0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
    0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
    0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
    0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
    0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
    0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
    0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
    0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
    0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
    0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
    0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
    0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
    0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL};
static const uint64_t SHA_H[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

static inline uint64_t rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

static void sha512(const uint8_t *message, size_t length, uint8_t digest[64]) {
    uint64_t h[8];
    memcpy(h, SHA_H, sizeof(h));
    size_t padded = ((length + 16) / 128 + 1) * 128;
    uint8_t block[128];
    for (size_t at = 0; at < padded; at += 128) {
        for (size_t i = 0; i < 128; i++) {
            size_t n = at + i;
            block[i] = n < length ? message[n] : n == length ? 0x80 : 0;
        }
        if (at + 128 == padded) /* the length in bits, in the last 16 bytes (it fits in 8) */
            for (int i = 0; i < 8; i++) block[127 - i] = (uint8_t)(((uint64_t)length * 8) >> (8 * i));
        uint64_t w[80];
        for (int i = 0; i < 16; i++) {
            w[i] = 0;
            for (int b = 0; b < 8; b++) w[i] = (w[i] << 8) | block[i * 8 + b];
        }
        for (int i = 16; i < 80; i++) {
            uint64_t s0 = rotr64(w[i - 15], 1) ^ rotr64(w[i - 15], 8) ^ (w[i - 15] >> 7);
            uint64_t s1 = rotr64(w[i - 2], 19) ^ rotr64(w[i - 2], 61) ^ (w[i - 2] >> 6);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        for (int i = 0; i < 80; i++) {
            uint64_t t1 = hh + (rotr64(e, 14) ^ rotr64(e, 18) ^ rotr64(e, 41)) + ((e & f) ^ (~e & g)) + SHA_K[i] + w[i];
            uint64_t t2 = (rotr64(a, 28) ^ rotr64(a, 34) ^ rotr64(a, 39)) + ((a & b) ^ (a & c) ^ (b & c));
            hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
    }
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 8; b++) digest[i * 8 + b] = (uint8_t)(h[i] >> (56 - 8 * b));
}

#define MT_N 624
#define MT_M 397
typedef struct {
    uint32_t mt[MT_N];
    int index;
} Twister;

static void twister_seed(Twister *t, const uint32_t *key, int keys) {
    uint32_t *mt = t->mt;
    mt[0] = 19650218U;
    for (int i = 1; i < MT_N; i++) mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
    int i = 1, j = 0;
    for (int k = MT_N > keys ? MT_N : keys; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++, j++;
        if (i >= MT_N) mt[0] = mt[MT_N - 1], i = 1;
        if (j >= keys) j = 0;
    }
    for (int k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) mt[0] = mt[MT_N - 1], i = 1;
    }
    mt[0] = 0x80000000U;
    t->index = MT_N;
}

static uint32_t twister_next(Twister *t) {
    uint32_t *mt = t->mt, y;
    if (t->index >= MT_N) {
        int k;
        for (k = 0; k < MT_N - MT_M; k++) {
            y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU);
            mt[k] = mt[k + MT_M] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfU : 0);
        }
        for (; k < MT_N - 1; k++) {
            y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU);
            mt[k] = mt[k + (MT_M - MT_N)] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfU : 0);
        }
        y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfU : 0);
        t->index = 0;
    }
    y = mt[t->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    return y ^ (y >> 18);
}

/* ShuffleSource(seed, number).shuffled(cards), in place (the top card last) */
static void shuffle_cards(uint64_t seed, uint64_t number, i64 *cards, i64 count) {
    uint8_t bytes[128 + 64];
    int length = snprintf((char *)bytes, 128, "bestiary-shuffle/%llu/%llu", (unsigned long long)seed,
                          (unsigned long long)number);
    sha512(bytes, (size_t)length, bytes + length);
    int total = length + 64, keys = (total + 3) / 4; /* the first byte, 'b', is not zero */
    uint32_t key[(128 + 64 + 3) / 4];
    for (int word = 0; word < keys; word++) { /* the least significant word holds the last four bytes */
        uint32_t value = 0;
        for (int b = 3; b >= 0; b--) {
            int at = total - 4 * word - 1 - b;
            value = (value << 8) | (at >= 0 ? bytes[at] : 0);
        }
        key[word] = value;
    }
    Twister t;
    twister_seed(&t, key, keys);
    for (i64 i = count - 1; i > 0; i--) {
        uint64_t below = (uint64_t)i + 1;
        int bits = 64 - __builtin_clzll(below);
        uint64_t r;
        do r = twister_next(&t) >> (32 - bits);
        while (r >= below);
        i64 swap = cards[i];
        cards[i] = cards[r];
        cards[r] = swap;
    }
}

/* -- reading the state -------------------------------------------------------------------------------------- */
#define CARD(array, g, c) (k->array[(g) * (k->C + 1) + (c)])
#define SEAT(array, g, s) (k->array[(g) * k->P + (s)])
#define FIELD_AT(g, s, spot) (k->field[((g) * k->P + (s)) * MAX_SPOTS + (spot)])

/* the index -1 (no effect) reads the last entry, as numpy does */
static inline i64 effect_row(Cube *k, i64 effect) { return effect < 0 ? effect + k->effects : effect; }

static i64 creatures_in_hand(Cube *k, i64 g, i64 s) {
    i64 count = 0;
    for (i64 i = 0; i < k->creatures; i++) count += CARD(place, g, k->played_cards[i]) == k->HAND + s;
    return count;
}

static inline int on_field(Cube *k, i64 g, i64 c) {
    i64 place = CARD(place, g, c);
    return c != k->none && place >= k->FIELD && place < k->VICTORY;
}

static inline int attack_called_off(Cube *k, i64 g) {
    /* CUBE-51: an attack is off once a creature in it has been defeated (is on no battlefield) */
    return !(on_field(k, g, k->attacker[g]) && on_field(k, g, k->defender[g]));
}

static inline i64 pending_effect(Cube *k, i64 g) {
    return k->pending_kind[g] == POWER_KIND ? k->card_power[k->pending[g]] : k->card_effect[k->pending[g]];
}

static i64 first_asked(Cube *k, i64 g) {
    /* the open window asks its responders in turn order after the current player (CUBE-51) */
    i64 current = k->current[g];
    for (i64 j = 1; j < k->P; j++) {
        i64 seat = (current + j) % k->P;
        if (SEAT(asked, g, seat)) return seat;
    }
    return (current + 1) % k->P;
}

static i64 player_to_act(Cube *k, i64 g) {
    if (k->phase[g] == OVER) return TERMINAL_PLAYER;
    return k->phase[g] == RESPOND ? first_asked(k, g) : k->current[g];
}

static inline i64 health_left(Cube *k, i64 g, i64 c) {
    /* CUBE-44: damage stays until healed or defeated; CUBE-6: armor adds its bonus */
    return k->health[c] + k->bonus[CARD(armor, g, c)] - CARD(damage, g, c);
}

static inline int any_winner(Cube *k, i64 g) {
    for (i64 s = 0; s < k->P; s++)
        if (SEAT(winners, g, s)) return 1;
    return 0;
}

/* -- legal actions ------------------------------------------------------------------------------------------ */
/* effects.candidates (CUBE-58): the creatures `player` may choose for an effect with a chosen target, by seat
 * and spot */
static int candidates(Cube *k, i64 g, i64 player, i64 effect, flag pool[][MAX_SPOTS]) {
    i64 e = effect_row(k, effect), target = k->target[e], keyword = k->keyword[e], kind = k->upgrade_kind[e];
    int count = 0;
    for (i64 p = 0; p < k->P; p++)
        for (int spot = 0; spot < MAX_SPOTS; spot++) {
            i64 c = FIELD_AT(g, p, spot);
            int ok = c != k->none && (target == OWN_ANY ? p == player : p != player);
            ok = ok && (target != ENEMY_GUARD || spot == 0);
            if (ok && keyword == DESTROY_UPGRADE)
                ok = (kind != 1 && CARD(weapon, g, c) != k->none) || (kind != 0 && CARD(armor, g, c) != k->none);
            ok = ok && (keyword != SWAP_GUARD || spot != 0);
            ok = ok && (keyword != RESET_POWER || CARD(used, g, c));
            ok = ok && (keyword != HEAL || CARD(damage, g, c) > 0);
            pool[p][spot] = (flag)ok;
            count += ok;
        }
    return count;
}

/* effects.playable_test's tests for `player` (CUBE-58), by index */
static void playable_tests(Cube *k, i64 g, i64 player, flag *tests) {
    int enemy = 0, weapon = 0, armor = 0, behind = 0, damaged = 0, used = 0;
    for (i64 p = 0; p < k->P; p++) {
        if (p == player) continue;
        behind |= SEAT(field_count, g, p) > 1;
        for (int spot = 0; spot < MAX_SPOTS; spot++) {
            i64 c = FIELD_AT(g, p, spot);
            if (c == k->none) continue;
            enemy = 1;
            weapon |= CARD(weapon, g, c) != k->none;
            armor |= CARD(armor, g, c) != k->none;
        }
    }
    for (int spot = 0; spot < MAX_SPOTS; spot++) {
        i64 c = FIELD_AT(g, player, spot);
        if (c == k->none) continue;
        damaged |= CARD(damage, g, c) > 0;
        used |= CARD(used, g, c);
    }
    tests[ALWAYS] = 1;
    tests[ENEMY_IN_PLAY] = (flag)enemy;
    tests[OWN_DAMAGED] = (flag)damaged;
    tests[OWN_POWER_USED] = (flag)used;
    tests[ENEMY_BEHIND_GUARD] = (flag)behind;
    tests[ENEMY_WEAPON] = (flag)weapon;
    tests[ENEMY_ARMOR] = (flag)armor;
    tests[ENEMY_UPGRADE] = (flag)(weapon | armor);
    tests[ROOM_TO_WIDEN] = SEAT(limits, g, player) < MAX_SPOTS;
    tests[NEVER] = 0;
}

static void place_mask(Cube *k, i64 g, flag *mask) {
    i64 hand = k->HAND + k->current[g];
    for (i64 i = 0; i < k->creatures; i++) {
        i64 c = k->played_cards[i];
        mask[k->play_index[c]] = CARD(place, g, c) == hand;
    }
}

static void main_mask(Cube *k, i64 g, flag *mask) {
    /* CUBE-19: every main-phase part not yet used this turn, then the attack (CUBE-37) or end turn (CUBE-55) */
    i64 player = k->current[g], done = k->done[g], count = SEAT(field_count, g, player), hand = k->HAND + player;
    i64 *own = &FIELD_AT(g, player, 0);
    flag wanted[4] = {0, 0, 0, 0}, tests[PLAYABLE_TESTS];
    /* CUBE-22, CUBE-23: one creature card a turn, up to the limit; CUBE-26: one action card; CUBE-27: one
     * upgrade, once a creature is in play */
    wanted[CREATURE] = !(done & DID_CREATURE) && (count == 0 || count < SEAT(limits, g, player));
    wanted[ACTION] = !(done & DID_ACTION);
    wanted[UPGRADE] = !(done & DID_UPGRADE) && count > 0;
    playable_tests(k, g, player, tests);
    int creature_plays = 0;
    for (i64 i = 0; i < k->played; i++) {
        i64 c = k->played_cards[i];
        int play = CARD(place, g, c) == hand && wanted[k->ctype[c]] && tests[k->played_tests[i]];
        mask[k->play_index[c]] = (flag)play;
        if (i < k->creatures) creature_plays |= play;
    }
    /* CUBE-20, CUBE-25: an empty battlefield must get a creature first */
    if (count == 0 && creature_plays) {
        for (i64 i = k->creatures; i < k->played; i++) mask[k->play_index[k->played_cards[i]]] = 0;
        return;
    }
    /* CUBE-28: an upgrade goes under a creature without one of its kind */
    if (wanted[UPGRADE])
        for (i64 u = 0; u < k->upgrades; u++) {
            i64 card = k->upgrade_cards[u];
            if (CARD(place, g, card) != hand) continue;
            i64 *slots = k->is_weapon[card] ? k->weapon : k->armor;
            for (int spot = 0; spot < MAX_SPOTS; spot++)
                mask[k->attach_index[u * MAX_SPOTS + spot]] =
                    own[spot] != k->none && slots[g * (k->C + 1) + own[spot]] == k->none;
        }
    /* CUBE-32, CUBE-33, CUBE-58: each creature power once per game, while it has something to act on */
    if (k->powers && !(done & DID_POWER))
        for (int spot = 0; spot < MAX_SPOTS; spot++) {
            i64 c = own[spot];
            if (c == k->none) continue;
            i64 power = k->card_power[c]; /* -1 (no power) reads the test NEVER, effect_test's last entry */
            mask[k->power_index[spot]] = !CARD(used, g, c) && tests[k->effect_test[power < 0 ? k->effects : power]];
        }
    /* CUBE-34: swap the Guard with another creature once a turn */
    if (!(done & DID_GUARD))
        for (int spot = 1; spot < MAX_SPOTS; spot++) mask[k->guard_index[spot - 1]] = own[spot] != k->none;
    /* CUBE-38, CUBE-35, CUBE-37: any creature of yours attacks an enemy Guard (any enemy creature after a card
     * says so) */
    int attacks = 0;
    for (i64 p = 0; p < k->P; p++) {
        if (p == player) continue;
        for (int spot = 0; spot < MAX_SPOTS; spot++) {
            if (FIELD_AT(g, p, spot) == k->none || (spot && !k->attack_any[g])) continue;
            for (int from = 0; from < MAX_SPOTS; from++)
                if (own[from] != k->none) {
                    mask[k->attack_start + (p * MAX_SPOTS + spot) * MAX_SPOTS + from] = 1;
                    attacks = 1;
                }
        }
    }
    mask[k->end_turn] = !attacks; /* CUBE-55 */
}

static void target_mask(Cube *k, i64 g, flag *mask) {
    flag pool[MAX_PLAYERS][MAX_SPOTS];
    candidates(k, g, k->current[g], pending_effect(k, g), pool);
    for (i64 p = 0; p < k->P; p++)
        for (int spot = 0; spot < MAX_SPOTS; spot++) mask[k->target_start + p * MAX_SPOTS + spot] = pool[p][spot];
}

static void respond_mask(Cube *k, i64 g, flag *mask) {
    /* CUBE-51: a reaction card answers its window while it can still change something */
    i64 responder = first_asked(k, g), window = k->window[g];
    int called_off = attack_called_off(k, g), prevented = k->prevented[g];
    int hurt = CARD(damage, g, k->defender[g]) > 0;
    for (i64 r = 0; r < k->reactions; r++) {
        i64 keyword = k->reaction_keyword[r], target = k->reaction_target[r];
        int applies;
        if (keyword == CANCEL_EFFECT) applies = !k->cancelled[g];
        else if (window == ATTACK_WINDOW && called_off) applies = 0;
        else if (keyword == PREVENT_ATTACK || keyword == REDUCE_DAMAGE) applies = !prevented;
        else applies = target == DEFENDER ? hurt : 1;
        mask[k->react_index[r]] = (flag)(applies && k->reaction_window[r] == window &&
                                         CARD(place, g, k->reaction_cards[r]) == k->HAND + responder);
    }
    mask[k->pass] = 1;
}

/* the legal actions of the seat to act in game g (none in phases nobody decides in), into a zeroed mask */
static void legal(Cube *k, i64 g, flag *mask) {
    switch (k->phase[g]) {
    case PLACE: place_mask(k, g, mask); break;
    case MAIN: main_mask(k, g, mask); break;
    case TARGET: target_mask(k, g, mask); break;
    case RESPOND: respond_mask(k, g, mask); break;
    default: break;
    }
}

/* -- cards moving ------------------------------------------------------------------------------------------- */
static void start_turn(Cube *k, i64 g, i64 seat);
static void next_turn(Cube *k, i64 g);

/* the game's next shuffle (ShuffleSource(seed, count)), in place: the top card last */
static void shuffled(Cube *k, i64 g, i64 *cards, i64 count) {
    shuffle_cards((uint64_t)k->shuffle_seed[g], (uint64_t)k->shuffle_count[g]++, cards, count);
}

static void reshuffle_discard(Cube *k, i64 g) {
    /* CUBE-52: an empty shared deck is remade from the discard pile (in the order discarded), shuffled */
    i64 *deck = k->deck + g * k->C, count = 0;
    for (i64 c = 0; c < k->C; c++)
        if (CARD(place, g, c) == k->DISCARD) {
            i64 at = count++;
            while (at > 0 && CARD(discarded_at, g, deck[at - 1]) > CARD(discarded_at, g, c)) {
                deck[at] = deck[at - 1];
                at--;
            }
            deck[at] = c;
        }
    if (!count) return;
    shuffled(k, g, deck, count);
    k->deck_count[g] = count;
    for (i64 i = 0; i < count; i++) CARD(place, g, deck[i]) = k->DECK;
    k->discard_count[g] = 0;
}

static void draw_card(Cube *k, i64 g, i64 seat) {
    /* CUBE-21: take one card from the shared deck (CUBE-52 when it is empty) */
    if (k->deck_count[g] == 0) reshuffle_discard(k, g);
    if (k->deck_count[g] == 0) return;
    i64 card = k->deck[g * k->C + --k->deck_count[g]];
    CARD(place, g, card) = k->HAND + seat;
    SEAT(hand_count, g, seat) += 1;
}

static int refill_empty_battlefield(Cube *k, i64 g, i64 seat) {
    /* CUBE-25: draw until a creature comes, then shuffle the other cards drawn back into the deck; 0 when no
     * creature is left to draw (CUBE-54) */
    i64 drawn[MAX_CARDS], count = 0, found = -1, *deck = k->deck + g * k->C;
    for (;;) {
        if (!k->deck_count[g]) {
            reshuffle_discard(k, g);
            if (!k->deck_count[g]) break;
        }
        i64 card = deck[--k->deck_count[g]];
        if (k->ctype[card] == CREATURE) {
            found = card;
            break;
        }
        drawn[count++] = card;
    }
    if (count) {
        i64 total = k->deck_count[g];
        for (i64 i = 0; i < count; i++) deck[total + i] = drawn[i];
        shuffled(k, g, deck, total + count);
        k->deck_count[g] = total + count;
    }
    if (found < 0) return 0;
    CARD(place, g, found) = k->HAND + seat;
    SEAT(hand_count, g, seat) += 1;
    return 1;
}

static void to_discard(Cube *k, i64 g, i64 card) {
    CARD(place, g, card) = k->DISCARD;
    CARD(discarded_at, g, card) = k->discard_clock[g]++;
    k->discard_count[g] += 1;
}

/* -- the end ------------------------------------------------------------------------------------------------ */
static void end_game(Cube *k, i64 g, const flag *winners) {
    k->phase[g] = OVER;
    for (i64 s = 0; s < k->P; s++) {
        SEAT(winners, g, s) = winners[s];
        SEAT(asked, g, s) = 0;
    }
}

static void defeat(Cube *k, i64 g, i64 creature, i64 by) {
    /* CUBE-45: the defeated creature goes to the victory pile of whoever defeated it; CUBE-29: its upgrades go
     * to the discard pile; CUBE-53: the creatures behind move up */
    i64 owner = CARD(place, g, creature) - k->FIELD, spot = 0;
    i64 *row = &FIELD_AT(g, owner, 0);
    for (int s = 0; s < MAX_SPOTS; s++)
        if (row[s] == creature) {
            spot = s;
            break;
        }
    for (int s = (int)spot; s < MAX_SPOTS - 1; s++) row[s] = row[s + 1];
    row[MAX_SPOTS - 1] = k->none;
    SEAT(field_count, g, owner) -= 1;
    CARD(place, g, creature) = k->VICTORY + by;
    SEAT(victory_count, g, by) += 1;
    if (CARD(weapon, g, creature) != k->none) {
        to_discard(k, g, CARD(weapon, g, creature));
        CARD(weapon, g, creature) = k->none;
    }
    if (CARD(armor, g, creature) != k->none) {
        to_discard(k, g, CARD(armor, g, creature));
        CARD(armor, g, creature) = k->none;
    }
    CARD(damage, g, creature) = 0;
    CARD(used, g, creature) = 0;
    /* CUBE-10: the first to defeat enough creatures wins at once */
    if (SEAT(victory_count, g, by) >= k->win_at && !any_winner(k, g)) {
        flag winners[MAX_PLAYERS] = {0};
        winners[by] = 1;
        end_game(k, g, winners);
    }
}

static void deal_damage(Cube *k, i64 g, i64 creature, i64 amount, i64 by) {
    /* CUBE-42: subtract from the creature's current health; CUBE-45: defeated at zero or less */
    CARD(damage, g, creature) += amount;
    if (health_left(k, g, creature) <= 0) defeat(k, g, creature, by);
}

static void knock_out(Cube *k, i64 g, i64 seat) {
    /* CUBE-54: no creature on the battlefield, in hand, in the deck or the discard pile: out of the game */
    SEAT(out, g, seat) = 1;
    flag remaining[MAX_PLAYERS];
    int count = 0;
    for (i64 s = 0; s < k->P; s++) count += remaining[s] = !SEAT(out, g, s);
    if (count == 1) end_game(k, g, remaining);
    else next_turn(k, g);
}

/* -- turns -------------------------------------------------------------------------------------------------- */
static void start_turn(Cube *k, i64 g, i64 seat) {
    /* CUBE-19: draw, main phase, attack; CUBE-17: turns go clockwise; CUBE-56: the turn limit */
    k->turn[g] += 1;
    if (k->turn[g] > k->turn_limit) {
        /* CUBE-56: at the turn limit the largest victory pile wins; equal piles share the win */
        i64 most = SEAT(victory_count, g, 0);
        for (i64 s = 1; s < k->P; s++)
            if (SEAT(victory_count, g, s) > most) most = SEAT(victory_count, g, s);
        flag winners[MAX_PLAYERS];
        for (i64 s = 0; s < k->P; s++) winners[s] = SEAT(victory_count, g, s) == most;
        end_game(k, g, winners);
        return;
    }
    k->current[g] = seat;
    k->phase[g] = MAIN;
    k->done[g] = 0;
    k->boost[g] = 0;
    k->attack_any[g] = 0;
    draw_card(k, g, seat); /* CUBE-21 */
    if (SEAT(field_count, g, seat) == 0 && creatures_in_hand(k, g, seat) == 0 &&
        !refill_empty_battlefield(k, g, seat))
        knock_out(k, g, seat);
}

static void next_turn(Cube *k, i64 g) {
    /* CUBE-17: clockwise, skipping players who are out (CUBE-54) */
    i64 current = k->current[g];
    for (i64 j = 1; j < k->P; j++) {
        i64 seat = (current + j) % k->P;
        if (!SEAT(out, g, seat)) {
            start_turn(k, g, seat);
            return;
        }
    }
    if (!SEAT(out, g, current)) start_turn(k, g, current);
}

static void begin_placement(Cube *k, i64 g, i64 from) {
    /* CUBE-16: each player, in turn order from `from`, puts creatures on their battlefield, until the first
     * player comes round again */
    for (i64 step = 0; step < k->P; step++) {
        i64 seat = (from + step) % k->P;
        if (step && seat == k->first[g]) break;
        if (creatures_in_hand(k, g, seat) > 0 && SEAT(field_count, g, seat) < PLACED_AT_SETUP) {
            k->current[g] = seat;
            k->phase[g] = PLACE;
            return;
        }
    }
    start_turn(k, g, k->first[g]);
}

/* -- effects (effects.py) ----------------------------------------------------------------------------------- */
static void change_guard(Cube *k, i64 g, i64 seat, i64 spot) {
    i64 guard = FIELD_AT(g, seat, 0);
    FIELD_AT(g, seat, 0) = FIELD_AT(g, seat, spot);
    FIELD_AT(g, seat, spot) = guard;
}

static void damage_effect(Cube *k, i64 g, i64 player, i64 amount, i64 target, i64 chosen) {
    if (target == ALL_ENEMY_GUARDS) {
        for (i64 other = 0; other < k->P; other++) /* every enemy Guard, in seat order, until the game is won */
            if (other != player && SEAT(field_count, g, other) > 0 && !any_winner(k, g))
                deal_damage(k, g, FIELD_AT(g, other, 0), amount, player);
        return;
    }
    if (target != ATTACKER) deal_damage(k, g, chosen, amount, player);
    else if (on_field(k, g, k->attacker[g])) deal_damage(k, g, k->attacker[g], amount, player);
}

static void heal_effect(Cube *k, i64 g, i64 player, i64 amount, i64 target, i64 source, i64 chosen) {
    /* CUBE-44: healing removes damage, never above the creature's full health */
    i64 spots[MAX_SPOTS];
    for (int spot = 0; spot < MAX_SPOTS; spot++)
        spots[spot] = target == OWN_ALL || (target == OWN_GUARD && spot == 0) ? FIELD_AT(g, player, spot) : k->none;
    i64 single = target == SELF ? source : target == DEFENDER ? k->defender[g] : chosen;
    if (target == OWN_ALL || target == OWN_GUARD || (target == DEFENDER && !on_field(k, g, k->defender[g])))
        single = k->none;
    if (single != k->none) spots[MAX_SPOTS - 1] = single;
    for (int spot = 0; spot < MAX_SPOTS; spot++) {
        if (spots[spot] == k->none) continue;
        i64 *damage = &CARD(damage, g, spots[spot]);
        *damage -= amount < *damage ? amount : *damage;
    }
}

static void destroy_upgrade(Cube *k, i64 g, i64 player, i64 kind, i64 creature) {
    if (kind != 1 && CARD(weapon, g, creature) != k->none) { /* the weapon first, then the armor */
        to_discard(k, g, CARD(weapon, g, creature));
        CARD(weapon, g, creature) = k->none;
    }
    if (kind != 0 && CARD(armor, g, creature) != k->none) {
        to_discard(k, g, CARD(armor, g, creature));
        CARD(armor, g, creature) = k->none;
    }
    /* losing armor can leave the damage already taken at or above the health that remains (CUBE-45) */
    if (health_left(k, g, creature) <= 0) defeat(k, g, creature, player);
}

static void run_effect(Cube *k, i64 g, i64 player, i64 effect, i64 source, i64 chosen) {
    /* CUBE-59: the effect, by its keyword */
    i64 e = effect_row(k, effect), amount = k->amount[e], target = k->target[e];
    switch (k->keyword[e]) {
    case DEAL_DAMAGE: damage_effect(k, g, player, amount, target, chosen); break;
    case HEAL: heal_effect(k, g, player, amount, target, source, chosen); break;
    case DRAW:
        for (i64 i = 0; i < amount; i++) draw_card(k, g, player);
        break;
    case DESTROY_UPGRADE: destroy_upgrade(k, g, player, k->upgrade_kind[e], chosen); break;
    case SWAP_GUARD: {
        i64 owner = CARD(place, g, chosen) - k->FIELD, spot = 0;
        for (int s = 0; s < MAX_SPOTS; s++)
            if (FIELD_AT(g, owner, s) == chosen) {
                spot = s;
                break;
            }
        change_guard(k, g, owner, spot);
        break;
    }
    case RESET_POWER: CARD(used, g, chosen) = 0; break; /* CUBE-33: a card can reset a used creature power */
    case BOOST_ATTACK: k->boost[g] += amount; break;
    case ATTACK_ANY: k->attack_any[g] = 1; break; /* CUBE-35: "unless a card says otherwise" */
    case EXTRA_SPOT: { /* CUBE-23 */
        i64 widened = SEAT(limits, g, player) + amount;
        SEAT(limits, g, player) = widened < MAX_SPOTS ? widened : MAX_SPOTS;
        break;
    }
    case PREVENT_ATTACK: k->prevented[g] = 1; break;
    case REDUCE_DAMAGE: k->reduce[g] += amount; break;
    case CANCEL_EFFECT: k->cancelled[g] = 1; break;
    default: break;
    }
}

/* -- windows and attacks ------------------------------------------------------------------------------------ */
static void end_attack(Cube *k, i64 g) {
    k->attacker[g] = k->none;
    k->defender[g] = k->none;
    k->prevented[g] = 0;
    k->reduce[g] = 0;
    if (k->phase[g] != OVER) next_turn(k, g);
}

static void resolve_effect(Cube *k, i64 g) {
    i64 effect = pending_effect(k, g), source = k->pending[g], target = k->pending_target[g];
    k->pending[g] = k->none;
    k->pending_kind[g] = 0;
    k->pending_target[g] = k->none;
    int cancelled = k->cancelled[g];
    k->cancelled[g] = 0;
    if (!cancelled) run_effect(k, g, k->current[g], effect, source, target);
    if (k->phase[g] != OVER) k->phase[g] = MAIN;
}

static void close_window(Cube *k, i64 g) {
    i64 trigger = k->window[g];
    k->window[g] = NO_WINDOW;
    for (i64 s = 0; s < k->P; s++) SEAT(asked, g, s) = 0;
    if (trigger != ATTACK_WINDOW) resolve_effect(k, g);
    else if (k->prevented[g] || attack_called_off(k, g)) end_attack(k, g);
    else k->phase[g] = ROLL;
}

static void open_window(Cube *k, i64 g, i64 trigger) {
    /* CUBE-51: the window opens to the other players still in the game who hold a card */
    k->window[g] = trigger;
    int answering = 0;
    for (i64 s = 0; s < k->P; s++) {
        int asked = !SEAT(out, g, s) && SEAT(hand_count, g, s) > 0 && s != k->current[g];
        SEAT(asked, g, s) = (flag)asked;
        answering |= asked;
    }
    if (answering) k->phase[g] = RESPOND;
    else close_window(k, g);
}

static void begin_effect(Cube *k, i64 g, i64 seat, i64 source, i64 kind) {
    /* CUBE-59: choose the target first (when there is a choice), then others may answer (CUBE-51) */
    k->pending[g] = source;
    k->pending_kind[g] = kind;
    k->pending_target[g] = k->none;
    k->cancelled[g] = 0;
    i64 effect = pending_effect(k, g);
    if (k->chosen[effect_row(k, effect)]) {
        flag pool[MAX_PLAYERS][MAX_SPOTS];
        if (candidates(k, g, seat, effect, pool) > 1) {
            k->phase[g] = TARGET;
            return;
        }
        i64 at = 0; /* the only candidate (or the first spot where there is none, as numpy's argmax) */
        for (i64 i = 0; i < k->P * MAX_SPOTS; i++)
            if (pool[i / MAX_SPOTS][i % MAX_SPOTS]) {
                at = i;
                break;
            }
        k->pending_target[g] = k->field[g * k->P * MAX_SPOTS + at];
    }
    open_window(k, g, kind == ACTION_KIND ? ACTION_WINDOW : POWER_WINDOW);
}

static void roll_attack(Cube *k, i64 g, i64 face) {
    /* CUBE-39, CUBE-40: the die adjusts this attack's points (never below zero); CUBE-42: the result, less any
     * reduction from reactions, is subtracted from the defender's health */
    k->last_roll[g] = face;
    i64 attacker = k->attacker[g];
    i64 points = k->attack[attacker] + k->bonus[CARD(weapon, g, attacker)] + k->boost[g], adjusted;
    if (face == MISS) adjusted = 0;
    else if (face == DOUBLE) adjusted = points * 2;
    else adjusted = points + FACE_ADDS[face] > 0 ? points + FACE_ADDS[face] : 0;
    i64 damage = adjusted - k->reduce[g];
    if (damage > 0) deal_damage(k, g, k->defender[g], damage, k->current[g]);
    end_attack(k, g);
}

/* -- playing ------------------------------------------------------------------------------------------------ */
static void place_creature(Cube *k, i64 g, i64 seat, i64 creature) {
    /* CUBE-22: into the first open spot, so the Guard spot is filled first (CUBE-23: up to the limit) */
    SEAT(hand_count, g, seat) -= 1;
    FIELD_AT(g, seat, SEAT(field_count, g, seat)) = creature;
    SEAT(field_count, g, seat) += 1;
    CARD(place, g, creature) = k->FIELD + seat;
}

/* one action of the seat to act, then the die where it leads to the roll */
static void step(Cube *k, i64 g, i64 action) {
    i64 seat = player_to_act(k, g), card = k->action_card[action], spot = k->action_spot[action];
    i64 handler = k->phase[g] == PLACE ? SETUP_PLACEMENT : k->action_handler[action];
    switch (handler) {
    case SETUP_PLACEMENT:
        place_creature(k, g, seat, card);
        if (SEAT(field_count, g, seat) < PLACED_AT_SETUP && creatures_in_hand(k, g, seat) > 0) break;
        if ((seat + 1) % k->P == k->first[g]) start_turn(k, g, k->first[g]);
        else begin_placement(k, g, (seat + 1) % k->P);
        break;
    case PLAY_CREATURE: /* CUBE-22: one creature card a turn */
        k->done[g] |= DID_CREATURE;
        place_creature(k, g, seat, card);
        break;
    case PLAY_ACTION: /* CUBE-26: follow the card's instructions, then discard it (at once) */
        k->done[g] |= DID_ACTION;
        SEAT(hand_count, g, seat) -= 1;
        to_discard(k, g, card);
        begin_effect(k, g, seat, card, ACTION_KIND);
        break;
    case ATTACH: { /* CUBE-27, CUBE-28: one upgrade a turn, under a creature, one weapon and one armor each */
        k->done[g] |= DID_UPGRADE;
        SEAT(hand_count, g, seat) -= 1;
        i64 creature = FIELD_AT(g, seat, spot);
        if (k->is_weapon[card]) CARD(weapon, g, creature) = card;
        else CARD(armor, g, creature) = card;
        CARD(place, g, card) = k->FIELD + seat;
        break;
    }
    case USE_POWER: { /* CUBE-33: turned sideways (used) as soon as it is used, even if a reaction cancels it */
        k->done[g] |= DID_POWER;
        i64 creature = FIELD_AT(g, seat, spot);
        CARD(used, g, creature) = 1;
        begin_effect(k, g, seat, creature, POWER_KIND);
        break;
    }
    case SWAP: /* CUBE-34: change your Guard once a turn */
        k->done[g] |= DID_GUARD;
        change_guard(k, g, seat, spot);
        break;
    case DECLARE_ATTACK: /* CUBE-37: one creature attacks one enemy creature */
        k->attacker[g] = FIELD_AT(g, seat, k->action_attacker_spot[action]);
        k->defender[g] = FIELD_AT(g, k->action_player[action], k->action_target_spot[action]);
        k->prevented[g] = 0;
        k->reduce[g] = 0;
        k->last_roll[g] = -1;
        open_window(k, g, ATTACK_WINDOW);
        break;
    case END_TURN: next_turn(k, g); break; /* CUBE-55 */
    case CHOOSE_TARGET:
        k->pending_target[g] = FIELD_AT(g, k->action_player[action], spot);
        open_window(k, g, k->pending_kind[g] == ACTION_KIND ? ACTION_WINDOW : POWER_WINDOW);
        break;
    case REACT: { /* CUBE-47: follow the card's instructions, then discard it; CUBE-48: as many as wanted */
        SEAT(hand_count, g, seat) -= 1;
        to_discard(k, g, card);
        run_effect(k, g, seat, k->card_effect[card], card, k->none);
        if (k->phase[g] == OVER) break;
        int asking = 0;
        for (i64 s = 0; s < k->P; s++) {
            SEAT(asked, g, s) = SEAT(asked, g, s) && SEAT(hand_count, g, s) > 0;
            asking |= SEAT(asked, g, s);
        }
        if (!asking) close_window(k, g);
        break;
    }
    case PASS: {
        SEAT(asked, g, seat) = 0;
        int asking = 0;
        for (i64 s = 0; s < k->P; s++) asking |= SEAT(asked, g, s);
        if (!asking) close_window(k, g);
        break;
    }
    default: break;
    }
    if (k->phase[g] == ROLL) roll_attack(k, g, draw(k, g, DIE_FACES));
}

static i64 deal_hand(Cube *k, i64 g, i64 *hand, i64 size) {
    /* CUBE-15: deal from the shuffled deck (as many as it holds); the hand's size */
    i64 dealt = 0, *deck = k->deck + g * k->C;
    for (; dealt < size && k->deck_count[g] > 0; dealt++) hand[dealt] = deck[--k->deck_count[g]];
    return dealt;
}

static void deal(Cube *k, i64 g) {
    /* CUBE-15: shuffle and deal; CUBE-18: a hand with fewer than 2 creatures goes back and is redrawn (flow.deal,
     * with the shuffles seeded by the stream's next 53 bits, as CubeState(game, seed) is) */
    i64 *deck = k->deck + g * k->C, hand[MAX_CARDS];
    k->shuffle_seed[g] = (i64)seed_bits(k, g);
    k->shuffle_count[g] = 0;
    memcpy(deck, k->in_play, sizeof(i64) * (size_t)k->at[I_IN_PLAY]);
    k->deck_count[g] = k->at[I_IN_PLAY];
    shuffled(k, g, deck, k->deck_count[g]);
    for (i64 c = 0; c <= k->C; c++) CARD(place, g, c) = k->DECK;
    for (i64 s = 0; s < k->P; s++) {
        i64 size = deal_hand(k, g, hand, k->hand_size);
        for (i64 tries = 0; tries < k->at[I_MAX_REDRAWS]; tries++) {
            i64 creatures = 0;
            for (i64 i = 0; i < size; i++) creatures += k->ctype[hand[i]] == CREATURE;
            if (creatures >= 2) break;
            /* CUBE-18: shuffle the hand back into the deck and draw a new one of the same size */
            for (i64 i = 0; i < size; i++) deck[k->deck_count[g]++] = hand[i];
            shuffled(k, g, deck, k->deck_count[g]);
            size = deal_hand(k, g, hand, size);
        }
        for (i64 i = 0; i < size; i++) CARD(place, g, hand[i]) = k->HAND + s;
        SEAT(hand_count, g, s) = size;
    }
}

/* CubeBatch.reset: the deal, every other part of the state as at the start, then CUBE-17, the first player
 * (`first` < 0: drawn from the game's stream), and CUBE-16, placement in turn order */
static void start_game(Cube *k, i64 g, i64 first) {
    i64 P = k->P, C1 = k->C + 1, none = k->none;
    deal(k, g);
    k->discard_count[g] = k->discard_clock[g] = 0;
    for (i64 i = 0; i < P * MAX_SPOTS; i++) k->field[g * P * MAX_SPOTS + i] = none;
    for (i64 s = 0; s < P; s++) {
        SEAT(field_count, g, s) = SEAT(victory_count, g, s) = 0;
        SEAT(limits, g, s) = BATTLEFIELD_LIMIT;
        SEAT(out, g, s) = SEAT(asked, g, s) = SEAT(winners, g, s) = 0;
    }
    for (i64 c = 0; c < C1; c++) {
        k->damage[g * C1 + c] = 0;
        k->weapon[g * C1 + c] = k->armor[g * C1 + c] = none;
        k->used[g * C1 + c] = 0;
    }
    k->turn[g] = k->done[g] = k->boost[g] = k->pending_kind[g] = k->reduce[g] = 0;
    k->attack_any[g] = k->cancelled[g] = k->prevented[g] = 0;
    k->pending[g] = k->pending_target[g] = k->attacker[g] = k->defender[g] = none;
    k->window[g] = NO_WINDOW;
    k->last_roll[g] = -1;
    k->phase[g] = FIRST_PLAYER;
    k->first[g] = k->current[g] = first < 0 ? draw(k, g, P) : first;
    begin_placement(k, g, k->first[g]);
}

static PyObject *int64_array(PyObject *obj, Py_buffer *v, const char *name) {
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (v->itemsize != 8) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError, "cube kernel: %s must hold int64 numbers", name);
        return NULL;
    }
    return obj;
}

/* advance(ints, arrays, streams, actions, games, seat, others): in each game of `games`, the action
 * actions[game] (None: no action, as for a game just dealt), then, where `others`, the other seats' random
 * actions until `seat` is asked or the game ends */
static PyObject *advance(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "advance(ints, arrays, streams, actions, games, seat, others)");
        return NULL;
    }
    Cube k;
    if (load(&k, args[0], args[1]) < 0) return NULL;
    if (load_streams(&k, args[2]) < 0) {
        release(&k);
        return NULL;
    }
    i64 seat = PyLong_AsLongLong(args[5]);
    int others = PyObject_IsTrue(args[6]);
    Py_buffer actions_view = {0}, games_view;
    int acting = args[3] != Py_None;
    if ((seat == -1 && PyErr_Occurred()) || others < 0 ||
        (acting && int64_array(args[3], &actions_view, "actions") == NULL)) {
        release(&k);
        return NULL;
    }
    if (int64_array(args[4], &games_view, "games") == NULL) {
        if (acting) PyBuffer_Release(&actions_view);
        release(&k);
        return NULL;
    }
    const i64 *games = games_view.buf, *actions = acting ? actions_view.buf : NULL;
    Py_ssize_t count = games_view.len / 8;
    PyObject *result = Py_None;
    flag mask[MAX_CARDS];
    if (acting && actions_view.len / 8 != k.n) {
        PyErr_SetString(PyExc_ValueError, "cube kernel: one action per game");
        result = NULL;
    } else {
        for (Py_ssize_t i = 0; i < count; i++) {
            i64 g = games[i];
            if (g < 0 || g >= k.n) {
                PyErr_Format(PyExc_IndexError, "cube kernel: no game %lld", (long long)g);
                result = NULL;
                break;
            }
            if (acting) {
                i64 action = actions[g];
                if (action < 0 || action >= k.A) {
                    PyErr_Format(PyExc_IndexError, "cube kernel: no action %lld", (long long)action);
                    result = NULL;
                    break;
                }
                step(&k, g, action);
            }
            while (others) {
                i64 player = player_to_act(&k, g);
                if (player == seat || player < 0) break;
                memset(mask, 0, (size_t)k.A);
                legal(&k, g, mask);
                i64 legal_count = 0;
                for (i64 a = 0; a < k.A; a++) legal_count += mask[a];
                i64 pick = draw(&k, g, legal_count), action = 0;
                for (; action < k.A; action++)
                    if (mask[action] && pick-- == 0) break;
                step(&k, g, action);
            }
        }
    }
    if (acting) PyBuffer_Release(&actions_view);
    PyBuffer_Release(&games_view);
    release(&k);
    Py_XINCREF(result);
    return result;
}

/* start(ints, arrays, streams, games, first): a new game in each row of `games`, to its first decision */
static PyObject *start(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "start(ints, arrays, streams, games, first)");
        return NULL;
    }
    Cube k;
    if (load(&k, args[0], args[1]) < 0) return NULL;
    Py_buffer games_view;
    i64 first = PyLong_AsLongLong(args[4]);
    if ((first == -1 && PyErr_Occurred()) || load_streams(&k, args[2]) < 0 ||
        int64_array(args[3], &games_view, "games") == NULL) {
        release(&k);
        return NULL;
    }
    k.views[k.viewed++] = games_view;
    const i64 *games = games_view.buf;
    Py_ssize_t count = games_view.len / 8;
    for (Py_ssize_t i = 0; i < count; i++)
        if (games[i] < 0 || games[i] >= k.n || first >= k.P) {
            PyErr_Format(PyExc_IndexError, "cube kernel: no game %lld or no seat %lld", (long long)games[i],
                         (long long)first);
            release(&k);
            return NULL;
        }
    for (Py_ssize_t i = 0; i < count; i++) start_game(&k, games[i], first);
    release(&k);
    Py_RETURN_NONE;
}

/* legal_mask(ints, arrays, games, out): out[i] = the legal actions in game games[i] (out: bool (len, A)) */
static PyObject *legal_mask(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "legal_mask(ints, arrays, games, out)");
        return NULL;
    }
    Cube k;
    if (load(&k, args[0], args[1]) < 0) return NULL;
    Py_buffer games_view;
    if (int64_array(args[2], &games_view, "games") == NULL) {
        release(&k);
        return NULL;
    }
    const i64 *games = games_view.buf;
    Py_ssize_t count = games_view.len / 8;
    flag *out = view(&k, args[3], "out", count * k.A, 1);
    PyObject *result = Py_None;
    if (out == NULL) {
        result = NULL;
    } else {
        memset(out, 0, (size_t)(count * k.A));
        for (Py_ssize_t i = 0; i < count; i++) {
            if (games[i] < 0 || games[i] >= k.n) {
                PyErr_Format(PyExc_IndexError, "cube kernel: no game %lld", (long long)games[i]);
                result = NULL;
                break;
            }
            legal(&k, games[i], out + i * k.A);
        }
    }
    PyBuffer_Release(&games_view);
    release(&k);
    Py_XINCREF(result);
    return result;
}

/* observation(ints, arrays, viewers, out): every game's observation tensor for its seat in viewers (int64
 * (N,)), into out (float32 (N, size)): the numbers CubeState.observation_tensor gives (games/cube/tensor.py) */
static PyObject *observation(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "observation(ints, arrays, viewers, out)");
        return NULL;
    }
    Cube k;
    if (load(&k, args[0], args[1]) < 0) return NULL;
    Py_buffer viewers_view;
    if (int64_array(args[2], &viewers_view, "viewers") == NULL) {
        release(&k);
        return NULL;
    }
    k.views[k.viewed++] = viewers_view;
    const i64 *viewers = viewers_view.buf;
    float *out = viewers_view.len / 8 != k.n ? NULL : view(&k, args[3], "out", k.n * k.size, 4);
    if (out == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "cube kernel: one viewer per game");
        release(&k);
        return NULL;
    }
    i64 *at = k.at, P = k.P, none = k.none;
    memset(out, 0, sizeof(float) * (size_t)(k.n * k.size));
    for (i64 g = 0; g < k.n; g++) {
        float *row = out + g * k.size;
        i64 viewer = viewers[g], phase = k.phase[g];
        if (viewer < 0 || viewer >= P) {
            PyErr_Format(PyExc_IndexError, "cube kernel: no seat %lld", (long long)viewer);
            release(&k);
            return NULL;
        }
#define REL(s) ((((s) - viewer) % P + P) % P)
        row[at[I_AT_PHASE] + phase] = 1.0f;
        row[at[I_AT_PROGRESS]] = (float)((double)k.turn[g] / (double)k.turn_limit);
        row[at[I_AT_PROGRESS] + 1] = (float)((double)k.discard_count[g] / (double)k.C);
        i64 roles = at[I_AT_ROLES], counts = at[I_AT_COUNTS];
        if (phase != FIRST_PLAYER && phase != OVER) row[roles + REL(k.current[g])] = 1.0f;
        row[roles + REL(k.first[g]) + P] = 1.0f;
        for (i64 s = 0; s < P; s++) {
            i64 r = REL(s);
            int to_act = phase == RESPOND ? k.asked[g * P + s]
                                          : (phase == MAIN || phase == PLACE || phase == TARGET) && s == k.current[g];
            row[roles + r + 2 * P] = (float)to_act;
            row[roles + r + 3 * P] = (float)k.out[g * P + s];
            row[roles + r + 4 * P] = (float)k.winners[g * P + s];
            row[counts + r] = (float)((double)k.hand_count[g * P + s] / (double)k.hand_size);
            row[counts + r + P] = (float)((double)k.victory_count[g * P + s] / (double)k.win_at);
            row[counts + r + 2 * P] = (float)((double)k.limits[g * P + s] / (double)MAX_SPOTS);
        }
        for (int part = 0; part < TURN_PARTS; part++) row[at[I_AT_TURN_PARTS] + part] = (float)((k.done[g] >> part) & 1);
        row[at[I_AT_BOOST]] = (float)((double)k.boost[g] / STAT_SCALE);
        row[at[I_AT_BOOST] + 1] = (float)k.attack_any[g];
        int attacking = k.attacker[g] != none, pending = k.pending[g] != none;
        row[at[I_AT_ATTACK]] = (float)attacking;
        row[at[I_AT_ATTACK] + 1] = (float)(attacking && k.prevented[g]);
        row[at[I_AT_ATTACK] + 2] = attacking ? (float)((double)k.reduce[g] / STAT_SCALE) : 0.0f;
        if (pending) row[at[I_AT_PENDING] + k.pending_kind[g]] = 1.0f;
        row[at[I_AT_PENDING] + PENDING_KINDS] = (float)(pending && k.cancelled[g]);
        if (k.window[g] != NO_WINDOW) row[at[I_AT_WINDOW] + k.window[g]] = 1.0f;
        if (k.last_roll[g] >= 0) row[at[I_AT_LAST_ROLL] + k.last_roll[g]] = 1.0f;
        /* each card's place as its column, seats counted from the viewer; an action card under way lies in no
         * pile */
        const i64 *columns = k.place_columns + viewer * k.places, *place = k.place + g * (k.C + 1);
        i64 under_way = pending && columns[place[k.pending[g]]] == 0 ? k.pending[g] : -1;
        for (i64 c = 0; c < k.C; c++)
            row[k.card_cells[c] + columns[c == under_way ? k.under_way : place[c]]] = 1.0f;
        /* creature stats, for every creature on a battlefield (rules.attack_points, max_health, CUBE-6) */
        float *stats = row + at[I_AT_STATS];
        i64 width = at[I_STATS_WIDTH];
        for (i64 s = 0; s < P; s++)
            for (int spot = 0; spot < MAX_SPOTS; spot++) {
                i64 c = k.field[(g * P + s) * MAX_SPOTS + spot];
                if (c == none) continue;
                float *cell = stats + c * width;
                i64 health = k.health[c] + k.bonus[k.armor[g * (k.C + 1) + c]], hurt = k.damage[g * (k.C + 1) + c];
                cell[0] = (float)(spot == 0);
                cell[1] = (float)((double)spot / MAX_SPOTS);
                cell[2] = (float)((double)(k.attack[c] + k.bonus[k.weapon[g * (k.C + 1) + c]]) / STAT_SCALE);
                cell[3] = (float)((double)(health - hurt) / STAT_SCALE);
                cell[4] = (float)((double)health / STAT_SCALE);
                cell[5] = (float)((double)hurt / STAT_SCALE);
                cell[6] = (float)k.used[g * (k.C + 1) + c];
            }
        if (attacking) {
            stats[k.attacker[g] * width + 7] = 1.0f;
            stats[k.defender[g] * width + 8] = 1.0f;
        }
        if (pending) stats[k.pending[g] * width + 9] = 1.0f;
        if (k.pending_target[g] != none) stats[k.pending_target[g] * width + 10] = 1.0f;
#undef REL
    }
    release(&k);
    Py_RETURN_NONE;
}

/* shuffled(seed, number, cards): ShuffleSource(seed, number).shuffled(cards) for a list of ints (for tests) */
static PyObject *shuffled_list(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "shuffled(seed, number, cards: list[int])");
        return NULL;
    }
    unsigned long long seed = PyLong_AsUnsignedLongLong(args[0]), number = PyLong_AsUnsignedLongLong(args[1]);
    if (PyErr_Occurred()) return NULL;
    Py_ssize_t count = PyList_GET_SIZE(args[2]);
    i64 *cards = PyMem_Malloc(sizeof(i64) * (size_t)(count ? count : 1));
    if (cards == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < count; i++) cards[i] = PyLong_AsLongLong(PyList_GET_ITEM(args[2], i));
    PyObject *out = PyErr_Occurred() ? NULL : PyList_New(count);
    if (out != NULL) {
        shuffle_cards(seed, number, cards, count);
        for (Py_ssize_t i = 0; i < count; i++) PyList_SET_ITEM(out, i, PyLong_FromLongLong(cards[i]));
    }
    PyMem_Free(cards);
    return out;
}

static PyMethodDef methods[] = {
    {"shuffled", (PyCFunction)(void (*)(void))shuffled_list, METH_FASTCALL,
     "shuffled(seed, number, cards): ShuffleSource(seed, number).shuffled(cards), compiled"},
    {"advance", (PyCFunction)(void (*)(void))advance, METH_FASTCALL,
     "advance(ints, arrays, streams, actions, games, seat, others): each game's action, then the other "
     "seats' random play until `seat` is asked"},
    {"start", (PyCFunction)(void (*)(void))start, METH_FASTCALL,
     "start(ints, arrays, streams, games, first): new games (the deal), to their first decision"},
    {"legal_mask", (PyCFunction)(void (*)(void))legal_mask, METH_FASTCALL,
     "legal_mask(ints, arrays, games, out): the legal actions of the seat to act in each game of games"},
    {"observation", (PyCFunction)(void (*)(void))observation, METH_FASTCALL,
     "observation(ints, arrays, viewers, out): every game's observation tensor for its viewer"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_batch",
                                    "Cube Creatures for N games at once, compiled (games/cube/batch.py).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__batch(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    /* the codes the kernel was written with, for batch.py to check against its own */
    PyObject *codes = Py_BuildValue(
        "{s:i,s:i,s:i,s:(iiiiiii),s:(iii),s:(ii),s:(iiiii),s:i,s:(iiii),s:i,s:i,s:(iiiiii),s:i,s:i,s:i,s:i,s:i}",
        "max_spots", MAX_SPOTS, "placed_at_setup", PLACED_AT_SETUP, "battlefield_limit", BATTLEFIELD_LIMIT, "phases", FIRST_PLAYER, PLACE, MAIN, TARGET,
        RESPOND, ROLL, OVER, "windows", ATTACK_WINDOW, ACTION_WINDOW, POWER_WINDOW, "pending_kinds", ACTION_KIND,
        POWER_KIND, "did", DID_CREATURE, DID_ACTION, DID_UPGRADE, DID_POWER, DID_GUARD, "terminal", TERMINAL_PLAYER,
        "card_types", CREATURE, UPGRADE, ACTION, REACTION, "double", DOUBLE, "miss", MISS, "face_adds",
        (int)FACE_ADDS[0], (int)FACE_ADDS[1], (int)FACE_ADDS[2], (int)FACE_ADDS[3], (int)FACE_ADDS[4],
        (int)FACE_ADDS[5], "keywords", CANCEL_EFFECT + 1, "targets", DEFENDER + 1, "tests", PLAYABLE_TESTS,
        "handlers", PASS + 1, "block", BLOCK);
    if (codes == NULL || PyModule_AddObject(m, "CODES", codes) < 0) {
        Py_XDECREF(codes);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
