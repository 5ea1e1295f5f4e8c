"""Creatures of Lungo's observation tensor: shape, field meanings, and nothing hidden."""

from __future__ import annotations

import random

import pytest

import bestiary
from bestiary.core.api import CHANCE
from bestiary.core.conformance import random_step
from bestiary.games.lungo import phases, tensor
from tests.rl.tensor_checks import checked_tensor


def reaches(state, rng: random.Random, phase: str) -> bool:
    """Plays random moves until `phase` (True) or the end of the game (False)."""
    while state.observation(0)["phase"] != phase:
        if state.is_terminal():
            return False
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    return True


@pytest.mark.parametrize("players", [2, 6])
def test_every_step_encodes_the_observation_field_by_field(players: int) -> None:
    game = bestiary.load_game("creatures-of-lungo", players=players)
    cards, goals = len(game.cards), len(game.goal_cards)
    assert game.observation_tensor_shape() == (14 + 4 + goals + 1 + 10 * players + 5 * players
                                               + cards * (6 + 2 * players),)
    rng = random.Random(players)
    state = game.new_initial_state(seed=players)
    while True:
        for viewer in range(players):
            values, o, f = checked_tensor(state, viewer, rng, tensor)
            places = f["card_places"].reshape(cards, 6 + 2 * players)
            assert (places.sum(axis=1) == 1).all()  # each card is in exactly one place
            assert places[:, 1].sum() == len(o["hand"])
            assert places[:, 2].sum() == len(o["discard"])
            if o["goal"] is not None:
                assert tensor.split_fields(game, values)["goal"][game.goal_index[o["goal"]["id"]]] == 1
            assert f["progress"][3] == float(o["battle_on_top"] is True)  # LUNGO-12: the top card's back
            roles = f["seat_roles"].reshape(10, players)
            assert roles[1].sum() == len(o["to_act"])
            assert roles[0, (o["active_player"] - viewer) % players] == 1
        if state.is_terminal():
            break
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    o = state.observation(0)
    roles = tensor.split_fields(game, state.observation_tensor(0))["seat_roles"].reshape(10, players)
    assert o["loser"] is None or roles[3, o["loser"]] == 1


def test_battle_choices_stay_face_down_until_all_have_chosen() -> None:
    game = bestiary.load_game("creatures-of-lungo", players=3)
    for seed in range(40):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        if reaches(state, rng, phases.CHOOSE):
            break
    else:
        pytest.fail("no battle in 40 random games")
    o = state.observation(0)
    f = tensor.split_fields(game, state.observation_tensor(0))
    numbers = f["seat_numbers"].reshape(5, 3)
    places = f["card_places"].reshape(len(game.cards), 6 + 2 * 3)
    for seat in (1, 2):
        relative = seat  # the viewer is P1
        assert numbers[3, relative] * tensor.HAND_SCALE == pytest.approx(o["battle"]["choices"][seat]["face_down"])
        assert places[:, 6 + 3 + relative].sum() == 0  # not a single chosen card of theirs shows
    assert places[:, 6 + 3].sum() == len(o["battle"]["choices"][0])
    assert places[game.index_of[o["battle"]["card"]["id"]], 4] == 1
