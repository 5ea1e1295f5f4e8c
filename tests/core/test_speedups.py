"""The core's compiled helpers (core/_speedups.c) against their Python twins (core/speedups.py)."""

from __future__ import annotations

import os

import pytest

from bestiary.core.compiled import compiled
from bestiary.core.speedups import python_is_listed

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
