"""The core's compiled helpers (core/_speedups.c) against their Python twins (core/speedups.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from bestiary.core.compiled import compiled
from bestiary.core.speedups import FEW_ACTIONS, python_is_listed, python_mark_indices

speedups = compiled("bestiary.core._speedups")
if speedups is None and os.environ.get("BESTIARY_REQUIRE_COMPILED"):
    pytest.fail("BESTIARY_REQUIRE_COMPILED is set, and bestiary.core._speedups is not built", pytrace=False)


class Equal:
    """Equal to every other Equal: is_listed must still tell them apart."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Equal)

    __hash__ = object.__hash__


@pytest.mark.parametrize("is_listed", [python_is_listed] + ([speedups.is_listed] if speedups else []))
def test_is_listed_finds_the_object_itself_not_an_equal_copy(is_listed) -> None:  # type: ignore[no-untyped-def]
    a, b, c = Equal(), Equal(), Equal()
    for items in ([a, b], (a, b), [], ()):
        assert is_listed(a, items) == any(x is a for x in items)
        assert not is_listed(c, items)
    assert is_listed(b, [1, 2, b])


@pytest.mark.skipif(speedups is None, reason="the core's compiled helpers were not built")
def test_is_listed_refuses_what_is_not_a_list_or_a_tuple() -> None:
    assert speedups is not None
    with pytest.raises(TypeError, match="list or a tuple"):
        speedups.is_listed(1, {1, 2})
    with pytest.raises(TypeError):
        speedups.is_listed(1)


class Indexed:
    __slots__ = ("index",)

    def __init__(self, index: object) -> None:
        self.index = index


@pytest.mark.parametrize("mark", [python_mark_indices] + ([speedups.mark_indices] if speedups else []))
@pytest.mark.parametrize("count", [0, 1, FEW_ACTIONS - 1, FEW_ACTIONS, 300])
def test_mark_indices_sets_each_index_and_nothing_else(mark, count: int) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(count)
    indices = rng.choice(1000, count, replace=False)
    for dtype in (np.int8, np.uint8, np.bool_):
        mask = np.zeros(1000, dtype)
        for actions in ([Indexed(int(i)) for i in indices], tuple(Indexed(int(i)) for i in indices)):
            mask[:] = 0
            mark(mask, actions)
            assert sorted(np.flatnonzero(mask)) == sorted(indices)
    batch = np.zeros((3, 1000), np.int8)
    mark(batch[1], [Indexed(int(i)) for i in indices])  # a row of a batch
    assert not batch[0].any() and not batch[2].any() and sorted(np.flatnonzero(batch[1])) == sorted(indices)


@pytest.mark.skipif(speedups is None, reason="the core's compiled helpers were not built")
def test_mark_indices_refuses_what_it_cannot_mark() -> None:
    assert speedups is not None
    mask = np.zeros(10, np.int8)
    with pytest.raises(IndexError):
        speedups.mark_indices(mask, [Indexed(10)])
    with pytest.raises(IndexError):
        speedups.mark_indices(mask, [Indexed(-1)])
    with pytest.raises(TypeError):
        speedups.mark_indices(mask, [Indexed("3")])
    with pytest.raises(AttributeError):
        speedups.mark_indices(mask, [object()])
    with pytest.raises(ValueError, match="one-byte"):
        speedups.mark_indices(np.zeros(10, np.int32), [Indexed(1)])
    with pytest.raises((BufferError, ValueError)):
        speedups.mark_indices(np.zeros((10, 2), np.int8)[:, 0], [Indexed(1)])  # not contiguous
    with pytest.raises(TypeError):
        speedups.mark_indices(mask, Indexed(1))  # not a sequence
    assert not mask.any()
