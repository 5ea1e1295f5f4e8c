"""OpenSpiel states that are pickled, deep-copied or serialized keep OpenSpiel's record of the game (history,
move number), compared with pyspiel's own accessors at every step of random games; the information-state
tensor works or raises as the game type says; the tensors come from the game as they are."""

from __future__ import annotations

import base64
import copy
import pickle

import numpy as np
import pytest

from tests.rl.games import GAMES, RL_EXTRA, make_game
from tests.rl.hidden_bid import HiddenBid

pytest.importorskip("pyspiel", reason=RL_EXTRA)
import pyspiel

from bestiary.rl import openspiel as bestiary_os

TOY_PAYOFFS = bestiary_os.Payoffs("zero-sum", -0.5, 0.5, 0.0, 8)


def spiel_game(name: str, players: int):
    game = make_game(name, players)
    return bestiary_os.load(game, payoffs=TOY_PAYOFFS if name == HiddenBid.info.name else None)


def record(state) -> tuple:
    """Everything OpenSpiel keeps of a state's past, through pyspiel's accessors."""
    return (state.history(), state.move_number(), [(s.player, s.action) for s in state.full_history()],
            state.history_str(), state.current_player(), state.is_terminal())


def states_of_a_random_game(game, seed: int):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    yield state
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        yield state


@GAMES
def test_copied_states_keep_their_history_at_every_step(name: str, players: int) -> None:
    game = spiel_game(name, players)
    for state in states_of_a_random_game(game, seed=players):
        expected = record(state)
        copies = {"pickle": pickle.loads(pickle.dumps(state)), "deepcopy": copy.deepcopy(state),
                  "serialize": game.deserialize_state(state.serialize())}
        for how, back in copies.items():
            assert record(back) == expected, how
            assert back.inner.history_length() == state.inner.history_length(), how
    assert back.inner.to_json() == state.inner.to_json()  # the Bestiary state whole (test_pickling.py: every step)


def test_a_state_serialized_before_states_carried_their_record_still_loads() -> None:
    game = spiel_game("critter-capture", 2)
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    old = base64.b64encode(pickle.dumps(state.inner)).decode("ascii")  # the earlier format: the Bestiary state
    back = game.deserialize_state(old)
    assert back.inner.to_json() == state.inner.to_json() and back.history() == []


def test_a_game_unpickled_where_it_was_pickled_is_the_very_game() -> None:
    game = bestiary_os.load("cube-creatures", players=3)
    state = game.new_initial_state()
    assert pickle.loads(pickle.dumps(game)) is game
    assert pickle.loads(pickle.dumps(state)).get_game() is game


def test_a_copied_state_plays_on_and_records_like_the_original() -> None:
    game = spiel_game("critter-capture", 2)
    states = list(s.clone() for s in states_of_a_random_game(game, seed=5))
    middle = states[len(states) // 2]
    back = pickle.loads(pickle.dumps(middle))
    rng = np.random.default_rng(9)
    for state in (middle, back):
        rng = np.random.default_rng(9)
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
    assert record(back) == record(middle) and back.returns() == middle.returns()


@GAMES
def test_the_information_state_tensor_works_or_raises_as_the_game_type_says(name: str, players: int) -> None:
    game = spiel_game(name, players)
    state = next(s for s in states_of_a_random_game(game, seed=1) if not s.is_chance_node())
    if game.get_type().provides_information_state_tensor:
        tensor = state.information_state_tensor(state.current_player())
        assert len(tensor) == game.information_state_tensor_size() > 0
        assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    else:
        with pytest.raises(pyspiel.SpielError, match="InformationStateTensor unimplemented"):
            state.information_state_tensor(0)
        with pytest.raises(pyspiel.SpielError, match="InformationStateTensor unimplemented"):
            game.information_state_tensor_size()
        with pytest.raises(pyspiel.SpielError, match="InformationStateTensor unimplemented"):
            game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True)).set_from(state, 0)
        assert state.information_state_string(0)  # the string has perfect recall in every game


@GAMES
def test_the_tensor_is_the_games_tensor_and_openspiels_observer_agrees(name: str, players: int) -> None:
    game = spiel_game(name, players)
    observer = game.make_py_observer()
    for state in states_of_a_random_game(game, seed=3):
        if state.is_terminal():
            break
        for seat in range(players):
            tensor = state.observation_tensor(seat)
            assert tensor.dtype == np.float32 and tensor.shape == (game.observation_tensor_size(),)
            assert np.array_equal(tensor, state.inner.observation_tensor(seat).ravel())
            observer.set_from(state, seat)
            assert np.array_equal(observer.tensor, tensor)
            assert str(tensor) == str(observer.tensor.tolist())  # the whole list, as tabular learners key it
    with pytest.raises(pyspiel.SpielError, match="player"):
        state.observation_tensor(players)
