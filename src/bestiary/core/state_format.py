"""Reading a game's state back from JSON: small checks that name the field and what was wrong."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bestiary.core.errors import StateFormatError


def pick(raw: Mapping[str, Any], key: str, allowed: Sequence[str]) -> str:
    """A value that must be one of `allowed`."""
    value = raw[key]
    if value not in allowed:
        raise StateFormatError(f"'{key}' must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def integer(raw: Mapping[str, Any], key: str, low: int, high: int) -> int:
    """An integer from `low` to `high`."""
    value = raw[key]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise StateFormatError(f"'{key}' must be an integer from {low} to {high}, not {value!r}")
    return value


def optional_index(raw: Mapping[str, Any], key: str, names: Sequence[str]) -> int | None:
    """The position of a name among `names`, or None where the value is null or absent."""
    value = raw.get(key)
    if value is None:
        return None
    if value not in names:
        raise StateFormatError(f"'{key}' must be one of {', '.join(names)} or null, not {value!r}")
    return list(names).index(value)


def card_indices(index_of: Mapping[str, int], ids: Any, where: str, seen: set[int]) -> list[int]:
    """Card ids as indices; each card may stand in one place of the whole state (`seen` collects them)."""
    if not isinstance(ids, list):
        raise StateFormatError(f"'{where}' must be a list of card ids")
    out = []
    for card_id in ids:
        index = index_of.get(card_id) if isinstance(card_id, str) else None
        if index is None:
            raise StateFormatError(f"'{where}': no card with id {card_id!r}")
        if index in seen:
            raise StateFormatError(f"'{where}': card {card_id} appears twice in the state")
        seen.add(index)
        out.append(index)
    return out
