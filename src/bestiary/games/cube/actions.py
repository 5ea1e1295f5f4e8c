"""Cube Creatures' actions: small values holding ids and spots, each with the text the parser reads back."""

from __future__ import annotations

from dataclasses import dataclass

from bestiary.core.api import Action
from bestiary.games.cube.events import spot_name


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Play a creature card onto the battlefield or an action card (CUBE-22, CUBE-26)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"play {self.card}"


@dataclass(frozen=True, slots=True)
class Attach(Action):
    """Attach an upgrade under the creature in a spot of your battlefield (CUBE-27)."""

    index: int
    card: str
    spot: int

    def __str__(self) -> str:
        return f"attach {self.card} to {spot_name(self.spot)}"


@dataclass(frozen=True, slots=True)
class UsePower(Action):
    """Use the creature power of the creature in a spot (CUBE-30)."""

    index: int
    spot: int

    def __str__(self) -> str:
        return f"use power of {spot_name(self.spot)}"


@dataclass(frozen=True, slots=True)
class ChangeGuard(Action):
    """Swap your Guard with the creature in another spot (CUBE-34)."""

    index: int
    spot: int

    def __str__(self) -> str:
        return f"swap guard with {spot_name(self.spot)}"


@dataclass(frozen=True, slots=True)
class Attack(Action):
    """Attack an opponent's creature (their Guard, unless a card says otherwise) with one of yours (CUBE-37)."""

    index: int
    target_player: int
    target_spot: int
    spot: int

    def __str__(self) -> str:
        return f"attack P{self.target_player + 1} {spot_name(self.target_spot)} with {spot_name(self.spot)}"


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    """End the turn when no attack is possible (CUBE-55)."""

    index: int

    def __str__(self) -> str:
        return "end turn"


@dataclass(frozen=True, slots=True)
class Target(Action):
    """Choose the creature an action card or power acts on (CUBE-59)."""

    index: int
    player: int
    spot: int

    def __str__(self) -> str:
        return f"target P{self.player + 1} {spot_name(self.spot)}"


@dataclass(frozen=True, slots=True)
class React(Action):
    """Play a reaction card in a response window (CUBE-47)."""

    index: int
    card: str

    def __str__(self) -> str:
        return f"react {self.card}"


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Let a response window go by without a reaction (CUBE-51)."""

    index: int

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Roll(Action):
    """Chance: the attack die shows a face (CUBE-40)."""

    index: int
    face: str

    def __str__(self) -> str:
        return f"roll {self.face}"


@dataclass(frozen=True, slots=True)
class FirstPlayer(Action):
    """Chance: who goes first, when the table lets chance choose (CUBE-17)."""

    index: int
    seat: int

    def __str__(self) -> str:
        return f"first player P{self.seat + 1}"
