"""Critter capture's observation tensor: shape, field meanings, and nothing hidden."""

from __future__ import annotations

import random

import numpy as np
import pytest

import bestiary
from bestiary.core.api import CHANCE
from bestiary.core.conformance import random_step
from bestiary.games.critters import tensor


def fields(game, values: np.ndarray) -> dict[str, np.ndarray]:
    return tensor.split_fields(game, values)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_every_step_encodes_the_observation_field_by_field(players: int) -> None:
    game = bestiary.load_game("critter-capture", players=players, first_player="random")
    cards = len(game.cards)
    assert game.observation_tensor_shape() == (9 + 2 + 5 * players + 2 + 2 + 4 + 4 + cards * (3 + players)
                                               + 2 * players,)
    rng = random.Random(players)
    state = game.new_initial_state(seed=players)
    while True:
        for viewer in range(players):
            values = state.observation_tensor(viewer)
            assert values.dtype == np.float32
            assert values.shape == game.observation_tensor_shape()
            assert np.array_equal(state.determinize(viewer, rng).observation_tensor(viewer), values)
            o = state.observation(viewer)
            f = fields(game, values)
            assert tensor.PHASES[int(np.argmax(f["phase"]))] == o["phase"] and f["phase"].sum() == 1
            places = f["card_places"].reshape(cards, 3 + players)
            assert (places.sum(axis=1) == 1).all()  # each card is in exactly one place
            assert places[:, 0].sum() == sum(o["decks"].values())
            corrals = places[:, 3:].sum(axis=0)
            assert [corrals[(p - viewer) % players] for p in range(players)] == [len(c) for c in o["corrals"]]
            roles = f["seat_roles"].reshape(5, players)
            if o["active_player"] is not None:
                assert roles[1, (o["active_player"] - viewer) % players] == 1
            assert roles[0, (o["starting_player"] - viewer) % players] == 1
        if state.is_terminal():
            break
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    final = fields(game, state.observation_tensor(0))
    assert final["final_attribute"].sum() == 1
    assert final["deck_sizes"].sum() == 0


def test_seats_are_counted_from_the_viewer() -> None:
    game = bestiary.load_game("critter-capture", players=3, first_player=1)
    state = game.new_initial_state(seed=0)
    roles = [fields(game, state.observation_tensor(viewer))["seat_roles"].reshape(5, 3) for viewer in range(3)]
    assert [int(np.argmax(r[0])) for r in roles] == [1, 0, 2]  # P2 starts: one seat left of P1, P2 itself...
    assert not np.array_equal(state.observation_tensor(0), state.observation_tensor(1))


def test_tensor_changes_with_what_the_table_shows() -> None:
    game = bestiary.load_game("critter-capture", players=2)
    state = game.new_initial_state(seed=0)
    before = state.observation_tensor(0)
    state.apply_action("draw fish")
    after = fields(game, state.observation_tensor(0))
    assert not np.array_equal(before, state.observation_tensor(0))
    assert after["face_down_colour"].tolist() == [1, 0, 0, 0]
    assert after["seat_roles"].reshape(5, 2)[4].tolist() == [1, 0]  # drawn by the viewer
