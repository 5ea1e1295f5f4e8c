"""Pebbles' actions: ids only, each with its stable index and the text a player types."""

from __future__ import annotations

from dataclasses import dataclass

from bestiary.core.api import Action


@dataclass(frozen=True, slots=True)
class Take(Action):
    index: int
    count: int

    def __str__(self) -> str:
        return f"take {self.count}"


@dataclass(frozen=True, slots=True)
class Roll(Action):
    index: int

    def __str__(self) -> str:
        return "roll"


@dataclass(frozen=True, slots=True)
class Die(Action):
    """A chance outcome: the die shows `value`."""

    index: int
    value: int

    def __str__(self) -> str:
        return f"die {self.value}"


TAKES = (Take(0, 1), Take(1, 2))
ROLL = Roll(2)
PLAYER_ACTIONS = (*TAKES, ROLL)
DIE_FACES = tuple(Die(value - 1, value) for value in (1, 2, 3))
