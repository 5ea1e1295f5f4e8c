"""The research libraries' own checks, run on every shipped game at every player count it allows.

These call PettingZoo's `pettingzoo.test`, Gymnasium's `check_env` and OpenSpiel's `random_sim_test` and
serialization as the libraries ship them. Their loops sample actions without the mask where they do, so those
episodes end at the first illegal action, with the penalty (`illegal_action="end"`, docs/rl.md); max_cycles_test
runs with the penalty that lets the episode go on and every seat stepped once per cycle. Cycle counts are
small: the suites are for the adapters' contracts, the games' rules have their own tests.
"""

from __future__ import annotations

import pickle
import types
from functools import partial

import numpy as np
import pytest

from tests.conftest import game_configurations
from tests.rl.games import RL_EXTRA, make_game

pytest.importorskip("pettingzoo", reason=RL_EXTRA)
import gymnasium
import pyspiel
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)

from bestiary.rl import openspiel as bestiary_os
from bestiary.rl import pettingzoo as bestiary_pz
from bestiary.rl.gymnasium import BestiaryEnv, gymnasium_id

SHIPPED = game_configurations()
EVERY_GAME = pytest.mark.parametrize(("name", "players"), SHIPPED, ids=[f"{n}-{p}p" for n, p in SHIPPED])

# PettingZoo's api_test suggests a plain array observation; action masks need the dict it also supports. Its loops
# sample without the mask, so they meet the illegal-action penalty and warn of all-zero masks after the end.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation (space for each agent probably|is not a NumPy)",
    "ignore:Action mask numpy array is all zeros", "ignore:State numpy array is all zeros")


def aec(name: str, players: int, **settings: object) -> bestiary_pz.BestiaryAECEnv:
    return bestiary_pz.env(make_game(name, players), **settings)


def parallel(name: str, players: int, **settings: object) -> bestiary_pz.BestiaryParallelEnv:
    return bestiary_pz.parallel_env(make_game(name, players), **settings)


@EVERY_GAME
def test_pettingzoo_api_test(name: str, players: int) -> None:
    api_test(aec(name, players), num_cycles=200)


@EVERY_GAME
def test_pettingzoo_parallel_api_test(name: str, players: int) -> None:
    parallel_api_test(parallel(name, players), num_cycles=200)


@EVERY_GAME
def test_pettingzoo_seed_test(name: str, players: int) -> None:
    seed_test(partial(aec, name, players), num_cycles=50)


@EVERY_GAME
def test_pettingzoo_parallel_seed_test(name: str, players: int) -> None:
    parallel_seed_test(partial(parallel, name, players), num_cycles=50)


@EVERY_GAME
def test_pettingzoo_render_test(name: str, players: int, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(partial(aec, name, players), custom_tests={"ansi": lambda picture: bool(picture.strip())})
    assert capsys.readouterr().out.strip()  # "human" prints the picture


@EVERY_GAME
def test_pettingzoo_state_test(name: str, players: int) -> None:
    state_test(aec(name, players), parallel(name, players), num_cycles=10)


# max_cycles_test samples without the mask and counts one turn per agent per cycle: it runs with the settings made
# for such loops, an illegal action penalised (the episode goes on) and every seat stepped once per cycle.
CYCLE_SETTINGS = {"illegal_action": "penalise", "turn_order": "cycle"}


@EVERY_GAME
def test_pettingzoo_max_cycles_test(name: str, players: int) -> None:
    module = types.SimpleNamespace(env=partial(aec, name, players, **CYCLE_SETTINGS),
                                   parallel_env=partial(parallel, name, players, **CYCLE_SETTINGS))
    max_cycles_test(module)


@EVERY_GAME
def test_pettingzoo_api_tests_with_the_cycle_settings(name: str, players: int) -> None:
    api_test(aec(name, players, **CYCLE_SETTINGS), num_cycles=50)
    parallel_api_test(parallel(name, players, **CYCLE_SETTINGS), num_cycles=50)
    state_test(aec(name, players, **CYCLE_SETTINGS), parallel(name, players, **CYCLE_SETTINGS), num_cycles=10)


@EVERY_GAME
def test_gymnasium_check_env_every_seat(name: str, players: int) -> None:
    for seat in range(players):
        check_env(BestiaryEnv(make_game(name, players), opponents=["random"], seat=seat))


@EVERY_GAME
def test_gymnasium_make_ids(name: str, players: int) -> None:
    env = gymnasium.make(gymnasium_id(name), players=players, seat=players - 1, opponents=["heuristic"])
    observation, info = env.reset(seed=3)
    assert env.observation_space.contains(observation)
    assert np.isfinite(env.observation_space.low).all() and np.isfinite(env.observation_space.high).all()
    action = int(np.flatnonzero(info["action_mask"])[0])
    assert env.step(action)[0].shape == observation.shape
    check_env(env.unwrapped)


def spiel(name: str, players: int) -> bestiary_os.BestiarySpielGame:
    return bestiary_os.load(name, players=players)


@EVERY_GAME
def test_openspiel_random_sim_test_with_serialization(name: str, players: int) -> None:
    pyspiel.random_sim_test(spiel(name, players), num_sims=1, serialize=True, verbose=False)


@EVERY_GAME
def test_openspiel_serialize_game_and_state(name: str, players: int) -> None:
    game = spiel(name, players)
    state = game.new_initial_state()
    for step in range(12):
        text = pyspiel.serialize_game_and_state(game, state)
        game_back, state_back = pyspiel.deserialize_game_and_state(text)
        assert game_back.num_players() == players
        assert state_back.inner.to_json() == state.inner.to_json()
        assert state_back.legal_actions() == state.legal_actions()
        if state.is_terminal():
            break
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(actions[step % len(actions)])


@EVERY_GAME
def test_openspiel_games_and_states_pickle(name: str, players: int) -> None:
    game = spiel(name, players)
    back = pickle.loads(pickle.dumps(game))
    assert (back.num_players(), str(back)) == (players, str(game))
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    state_back = pickle.loads(pickle.dumps(state))
    assert state_back.inner.to_json() == state.inner.to_json()
    assert state_back.get_game().num_players() == players
