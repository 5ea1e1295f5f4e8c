"""Cube Creatures' observation tensor: shape, field meanings, and nothing hidden."""

from __future__ import annotations

import random

import numpy as np
import pytest

import bestiary
from bestiary.core.api import CHANCE
from bestiary.core.conformance import random_step
from bestiary.games.cube import tensor
from tests.rl.tensor_checks import checked_tensor


@pytest.mark.parametrize("players", [2, 5])
def test_every_step_encodes_the_observation_field_by_field(players: int) -> None:
    game = bestiary.load_game("cube-creatures", players=players, first_player="random")
    cards = len(game.in_play)
    assert game.observation_tensor_shape() == (7 + 2 + 5 * players + 3 * players + 5 + 2 + 3 + 3 + 3 + 6
                                               + cards * (4 + 2 * players) + cards * 11,)
    rng = random.Random(players)
    state = game.new_initial_state(seed=players)
    while True:
        for viewer in range(players):
            _, o, f = checked_tensor(state, viewer, rng, tensor)
            places = f["card_places"].reshape(cards, 4 + 2 * players)
            assert (places.sum(axis=1) == 1).all()  # each card is in exactly one place
            assert places[:, 1].sum() == len(o["hand"])
            assert places[:, 0].sum() == o["deck"] + sum(o["hand_sizes"]) - len(o["hand"])
            victory = places[:, 4 + players:].sum(axis=0)
            assert [victory[(p - viewer) % players] for p in range(players)] == [len(v) for v in o["victory"]]
            stats = f["creature_stats"].reshape(cards, 11)
            assert stats[:, 0].sum() == sum(1 for field in o["battlefields"] if field)  # one Guard a battlefield
            counts = f["seat_counts"].reshape(3, players)
            assert counts[0, (1 - viewer) % players] * game.hand_size == pytest.approx(o["hand_sizes"][1])
            assert f["attack"][0] == (o["attack"] is not None)
        if state.is_terminal():
            break
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    final = tensor.split_fields(game, state.observation_tensor(0))
    assert final["seat_roles"].reshape(5, players)[4].sum() == len(state.observation(0)["winners"])


def test_seats_are_counted_from_the_viewer_and_guards_are_placed() -> None:
    game = bestiary.load_game("cube-creatures", players=3, first_player=1)
    state = game.new_initial_state(seed=0)
    roles = [tensor.split_fields(game, state.observation_tensor(viewer))["seat_roles"].reshape(5, 3)
             for viewer in range(3)]
    assert [int(np.argmax(r[1])) for r in roles] == [1, 0, 2]  # P2 goes first: one seat left of P1, P2 itself...
    rng = random.Random(0)
    while state.observation(0)["phase"] != "main":
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    o = state.observation(0)
    f = tensor.split_fields(game, state.observation_tensor(0))
    row = [game.ids[card] for card in game.in_play].index(o["battlefields"][2][0]["id"])
    places = f["card_places"].reshape(-1, 4 + 2 * 3)
    assert places[row, 4 + 2] == 1  # P3's Guard lies on the battlefield of relative seat 2
    stats = f["creature_stats"].reshape(-1, 11)[row]
    assert stats[0] == 1 and stats[2] * tensor.STAT_SCALE == o["battlefields"][2][0]["attack_now"]
