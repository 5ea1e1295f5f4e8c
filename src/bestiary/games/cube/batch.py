"""Cube Creatures for N games at once: the state as arrays, one row per game (structure of arrays).

The rules are `flow.py`'s, `rules.py`'s and `effects.py`'s, written as numpy operations over every game a
step concerns: a step dispatches each game's action by its kind, and each rule it leads to (a response
window opening, an effect resolving, a creature defeated, the next turn) runs once for all the games it
concerns. Each card's place is one number (`place`: the deck, the discard pile, a seat's hand, battlefield or
victory pile; an upgrade lies on its creature's battlefield); each battlefield is a row of spots holding card
indices. The card index `cards` (one past the last card) stands for "no card", so that every lookup by card
reads a spare column instead of testing for none.

Shuffles are the scalar engine's own: `ShuffleSource(seed)` per game, the same Mersenne Twister orders, made
game by game in Python. They come when a game is dealt (and its mulligans), when the shared deck runs out
(CUBE-52) and when an empty battlefield is refilled (CUBE-25): a few times a game, never in an ordinary step.
The die (CUBE-40) and a random first player (CUBE-17) come from `streams`, each the k-th outcome of the
chance node as `CubeState.chance_outcomes` lists them; a game's shuffle seed is the stream's next 53 bits.
`tests/rl/test_batched_cube.py` checks, step by step on random games, that the batch gives the scalar
engine's observation tensors, legal actions and returns.

Where it was built, a compiled kernel (`_batch.c`, the twin of this numpy engine over the same arrays) plays
the batch instead, game by game: `advance` takes each game from the learner's action to its next decision in
one call, deals (`start`), and fills the masks and observations; it makes ShuffleSource's orders itself (the
same SHA-512-seeded Mersenne Twister). The tests play both twins against the scalar engine.

Options: players, first_player, win_at and turn_limit as the scalar game takes them; the others at their
defaults (the starter deck, reactions, no Grandma's Rules, response windows open to every card holder).
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Protocol, TypeGuard

import numpy as np

from bestiary.core.chance import ShuffleSource
from bestiary.core.compiled import compiled
from bestiary.core.tensors import layout_offsets
from bestiary.games.cube import flow, rules, tensor
from bestiary.games.cube.actions import Attach, Attack, ChangeGuard, EndTurn, Pass, Play, React, Target, UsePower
from bestiary.games.cube.effects import CHOSEN_TARGETS
from bestiary.games.cube.rules import ACTION, CREATURE, MAX_SPOTS, REACTION, UPGRADE, WEAPON
from bestiary.games.cube.state import CubeState
from bestiary.games.cube.tensor import (
    CREATURE_STATS,
    PENDING_KINDS,
    SHARED_CARD_PLACES,
    STAT_SCALE,
    TURN_PARTS,
    WINDOWS,
    field_sizes,
)

if TYPE_CHECKING:
    from bestiary.games.cube.game import CubeCreatures

# Phases by their index in the tensor's phase field.
FIRST_PLAYER, PLACE, MAIN, TARGET, RESPOND, ROLL, OVER = (tensor.PHASES.index(p) for p in (
    flow.FIRST_PLAYER, flow.PLACE, flow.MAIN, flow.TARGET, flow.RESPOND, flow.ROLL, rules.OVER))
ATTACK_WINDOW, ACTION_WINDOW, POWER_WINDOW = (WINDOWS.index(w) for w in ("attack", "action", "power"))
NO_WINDOW = -1
ACTION_KIND, POWER_KIND = PENDING_KINDS.index("action"), PENDING_KINDS.index("power")
DID_CREATURE, DID_ACTION, DID_UPGRADE, DID_POWER, DID_GUARD = (flow.DID_CREATURE, flow.DID_ACTION, flow.DID_UPGRADE,
                                                               flow.DID_POWER, flow.DID_GUARD)
TERMINAL_PLAYER = -4  # bestiary.core.api.TERMINAL
# Action kinds, by the class of the player action table's entries.
PLAY, ATTACH, POWER, GUARD, ATTACK, END_TURN, TARGET_ACTION, REACT, PASS = range(9)
ACTION_KINDS = {Play: PLAY, Attach: ATTACH, UsePower: POWER, ChangeGuard: GUARD, Attack: ATTACK, EndTurn: END_TURN,
                Target: TARGET_ACTION, React: REACT, Pass: PASS}
# Effect keywords, and how a chosen target is picked and filtered (effects.candidates).
KEYWORDS = ("deal-damage", "heal", "draw", "destroy-upgrade", "swap-guard", "reset-power", "boost-attack",
            "attack-any", "extra-spot", "prevent-attack", "reduce-damage", "cancel-effect")
DEAL_DAMAGE, HEAL, DRAW, DESTROY_UPGRADE, SWAP_GUARD, RESET_POWER, BOOST_ATTACK, ATTACK_ANY, EXTRA_SPOT, \
    PREVENT_ATTACK, REDUCE_DAMAGE, CANCEL_EFFECT = range(len(KEYWORDS))
TARGETS = ("", "enemy-guard", "enemy-any", "own-any", "all-enemy-guards", "attacker", "own-guard", "own-all",
           "self", "defender")
ENEMY_GUARD, ENEMY_ANY, OWN_ANY, ALL_ENEMY_GUARDS, ATTACKER, OWN_GUARD, OWN_ALL, SELF, DEFENDER = range(1, len(TARGETS))
UPGRADE_CHOICES = ("weapon", "armor", "any")
FACE_ADDS = np.array([rules.FACE_ADDS.get(face, 0) for face in rules.DIE_FACES], np.int64)
DOUBLE, MISS = rules.DIE_FACES.index("2x"), rules.DIE_FACES.index("miss")
# effects.playable_test's tests, by index (CUBE-58), and one that never holds (no effect at all).
PLAYABLE_TESTS = ("always", "enemy-in-play", "own-damaged", "own-power-used", "enemy-behind-guard", "enemy-weapon",
                  "enemy-armor", "enemy-upgrade", "room-to-widen", "never")
ALWAYS, ENEMY_IN_PLAY, OWN_DAMAGED, OWN_POWER_USED, ENEMY_BEHIND_GUARD, ENEMY_WEAPON, ENEMY_ARMOR, ENEMY_UPGRADE, \
    ROOM_TO_WIDEN, NEVER = range(len(PLAYABLE_TESTS))
# step's handlers: a creature's play, an action card's, a placement at setup, then the other kinds in order.
PLAY_CREATURE, PLAY_ACTION, SETUP_PLACEMENT = range(3)
HANDLER_OFFSET = SETUP_PLACEMENT + 1 - ATTACH
SUPPORTED = ("players", "first_player", "win_at", "turn_limit")


class Draws(Protocol):
    def draw(self, games: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """For each game in `games` (indices), a number from 0 to its count − 1."""
        ...

    def seed_bits(self, games: np.ndarray) -> np.ndarray:
        """For each game in `games`, its stream's next number as 53 bits (a seed)."""
        ...


class CounterStreams(Draws, Protocol):
    """Draws kept as rl.batched.Streams keeps them (per game: the key, the blocks of 32 made, the block made last
    and the draws taken from it), which the compiled kernel reads and advances itself."""

    keys: np.ndarray
    blocks_made: np.ndarray
    numbers: np.ndarray
    used: np.ndarray


def counts_itself(streams: Draws) -> TypeGuard[CounterStreams]:
    """Whether the kernel can draw from `streams` itself (a look at two attributes: isinstance against a
    protocol costs more than a batch step)."""
    return hasattr(streams, "numbers") and hasattr(streams, "blocks_made")


# The compiled twin (games/cube/_batch.c): the arrays and numbers it is handed, in its order.
KERNEL = "bestiary.games.cube._batch"
KERNEL_ARRAYS = (
    "ctype", "attack", "health", "bonus", "is_weapon", "card_effect", "card_power", "keyword", "amount", "target",
    "upgrade_kind", "chosen", "effect_test", "reactions", "reaction_window", "reaction_keyword", "reaction_target",
    "play_index", "upgrades", "attach_index", "react_index", "power_index", "guard_index", "action_card",
    "action_spot", "action_player", "action_target_spot", "action_attacker_spot", "action_handler", "played_cards",
    "played_tests", "place_columns", "card_cells", "in_play",
    "phase", "turn", "current", "first", "deck", "deck_count", "place", "discarded_at", "discard_clock",
    "discard_count", "field", "field_count", "hand_count", "victory_count", "damage", "weapon", "armor", "used",
    "limits", "out", "done", "boost", "attack_any", "pending", "pending_kind", "pending_target", "cancelled",
    "attacker", "defender", "prevented", "reduce", "window", "asked", "last_roll", "winners", "shuffle_seed",
    "shuffle_count")
OBSERVATION_FIELDS = ("phase", "progress", "seat_roles", "seat_counts", "turn_parts", "boost", "attack", "pending",
                      "window", "last_roll", "card_places", "creature_stats")
KERNEL_CODES = {
    "max_spots": MAX_SPOTS, "placed_at_setup": flow.PLACED_AT_SETUP, "battlefield_limit": rules.BATTLEFIELD_LIMIT,
    "phases": (FIRST_PLAYER, PLACE, MAIN, TARGET, RESPOND, ROLL, OVER),
    "windows": (ATTACK_WINDOW, ACTION_WINDOW, POWER_WINDOW), "pending_kinds": (ACTION_KIND, POWER_KIND),
    "did": (DID_CREATURE, DID_ACTION, DID_UPGRADE, DID_POWER, DID_GUARD), "terminal": TERMINAL_PLAYER,
    "card_types": (CREATURE, UPGRADE, ACTION, REACTION), "double": DOUBLE, "miss": MISS,
    "face_adds": tuple(FACE_ADDS.tolist()), "keywords": len(KEYWORDS), "targets": len(TARGETS),
    "tests": len(PLAYABLE_TESTS), "handlers": PASS + HANDLER_OFFSET + 1, "block": 32}


def kernel() -> ModuleType | None:
    """The compiled kernel where it was built (core/compiled.py); a clear error where it was built from other
    rules' codes than these (a stale build)."""
    module = compiled(KERNEL)
    if module is not None and module.CODES != KERNEL_CODES:
        raise RuntimeError(f"{KERNEL} was built for other codes than batch.py's ({module.CODES} against "
                           f"{KERNEL_CODES}); rebuild it (pip install -e .)")
    return module


def check_options(game: CubeCreatures) -> None:
    """The batched engine plays the options in SUPPORTED; the others must keep their defaults."""
    options = game.options
    changed = [name for name, field in type(options).model_fields.items()
               if name not in SUPPORTED and getattr(options, name) != field.default]
    if changed:
        raise ValueError(f"the batched Cube Creatures engine plays {', '.join(SUPPORTED)} and the other options at "
                         f"their defaults, not {', '.join(f'{n}={getattr(options, n)!r}' for n in changed)}; "
                         "bestiary.rl.vector.BestiaryVectorEnv plays every option")


class CubeBatch:
    """`num_games` games of one configured Cube Creatures game.

    `reset(games, streams)` deals new games in the rows `games` (indices); `step(actions, games, streams)`
    applies each listed game's action (an index of `game.player_action_table()`, legal: the caller checks it
    against `legal_mask()`) for the seat to act, then rolls the attack die if the action led to it.
    `current_player`, `observation(viewers)`, `legal_mask()` and `returns()` read every game at once."""

    def __init__(self, game: CubeCreatures, num_games: int, compiled_kernel: bool = True) -> None:
        """`compiled_kernel=False` plays the numpy engine even where the compiled kernel was built."""
        check_options(game)
        self.game = game
        self.num_games = num_games
        self.players = players = game.num_players
        table = game.player_action_table()
        self.num_actions = len(table)
        self.cards = cards = len(game.cards)
        self.none = none = cards  # "no card": the spare column of every per-card array
        self.win_at = game.win_at
        self.turn_limit = game.turn_limit
        self.first_player = game.options.first_player
        self.hand_size = game.hand_size

        def per_card(values: tuple[int, ...] | list[int], spare: int = 0) -> np.ndarray:
            return np.array([*values, spare], np.int64)

        self.ctype = per_card(game.ctype, -1)
        self.attack = per_card(game.attack)
        self.health = per_card(game.health)
        self.bonus = per_card(game.bonus)
        self.is_weapon = per_card([k == WEAPON for k in game.kind]).astype(bool)
        self.creatures = np.flatnonzero(self.ctype == CREATURE)
        self.upgrades = np.flatnonzero(self.ctype == UPGRADE)
        self.upgrade_cards = [c for c in range(cards) if game.ctype[c] == UPGRADE]
        self.reaction_cards = [c for c in range(cards) if game.ctype[c] == REACTION]
        self.action_cards = np.flatnonzero(self.ctype == ACTION)
        self.reactions = np.flatnonzero(self.ctype == REACTION)
        self._effect_tables(game)
        self._action_tables(game, table)

        # Places: the deck, the discard pile, then each seat's hand, battlefield and victory pile.
        self.DECK, self.DISCARD, self.HAND, self.FIELD, self.VICTORY = 0, 1, 2, 2 + players, 2 + 2 * players
        self._tensor_tables(game)

        shape = (num_games,)
        self.phase = np.full(shape, OVER, np.int64)
        self.turn = np.zeros(shape, np.int64)
        self.current = np.zeros(shape, np.int64)
        self.first = np.zeros(shape, np.int64)
        self.deck = np.zeros((num_games, cards), np.int64)  # the top card last
        self.deck_count = np.zeros(shape, np.int64)
        self.place = np.zeros((num_games, cards + 1), np.int64)
        self.discarded_at = np.zeros((num_games, cards + 1), np.int64)  # the discard pile's order, by a clock
        self.discard_clock = np.zeros(shape, np.int64)
        self.discard_count = np.zeros(shape, np.int64)
        self.field = np.full((num_games, players, MAX_SPOTS), none, np.int64)  # the Guard first (CUBE-12)
        self.field_count = np.zeros((num_games, players), np.int64)
        self.hand_count = np.zeros((num_games, players), np.int64)
        self.victory_count = np.zeros((num_games, players), np.int64)
        self.damage = np.zeros((num_games, cards + 1), np.int64)
        self.weapon = np.full((num_games, cards + 1), none, np.int64)
        self.armor = np.full((num_games, cards + 1), none, np.int64)
        self.used = np.zeros((num_games, cards + 1), bool)
        self.limits = np.full((num_games, players), rules.BATTLEFIELD_LIMIT, np.int64)
        self.out = np.zeros((num_games, players), bool)
        self.done = np.zeros(shape, np.int64)
        self.boost = np.zeros(shape, np.int64)
        self.attack_any = np.zeros(shape, bool)
        self.pending = np.full(shape, none, np.int64)
        self.pending_kind = np.zeros(shape, np.int64)
        self.pending_target = np.full(shape, none, np.int64)
        self.cancelled = np.zeros(shape, bool)
        self.attacker = np.full(shape, none, np.int64)
        self.defender = np.full(shape, none, np.int64)
        self.prevented = np.zeros(shape, bool)
        self.reduce = np.zeros(shape, np.int64)
        self.window = np.full(shape, NO_WINDOW, np.int64)
        self.asked = np.zeros((num_games, players), bool)  # the open window's responders (CUBE-51)
        self.last_roll = np.full(shape, -1, np.int64)
        self.winners = np.zeros((num_games, players), bool)
        self.shuffle_seed = np.zeros(shape, np.int64)  # each game's ShuffleSource: its seed (53 bits) and count
        self.shuffle_count = np.zeros(shape, np.int64)
        self.in_play = np.array(game.in_play, np.int64)  # the deck before the deal's shuffle (CUBE-15)
        # step's handlers by code, each called as handler(games, seats, actions, cards, spots) for its games
        self._handlers = (self._play_creature, self._play_action_card, self._place_at_setup, self._attach,
                          self._use_power, self._swap_guard, self._declare_attack, self._end_turn, self._choose_target,
                          self._react, self._pass_window)
        self._masks = {PLACE: self._place_mask, MAIN: self._main_mask, TARGET: self._target_mask,
                       RESPOND: self._respond_mask}
        self._rows = np.arange(num_games)
        self._seats = np.arange(players)
        self._spots = np.arange(MAX_SPOTS)
        # The other seats in turn order after each seat (CUBE-17).
        self.seats_after = (np.arange(players)[:, None] + 1 + np.arange(players - 1)) % players
        self._kernel = kernel() if compiled_kernel else None
        self._kernel_arrays = tuple(getattr(self, name) for name in KERNEL_ARRAYS)
        self._kernel_ints = np.array([
            num_games, players, cards, self.num_actions, self.win_at, self.turn_limit, self.hand_size,
            game.powers_in_play, len(self.keyword), len(self.reactions), len(self.upgrades), len(self.played_cards),
            len(self.creatures), self.attack_index.min(), self.target_index.min(), self.end_turn_index,
            self.pass_index, self.size, self.under_way, *(self.at[name] for name in OBSERVATION_FIELDS),
            self.stats_width, len(self.in_play), game.max_redraws], np.int64)

    @property
    def compiled(self) -> bool:
        """Whether the compiled kernel plays these games (else the numpy engine)."""
        return self._kernel is not None

    # -- tables worked out once ------------------------------------------------------------------
    def _effect_tables(self, game: CubeCreatures) -> None:
        """Each distinct effect as numbers (keyword, amount, target, upgrade kind), and each card's effect
        and creature power as an index into them (-1: none)."""
        effects: list[tuple[int, int, int, int]] = []

        def index(effect: object) -> int:
            if effect is None:
                return -1
            params = effect.params  # type: ignore[attr-defined]
            row = (KEYWORDS.index(effect.keyword),  # type: ignore[attr-defined]
                   int(params.get("amount", params.get("count", 0))), TARGETS.index(params.get("target", "")),
                   UPGRADE_CHOICES.index(params["kind"]) if "kind" in params else -1)
            if row not in effects:
                effects.append(row)
            return effects.index(row)

        self.card_effect = np.array([index(e) for e in game.effect] + [-1], np.int64)
        self.card_power = np.array([index(p) for p in game.power] + [-1], np.int64)
        table = np.array(effects, np.int64).reshape(-1, 4)
        self.keyword, self.amount, self.target, self.upgrade_kind = table.T.copy()
        self.chosen = np.isin(self.target, [TARGETS.index(t) for t in CHOSEN_TARGETS])
        # Each effect's test of having something to act on (effects.playable_test); the last entry, read for
        # the index -1 (no effect), never holds.
        tests = [self._playable_test(*row) for row in table.tolist()]
        self.effect_test = np.array([*tests, NEVER], np.int64)
        # The reaction cards: the window each answers, and when it can still change something (CUBE-51).
        trigger = [WINDOWS.index(game.trigger[c]) for c in self.reactions]
        self.reaction_window = np.array(trigger, np.int64)
        self.reaction_keyword = self.keyword[self.card_effect[self.reactions]]
        self.reaction_target = self.target[self.card_effect[self.reactions]]

    @staticmethod
    def _playable_test(keyword: int, _: int, target: int, kind: int) -> int:
        if keyword == EXTRA_SPOT:
            return ROOM_TO_WIDEN
        if TARGETS[target] not in CHOSEN_TARGETS:
            return ALWAYS
        # effects.TARGETS allows these chosen targets only, each with its test (effects.CANDIDATE_TESTS).
        tests = {DEAL_DAMAGE: ENEMY_IN_PLAY, HEAL: OWN_DAMAGED, RESET_POWER: OWN_POWER_USED,
                 SWAP_GUARD: ENEMY_BEHIND_GUARD, DESTROY_UPGRADE: (ENEMY_WEAPON, ENEMY_ARMOR, ENEMY_UPGRADE)[kind]}
        return tests[keyword]

    def _action_tables(self, game: CubeCreatures, table: tuple[object, ...]) -> None:
        players = self.players
        kinds = np.array([ACTION_KINDS[type(a)] for a in table], np.int64)
        self.action_kind = kinds
        self.action_card = np.array([game.index_of[a.card] if hasattr(a, "card") else self.none for a in table],
                                    np.int64)
        self.action_spot = np.array([getattr(a, "spot", getattr(a, "target_spot", 0)) for a in table], np.int64)
        self.action_player = np.array([getattr(a, "target_player", getattr(a, "player", 0)) for a in table],
                                      np.int64)
        self.action_target_spot = np.array([getattr(a, "target_spot", 0) for a in table], np.int64)
        self.action_attacker_spot = np.array([a.spot if isinstance(a, Attack) else 0 for a in table], np.int64)
        self.play_index = np.full(self.cards, -1, np.int64)
        for card, action in game.play_actions.items():
            self.play_index[card] = action.index
        self.attach_index = np.array([[a.index for a in game.attach_actions[u]] for u in self.upgrade_cards], np.int64)
        self.react_index = np.array([game.react_actions[c].index for c in self.reaction_cards], np.int64)
        self.power_index = np.array([a.index for a in game.power_actions], np.int64)
        self.guard_index = np.array([game.guard_actions[s].index for s in range(1, MAX_SPOTS)], np.int64)
        # (target player, target spot, attacker spot) and (player, spot): contiguous blocks of the table
        self.attack_index = np.array([[[a.index for a in row] for row in rows] for rows in game.attack_table])
        self.target_index = np.array([[a.index for a in row] for row in game.target_actions])
        self.end_turn_index = game.end_turn.index
        self.pass_index = game.pass_action.index
        assert np.array_equal(self.attack_index.reshape(-1), self.attack_index.min() + np.arange(players * 25))
        assert np.array_equal(self.target_index.reshape(-1), self.target_index.min() + np.arange(players * 5))
        # Which method handles each action (step): by its kind, and a play by its card's type.
        creature = self.ctype[self.action_card] == CREATURE
        handler = np.where(kinds == PLAY, np.where(creature, PLAY_CREATURE, PLAY_ACTION), kinds + HANDLER_OFFSET)
        self.action_handler = handler
        self.creature_plays = self.play_index[self.creatures]
        # The cards with a play action, creatures first: their plays, types and tests of having something to
        # act on (_main_mask)
        self.played_cards = np.concatenate([self.creatures, self.action_cards])
        self.played_actions = self.play_index[self.played_cards]
        self.played_types = self.ctype[self.played_cards]
        self.played_tests = np.where(self.played_types == ACTION, self.effect_test[self.card_effect[self.played_cards]],
                                     ALWAYS)
        self.upgrade_slot = np.where(self.is_weapon[self.upgrades], 0, 1)
        self.action_plays = self.play_index[self.action_cards]
        self.action_card_effects = self.card_effect[self.action_cards]

    def _tensor_tables(self, game: CubeCreatures) -> None:
        players, cards = self.players, self.cards
        at = layout_offsets(field_sizes(game))
        self.at = at
        self.size = tensor.tensor_shape(game)[0]
        self.width = len(SHARED_CARD_PLACES) + 2 * players
        self.stats_width = len(CREATURE_STATS)
        # A place's column in a card's row of the tensor, for each viewer (seats counted from the viewer).
        places = self.VICTORY + players
        columns = np.zeros((players, places + 1), np.int64)  # a spare place: "under way" (column 3)
        for viewer in range(players):
            columns[viewer, self.DISCARD] = 2
            columns[viewer, self.HAND + viewer] = 1
            for seat in range(players):
                columns[viewer, self.FIELD + seat] = len(SHARED_CARD_PLACES) + (seat - viewer) % players
                columns[viewer, self.VICTORY + seat] = len(SHARED_CARD_PLACES) + players + (seat - viewer) % players
            columns[viewer, places] = 3
        self.place_columns = columns
        self.under_way = places
        self.card_cells = at["card_places"] + np.arange(cards) * self.width
        self.relative = (np.arange(players)[None, :] - np.arange(players)[:, None]) % players  # [viewer, seat]

    # -- dealing ---------------------------------------------------------------------------------
    def reset(self, games: np.ndarray, streams: Draws) -> None:
        """New games in the rows `games`: CUBE-15 shuffle and deal, CUBE-18 mulligans (the scalar engine's
        own, game by game), then the first player (CUBE-17) and placement (CUBE-16)."""
        if self._kernel is not None and counts_itself(streams):
            first = -1 if self.first_player == "random" else int(self.first_player)
            self._kernel.start(self._kernel_ints, self._kernel_arrays, streams, np.ascontiguousarray(games, np.int64),
                               first)
            return
        seeds = streams.seed_bits(games)
        game, none = self.game, self.none
        for row, seed in zip(games.tolist(), seeds.tolist(), strict=True):
            dealt = CubeState(game, seed)
            flow.deal(dealt)
            self.shuffle_seed[row] = seed
            self.shuffle_count[row] = dealt.shuffles.count
            self.deck[row, :len(dealt.deck)] = dealt.deck
            self.deck_count[row] = len(dealt.deck)
            self.place[row] = self.DECK
            for seat, hand in enumerate(dealt.hands):
                self.place[row, hand] = self.HAND + seat
                self.hand_count[row, seat] = len(hand)
        self.discard_count[games] = 0
        self.discard_clock[games] = 0
        self.field[games] = none
        self.field_count[games] = 0
        self.victory_count[games] = 0
        self.damage[games] = 0
        self.weapon[games] = none
        self.armor[games] = none
        self.used[games] = False
        self.limits[games] = rules.BATTLEFIELD_LIMIT
        self.out[games] = False
        self.turn[games] = 0
        self.done[games] = 0
        self.boost[games] = 0
        self.attack_any[games] = False
        self.pending[games] = none
        self.pending_kind[games] = 0
        self.pending_target[games] = none
        self.cancelled[games] = False
        self.attacker[games] = none
        self.defender[games] = none
        self.prevented[games] = False
        self.reduce[games] = 0
        self.window[games] = NO_WINDOW
        self.asked[games] = False
        self.last_roll[games] = -1
        self.winners[games] = False
        self.current[games] = 0
        self.first[games] = 0
        self.phase[games] = FIRST_PLAYER
        if self.first_player == "random":
            # CUBE-17: chance chooses who goes first.
            self._choose_first_player(games, streams.draw(games, np.full(len(games), self.players)))
        else:
            self._choose_first_player(games, np.full(len(games), self.first_player, np.int64))

    def _choose_first_player(self, games: np.ndarray, seats: np.ndarray) -> None:
        # CUBE-17: the first player; then CUBE-16, placement in turn order.
        self.first[games] = seats
        self.current[games] = seats
        self._begin_placement(games, seats)

    def _creatures_in_hand(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(n,) how many creature cards each seat holds."""
        counted: np.ndarray = (self.place[games][:, self.creatures] == (self.HAND + seats)[:, None]).sum(axis=1)
        return counted

    def _begin_placement(self, games: np.ndarray, seats: np.ndarray) -> None:
        # CUBE-16: each player, in turn order from `seats`, puts creatures on their battlefield, until the
        # first player comes round again.
        looking = np.ones(len(games), bool)  # still going round
        placing = np.zeros(len(games), bool)
        for step in range(self.players):
            candidate = (seats + step) % self.players
            if step:
                looking &= candidate != self.first[games]
            places = looking & (self._creatures_in_hand(games, candidate) > 0) & \
                (self.field_count[games, candidate] < flow.PLACED_AT_SETUP)
            self.current[games[places]] = candidate[places]
            self.phase[games[places]] = PLACE
            placing |= places
            looking &= ~places
        if np.count_nonzero(placing) < len(placing):
            starting = games[~placing]
            self._start_turn(starting, self.first[starting])

    # -- reading ---------------------------------------------------------------------------------
    @property
    def terminal(self) -> np.ndarray:
        over: np.ndarray = self.phase == OVER
        return over

    @property
    def current_player(self) -> np.ndarray:
        """The seat to act in each game (TERMINAL_PLAYER once it is over; `step` leaves no chance node)."""
        return self.players_to_act(self._rows)

    def _first_asked(self, games: np.ndarray) -> np.ndarray:
        # The open window asks its responders in turn order after the current player (CUBE-51).
        order = self.seats_after[self.current[games]]
        first: np.ndarray = order[np.arange(len(games)), self.asked[games[:, None], order].argmax(axis=1)]
        return first

    def players_to_act(self, games: np.ndarray) -> np.ndarray:
        """`current_player` of the games `games` (indices) only."""
        phase = self.phase[games]
        player: np.ndarray = self.current[games]
        responding = np.flatnonzero(phase == RESPOND)
        if len(responding):
            player[responding] = self._first_asked(games[responding])
        player[phase == OVER] = TERMINAL_PLAYER
        return player

    def returns(self, games: np.ndarray | None = None) -> np.ndarray:
        """(N, players), or the rows of `games`: CUBE-10, CUBE-56, the winner gets 1 and winners of a shared
        win 1/k each; 0 until the end."""
        winners = self.winners if games is None else self.winners[games]
        counts = winners.sum(axis=1, keepdims=True)
        shares: np.ndarray = np.where(winners, 1.0 / np.maximum(counts, 1), 0.0)
        return shares

    def _fields_of(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(n, players, spots) the creatures on every battlefield, and which spots hold one."""
        fields = self.field[games]
        return fields, fields != self.none

    def _candidates(self, games: np.ndarray, player: np.ndarray, effect: np.ndarray) -> np.ndarray:
        """(n, players, spots): the creatures `player` may choose for each game's effect with a chosen target
        (effects.candidates, CUBE-58)."""
        fields, filled = self._fields_of(games)
        rows = games[:, None, None]
        own = (self._seats == player[:, None])[:, :, None]
        target = self.target[effect][:, None, None]
        keyword = self.keyword[effect][:, None, None]
        pool = filled & np.where(target == OWN_ANY, own, ~own)
        pool &= (target != ENEMY_GUARD) | (self._spots == 0)
        kind = self.upgrade_kind[effect][:, None, None]
        armed = ((kind != 1) & (self.weapon[rows, fields] != self.none)) | \
            ((kind != 0) & (self.armor[rows, fields] != self.none))
        pool &= (keyword != DESTROY_UPGRADE) | armed
        pool &= (keyword != SWAP_GUARD) | (self._spots != 0)
        pool &= (keyword != RESET_POWER) | self.used[rows, fields]
        pool &= (keyword != HEAL) | (self.damage[rows, fields] > 0)
        candidates: np.ndarray = pool
        return candidates

    def _playable_tests(self, games: np.ndarray, player: np.ndarray) -> np.ndarray:
        """(n, PLAYABLE_TESTS): each of effects.playable_test's tests for `player` (CUBE-58), by its index, so
        that an effect is playable where `tests[:, effect_test[effect]]` holds."""
        fields, filled = self._fields_of(games)
        rows = games[:, None]
        enemy = filled & (self._seats != player[:, None])[:, :, None]
        own = self.field[games, player]
        rows3 = games[:, None, None]
        weapon = (enemy & (self.weapon[rows3, fields] != self.none)).any(axis=(1, 2))
        armor = (enemy & (self.armor[rows3, fields] != self.none)).any(axis=(1, 2))
        behind = ((self.field_count[games] > 1) & (self._seats != player[:, None])).any(axis=1)
        tests = np.zeros((len(games), len(PLAYABLE_TESTS)), bool)
        tests[:, ALWAYS] = True
        tests[:, ENEMY_IN_PLAY] = enemy.any(axis=(1, 2))
        tests[:, OWN_DAMAGED] = (self.damage[rows, own] > 0).any(axis=1)
        tests[:, OWN_POWER_USED] = self.used[rows, own].any(axis=1)
        tests[:, ENEMY_BEHIND_GUARD] = behind
        tests[:, ENEMY_WEAPON] = weapon
        tests[:, ENEMY_ARMOR] = armor
        tests[:, ENEMY_UPGRADE] = weapon | armor
        tests[:, ROOM_TO_WIDEN] = self.limits[games, player] < MAX_SPOTS
        return tests

    def legal_mask(self, games: np.ndarray | None = None) -> np.ndarray:
        """(N, actions) booleans: the current player's legal actions (none once a game is over); with
        `games` (indices), the rows of those games only."""
        games = self._rows if games is None else games
        if self._kernel is not None:
            out = np.empty((len(games), self.num_actions), bool)
            self._kernel.legal_mask(self._kernel_ints, self._kernel_arrays, np.ascontiguousarray(games, np.int64), out)
            return out
        mask = np.zeros((len(games), self.num_actions), bool)
        phase = self.phase[games]
        for which in np.flatnonzero(np.bincount(phase, minlength=len(tensor.PHASES))).tolist():
            fill = self._masks.get(which)
            if fill is not None:
                rows = phase == which
                mask[rows] = fill(games[rows])
        return mask

    def _hand(self, games: np.ndarray, seats: np.ndarray, cards: np.ndarray) -> np.ndarray:
        """(n, k) whether each seat holds each of `cards`."""
        held: np.ndarray = self.place[games][:, cards] == (self.HAND + seats)[:, None]
        return held

    def _place_mask(self, games: np.ndarray) -> np.ndarray:
        mask = np.zeros((len(games), self.num_actions), bool)
        mask[:, self.creature_plays] = self._hand(games, self.current[games], self.creatures)
        return mask

    def _main_mask(self, games: np.ndarray) -> np.ndarray:
        """CUBE-19: every main-phase part not yet used this turn, then the attack (CUBE-37) or end turn
        (CUBE-55) (flow.main_actions)."""
        n = len(games)
        mask = np.zeros((n, self.num_actions), bool)
        player = self.current[games]
        done = self.done[games]
        count = self.field_count[games, player]
        hand = self.place[games] == (self.HAND + player)[:, None]
        own = self.field[games, player]  # (n, spots)
        filled = own != self.none
        # CUBE-22, CUBE-23: one creature card a turn, up to the battlefield's limit; CUBE-26: one action card;
        # CUBE-27: one upgrade, once a creature is in play.
        wanted = np.empty((n, 3), bool)
        wanted[:, CREATURE] = ((done & DID_CREATURE) == 0) & ((count == 0) | (count < self.limits[games, player]))
        wanted[:, ACTION] = (done & DID_ACTION) == 0
        wanted[:, UPGRADE] = ((done & DID_UPGRADE) == 0) & (count > 0)
        # CUBE-58: an action card while it has something to act on (a creature's play: the test "always").
        tests = self._playable_tests(games, player)
        plays = hand[:, self.played_cards] & wanted[:, self.played_types] & tests[:, self.played_tests]
        mask[:, self.played_actions] = plays
        creatures = plays[:, :len(self.creature_plays)]
        # CUBE-28: an upgrade goes under a creature without one of its kind.
        rows = games[:, None]
        free = np.stack([filled & (self.weapon[rows, own] == self.none), filled & (self.armor[rows, own] == self.none)])
        upgrades = hand[:, self.upgrades] & wanted[:, UPGRADE, None]
        mask[:, self.attach_index] = upgrades[:, :, None] & free[self.upgrade_slot].transpose(1, 0, 2)
        # CUBE-32, CUBE-33, CUBE-58: each creature power once per game, while it has something to act on.
        if self.game.powers_in_play:
            powers = self.card_power[own]
            ready = ((done & DID_POWER) == 0)[:, None] & filled & ~self.used[rows, own]
            mask[:, self.power_index] = ready & np.take_along_axis(tests, self.effect_test[powers], axis=1)
        # CUBE-34: swap the Guard with another creature once a turn.
        mask[:, self.guard_index] = (((done & DID_GUARD) == 0)[:, None] & filled[:, 1:])
        # CUBE-38, CUBE-35, CUBE-37: any creature of yours attacks an enemy Guard (any enemy creature after a card
        # says so).
        _, targets = self._fields_of(games)
        targets &= (self._seats != player[:, None])[:, :, None]
        targets &= self.attack_any[games][:, None, None] | (self._spots == 0)
        attacks = targets[:, :, :, None] & filled[:, None, None, :]
        start, size = self.attack_index.min(), self.attack_index.size
        mask[:, start:start + size] = attacks.reshape(n, size)
        mask[:, self.end_turn_index] = ~attacks.reshape(n, size).any(axis=1)  # CUBE-55
        # CUBE-20, CUBE-25: an empty battlefield must get a creature first.
        must = (count == 0) & creatures.any(axis=1)
        if np.count_nonzero(must):
            mask[must] = False
            mask[np.ix_(np.flatnonzero(must), self.creature_plays)] = creatures[must]
        return mask

    def _target_mask(self, games: np.ndarray) -> np.ndarray:
        mask = np.zeros((len(games), self.num_actions), bool)
        effect = self._pending_effect(games)
        pool = self._candidates(games, self.current[games], effect)
        start = self.target_index.min()
        mask[:, start:start + self.players * MAX_SPOTS] = pool.reshape(len(games), self.players * MAX_SPOTS)
        return mask

    def _respond_mask(self, games: np.ndarray) -> np.ndarray:
        mask = np.zeros((len(games), self.num_actions), bool)
        responder = self._first_asked(games)
        mask[:, self.react_index] = self._hand(games, responder, self.reactions) & self._reactions_apply(games)
        mask[:, self.pass_index] = True
        return mask

    def _reactions_apply(self, games: np.ndarray) -> np.ndarray:
        """(n, reactions): CUBE-51, whether each reaction card answers the open window while it can still
        change something (flow.reaction_applies)."""
        window = self.window[games][:, None]
        keyword, target = self.reaction_keyword, self.reaction_target
        called_off = self._attack_called_off(games)[:, None]
        prevented = self.prevented[games][:, None]
        hurt = (self.damage[games, self.defender[games]] > 0)[:, None]
        applies = np.where(keyword == CANCEL_EFFECT, ~self.cancelled[games][:, None],
                           np.where((window == ATTACK_WINDOW) & called_off, False,
                                    np.where((keyword == PREVENT_ATTACK) | (keyword == REDUCE_DAMAGE), ~prevented,
                                             np.where(target == DEFENDER, hurt, True))))
        result: np.ndarray = applies & (self.reaction_window == window)
        return result

    def _on_field(self, games: np.ndarray, cards: np.ndarray) -> np.ndarray:
        place = self.place[games, cards]
        on: np.ndarray = (place >= self.FIELD) & (place < self.VICTORY) & (cards != self.none)
        return on

    def _attack_called_off(self, games: np.ndarray) -> np.ndarray:
        # CUBE-51: an attack is off once a creature in it has been defeated (is on no battlefield).
        off: np.ndarray = ~(self._on_field(games, self.attacker[games]) & self._on_field(games, self.defender[games]))
        return off

    def _pending_effect(self, games: np.ndarray) -> np.ndarray:
        effect: np.ndarray = np.where(self.pending_kind[games] == POWER_KIND, self.card_power[self.pending[games]],
                                      self.card_effect[self.pending[games]])
        return effect

    # -- the observation -------------------------------------------------------------------------
    def observation(self, viewers: np.ndarray) -> np.ndarray:
        """(N, D) float32: each game's observation tensor for its seat in `viewers`, the numbers
        `CubeState.observation_tensor` gives (games/cube/tensor.py)."""
        if self._kernel is not None:
            observed = np.empty((self.num_games, self.size), np.float32)
            self._kernel.observation(self._kernel_ints, self._kernel_arrays, np.ascontiguousarray(viewers, np.int64),
                                     observed)
            return observed
        n, players, at, none = self.num_games, self.players, self.at, self.none
        rows = self._rows
        out = np.zeros((n, self.size), np.float32)
        phase = self.phase
        out[rows, at["phase"] + phase] = 1.0
        out[:, at["progress"]] = self.turn / self.turn_limit
        out[:, at["progress"] + 1] = self.discard_count / self.cards
        relative = self.relative[viewers]  # (n, seats): each seat counted from the viewer
        roles = at["seat_roles"] + relative
        seen = (phase != FIRST_PLAYER) & (phase != OVER)
        out[rows[seen], roles[seen, self.current[seen]]] = 1.0
        out[rows, roles[rows, self.first] + players] = 1.0
        to_act = np.where((phase == RESPOND)[:, None], self.asked,
                          ((phase == MAIN) | (phase == PLACE) | (phase == TARGET))[:, None]
                          & (self._seats == self.current[:, None]))
        np.put_along_axis(out, roles + 2 * players, to_act.astype(np.float32), axis=1)
        np.put_along_axis(out, roles + 3 * players, self.out.astype(np.float32), axis=1)
        np.put_along_axis(out, roles + 4 * players, self.winners.astype(np.float32), axis=1)
        counts = at["seat_counts"] + relative
        np.put_along_axis(out, counts, (self.hand_count / self.hand_size).astype(np.float32), axis=1)
        np.put_along_axis(out, counts + players, (self.victory_count / self.win_at).astype(np.float32), axis=1)
        np.put_along_axis(out, counts + 2 * players, (self.limits / MAX_SPOTS).astype(np.float32), axis=1)
        out[:, at["turn_parts"]:at["turn_parts"] + len(TURN_PARTS)] = \
            (self.done[:, None] >> np.arange(len(TURN_PARTS))) & 1
        out[:, at["boost"]] = self.boost / STAT_SCALE
        out[:, at["boost"] + 1] = self.attack_any
        attacking = self.attacker != none
        out[:, at["attack"]] = attacking
        out[:, at["attack"] + 1] = attacking & self.prevented
        out[:, at["attack"] + 2] = np.where(attacking, self.reduce / STAT_SCALE, 0.0)
        pending = self.pending != none
        out[rows[pending], at["pending"] + self.pending_kind[pending]] = 1.0
        out[:, at["pending"] + len(PENDING_KINDS)] = pending & self.cancelled
        windowed = self.window != NO_WINDOW
        out[rows[windowed], at["window"] + self.window[windowed]] = 1.0
        rolled = self.last_roll >= 0
        out[rows[rolled], at["last_roll"] + self.last_roll[rolled]] = 1.0

        # Each card's place as its column, seats counted from the viewer; an action card under way lies in no pile.
        places = self.place[:, :-1].copy()
        unseen_pending = pending & (self.place_columns[viewers, self.place[rows, self.pending]] == 0)
        places[rows[unseen_pending], self.pending[unseen_pending]] = self.under_way
        if (viewers == viewers[0]).all():  # the usual case: the learner's seat in every game
            columns = np.take(self.place_columns[viewers[0]], places)
        else:
            columns = np.take(self.place_columns, (viewers * self.place_columns.shape[1])[:, None] + places)
        flat = out.reshape(-1)
        flat[((rows * self.size)[:, None] + self.card_cells + columns).ravel()] = 1.0  # (a flat index is faster)

        # Creature stats, for every creature on a battlefield (rules.attack_points, max_health, CUBE-6).
        fields = self.field.reshape(-1)
        at_spot = np.flatnonzero(fields != none)  # (game, seat, spot) of every creature in play
        creature = fields[at_spot]
        which = at_spot // (players * MAX_SPOTS)
        spot = at_spot % MAX_SPOTS
        base = which * self.size + at["creature_stats"] + creature * self.stats_width
        attack = self.attack[creature] + self.bonus[self.weapon[which, creature]]
        health = self.health[creature] + self.bonus[self.armor[which, creature]]
        hurt = self.damage[which, creature]
        flat[base] = spot == 0
        flat[base + 1] = spot / MAX_SPOTS
        flat[base + 2] = attack / STAT_SCALE
        flat[base + 3] = (health - hurt) / STAT_SCALE
        flat[base + 4] = health / STAT_SCALE
        flat[base + 5] = hurt / STAT_SCALE
        flat[base + 6] = self.used[which, creature]
        stats = rows * self.size + at["creature_stats"]
        for card, offset, shown in ((self.attacker, 7, attacking), (self.defender, 8, attacking),
                                    (self.pending, 9, pending), (self.pending_target, 10, self.pending_target != none)):
            flat[(stats + card * self.stats_width + offset)[shown]] = 1.0
        return out

    # -- playing ---------------------------------------------------------------------------------
    def step(self, actions: np.ndarray, games: np.ndarray, streams: Draws) -> None:
        """Apply `actions[g]` in each game g of `games` (indices), then roll the die where that leads to it."""
        if self._kernel is not None and counts_itself(streams):
            self._kernel.advance(self._kernel_ints, self._kernel_arrays, streams,
                                 np.ascontiguousarray(actions, np.int64), np.ascontiguousarray(games, np.int64), -1,
                                 False)
            return
        chosen = actions[games]
        player = self.players_to_act(games)
        card = self.action_card[chosen]
        spot = self.action_spot[chosen]
        # A setup placement is a creature's play in phase PLACE.
        handler = np.where((self.phase[games] == PLACE), SETUP_PLACEMENT, self.action_handler[chosen])
        for code in np.flatnonzero(np.bincount(handler, minlength=len(self._handlers))).tolist():
            which = handler == code
            self._handlers[code](games[which], player[which], chosen[which], card[which], spot[which])
        rolling = games[self.phase[games] == ROLL]
        if len(rolling):
            self._roll_attack(rolling, streams.draw(rolling, np.full(len(rolling), len(rules.DIE_FACES))))

    def advance(self, actions: np.ndarray | None, games: np.ndarray, seat: int, streams: Draws) -> None:
        """`step` (where `actions` is given: None for games just dealt), then the seats other than `seat` play
        uniformly random legal actions (the k-th legal index for a drawn k), all from the games' streams, until
        `seat` is asked or the game ends. The compiled kernel does it all in one call, game by game."""
        if self._kernel is not None and counts_itself(streams):
            self._kernel.advance(self._kernel_ints, self._kernel_arrays, streams,
                                 None if actions is None else np.ascontiguousarray(actions, np.int64),
                                 np.ascontiguousarray(games, np.int64), seat, True)
            return
        if actions is not None:
            self.step(actions, games, streams)
        chosen = np.zeros(self.num_games, np.int64)
        while len(games):
            to_act = self.players_to_act(games)
            games = games[(to_act != seat) & (to_act >= 0)]  # a game leaves the loop for good
            if len(games):
                legal = self.legal_mask(games)
                picks = streams.draw(games, legal.sum(axis=1))
                chosen[games] = (np.cumsum(legal, axis=1) <= picks[:, None]).sum(axis=1)
                self.step(chosen, games, streams)

    def _to_discard(self, games: np.ndarray, cards: np.ndarray) -> None:
        """Cards onto the discard pile, in the order listed (one card per game)."""
        self.place[games, cards] = self.DISCARD
        self.discarded_at[games, cards] = self.discard_clock[games]
        self.discard_clock[games] += 1
        self.discard_count[games] += 1

    def _place_creature(self, games: np.ndarray, seats: np.ndarray, creatures: np.ndarray) -> None:
        # CUBE-22: into the first open spot, so the Guard spot is filled first (CUBE-23: up to the limit).
        self.hand_count[games, seats] -= 1
        self.field[games, seats, self.field_count[games, seats]] = creatures
        self.field_count[games, seats] += 1
        self.place[games, creatures] = self.FIELD + seats

    def _place_at_setup(self, games: np.ndarray, seats: np.ndarray, _: np.ndarray, creatures: np.ndarray,
                        __: np.ndarray) -> None:
        self._place_creature(games, seats, creatures)
        more = (self.field_count[games, seats] < flow.PLACED_AT_SETUP) & (self._creatures_in_hand(games, seats) > 0)
        games, seats = games[~more], seats[~more]
        following = (seats + 1) % self.players
        starting = following == self.first[games]
        if np.count_nonzero(starting):
            self._start_turn(games[starting], self.first[games[starting]])
        if np.count_nonzero(starting) < len(starting):
            self._begin_placement(games[~starting], following[~starting])

    def _play_creature(self, games: np.ndarray, seats: np.ndarray, _: np.ndarray, creatures: np.ndarray,
                       __: np.ndarray) -> None:
        # CUBE-22: one creature card a turn.
        self.done[games] |= DID_CREATURE
        self._place_creature(games, seats, creatures)

    def _play_action_card(self, games: np.ndarray, seats: np.ndarray, _: np.ndarray, cards: np.ndarray,
                          __: np.ndarray) -> None:
        # CUBE-26: follow the card's instructions, then discard it (it lies in the discard pile at once).
        self.done[games] |= DID_ACTION
        self.hand_count[games, seats] -= 1
        self._to_discard(games, cards)
        self._begin_effect(games, seats, cards, ACTION_KIND)

    def _attach(self, games: np.ndarray, seats: np.ndarray, _: np.ndarray, upgrades: np.ndarray,
                spots: np.ndarray) -> None:
        # CUBE-27, CUBE-28: one upgrade a turn, under a creature, at most one weapon and one armor each.
        self.done[games] |= DID_UPGRADE
        self.hand_count[games, seats] -= 1
        creature = self.field[games, seats, spots]
        weapon = self.is_weapon[upgrades]
        self.weapon[games[weapon], creature[weapon]] = upgrades[weapon]
        self.armor[games[~weapon], creature[~weapon]] = upgrades[~weapon]
        self.place[games, upgrades] = self.FIELD + seats

    def _use_power(self, games: np.ndarray, seats: np.ndarray, _: np.ndarray, __: np.ndarray,
                   spots: np.ndarray) -> None:
        # CUBE-33: turned sideways (used) as soon as it is used, even if a reaction cancels it.
        self.done[games] |= DID_POWER
        creature = self.field[games, seats, spots]
        self.used[games, creature] = True
        self._begin_effect(games, seats, creature, POWER_KIND)

    def _swap_guard(self, games: np.ndarray, seats: np.ndarray, _: np.ndarray, __: np.ndarray,
                    spots: np.ndarray) -> None:
        # CUBE-34: change your Guard once a turn.
        self.done[games] |= DID_GUARD
        self._change_guard(games, seats, spots)

    def _change_guard(self, games: np.ndarray, seats: np.ndarray, spots: np.ndarray) -> None:
        guard = self.field[games, seats, 0]
        self.field[games, seats, 0] = self.field[games, seats, spots]
        self.field[games, seats, spots] = guard

    def _begin_effect(self, games: np.ndarray, seats: np.ndarray, source: np.ndarray, kind: int) -> None:
        # CUBE-59: choose the target first (when there is a choice), then others may answer (CUBE-51).
        self.pending[games] = source
        self.pending_kind[games] = kind
        self.pending_target[games] = self.none
        self.cancelled[games] = False
        effect = self._pending_effect(games)
        chosen = self.chosen[effect]
        if np.count_nonzero(chosen):
            pool = self._candidates(games[chosen], seats[chosen], effect[chosen])
            flat = pool.reshape(len(pool), self.players * MAX_SPOTS)
            several = flat.sum(axis=1) > 1
            self.phase[games[chosen][several]] = TARGET
            single = games[chosen][~several]
            fields = self.field[single].reshape(len(single), self.players * MAX_SPOTS)
            self.pending_target[single] = fields[np.arange(len(single)), flat[~several].argmax(axis=1)]
            chosen[chosen] = ~several
            opening = games[~self.chosen[effect] | chosen]
        else:
            opening = games
        if len(opening):
            self._open_window(opening, ACTION_WINDOW if kind == ACTION_KIND else POWER_WINDOW)

    def _choose_target(self, games: np.ndarray, _: np.ndarray, chosen: np.ndarray, __: np.ndarray,
                       ___: np.ndarray) -> None:
        owner, spot = self.action_player[chosen], self.action_spot[chosen]
        self.pending_target[games] = self.field[games, owner, spot]
        self._open_window(games, np.where(self.pending_kind[games] == ACTION_KIND, ACTION_WINDOW, POWER_WINDOW))

    def _open_window(self, games: np.ndarray, trigger: int | np.ndarray) -> None:
        # CUBE-51: the window opens to the other players still in the game who hold a card.
        self.window[games] = trigger
        asked = ~self.out[games] & (self.hand_count[games] > 0) & (self._seats != self.current[games][:, None])
        self.asked[games] = asked
        answering = asked.any(axis=1)
        self.phase[games[answering]] = RESPOND
        if np.count_nonzero(answering) < len(answering):
            self._close_window(games[~answering])

    def _close_window(self, games: np.ndarray) -> None:
        trigger = self.window[games]
        self.window[games] = NO_WINDOW
        self.asked[games] = False
        attack = trigger == ATTACK_WINDOW
        if np.count_nonzero(attack) < len(attack):
            self._resolve_effect(games[~attack])
        games = games[attack]
        if len(games):
            off = self.prevented[games] | self._attack_called_off(games)
            self.phase[games[~off]] = ROLL
            if np.count_nonzero(off):
                self._end_attack(games[off])

    def _resolve_effect(self, games: np.ndarray) -> None:
        effect = self._pending_effect(games)
        source, target = self.pending[games], self.pending_target[games]
        self.pending[games] = self.none
        self.pending_kind[games] = 0
        self.pending_target[games] = self.none
        cancelled = self.cancelled[games]
        self.cancelled[games] = False
        running = ~cancelled
        self._run_effects(games[running], self.current[games[running]], effect[running], source[running],
                          target[running])
        still = games[self.phase[games] != OVER]
        self.phase[still] = MAIN

    def _declare_attack(self, games: np.ndarray, seats: np.ndarray, chosen: np.ndarray, _: np.ndarray,
                        __: np.ndarray) -> None:
        # CUBE-37: one creature attacks one enemy creature (the Guard unless a card says otherwise).
        self.attacker[games] = self.field[games, seats, self.action_attacker_spot[chosen]]
        self.defender[games] = self.field[games, self.action_player[chosen], self.action_target_spot[chosen]]
        self.prevented[games] = False
        self.reduce[games] = 0
        self.last_roll[games] = -1
        self._open_window(games, ATTACK_WINDOW)

    def _roll_attack(self, games: np.ndarray, faces: np.ndarray) -> None:
        """CUBE-39, CUBE-40: the die adjusts this attack's points (never below zero); CUBE-42: the result, less
        any reduction from reactions, is subtracted from the defender's health."""
        self.last_roll[games] = faces
        attacker = self.attacker[games]
        points = self.attack[attacker] + self.bonus[self.weapon[games, attacker]] + self.boost[games]
        adjusted = np.where(faces == MISS, 0, np.where(faces == DOUBLE, points * 2,
                                                      np.maximum(0, points + FACE_ADDS[faces])))
        damage = np.maximum(0, adjusted - self.reduce[games])
        hits = damage > 0
        if np.count_nonzero(hits):
            self._deal_damage(games[hits], self.defender[games[hits]], damage[hits], self.current[games[hits]])
        self._end_attack(games)

    def _end_attack(self, games: np.ndarray) -> None:
        self.attacker[games] = self.none
        self.defender[games] = self.none
        self.prevented[games] = False
        self.reduce[games] = 0
        going_on = games[self.phase[games] != OVER]
        if len(going_on):
            self._next_turn(going_on)

    def _end_turn(self, games: np.ndarray, *_: np.ndarray) -> None:
        # CUBE-55: no creature to attack with or no enemy creature to attack: the turn ends without one.
        self._next_turn(games)

    def _react(self, games: np.ndarray, seats: np.ndarray, _: np.ndarray, cards: np.ndarray, __: np.ndarray) -> None:
        # CUBE-47: follow the card's instructions, then discard it; CUBE-48: as many as a player wants.
        self.hand_count[games, seats] -= 1
        self._to_discard(games, cards)
        self._run_effects(games, seats, self.card_effect[cards], cards, np.full(len(games), self.none))
        games = games[self.phase[games] != OVER]
        asked = self.asked[games] & (self.hand_count[games] > 0)
        self.asked[games] = asked
        closing = ~asked.any(axis=1)
        if np.count_nonzero(closing):
            self._close_window(games[closing])

    def _pass_window(self, games: np.ndarray, seats: np.ndarray, *_: np.ndarray) -> None:
        self.asked[games, seats] = False
        closing = ~self.asked[games].any(axis=1)
        if np.count_nonzero(closing):
            self._close_window(games[closing])

    # -- turns -----------------------------------------------------------------------------------
    def _start_turn(self, games: np.ndarray, seats: np.ndarray) -> None:
        # CUBE-19: draw, main phase, attack; CUBE-17: turns go clockwise; CUBE-56: the turn limit.
        self.turn[games] += 1
        late = self.turn[games] > self.turn_limit
        if np.count_nonzero(late):
            self._end_at_turn_limit(games[late])
            games, seats = games[~late], seats[~late]
        self.current[games] = seats
        self.phase[games] = MAIN
        self.done[games] = 0
        self.boost[games] = 0
        self.attack_any[games] = False
        self._draw(games, seats)  # CUBE-21
        empty = (self.field_count[games, seats] == 0) & (self._creatures_in_hand(games, seats) == 0)
        if np.count_nonzero(empty):
            games, seats = games[empty], seats[empty]
            refilled = np.array([self._refill_empty_battlefield(g, s) for g, s in
                                 zip(games.tolist(), seats.tolist(), strict=True)], bool)
            if np.count_nonzero(refilled) < len(refilled):
                self._knock_out(games[~refilled], seats[~refilled])

    def _end_at_turn_limit(self, games: np.ndarray) -> None:
        # CUBE-56: at the turn limit the largest victory pile wins; equal piles share the win.
        piles = self.victory_count[games]
        self._end_game(games, piles == piles.max(axis=1, keepdims=True))

    def _end_game(self, games: np.ndarray, winners: np.ndarray) -> None:
        self.phase[games] = OVER
        self.winners[games] = winners
        self.asked[games] = False

    def _knock_out(self, games: np.ndarray, seats: np.ndarray) -> None:
        # CUBE-54: no creature on the battlefield, in hand, in the deck or the discard pile: out of the game.
        self.out[games, seats] = True
        remaining = ~self.out[games]
        last = remaining.sum(axis=1) == 1
        if np.count_nonzero(last):
            self._end_game(games[last], remaining[last])
        if np.count_nonzero(last) < len(last):
            self._next_turn(games[~last])

    def _next_turn(self, games: np.ndarray) -> None:
        # CUBE-17: clockwise, skipping players who are out (CUBE-54).
        current = self.current[games]
        order = self.seats_after[current]
        playing = ~self.out[games[:, None], order]
        found = playing.any(axis=1)
        seats = np.where(found, order[np.arange(len(games)), playing.argmax(axis=1)], current)
        starting = found | ~self.out[games, current]
        if np.count_nonzero(starting):
            self._start_turn(games[starting], seats[starting])

    # -- cards moving ------------------------------------------------------------------------------
    def _shuffled(self, game: int, cards: list[int]) -> list[int]:
        """The scalar engine's shuffle: the game's next ShuffleSource order, the top card last."""
        source = ShuffleSource(int(self.shuffle_seed[game]), int(self.shuffle_count[game]))
        out = source.shuffled(cards)
        self.shuffle_count[game] = source.count
        return out

    def _reshuffle_discard(self, game: int) -> None:
        # CUBE-52: an empty shared deck is remade from the discard pile, shuffled.
        pile = np.flatnonzero(self.place[game, :-1] == self.DISCARD)
        if not len(pile):
            return
        pile = pile[np.argsort(self.discarded_at[game, pile], kind="stable")]
        deck = self._shuffled(game, pile.tolist())
        self.deck[game, :len(deck)] = deck
        self.deck_count[game] = len(deck)
        self.place[game, deck] = self.DECK
        self.discard_count[game] = 0

    def _draw(self, games: np.ndarray, seats: np.ndarray) -> None:
        # CUBE-21: take one card from the shared deck (CUBE-52 when it is empty).
        for game in games[self.deck_count[games] == 0].tolist():
            self._reshuffle_discard(game)
        drawing = self.deck_count[games] > 0
        games, seats = games[drawing], seats[drawing]
        self.deck_count[games] -= 1
        card = self.deck[games, self.deck_count[games]]
        self.place[games, card] = self.HAND + seats
        self.hand_count[games, seats] += 1

    def _refill_empty_battlefield(self, game: int, seat: int) -> bool:
        """CUBE-25: draw until a creature comes, then shuffle the other cards drawn back into the deck.
        False when no creature is left to draw (CUBE-54)."""
        drawn: list[int] = []
        found = -1
        while True:
            if not self.deck_count[game]:
                self._reshuffle_discard(game)
                if not self.deck_count[game]:
                    break
            self.deck_count[game] -= 1
            card = int(self.deck[game, self.deck_count[game]])
            if self.ctype[card] == CREATURE:
                found = card
                break
            drawn.append(card)
        if drawn:
            deck = self._shuffled(game, self.deck[game, :self.deck_count[game]].tolist() + drawn)
            self.deck[game, :len(deck)] = deck
            self.deck_count[game] = len(deck)
        if found < 0:
            return False
        self.place[game, found] = self.HAND + seat
        self.hand_count[game, seat] += 1
        return True

    def _owner_and_spot(self, games: np.ndarray, creatures: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        owner = self.place[games, creatures] - self.FIELD
        spot = (self.field[games, owner] == creatures[:, None]).argmax(axis=1)
        return owner, spot

    def _deal_damage(self, games: np.ndarray, creatures: np.ndarray, amounts: np.ndarray, by: np.ndarray) -> None:
        """CUBE-42: subtract from the creature's current health; CUBE-45: defeated at zero or less."""
        self.damage[games, creatures] += amounts
        defeated = self._health_left(games, creatures) <= 0
        if np.count_nonzero(defeated):
            self._defeat(games[defeated], creatures[defeated], by[defeated])

    def _health_left(self, games: np.ndarray, creatures: np.ndarray) -> np.ndarray:
        # CUBE-44: damage stays until healed or defeated; CUBE-6: armor adds its bonus.
        left: np.ndarray = self.health[creatures] + self.bonus[self.armor[games, creatures]] - \
            self.damage[games, creatures]
        return left

    def _defeat(self, games: np.ndarray, creatures: np.ndarray, by: np.ndarray) -> None:
        # CUBE-45: the defeated creature goes to the victory pile of whoever defeated it; CUBE-29: its upgrades
        # go to the discard pile; CUBE-53: the creatures behind move up.
        owner, spot = self._owner_and_spot(games, creatures)
        row = self.field[games, owner]
        behind = np.minimum(self._spots + (self._spots >= spot[:, None]), MAX_SPOTS - 1)
        moved = np.take_along_axis(row, behind, axis=1)
        moved[:, -1] = self.none
        self.field[games, owner] = moved
        self.field_count[games, owner] -= 1
        self.place[games, creatures] = self.VICTORY + by
        self.victory_count[games, by] += 1
        for slots in (self.weapon, self.armor):
            upgrade = slots[games, creatures]
            held = upgrade != self.none
            if np.count_nonzero(held):
                self._to_discard(games[held], upgrade[held])
                slots[games[held], creatures[held]] = self.none
        self.damage[games, creatures] = 0
        self.used[games, creatures] = False
        # CUBE-10: the first to defeat enough creatures wins at once.
        won = (self.victory_count[games, by] >= self.win_at) & ~self.winners[games].any(axis=1)
        if np.count_nonzero(won):
            self._end_game(games[won], self._seats == by[won][:, None])

    # -- effects (effects.py) ----------------------------------------------------------------------
    def _run_effects(self, games: np.ndarray, players: np.ndarray, effects: np.ndarray, sources: np.ndarray,
                     targets: np.ndarray) -> None:
        """Each game's effect, by its keyword (CUBE-59): `players` play it from `sources` on `targets`."""
        keyword = self.keyword[effects]
        amount = self.amount[effects]
        target = self.target[effects]
        for code in np.unique(keyword).tolist():
            k = keyword == code
            g, p, a, t, source, chosen = games[k], players[k], amount[k], target[k], sources[k], targets[k]
            if code == DEAL_DAMAGE:
                self._damage_effect(g, p, a, t, chosen)
            elif code == HEAL:
                self._heal_effect(g, p, a, t, source, chosen)
            elif code == DRAW:
                for draw in range(int(a.max())):
                    self._draw(g[a > draw], p[a > draw])
            elif code == DESTROY_UPGRADE:
                self._destroy_upgrade(g, p, self.upgrade_kind[effects[k]], chosen)
            elif code == SWAP_GUARD:
                owner, spot = self._owner_and_spot(g, chosen)
                self._change_guard(g, owner, spot)
            elif code == RESET_POWER:
                self.used[g, chosen] = False  # CUBE-33: a card can reset a used creature power
            elif code == BOOST_ATTACK:
                self.boost[g] += a
            elif code == ATTACK_ANY:
                self.attack_any[g] = True  # CUBE-35: "unless a card says otherwise"
            elif code == EXTRA_SPOT:
                self.limits[g, p] = np.minimum(MAX_SPOTS, self.limits[g, p] + a)  # CUBE-23
            elif code == PREVENT_ATTACK:
                self.prevented[g] = True
            elif code == REDUCE_DAMAGE:
                self.reduce[g] += a
            elif code == CANCEL_EFFECT:
                self.cancelled[g] = True

    def _damage_effect(self, games: np.ndarray, players: np.ndarray, amounts: np.ndarray, target: np.ndarray,
                       chosen: np.ndarray) -> None:
        guards = target == ALL_ENEMY_GUARDS
        for other in range(self.players):  # every enemy Guard, in seat order, until the game is won
            hit = guards & (players != other) & (self.field_count[games, other] > 0) & \
                ~self.winners[games].any(axis=1)
            if np.count_nonzero(hit):
                self._deal_damage(games[hit], self.field[games[hit], other, 0], amounts[hit], players[hit])
        victim = np.where(target == ATTACKER, self.attacker[games], chosen)
        single = ~guards & ((target != ATTACKER) | self._on_field(games, self.attacker[games]))
        if np.count_nonzero(single):
            self._deal_damage(games[single], victim[single], amounts[single], players[single])

    def _heal_effect(self, games: np.ndarray, players: np.ndarray, amounts: np.ndarray, target: np.ndarray,
                     sources: np.ndarray, chosen: np.ndarray) -> None:
        # CUBE-44: healing removes damage, never above the creature's full health.
        own = self.field[games, players]  # (n, spots)
        spots = np.where((target == OWN_ALL)[:, None], own,
                         np.where((target == OWN_GUARD)[:, None] & (self._spots == 0), own, self.none))
        single = np.where(target == SELF, sources, np.where(target == DEFENDER, self.defender[games], chosen))
        single = np.where((target == OWN_ALL) | (target == OWN_GUARD)
                          | ((target == DEFENDER) & ~self._on_field(games, self.defender[games])), self.none, single)
        spots[:, -1] = np.where(single != self.none, single, spots[:, -1])
        healed = np.minimum(amounts[:, None], self.damage[games[:, None], spots])
        np.subtract.at(self.damage, (np.broadcast_to(games[:, None], spots.shape), spots), healed)
        self.damage[:, self.none] = 0

    def _destroy_upgrade(self, games: np.ndarray, players: np.ndarray, kind: np.ndarray,
                         creatures: np.ndarray) -> None:
        for slots, skip in ((self.weapon, 1), (self.armor, 0)):  # the weapon first, then the armor
            upgrade = slots[games, creatures]
            gone = (kind != skip) & (upgrade != self.none)
            if np.count_nonzero(gone):
                self._to_discard(games[gone], upgrade[gone])
                slots[games[gone], creatures[gone]] = self.none
        # Losing armor can leave the damage already taken at or above the health that remains (CUBE-45).
        defeated = self._health_left(games, creatures) <= 0
        if np.count_nonzero(defeated):
            self._defeat(games[defeated], creatures[defeated], players[defeated])
