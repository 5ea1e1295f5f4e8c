"""Critter capture's actions: drawing from a colour deck, choosing an edge, and chance's flips."""

from __future__ import annotations

from dataclasses import dataclass

from bestiary.core.api import Action


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Take the top card of a colour deck, face down (CRITTERS-8, CRITTERS-12)."""

    index: int
    colour: str

    def __str__(self) -> str:
        return f"draw {self.colour}"


@dataclass(frozen=True, slots=True)
class Choose(Action):
    """Announce commonness or size (CRITTERS-9, CRITTERS-23, CRITTERS-32)."""

    index: int
    attribute: str

    def __str__(self) -> str:
        return f"choose {self.attribute}"


@dataclass(frozen=True, slots=True)
class Flip(Action):
    """Chance: the face-down card drawn turns out to be this card (CRITTERS-38)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"flip {self.card}"


@dataclass(frozen=True, slots=True)
class FirstPlayer(Action):
    """Chance: the first starting player, when the table lets chance choose (CRITTERS-7)."""

    index: int
    seat: int

    def __str__(self) -> str:
        return f"first player P{self.seat + 1}"
