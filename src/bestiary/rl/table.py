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
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Literal, get_args

import numpy as np

from bestiary.core.api import Action, Game, State
from bestiary.core.chance import sample_chance
from bestiary.core.registry import load_game
from bestiary.core.speedups import mark_indices

RL_EXTRA_HINT = "pip install 'bestiary[rl]'"

# What an environment does with an illegal action (one a learner sampled without the mask): "end" the episode
# with a penalty for the seat that sent it, as PettingZoo's classic games do, or "raise" IllegalActionError.
IllegalActionRule = Literal["end", "raise"]
# The PettingZoo environments may also "penalise": the sender gets the penalty, the game is unchanged and the
# episode goes on, for loops (PettingZoo's max_cycles_test) that sample without the mask and must run a fixed length.
MultiAgentIllegalActionRule = Literal["end", "penalise", "raise"]


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


def check_illegal_rule(rule: str, rules: tuple[str, ...] = get_args(IllegalActionRule)) -> None:
    if rule not in rules:
        raise ValueError(f"illegal_action must be one of {', '.join(map(repr, rules))}, not {rule!r}")


def check_render_mode(mode: str | None, modes: Sequence[str]) -> None:
    if mode is not None and mode not in modes:
        raise ValueError(f"render_mode must be None or one of {', '.join(map(repr, modes))}, not {mode!r}")


def render_state(state: State, mode: str | None) -> str | None:
    """What `render()` gives in `mode`: the state's text for "ansi", printed for "human", nothing for None."""
    if mode is None:
        return None
    picture = str(state)
    if mode == "human":
        print(picture)
        return None
    return picture


def legal_mask(state: State, seat: int, size: int) -> np.ndarray:
    """1 at the index of each legal action of `seat` (all 0 when it may not act), as int8 (`size` actions)."""
    mask = np.zeros(size, np.int8)
    if not state.is_chance_node():
        mark_legal(mask, state.legal_actions(seat))
    return mask


# Set 1 at each legal action's index in a zeroed int8 mask (a row of a batch, say), in place.
mark_legal = mark_indices


def action_at(actions: Sequence[Action], index: int) -> Action | int:
    """The action with this index in the game's player action table, or the index itself when none has it
    (apply_action then says why). Applying the action object just listed by `legal_actions` skips checking
    the whole list again."""
    return actions[index] if 0 <= index < len(actions) else index


def agent_names(game: Game) -> list[str]:
    return [f"player_{seat}" for seat in range(game.num_players)]


def asking_order(state: State) -> list[int]:
    """The seats asked now, in the order they are asked: as listed, but rotated in a race."""
    seats = state.players_to_act()
    if len(seats) > 1 and state.decision_kind() == "race":
        start = state.history_length() % len(seats)
        return seats[start:] + seats[:start]
    return seats


def deciding_seat(state: State) -> int:
    """The seat asked next."""
    return asking_order(state)[0]


def play_chance(state: State, rng: random.Random) -> None:
    """Play chance nodes with `rng` until a seat must decide or the game ends."""
    while state.is_chance_node():
        state.apply_action(sample_chance(state, rng))
