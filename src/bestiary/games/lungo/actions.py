"""Creatures of Lungo's actions: player moves by card id or seat, and chance's draws, picks and rolls."""

from __future__ import annotations

from dataclasses import dataclass

from bestiary.core.api import Action


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Play an action card, poison or antidote from hand in your turn, or a response card (LUNGO-9)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"play {self.card}"


@dataclass(frozen=True, slots=True)
class Target(Action):
    """The player a card just played is aimed at."""

    index: int
    seat: int

    def __str__(self) -> str:
        return f"target P{self.seat + 1}"


@dataclass(frozen=True, slots=True)
class Commit(Action):
    """Put a card face down for a creature battle (LUNGO-39, LUNGO-41)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"commit {self.card}"


@dataclass(frozen=True, slots=True)
class Boost(Action):
    """Add a matching power card or a mutant gene to the creature put down (LUNGO-39, LUNGO-40, LUNGO-70)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"add {self.card}"


@dataclass(frozen=True, slots=True)
class Word(Action):
    """A move named by one word or phrase: done, pass, swat, grab token, end turn."""

    index: int
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class DrawCard(Action):
    """Chance: the card taken from the draw pile (uniform over the pile; LUNGO-58)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"draw {self.card}"


@dataclass(frozen=True, slots=True)
class PickCard(Action):
    """Chance: the card taken at random from a hand (a steal, a random discard, a swat card)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"pick {self.card}"


@dataclass(frozen=True, slots=True)
class DealGoal(Action):
    """Chance: the secret goal card dealt to the next player (LUNGO-22)."""

    index: int
    goal: str

    def __str__(self) -> str:
        return f"goal {self.goal}"


@dataclass(frozen=True, slots=True)
class Roll(Action):
    """Chance: the die shows this number (LUNGO-18)."""

    index: int
    pips: int

    def __str__(self) -> str:
        return f"roll {self.pips}"


@dataclass(frozen=True, slots=True)
class TopCard(Action):
    """Chance: the back of the draw pile's new top card shows whether it is a battle card (LUNGO-12)."""

    index: int
    battle: bool

    def __str__(self) -> str:
        return "top battle" if self.battle else "top other"
