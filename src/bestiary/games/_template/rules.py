"""Pebbles' rules, one small function each, named after the rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.games._template.actions import DIE_FACES, PLAYER_ACTIONS, ROLL, TAKES, Die, Take

if TYPE_CHECKING:
    from bestiary.core.api import Action
    from bestiary.games._template.state import PebblesState


def choices(state: PebblesState) -> tuple[Action, ...]:
    # PEBBLES-2: take 1 or 2 (no more than the pile holds), or roll
    return PLAYER_ACTIONS if state.pile >= 2 else (TAKES[0], ROLL)


def die_odds() -> list[tuple[Action, float]]:
    # PEBBLES-2: a fair three-sided die
    return [(face, 1 / len(DIE_FACES)) for face in DIE_FACES]


def take(state: PebblesState, player: int, count: int) -> None:
    # PEBBLES-2: never more than what is left
    taken = min(count, state.pile)
    state.pile -= taken
    state._log("take", f"P{player + 1} takes {taken}; {state.pile} left.", rules=("PEBBLES-2",))
    if state.pile == 0:
        win(state, player)
    else:
        state.to_move = (player + 1) % state.game.num_players


def win(state: PebblesState, player: int) -> None:
    # PEBBLES-3: the last pebble wins
    state.winner = player
    state._log("win", f"P{player + 1} takes the last pebble and wins.", rules=("PEBBLES-3",))


def play(state: PebblesState, action: Action, player: int) -> None:
    if action == ROLL:
        state.rolling = True
    elif isinstance(action, Die):
        state.rolling = False
        take(state, state.to_move, action.value)
    else:
        assert isinstance(action, Take)
        take(state, player, action.count)
