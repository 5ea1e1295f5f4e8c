"""The heuristic player beats a random one clearly."""

from __future__ import annotations

import random

import bestiary
from bestiary.core.api import State
from bestiary.core.chance import sample_chance


def play(seed: int, heuristic_seat: int) -> State:
    game = bestiary.load_game("cube-creatures", players=2)
    policy = game.heuristic_policy()
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
            assert action in legal
        else:
            action = rng.choice(legal)
        state.apply_action(action, player=player)
    return state


def test_heuristic_beats_random() -> None:
    games = [play(seed, seed % 2) for seed in range(40)]
    wins = sum(state.returns()[seed % 2] for seed, state in enumerate(games))
    assert wins >= 30, f"heuristic won {wins} of 40"
