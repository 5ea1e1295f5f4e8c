"""Cube Creatures' card effects as data: each keyword a small function, each target a rule for choosing.

A card file writes `effect = { keyword = "deal-damage", amount = 3, target = "enemy-any" }`; the keyword
and its parameters are checked on load (CUBE-59). Targets chosen by the player (`enemy-guard`,
`enemy-any`, `own-any`) are asked for with a `target` action; the others need no choice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bestiary.core.effects import Effect, EffectRegistry
from bestiary.games.cube import events, rules
from bestiary.games.cube.rules import NO_CARD

if TYPE_CHECKING:
    from bestiary.games.cube.state import CubeState

EFFECTS = EffectRegistry("cube-creatures")

CHOSEN_TARGETS = frozenset({"enemy-guard", "enemy-any", "own-any"})
# The targets each keyword accepts (the first is its default).
TARGETS: Mapping[str, tuple[str, ...]] = {
    "deal-damage": ("enemy-guard", "enemy-any", "all-enemy-guards", "attacker"),
    "heal": ("own-any", "own-guard", "own-all", "self", "defender"),
    "destroy-upgrade": ("enemy-any",),
    "swap-guard": ("enemy-any",),
    "reset-power": ("own-any",),
}
UPGRADE_CHOICES = ("weapon", "armor", "any")


@dataclass(frozen=True, slots=True)
class Context:
    """Who plays the effect, from which card (a creature for a power), and the creature it targets."""

    player: int
    source: int
    target: int = NO_CARD


def check_effect(effect: Effect) -> None:
    """Parameter values the registry's type check cannot see (CUBE-59); ValueError names the parameter."""
    params = effect.params
    for key in ("amount", "count"):
        if key in params and not 1 <= params[key] <= 20:
            raise ValueError(f"effect '{effect.keyword}': parameter '{key}' must be from 1 to 20, not {params[key]}")
    allowed = TARGETS.get(effect.keyword)
    if allowed is not None and params.get("target") not in allowed:
        raise ValueError(f"effect '{effect.keyword}': parameter 'target' must be one of {', '.join(allowed)}, "
                         f"not {params.get('target')!r}")
    if effect.keyword == "destroy-upgrade" and params["kind"] not in UPGRADE_CHOICES:
        raise ValueError(f"effect 'destroy-upgrade': parameter 'kind' must be one of {', '.join(UPGRADE_CHOICES)}, "
                         f"not {params['kind']!r}")


def needs_choice(effect: Effect) -> bool:
    return effect.params.get("target") in CHOSEN_TARGETS


def candidates(state: CubeState, player: int, effect: Effect) -> list[int]:
    """The creatures `player` may choose for an effect with a chosen target (CUBE-58)."""
    target = effect.params["target"]
    if target == "own-any":
        pool = list(state.fields[player])
    else:
        pool = []
        for other, field in enumerate(state.fields):
            if other != player and field:
                pool.extend(field[:1] if target == "enemy-guard" else field)
    keyword = effect.keyword
    if keyword == "destroy-upgrade":
        kind = effect.params["kind"]
        return [c for c in pool if (kind != "armor" and state.weapon[c] != NO_CARD)
                or (kind != "weapon" and state.armor[c] != NO_CARD)]
    if keyword == "swap-guard":
        return [c for c in pool if state.fields[rules.owner_of(state, c)][0] != c]
    if keyword == "reset-power":
        return [c for c in pool if state.used[c]]
    if keyword == "heal":
        return [c for c in pool if state.damage[c] > 0]
    return pool


# -- playable (CUBE-58): an action card or power is playable when it has something to act on ---------------
PlayableTest = Callable[["CubeState", int], bool]


def always(state: CubeState, player: int) -> bool:
    return True


def room_to_widen(state: CubeState, player: int) -> bool:
    # CUBE-23: a battlefield widens up to the most spots any card allows.
    return state.limits[player] < rules.MAX_SPOTS


def enemy_in_play(state: CubeState, player: int) -> bool:
    fields = state.fields
    return sum(map(len, fields)) > len(fields[player])


# The tests below are plain loops: a generator or a map over a bound method costs more than the few creatures.
def own_damaged(state: CubeState, player: int) -> bool:
    damage = state.damage
    for creature in state.fields[player]:  # noqa: SIM110
        if damage[creature]:
            return True
    return False


def own_power_used(state: CubeState, player: int) -> bool:
    used = state.used
    for creature in state.fields[player]:  # noqa: SIM110
        if used[creature]:
            return True
    return False


def enemy_behind_guard(state: CubeState, player: int) -> bool:
    for other, field in enumerate(state.fields):  # noqa: SIM110
        if other != player and len(field) > 1:
            return True
    return False


def enemy_upgrade(kind: str) -> PlayableTest:
    """An enemy creature holds an upgrade of this kind ("weapon", "armor" or "any")."""
    def test(state: CubeState, player: int) -> bool:
        for other, field in enumerate(state.fields):
            if other != player:
                for creature in field:
                    if ((kind != "armor" and state.weapon[creature] != NO_CARD)
                            or (kind != "weapon" and state.armor[creature] != NO_CARD)):
                        return True
        return False
    return test


# What `candidates` would find anything for, tested without listing them, by keyword and target.
CANDIDATE_TESTS: Mapping[tuple[str, str], PlayableTest] = {
    ("deal-damage", "enemy-guard"): enemy_in_play, ("deal-damage", "enemy-any"): enemy_in_play,
    ("heal", "own-any"): own_damaged, ("reset-power", "own-any"): own_power_used,
    ("swap-guard", "enemy-any"): enemy_behind_guard,
}


def playable_test(effect: Effect) -> PlayableTest:
    """The test of whether an effect has something to act on, chosen once per card: `always` when it
    needs nothing."""
    if needs_choice(effect):
        if effect.keyword == "destroy-upgrade":
            return enemy_upgrade(effect.params["kind"])
        return CANDIDATE_TESTS.get((effect.keyword, effect.params["target"]),
                                   lambda state, player: bool(candidates(state, player, effect)))
    if effect.keyword == "extra-spot":
        return room_to_widen
    return always


def run(state: CubeState, effect: Effect, context: Context) -> None:
    EFFECTS.run(effect, state, context)


def enemy_guards(state: CubeState, player: int) -> list[int]:
    return [field[0] for other, field in enumerate(state.fields) if other != player and field]


@EFFECTS.register("deal-damage", amount=int, target=str)
def deal_damage(state: CubeState, context: Context, amount: int, target: str) -> None:
    if target == "all-enemy-guards":
        victims = enemy_guards(state, context.player)
    elif target == "attacker":
        victims = [state.attacker] if rules.owner_of(state, state.attacker) != NO_CARD else []
    else:
        victims = [context.target]
    for creature in victims:
        if state.winners is not None:
            return
        state._log_later(events.took_damage, state.game, creature, amount)
        rules.deal_damage(state, creature, amount, context.player)


@EFFECTS.register("heal", amount=int, target=str)
def heal(state: CubeState, context: Context, amount: int, target: str) -> None:
    field = state.fields[context.player]
    if target == "own-all":
        creatures = list(field)
    elif target == "own-guard":
        creatures = field[:1]
    elif target == "self":
        creatures = [context.source]
    elif target == "defender":
        creatures = [state.defender] if rules.owner_of(state, state.defender) != NO_CARD else []
    else:
        creatures = [context.target]
    for creature in creatures:
        healed = rules.heal(state, creature, amount)
        if healed:
            state._log_later(events.healed, state.game, creature, healed, rules.current_health(state, creature))


@EFFECTS.register("draw", count=int)
def draw(state: CubeState, context: Context, count: int) -> None:
    for _ in range(count):
        rules.draw_card(state, context.player)


@EFFECTS.register("destroy-upgrade", defaults={"target": "enemy-any"}, kind=str, target=str)
def destroy_upgrade(state: CubeState, context: Context, kind: str, target: str) -> None:
    creature = context.target
    for slot_kind, slots in (("weapon", state.weapon), ("armor", state.armor)):
        if kind in (slot_kind, "any") and slots[creature] != NO_CARD:
            state._log_later(events.upgrade_destroyed, state.game, slots[creature], creature)
            state.discard.append(slots[creature])
            slots[creature] = NO_CARD
    # Losing armor can leave the damage already taken at or above the health that remains (CUBE-45).
    if rules.current_health(state, creature) <= 0:
        rules.defeat(state, creature, context.player)


@EFFECTS.register("swap-guard", defaults={"target": "enemy-any"}, target=str)
def swap_guard(state: CubeState, context: Context, target: str) -> None:
    owner = rules.owner_of(state, context.target)
    field = state.fields[owner]
    rules.change_guard(state, owner, field.index(context.target))


@EFFECTS.register("reset-power", defaults={"target": "own-any"}, target=str)
def reset_power(state: CubeState, context: Context, target: str) -> None:
    # CUBE-33: a card can reset a used creature power.
    state.used[context.target] = False
    state._log_later(events.power_reset, state.game, context.target)


@EFFECTS.register("boost-attack", amount=int)
def boost_attack(state: CubeState, context: Context, amount: int) -> None:
    state.boost += amount
    state._log_later(events.attack_boosted, context.player, amount)


@EFFECTS.register("attack-any")
def attack_any(state: CubeState, context: Context) -> None:
    # CUBE-35: "only the Guard can be attacked, unless a card says otherwise".
    state.attack_any = True
    state._log_later(events.may_attack_any, context.player)


@EFFECTS.register("extra-spot", amount=int)
def extra_spot(state: CubeState, context: Context, amount: int) -> None:
    # CUBE-23: "a 3 Creature limit (unless a card says otherwise)".
    state.limits[context.player] = min(rules.MAX_SPOTS, state.limits[context.player] + amount)
    state._log_later(events.battlefield_widened, context.player, state.limits[context.player])


@EFFECTS.register("prevent-attack")
def prevent_attack(state: CubeState, context: Context) -> None:
    state.prevented = True
    state._log_later(events.attack_stopped)


@EFFECTS.register("reduce-damage", amount=int)
def reduce_damage(state: CubeState, context: Context, amount: int) -> None:
    state.reduce += amount
    state._log_later(events.damage_reduced, amount)


@EFFECTS.register("cancel-effect")
def cancel_effect(state: CubeState, context: Context) -> None:
    state.cancelled = True
    state._log_later(events.effect_cancelled)
