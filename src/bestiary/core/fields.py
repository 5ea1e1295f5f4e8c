"""A game state's fields declared once: one line per field gives its type, its first value, how a clone
copies it and how it is written to and read from JSON; the state's `__init__`, `_copy_into`, `_to_dict` and
`fields_equal` are generated from those lines, and `read_fields` reads them back.

    class CritterState(StateFields, State):
        round: int = state_field(0, read=integer(0, 10**6))
        decks: list[list[int]] = state_field(lambda state: ..., write=..., read=...)

How a clone copies a field follows its annotation (`list[list[...]]`: each inner list copied; `list[...]`: the
list copied; `list[...] | None`: None or a copy; anything else shared, so it must never change in place)
unless `copy=OBJECT` says the value has its own `.copy()`. The copying code is generated as plain assignments
(as dataclasses generate theirs), so a clone costs what a hand-written one did.

JSON keeps each game's own saved format: the entries come in the order the fields are declared, under `key`
(the field's name unless given, None for a field that is not saved), through `write(state, value)`; reading
calls `read(reader, key)` in the same order, where the reader holds the game, the raw data, the state read so
far and the card indices already placed (so that a card may stand in one place only).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bestiary.core import state_format
from bestiary.core.errors import StateFormatError

VALUE = "value"  # shared: a number, a string, a tuple, None
LIST = "list"  # a list of values: copied
LISTS = "lists"  # a list of lists of values: each list copied
OPTIONAL_LIST = "optional-list"  # None or a list of values
OBJECT = "object"  # a value with its own copy()
CLEARED = "cleared"  # a cache: a clone starts without it (None)
COPIES = {
    VALUE: "o.{name} = s.{name}",
    LIST: "o.{name} = s.{name}.copy()",
    LISTS: "o.{name} = [v.copy() for v in s.{name}]",
    OPTIONAL_LIST: "o.{name} = None if s.{name} is None else s.{name}.copy()",
    OBJECT: "o.{name} = s.{name}.copy()",
    CLEARED: "o.{name} = None",
}
SAME_KEY = "\0"  # the default key: the field's own name

Writer = Callable[[Any, Any], Any]  # (state, value) -> JSON
ReadFn = Callable[["FieldReader", str], Any]  # (reader, key) -> value, raising StateFormatError when wrong


@dataclass(frozen=True)
class Field:
    initial: Any  # a value that never changes in place, or a function of the new state (game and seed set)
    copy: str | None = None  # one of COPIES; None: from the annotation
    key: str | None = SAME_KEY
    write: Writer | None = None  # None: the value as it is (a list as a new list)
    read: ReadFn | None = None  # None: the value as it is (a list of lists as lists)
    compare: bool = True  # False for a cache, which two equal states may hold or not


@dataclass(frozen=True)
class DeclaredField:
    name: str
    copy: str
    key: str | None
    initial: Any
    write: Writer | None
    read: ReadFn | None
    compare: bool


def state_field(initial: Any, *, copy: str | None = None, key: str | None = SAME_KEY, write: Writer | None = None,
                read: ReadFn | None = None, compare: bool = True) -> Any:
    """One field of a state (see the module's text). `initial` is called with the new state when callable."""
    if copy is not None and copy not in COPIES:
        raise ValueError(f"copy must be one of {', '.join(COPIES)}, not {copy!r}")
    return Field(initial, copy, key, write, read, compare and copy != CLEARED)


class FieldReader:
    """What a field's `read` sees: the game, the raw `_to_dict` data, the state filled so far, and the card
    indices already placed."""

    def __init__(self, game: Any, raw: Mapping[str, Any], state: Any) -> None:
        self.game = game
        self.raw = raw
        self.state = state
        self.seen: set[int] = set()

    @property
    def players(self) -> int:
        return int(self.game.num_players)


def copy_kind(annotation: str) -> str:
    """How a clone copies a field of this (string) annotation."""
    text = annotation.replace(" ", "")
    if text.startswith("list[list["):
        return LISTS
    if text.startswith("list[") and text.endswith("]|None"):
        return OPTIONAL_LIST
    if text.startswith("list["):
        return LIST
    if text.startswith(("dict[", "set[")):
        raise TypeError(f"no copy known for a field annotated {annotation!r}: give copy=")
    return VALUE


class StateFields:
    """Mixed in before `State`, it generates the subclass's `__init__`, `_copy_into`, `_to_dict` and
    `fields_equal` from its `state_field` declarations (see the module's text)."""

    _declared_fields: tuple[DeclaredField, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = []
        for name, annotation in inspect.get_annotations(cls).items():  # the class's own, as strings
            field = cls.__dict__.get(name)
            if not isinstance(field, Field):
                continue
            kind = field.copy or copy_kind(annotation if isinstance(annotation, str) else repr(annotation))
            key = name if field.key == SAME_KEY else field.key
            declared.append(DeclaredField(name, kind, key, field.initial, field.write, field.read, field.compare))
            delattr(cls, name)  # an instance without the field must fail, not find the declaration
        if not declared:  # a subclass that adds no field keeps its parent's
            return
        cls._declared_fields = tuple(declared)
        namespace: dict[str, Any] = {}
        lines = ["def _copy_into(s, o):"] + ["    " + COPIES[f.copy].format(name=f.name) for f in declared]
        exec("\n".join(lines), namespace)  # generated from the declarations, as dataclasses do
        copy_into = namespace["_copy_into"]
        copy_into.__qualname__ = f"{cls.__name__}._copy_into"
        copy_into.__doc__ = "Copy the declared fields into a bare instance; nothing mutable is shared."
        cls._copy_into = copy_into  # type: ignore[method-assign]
        parent_init: Callable[..., None] = cls.__init__

        def __init__(self: Any, game: Any, seed: int | None) -> None:
            parent_init(self, game, seed)
            for f in declared:
                setattr(self, f.name, f.initial(self) if callable(f.initial) else f.initial)

        __init__.__qualname__ = f"{cls.__name__}.__init__"
        cls.__init__ = __init__  # type: ignore[assignment, method-assign]

    def _copy_into(self, other: Any) -> None:
        raise TypeError("replaced by the copy generated for each subclass")

    def _to_dict(self) -> dict[str, Any]:
        """The declared fields as JSON-able data, in their declared order."""
        out: dict[str, Any] = {}
        for f in self._declared_fields:
            if f.key is None:
                continue
            value = getattr(self, f.name)
            if f.write is not None:
                out[f.key] = f.write(self, value)
            elif f.copy == LISTS:
                out[f.key] = [list(v) for v in value]
            elif f.copy in (LIST, OPTIONAL_LIST):
                out[f.key] = None if value is None else list(value)
            else:
                out[f.key] = value
        return out

    def fields_equal(self, other: Any) -> bool:
        """Whether two states of one game hold equal values in every declared field (logs, seeds and caches
        aside)."""
        if type(self) is not type(other):
            return False
        for f in self._declared_fields:
            if not f.compare:
                continue
            a, b = getattr(self, f.name), getattr(other, f.name)
            if f.copy == OBJECT:
                if _object_fields(a) != _object_fields(b):
                    return False
            elif a != b:
                return False
        return True


def read_fields(state: Any, raw: Mapping[str, Any]) -> FieldReader:
    """Fill a new state's declared fields from `_to_dict` data, in the declared order; the reader is returned
    for the checks that span fields."""
    if not isinstance(raw, Mapping):
        raise StateFormatError("a state must be a table of fields")
    reader = FieldReader(state.game, raw, state)
    for f in state._declared_fields:
        if f.key is None:
            continue
        if f.read is not None:
            value = f.read(reader, f.key)
        else:
            value = raw[f.key]
            if f.copy == LISTS:
                value = [list(v) for v in value]
            elif f.copy in (LIST, OPTIONAL_LIST) and value is not None:
                value = list(value)
        setattr(state, f.name, value)
    return reader


def _object_fields(value: Any) -> Any:
    slots = getattr(type(value), "__slots__", None)
    if slots is not None:
        return type(value), tuple(getattr(value, name) for name in slots)
    return type(value), vars(value)


# -- readers for common fields ----------------------------------------------------------------------------
Bound = int | Callable[[FieldReader], int]


def integer(low: Bound, high: Bound) -> ReadFn:
    """An integer from `low` to `high` (each a number or a function of the reader, e.g. of the players)."""
    def read(reader: FieldReader, key: str) -> int:
        return state_format.integer(reader.raw, key, _bound(low, reader), _bound(high, reader))
    return read


def one_of(allowed: Sequence[str]) -> ReadFn:
    """A text that must be one of `allowed`."""
    def read(reader: FieldReader, key: str) -> str:
        return state_format.pick(reader.raw, key, allowed)
    return read


def last_seat(reader: FieldReader) -> int:
    return reader.players - 1


def _bound(bound: Bound, reader: FieldReader) -> int:
    return bound(reader) if callable(bound) else bound
