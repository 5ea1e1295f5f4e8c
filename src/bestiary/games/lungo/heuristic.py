"""A Lungo player that pursues its goal, picks battle creatures by weakness and power, and grabs tokens."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bestiary.core.api import JSON, Action
from bestiary.games.lungo.actions import Boost, Commit, Play, Target, Word
from bestiary.games.lungo.cards import WEAK_TO

if TYPE_CHECKING:
    from bestiary.games.lungo.state import LungoState

USEFUL_PLAYS = ("antidote", "cleanse", "pass-affliction", "draw", "steal", "poison", "discard-random")


def fits(card: JSON, requirement: JSON) -> bool:
    kind = "creature" if card.get("kind") == "mutant" and requirement.get("kind") == "creature" else card.get("kind")
    # LUNGO-6: a mutant counts as a creature for a goal
    return (kind == requirement.get("kind", kind)
            and all(card.get(key) == requirement[key] for key in ("element", "species") if key in requirement))


def goal_cards(observation: JSON) -> set[str]:
    """Ids of hand cards that count towards the secret goal (keep them out of battles)."""
    goal = observation["goal"]
    if not goal:
        return set()
    keep: set[str] = set()
    for requirement in goal["requires"]:
        matching = [c["id"] for c in observation["hand"] if fits(c, requirement)]
        keep.update(matching[:requirement["count"]])
    return keep


def win_chance(card: JSON, opponents: list[JSON]) -> float:
    """How often `card` beats a creature drawn from `opponents`: weakness first, then power."""
    if not opponents:
        return 0.5
    wins = 0.0
    for other in opponents:
        if card["kind"] == "creature" and other["kind"] == "creature":
            if WEAK_TO[other["element"]] == card["element"]:
                wins += 1
                continue
            if WEAK_TO[card["element"]] == other["element"]:
                continue
        wins += 1.0 if card["power"] > other["power"] else 0.5 if card["power"] == other["power"] else 0.0
    return wins / len(opponents)


class LungoHeuristic:
    """Reads only the observation and the legal actions; the creature list is public, like the rule book."""

    horizon = 20  # playout steps before goal progress and poisons score a search's playout (docs/agents.md)

    def __init__(self, creatures: Sequence[JSON] = ()) -> None:
        self.creatures = list(creatures)

    def __call__(self, observation: JSON, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        words = {str(a): a for a in legal if isinstance(a, Word)}
        if "grab token" in words:  # LUNGO-56: take a token the moment it is allowed
            return words["grab token"]
        phase = observation["phase"]
        if phase == "swat-race":
            top = observation["battle"]["central_pile"][-1]
            return words["swat"] if top.get("species") == "insect" else words["pass"]
        if phase == "response":
            return next((a for a in legal if isinstance(a, Play)), words.get("pass", legal[0]))
        if phase == "battle-choose":
            return self._battle_choice(observation, legal)
        if phase == "target":
            return self._target(observation, legal, player)
        if phase == "play":
            return self._play(observation, legal)
        return words.get("pass", legal[0])

    def _battle_choice(self, observation: JSON, legal: Sequence[Action]) -> Action:
        keep = goal_cards(observation)
        hand = {c["id"]: c for c in observation["hand"]}
        commits = [a for a in legal if isinstance(a, Commit)]
        if commits:
            seen = {c["id"] for c in observation["hand"]} | {c["id"] for c in observation["discard"]}
            unseen = [c for c in self.creatures if c["id"] not in seen]

            def value(action: Commit) -> float:
                card = hand[action.card]
                if card["kind"] not in ("creature", "mutant"):
                    return -(card["kind"] in ("power", "antidote", "action")) - (action.card in keep)
                return win_chance(card, unseen) - (0.6 if action.card in keep else 0.0)

            return max(commits, key=value)
        boosts = [a for a in legal if isinstance(a, Boost) and a.card not in keep]
        return boosts[0] if boosts else next(a for a in legal if str(a) == "done")

    def _play(self, observation: JSON, legal: Sequence[Action]) -> Action:
        hand = {c["id"]: c for c in observation["hand"]}
        keep = goal_cards(observation)
        for wanted in USEFUL_PLAYS:
            for action in legal:
                if not isinstance(action, Play) or action.card in keep:
                    continue
                card = hand[action.card]
                keyword = card["kind"] if card["kind"] in ("antidote", "poison") else card.get("effect")
                if keyword == wanted:
                    return action
        return next(a for a in legal if str(a) == "end turn")

    def _target(self, observation: JSON, legal: Sequence[Action], player: int) -> Action:
        sizes = observation["hand_sizes"]
        poison = observation["pending_card"] and observation["pending_card"]["kind"] in ("poison", "slime")
        fronts = observation["in_front"]

        def value(action: Action) -> float:
            assert isinstance(action, Target)
            clean = 0.0 if fronts[action.seat] else 5.0
            return float(sizes[action.seat]) + (clean if poison else 0.0)

        return max(legal, key=value)

    def value(self, state: LungoState) -> list[float]:
        """Each player's return estimated from the race to the goals: the first token +1, the loser -1.

        Without a token taken yet, a player's standing is how much of its goal its hand meets, less a
        share for a poison or slime in front of it; the estimate is twice its lead over the others' mean.
        """
        n = state.game.num_players
        if state.takers:  # the first taker has won; the rest race, one of them to lose
            racing = n - len(state.takers)
            return [1.0 if p == state.takers[0] else 0.0 if p in state.takers else -1.0 / racing for p in range(n)]
        standing = [goal_progress(state, p) - (0.3 if state.afflictions[p] else 0.0) for p in range(n)]
        total = sum(standing)
        return [max(-1.0, min(1.0, 2 * (s - (total - s) / (n - 1)))) for s in standing]


def goal_progress(state: LungoState, player: int) -> float:
    """The share of its goal's required cards that a player's hand holds (0 without a goal yet)."""
    goal = state.goals[player]
    if goal < 0:
        return 0.0
    hand = state.hands[player]
    requirements = state.game.goal_tables[goal]
    held = sum(min(count, len(fitting.intersection(hand))) for count, fitting in requirements)
    return held / sum(count for count, _ in requirements)

