"""Crit's Creatures' observation tensor: shape, field meanings, and nothing hidden."""

from __future__ import annotations

import random

import numpy as np
import pytest

import bestiary
from bestiary.core.api import CHANCE
from bestiary.core.conformance import random_step
from bestiary.games.crits import rules, tensor
from tests.rl.tensor_checks import checked_tensor

STATS = {name: i for i, name in enumerate(tensor.PIECE_STATS)}



def piece_rows(game, values: np.ndarray) -> np.ndarray:
    return tensor.split_fields(game, values)["pieces"].reshape(32, tensor.piece_width(game))


@pytest.mark.parametrize(("options", "seed"), [({}, 0), ({"width": 8, "length": 12, "placement": "manual"}, 1)])
def test_every_step_encodes_the_observation_field_by_field(options: dict, seed: int) -> None:
    game = bestiary.load_game("crits-creatures", **options)
    width = len(tensor.PIECE_STATS) + 7 + 3 + len(game.cards)
    assert game.observation_tensor_shape() == (10 + 4 + 14 + 10 + 32 * width + 5 * game.width * game.length,)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    while True:
        for viewer in range(2):
            values, o, f = checked_tensor(state, viewer, rng, tensor)
            rows = piece_rows(game, values)
            assert rows[:, STATS["visible"]].sum() == len(o["pieces"])
            assert (rows[:16, STATS["own"]] == rows[:16, STATS["visible"]]).all()  # the viewer's pieces first
            board = f["board"].reshape(5, -1)
            on_board = [p for p in o["pieces"] if p["where"] == "board"]
            assert board[0].sum() == sum(p["side"] == viewer for p in on_board)
            assert board[1].sum() == sum(p["side"] != viewer for p in on_board)
            sides = f["sides"].reshape(7, 2)
            assert sides[5, 1] * 16 == o["reserve"][1 - viewer]
        if state.is_terminal():
            break
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    sides = tensor.split_fields(game, state.observation_tensor(0))["sides"].reshape(7, 2)
    winner = state.observation(0)["winner"]
    assert sides[2].sum() == (winner is not None)


def test_the_board_faces_the_viewer_and_hidden_reserves_stay_hidden() -> None:
    game = bestiary.load_game("crits-creatures")
    state = game.new_initial_state(seed=0)
    o = state.observation(0)
    titan = next(p for p in o["pieces"] if p["piece"] == 0)  # P1's Titan on A3
    assert titan["tile"] == "A3"
    mine, theirs = piece_rows(game, state.observation_tensor(0)), piece_rows(game, state.observation_tensor(1))
    assert (mine[0, STATS["x"]], mine[0, STATS["y"]] * 29) == (0, 2)
    assert theirs[16, STATS["x"]] == 1 and theirs[16, STATS["y"]] * 29 == pytest.approx(27)  # seen from afar
    assert theirs[16, STATS["own"]] == 0 and mine[0, STATS["own"]] == 1
    hidden = [p for p in range(16, 32) if state.where[p] == rules.RESERVE]  # P2's reserve: P1 sees only the count
    assert hidden
    for piece in hidden:
        assert not mine[piece].any()
        assert theirs[piece - 16, STATS["visible"]] == 1
