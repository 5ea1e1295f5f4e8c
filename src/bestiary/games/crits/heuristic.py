"""A Crit's Creatures player by rules of thumb: it replaces a fallen King, focuses its one attack where it
wins most, keeps its King out of reach, and otherwise advances on the enemy King.

It reads a `Position`: the pieces its seat can see, with what the rules of thumb need of each. A position is
read from the seat's observation (play) or straight from a state (a search's playouts, where building the
whole observation at every step would cost ten times the decision); the two readings agree, and a test
checks that they do.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from bestiary.core.api import JSON, Action, Heuristic
from bestiary.games.crits import rules
from bestiary.games.crits.actions import Aim, Attack, Deploy, DropCrown, Move, Pincer, Raise, Split, Use, Word

if TYPE_CHECKING:
    from bestiary.games.crits.cards import CritsCard
    from bestiary.games.crits.state import CritsState

MATERIAL_SCALE = 40.0  # a lead of this much material (mean attack + defence pips) is worth about 0.76
KINGLESS = 15.0  # material a side without a King is worth less, for each turn it has had none
PASSIVE_WORDS = ("end turn", "pass", "no counter")


def dice_mean(text: str) -> float:
    if text == "NA":
        return 0.0
    count, sides = text[1:].split(")D")
    return int(count) * (int(sides) + 1) / 2


def mean_pips(dice: Sequence[int]) -> float:
    return sum((sides + 1) / 2 for sides in dice)


@cache
def tile_xy(tile: str) -> tuple[int, int]:
    return ord(tile[0]) - ord("A"), int(tile[1:]) - 1


def distance(a: str, b: str) -> int:
    (ax, ay), (bx, by) = tile_xy(a), tile_xy(b)
    return abs(ax - bx) + abs(ay - by)


@dataclass(frozen=True, slots=True)
class Piece:
    """What the rules of thumb read of one piece."""

    piece: int
    side: int
    kind: str  # titan, creature or item
    royal: bool
    on_board: bool
    tile: str | None
    move: int
    attack: float  # mean pips of the attack dice (0: NA, and items)
    defence: float
    item: int | None  # the item it holds
    keywords: frozenset[str]


@dataclass(frozen=True, slots=True)
class Position:
    """The pieces a seat can see, by number and by tile (on the board), with the Kings and fallen crowns."""

    player: int
    kings: tuple[int | None, int | None]
    crowns: tuple[str | None, str | None]
    pieces: dict[int, Piece]

    @classmethod
    def from_observation(cls, o: JSON, player: int) -> Position:
        pieces = {}
        for p in o["pieces"]:
            item = p["kind"] == "item"
            pieces[p["piece"]] = Piece(
                p["piece"], p["side"], p["kind"], bool(p.get("royal", False)), p["where"] == "board", p["tile"],
                0 if item else p["move"], 0.0 if item else dice_mean(p["attack"]),
                0.0 if item else dice_mean(p["defence"]), p.get("item"), frozenset(e["keyword"] for e in p["effects"]))
        return cls(player, tuple(o["kings"]), tuple(o["crowns"]), pieces)

    @classmethod
    def from_state(cls, state: CritsState, player: int, facts: Sequence[CardFacts]) -> Position:
        """The same position as `from_observation(state.observation(player), player)`, without building the
        observation (`facts`: `card_facts` of each card): the other side's Split Second cards held off the board
        stay unseen (CRITS-46)."""
        names = state.game.tile_names
        pieces = {}
        for piece, where in enumerate(state.where):
            side = state.side[piece]
            if where == rules.RESERVE and side != player:
                continue
            kind, royal, move, attack, defence, keywords = facts[state.card[piece]]
            tile = state.pos[piece]
            held = state.held[piece]
            pieces[piece] = Piece(piece, side, kind, royal, where == rules.BOARD, names[tile] if tile >= 0 else None,
                                  move, attack, defence, held if held >= 0 else None, keywords)
        kings = tuple(k if k >= 0 else None for k in state.king)
        crowns = tuple(names[t] if t >= 0 else None for t in state.crown)
        return cls(player, kings, crowns, pieces)  # type: ignore[arg-type]


CardFacts = tuple[str, bool, int, float, float, frozenset[str]]  # kind, royal, move, attack, defence, keywords


def card_facts(card: CritsCard) -> CardFacts:
    """What `Piece` reads of a card."""
    if card.kind == "item":
        return card.kind, False, 0, 0.0, 0.0, frozenset(card.keywords())
    return (card.kind, card.royal, card.move, mean_pips(card.attack_dice), mean_pips(card.defence_dice),
            frozenset(card.keywords()))


class Reading:
    """One decision's position with what the scores ask of it again and again: pieces by tile, the goal,
    and the danger on each tile (memoised)."""

    def __init__(self, position: Position) -> None:
        self.position = position
        player = position.player
        self.at = {p.tile: p for p in position.pieces.values() if p.on_board}
        self.threats = [(tile_xy(p.tile), p.move + 1) for p in self.at.values()
                        if p.side != player and p.kind != "item"]
        self._danger: dict[str, float] = {}
        self.crown = position.crowns[player]
        self.goal = self.crown if self.crown else self._enemy_goal()

    def _enemy_goal(self) -> str | None:
        position = self.position
        enemy_king = position.kings[1 - position.player]
        if enemy_king is not None and position.pieces[enemy_king].tile:
            return position.pieces[enemy_king].tile
        return position.crowns[1 - position.player]

    def danger(self, tile: str) -> float:
        """How many enemy pieces could reach and attack `tile` next turn."""
        known = self._danger.get(tile)
        if known is None:
            x, y = tile_xy(tile)
            known = self._danger[tile] = float(sum(1 for (ex, ey), reach in self.threats
                                                   if abs(ex - x) + abs(ey - y) <= reach))
        return known


class CritsHeuristic(Heuristic["CritsState"]):
    """Its moves use only what its seat sees and the legal actions; `value` scores a full state for search."""

    # A search scores a new leaf at once: the value waits for the turn in play to end anyway, and ten
    # random steps beyond that measured weaker (docs/agents.md).
    horizon = 0

    def __init__(self) -> None:
        self._strength: dict[int, float] = {}  # card index -> mean attack plus defence pips
        self._facts: tuple[CardFacts, ...] | None = None  # card_facts of every card of the game

    def value(self, state: CritsState) -> list[float] | None:
        """Each side's return estimated from its material on the board and whether it has a King; None in
        the middle of an attack (its dice decide the material), so that a playout rolls them first."""
        if state.phase != rules.TURN:
            return None
        material = [0.0, 0.0]
        for piece, place in enumerate(state.where):
            if place == rules.BOARD:
                material[state.side[piece]] += self._card_strength(state, state.card[piece])
        for side in (0, 1):
            if state.king[side] < 0:
                material[side] -= KINGLESS * (1 + state.kingless[side])
        lead = math.tanh((material[0] - material[1]) / MATERIAL_SCALE)
        return [lead, -lead]

    def _card_strength(self, state: CritsState, card: int) -> float:
        strength = self._strength.get(card)
        if strength is None:
            face = state.game.cards[card]
            strength = self._strength[card] = mean_pips(face.attack_dice) + mean_pips(face.defence_dice)
        return strength

    def __call__(self, observation: JSON, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        return self.choose(Position.from_observation(observation, player), legal, rng)

    def on_state(self, state: CritsState, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        """The same choice as `self(state.observation(player), legal, player, rng)`, read straight from the state."""
        if self._facts is None:
            self._facts = tuple(card_facts(card) for card in state.game.cards)
        return self.choose(Position.from_state(state, player, self._facts), legal, rng)

    def rank_on_state(self, state: CritsState, legal: Sequence[Action], player: int,
                      rng: random.Random) -> list[Action]:
        """Every legal action, best first by the same scores (the first is `on_state`'s choice)."""
        if self._facts is None:
            self._facts = tuple(card_facts(card) for card in state.game.cards)
        return self.ranked(Position.from_state(state, player, self._facts), legal, rng)

    def choose(self, position: Position, legal: Sequence[Action], rng: random.Random) -> Action:
        for action in legal:
            if isinstance(action, Word) and action.word == "counter":
                return action
        reading = Reading(position)
        scored = [(self.score(reading, a), rng.random(), a) for a in legal]
        return max(scored, key=lambda s: (s[0], s[1]))[2]

    def ranked(self, position: Position, legal: Sequence[Action], rng: random.Random) -> list[Action]:
        counter = [a for a in legal if isinstance(a, Word) and a.word == "counter"]
        reading = Reading(position)
        scored = sorted(((self.score(reading, a), rng.random(), a) for a in legal if a not in counter),
                        key=lambda s: (s[0], s[1]), reverse=True)
        return counter + [a for _, _, a in scored]

    def score(self, reading: Reading, action: Action) -> float:
        position = reading.position
        player = position.player
        at = reading.at
        if isinstance(action, Move):
            piece = at[action.origin]
            crown = reading.crown
            if crown and action.to == crown and piece.kind == "creature" and piece.royal:
                return 100.0  # replace a fallen King at once
            goal = reading.goal
            gain = distance(action.origin, goal) - distance(action.to, goal) if goal else 0
            if piece.piece == position.kings[player]:
                return -1.0 - reading.danger(action.to)  # the King keeps back
            if crown and piece.royal:
                return 5.0 + gain
            return 1.0 + gain - reading.danger(action.to) * 0.1
        if isinstance(action, Attack | Pincer):
            target = at.get(action.target)
            if target is None:
                return 2.0
            value = 30.0 if target.piece == position.kings[1 - player] else 8.0 if target.kind == "titan" else 6.0
            if target.kind == "item":
                value = 0.5
            attacker = at.get(action.origin) if isinstance(action, Attack) else None
            odds = 1.0
            if attacker is not None and target.kind != "item":
                odds = attacker.attack / max(1.0, target.defence)
            return value * odds * (1.5 if isinstance(action, Pincer) else 1.0)
        if isinstance(action, Use):
            user = at[action.tile]
            card = position.pieces[user.item] if action.held_item and user.item is not None else user
            return 12.0 if "kill" in card.keywords else 7.0 if "necro" in card.keywords else -2.0  # never sacrifice
        if isinstance(action, Aim):
            target = at.get(action.tile)
            if target is None:
                return 1.0
            if target.side == player:  # a sacrifice: the weakest piece
                return -target.attack
            return 20.0 if target.piece == position.kings[1 - player] else target.attack
        if isinstance(action, Raise | Deploy):
            return 7.0
        if isinstance(action, Split):
            return 0.5
        if isinstance(action, DropCrown):
            return -5.0
        if isinstance(action, Word):
            return 0.0 if action.word in PASSIVE_WORDS else 1.0
        return 0.0
