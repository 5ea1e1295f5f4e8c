"""Core helpers with a compiled twin (core/_speedups.c), used where it was built (core/compiled.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeGuard, TypeVar

import numpy as np

from bestiary.core.compiled import compiled

if TYPE_CHECKING:
    from bestiary.core.api import Action

T = TypeVar("T")


def python_is_listed(item: object, items: Sequence[T]) -> TypeGuard[T]:
    """Whether `item` itself (not an equal copy) is among `items`."""
    for listed in items:  # noqa: SIM110 (a plain loop: `any` over a generator costs more on every step)
        if listed is item:
            return True
    return False


FEW_ACTIONS = 32  # below this many actions a mask is marked item by item, above it with one index array


def python_mark_indices(mask: np.ndarray, actions: Sequence[Action]) -> None:
    """Set 1 at each action's index in a mask of one-byte numbers (int8, uint8 or bool), in place."""
    if len(actions) < FEW_ACTIONS:
        marks = mask.data  # a memoryview: an item write costs a tenth of building an index array
        for action in actions:
            marks[action.index] = 1
    else:
        mask[[action.index for action in actions]] = 1


if TYPE_CHECKING:  # the compiled twins have the same signatures (core/_speedups.pyi)
    is_listed = python_is_listed
    mark_indices = python_mark_indices
else:
    _compiled = compiled("bestiary.core._speedups")
    is_listed = python_is_listed if _compiled is None else _compiled.is_listed
    mark_indices = python_mark_indices if _compiled is None else _compiled.mark_indices
