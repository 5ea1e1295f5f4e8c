"""Seeded randomness kept in the state, and helpers for playing chance nodes.

Dice and single draws are chance nodes (`State.chance_outcomes`) that a test can force. A game that
shuffles a whole deck at once draws the order from a `ShuffleSource`: a seed plus a counter, so the
state stays small, serialisable and reproducible, and a search that clones the state never disturbs
the real game's stream.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, TypeVar, cast

from bestiary.core.errors import ScenarioError

if TYPE_CHECKING:
    from bestiary.core.api import Action, State

T = TypeVar("T")


def fresh_seed() -> int:
    """A seed for a game started without one; it is recorded, so the game still replays."""
    return random.SystemRandom().randrange(2**63)


# Orders that the next shuffles come out in (item names, top card first), set by a scenario (core/scenario.py).
_FORCED: ContextVar[deque[list[str]] | None] = ContextVar("forced_shuffles", default=None)


@contextmanager
def forced_shuffles(orders: Sequence[Sequence[str]]) -> Iterator[None]:
    """While inside, each shuffle of a pile whose items have names comes out in the next of `orders`."""
    token = _FORCED.set(deque(list(order) for order in orders))
    try:
        yield
    finally:
        _FORCED.reset(token)


class ShuffleSource:
    """The n-th shuffle of a game with seed s always comes out the same."""

    __slots__ = ("count", "seed")

    def __init__(self, seed: int, count: int = 0) -> None:
        self.seed = seed
        self.count = count

    def shuffled(self, items: Sequence[T], names: Sequence[str] | None = None) -> list[T]:
        """`items` shuffled, as a pile whose top card is the last item. `names[item]` names each item, so that
        a scenario can force the order (forced_shuffles)."""
        forced = _FORCED.get()
        if forced and names is not None:
            self.count += 1
            return forced_order(items, names, forced.popleft())
        rng = random.Random(f"bestiary-shuffle/{self.seed}/{self.count}")
        self.count += 1
        out = list(items)
        rng.shuffle(out)
        return out

    def copy(self) -> ShuffleSource:
        return ShuffleSource(self.seed, self.count)


def forced_order(items: Sequence[T], names: Sequence[str], order: list[str]) -> list[T]:
    """`items` in the forced `order` (top card first), as a pile whose top card is the last item."""
    by_name = {names[cast(int, item)]: item for item in items}  # the items are indices into `names`
    if sorted(order) != sorted(by_name):
        missing = sorted(set(by_name) - set(order))
        extra = sorted(set(order) - set(by_name))
        raise ScenarioError(f"a forced shuffle must list exactly the {len(by_name)} cards shuffled"
                            + (f"; missing: {', '.join(missing)}" if missing else "")
                            + (f"; not in the pile: {', '.join(extra)}" if extra else ""))
    return [by_name[name] for name in reversed(order)]


def sample_chance(state: State, rng: random.Random) -> Action:
    """An outcome of the chance node, drawn with its probability."""
    outcomes = state.chance_outcomes()
    weights = [p for _, p in outcomes]
    return rng.choices([a for a, _ in outcomes], weights)[0]
