"""Games registered by name; `load_game` makes a configured game."""

from __future__ import annotations

from typing import Any, TypeVar

from bestiary.core.api import Game, GameInfo
from bestiary.core.errors import UnknownGameError

_GAMES: dict[str, type[Game]] = {}
G = TypeVar("G", bound=type[Game])


def register_game(cls: G) -> G:
    """Make a game loadable by its `info.name` (games/__init__.py registers each shipped game with one line)."""
    name = cls.info.name
    if name in _GAMES and _GAMES[name] is not cls:
        raise ValueError(f"two games registered as '{name}'")
    options = cls.Options.model_fields
    for limit in cls.info.online_ranges:
        if limit.option not in options:
            raise ValueError(f"{name}: its online range names '{limit.option}', which is none of its options "
                             f"({', '.join(options)})")
    _GAMES[name] = cls
    return cls


def unregister_game(name: str) -> None:
    """Forget a game registered by `register_game` (a test's own game, once the test is done)."""
    _GAMES.pop(name, None)


def list_games() -> list[str]:
    return sorted(_GAMES)


def game_class(name: str) -> type[Game]:
    try:
        return _GAMES[name]
    except KeyError:
        known = ", ".join(list_games()) or "none"
        raise UnknownGameError(f"no game named '{name}' (games: {known})") from None


def game_info(name: str) -> GameInfo:
    return game_class(name).info


def load_game(name: str, **options: Any) -> Game:
    """A game ready to play, e.g. `load_game("critter-capture", players=4)`."""
    return game_class(name).from_options(**options)
