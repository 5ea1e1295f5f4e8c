"""Games and states pickle (multiprocessing, vector environments and RL libraries send them between
processes) and come back equal, at every step of random games."""

from __future__ import annotations

import pickle
import random

import pytest

import bestiary
from tests.conftest import game_configurations
from tests.random_play import states_along_random_games

SHIPPED = game_configurations()


@pytest.mark.parametrize(("name", "players"), SHIPPED, ids=[f"{n}-{p}p" for n, p in SHIPPED])
def test_games_and_states_pickle_to_equal_ones_at_every_step(name: str, players: int) -> None:
    game = bestiary.load_game(name, players=players)
    game_back = pickle.loads(pickle.dumps(game))
    assert type(game_back) is type(game) and game_back.header() == game.header()
    assert game_back.num_distinct_actions() == game.num_distinct_actions()
    for state in states_along_random_games(game, games=1):
        back = pickle.loads(pickle.dumps(state))
        assert back.to_json() == state.to_json()
        assert back.current_player() == state.current_player()
        assert back.legal_actions(back.players_to_act()[0] if back.players_to_act() else None) \
            == state.legal_actions(state.players_to_act()[0] if state.players_to_act() else None)
        assert back.events(0) == state.events(0)


@pytest.mark.parametrize("name", bestiary.list_games())
def test_an_unpickled_state_plays_on_like_the_original(name: str) -> None:
    game = bestiary.load_game(name, players=2)
    states = states_along_random_games(game, games=1)
    middle = states[len(states) // 2]
    middle.legal_actions(middle.players_to_act()[0] if middle.players_to_act() else None)  # fill any cache
    back = pickle.loads(pickle.dumps(middle))
    assert back.game is game  # unpickled in the same process: the very game, whose actions the history holds
    assert all(a is b for (_, a), (_, b) in zip(back.history(), middle.history(), strict=True))
    for state in (middle, back):
        rng = random.Random(1)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                player = state.players_to_act()[0]
                state.apply_action(rng.choice(state.legal_actions(player)), player)
    assert back.to_json() == middle.to_json()
