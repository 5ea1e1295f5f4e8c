"""The heuristic player beats a random one clearly."""

from __future__ import annotations

import bestiary
from tests.heuristic_match import heuristic_against_random


def test_heuristic_beats_random() -> None:
    game = bestiary.load_game("cube-creatures", players=2)
    games = [heuristic_against_random(game, seed, seed % 2) for seed in range(40)]
    wins = sum(state.returns()[seed % 2] for seed, state in enumerate(games))
    assert wins >= 30, f"heuristic won {wins} of 40"
