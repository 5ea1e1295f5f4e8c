"""Hand-built Cube Creatures positions for unit tests."""

from __future__ import annotations

from typing import Any

import bestiary
from bestiary.core.scenario import deep_merge
from bestiary.games.cube.state import CubeState


def position(players: int = 2, seed: int = 1, options: dict[str, Any] | None = None, **edits: Any) -> CubeState:
    """A main-phase position of P1's first turn, with the given parts of the state replaced."""
    game = bestiary.load_game("cube-creatures", players=players, **(options or {}))
    full = game.new_initial_state(seed=seed).to_dict()
    base = {"phase": "main", "turn": 1, "current": 0, "deck": [], "discard": [], "hands": [[]] * players,
            "battlefields": [[]] * players}
    full["state"] = deep_merge(deep_merge(full["state"], base), edits)
    state = game.state_from_dict(full)
    assert isinstance(state, CubeState)
    return state


def card(state: CubeState, card_id: str) -> int:
    return state.game.index_of[card_id]
