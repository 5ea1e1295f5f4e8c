"""A Lungo player that pursues its goal, picks battle creatures by weakness and power, and grabs tokens."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bestiary.core.api import JSON, Action, Heuristic
from bestiary.core.value import load_value
from bestiary.games.lungo.actions import Boost, Commit, Play, Target, Word
from bestiary.games.lungo.cards import WEAK_TO

if TYPE_CHECKING:
    from bestiary.games.lungo.state import LungoState

USEFUL_PLAYS = ("antidote", "cleanse", "pass-affliction", "draw", "steal", "poison", "discard-random")
VALUE_FILE = Path(__file__).parent / "value.toml"
# What the value reads of each player before a token is taken (weights fitted by `bestiary fit-value`): the race
# to the goal, the draw odds of the cards still missing, and what lies in front of the player.
FEATURES = ("goal_progress", "cards_missing", "goal_met", "ready_to_grab", "afflictions", "draw_odds",
            "draws_needed", "out_of_reach", "hand_size", "to_act")
DRAWS_NEEDED_CAP = 40.0  # draws a player would wait for its missing cards, at most (a hopeless goal)


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


class LungoHeuristic(Heuristic["LungoState"]):
    """Reads only the observation and the legal actions; the creature list is public, like the rule book."""

    FEATURES = FEATURES
    horizon = 20  # playout steps before the fitted value scores a search's playout (docs/agents.md)

    def __init__(self, creatures: Sequence[JSON] = ()) -> None:
        self.creatures = list(creatures)
        self.weights = load_value(VALUE_FILE, "creatures-of-lungo", FEATURES)

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
        """Each player's return estimated from the race to the goals: once a token is taken, the first taker +1
        and the loser -1; before, each player's chance to take the first token by the fitted weights of its
        features, on the scale of the returns (n / (n - 1) times its lead over an even share)."""
        n = state.game.num_players
        if state.takers:  # the first taker has won; the rest race, one of them to lose
            racing = n - len(state.takers)
            return [1.0 if p == state.takers[0] else 0.0 if p in state.takers else -1.0 / racing for p in range(n)]
        chances = self.weights.win_chances(self.features(state))
        return [n / (n - 1) * (chance - 1 / n) for chance in chances]

    def features(self, state: LungoState) -> list[list[float] | None]:
        """Each player's FEATURES while no token is taken (the value is exact after that)."""
        pile = set(state.pile)
        return [player_features(state, p, pile) for p in range(state.game.num_players)]


def player_features(state: LungoState, player: int, pile: set[int]) -> list[float]:
    """FEATURES of one player. The draw odds read the draw pile of a full state (a determinization, in a
    search): the chance that the next card drawn is one the goal still misses, and how many draws it would
    take to draw them all at that rate."""
    goal = state.goals[player]
    hand = state.hands[player]
    afflicted = len(state.afflictions[player])
    to_act = float(state.active == player)
    if goal < 0:
        return [0.0, 0.0, 0.0, 0.0, float(afflicted), 0.0, DRAWS_NEEDED_CAP, 0.0, float(len(hand)), to_act]
    requirements = state.game.goal_tables[goal]
    held = missing = 0
    wanted: set[int] = set()
    draws = 0.0
    hopeless = False
    for count, fitting in requirements:
        have = min(count, len(fitting.intersection(hand)))
        held += have
        if have < count:
            short = count - have
            missing += short
            in_pile = fitting & pile
            wanted |= in_pile
            if len(in_pile) < short:
                hopeless = True
            draws += short * (len(pile) + 1) / (len(in_pile) + 1)
    met = missing == 0
    return [held / sum(count for count, _ in requirements), float(missing), float(met),
            float(met and not afflicted), float(afflicted), len(wanted) / len(pile) if pile else 0.0,
            min(draws, DRAWS_NEEDED_CAP), float(hopeless), float(len(hand)), to_act]


def goal_progress(state: LungoState, player: int) -> float:
    """The share of its goal's required cards that a player's hand holds (0 without a goal yet)."""
    goal = state.goals[player]
    if goal < 0:
        return 0.0
    hand = state.hands[player]
    requirements = state.game.goal_tables[goal]
    held = sum(min(count, len(fitting.intersection(hand))) for count, fitting in requirements)
    return held / sum(count for count, _ in requirements)

