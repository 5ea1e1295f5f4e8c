"""Card sets as TOML data files, validated by a pydantic schema per game.

A card file has a `[set]` table (id, name) and a `[[cards]]` array of tables. Every problem is reported
as a CardFileError naming the file, the line, the card and the field.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bestiary.core.errors import CardFileError
from bestiary.core.tomlfile import read_toml

if TYPE_CHECKING:
    from bestiary.core.api import Game

STARTER_PREFIX = "starter:"  # how a game names a card file shipped in its package's cards/ folder


def game_card_text(game: Game) -> str | None:
    """The text of the card file `game` plays with (its `card_set_info()["path"]`: a file of the user's, or
    `starter:<name>` for one shipped with the game); None for a game without one or a file no longer there."""
    info = game.card_set_info()
    if not isinstance(info, dict) or not info.get("path"):
        return None
    path = str(info["path"])
    if path.startswith(STARTER_PREFIX):  # in the cards/ folder beside the game's own module
        path = str(Path(inspect.getfile(type(game))).parent / "cards" / path.removeprefix(STARTER_PREFIX))
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return None


class SetMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    description: str = ""


class CardModel(BaseModel):
    """Base of every game's card schema: an id and a name; the rest is the game's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str = Field(min_length=1)
    text: str = ""


C = TypeVar("C", bound=CardModel)


@dataclass(frozen=True)
class CardSet(Generic[C]):
    id: str
    name: str
    path: str
    hash: str
    cards: tuple[C, ...]

    def info(self) -> dict[str, str]:
        return {"id": self.id, "hash": self.hash, "path": self.path}


def content_hash(data: Any) -> str:
    """A hash of the parsed content, so reformatting a file does not change it."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def locate(text: str, index: int | None, field: str | None, table: str = "cards") -> int | None:
    """The line of the `index`-th `[[table]]` entry, or of `field` inside it (or inside `[set]`)."""
    lines = text.splitlines()
    header = re.compile(r"^\s*\[\[\s*" + re.escape(table) + r"\s*\]\]")
    any_header = re.compile(r"^\s*\[")
    start, seen = None, -1
    for number, line in enumerate(lines):
        if index is None and re.match(r"^\s*\[\s*set\s*\]", line):
            start = number
            break
        if index is not None and header.match(line):
            seen += 1
            if seen == index:
                start = number
                break
    if start is None:
        return None
    if field:
        key = re.compile(r"^\s*" + re.escape(field.split(".")[0]) + r"\s*=")
        for number in range(start + 1, len(lines)):
            if any_header.match(lines[number]):
                break
            if key.match(lines[number]):
                return number + 1
    return start + 1


def load_card_set(path: str | Path, model: type[C],
                                check: Callable[[Sequence[C], Callable[..., CardFileError]], None] | None = None,
                                ) -> CardSet[C]:
    """Read and validate a card file; `check` adds the game's cross-card rules, raising through the
    error maker it is given (`fail(message, card=..., field=...)`)."""
    path = Path(path)
    shown = str(path)
    text, data = read_toml(path, partial(CardFileError, shown))

    unknown = sorted(set(data) - {"set", "cards"})
    if unknown:
        raise CardFileError(shown, f"unknown top-level key '{unknown[0]}' (expected [set] and [[cards]])",
                            line=_line_of_key(text, unknown[0]))
    try:
        meta = SetMeta(**data.get("set", {})) if isinstance(data.get("set"), dict) else None
    except ValidationError as error:
        problem = error.errors()[0]
        field = ".".join(str(p) for p in problem["loc"])
        raise CardFileError(shown, problem["msg"], field=f"set.{field}",
                            line=locate(text, None, field)) from None
    if meta is None:
        raise CardFileError(shown, "missing the [set] table (id and name of the card set)")
    raw_cards = data.get("cards")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise CardFileError(shown, "no [[cards]] entries")

    cards: list[C] = []
    for index, raw in enumerate(raw_cards):
        label = str(raw.get("id", f"#{index + 1}")) if isinstance(raw, dict) else f"#{index + 1}"
        try:
            cards.append(model(**raw))
        except ValidationError as error:
            problem = error.errors()[0]
            path_in_card = ".".join(str(p) for p in problem["loc"]) or None
            message = "unknown field" if problem["type"] == "extra_forbidden" else problem["msg"]
            raise CardFileError(shown, message, card=label, field=path_in_card,
                                line=locate(text, index, path_in_card)) from None

    seen: dict[str, int] = {}
    for index, card in enumerate(cards):
        if card.id in seen:
            raise CardFileError(shown, f"duplicate card id (also card #{seen[card.id] + 1})", card=card.id,
                                field="id", line=locate(text, index, "id"))
        seen[card.id] = index

    if check is not None:
        def fail(message: str, *, card: str | None = None, field: str | None = None) -> CardFileError:
            line = locate(text, seen[card], field) if card in seen else None
            return CardFileError(shown, message, card=card, field=field, line=line)

        check(cards, fail)
    return CardSet(meta.id, meta.name, shown, content_hash(data), tuple(cards))


def _line_of_key(text: str, key: str) -> int | None:
    for number, line in enumerate(text.splitlines()):
        if re.match(r"^\s*\[*\s*" + re.escape(key) + r"\b", line):
            return number + 1
    return None
