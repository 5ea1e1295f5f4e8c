"""Core helpers with a compiled twin (core/_speedups.c), used where it was built (core/compiled.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeGuard, TypeVar

from bestiary.core.compiled import compiled

T = TypeVar("T")


def python_is_listed(item: object, items: Sequence[T]) -> TypeGuard[T]:
    """Whether `item` itself (not an equal copy) is among `items`."""
    for listed in items:  # noqa: SIM110 (a plain loop: `any` over a generator costs more on every step)
        if listed is item:
            return True
    return False


if TYPE_CHECKING:  # the compiled twin has the same signature (core/_speedups.pyi)
    is_listed = python_is_listed
else:
    _compiled = compiled("bestiary.core._speedups")
    is_listed = python_is_listed if _compiled is None else _compiled.is_listed
