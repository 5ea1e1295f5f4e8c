"""Crit's Creatures state: flat per-piece arrays and a flat board of tiles.

Pieces are numbered side * 16 + slot: slot 0 the Titan, 1-10 the creatures, 11-15 the items, in the army
file's order. `card`, `side`, `where`, `pos`, `holder` and `held` are indexed by piece; `board` by tile;
`occupancy`, `creature_tiles` and `titan_tiles` hold each side's tiles (all, its creatures', its Titans') as bit
sets (bit t = tile t), for the legal-move generation.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bestiary.core.api import CHANCE, JSON, TERMINAL, Action, State
from bestiary.core.errors import StateFormatError
from bestiary.core.fields import CLEARED, FieldReader, StateFields, one_of, read_fields, state_field
from bestiary.core.fields import integer as integer_field
from bestiary.core.state_format import integer, pick
from bestiary.games.crits import flow, observe, rules, tensor
from bestiary.games.crits.actions import Aim, Attack, Deploy, DropCrown, Move, Pincer, Raise, Split, Use
from bestiary.games.crits.rules import BOARD, DROPPED, EQUIPPED, GRAVEYARD, PLACES, RESERVE, SIDE, Combat

if TYPE_CHECKING:
    from bestiary.games.crits.game import CritsCreatures

# The rules that say who acts in each phase and how, for refusals of actions out of turn or out of phase.
PHASE_RULES = {rules.PLACE: ("CRITS-44",), rules.FIRST_ROLL: ("CRITS-45",), rules.TURN: ("CRITS-5",),
               rules.AIM: ("CRITS-62",), rules.TARGET: ("CRITS-52",), rules.RAISE: ("CRITS-28",),
               rules.RESPOND: ("CRITS-52",), rules.ROLL: ("CRITS-8", "CRITS-59"), rules.COUNTER: ("CRITS-11",),
               rules.OVER: ("CRITS-2", "CRITS-60")}
# The rule of each kind of action, named when it is refused out of its phase.
ACTION_RULES: dict[type, tuple[str, ...]] = {
    Move: ("CRITS-6",), Attack: ("CRITS-55", "CRITS-65"), Pincer: ("CRITS-63",), Split: ("CRITS-62",),
    Aim: ("CRITS-62",), Use: ("CRITS-52",), Deploy: ("CRITS-23", "CRITS-46"), Raise: ("CRITS-28",),
    DropCrown: ("CRITS-40",)}
WORD_RULES = {"end turn": ("CRITS-5",), "counter": ("CRITS-11",), "no counter": ("CRITS-11",),
              "pass": ("CRITS-52",)}


def _per_piece(value: Any) -> Callable[[CritsState], list[Any]]:
    return lambda state: [value] * (2 * SIDE)


def _pair(value: Any) -> Callable[[CritsState], list[Any]]:
    return lambda state: [value, value]


def _empty(state: CritsState) -> list[Any]:
    return []


def _write_pieces(state: CritsState, card: list[int]) -> JSON:
    # keyed by piece number, so that a scenario's edits can change one piece
    cards, tile = state.game.cards, state.tile_name
    return {str(p): {"card": cards[card[p]].id, "side": state.side[p], "where": PLACES[state.where[p]],
                     "tile": tile(state.pos[p]) if state.pos[p] >= 0 else None, "holder": state.holder[p],
                     "used": state.used[p], "lasts": state.lasts[p]}
            for p in range(2 * SIDE)}


def _read_pieces(reader: FieldReader, key: str) -> list[int]:
    """The per-piece arrays, and what follows from them: who holds what, the board, the activators."""
    game, state, pieces = reader.game, reader.state, reader.raw[key]
    if not isinstance(pieces, dict) or sorted(pieces, key=int) != [str(p) for p in range(2 * SIDE)]:
        raise StateFormatError(f"'pieces' must map each piece number 0 to {2 * SIDE - 1} to its entry")
    for p in range(2 * SIDE):
        entry = pieces[str(p)]
        card = game.card_index.get(entry["card"])
        if card is None:
            raise StateFormatError(f"pieces[{p}]: no card '{entry['card']}'")
        state.card[p] = card
        state.side[p] = integer(entry, "side", 0, 1)
        state.where[p] = PLACES.index(pick(entry, "where", PLACES))
        state.pos[p] = _tile(game, entry.get("tile"), f"pieces[{p}].tile")
        state.holder[p] = integer(entry, "holder", -1, 2 * SIDE - 1)
        state.used[p] = bool(entry.get("used", False))
        state.lasts[p] = integer(entry, "lasts", 0, 1000) if "lasts" in entry else 0
    for p in range(2 * SIDE):
        if state.holder[p] >= 0:
            if state.where[p] != EQUIPPED:
                raise StateFormatError(f"pieces[{p}] has a holder but is not 'equipped'")
            state.held[state.holder[p]] = p
        if (state.where[p] in (BOARD, DROPPED)) != (state.pos[p] >= 0):
            raise StateFormatError(f"pieces[{p}] is {PLACES[state.where[p]]}: a tile goes with 'board' and "
                                   "'dropped' only")
        if state.where[p] == BOARD:
            if state.board[state.pos[p]] >= 0:
                raise StateFormatError(f"two pieces stand on {state.tile_name(state.pos[p])}")
            state.put(p, state.pos[p])
    state.activators = game.activators(state.card)
    return list(state.card)


def _tiles(state: CritsState, tiles: list[int]) -> list[str | None]:
    return [state.tile_name(t) if t >= 0 else None for t in tiles]


def _read_tiles(reader: FieldReader, key: str) -> list[int]:
    return [_tile(reader.game, t, key) for t in reader.raw.get(key, [])]


def _read_first_rolls(reader: FieldReader, key: str) -> list[int]:
    # CRITS-45: each roll-off die is a d20, or -1 before it is rolled
    rolls = [integer({key: v}, key, -1, 20) for v in reader.raw.get(key, [-1, -1])]
    if len(rolls) != 2 or 0 in rolls:
        raise StateFormatError("'first_rolls' must hold two rolls of a d20 (1 to 20), -1 for one not rolled yet")
    return rolls


def _optional(default: Any, convert: Callable[[Any], Any]) -> Callable[[FieldReader, str], Any]:
    """A value older saved states may lack."""
    return lambda reader, key: convert(reader.raw.get(key, default))


def _numbers(values: Any) -> list[int]:
    return [int(v) for v in values]


class CritsState(StateFields, State):
    game: CritsCreatures

    phase: rules.Phase = state_field(rules.FIRST_ROLL, read=one_of(rules.PHASES))
    player: int = state_field(0, read=integer_field(0, 1))
    turn: int = state_field(0, read=integer_field(0, 10**6))
    # Per piece (see the module's text); saved together under "pieces".
    card: list[int] = state_field(lambda state: list(state.game.start_cards), key="pieces", write=_write_pieces,
                                  read=_read_pieces)
    side: list[int] = state_field(lambda state: [p // SIDE for p in range(2 * SIDE)], key=None)
    where: list[int] = state_field(_per_piece(RESERVE), key=None)
    pos: list[int] = state_field(_per_piece(-1), key=None)
    holder: list[int] = state_field(_per_piece(-1), key=None)
    held: list[int] = state_field(_per_piece(-1), key=None)
    used: list[bool] = state_field(_per_piece(False), key=None)
    lasts: list[int] = state_field(_per_piece(0), key=None)
    # What follows from the pieces, kept for the legal-move generation.
    board: list[int] = state_field(lambda state: [-1] * state.game.tiles, key=None)
    occupancy: list[int] = state_field(_pair(0), key=None)
    creature_tiles: list[int] = state_field(_pair(0), key=None)
    titan_tiles: list[int] = state_field(_pair(0), key=None)
    # Each side's creatures and Titans on the board, in piece order: the pieces that may move or attack.
    fighters: list[list[int]] = state_field(lambda state: [[], []], key=None)
    # Each side's Deploy actions for the Split Second cards it holds off the board (None: not listed yet).
    deploys: list[tuple[Action, ...] | None] = state_field(_pair(None), key=None, compare=False)
    activators: Any = state_field(lambda state: state.game.activators(state.card), key=None)
    king: list[int] = state_field(_pair(-1), key="kings", read=lambda reader, key: [
        integer({"k": k}, "k", -1, 2 * SIDE - 1) for k in reader.raw[key]])
    crown: list[int] = state_field(_pair(-1), key="crowns", write=_tiles, read=_read_tiles)
    kingless: list[int] = state_field(_pair(0), read=lambda reader, key: _numbers(reader.raw[key]))
    king_fell_this_turn: bool = state_field(False, read=_optional(False, bool))
    moved: int = state_field(0, read=_optional(0, int))
    moved_last: list[int] = state_field(_pair(0), read=_optional([0, 0], _numbers))
    moves_made: int = state_field(0, read=integer_field(0, 2 * SIDE))
    attacked: bool = state_field(False, read=_optional(False, bool))
    counter_used: bool = state_field(False, read=_optional(False, bool))
    first_rolls: list[int] = state_field(_pair(-1), read=_read_first_rolls)
    actor: int = state_field(-1, read=_optional(-1, int))
    chosen: int = state_field(-1, read=_optional(-1, int))
    source: int = state_field(-1, read=_optional(-1, int))
    aims: list[int] = state_field(_empty, write=lambda state, aims: [state.tile_name(t) for t in aims],
                                  read=_read_tiles)
    combats: list[Combat] = state_field(_empty, write=lambda state, combats: [list(c) for c in combats],
                                        read=_optional([], lambda combats: [Combat(*_numbers(c)) for c in combats]))
    # The combat under way (attacker, target, dice, counter), or the attacker alone while a split attack is aimed.
    current: list[int] = state_field(_empty, read=_optional([], _numbers))
    stage: int = state_field(0, read=_optional(0, int))
    todo: list[int] = state_field(_empty, read=_optional([], _numbers))
    rolled: list[int] = state_field(_empty, read=_optional([], _numbers))
    attack_total: int = state_field(0, read=_optional(0, int))
    winner: int = state_field(-1, read=_optional(-1, int))
    reason: str = state_field("", read=_optional("", str))
    _legal: list[Action] | None = state_field(None, key=None, copy=CLEARED)

    @classmethod
    def setup(cls, game: CritsCreatures, seed: int | None) -> CritsState:
        state = cls(game, seed)
        for player, army in enumerate(game.armies):
            base = player * SIDE
            for item_slot, creature_slot in army.equips:
                # CRITS-35: equipment goes on eligible creatures before any combat.
                item, creature = base + 11 + item_slot, base + 1 + creature_slot
                state.where[item] = EQUIPPED
                state.holder[item] = creature
                state.held[creature] = item
            king = base + 1 + army.king
            state.king[player] = king  # CRITS-38, CRITS-43
            state.place_army(player, king)
            state._log("army", f"{rules.seat(player)} brings {army.name}; King: {game.cards[state.card[king]].name}.",
                       rules=("CRITS-42", "CRITS-38", "CRITS-44"), player=player, faction=army.name)
            held_back = [p for p in range(base, base + SIDE) if state.where[p] == RESERVE]
            if held_back:
                state._log("reserve", f"{rules.seat(player)} holds {len(held_back)} Split Second card(s) off the "
                           "board.", rules=("CRITS-23", "CRITS-46"))
                state._log("reserve", f"{rules.seat(player)} holds off the board: "
                           + ", ".join(state.card_name(p) for p in held_back) + ".", audience=(player,),
                           rules=("CRITS-23", "CRITS-46"))
        if game.options.placement == "manual":
            state.phase = rules.PLACE
            state.player = 0
        else:
            flow.begin(state)
        return state

    def place_army(self, player: int, king: int) -> None:
        """CRITS-18, CRITS-30, CRITS-44: the preset layout behind the red line: fighters in the front rows
        from the centre outwards, the King and the Titan behind them, standing items at the back."""
        game = self.game
        width, depth = game.width, game.options.start_depth
        rows = range(game.length - depth, game.length) if player == 1 else range(depth - 1, -1, -1)
        centre = sorted(range(width), key=lambda c: (abs(2 * c - width + 1), c))
        tiles = [r * width + c for r in rows for c in centre]
        base = player * SIDE
        fighters, titan, items = [], [], []
        for piece in range(base, base + SIDE):
            if self.where[piece] == EQUIPPED:
                continue
            if "split-second" in game.effects[self.card[piece]]:
                continue  # CRITS-46: kept off the board
            if game.kind[self.card[piece]] == "item":
                items.append(piece)
            elif piece == base:
                titan.append(piece)
            elif piece != king:
                fighters.append(piece)
        manual = game.options.placement == "manual"
        for piece, tile in zip([*fighters, *titan, king, *items], tiles, strict=False):
            if manual:
                self.where[piece] = rules.WAITING
                continue
            self.put(piece, tile)

    # -- the board -------------------------------------------------------------------------------
    def put(self, piece: int, tile: int) -> None:
        if self.where[piece] == RESERVE:
            self.deploys[self.side[piece]] = None
        self.where[piece] = BOARD
        self.pos[piece] = tile
        self.board[tile] = piece
        if self._flip(piece, 1 << tile):
            insort(self.fighters[self.side[piece]], piece)

    def shift(self, piece: int, tile: int) -> None:
        """Move a piece on the board to another tile."""
        origin = self.pos[piece]
        self.board[origin] = -1
        self.board[tile] = piece
        self.pos[piece] = tile
        self._flip(piece, 1 << origin | 1 << tile)

    def lift(self, piece: int) -> None:
        """Take a piece off its tile; the caller says where it goes."""
        tile = self.pos[piece]
        self.board[tile] = -1
        if self._flip(piece, 1 << tile):
            self.fighters[self.side[piece]].remove(piece)

    def _flip(self, piece: int, bits: int) -> bool:
        """Flip `bits` (tiles the piece leaves or enters) in the bit sets that hold the piece's tile; whether the
        piece is a creature or a Titan."""
        side, kind = self.side[piece], self.game.kind[self.card[piece]]
        self.occupancy[side] ^= bits
        if kind == "creature":
            self.creature_tiles[side] ^= bits
            return True
        if kind == "titan":
            self.titan_tiles[side] ^= bits
            return True
        return False

    # -- small queries used by the rules --------------------------------------------------------
    def on_board(self, piece: int) -> bool:
        return self.where[piece] == BOARD

    def moved_last_turn(self, piece: int) -> bool:
        # CRITS-24: "this turn" for the player on turn; the owner's last turn for the other side (option
        # root_turn="current": the turn in progress, in which the other side's pieces have not moved).
        side = self.side[piece]
        if side != self.player and self.game.options.root_turn == "current":
            return False
        mask = self.moved if side == self.player else self.moved_last[side]
        return bool(mask >> piece & 1)

    def dropped_at(self, tile: int) -> list[int]:
        if self.pos.count(tile) <= (self.board[tile] >= 0):  # only the piece standing there, if any
            return []
        return [p for p in range(2 * SIDE) if self.where[p] == DROPPED and self.pos[p] == tile]

    def graveyard(self, player: int) -> list[int]:
        return [p for p in range(player * SIDE, player * SIDE + SIDE) if self.where[p] == GRAVEYARD]

    def card_name(self, piece: int) -> str:
        return self.game.cards[self.card[piece]].name

    def piece_id(self, piece: int) -> str:
        """The card id of a piece, for the event log."""
        return self.game.cards[self.card[piece]].id

    def name(self, piece: int) -> str:
        return self.game.seat_names[self.side[piece]][self.card[piece]]

    def tile_name(self, tile: int) -> str:
        return self.game.tile_names[tile]

    def usable_effects(self, player: int) -> list[tuple[int, bool]]:
        """(piece, held item?) pairs whose activated effect has a target now."""
        out = []
        where, side, has_target = self.where, self.side, rules.has_effect_target
        for piece in self.activators:  # an item picked up changes side with its holder
            if side[piece] == player:
                place = where[piece]
                if place in (BOARD, EQUIPPED) and has_target(self, piece):
                    out.append((piece, place == EQUIPPED))
        return out

    def deployable(self, player: int) -> list[int]:
        if RESERVE not in self.where[player * SIDE:player * SIDE + SIDE] \
                or not self.game.zone_tiles[player] & ~(self.occupancy[0] | self.occupancy[1]):
            return []
        return [p for p in range(player * SIDE, player * SIDE + SIDE) if self.where[p] == RESERVE]

    def can_respond(self, player: int) -> bool:
        return bool(self.deployable(player) or self.usable_effects(player))

    # -- whose move ------------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase == rules.TURN:
            return self.player
        if phase in rules.CHANCE_PHASES:
            return CHANCE
        if phase == rules.OVER:
            return TERMINAL
        if phase in (rules.AIM, rules.PLACE):
            return self.player
        return self.actor

    def is_terminal(self) -> bool:
        return self.phase == rules.OVER

    def is_chance_node(self) -> bool:
        return self.phase in rules.CHANCE_PHASES

    def __getstate__(self) -> JSON:
        fields = super().__getstate__()
        # the game's own action objects, compared by identity: listed anew after unpickling
        fields["_legal"] = None
        fields["deploys"] = [None, None]
        return fields

    def _legal_actions(self, player: int) -> Sequence[Action]:
        if self._legal is None:
            self._legal = flow.legal_actions(self)
        return self._legal

    def _illegal_reason(self, action: Action, player: int) -> tuple[str, tuple[str, ...]]:
        if isinstance(action, Move) and self.phase == rules.TURN:
            return self._why_no_move(action, player)
        if self.phase == rules.RESPOND:
            return ("an attack is declared and waits for your answer (CRITS-52): use an effect, deploy a Split "
                    "Second card, or pass"), ("CRITS-52",)
        if self.phase == rules.COUNTER:
            return "your piece held (CRITS-11): 'counter' or 'no counter'", ("CRITS-11",)
        if isinstance(action, Attack | Split | Pincer) and self.phase == rules.TURN and self.attacked:
            return "you have already attacked this turn (one attack a turn)", ("CRITS-55",)
        if isinstance(action, Attack) and self.phase == rules.TURN:
            return ("no such attack: one attack a turn, at an orthogonally adjacent enemy (or along a clear row "
                    "or column for a ranged piece), never diagonally"), ("CRITS-65", "CRITS-51")
        reason, _ = super()._illegal_reason(action, player)
        kind = ACTION_RULES.get(type(action), ()) or WORD_RULES.get(getattr(action, "text", ""), ())
        return reason, self._turn_rules() + kind

    def _turn_rules(self) -> tuple[str, ...]:
        return PHASE_RULES[self.phase]

    def _why_no_move(self, action: Move, player: int) -> tuple[str, tuple[str, ...]]:
        """Why `move FROM TO` is refused, in the rule book's terms (CRITS-5, CRITS-6, CRITS-7, CRITS-56)."""
        game = self.game
        origin, to = game.tile_index.get(action.origin, -1), game.tile_index.get(action.to, -1)
        piece = self.board[origin] if origin >= 0 else -1
        if piece < 0 or self.side[piece] != player:
            return f"no piece of yours stands on {action.origin}", ("CRITS-6",)
        name, card = self.name(piece), self.card[piece]
        if game.kind[card] == "item":
            return f"{name} does not move (items stay where they are placed)", ("CRITS-31",)
        if not game.moves[card]:
            return f"{name} does not move (no M:)", ("CRITS-6",)
        if self.moved >> piece & 1:
            return f"{name} has already moved this turn (each piece moves once a turn)", ("CRITS-56",)
        if self.moves_made >= rules.MOVES_PER_TURN and not rules.moves_freely(self, piece):
            return f"{rules.MOVES_PER_TURN} pieces have moved this turn, the most a turn allows", ("CRITS-56",)
        if to < 0 or self.board[to] >= 0:
            return f"{action.to} is not free", ("CRITS-6",)
        own, occupied = self.occupancy[player], self.occupancy[0] | self.occupancy[1]
        passable = game.all_tiles & ~occupied | (0 if game.options.allies_block else own)
        cost = rules.path_cost(self, origin, to, passable)
        if cost is None:
            return f"no way to {action.to}: pieces block every path (no passing through pieces)", ("CRITS-6",)
        return (f"too far: M:{game.moves[card]}, and {action.to} costs {cost} (a diagonal step costs 2, "
                "an orthogonal one 1)"), ("CRITS-6", "CRITS-7")

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        phase = self.phase
        if phase == rules.ROLL:
            return list(self.game.roll_odds[self.todo[0]])
        if phase == rules.FIRST_ROLL:
            # CRITS-45: P2's die never ties P1's: the 19 other faces, each as likely, are exactly the odds of
            # re-rolling ties, and no run of ties can go on for ever.
            first = self.first_rolls[0]
            return list(self.game.roll_off_odds[first] if first >= 0 else self.game.roll_odds[20])
        return []

    # -- applying actions ------------------------------------------------------------------------
    def _apply(self, action: Action, player: int) -> None:
        self._legal = None
        flow.apply(self, action, player)

    # -- results -------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        if self.phase != rules.OVER or self.winner == rules.DRAW:
            return [0.0, 0.0]
        return [1.0 if p == self.winner else -1.0 for p in range(2)]

    def result(self) -> JSON:
        out = super().result()
        if self.phase == rules.OVER:
            out.update(winner=None if self.winner == rules.DRAW else self.winner, reason=self.reason)
        return out

    # -- what players see ------------------------------------------------------------------------
    def observation(self, player: int | None) -> JSON:
        return observe.observation(self, player)

    def observation_tensor(self, player: int) -> np.ndarray:
        return tensor.observe(self, player)

    def determinize(self, player: int, rng: random.Random) -> CritsState:
        # The only hidden thing: which Split Second cards the other player holds off the board.
        other = self.clone()
        pools = self.game.split_second_cards
        for piece in range((1 - player) * SIDE, (2 - player) * SIDE):
            if other.where[piece] == RESERVE:
                other.card[piece] = rng.choice(pools[self.game.kind[self.card[piece]]])
        other.activators = self.game.activators(other.card)
        other.deploys[1 - player] = None
        return other

    # -- (de)serialising (copying and writing come from the field declarations) ----------------------
    @classmethod
    def from_dict(cls, game: CritsCreatures, raw: JSON, seed: int | None) -> CritsState:
        state = cls(game, seed)
        read_fields(state, raw)
        if state.phase == rules.ROLL and not state.todo:
            raise StateFormatError("phase 'roll' needs 'todo', the dice still to roll")
        return state


def _tile(game: CritsCreatures, name: Any, where: str) -> int:
    if name is None or name == "":  # "" stands for none in TOML scenarios, which have no null
        return -1
    tile = game.tile_index.get(name) if isinstance(name, str) else None
    if tile is None:
        raise StateFormatError(f"'{where}': no tile named {name!r} on a {game.width} x {game.length} board")
    return tile
