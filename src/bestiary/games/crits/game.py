"""Crit's Creatures as a Bestiary game: options, card set, armies, board geometry and action tables."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import Field, model_validator

from bestiary.core.api import (
    JSON,
    Action,
    Game,
    GameInfo,
    GameOptions,
    OnlineRange,
    Payoffs,
    normalise_action_text,
)
from bestiary.core.cards import CardSet
from bestiary.core.chance import fresh_seed
from bestiary.core.compiled import compiled
from bestiary.core.effects import Effect
from bestiary.core.errors import ActionParseError, OptionError, StateFormatError, UnreachableActionError
from bestiary.games.crits import render, tensor
from bestiary.games.crits.actions import Aim, Attack, Deploy, DropCrown, Move, Pincer, Raise, Roll, Split, Use, Word
from bestiary.games.crits.armies import Army, ArmyError, preset_names, read_army
from bestiary.games.crits.cards import DIE_SIZES, STARTER_CARDS, CritsCard, load_crits_cards, piece_face
from bestiary.games.crits.effects import ACTIVATED, EFFECTS
from bestiary.games.crits.heuristic import CritsHeuristic
from bestiary.games.crits.rules import moves_freely
from bestiary.games.crits.state import CritsState

if TYPE_CHECKING:
    from bestiary.games.crits._turn import TurnTables

PIECES_PER_SIDE = 16  # CRITS-42: 1 Titan, 10 creatures, 5 items
ORTHOGONAL = ((0, 1), (0, -1), (1, 0), (-1, 0))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))


class CritsOptions(GameOptions):
    players: int = Field(2, ge=2, le=2, description="Crit's Creatures is a two-player game")
    width: int = Field(10, ge=4, le=26, description="tiles across the board (columns A, B, ...)")
    length: int = Field(30, ge=6, le=60, description="tiles from one player's edge to the other's (rows 1, 2, ...)")
    start_depth: int = Field(3, ge=1, le=10, description="rows behind each player's red line (the start zone)")
    armies: tuple[str, str] = Field(("grave-legion", "verdant-host"),
                                    description="each player's army: a preset name or an army file (TOML)")
    cards: str | None = Field(None, description="path to a card file (default: the starter set)")
    first_player: int | Literal["roll"] = Field(
        "roll", description="'roll' for the d20 roll-off, or the seat that goes first")
    placement: Literal["preset", "manual"] = Field(
        "preset", description="'preset': the army's standard layout; 'manual': each player places every piece")
    allies_block: bool = Field(True, description="a piece cannot move through a tile its own side stands on")
    counter_reach: Literal["own", "any"] = Field(
        "own", description="'own': a counter-attack needs the defender's own reach (adjacent for melee, its range "
                           "for ranged); 'any': a defender that holds may counter-attack at any distance")
    kingless_turns: Literal["after-fall", "with-fall"] = Field(
        "after-fall", description="'after-fall': three of the owner's turns after the King falls; 'with-fall': "
                                  "the owner's turn in which the King fell counts as the first")
    titan_moves: Literal["counted", "free"] = Field(
        "counted", description="'counted': the Titan is one of the five pieces that may move a turn; 'free': its "
                               "move is not counted (Titans 'are not considered creatures')")
    root_turn: Literal["owners-last", "current"] = Field(
        "owners-last", description="Root's 'this turn' for a piece attacked on the other player's turn: "
                                   "'owners-last': its owner's last turn; 'current': the turn in progress, in "
                                   "which it has not moved, so it is always rooted")
    turn_limit: int = Field(120, ge=2, le=10_000,
                            description="turns (both players' together) after which the game is a draw")

    @model_validator(mode="after")
    def _fits(self) -> CritsOptions:
        if 2 * self.start_depth >= self.length:
            raise ValueError(f"start_depth {self.start_depth} leaves no room between the red lines on a board "
                             f"{self.length} long")
        if self.width * self.start_depth < PIECES_PER_SIDE:
            raise ValueError(f"a start zone of {self.width} x {self.start_depth} tiles cannot hold an army's "
                             f"{PIECES_PER_SIDE} pieces")
        if isinstance(self.first_player, int) and self.first_player not in (0, 1):
            raise ValueError("first_player must be 0, 1 or 'roll'")
        return self


class CritsCreatures(Game):
    info = GameInfo(
        name="crits-creatures", title="Crit's Creatures", rules_version="1.0", player_counts=(2,),
        summary="Miniatures battle on a tile board: move up to five pieces, attack once, roll dice; "
                "dethrone the enemy King and keep them from crowning a new one for three turns.",
        chance="explicit", information="imperfect", rules_doc="crits-creatures.md",
        payoffs=Payoffs("zero-sum", -1.0, 1.0, return_sum=0.0),  # a win +1, a loss -1, a draw 0 each
        # the largest board (26 by 60) takes 3 s and 35 MB to build, the default (10 by 30) 0.5 s and 5 MB
        # (docs/reliability.md)
        online_ranges=(OnlineRange("width", 4, 12), OnlineRange("length", 6, 36),
                       OnlineRange("start_depth", 1, 5)))
    Options = CritsOptions
    options: CritsOptions

    def __init__(self, options: CritsOptions) -> None:
        self.options = options
        self.card_set: CardSet[CritsCard] = load_crits_cards(options.cards or STARTER_CARDS)
        try:
            self.armies: tuple[Army, Army] = (read_army(options.armies[0], self.card_set),
                                              read_army(options.armies[1], self.card_set))
        except ArmyError as error:
            raise OptionError(f"crits-creatures: {error}") from None
        self._build_cards()
        self._build_board()
        self._build_actions()
        turn = compiled("bestiary.games.crits._turn")
        self.turn_tables: TurnTables | None = None if turn is None else turn.TurnTables(self._turn_tables())
        self._heuristic: CritsHeuristic | None = None
        self._start: CritsState | None = None
        super().__init__(options)

    # -- card tables (index = position in the card file) ----------------------------------------
    def _build_cards(self) -> None:
        cards = self.card_set.cards
        self.cards = cards
        self.card_index = {c.id: i for i, c in enumerate(cards)}
        self.kind = tuple(c.kind for c in cards)
        self.moves = tuple(c.move for c in cards)
        self.attack_dice = tuple(c.attack_dice for c in cards)
        self.defence_dice = tuple(c.defence_dice for c in cards)
        self.reach = tuple(c.range for c in cards)
        self.royal = tuple(c.royal for c in cards)
        self.effects: tuple[dict[str, Effect], ...] = tuple(
            {e.keyword: e for e in (EFFECTS.parse(raw) for raw in c.effects)} for c in cards)
        self.activated: tuple[Effect | None, ...] = tuple(
            next((e for k, e in fx.items() if k in ACTIVATED), None) for fx in self.effects)
        self.swift = tuple(fx.get("swift") for fx in self.effects)
        self.free_titans = self.options.titan_moves == "free"  # CRITS-5, CRITS-56
        self.seat_names = tuple(tuple(f"P{side + 1} {c.name}" for c in cards) for side in range(2))
        self.piece_faces = tuple(piece_face(c) for c in cards)
        self.split_second_cards = {kind: [i for i, c in enumerate(cards) if c.kind == kind
                                          and "split-second" in self.effects[i]]
                                   for kind in ("titan", "creature", "item")}
        self.start_cards: list[int] = []
        for army in self.armies:
            ids = [army.titan, *army.creatures, *army.items]
            self.start_cards += [self.card_index[i] for i in ids]

    def activators(self, cards: Sequence[int]) -> tuple[int, ...]:
        """The pieces (positions in `cards`, their cards) whose card has an effect a player activates."""
        return tuple(piece for piece, card in enumerate(cards) if self.activated[card] is not None)

    # -- the board: flat tile indices, row-major from P1's edge ---------------------------------
    def _build_board(self) -> None:
        o = self.options
        self.width, self.length = o.width, o.length
        self.tiles = o.width * o.length
        self.tile_names = tuple(f"{render.column_name(t % o.width)}{t // o.width + 1}" for t in range(self.tiles))
        self.tile_index = {name: t for t, name in enumerate(self.tile_names)}

        def neighbours(t: int, steps: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
            x, y = t % o.width, t // o.width
            return tuple((y + dy) * o.width + x + dx for dx, dy in steps
                         if 0 <= x + dx < o.width and 0 <= y + dy < o.length)

        self.orthogonal = tuple(neighbours(t, ORTHOGONAL) for t in range(self.tiles))
        self.diagonal = tuple(neighbours(t, DIAGONAL) for t in range(self.tiles))
        self.around = tuple(self.orthogonal[t] + self.diagonal[t] for t in range(self.tiles))
        # the board as bits (bit t = tile t), so a whole frontier steps at once (rules.reach)
        self.all_tiles = (1 << self.tiles) - 1
        self.not_first_column = sum(1 << t for t in range(self.tiles) if t % o.width > 0)
        self.not_last_column = sum(1 << t for t in range(self.tiles) if t % o.width < o.width - 1)
        # the four straight lines out of each tile, as far as the longest range reaches
        longest = max(self.reach)
        self.rays = tuple(tuple(tuple(self.ray(t, d, longest)) for d in range(4)) for t in range(self.tiles))
        # attack_lines[r][t]: every tile an attack of range r from t could reach on an empty board
        self.attack_lines = tuple(tuple(sum(1 << u for line in self.rays[t] for u in line[:r])
                                        for t in range(self.tiles)) for r in range(longest + 1))
        self._balls: dict[int, tuple[int, ...]] = {}
        # CRITS-18, CRITS-44: each side's start zone lies behind its red line.
        depth = o.start_depth * o.width
        self.start_zone = (tuple(range(depth)), tuple(range(self.tiles - depth, self.tiles)))
        self.in_zone = tuple(frozenset(zone) for zone in self.start_zone)
        self.zone_tiles = tuple(sum(1 << t for t in zone) for zone in self.start_zone)
        # The moves out of a tile depend only on the pieces within the mover's M: of it (a diagonal step costs
        # two, so nothing further can be reached or stand in the way). rules.moves_from keeps them per
        # (tile, M:, those pieces), keyed by those pieces' bits tagged with the tile and M: above the board's.
        budgets = max(self.moves) + 1
        self.reach_areas = tuple(tuple((ball, (t * budgets + budget + 1) << self.tiles) for t, ball
                                       in enumerate(self.ball(budget))) if budget in self.moves else ()
                                 for budget in range(budgets))
        self.reach_key_shift = self.tiles + (self.tiles * budgets + budgets).bit_length()
        self.reach_memo: dict[int, tuple[Move, ...]] = {}
        # per card, for flow.python_turn_actions: its reach areas (None: it cannot move) and its attack lines
        # (None: it cannot attack)
        self.card_reach = tuple((self.reach_areas[budget] if budget else None,
                                 self.attack_lines[reach] if dice else None)
                                for budget, reach, dice in zip(self.moves, self.reach, self.attack_dice, strict=True))
        # for rules.has_effect_target: a Kill or Sacrifice card's tiles in range of each tile, whether it
        # aims at the other side, and whether it may touch Titans (a Titan's own effect)
        self.effect_aim = tuple(None if effect is None or effect.keyword == "necro"
                                else (self.ball(int(effect.params.get("range", 0))), effect.keyword == "kill",
                                      kind == "titan")
                                for effect, kind in zip(self.activated, self.kind, strict=True))
        self.beside = tuple(ball & ~(1 << t) for t, ball in enumerate(self.ball(1)))  # the orthogonal neighbours

    def ball(self, radius: int) -> tuple[int, ...]:
        """For each tile, the bit set of the tiles at most `radius` orthogonal steps away (itself included)."""
        balls = self._balls.get(radius)
        if balls is None:
            if radius < 0:
                balls = (0,) * self.tiles
            elif radius == 0:
                balls = tuple(1 << t for t in range(self.tiles))
            else:
                balls = tuple(ball | self.orthogonal_step(ball) for ball in self.ball(radius - 1))
            self._balls[radius] = balls
        return balls

    def orthogonal_step(self, tiles: int) -> int:
        """Every tile one orthogonal step from a tile in the bit set `tiles`."""
        width, left, right = self.width, self.not_first_column, self.not_last_column
        return (((tiles & right) << 1) | ((tiles & left) >> 1) | (tiles << width) | (tiles >> width)) & self.all_tiles

    def row(self, tile: int) -> int:
        return tile // self.width

    def column(self, tile: int) -> int:
        return tile % self.width

    def distance(self, a: int, b: int) -> int:
        return abs(self.row(a) - self.row(b)) + abs(self.column(a) - self.column(b))

    def parse_action(self, text: str) -> Action:
        """The action `text` names; a move or an attack between two tiles of the board that no piece of this
        game ever reaches is refused by the rule it breaks (UnreachableActionError), not as unknown text."""
        try:
            return super().parse_action(text)
        except ActionParseError:
            words = normalise_action_text(text).split()
            if len(words) == 3 and words[0] in ("move", "attack"):
                origin, to = (self.tile_index.get(word.upper(), -1) for word in words[1:])
                if origin >= 0 and to >= 0 and origin != to:
                    raise self._out_of_reach(text, words[0], origin, to) from None
            raise

    def _out_of_reach(self, text: str, verb: str, origin: int, to: int) -> UnreachableActionError:
        dx, dy = abs(self.column(to) - self.column(origin)), abs(self.row(to) - self.row(origin))
        if verb == "move":
            # CRITS-6, CRITS-7: a piece moves at most its M: tiles, a diagonal step costing two
            return UnreachableActionError(text, None, f"too far: {self.tile_names[to]} is {dx + dy} steps "
                                          f"from {self.tile_names[origin]}, and no piece here moves more than "
                                          f"M:{max(self.moves)}", ("CRITS-6", "CRITS-7"))
        if dx and dy:  # CRITS-65: never diagonally
            return UnreachableActionError(text, None, "no attack goes diagonally: a melee attack is at an "
                                          "orthogonally adjacent enemy", ("CRITS-65",))
        # CRITS-51: a ranged attack runs along a row or column, at most its range
        return UnreachableActionError(text, None, f"out of range: {dx + dy} tiles along the line, and no piece "
                                      f"here reaches more than {max(self.reach)}", ("CRITS-51", "CRITS-65"))

    def ray(self, tile: int, direction: int, steps: int) -> list[int]:
        """Tiles in a straight orthogonal line from `tile` (not included), nearest first."""
        dx, dy = ORTHOGONAL[direction]
        x, y = self.column(tile), self.row(tile)
        out = []
        for k in range(1, steps + 1):
            nx, ny = x + dx * k, y + dy * k
            if not (0 <= nx < self.width and 0 <= ny < self.length):
                break
            out.append(ny * self.width + nx)
        return out

    # -- action tables ---------------------------------------------------------------------------
    def _build_actions(self) -> None:
        names = self.tile_names
        table: list[Any] = []

        def add(action: Any) -> Any:
            table.append(action)
            return action

        max_move = max(self.moves)
        self.move_actions: dict[tuple[int, int], Move] = {}
        # a diagonal step costs two (CRITS-7), so a move reaches at most its M: in Manhattan distance
        offsets = [(dx, dy) for dy in range(-max_move, max_move + 1) for dx in range(-max_move, max_move + 1)
                   if 0 < abs(dx) + abs(dy) <= max_move]
        width, length = self.width, self.length
        # per tile, its moves in the order of their destinations, their lengths and their destinations' bits
        self._moves_out: list[tuple[list[Move], list[int], list[int]]] = []
        for a in range(self.tiles):
            x, y = a % width, a // width
            moves: list[Move] = []
            lengths: list[int] = []
            bits: list[int] = []
            self._moves_out.append((moves, lengths, bits))
            for dx, dy in offsets:
                if 0 <= x + dx < width and 0 <= y + dy < length:
                    b = a + dy * width + dx
                    self.move_actions[a, b] = move = add(Move(len(table), names[a], names[b]))
                    moves.append(move)
                    lengths.append(abs(dx) + abs(dy))
                    bits.append(1 << b)
        self._moves_within: dict[tuple[int, int], tuple[tuple[Move, ...], tuple[int, ...]]] = {}
        max_reach = max(self.reach)
        self.attack_actions: dict[tuple[int, int], Attack] = {}
        for a in range(self.tiles):
            for direction in range(4):
                for b in self.ray(a, direction, max_reach):
                    self.attack_actions[a, b] = add(Attack(len(table), names[a], names[b]))
        self.pincer_actions = tuple(add(Pincer(len(table), names[t])) for t in range(self.tiles))
        self.split_actions = tuple(add(Split(len(table), names[t])) for t in range(self.tiles))
        self.aim_actions = tuple(add(Aim(len(table), names[t])) for t in range(self.tiles))
        self.use_actions = tuple((add(Use(len(table), names[t], False)), add(Use(len(table), names[t], True)))
                                 for t in range(self.tiles))
        self.drop_crown_actions = tuple(add(DropCrown(len(table), names[t])) for t in range(self.tiles))
        self.deploy_actions = {c: add(Deploy(len(table), self.cards[c].id))
                               for kind in ("titan", "creature", "item") for c in self.split_second_cards[kind]}
        self.raise_actions = {c: add(Raise(len(table), self.cards[c].id))
                              for c in range(len(self.cards)) if self.kind[c] == "creature"}
        self.words = {w: add(Word(len(table), w)) for w in ("end turn", "counter", "no counter", "pass")}
        self._player_actions = tuple(table)
        rolls: list[Roll] = []
        self.roll_actions: dict[tuple[int, int], Roll] = {}
        for sides in DIE_SIZES:
            for value in range(1, sides + 1):
                self.roll_actions[sides, value] = Roll(len(rolls), sides, value)
                rolls.append(self.roll_actions[sides, value])
        self._chance_outcomes = tuple(rolls)
        # each die's outcomes with their odds, listed once; CRITS-45: P2's roll-off die never ties P1's, so its
        # 19 other faces, each as likely, by P1's roll
        self.roll_odds = {sides: tuple((self.roll_actions[sides, v], 1.0 / sides) for v in range(1, sides + 1))
                          for sides in DIE_SIZES}
        self.roll_off_odds = {first: tuple((self.roll_actions[20, v], 1.0 / 19) for v in range(1, 21) if v != first)
                              for first in range(1, 21)}

    def _turn_tables(self) -> JSON:
        """What the compiled turn's legal actions read (games/crits/_turn.c): per card, per tile, the actions."""
        kinds = {"titan": 0, "creature": 1, "item": 2}
        necro, aimed = 1, 2
        activated = self.activated
        return {
            "width": self.width, "length": self.length, "start_depth": self.options.start_depth,
            "allies_block": int(self.options.allies_block), "cards": len(self.cards),
            "longest": max(1, *self.reach),
            "moves": self.moves, "range": self.reach, "dice": [len(dice) for dice in self.attack_dice],
            "kind": [kinds[kind] for kind in self.kind],
            # the cards whose moves may leave the five untouched (rules.moves_freely decides for each move)
            "swift": [swift is not None or (self.free_titans and kind == "titan")
                      for swift, kind in zip(self.swift, self.kind, strict=True)],
            "effect": [0 if e is None else necro if e.keyword == "necro" else aimed for e in activated],
            "effect_range": [0 if e is None else int(e.params.get("range", 0)) for e in activated],
            "at_enemy": [e is not None and e.keyword == "kill" for e in activated],
            "titans": [kind == "titan" for kind in self.kind],
            "moves_out": [[(bit.bit_length() - 1, length, move) for move, length, bit in zip(*out, strict=True)]
                          for out in self._moves_out],
            "rays": [[[(u, self.attack_actions[t, u]) for u in line] for line in lines]
                     for t, lines in enumerate(self.rays)],
            "split": self.split_actions, "pincer": self.pincer_actions, "drop_crown": self.drop_crown_actions,
            "use_own": [own for own, _ in self.use_actions], "use_held": [held for _, held in self.use_actions],
            "around": self.around, "beside": self.orthogonal, "end_turn": self.words["end turn"],
            "is_swift": moves_freely,
        }

    def moves_within(self, origin: int, budget: int) -> tuple[tuple[Move, ...], tuple[int, ...]]:
        """The moves from `origin` to the tiles within `budget` orthogonal steps, and those tiles' bits."""
        moves = self._moves_within.get((origin, budget))
        if moves is None:
            out, lengths, bits = self._moves_out[origin]
            moves = (tuple(compress(out, map(budget.__ge__, lengths))),
                     tuple(compress(bits, map(budget.__ge__, lengths))))
            self._moves_within[origin, budget] = moves
        return moves

    def player_action_table(self) -> tuple[Any, ...]:
        return self._player_actions

    def chance_outcome_table(self) -> tuple[Roll, ...]:
        return self._chance_outcomes

    def card_set_info(self) -> JSON:
        info = self.card_set.info()
        if self.options.cards is None:  # the starter set travels with the package
            info["path"] = f"starter:{Path(self.card_set.path).name}"
        return info

    def new_initial_state(self, seed: int | None = None) -> CritsState:
        # The set-up draws nothing by chance, so it is done once and each game starts from a copy of it.
        if self._start is None:
            self._start = CritsState.setup(self, 0)
        state = self._start.clone()
        state.seed = fresh_seed() if seed is None else seed
        return state

    def _state_from_dict(self, raw: JSON, seed: int | None) -> CritsState:
        if not isinstance(raw, dict):
            raise StateFormatError("the state must be an object")
        return CritsState.from_dict(self, raw, seed)

    def render(self, observation: JSON) -> str:
        return render.render(observation)

    def describe(self, observation: JSON, word: str, legal: list[str]) -> str | None:
        return render.describe(observation, word, legal)

    def terminal_help(self) -> str:
        return render.TERMINAL_HELP

    @classmethod
    def files_named(cls, options: GameOptions) -> list[str]:
        assert isinstance(options, CritsOptions)
        presets = set(preset_names())
        return super().files_named(options) + [army for army in options.armies if army not in presets]

    @classmethod
    def check_army(cls, army: str, cards: str | None = None) -> str:
        """For `bestiary army check`: a one-line summary of a legal army; ArmyError says what is wrong."""
        card_set = load_crits_cards(cards or STARTER_CARDS)
        checked = read_army(army, card_set)
        names = {c.id: c.name for c in card_set.cards}
        king = names[checked.creatures[checked.king]]
        equipped = ", ".join(f"{names[checked.items[i]]} on {names[checked.creatures[c]]}" for i, c in checked.equips)
        return (f"{checked.name}: Titan {names[checked.titan]}, King {king}, {len(checked.creatures)} creatures, "
                f"{len(checked.items)} items" + (f"; equipped: {equipped}" if equipped else ""))

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return tensor.tensor_shape(self)

    def observation_tensor_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return tensor.tensor_bounds(self)

    def heuristic_policy(self) -> CritsHeuristic:
        if self._heuristic is None:
            self._heuristic = CritsHeuristic()
        return self._heuristic
