"""The heuristic player is clearly better than random play (a small seeded comparison)."""

from __future__ import annotations

import random

import bestiary
from bestiary.core.api import Game
from bestiary.core.chance import sample_chance


def play(game: Game, seed: int, heuristic_seat: int) -> float:
    policy = game.heuristic_policy()
    assert policy is not None
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        player = state.players_to_act()[0]
        legal = state.legal_actions(player)
        if player == heuristic_seat:
            action = policy(state.observation(player), legal, player, rng)
        else:
            action = rng.choice(legal)
        state.apply_action(action, player=player)
    return state.returns()[heuristic_seat]


def test_heuristic_beats_random_play() -> None:
    game = bestiary.load_game("crits-creatures")
    results = [play(game, seed, seed % 2) for seed in range(10)]
    assert sum(r > 0 for r in results) >= 8
