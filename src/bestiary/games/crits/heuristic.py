"""A Crit's Creatures player by rules of thumb: it replaces a fallen King, focuses its one attack where it
wins most, keeps its King out of reach, and otherwise advances on the enemy King."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bestiary.core.api import JSON, Action
from bestiary.games.crits import rules
from bestiary.games.crits.actions import Aim, Attack, Deploy, DropCrown, Move, Pincer, Raise, Split, Use, Word

if TYPE_CHECKING:
    from bestiary.games.crits.state import CritsState

MATERIAL_SCALE = 40.0  # a lead of this much material (mean attack + defence pips) is worth about 0.76
KINGLESS = 15.0  # material a side without a King is worth less, for each turn it has had none


def dice_mean(text: str) -> float:
    if text == "NA":
        return 0.0
    count, sides = text[1:].split(")D")
    return int(count) * (int(sides) + 1) / 2


def tile_xy(tile: str) -> tuple[int, int]:
    return ord(tile[0]) - ord("A"), int(tile[1:]) - 1


def distance(a: str, b: str) -> int:
    (ax, ay), (bx, by) = tile_xy(a), tile_xy(b)
    return abs(ax - bx) + abs(ay - by)


class CritsHeuristic:
    """Its moves use only the observation and the legal actions; `value` scores a full state for search."""

    def __init__(self) -> None:
        self._strength: dict[int, float] = {}  # card index -> mean attack plus defence pips

    def value(self, state: CritsState) -> list[float]:
        """Each side's return estimated from its material on the board and whether it has a King."""
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
            strength = self._strength[card] = sum((size + 1) / 2 for size in face.attack_dice + face.defence_dice)
        return strength

    def __call__(self, observation: JSON, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        o = observation
        at = {p["tile"]: p for p in o["pieces"] if p["where"] == "board"}
        words = {a.word: a for a in legal if isinstance(a, Word)}
        if "counter" in words:
            return words["counter"]
        scored = [(self.score(o, at, a, player), rng.random(), a) for a in legal]
        best = max(scored, key=lambda s: (s[0], s[1]))
        return best[2]

    def score(self, o: JSON, at: dict[str, JSON], action: Action, player: int) -> float:
        mine_king = o["kings"][player]
        enemy_king = o["kings"][1 - player]
        pieces = {p["piece"]: p for p in o["pieces"]}
        crown = o["crowns"][player]
        if isinstance(action, Move):
            piece = at[action.origin]
            if crown and action.to == crown and piece["kind"] == "creature" and piece["royal"]:
                return 100.0  # replace a fallen King at once
            goal = crown if crown else self.enemy_goal(o, player, pieces, enemy_king)
            gain = distance(action.origin, goal) - distance(action.to, goal) if goal else 0
            if piece["piece"] == mine_king:
                return -1.0 - self.danger(o, action.to, player)  # the King keeps back
            if crown and piece["royal"]:
                return 5.0 + gain
            return 1.0 + gain - self.danger(o, action.to, player) * 0.1
        if isinstance(action, Attack | Pincer):
            tile = action.target
            target = at.get(tile)
            if target is None:
                return 2.0
            value = 30.0 if target["piece"] == enemy_king else 8.0 if target["kind"] == "titan" else 6.0
            if target["kind"] == "item":
                value = 0.5
            attacker = at.get(action.origin) if isinstance(action, Attack) else None
            odds = 1.0
            if attacker is not None and target["kind"] != "item":
                odds = dice_mean(attacker["attack"]) / max(1.0, dice_mean(target["defence"]))
            return value * odds * (1.5 if isinstance(action, Pincer) else 1.0)
        if isinstance(action, Use):
            user = at[action.tile]
            card = pieces[user["item"]] if action.held_item else user
            keywords = {e["keyword"] for e in card["effects"]}
            return 12.0 if "kill" in keywords else 7.0 if "necro" in keywords else -2.0  # never sacrifice
        if isinstance(action, Aim):
            target = at.get(action.tile)
            if target is None:
                return 1.0
            if target["side"] == player:  # a sacrifice: the weakest piece
                return -dice_mean(target.get("attack", "NA"))
            return 20.0 if target["piece"] == enemy_king else dice_mean(target.get("attack", "NA"))
        if isinstance(action, Raise | Deploy):
            return 7.0
        if isinstance(action, Split):
            return 0.5
        if isinstance(action, DropCrown):
            return -5.0
        if isinstance(action, Word):
            return 0.0 if action.word in ("end turn", "pass", "no counter") else 1.0
        return 0.0

    def enemy_goal(self, o: JSON, player: int, pieces: dict[int, JSON], enemy_king: int | None) -> str | None:
        if enemy_king is not None and pieces[enemy_king]["tile"]:
            return str(pieces[enemy_king]["tile"])
        crown = o["crowns"][1 - player]
        return str(crown) if crown else None

    def danger(self, o: JSON, tile: str, player: int) -> float:
        return float(sum(1 for p in o["pieces"] if p["side"] != player and p["where"] == "board"
                         and p["kind"] != "item" and distance(p["tile"], tile) <= p["move"] + 1))
