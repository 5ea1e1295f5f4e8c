"""A critter capture player that weighs the unseen cards of each deck before it draws."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bestiary.core.api import JSON, Action, Heuristic
from bestiary.games.critters.actions import Choose, Draw
from bestiary.games.critters.cards import ATTRIBUTES

if TYPE_CHECKING:
    from bestiary.games.critters.state import CritterState

LEAD_SCALE = 20.0  # corral points: a lead of this much is counted as a sure win


def unseen_cards(observation: JSON, cards: dict[str, JSON], colour: str) -> list[JSON]:
    return [cards[card_id] for card_id in observation["unseen"][colour]]


def expected_gain(card: JSON, active: JSON, attribute: str, stacked: int) -> float:
    """Cards won (positive) or given away (negative) if `card` challenges `active`."""
    kind, colour = card["ability"].rsplit(" ", 1)
    if colour == active["colour"]:
        return {"capture": 1 + stacked, "block": 1, "trapped by": -1}[kind]
    if card[attribute] > active[attribute]:
        return 1 + stacked
    if card[attribute] < active[attribute]:
        return -1
    return 0.5  # a tie hands over the puck with the stack


class CritterHeuristic(Heuristic["CritterState"]):
    """Needs the full card list to judge unseen cards; it is public, like the rule book."""

    horizon = 20  # playout steps before the corrals score a search's playout (docs/agents.md)

    def __init__(self, card_faces: dict[str, JSON]) -> None:
        self.cards = card_faces

    def __call__(self, observation: JSON, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        phase = observation["phase"]
        if phase == "final-choose":
            return max(legal, key=lambda a: self._final_margin(observation, player, a))
        if phase in ("active-choose", "tie-choose"):
            return max(legal, key=lambda a: self._edge_strength(observation, a))
        if phase == "active-draw":
            return max(legal, key=lambda a: self._deck_strength(observation, a))
        active = observation["active_card"]
        stacked = len(observation["under_active"])

        def gain(action: Action) -> float:
            assert isinstance(action, Draw)
            pool = unseen_cards(observation, self.cards, action.colour)
            return sum(expected_gain(c, active, observation["attribute"], stacked) for c in pool) / len(pool)

        return max(legal, key=gain)

    def value(self, state: CritterState) -> list[float]:
        """Each player's share of the win estimated from the corrals: a player's points (the mean of the
        two attributes) against the best other player's, a lead of LEAD_SCALE or more counting as a win."""
        values = state.game.values
        points = [sum(values[c][0] + values[c][1] for c in corral) / 2 for corral in state.corrals]
        estimate = []
        for player, mine in enumerate(points):
            lead = mine - max(p for other, p in enumerate(points) if other != player)
            estimate.append(min(1.0, max(0.0, 0.5 + lead / (2 * LEAD_SCALE))))
        return estimate

    def _final_margin(self, observation: JSON, player: int, action: Action) -> float:
        assert isinstance(action, Choose)
        totals = [sum(c[action.attribute] for c in corral) for corral in observation["corrals"]]
        return float(totals[player] - max(t for p, t in enumerate(totals) if p != player))

    def _deck_strength(self, observation: JSON, action: Action) -> float:
        assert isinstance(action, Draw)
        pool = unseen_cards(observation, self.cards, action.colour)
        return float(max(sum(c[a] for c in pool) / len(pool) for a in ATTRIBUTES))

    def _edge_strength(self, observation: JSON, action: Action) -> float:
        assert isinstance(action, Choose)
        attribute = action.attribute
        pool = [c for colour in observation["unseen"] for c in unseen_cards(observation, self.cards, colour)]
        if not pool:
            return 0.0
        if observation["active_card"] is None:  # not flipped yet: the drawn deck's average
            drawn = unseen_cards(observation, self.cards, observation["face_down_card"]["colour"])
            mine = sum(c[attribute] for c in drawn) / len(drawn)
        else:
            mine = observation["active_card"][attribute]
        return sum(1 for c in pool if c[attribute] < mine) / len(pool)
