"""Crit's Creatures actions. Tiles are written column letter + row number, e.g. B3 (rows count from P1's edge).

Each game builds every action once, in its tables, and parsing returns those same objects; so actions compare
by identity (eq=False), which keeps legality checks among thousands of move actions cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

from bestiary.core.api import Action


@dataclass(frozen=True, slots=True, eq=False)
class Move(Action):
    """Move the piece on `origin` to `to` in the move phase (CRITS-6, CRITS-7, CRITS-56)."""

    index: int
    origin: str
    to: str

    def __str__(self) -> str:
        return f"move {self.origin} {self.to}"


@dataclass(frozen=True, slots=True, eq=False)
class Attack(Action):
    """Attack the piece or dropped item on `target` with every die of the piece on `origin` (CRITS-55, CRITS-65)."""

    index: int
    origin: str
    target: str

    def __str__(self) -> str:
        return f"attack {self.origin} {self.target}"


@dataclass(frozen=True, slots=True, eq=False)
class Pincer(Action):
    """Both pieces in front of and behind the enemy on `target` attack it (CRITS-63)."""

    index: int
    target: str

    def __str__(self) -> str:
        return f"pincer {self.target}"


@dataclass(frozen=True, slots=True, eq=False)
class Split(Action):
    """Declare a target for each attack die of the piece on `origin`, one `aim` each (CRITS-62)."""

    index: int
    origin: str

    def __str__(self) -> str:
        return f"split {self.origin}"


@dataclass(frozen=True, slots=True, eq=False)
class Aim(Action):
    """A pending choice of a tile: a die's target, an effect's target, where a piece enters play."""

    index: int
    tile: str

    def __str__(self) -> str:
        return f"aim {self.tile}"


@dataclass(frozen=True, slots=True, eq=False)
class Use(Action):
    """Activate the effect of the piece on `tile`, or of the item it holds (CRITS-52)."""

    index: int
    tile: str
    held_item: bool

    def __str__(self) -> str:
        return f"use {self.tile}" + (" item" if self.held_item else "")


@dataclass(frozen=True, slots=True, eq=False)
class Deploy(Action):
    """Put a Split Second card held off the board into play (CRITS-23, CRITS-46)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"deploy {self.card}"


@dataclass(frozen=True, slots=True, eq=False)
class Raise(Action):
    """Necro's choice: the creature brought back from the graveyard (CRITS-28)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"raise {self.card}"


@dataclass(frozen=True, slots=True, eq=False)
class DropCrown(Action):
    """The King drops the crown on an adjacent tile to hand it over (CRITS-40)."""

    index: int
    tile: str

    def __str__(self) -> str:
        return f"drop crown {self.tile}"


@dataclass(frozen=True, slots=True, eq=False)
class Word(Action):
    """An action without arguments: end turn, counter, no counter, pass."""

    index: int
    word: str

    def __str__(self) -> str:
        return self.word


@dataclass(frozen=True, slots=True, eq=False)
class Roll(Action):
    """Chance: one die comes up `value` (every die is its own chance node, CRITS-59)."""

    index: int
    sides: int
    value: int

    def __str__(self) -> str:
        return f"roll d{self.sides} {self.value}"
