"""Crit's Creatures card effects: each keyword of a card file maps to one small registered function.

Passive effects answer a question the rules ask (how much higher does Root block?); activated effects
change the state when a player uses them (Kill, Sacrifice, Necro). Ids refer to docs/rules/crits-creatures.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bestiary.core.effects import EffectRegistry

if TYPE_CHECKING:
    from bestiary.games.crits.state import CritsState

EFFECTS = EffectRegistry("crits-creatures")

# Effects a player activates, once per game per card (the others work by themselves).
ACTIVATED = frozenset({"kill", "sacrifice", "necro"})


@EFFECTS.register("root", bonus=int)
def root(state: CritsState, piece: int, bonus: int) -> int:
    # CRITS-24: a creature that did not move in its owner's last turn blocks higher.
    return 0 if state.moved_last_turn(piece) else bonus


@EFFECTS.register("poison")
def poison(state: CritsState, piece: int, killer: int) -> None:
    # CRITS-25: when this creature dies, its killer (by an attack or an effect) dies too; Titans are untouched
    # by creature effects.
    from bestiary.games.crits import rules

    if state.on_board(killer) and rules.effect_reaches(state, piece, killer):
        state._log("poison", f"{state.name(piece)}'s poison kills {state.name(killer)}.", rules=("CRITS-25",))
        rules.defeat(state, killer, None)


@EFFECTS.register("pierce")
def pierce(state: CritsState, piece: int) -> bool:
    # An original effect: the attack ignores the defender's block bonuses (Root and items).
    return True


@EFFECTS.register("swift")
def swift(state: CritsState, piece: int) -> bool:
    # CRITS-54: card text overrides the advanced rules; a swift move does not count toward the five.
    return True


@EFFECTS.register("unlimited")
def unlimited(state: Any, piece: int) -> bool:
    # CRITS-29: any number of copies in an army (checked when the army is read).
    return True


@EFFECTS.register("split-second", defaults={"lasts": 0}, lasts=int)
def split_second(state: CritsState, piece: int, lasts: int) -> int:
    # CRITS-23, CRITS-46: held off the board; `lasts` > 0 limits its stay to that many of its owner's turns.
    return lasts


@EFFECTS.register("kill", defaults={"range": 3}, range=int)
def kill(state: CritsState, piece: int, target: int, range: int) -> None:
    # CRITS-27: destroy one of the opponent's creatures (within `range` tiles of this card); CRITS-25: the
    # user is the killer a poisonous victim kills.
    from bestiary.games.crits import rules

    state._log("kill", f"{state.name(piece)} destroys {state.name(target)}.", rules=("CRITS-27",))
    rules.defeat(state, target, rules.effect_user(state, piece))


@EFFECTS.register("sacrifice", defaults={"range": 3}, range=int)
def sacrifice(state: CritsState, piece: int, target: int, range: int) -> None:
    # CRITS-26: destroy one of your own creatures (within `range` tiles of this card); CRITS-25: the user is
    # its killer, so a poisonous victim kills the user too.
    from bestiary.games.crits import rules

    state._log("sacrifice", f"{state.name(piece)} sacrifices {state.name(target)}.", rules=("CRITS-26",))
    rules.defeat(state, target, rules.effect_user(state, piece))


@EFFECTS.register("necro")
def necro(state: CritsState, piece: int, target: int, tile: int) -> None:
    # CRITS-28: bring a creature from your graveyard back onto a free tile next to this card.
    from bestiary.games.crits import rules

    rules.return_from_graveyard(state, target, tile)
    state._log("necro", f"{state.name(piece)} raises {state.name(target)} at {state.tile_name(tile)}.",
               rules=("CRITS-28",))
