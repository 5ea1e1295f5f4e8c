"""How every adapter runs a Bestiary game as a sequence of single-seat decisions.

Several seats may be asked at once (a simultaneous choice, a response window, a race). The adapters put
them in the order `players_to_act()` lists them and ask one at a time: the state keeps each simultaneous
choice out of the others' observations until all are in, so asking in turn reveals nothing. A race goes to
the first seat asked that takes its chance, so the order rotates with the number of actions played: no seat
is always asked last. Chance nodes are played inside the environment with its own
seeded generator, never shown to a learner as a decision.
"""

from __future__ import annotations

import importlib
import random
from types import ModuleType
from typing import Any

from bestiary.core.api import Game, State
from bestiary.core.chance import sample_chance
from bestiary.core.registry import load_game

RL_EXTRA_HINT = "pip install 'bestiary[rl]'"


def require(module: str) -> ModuleType:
    """Import an optional research library, or say which extra brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"bestiary.rl needs '{module}', which comes with the rl extra: {RL_EXTRA_HINT}") \
            from error


def resolve_game(game: Game | str, options: dict[str, Any]) -> Game:
    """A configured game from a name and options, or a game already made (then no options)."""
    if isinstance(game, Game):
        if options:
            raise TypeError(f"options {sorted(options)} given with a game already configured")
        return game
    return load_game(game, **options)


def agent_names(game: Game) -> list[str]:
    return [f"player_{seat}" for seat in range(game.num_players)]


def asking_order(state: State) -> list[int]:
    """The seats asked now, in the order they are asked: as listed, but rotated in a race."""
    seats = state.players_to_act()
    if len(seats) > 1 and state.decision_kind() == "race":
        start = len(state.history()) % len(seats)
        return seats[start:] + seats[:start]
    return seats


def deciding_seat(state: State) -> int:
    """The seat asked next."""
    return asking_order(state)[0]


def play_chance(state: State, rng: random.Random) -> None:
    """Play chance nodes with `rng` until a seat must decide or the game ends."""
    while state.is_chance_node():
        state.apply_action(sample_chance(state, rng))
