"""Bestiary: rules engines, play, AI and analysis for four creature-themed tabletop games."""

from bestiary import games as _games  # noqa: F401  (registers the games)
from bestiary.core.api import CHANCE, SIMULTANEOUS, TERMINAL, Action, Event, Game, GameInfo, State
from bestiary.core.errors import (
    BestiaryError,
    CardFileError,
    IllegalActionError,
    OptionError,
    StateFormatError,
    UnknownGameError,
)
from bestiary.core.registry import game_info, list_games, load_game

__all__ = [
    "CHANCE", "SIMULTANEOUS", "TERMINAL", "Action", "BestiaryError", "CardFileError", "Event", "Game",
    "GameInfo", "IllegalActionError", "OptionError", "State", "StateFormatError", "UnknownGameError",
    "game_info", "list_games", "load_game",
]
__version__ = "0.1.0"
