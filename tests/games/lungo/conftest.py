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
    draws = [f"draw {card}" for hand in hands for card in hand]
    force(state, *(f"goal {goal}" for goal in goals), *draws, *([f"draw {turn_draw}"] if turn_draw else []))
    return state


def force(state: LungoState, *outcomes: str) -> None:
    """Apply these chance outcomes in order. LUNGO-12: where the top card's back shows first, it shows what the
    next forced draw needs (a battle card's back before a battle card); after the last outcome, a back showing
    no battle card."""
    for at, outcome in enumerate(outcomes):
        show_back(state, outcomes[at:])
        state.apply_action(outcome)
    show_back(state, ())


def show_back(state: LungoState, upcoming: Sequence[str]) -> None:
    """While the state waits on the top card's back, show the one the next forced draw needs."""
    game = state.game
    if state.is_chance_node() and str(state.chance_outcomes()[0][0]).startswith("top "):
        draw = next((o for o in upcoming if o.startswith("draw ")), None)
        card = game.index_of.get(draw[5:]) if draw else None
        state.apply_action("top battle" if card is not None and game.is_battle[card] else "top other")


@pytest.fixture
def game() -> CreaturesOfLungo:
    loaded = bestiary.load_game("creatures-of-lungo", players=2)
    assert isinstance(loaded, CreaturesOfLungo)
    return loaded
