"""The conformance suite: every registered game, every standard player count, many seeds."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bestiary
from bestiary.core.api import CHANCE
from bestiary.core.conformance import check_state, checked_playout, play_randomly, random_step
from tests.conftest import game_configurations

CONFIGURATIONS = game_configurations()
SEEDS = range(3)


@pytest.mark.parametrize(("name", "players"), CONFIGURATIONS)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_playout_keeps_every_promise(name: str, players: int, seed: int) -> None:
    game = bestiary.load_game(name, players=players)
    state = checked_playout(game, seed)
    assert state.is_terminal()
    assert len(state.returns()) == players


@pytest.mark.parametrize(("name", "players"), CONFIGURATIONS)
def test_many_quick_playouts_end(name: str, players: int) -> None:
    game = bestiary.load_game(name, players=players)
    finals = [play_randomly(game, seed) for seed in range(40)]
    assert all(state.is_terminal() and len(state.returns()) == players for state in finals)
    assert all(any(player != CHANCE for player, _ in state.history()) for state in finals)  # someone played


@pytest.mark.parametrize(("name", "players"), CONFIGURATIONS)
def test_same_seed_same_game_other_seed_other_game(name: str, players: int) -> None:
    game = bestiary.load_game(name, players=players)
    assert play_randomly(game, 7).to_json() == play_randomly(game, 7).to_json()
    assert len({play_randomly(game, s).to_json() for s in range(5)}) > 1


@pytest.mark.parametrize(("name", "players"), CONFIGURATIONS)
def test_clone_shares_nothing_mutable(name: str, players: int) -> None:
    game = bestiary.load_game(name, players=players)
    rng = random.Random(3)
    state = game.new_initial_state(seed=3)
    checked = 0
    while not state.is_terminal():
        if checked < 10 or rng.random() < 0.1:  # the first steps, then a sample: each check plays a whole game
            checked += 1
            copy = state.clone()
            before = state.to_json()
            while not copy.is_terminal():  # play the clone to the end
                player, action = random_step(copy, rng)
                copy.apply_action(action, player=None if player == CHANCE else player)
            assert state.to_json() == before
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_random_legal_play(data: st.DataObject) -> None:
    """Hypothesis drives the choices: no crash, and every check holds at every step."""
    name, players = data.draw(st.sampled_from(CONFIGURATIONS))
    game = bestiary.load_game(name, players=players)
    state = game.new_initial_state(seed=data.draw(st.integers(0, 2**31)))
    check_rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(data.draw(st.sampled_from(outcomes)))
        else:
            player = data.draw(st.sampled_from(state.players_to_act()))
            state.apply_action(data.draw(st.sampled_from(state.legal_actions(player))), player=player)
        if len(state.history()) % 7 == 0:
            check_state(state, check_rng, f"{name} step {len(state.history())}")
    assert len(state.returns()) == players
