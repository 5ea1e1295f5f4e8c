"""Each game's observation tensor, read straight from the state for speed, equals the one its encoder builds
from the observation dict (which can hold nothing the seat may not see), for every seat at every step of
seeded random games at every player count."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import bestiary
from tests.conftest import game_configurations
from tests.random_play import states_along_random_games

PACKAGES = {"critter-capture": "critters", "cube-creatures": "cube", "creatures-of-lungo": "lungo",
            "crits-creatures": "crits"}
SHIPPED = game_configurations()


@pytest.mark.parametrize(("name", "players"), SHIPPED, ids=[f"{n}-{p}p" for n, p in SHIPPED])
def test_the_tensor_read_from_the_state_is_the_observation_encoded(name: str, players: int) -> None:
    tensor = importlib.import_module(f"bestiary.games.{PACKAGES[name]}.tensor")
    game = bestiary.load_game(name, players=players)
    for state in states_along_random_games(game, games=1):
        for viewer in range(players):
            fast = state.observation_tensor(viewer)
            assert fast.dtype == np.float32
            assert np.array_equal(fast, tensor.encode(game, state.observation(viewer), viewer))


@pytest.mark.parametrize("options", [{"grandma": True}, {"reactions": False}], ids=["grandma", "no-reactions"])
def test_cube_tensor_read_from_the_state_covers_only_the_cards_in_play(options: dict[str, bool]) -> None:
    # The fast tensor keeps a place for every card of the deck file and reads those in play.
    tensor = importlib.import_module("bestiary.games.cube.tensor")
    game = bestiary.load_game("cube-creatures", players=3, **options)
    assert len(game.in_play) < len(game.cards)
    for state in states_along_random_games(game, games=1):
        for viewer in range(3):
            encoded = tensor.encode(game, state.observation(viewer), viewer)
            assert np.array_equal(state.observation_tensor(viewer), encoded)
