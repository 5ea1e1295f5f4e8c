"""Lungo test helpers: a game and a dealt state with every chance outcome forced."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import bestiary
from bestiary.games.lungo.game import CreaturesOfLungo
from bestiary.games.lungo.state import LungoState


def dealt(hands: Sequence[Sequence[str]], goals: Sequence[str], turn_draw: str | None = None,
          **options: object) -> LungoState:
    """A new game whose goals, three-card hands and first turn draw are forced."""
    game = bestiary.load_game("creatures-of-lungo", players=len(hands), **options)
    state = game.new_initial_state(seed=0)
    for goal in goals:
        state.apply_action(f"goal {goal}")
    for hand in hands:
        for card in hand:
            state.apply_action(f"draw {card}")
    if turn_draw is not None:
        state.apply_action(f"draw {turn_draw}")
    return state


@pytest.fixture
def game() -> CreaturesOfLungo:
    loaded = bestiary.load_game("creatures-of-lungo", players=2)
    assert isinstance(loaded, CreaturesOfLungo)
    return loaded
