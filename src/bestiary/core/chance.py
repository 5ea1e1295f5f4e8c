"""Seeded randomness kept in the state, and helpers for playing chance nodes.

Dice and single draws are chance nodes (`State.chance_outcomes`) that a test can force. A game that
shuffles a whole deck at once draws the order from a `ShuffleSource`: a seed plus a counter, so the
state stays small, serialisable and reproducible, and a search that clones the state never disturbs
the real game's stream.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from bestiary.core.api import Action, State

T = TypeVar("T")


def fresh_seed() -> int:
    """A seed for a game started without one; it is recorded, so the game still replays."""
    return random.SystemRandom().randrange(2**63)


class ShuffleSource:
    """The n-th shuffle of a game with seed s always comes out the same."""

    __slots__ = ("count", "seed")

    def __init__(self, seed: int, count: int = 0) -> None:
        self.seed = seed
        self.count = count

    def shuffled(self, items: Sequence[T]) -> list[T]:
        rng = random.Random(f"bestiary-shuffle/{self.seed}/{self.count}")
        self.count += 1
        out = list(items)
        rng.shuffle(out)
        return out

    def copy(self) -> ShuffleSource:
        return ShuffleSource(self.seed, self.count)


def sample_chance(state: State, rng: random.Random) -> Action:
    """An outcome of the chance node, drawn with its probability."""
    outcomes = state.chance_outcomes()
    weights = [p for _, p in outcomes]
    return rng.choices([a for a, _ in outcomes], weights)[0]
