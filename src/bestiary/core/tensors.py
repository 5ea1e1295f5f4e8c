"""Observation tensors laid out as named fields, one after another in a flat float32 vector."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

Layout = Sequence[tuple[str, int]]  # (field name, number of values), in order


def layout_shape(layout: Layout) -> tuple[int, ...]:
    return (sum(size for _, size in layout),)


def layout_offsets(layout: Layout) -> dict[str, int]:
    """Where each field of a tensor starts."""
    offsets: dict[str, int] = {}
    start = 0
    for name, size in layout:
        offsets[name] = start
        start += size
    return offsets


def split_layout(layout: Layout, values: np.ndarray) -> dict[str, np.ndarray]:
    """Views of a tensor's fields by name (writing to a view writes to the tensor)."""
    fields: dict[str, np.ndarray] = {}
    start = 0
    for name, size in layout:
        fields[name] = values[start:start + size]
        start += size
    return fields


def layout_bounds(layout: Layout, high: Mapping[str, float] | None = None,
                  low: Mapping[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest value of each element: 0 and 1 unless a field is named in `low` or `high`."""
    lows = np.zeros(layout_shape(layout), np.float32)
    highs = np.ones(layout_shape(layout), np.float32)
    for name, view in split_layout(layout, lows).items():
        view[:] = (low or {}).get(name, 0.0)
    for name, view in split_layout(layout, highs).items():
        view[:] = (high or {}).get(name, 1.0)
    return lows, highs


GameT = TypeVar("GameT")
TablesT = TypeVar("TablesT")


def per_game(build: Callable[[GameT], TablesT]) -> Callable[[GameT], TablesT]:
    """`build(game)` made once for each game and kept while the game lives (a Game never changes), e.g. the
    precomputed tables a fast observation tensor reads."""
    made: weakref.WeakKeyDictionary[Any, TablesT] = weakref.WeakKeyDictionary()

    def get(game: GameT) -> TablesT:
        found = made.get(game)
        if found is None:
            found = made[game] = build(game)
        return found

    return get
