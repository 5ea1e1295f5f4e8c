"""The toy game the adapter tests rely on keeps the core API's promises and reaches every decision kind."""

from __future__ import annotations

import random

import pytest

from bestiary.core.api import CHANCE
from bestiary.core.conformance import check_state, random_step
from tests.rl.hidden_bid import HiddenBid


@pytest.mark.parametrize("players", [2, 3])
def test_hidden_bid_keeps_every_promise(players: int) -> None:
    game = HiddenBid.from_options(players=players)
    kinds = set()
    for seed in range(10):
        rng, check_rng = random.Random(seed), random.Random(seed + 1)
        state = game.new_initial_state(seed=seed)
        while True:
            check_state(state, check_rng, f"hidden-bid seed {seed} step {len(state.history())}")
            kinds.add(state.decision_kind())
            if state.is_terminal():
                break
            player, action = random_step(state, rng)
            state.apply_action(action, player=None if player == CHANCE else player)
        assert sum(state.returns()) == pytest.approx(0.0)
    assert kinds >= {"chance", "simultaneous", "race", "terminal"}
    if players == 3:
        assert "response" in kinds


def test_bids_stay_hidden_until_all_are_in() -> None:
    state = HiddenBid.from_options(players=2).new_initial_state(seed=0)
    state.apply_action("deal 3")
    state.apply_action("deal 1")
    assert state.observation(1)["cards"] == [None, 1]
    state.apply_action("bid 2", player=0)
    assert state.observation(1)["bids"] == [None, None]
    assert state.observation(0)["bids"] == [2, None]
    state.apply_action("bid 0", player=1)
    assert state.observation(1)["bids"] == [2, 0]
    assert state.decision_kind() == "turn" and state.players_to_act() == [1]  # a window only P2 can answer
