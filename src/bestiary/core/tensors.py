"""Observation tensors laid out as named fields, one after another in a flat float32 vector."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

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
    precomputed tables a fast observation tensor reads. The game asked last is answered first, without the
    weak dictionary's lookup (a third of a microsecond, a tenth of a fast tensor): a learner asks for one game
    at every step."""
    made: weakref.WeakKeyDictionary[Any, TablesT] = weakref.WeakKeyDictionary()
    last: list[tuple[Callable[[], Any], TablesT]] = []  # (weak reference to the game, its tables)

    def get(game: GameT) -> TablesT:
        if last:
            ref, recent = last[0]
            if ref() is game:
                return recent
        found = made.get(game)
        if found is None:
            found = made[game] = build(game)
        last[:] = [(weakref.ref(game), found)]
        return found

    return get


def seat_positions(start: int, players: int, rows: int = 1) -> list[list[list[int]]]:
    """`positions[row][viewer][seat]`: where `seat`'s value lies, for `viewer`, in a field of `rows` rows of
    one value per seat starting at `start`, with seats counted from the viewer (0 = the viewer, 1 = the next
    seat to the left, ...). Precomputed, so that a tensor needs no modulo per seat."""
    return [[[start + row * players + (seat - viewer) % players for seat in range(players)]
             for viewer in range(players)] for row in range(rows)]


def item_writer(values: np.ndarray) -> memoryview[float]:
    """A memoryview of a float32 tensor for writing numbers one at a time: its item writes cost half of numpy's,
    which matters where a tensor is a few dozen of them."""
    return cast("memoryview[float]", values.data)


def one_hot_starts(start: int, rows: int, width: int) -> np.ndarray:
    """Where each row of a (rows × width) one-hot field starting at `start` begins: `out[starts + columns] = 1`
    then writes the whole field at once from each row's column number."""
    return start + width * np.arange(rows, dtype=np.intp)
