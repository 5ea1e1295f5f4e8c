"""A Cube Creatures player that reads only its observation: it arms and heals its creatures, keeps a
healthy Guard, plays its cards where they do the most, attacks where a defeat is likeliest, and reacts
when its own creatures are in danger."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bestiary.core.api import JSON, Action, Heuristic
from bestiary.core.value import load_value
from bestiary.games.cube import flow, rules
from bestiary.games.cube.actions import Attach, Attack, ChangeGuard, Play, React, Target, UsePower

if TYPE_CHECKING:
    from bestiary.games.cube.state import CubeState

ADJUSTMENTS = (2, 1, -1, -2)  # CUBE-40: the four faces that add; 2X and a miss are counted apart


def damage_outcomes(points: int) -> list[int]:
    """The six equally likely damages an attack with these attack points deals."""
    return [max(0, points + a) for a in ADJUSTMENTS] + [points * 2, 0]


def kill_chance(points: int, health: int) -> float:
    return sum(1 for d in damage_outcomes(points) if d >= health) / 6


def player_features(state: CubeState, player: int) -> list[float]:
    game = state.game
    kinds = game.ctype
    field, hand = state.fields[player], state.hands[player]
    attack = [rules.attack_points(state, c) for c in field]
    health = [rules.current_health(state, c) for c in field]
    opponents = [p for p in range(game.num_players) if p != player and not state.out[p]]
    enemy_guards = [rules.current_health(state, state.fields[p][0]) for p in opponents if state.fields[p]]
    enemy_attack = [rules.attack_points(state, c) for p in opponents for c in state.fields[p]]
    victory = len(state.victory[player])
    return [
        victory, float(victory >= game.options.win_at - 1), len(field), sum(attack), sum(health),
        health[0] if field else 0, attack[0] if field else 0, max(attack, default=0), len(hand),
        sum(1 for c in hand if kinds[c] == rules.CREATURE), sum(1 for c in hand if kinds[c] == rules.REACTION),
        sum(1 for c in hand if kinds[c] == rules.ACTION), sum(1 for c in hand if kinds[c] == rules.UPGRADE),
        float(state.current == player), sum(1 for c in field if game.power[c] is not None and not state.used[c]),
        max((kill_chance(a, h) for a in attack for h in enemy_guards), default=0.0),
        max((kill_chance(a, health[0]) for a in enemy_attack), default=0.0) if field else 1.0,
    ]


def pending_effect(observation: JSON) -> JSON | None:
    """The effect of the action card or power under way, as data."""
    pending = observation["pending"]
    return None if pending is None else pending["effect"]


VALUE_FILE = Path(__file__).parent / "value.toml"
# What the value reads of each player at the start of a turn (weights fitted by `bestiary fit-value`).
FEATURES = ("victory", "one_from_winning", "creatures_in_play", "attack_in_play", "health_in_play", "guard_health",
            "guard_attack", "best_attack", "cards_in_hand", "creatures_in_hand", "reactions_in_hand",
            "actions_in_hand", "upgrades_in_hand", "to_move", "powers_ready", "best_kill_chance", "guard_danger")


class CubeHeuristic(Heuristic["CubeState"]):
    FEATURES = FEATURES
    horizon = 6  # a playout plays out the turn under way, then the fitted value scores the next turn's start

    def __init__(self) -> None:
        self.weights = load_value(VALUE_FILE, "cube-creatures", FEATURES)

    def value(self, state: CubeState) -> list[float] | None:
        """Each player's chance to win (its share of the point) at the start of a turn, from the fitted weights
        of its features; None during a turn, whose remaining moves and attack a playout plays first."""
        features = self.features(state)
        return None if features is None else self.weights.win_chances(features)

    def features(self, state: CubeState) -> list[list[float] | None] | None:
        """Each player's features (FEATURES; None for a player out of the game) at the start of a turn, else None."""
        if state.phase != flow.MAIN or state.done:
            return None
        return [None if state.out[p] else player_features(state, p) for p in range(state.game.num_players)]

    def __call__(self, observation: JSON, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        phase = observation["phase"]
        if phase == "place":
            return self._place(observation, legal, player)
        if phase == "respond":
            return self._respond(observation, legal, player)
        if phase == "target":
            return max(legal, key=lambda a: self._target_value(observation, a, player))
        return self._main(observation, legal, player)

    # -- setup ----------------------------------------------------------------------------------
    def _place(self, observation: JSON, legal: Sequence[Action], player: int) -> Action:
        faces = {c["id"]: c for c in observation["hand"]}
        guard_first = not observation["battlefields"][player]

        def value(action: Action) -> float:
            card = faces[action.card]  # type: ignore[attr-defined]
            first, second = ("health", "attack") if guard_first else ("attack", "health")
            return float(card[first] + 0.5 * card[second])

        return max(legal, key=value)

    # -- the main phase -------------------------------------------------------------------------
    def _main(self, observation: JSON, legal: Sequence[Action], player: int) -> Action:
        hand = {c["id"]: c for c in observation["hand"]}
        mine = observation["battlefields"][player]
        best: tuple[float, Action] | None = None
        for action in legal:
            value = self._main_value(observation, action, player, hand, mine)
            if value > 0 and (best is None or value > best[0]):
                best = (value, action)
        if best is not None:
            return best[1]
        attacks = [a for a in legal if isinstance(a, Attack)]
        if attacks:
            return max(attacks, key=lambda a: self._attack_value(observation, a, player))
        return legal[-1]  # end turn

    def _main_value(self, observation: JSON, action: Action, player: int, hand: dict[str, JSON],
                    mine: list[JSON]) -> float:
        if isinstance(action, Play):
            card = hand[action.card]
            if card["type"] == "creature":
                return float(50 + card["attack"] + card["health"] / 2)
            return self._effect_value(observation, card["effect"], player)
        if isinstance(action, Attach):
            card, creature = hand[action.card], mine[action.spot]
            if card["kind"] == "weapon":
                return float(40 + creature["attack_now"])  # arm the hardest hitter
            return float(40 + (10 if action.spot == 0 else 0) + creature["health_left"] / 10)  # protect the Guard
        if isinstance(action, UsePower):
            return self._effect_value(observation, mine[action.spot]["power_effect"], player, mine[action.spot])
        if isinstance(action, ChangeGuard):
            guard, other = mine[0], mine[action.spot]
            if guard["health_left"] * 2 < guard["max_health"] and other["health_left"] > guard["health_left"] + 2:
                return float(20 + other["health_left"] - guard["health_left"])
        return 0.0

    def _effect_value(self, observation: JSON, effect: JSON | None, player: int, source: JSON | None = None) -> float:
        if effect is None:
            return 0.0
        keyword = effect["keyword"]
        mine = observation["battlefields"][player]
        enemies = [c for p, field in enumerate(observation["battlefields"]) if p != player for c in field]
        if keyword == "deal-damage":
            return float(30 + effect["amount"])
        if keyword == "heal":
            hurt = [source] if effect["target"] == "self" and source else mine
            if effect["target"] == "own-guard":
                hurt = mine[:1]
            missing = sum(min(effect["amount"], c["damage"]) for c in hurt)
            return float(10 + missing) if missing >= 2 else 0.0
        if keyword == "draw":
            return float(15 + effect["count"])
        if keyword == "destroy-upgrade":
            return 25.0
        if keyword == "boost-attack":
            return float(12 + effect["amount"])
        if keyword == "swap-guard":
            guards = [field[0]["health_left"] for p, field in enumerate(observation["battlefields"])
                      if p != player and field]
            weakest = min((c["health_left"] for c in enemies), default=99)
            return 14.0 if guards and weakest < min(guards) else 0.0
        if keyword == "attack-any":
            guards = [field[0]["health_left"] for p, field in enumerate(observation["battlefields"])
                      if p != player and field]
            weakest = min((c["health_left"] for c in enemies), default=99)
            return 13.0 if guards and weakest < min(guards) and not observation["attack_any"] else 0.0
        if keyword == "extra-spot":
            return 11.0 if any(c["type"] == "creature" for c in observation["hand"]) else 0.0
        if keyword == "reset-power":
            return 9.0
        return 0.0

    def _attack_value(self, observation: JSON, action: Action, player: int) -> float:
        assert isinstance(action, Attack)
        attacker = observation["battlefields"][player][action.spot]
        target = observation["battlefields"][action.target_player][action.target_spot]
        points = attacker["attack_now"] + observation["boost"]
        leader = len(observation["victory"][action.target_player])
        return float(10 * kill_chance(points, target["health_left"]) + points / 10 + leader / 5
                     - target["health_left"] / 100 + target["attack_now"] / 50)

    # -- targets and reactions ----------------------------------------------------------------
    def _target_value(self, observation: JSON, action: Action, player: int) -> float:
        assert isinstance(action, Target)
        creature = observation["battlefields"][action.player][action.spot]
        pending = observation["pending"]
        effect = pending_effect(observation)
        keyword = effect["keyword"] if effect else ""
        if keyword == "deal-damage":
            dies = effect["amount"] >= creature["health_left"] if effect else False
            return float((100 if dies else 0) + creature["attack_now"] - creature["health_left"] / 10)
        if keyword == "heal":
            return float(creature["damage"])
        if keyword == "destroy-upgrade":
            return float(sum(u["bonus"] for u in (creature["weapon"], creature["armor"]) if u))
        if keyword == "swap-guard":
            return -float(creature["health_left"])
        return float(creature["attack_now"]) if pending else 0.0

    def _respond(self, observation: JSON, legal: Sequence[Action], player: int) -> Action:
        hand = {c["id"]: c for c in observation["hand"]}
        reacts = [a for a in legal if isinstance(a, React)]
        pass_action = next(a for a in legal if not isinstance(a, React))
        mine = {c["id"]: c for c in observation["battlefields"][player]}
        attack = observation["attack"]
        in_play = {c["id"]: c for field in observation["battlefields"] for c in field}
        if observation["window"] == "attack" and attack and attack["attacker"] in in_play:
            attacker = in_play[attack["attacker"]]
            defender = mine.get(attack["defender"])
            points = attacker["attack_now"] + observation["boost"]
            for action in reacts:
                effect = hand[action.card]["effect"]
                keyword = effect["keyword"]
                if keyword == "deal-damage" and attacker["health_left"] <= effect["amount"]:
                    return action  # defeating the attacker wins a creature
                if defender is None:
                    continue
                danger = kill_chance(max(0, points - attack["reduce"]), defender["health_left"])
                if keyword == "prevent-attack" and danger >= 1 / 3:
                    return action
                if keyword in ("reduce-damage", "heal") and danger > 0:
                    return action
            return pass_action
        pending = observation["pending"]
        effect = pending_effect(observation)
        if pending and effect and (pending["target"] in mine or effect.get("target") == "all-enemy-guards"):
            harmful = effect["keyword"] in ("deal-damage", "destroy-upgrade", "swap-guard")
            if harmful and reacts:
                return reacts[0]
        return pass_action
